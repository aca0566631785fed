"""CPU seats for Mubeyama karuta.

Flipping is automatic: when the reader waits on a CPU seat, it flips the card
at once. The only real choice in the game is which face-up torifuda to give
away when a yaku orders a pass (Izumoji). The CPU keeps the cards that will
help it when read, and gives away the ones that would hurt it:

- a sadness (batsu) card, when read, makes every other player give its owner
  a torifuda: the worst card to hold, so it goes first;
- a mountain card (and #22 above all) passes torifuda to everyone: the best
  card to keep; set 1 cards are worth keeping too.

The CPU decides from its own `view(seat)` only, never from the state.
"""
from __future__ import annotations

import random
from typing import Sequence

from poems.yaku import SEED, YakuSets
from trainer.rules.mubeyama import Action, MubeyamaView, Pass


class MubeyamaCpu:
    """One CPU seat. *seed* breaks ties between equally good cards, reproducibly."""

    def __init__(self, seat: int, yaku: YakuSets = SEED, seed: int | str = 0):
        self.seat = seat
        self.yaku = yaku
        self._rng = random.Random(f"mubeyama-cpu:{seed}:{seat}")
        self._values: dict[tuple[int, int], int] = {}

    def keep_value(self, no: int, players: int) -> int:
        """Net torifuda this card sends away from its holder when it is read."""
        key = (no, players)
        if key not in self._values:
            others = players - 1
            self._values[key] = (self.yaku.pass_right(no) + self.yaku.pass_each(no) * others
                                 - self.yaku.receive_each(no) * others)
        return self._values[key]

    def choose(self, view: MubeyamaView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {self.seat} has nothing to do now")
        passes = [a for a in legal if isinstance(a, Pass)]
        if not passes:
            return legal[0]  # a flip: the only thing to do
        worst = min(self.keep_value(a.no, view.players) for a in passes)
        candidates = [a for a in passes if self.keep_value(a.no, view.players) == worst]
        return self._rng.choice(candidates)


def advance(state, cpus: dict[int, MubeyamaCpu], check: bool = False) -> int | None:
    """Read and let CPU seats act until a human seat is waited on or the game ends.

    Returns the human seat the game now waits for (hot-seat: the UI waits for
    its click), or None when the game is over. Readings are taken from the
    state's own seeded order. *check* runs the invariants after every action.
    """
    from trainer.rules.mubeyama import READER, AwaitFlip, Flip

    while not state.is_over():
        seat = state.to_act()
        if seat == READER:
            state.apply(state.next_read())
        elif seat in cpus and isinstance(state.pending, AwaitFlip):
            state.apply(Flip(seat, state.pending.no))  # automatic; no view needed
        elif seat in cpus:
            state.apply(cpus[seat].choose(state.view(seat), state.legal_actions(seat)))
        else:
            return seat
        if check:
            state.check_invariants()
    return None
