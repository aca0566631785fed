"""The Yomi table as a session: the engine, the CPU seats and the people, for the app and `karuta simulate`.

``new_session(variant, seed, seats, options)``: `variant` is a registry entry
(``yomi/standard``, ``yomi/wild``, ``yomi37/standard``) whose options are the
ruleset facts; `options` may add the `YomiOptions` fields and the options of
`trainer.games.card_table` (``level`` / ``levels`` / ``against`` and
``test_seat``, ``turn_seconds``, ``clock``).
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping, Sequence

from audio.clock import Clock
from trainer.games.card_table import new_turn_session
from trainer.games.turn_session import TurnSession
from trainer.players.yomi_cpu import YomiCpu
from trainer.rules.yomi import YomiOptions, new_game

BEST_LEVEL = "sample"
_OPTION_NAMES = {f.name for f in fields(YomiOptions)}


def yomi_options(options: Mapping[str, Any]) -> YomiOptions:
    return YomiOptions(**{k: v for k, v in options.items() if k in _OPTION_NAMES})


def new_session(variant: Any, seed: int | str, seats: Sequence[str],
                options: Mapping[str, Any] | None = None, *, clock: Clock | None = None) -> TurnSession:
    return new_turn_session(
        variant, seed, seats, {**dict(options or {}), **({"clock": clock} if clock else {})}, best=BEST_LEVEL,
        new_state=lambda players, opts: new_game(players, seed, yomi_options(opts)),
        make_cpu=lambda seat, level: YomiCpu(seat, level, seed))
