"""One all-CPU game of any registered variant, played to its end, and its log in words.

`karuta simulate GAME --log [--lang ja|en] [--log-seat N|all]` prints the log
of the run's first game (the game the summary's game 0 is, same seed), worded
by the game's Qt-free text module (the registry's ``texts``, through
`trainer.text.events.log_lines`). By default the log is seat 0's: what the
app's log pane shows the person sitting there, with other seats' face-down
cards kept face-down; ``--log-seat all`` prints the full, omniscient log.

How the game is played, in order of preference:

1. the simulator module (the registry's ``simulate``) defines
   ``play_one(variant, seed, players, options, check) -> session``;
2. the session follows `trainer.games.protocol.Session` and needs no reader:
   `protocol.play_out` on a `FakeClock`;
3. the racing games are fed by their simulator's reader: a kyōgi match by
   the programme's reading (`kyogi_sim.play_session`), a Mubeyama table by the
   simulator's own loop.
"""
from __future__ import annotations

import importlib
from typing import Any, Mapping, Sequence

from audio.clock import FakeClock
from trainer.games import registry
from trainer.games.protocol import GameEvent, Session, play_out
from trainer.text.events import log_lines

CPU = "cpu"


def game_seed(variant: registry.Variant, seed: int, index: int = 0) -> Any:
    """The seed game `index` of a run with `seed` is dealt from (the simulator's own rule)."""
    own = getattr(_sim_module(variant), "game_seed", None)
    return own(seed, index) if own is not None else f"{seed}:{index}"


def play_one(variant: registry.Variant, seed: int, players: int,
             options: Mapping[str, Any] | None = None, check: bool = True) -> Any:
    """Game 0 of a run of `variant` with `seed`, every seat a CPU, played to its end."""
    # as the simulators do: an option not given is the variant's default, and with --against
    # game i's tested seat is i % players (`trainer.sim.card_sim`): seat 0 in game 0
    options = {k: v for k, v in dict(options or {}).items() if v is not None}
    if options.get("against"):
        options.setdefault("test_seat", 0)
    module = _sim_module(variant)
    own = getattr(module, "play_one", None)
    if own is not None:
        return own(variant, seed, players, options, check)
    clock = FakeClock(0.0)
    seats = (CPU,) * players
    session = registry.resolve(variant.session)(variant, game_seed(variant, seed), seats,
                                                {**options, "clock": clock})
    return _play_to_end(session, clock, check)


def _play_to_end(session: Any, clock: FakeClock, check: bool) -> Any:
    """Play `session` to its end (see the module docstring)."""
    from trainer.games.kyogi_session import KyogiSession
    from trainer.games.mubeyama_session import MubeyamaSession
    if isinstance(session, KyogiSession):        # a race: fed by the programme's reading
        from trainer.sim.kyogi_sim import play_session
        return play_session(session, clock, check=check)
    if isinstance(session, MubeyamaSession):     # fed by the simulated reader, on its own table
        return _play_mubeyama(session, check)
    if isinstance(session, Session):
        if hasattr(session, "check_each_move"):  # a turn table: invariants after every move
            session.check_each_move = check
        return play_out(session, clock, check=check)
    raise TypeError(f"no way to play a {type(session).__name__} to its end")


def _play_mubeyama(session: Any, check: bool) -> Any:
    """The simulator's own table for this deal (`mubeyama_sim.session_for`, on a FakeClock it
    jumps), played by the simulator's loop: the game `simulate mubeyama` counts."""
    from trainer.games import mubeyama_session
    from trainer.rules.mubeyama import VARIANTS
    from trainer.sim import mubeyama_sim
    table = mubeyama_sim.session_for(VARIANTS[session.config.variant], session.config.seed)
    # the loop lives in mubeyama_session today and moves to mubeyama_sim (the mubeyama branch)
    finish = getattr(mubeyama_sim, "play_out", None) or getattr(mubeyama_session, "play_out")  # noqa: B009
    finish(table, "reading" if check else "end")
    return table


def events_seen(session: Any, seat: int | None) -> list[GameEvent]:
    """The events `seat` may see (None: every event, the omniscient log)."""
    log_for = getattr(session, "log_for", None)
    if log_for is not None and seat is not None:
        return list(log_for(seat))
    full = getattr(session, "log", None)
    if isinstance(full, list):
        return list(full)
    from trainer.games.mubeyama_session import MubeyamaSession
    if isinstance(session, MubeyamaSession) and seat is not None:   # a hidden card's private events
        return list(session.state.view(seat).log)
    return list(session.state.log)


def game_log(variant: registry.Variant, seed: int, players: int, options: Mapping[str, Any] | None = None,
             *, seat: int | None = 0, lang: str | None = None) -> list[str]:
    """The log of game 0 of a run as lines in `lang`, as `seat` sees it (None: all of it)."""
    if variant.texts is None:
        raise ValueError(f"{variant.game} names no text module in the registry")
    session = play_one(variant, seed, players, options)
    return log_lines(variant.texts, events_seen(session, seat), seat, lang)


def _sim_module(variant: registry.Variant) -> Any:
    return importlib.import_module(variant.simulate.partition(":")[0])


__all__: Sequence[str] = ("game_log", "play_one", "events_seen", "game_seed")
