"""CPU seats for Ume Botan (梅牡丹ルール), deciding from the seat's own `UmeBotanView` only.

Levels:
- ``random``: any legal action, uniformly (the benchmark's baseline);
- ``greedy``: scores each action by the card points it takes now, plus a bonus
  for cards of a yaku still open to it (no card of the yaku in another pile)
  and for cards an opponent needs to finish a yaku; a card laid on the field
  costs its value when the rest of its month is out of the seat's reach. The
  Lightning (the wild card) is kept for a Bright or an Animal unless it is the
  last choice.
"""
from __future__ import annotations

import random
from typing import Sequence

from trainer.rules.decks import LIGHTNING, Hana, month, points
from trainer.rules.umebotan import Action, Play, Take, UmeBotanView, matches
from trainer.rules.umebotan_score import DRY_BRIGHTS, SETS, VIEWING

LEVELS = ("random", "greedy")
YAKU_CARDS = [cards for _, cards in SETS + VIEWING] + [DRY_BRIGHTS]


class UmeBotanCpu:
    """One CPU seat; *seed* makes the random level and ties reproducible."""

    def __init__(self, seat: int, level: str = "greedy", seed: int | str = 0):
        if level not in LEVELS:
            raise ValueError(f"Ume Botan CPU level is one of {', '.join(LEVELS)}, not {level!r}")
        self.seat, self.level = seat, level
        self._rng = random.Random(f"umebotan-cpu:{seed}:{seat}")

    def choose(self, view: UmeBotanView, legal: Sequence[Action]) -> Action:
        if self.level == "random":
            return legal[self._rng.randrange(len(legal))]
        scored = [(self._value(view, a), -i) for i, a in enumerate(legal)]
        return legal[-max(scored)[1]]

    # -- the greedy level's estimate ---------------------------------------------------------
    def _card_value(self, view: UmeBotanView, card: Hana) -> float:
        mine = set(view.piles[self.seat])
        value = float(points(card))
        for cards in YAKU_CARDS:
            if card not in cards:
                continue
            others = [set(p) & cards for s, p in enumerate(view.piles) if s != self.seat]
            if not any(others):
                value += 4 + 4 * len(mine & cards)       # open to me, more so when begun
            elif any(len(o) == len(cards) - 1 for o in others):
                value += 8                               # deny an opponent's last card
        return value

    def _value(self, view: UmeBotanView, action: Action) -> float:
        if isinstance(action, Take):
            assert view.drawn is not None
            return self._card_value(view, view.drawn) + self._card_value(view, action.target)
        assert isinstance(action, Play)
        card = action.card
        found = matches(card, view.field)
        if card == LIGHTNING:
            if not found:
                return 1.0
            gain = 1 + self._card_value(view, action.target or found[0])
            keep = 12.0 if len(view.hand) > 1 and points(action.target or found[0]) < 10 else 0.0
            return gain - keep
        if not found:
            return -self._lay_cost(view, card)
        taken = found if len(found) != 2 else [action.target]
        return self._card_value(view, card) + sum(self._card_value(view, c) for c in taken if c)

    def _lay_cost(self, view: UmeBotanView, card: Hana) -> float:
        """Laying a card gives it to whoever holds or draws its month next."""
        m = month(card)
        seen = set(view.field) | {c for p in view.piles for c in p}
        mates_in_hand = [c for c in view.hand if month(c) == m and c != card]
        unseen = [m * 10 + k for k in range(4) if m * 10 + k not in seen
                  and m * 10 + k != card and m * 10 + k not in view.hand]
        cost = self._card_value(view, card)
        if mates_in_hand and not unseen:
            cost *= 0.1           # only I can take it back
        elif mates_in_hand:
            cost *= 0.5
        elif not unseen:
            cost *= 0.2           # nobody can take it: it ends with the Lightning's user
        return cost
