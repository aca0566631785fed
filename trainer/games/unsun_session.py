"""The Unsun karuta table as a session: the engine, CPU seats and people, on `TurnSession`.

The Qt table and `karuta simulate unsun` both build their table here, so the
same seed deals the same cards in the app and in the simulator.

Options (all optional): ``cpu_level`` for every CPU seat (default "medium",
the platform's "CPU: Medium"), ``against`` for Team B's CPUs (default: the
same level), ``turn_seconds`` (the per-turn timer; off unless given, the
platform's is `TURN_SECONDS`), ``clock`` (an `audio.clock.Clock`), and the
rules settings of `trainer.rules.unsun.UnsunRules` (``deals``, ``first_lead``,
``unheld_robai``, ``yaku_order``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from audio.clock import SYSTEM
from trainer.games.turn_session import CPU, TurnSession
from trainer.players.unsun_cpu import make_cpu
from trainer.rules.unsun import PLAYERS, UnsunRules, new_game

TURN_SECONDS = 300.0
"""The platform's turn timer: "5m/turn"."""
DEFAULT_LEVEL = "medium"


def new_session(variant: Any, seed: int | str, seats: Sequence[str],
                options: Mapping[str, Any] | None = None) -> TurnSession:
    """A table for `seats` (eight of "human"/"cpu"); the variant's options, then `options`, apply."""
    merged = {**dict(getattr(variant, "options", {}) or {}), **dict(options or {})}
    if len(seats) != PLAYERS:
        raise ValueError(f"Unsun karuta is played by {PLAYERS} players, not {len(seats)}")
    state = new_game(seed, UnsunRules.from_options(merged))
    level_a = merged.get("cpu_level") or DEFAULT_LEVEL
    level_b = merged.get("against") or level_a
    cpus = {s: make_cpu(level_a if s % 2 == 0 else level_b, s, seed)
            for s, kind in enumerate(seats) if kind == CPU}
    return TurnSession(state, seats, cpus, clock=merged.get("clock") or SYSTEM,
                       turn_seconds=merged.get("turn_seconds"),
                       stand_in=lambda seat: make_cpu(DEFAULT_LEVEL, seat, seed))
