"""Kami -> torifuda (上の句から取り札): hear (or read) the kami-no-ku, touch its torifuda.

Each round reads one card of the set; the player sees N torifuda (the right
one and N-1 others, cards sharing its opening first, since telling those
apart is the skill) and touches one. The first touch decides the round.

Timing is from the kimariji mark: the UI reports when the mark leaves the
speaker (or, with the text shown instead, when the kimariji is on screen)
with ``reading_started(kimariji_at)`` -- it may do so before that moment,
since the audio is scheduled ahead. A touch before the mark gives a negative
reaction: an anticipation, which the player should see.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable

from trainer.drills.common import (Clock, DrillError, TrialResult, checked_cards,
                                   confusables_first, ms_between)

KIND = "kami_to_torifuda"


@dataclass(frozen=True)
class Round:
    card: int                   # the poem read
    choices: tuple[int, ...]    # torifuda on show, in display order


class KamiToTorifuda:
    kind = KIND

    def __init__(self, cards: Iterable[int], *, clock: Clock, seed: int = 0,
                 n_choices: int = 6, rounds: int | None = None):
        if not 2 <= n_choices <= 100:
            raise DrillError("show between 2 and 100 torifuda")
        self.clock = clock
        self.rng = random.Random(seed)
        self.cards = checked_cards(cards)
        self.n_choices = n_choices
        self.order = list(self.cards)
        self.rng.shuffle(self.order)
        if rounds is not None:
            self.order = [self.order[i % len(self.order)] for i in range(rounds)]
        self.round: Round | None = None
        self.kimariji_at: float | None = None
        self.results: list[TrialResult] = []
        self._next = 0

    def is_over(self) -> bool:
        return self._next >= len(self.order) and self.round is None

    def next_round(self) -> Round | None:
        if self.round is not None:
            raise DrillError("the round on show is not finished")
        if self._next >= len(self.order):
            return None
        card = self.order[self._next]
        self._next += 1
        others = confusables_first(self.rng, card, range(1, 101), self.n_choices - 1)
        choices = [card, *others]
        self.rng.shuffle(choices)
        self.round = Round(card, tuple(choices))
        self.kimariji_at = None
        return self.round

    def reading_started(self, kimariji_at: float) -> None:
        """When the kimariji mark is (or will be) heard, in the clock's time base."""
        if self.round is None:
            raise DrillError("no round is on show")
        self.kimariji_at = kimariji_at

    def touch(self, card: int, at: float | None = None) -> TrialResult:
        rnd, kimariji_at = self._current()
        if card not in rnd.choices:
            raise DrillError(f"card {card} is not among the torifuda on show")
        at = self.clock() if at is None else at
        correct = card == rnd.card
        return self._finish(TrialResult(KIND, rnd.card, correct, str(card),
                                        ms_between(kimariji_at, at),
                                        None if correct else "otetsuki"))

    def time_out(self) -> TrialResult:
        """No touch before the reading ended: a miss, no fault."""
        rnd, _ = self._current()
        return self._finish(TrialResult(KIND, rnd.card, False, None, None, None))

    def _current(self) -> tuple[Round, float]:
        """The round on show and the moment its kimariji was heard."""
        if self.round is None:
            raise DrillError("no round is on show")
        if self.kimariji_at is None:
            raise DrillError("no poem is being read yet")
        return self.round, self.kimariji_at

    def _finish(self, result: TrialResult) -> TrialResult:
        self.round = None
        self.results.append(result)
        return result
