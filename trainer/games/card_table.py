"""Shared plumbing of the turn-based card games' sessions and simulators (Yomi, Ume Botan).

`session_options` merges a registry variant's options with the caller's (None
values dropped, so unset command-line options keep the defaults); `cpu_levels`
says which level each CPU seat plays. With ``against``, one seat (the "test
seat", rotating with the game number in the simulators) plays ``level`` and
every other seat plays ``against``: the benchmarks measure a level's margin
over random play that way.
"""
from __future__ import annotations

from typing import Any, Mapping


def session_options(variant: Any, options: Mapping[str, Any] | None) -> dict[str, Any]:
    merged = dict(getattr(variant, "options", {}) or {})
    merged.update({k: v for k, v in (options or {}).items() if v is not None})
    return merged


def cpu_levels(players: int, options: Mapping[str, Any], best: str,
               test_seat: int | None = None) -> list[str]:
    """The level of each seat's CPU: ``levels`` (one per seat), else ``level`` (default `best`),
    with ``against`` for every seat but `test_seat`."""
    if options.get("levels"):
        levels = list(options["levels"])
        if len(levels) != players:
            raise ValueError(f"{players} levels needed, {len(levels)} given")
        return levels
    level = options.get("level") or best
    against = options.get("against")
    if against and test_seat is not None:
        return [level if s == test_seat else against for s in range(players)]
    return [level] * players
