"""The Ume Botan table as a session: the engine, the CPU seats and the people, for the app and `karuta simulate`.

``new_session(variant, seed, seats, options)``: `options` may add the
`UmeBotanOptions` fields (``rounds``, ``reseat`` ...), ``level`` / ``levels`` /
``against`` for the CPUs (see `trainer.games.card_table`), ``turn_seconds``
and ``test_seat``.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping, Sequence

from audio.clock import SYSTEM, Clock
from trainer.games.card_table import cpu_levels, session_options
from trainer.games.turn_session import CPU, TurnSession
from trainer.players.umebotan_cpu import UmeBotanCpu
from trainer.rules.umebotan import UmeBotanOptions, new_game

BEST_LEVEL = "greedy"
_OPTION_NAMES = {f.name for f in fields(UmeBotanOptions)}


def umebotan_options(options: Mapping[str, Any]) -> UmeBotanOptions:
    return UmeBotanOptions(**{k: v for k, v in options.items() if k in _OPTION_NAMES})


def new_session(variant: Any, seed: int | str, seats: Sequence[str],
                options: Mapping[str, Any] | None = None, *, clock: Clock = SYSTEM) -> TurnSession:
    opts = session_options(variant, options)
    state = new_game(len(seats), seed, umebotan_options(opts))
    levels = cpu_levels(len(seats), opts, BEST_LEVEL, opts.get("test_seat"))
    cpus = {s: UmeBotanCpu(s, levels[s], seed) for s, kind in enumerate(seats) if kind == CPU}
    return TurnSession(state, seats, cpus, clock=clock, turn_seconds=opts.get("turn_seconds"),
                       stand_in=lambda s: UmeBotanCpu(s, BEST_LEVEL, seed))
