"""CPU seats for Yomi (読み), deciding from the seat's own `YomiView` only.

Levels:
- ``random``: any legal action, uniformly (the baseline of the benchmark);
- ``chain``: leads the card that starts its longest run of consecutive numbers
  in hand (it then plays the whole run at once: "That player gets another
  turn"), and keeps the wild card for the end, when it can follow anything, unless
  playing it now starts a run of two or more or empties the hand.
"""
from __future__ import annotations

import random
from typing import Sequence

from trainer.rules.decks import MekuriCard
from trainer.rules.yomi import Action, Discard, Lead, Pass, YomiView

LEVELS = ("random", "chain")


def run_length(start: int, ranks: set[int], loop: int) -> int:
    """How many consecutive numbers from `start` (looping after `loop`) are in `ranks`."""
    n, r = 0, start
    while r in ranks and n < loop:
        n += 1
        r = r % loop + 1
    return n


class YomiCpu:
    """One CPU seat; *seed* makes the random level reproducible."""

    def __init__(self, seat: int, level: str = "chain", seed: int | str = 0):
        if level not in LEVELS:
            raise ValueError(f"Yomi CPU level is one of {', '.join(LEVELS)}, not {level!r}")
        self.seat, self.level = seat, level
        self._rng = random.Random(f"yomi-cpu:{seed}:{seat}")

    def choose(self, view: YomiView, legal: Sequence[Action]) -> Action:
        if self.level == "random" or len(legal) == 1:
            return legal[self._rng.randrange(len(legal))] if self.level == "random" else legal[0]
        numbered = [c for c in view.hand if c != view.wild_card]
        ranks = {c.rank for c in numbered}

        def best_lead(cards: Sequence[MekuriCard]) -> MekuriCard:
            return max(cards, key=lambda c: (run_length(c.rank, ranks, view.loop), -c.rank))

        leads = [a for a in legal if isinstance(a, Lead)]
        if leads:
            plain = [a.card for a in leads if a.card != view.wild_card] or [a.card for a in leads]
            return Lead(best_lead(plain))
        discards = [a for a in legal if isinstance(a, Discard)]
        follows = [a for a in discards if a.card != view.wild_card]
        if follows:
            if view.needed == 0:      # after the wild card: anything, as a lead
                return Discard(best_lead([a.card for a in follows]))
            return follows[0]
        if discards:                  # only the wild card can follow
            runs = max((run_length(r, ranks, view.loop) for r in ranks), default=0)
            if not numbered or runs >= 2:
                return discards[0]
        return Pass() if Pass() in legal else legal[0]
