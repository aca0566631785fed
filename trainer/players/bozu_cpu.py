"""CPU seats for bōzu-mekuri (坊主めくり), deciding from the seat's own `BozuView` only.

Bōzu-mekuri has no choice but one: with several face-down stacks (a regional
rule) a player picks the stack to draw from. The stacks' order is hidden
from everyone, so no stack is better than another; the levels only differ in
how they pick:

- ``first``: the first stack that has cards (the one stack of the common rules);
- ``random``: any stack that has cards, uniformly.
"""
from __future__ import annotations

import random
from typing import Sequence

from trainer.rules.bozu import BozuView, Draw

LEVELS = ("random", "first")


class BozuCpu:
    """One CPU seat; *seed* makes the random level reproducible."""

    def __init__(self, seat: int, level: str = "first", seed: int | str = 0):
        if level not in LEVELS:
            raise ValueError(f"bozu-mekuri CPU level is one of {', '.join(LEVELS)}, not {level!r}")
        self.seat, self.level = seat, level
        self._rng = random.Random(f"bozu-cpu:{seed}:{seat}")

    def choose(self, view: BozuView, legal: Sequence[Draw]) -> Draw:
        if self.level == "random":
            return legal[self._rng.randrange(len(legal))]
        return legal[0]
