"""How the server drives a session: through the Session protocol of `trainer.games.protocol`
(act, tick, next_due, view, log_for, is_over, outcome), the same calls the app and the
simulator make. `Driver` adds only what a server needs around it: the table's own clock,
the seat's legal actions for its frame, and a version counter.

CPUs move without a pause on the server (the session's ``cpu_delay`` stays 0), so a
table restored by replaying its log needs to move its clock only through time-outs.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from trainer.games.protocol import GameEvent, IllegalAction
from trainer.games.registry import Variant, resolve

SPECTATOR = -2
"""The audience of a spectator's log: no seat (every private event hidden; never READER's -1)."""

CPU_LEVELS: dict[str, tuple[str, ...]] = {
    "unsun": ("random", "medium"),
    "yomi": ("random", "chain", "sample"),
    "yomi37": ("random", "chain", "sample"),
    "umebotan": ("random", "greedy"),
    "bozu": ("random", "first"),
}
"""The CPU levels of each game the server plays (the players modules' LEVELS)."""
DEFAULT_LEVEL = {"unsun": "medium", "yomi": "sample", "yomi37": "sample", "umebotan": "greedy", "bozu": "first"}


class TableClock:
    """A table's own logical clock: it stands still except when a turn runs out.

    The session reads its time-outs off this clock. It moves only when the table's
    owner records a time-out (`advance_to` the moment the turn ran out), and a replay
    moves it the same way at the same record, so every process that holds the table
    (and every restart) reaches the same state from the same log whatever its wall
    clock says. How long the current turn has really run is measured on the wall
    clock by `trainer.server.tables.LiveTable.turn_left`."""

    def __init__(self) -> None:
        self._t = 0.0

    def now(self) -> float:
        return self._t

    def advance_to(self, t: float) -> None:
        self._t = max(self._t, t)


class Driver:
    """One session as the server drives it (see the module docstring)."""

    def __init__(self, variant: Variant, seed: str, seats: Sequence[str], options: Mapping[str, Any],
                 clock: TableClock):
        self.clock = clock
        self.session: Any = resolve(variant.session)(variant, seed, seats, {**dict(options), "clock": clock})

    def act(self, seat: int, action: Any) -> list[GameEvent]:
        """A person's action; the protocol's `IllegalAction` (with a reason id) when refused,
        nothing changed. A malformed action the engine rejects otherwise is refused as
        ``turn.not_allowed``, never with the engine's prose."""
        try:
            return self.session.act(seat, action)
        except IllegalAction:
            raise
        except ValueError as exc:
            raise IllegalAction("turn.not_allowed", str(exc)) from None

    def settle(self) -> list[GameEvent]:
        """Everything due by the clock now: CPU moves, a turn's time-out (its stand-in plays)."""
        return list(self.session.tick())

    def next_due(self) -> float | None:
        """When `settle` next has something to do, None = waits for a person."""
        return self.session.next_due()

    def legal(self, seat: int) -> list[Any]:
        """The actions `seat` may take now ([] when it is not its turn)."""
        if seat not in self.session.waiting_for():
            return []
        return list(self.session.legal(seat))

    def outcome(self) -> Any:
        return self.session.outcome()

    def version(self) -> int:
        """A counter that grows with every change of the table (the protocol's ``seq``)."""
        return len(self.session.log)
