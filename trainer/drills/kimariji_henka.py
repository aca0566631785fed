"""Kimariji henka (決まり字の変化): name the current kimariji of the cards on the field.

As cards are read, the kimariji of the unread ones can only get shorter:
once ちぎりきな (42) and ちぎりおきし (75) are read, ちはやぶる (17) is decided by
ち. Each round more cards are read (shown or played by the UI); then the
player names the current kimariji of every field card. Field cards are never
read in this drill. Every yomifuda counts, as in a match where all 100 are read,
so ``poems.kimariji.dynamic(read)`` gives the answers.

The cards read are chosen mostly among those sharing an opening with a field
card, so that kimariji actually change. Timing: each answer from the
question (``ask``) or from the previous answer.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable

from trainer.drills.answers import is_kimariji
from trainer.drills.common import (Clock, DrillError, TrialResult, checked_cards,
                                   confusables_first, ms_between)

KIND = "kimariji_henka"


@dataclass(frozen=True)
class HenkaRound:
    read_now: tuple[int, ...]       # read in this round, in order
    read_so_far: tuple[int, ...]    # every card read since the start
    field: tuple[int, ...]


@dataclass(frozen=True)
class Expected:
    card: int
    kimariji: str      # current, historical kana
    static: str        # with all 100 unread
    changed: bool


class KimarijiHenka:
    kind = KIND

    def __init__(self, cards: Iterable[int], *, clock: Clock, seed: int = 0,
                 field_size: int = 6, reads_per_round: int = 8, rounds: int = 3,
                 already_read: Iterable[int] = ()):
        """already_read: cards read before the drill starts (a game in progress)."""
        if field_size < 1 or reads_per_round < 1 or rounds < 1:
            raise DrillError("field size, reads per round and rounds must be at least 1")
        self.clock = clock
        self.rng = random.Random(seed)
        pool = checked_cards(cards, minimum=field_size)
        self.read: list[int] = checked_cards(already_read, minimum=0)
        pool = [c for c in pool if c not in self.read]
        if len(pool) < field_size:
            raise DrillError("the chosen set has too few unread cards for the field")
        self.field: tuple[int, ...] = tuple(sorted(self.rng.sample(pool, field_size)))
        if field_size + len(self.read) + reads_per_round * rounds > 100:
            raise DrillError("not enough cards left to read for that many rounds")
        self.reads_per_round = reads_per_round
        self.rounds = rounds
        self.round_no = 0
        self.results: list[TrialResult] = []
        self._expected: dict[int, Expected] = {}
        self._asked_at: float | None = None
        self._last_at: float | None = None
        self._open: set[int] = set()

    def is_over(self) -> bool:
        return self.round_no >= self.rounds and not self._open

    def next_round(self) -> HenkaRound | None:
        if self._open:
            raise DrillError("answer every field card first")
        if self.round_no >= self.rounds:
            return None
        self.round_no += 1
        now = self._choose_reads()
        self.read.extend(now)
        self._asked_at = None
        return HenkaRound(tuple(now), tuple(self.read), self.field)

    def _choose_reads(self) -> list[int]:
        """Mostly rivals of field cards (so kimariji change), a few others for realism."""
        chosen: list[int] = []
        unread = [c for c in range(1, 101) if c not in self.field and c not in self.read]
        while len(chosen) < self.reads_per_round:
            left = [c for c in unread if c not in chosen]
            if self.rng.random() < 0.75:
                target = self.rng.choice(self.field)
                chosen += confusables_first(self.rng, target, left, 1)
            else:
                chosen.append(self.rng.choice(left))
        return chosen

    def ask(self) -> tuple[Expected, ...]:
        """Start the question (timing begins); returns the answers, for the UI to reveal later."""
        import poems
        if self.round_no == 0:
            raise DrillError("read some cards first (next_round)")
        current = poems.kimariji.dynamic(self.read)
        self._expected = {c: Expected(c, current[c], poems.kimariji.static(c),
                                      current[c] != poems.kimariji.static(c))
                          for c in self.field}
        self._open = set(self.field)
        self._asked_at = self._last_at = self.clock()
        return tuple(self._expected[c] for c in self.field)

    def answer(self, card: int, text: str) -> TrialResult:
        if self._asked_at is None or card not in self._expected:
            raise DrillError(f"card {card} is not asked about now")
        if card not in self._open:
            raise DrillError(f"card {card} was already answered this round")
        assert self._last_at is not None, "ask() sets it together with _asked_at"
        now = self.clock()
        expected = self._expected[card]
        correct = is_kimariji(text, card, len(expected.kimariji))
        result = TrialResult(KIND, card, correct, text.strip(), ms_between(self._last_at, now))
        self._last_at = now
        self._open.discard(card)
        self.results.append(result)
        return result
