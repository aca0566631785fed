"""Positional memory (暗記): memorise where the cards lie, then find them face down.

A territory of N cards is laid out on a grid of rows (上段, 中段, 下段 for
three) with some gaps, as on a floor. The player studies it for
``memorise_s`` seconds (or says ready earlier); then the torifuda turn face
down. Poems are read (the field cards, and optionally karafuda); the player
touches the place where the card lies. The first touch decides; the card is
then turned up and removed, right or wrong, so the field thins out as in a
match. Reaction from the kimariji mark, as in ``listening_reflex``.
Faults: ``wrong_place`` (a place that does not hold the card read),
``karafuda`` (any touch while a karafuda is read).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Iterable

from trainer.drills.common import (Clock, DrillError, TrialResult, checked_cards,
                                   confusables_first, ms_between)

KIND = "positional"
FAULT_WRONG_PLACE = "wrong_place"
FAULT_KARAFUDA = "karafuda"
Slot = tuple[int, int]  # (row, column); row 0 is the one nearest the centre line


@dataclass(frozen=True)
class PositionalReading:
    card: int
    karafuda: bool


class PositionalMemory:
    kind = KIND

    def __init__(self, cards: Iterable[int], *, clock: Clock, seed: int = 0,
                 n_cards: int = 8, memorise_s: float = 30.0, rows: int = 3,
                 karafuda: int = 0):
        if n_cards < 1 or rows < 1 or memorise_s < 0:
            raise DrillError("need at least one card, one row and a memorising time >= 0")
        self.clock = clock
        self.rng = random.Random(seed)
        pool = checked_cards(cards, minimum=n_cards)
        chosen = self.rng.sample(pool, n_cards)
        self.rows = rows
        self.columns = math.ceil(n_cards / rows) + 1  # one spare place per row: gaps
        slots = [(r, c) for r in range(rows) for c in range(self.columns)]
        self.layout: dict[Slot, int] = dict(zip(self.rng.sample(slots, n_cards), chosen))
        others = [c for c in range(1, 101) if c not in chosen]
        if not 0 <= karafuda <= len(others):
            raise DrillError("too many karafuda")
        kara: list[int] = []
        while len(kara) < karafuda:
            target = chosen[len(kara) % len(chosen)]
            kara += confusables_first(self.rng, target, [c for c in others if c not in kara], 1)
        self.readings = [PositionalReading(c, False) for c in chosen] + \
            [PositionalReading(c, True) for c in kara]
        self.rng.shuffle(self.readings)
        self.memorise_s = memorise_s
        self.started_at: float | None = None
        self._ready_at: float | None = None
        self.reading: PositionalReading | None = None
        self.kimariji_at: float | None = None
        self.results: list[TrialResult] = []
        self._next = 0

    # --- memorising ------------------------------------------------------------------

    def start(self) -> None:
        """The cards are laid face up now; the memorising time starts."""
        self.started_at = self.clock()

    def ready(self) -> None:
        """The player turns the cards over before the time is up."""
        self._started()
        if self._ready_at is None:
            self._ready_at = self.clock()

    @property
    def face_down(self) -> bool:
        started = self._started()
        if self._ready_at is not None:
            return True
        return self.clock() >= started + self.memorise_s

    @property
    def seconds_left(self) -> float:
        if self.face_down:
            return 0.0
        return self._started() + self.memorise_s - self.clock()

    def visible(self) -> dict[Slot, int | None]:
        """What the player sees: cards face up while memorising, None once face down."""
        down = self.face_down
        return {slot: (None if down else card) for slot, card in self.layout.items()}

    def _started(self) -> float:
        """When the memorising time started; DrillError before `start`."""
        if self.started_at is None:
            raise DrillError("the memorising time has not started")
        return self.started_at

    # --- recall ----------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.reading is None and (self._next >= len(self.readings) or not self.layout)

    def next_reading(self) -> PositionalReading | None:
        if not self.face_down:
            raise DrillError("the cards are still face up")
        if self.reading is not None:
            raise DrillError("the current reading is not over")
        if self.is_over():
            return None
        self.reading = self.readings[self._next]
        self._next += 1
        self.kimariji_at = None
        return self.reading

    def reading_started(self, kimariji_at: float) -> None:
        if self.reading is None:
            raise DrillError("no poem is being read")
        self.kimariji_at = kimariji_at

    def touch(self, slot: Slot, at: float | None = None) -> TrialResult:
        r, kimariji_at = self._current()
        if slot not in self.layout:
            raise DrillError(f"there is no card at {slot}")
        at = self.clock() if at is None else at
        reaction = ms_between(kimariji_at, at)
        if r.karafuda:
            result = TrialResult(KIND, r.card, False, _slot_text(slot), reaction, FAULT_KARAFUDA)
        else:
            correct = self.layout[slot] == r.card
            result = TrialResult(KIND, r.card, correct, _slot_text(slot), reaction,
                                 None if correct else FAULT_WRONG_PLACE)
        return self._finish(r, result)

    def reading_over(self) -> TrialResult:
        """The yoin ended with no touch: right for a karafuda, a miss otherwise."""
        r, _ = self._current()
        return self._finish(r, TrialResult(KIND, r.card, r.karafuda, None, None, None))

    def place_of(self, card: int) -> Slot | None:
        return next((s for s, c in self.layout.items() if c == card), None)

    def _current(self) -> tuple[PositionalReading, float]:
        """The reading under way and the moment its kimariji was heard."""
        if self.reading is None or self.kimariji_at is None:
            raise DrillError("no poem is being read")
        return self.reading, self.kimariji_at

    def _finish(self, reading: PositionalReading, result: TrialResult) -> TrialResult:
        if not reading.karafuda:
            slot = self.place_of(reading.card)
            assert slot is not None, "a card read that is not a karafuda lies on the layout until taken"
            del self.layout[slot]  # turned up and removed
        self.reading = None
        self.results.append(result)
        return result


def _slot_text(slot: Slot) -> str:
    return f"{slot[0]},{slot[1]}"
