"""The Ume Botan table as a session: the engine, the CPU seats and the people, for the app and `karuta simulate`.

``new_session(variant, seed, seats, options)``: `options` may add the
`UmeBotanOptions` fields (``rounds``, ``reseat`` ...) and the options of
`trainer.games.card_table` (``level`` / ``levels`` / ``against`` and
``test_seat``, ``turn_seconds``, ``clock``).
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping, Sequence

from audio.clock import Clock
from trainer.games.card_table import new_turn_session
from trainer.games.turn_session import TurnSession
from trainer.players.umebotan_cpu import UmeBotanCpu
from trainer.rules.umebotan import UmeBotanOptions, new_game

BEST_LEVEL = "greedy"
_OPTION_NAMES = {f.name for f in fields(UmeBotanOptions)}


def umebotan_options(options: Mapping[str, Any]) -> UmeBotanOptions:
    return UmeBotanOptions(**{k: v for k, v in options.items() if k in _OPTION_NAMES})


def new_session(variant: Any, seed: int | str, seats: Sequence[str],
                options: Mapping[str, Any] | None = None, *, clock: Clock | None = None) -> TurnSession:
    return new_turn_session(
        variant, seed, seats, {**dict(options or {}), **({"clock": clock} if clock else {})}, best=BEST_LEVEL,
        new_state=lambda players, opts: new_game(players, seed, umebotan_options(opts)),
        make_cpu=lambda seat, level: UmeBotanCpu(seat, level, seed))
