"""CPU seats for Yomi (読み), deciding from the seat's own `YomiView` only.

Levels:
- ``random``: any legal action, uniformly (the baseline of the benchmark);
- ``chain``: leads the card that starts its longest run of consecutive numbers
  in hand (it then plays the whole run at once: "That player gets another
  turn"), and keeps the wild card for the end, when it can follow anything, unless
  playing it now starts a run of two or more or empties the hand;
- ``sample``: for its real choices (a lead, the wild card or not, the card after
  the wild card) deals the cards it cannot see at random to the other hands
  (their sizes are public) many times and plays each deal out with 'chain'
  everywhere; it takes the choice that wins most often. Following is forced
  otherwise, so this is where a Yomi player's skill lies.
"""
from __future__ import annotations

import random
from typing import Sequence

from trainer.rules.decks import MekuriCard
from trainer.rules.yomi import Action, Discard, Lead, Pass, YomiView

LEVELS = ("random", "chain", "sample")
ROLLOUTS = 24


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
        if self.level == "sample":
            return self._sample(view, legal)
        return self._chain(view, legal)

    def _chain(self, view: YomiView, legal: Sequence[Action]) -> Action:
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

    # -- the sampling level ----------------------------------------------------------------------
    def _sample(self, view: YomiView, legal: Sequence[Action]) -> Action:
        choices = _distinct(legal)
        if len(choices) == 1:
            return choices[0]
        wins = dict.fromkeys(choices, 0)
        chain = {s: YomiCpu(s, "chain") for s in range(view.players)}
        for _ in range(ROLLOUTS):
            deal = _determinize(view, self._rng)
            for action in choices:
                state = deal.clone()
                state.apply(action)
                while not state.is_over():
                    seat = state.actors()[0]
                    moves = state.legal_actions(seat)
                    state.apply(moves[0] if len(moves) == 1 or not isinstance(moves[0], Lead)
                                and Discard(view.wild_card) not in moves  # type: ignore[arg-type]
                                else chain[seat]._chain(state.view(seat), moves))
                out = state.outcome()
                wins[action] += out is not None and view.seat in out.winners
        return max(choices, key=lambda a: wins[a])


def _distinct(legal: Sequence[Action]) -> list[Action]:
    """One action per number: two cards of one number play alike (the suit scores nothing)."""
    seen: set[object] = set()
    out: list[Action] = []
    for a in legal:
        key = (type(a).__name__, a.card.rank if isinstance(a, (Lead, Discard)) else None,
               a.card.suit if isinstance(a, (Lead, Discard)) and a.card.rank == 0 else None)
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def _determinize(view: YomiView, rng: random.Random):
    """A full one-round state consistent with `view`: the unseen cards dealt at random."""
    from trainer.rules.yomi import YomiOptions, new_game
    wild = view.wild_card
    options = YomiOptions(ruleset=view.ruleset, wild=wild is not None,
                          wild_card="shirofuda" if wild is not None and wild.suit == "shiro" else "onifuda")
    state = new_game(view.players, 0, options)
    unseen = [c for c in state.deck if c not in view.hand and c not in view.discard]
    rng.shuffle(unseen)
    for s in range(view.players):
        if s == view.seat:
            state.hands[s] = list(view.hand)
        else:
            state.hands[s], unseen = unseen[:view.hand_counts[s]], unseen[view.hand_counts[s]:]
    state.undealt = unseen[0] if unseen else None
    state.discard = list(view.discard)
    state.turn, state.phase, state.dealer = view.seat, view.phase, view.dealer
    state.round_no, state.passes = 1, view.passes
    state.teyaku = [view.teyaku if s == view.seat else () for s in range(view.players)]
    return state
