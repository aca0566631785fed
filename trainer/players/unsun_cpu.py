"""CPU seats for Unsun karuta (Hachi-nin Meri): a random level and a heuristic one ("Medium").

Both decide from `UnsunView` (what their own seat may see) and the legal
actions only, never from the state: a face-down card of another seat is an
unknown trump to them.

The medium CPU plays for its team:

- following, it does not overtake a partner who is winning the trick: it
  plays its cheapest card (a low plain card, never a trump it need not spend);
- it wins a trick an enemy holds with the cheapest card that does it, and
  against an enemy's face-down trump only with a trump nobody can beat;
- leading, it cashes a sure winner (the top outstanding trump, or the top
  outstanding card of a plain suit), else leads a low card of a suit its
  partners have shown strength in (they won or led it), else the low end of
  its longest plain suit;
- it takes the Okié (ロバう) unless it holds two of the trump スン/ウン/ソウタ,
  when it hides the ロバイ for 5-point yaku; it discards its weakest plain card.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Callable, Sequence

from trainer.rules.unsun import (DECK, PLAYERS, SOTA, SUN, UN, Action, Card, Discard, HideRobai,
                                 Play, RANKINGS, Ranking, Robau, UnsunView, team_of, trick_winner)

LEVELS = ("random", "medium")


class RandomCpu:
    """Any legal action, uniformly, from its own seeded generator."""

    def __init__(self, seat: int, seed: int | str = 0):
        self.seat = seat
        self._rng = random.Random(f"unsun-random:{seed}:{seat}")

    def choose(self, view: UnsunView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {self.seat} has nothing to do now")
        return self._rng.choice(list(legal))


class MediumCpu:
    """The heuristic player (see the module docstring)."""

    def __init__(self, seat: int, seed: int | str = 0):
        self.seat = seat

    def choose(self, view: UnsunView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {self.seat} has nothing to do now")
        first = legal[0]
        if isinstance(first, (Robau, HideRobai)):
            return self._robai(view, legal)
        if isinstance(first, Discard):
            keep = _Table(view)
            return min(legal, key=lambda a: keep.cheapness(a.card))  # type: ignore[union-attr]
        if not isinstance(first, Play):
            return first
        cards = [a.card for a in legal if isinstance(a, Play)]
        table = _Table(view)
        card = table.lead(cards) if not view.trick else table.follow(cards)
        return Play(view.seat, card)

    @staticmethod
    def _robai(view: UnsunView, legal: Sequence[Action]) -> Action:
        strong = sum(1 for c in view.hand if c.suit == view.trump and c.rank in (SUN, UN, SOTA))
        wanted = HideRobai if strong >= 2 else Robau
        return next(a for a in legal if isinstance(a, wanted))


class _Table:
    """What one seat knows at one decision, and the judgements made from it."""

    def __init__(self, view: UnsunView):
        assert view.trump is not None
        self.view = view
        self.ranking: Ranking = RANKINGS[view.trump]
        gone = set(view.played) | set(view.hand) | {c.card for c in view.trick if c.card}
        if view.discard is not None:
            gone.add(view.discard)
        if view.okie is not None and view.okie_holder is None:
            gone.add(view.okie)  # still on the table, out of play
        self.outstanding = [c for c in DECK if c not in gone]

    def is_trump(self, card: Card) -> bool:
        return card in self.ranking.trumps

    def cheapness(self, card: Card) -> tuple[int, int]:
        """Sort key, cheapest first: plain cards before trumps, weak before strong."""
        return (self.is_trump(card), self.ranking.strength[card])

    def is_top(self, card: Card) -> bool:
        """No card still outstanding beats `card` in its own class (trumps, or its plain suit)."""
        strength = self.ranking.strength[card]
        if self.is_trump(card):
            return not any(self.is_trump(c) and self.ranking.strength[c] > strength
                           for c in self.outstanding)
        return not any(c.suit == card.suit and not self.is_trump(c)
                       and self.ranking.strength[c] > strength for c in self.outstanding)

    # -- leading ---------------------------------------------------------------------------------
    def lead(self, cards: list[Card]) -> Card:
        trumps = [c for c in cards if self.is_trump(c)]
        plain = [c for c in cards if not self.is_trump(c)]
        top_trumps = [c for c in trumps if self.is_top(c)]
        # cash the top trump (in Meiraf it declares Meri only with trump length behind it)
        if top_trumps and (self.view.meri_trick is not None or len(trumps) >= 3):
            return top_trumps[0]
        sure = [c for c in plain if self.is_top(c)]
        if sure:
            return max(sure, key=lambda c: self.ranking.strength[c])
        partner_suits = self.partner_suits()
        for suit, _ in partner_suits.most_common():
            in_suit = [c for c in plain if c.suit == suit]
            if in_suit:
                return min(in_suit, key=self.cheapness)
        if plain:
            lengths = Counter(c.suit for c in plain)
            longest = max(lengths, key=lambda s: (lengths[s], s))
            return min((c for c in plain if c.suit == longest), key=self.cheapness)
        return min(cards, key=self.cheapness)

    def partner_suits(self) -> Counter[str]:
        """Plain suits a partner has shown strength in: won a trick led in it, or led it."""
        me, shown = self.view.seat, Counter[str]()
        for trick, winner in zip(self.view.history, self.view.winners):
            lead_seat, led = trick[0]
            if self.is_trump(led):
                continue
            if winner != me and team_of(winner) == team_of(me):
                shown[led.suit] += 2
            if lead_seat != me and team_of(lead_seat) == team_of(me):
                shown[led.suit] += 1
        return shown

    # -- following -------------------------------------------------------------------------------
    def follow(self, cards: list[Card]) -> Card:
        me, trump = self.view.seat, self.view.trump or ""
        mine = team_of(me)
        known = [(c.seat, c.card) for c in self.view.trick if c.card is not None]
        hidden = [c.seat for c in self.view.trick if c.card is None]  # unknown trumps
        enemy_trump = any(team_of(s) != mine and self.is_trump(c) for s, c in known)
        if hidden:
            if all(team_of(s) == mine for s in hidden) and not enemy_trump:
                return self.dump(cards)  # a partner's face-down trump holds the trick
            # an enemy trump of unknown rank may hold it: only a trump nobody can beat wins
            sure = [c for c in cards if self.is_trump(c) and self.is_top(c)]
            return min(sure, key=self.cheapness) if sure else self.dump(cards)
        if team_of(trick_winner(known, trump)) == mine:
            return self.dump(cards)  # do not overtake a partner's winning card
        winners = [c for c in cards if trick_winner([*known, (me, c)], trump) == me]
        if not winners:
            return self.dump(cards)
        last = len(known) == PLAYERS - 1
        # later enemies may still overtake: prefer a winner nobody can beat, unless last to play
        safe = winners if last else ([c for c in winners if self.is_top(c)] or winners)
        return min(safe, key=self.cheapness)

    def dump(self, cards: list[Card]) -> Card:
        """The card that costs least to lose."""
        return min(cards, key=self.cheapness)


def make_cpu(level: str, seat: int, seed: int | str = 0) -> RandomCpu | MediumCpu:
    """A CPU of `level` (one of `LEVELS`) for `seat`."""
    makers: dict[str, Callable[[int, int | str], RandomCpu | MediumCpu]] = {
        "random": RandomCpu, "medium": MediumCpu}
    if level not in makers:
        raise ValueError(f"CPU level is one of {', '.join(LEVELS)}, not {level!r}")
    return makers[level](seat, seed)
