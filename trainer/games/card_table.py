"""The one session factory of the turn-based card games (Yomi, Ume Botan, Unsun) and its CPU levels.

`new_turn_session` makes the `TurnSession` the app and `karuta simulate` both
play: the game's state from the seed and the merged options, a CPU at every
"cpu" seat at its level, a stand-in at the best level for a person whose turn
timer runs out, the clock and the pace.

Options every turn game reads (unset or None: the default):

- ``level``: every CPU's level (default: the game's best); ``cpu_level`` is
  the old spelling of it;
- ``levels``: one level per seat;
- ``against`` with ``test_seat``: the tested side plays ``level``, every other
  side plays ``against`` (a side is a seat, or in Unsun the seat's team); the
  simulators rotate the test seat with the game number, so every side takes
  its turn as the tested one and the benchmarks measure a level's margin;
- ``turn_seconds`` (a person's turn timer), ``clock``, ``cpu_delay`` (seconds
  between the CPUs' moves; 0, the default, in the simulator).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from audio.clock import SYSTEM
from trainer.games.protocol import GameState
from trainer.games.turn_session import CPU, CpuPlayer, TurnSession


def session_options(variant: Any, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The variant's options, then the caller's (None values dropped, so unset command-line
    options keep the defaults); ``cpu_level`` read as ``level``."""
    merged = dict(getattr(variant, "options", {}) or {})
    merged.update({k: v for k, v in (options or {}).items() if v is not None})
    if "cpu_level" in merged:
        merged.setdefault("level", merged.pop("cpu_level"))
    return merged


def cpu_levels(players: int, options: Mapping[str, Any], best: str, test_seat: int | None = None,
               side_of: Callable[[int], int] | None = None) -> list[str]:
    """The level of each seat's CPU: ``levels`` (one per seat), else ``level`` (default `best`),
    with ``against`` for every side but `test_seat`'s (`side_of` groups seats into teams)."""
    if options.get("levels"):
        levels = list(options["levels"])
        if len(levels) != players:
            raise ValueError(f"{players} levels needed, {len(levels)} given")
        return levels
    level = options.get("level") or best
    against = options.get("against")
    if against and test_seat is not None:
        side = side_of or (lambda s: s)
        return [level if side(s) == side(test_seat) else against for s in range(players)]
    return [level] * players


def new_turn_session(variant: Any, seed: int | str, seats: Sequence[str],
                     options: Mapping[str, Any] | None, *,
                     new_state: Callable[[int, Mapping[str, Any]], GameState],
                     make_cpu: Callable[[int, str], CpuPlayer], best: str,
                     side_of: Callable[[int], int] | None = None) -> TurnSession:
    """A turn game's table (see the module docstring): `new_state(players, options)` makes the
    engine, `make_cpu(seat, level)` a CPU player."""
    opts = session_options(variant, options)
    state = new_state(len(seats), opts)
    levels = cpu_levels(len(seats), opts, best, opts.get("test_seat"), side_of)
    cpus = {s: make_cpu(s, levels[s]) for s, kind in enumerate(seats) if kind == CPU}
    return TurnSession(state, seats, cpus, clock=opts.get("clock") or SYSTEM,
                       turn_seconds=opts.get("turn_seconds"), stand_in=lambda s: make_cpu(s, best),
                       cpu_delay=float(opts.get("cpu_delay") or 0.0))
