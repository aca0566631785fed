"""Fuda-nagashi (札流し): torifuda shown one at a time, the player names the kimariji.

As in the club exercise of flipping through a stack of torifuda, the player
sees the shimo-no-ku card and answers its kimariji, typed (kana or romaji,
see ``trainer.drills.answers``) or picked from a list of cards. A card may be
shown upside down, as half the cards on a real floor face the other way.

Timing: each card from the moment it is shown (``show_next``) to the answer;
the run from the first card shown to the last answer.

Rank (this app's own scale, not an official one). The effective time per card is

    mean answer time + WRONG_PENALTY_MS x (fraction answered wrong)

averaged over the recent runs (this one and up to four before it); then

    S  <= 1.2 s   A  <= 1.8 s   B  <= 2.5 s   C  <= 3.5 s   D  <= 5.0 s   E  slower

A club player flipping physical cards says a kimariji in well under a second;
typing one costs about half a second more, which these thresholds allow for.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Sequence

from trainer.drills.answers import is_kimariji
from trainer.drills.common import Clock, DrillError, TrialResult, checked_cards, ms_between

KIND = "fuda_nagashi"
WRONG_PENALTY_MS = 3000.0
RANKS: tuple[tuple[str, float], ...] = (
    ("S", 1200.0), ("A", 1800.0), ("B", 2500.0), ("C", 3500.0), ("D", 5000.0))
RECENT_RUNS = 5


def effective_ms(mean_ms: float, n: int, n_correct: int) -> float:
    return mean_ms + WRONG_PENALTY_MS * (n - n_correct) / n


def rank_for(effective: float) -> str:
    for name, limit in RANKS:
        if effective <= limit:
            return name
    return "E"


def rank_from_recent(runs: Sequence) -> str | None:
    """Rank from the recent runs, newest first: objects with mean_ms, n, n_correct
    (``trainer.stats.aggregates.RunSummary`` or ``FudaNagashiSummary``)."""
    usable = [r for r in runs[:RECENT_RUNS] if r.n and r.mean_ms is not None]
    if not usable:
        return None
    effective = [effective_ms(r.mean_ms, r.n, r.n_correct) for r in usable]
    return rank_for(sum(effective) / len(effective))


@dataclass(frozen=True)
class Prompt:
    card: int
    upside_down: bool
    shown_at: float


@dataclass(frozen=True)
class FudaNagashiSummary:
    n: int
    n_correct: int
    total_ms: float            # first card shown -> last answer
    mean_ms: float | None      # mean answer time per card
    per_card_ms: tuple[tuple[int, float], ...]
    rank: str | None           # from this run and the recent ones given


class FudaNagashi:
    kind = KIND

    def __init__(self, cards: Iterable[int], *, clock: Clock, seed: int = 0,
                 random_orientation: bool = False):
        self.clock = clock
        self.rng = random.Random(seed)
        self.order = checked_cards(cards)
        self.rng.shuffle(self.order)
        self.random_orientation = random_orientation
        self.current: Prompt | None = None
        self.results: list[TrialResult] = []
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self._next = 0

    def is_over(self) -> bool:
        return self._next >= len(self.order) and self.current is None

    @property
    def remaining(self) -> int:
        return len(self.order) - self._next + (self.current is not None)

    def show_next(self) -> Prompt | None:
        """The next torifuda, stamped as shown now; None when the stack is done."""
        if self.current is not None:
            raise DrillError("answer the card on show first")
        if self._next >= len(self.order):
            return None
        now = self.clock()
        if self.started_at is None:
            self.started_at = now
        card = self.order[self._next]
        self._next += 1
        upside = self.random_orientation and self.rng.random() < 0.5
        self.current = Prompt(card, upside, now)
        return self.current

    def answer(self, text: str) -> TrialResult:
        """A typed kimariji (kana or romaji, as printed or as heard)."""
        prompt = self._take_prompt()
        return self._finish(prompt, text.strip(), is_kimariji(text, prompt.card))

    def pick(self, card: int) -> TrialResult:
        """A card picked from a list, instead of typing."""
        prompt = self._take_prompt()
        return self._finish(prompt, str(card), card == prompt.card)

    def _take_prompt(self) -> Prompt:
        if self.current is None:
            raise DrillError("no card is on show")
        prompt, self.current = self.current, None
        return prompt

    def _finish(self, prompt: Prompt, answer: str, correct: bool) -> TrialResult:
        now = self.clock()
        self.ended_at = now
        result = TrialResult(KIND, prompt.card, correct, answer,
                             ms_between(prompt.shown_at, now))
        self.results.append(result)
        return result

    def summary(self, recent: Sequence = ()) -> FudaNagashiSummary:
        """This run's figures; `recent`: earlier runs, newest first (for the rank)."""
        n = len(self.results)
        n_correct = sum(r.correct for r in self.results)
        per_card = tuple((r.card, _shown_ms(r)) for r in self.results)
        mean = sum(ms for _, ms in per_card) / n if n else None
        total = 0.0
        if n:
            assert self.started_at is not None and self.ended_at is not None, "a card was shown and answered"
            total = ms_between(self.started_at, self.ended_at)
        partial = FudaNagashiSummary(n, n_correct, total, mean, per_card, None)
        rank = rank_from_recent([partial, *recent]) if n else None
        return FudaNagashiSummary(n, n_correct, total, mean, partial.per_card_ms, rank)


def _shown_ms(result: TrialResult) -> float:
    """How long the card was on show before this answer."""
    assert result.reaction_ms is not None, "every fuda nagashi answer is timed from its card's showing (_finish)"
    return result.reaction_ms
