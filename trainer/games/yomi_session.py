"""The Yomi table as a session: the engine, the CPU seats and the people, for the app and `karuta simulate`.

``new_session(variant, seed, seats, options)``: `variant` is a registry entry
(``yomi/standard``, ``yomi/wild``, ``yomi37/standard``) whose options are the
ruleset facts; `options` may add the `YomiOptions` fields, ``level`` /
``levels`` / ``against`` for the CPUs (see `trainer.games.card_table`),
``turn_seconds`` for a turn timer and ``test_seat``.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping, Sequence

from audio.clock import SYSTEM, Clock
from trainer.games.card_table import cpu_levels, session_options
from trainer.games.turn_session import CPU, TurnSession
from trainer.players.yomi_cpu import YomiCpu
from trainer.rules.yomi import YomiOptions, new_game

BEST_LEVEL = "sample"
_OPTION_NAMES = {f.name for f in fields(YomiOptions)}


def yomi_options(options: Mapping[str, Any]) -> YomiOptions:
    return YomiOptions(**{k: v for k, v in options.items() if k in _OPTION_NAMES})


def new_session(variant: Any, seed: int | str, seats: Sequence[str],
                options: Mapping[str, Any] | None = None, *, clock: Clock = SYSTEM) -> TurnSession:
    opts = session_options(variant, options)
    state = new_game(len(seats), seed, yomi_options(opts))
    levels = cpu_levels(len(seats), opts, BEST_LEVEL, opts.get("test_seat"))
    cpus = {s: YomiCpu(s, levels[s], seed) for s, kind in enumerate(seats) if kind == CPU}
    return TurnSession(state, seats, cpus, clock=clock, turn_seconds=opts.get("turn_seconds"),
                       stand_in=lambda s: YomiCpu(s, BEST_LEVEL, seed))
