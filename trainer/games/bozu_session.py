"""The bōzu-mekuri table as a session: the engine, the CPU seats and the people, for the app and
`karuta simulate`.

``new_session(variant, seed, seats, options)``: `options` may add the
`BozuOptions` fields (``semimaru``, ``emperor``, ``stacks`` ...) and the options
of `trainer.games.card_table` (``level`` / ``levels``, ``turn_seconds``, ``clock``).
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping, Sequence

from audio.clock import Clock
from trainer.games.card_table import new_turn_session
from trainer.games.turn_session import TurnSession
from trainer.players.bozu_cpu import BozuCpu
from trainer.rules.bozu import BozuOptions, new_game

BEST_LEVEL = "first"
_OPTION_NAMES = {f.name for f in fields(BozuOptions)}


def bozu_options(options: Mapping[str, Any]) -> BozuOptions:
    return BozuOptions(**{k: v for k, v in options.items() if k in _OPTION_NAMES})


def new_session(variant: Any, seed: int | str, seats: Sequence[str],
                options: Mapping[str, Any] | None = None, *, clock: Clock | None = None) -> TurnSession:
    return new_turn_session(
        variant, seed, seats, {**dict(options or {}), **({"clock": clock} if clock else {})}, best=BEST_LEVEL,
        new_state=lambda players, opts: new_game(players, seed, bozu_options(opts)),
        make_cpu=lambda seat, level: BozuCpu(seat, level, seed))
