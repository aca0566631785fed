"""Listening reflex: a small territory, real readings, touch as fast as possible.

The territory holds 4 to 12 cards of the set. The readings are those cards
and karafuda (空札: poems whose torifuda are not on the field), by default as
many karafuda as field cards -- in a match half the cards read are dead --
chosen among the cards sharing an opening with a field card, because those
are the ones that pull a hand out early. Readings come in a seeded order.

Per reading the UI calls ``reading_started(kimariji_at)`` with the time the
kimariji mark leaves the speaker, passes every ``touch`` on, and calls
``reading_over()`` when the yoin has ended. Reaction = take - kimariji mark.

Faults (counted, each touch once):
  ``karafuda``    any touch while a karafuda is read (an otetsuki in a match);
  ``wrong_card``  touching another card while the read card is on the field.
                  A match forgives this on the read card's own side; the drill
                  does not, because precision is what it trains.
A reading of a field card is correct if the card was taken with no fault;
a karafuda reading is correct if nothing was touched.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable

from trainer.drills.common import (Clock, DrillError, TrialResult, best_reaction, checked_cards,
                                   confusables_first, is_disturbed, ms_between, sound_times)

KIND = "listening_reflex"
FAULT_KARAFUDA = "karafuda"
FAULT_WRONG_CARD = "wrong_card"


@dataclass(frozen=True)
class Reading:
    card: int
    karafuda: bool


@dataclass(frozen=True)
class TouchOutcome:
    card: int
    took: bool            # the read card, taken
    fault: str | None
    reaction_ms: float


@dataclass(frozen=True)
class ReflexSummary:
    readings: int
    taken: int
    missed: int           # field cards read and not taken
    faults: int
    mean_reaction_ms: float | None
    best_reaction_ms: float | None    # the fastest real one: anticipations left out
    anticipations: int = 0            # takes before the kimariji or under REACTION_FLOOR_MS
    disturbed: int = 0                # takes whose race the sound stuttered in: in no mean, no best


class ListeningReflex:
    kind = KIND

    def __init__(self, cards: Iterable[int], *, clock: Clock, seed: int = 0,
                 territory_size: int = 8, karafuda: int | None = None):
        if not 4 <= territory_size <= 12:
            raise DrillError("the territory holds 4 to 12 cards")
        self.clock = clock
        self.rng = random.Random(seed)
        pool = checked_cards(cards, minimum=territory_size)
        self.territory: list[int] = self.rng.sample(pool, territory_size)
        n_kara = territory_size if karafuda is None else karafuda
        if not 0 <= n_kara <= 100 - territory_size:
            raise DrillError("too many karafuda")
        self.karafuda = self._choose_karafuda(n_kara)
        self.readings = [Reading(c, False) for c in self.territory] + \
            [Reading(c, True) for c in self.karafuda]
        self.rng.shuffle(self.readings)
        self.field: list[int] = list(self.territory)
        self.reading: Reading | None = None
        self.kimariji_at: float | None = None
        self.results: list[TrialResult] = []
        self.faults = 0
        self._touched: list[int] = []
        self._take: TouchOutcome | None = None
        self._fault: str | None = None
        self._next = 0

    def _choose_karafuda(self, n: int) -> list[int]:
        """n dead cards, each the closest rival of a field card (taken in turn)."""
        chosen: list[int] = []
        others = [c for c in range(1, 101) if c not in self.territory]
        targets = self.rng.sample(self.territory, len(self.territory))
        while len(chosen) < n:
            target = targets[len(chosen) % len(targets)]
            chosen += confusables_first(self.rng, target,
                                        [c for c in others if c not in chosen], 1)
        return chosen

    def is_over(self) -> bool:
        return self.reading is None and (self._next >= len(self.readings) or not self.field)

    def next_reading(self) -> Reading | None:
        if self.reading is not None:
            raise DrillError("the current reading is not over")
        if self.is_over():
            return None
        self.reading = self.readings[self._next]
        self._next += 1
        self.kimariji_at = None
        self._touched, self._take, self._fault = [], None, None
        return self.reading

    def reading_started(self, kimariji_at: float) -> None:
        if self.reading is None:
            raise DrillError("no poem is being read")
        self.kimariji_at = kimariji_at

    def touch(self, card: int, at: float | None = None) -> TouchOutcome:
        if self.reading is None or self.kimariji_at is None:
            raise DrillError("no poem is being read")
        if card not in self.field:
            raise DrillError(f"card {card} is not on the field")
        at = self.clock() if at is None else at
        reaction = ms_between(self.kimariji_at, at)
        if self._take is not None:  # already taken: later touches change nothing
            return TouchOutcome(card, False, None, reaction)
        if not self.reading.karafuda and card == self.reading.card:
            self._take = TouchOutcome(card, True, None, reaction)
            self.field.remove(card)
            return self._take
        fault = FAULT_KARAFUDA if self.reading.karafuda else FAULT_WRONG_CARD
        if card not in self._touched:
            self._touched.append(card)
            self.faults += 1
            self._fault = self._fault or fault
        return TouchOutcome(card, False, fault, reaction)

    def reading_over(self) -> TrialResult:
        """The yoin ended: close the reading and give its result."""
        if self.reading is None:
            raise DrillError("no poem is being read")
        r, take = self.reading, self._take
        took = take is not None
        correct = (not self._touched) if r.karafuda else (took and self._fault is None)
        answer = ",".join(str(c) for c in self._touched + ([r.card] if took else [])) or None
        result = TrialResult(KIND, r.card, correct, answer,
                             take.reaction_ms if take is not None else None, self._fault)
        self.results.append(result)
        self.reading = None
        return result

    def summary(self) -> ReflexSummary:
        field_results = [r for r in self.results if r.card in self.territory]
        taken = [r for r in field_results if r.reaction_ms is not None]
        times = sound_times(taken)
        best, early = best_reaction(times)
        return ReflexSummary(
            readings=len(self.results), taken=len(taken),
            missed=len(field_results) - len(taken), faults=self.faults,
            mean_reaction_ms=sum(times) / len(times) if times else None,
            best_reaction_ms=best, anticipations=early, disturbed=sum(map(is_disturbed, taken)))
