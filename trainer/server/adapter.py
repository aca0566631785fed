"""How the server drives a session: the one place that knows today's `TurnSession`.

The server is written against the Session protocol of `trainer.games.protocol`
(act, tick, next_due, view, log_for, is_over, outcome). The turn games'
`TurnSession` is moving onto that protocol on another branch; until it lands,
it has ``act`` (raising `NotYourTurn` or the engine's own ``IllegalAction``),
``run_cpus`` and a ``tick`` that only times out a person's turn, and its
``new_session`` functions take the clock in two different ways. `Driver` maps
that onto what the server needs; at the merge its methods become one-line
calls to the protocol (the notes say which).
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
}
"""The CPU levels of each game the server plays (the players modules' LEVELS)."""
DEFAULT_LEVEL = {"unsun": "medium", "yomi": "sample", "yomi37": "sample", "umebotan": "greedy"}


class TableClock:
    """A table's own monotonic clock: the server's clock plus an offset that only grows.

    Replaying a time-out jumps this table's clock to the moment the turn ran out
    (the session sees the same time-out), without touching any other table."""

    def __init__(self, base: Any):
        self._base = base
        self._offset = 0.0

    def now(self) -> float:
        return self._base.now() + self._offset

    def advance_to(self, t: float) -> None:
        self._offset += max(0.0, t - self.now())


class Driver:
    """One session as the server drives it (see the module docstring)."""

    def __init__(self, variant: Variant, seed: str, seats: Sequence[str], options: Mapping[str, Any],
                 clock: TableClock):
        self.clock = clock
        opts = dict(options)
        if variant.game == "unsun":
            # merge: every new_session takes the clock the same way
            self.session: Any = resolve(variant.session)(variant, seed, seats, {**opts, "clock": clock})
        else:
            self.session = resolve(variant.session)(variant, seed, seats, opts, clock=clock)

    def act(self, seat: int, action: Any) -> list[GameEvent]:
        """A person's action; `IllegalAction` (with a reason id) when refused, nothing changed.
        merge: ``self.session.act(seat, action)`` (sessions raise the protocol's IllegalAction)."""
        from trainer.games.turn_session import NotYourTurn
        try:
            return self.session.act(seat, action)
        except IllegalAction:
            raise
        except NotYourTurn:
            raise IllegalAction("turn.not_your_turn", f"seat {seat} is not to act now", seat=seat) from None
        except ValueError as exc:
            # engines not yet on the protocol's IllegalAction: a generic reason, no prose
            raise IllegalAction(f"{type(self.session.state).__module__.rsplit('.', 1)[-1]}.illegal",
                                str(exc)) from None

    def settle(self) -> list[GameEvent]:
        """Everything due by the clock now: CPU moves, a turn's time-out (its stand-in plays).
        merge: ``self.session.tick()``."""
        events = list(self.session.run_cpus())
        for _ in range(10_000):
            timed_out = self.session.tick()
            if not timed_out:
                break
            events += timed_out + list(self.session.run_cpus())
        return events

    def next_due(self) -> float | None:
        """When `settle` next has something to do (a turn timer), None = waits for a person.
        merge: ``self.session.next_due()``."""
        left = self.session.turn_left()
        return None if left is None else self.clock.now() + left

    def legal(self, seat: int) -> list[Any]:
        """The actions `seat` may take now ([] when it is not its turn)."""
        if seat not in self.session.waiting_for():
            return []
        return list(self.session.legal(seat))

    def outcome(self) -> Any:
        """merge: ``self.session.outcome()``."""
        return self.session.state.outcome()

    def version(self) -> int:
        """A counter that grows with every change of the table (the protocol's ``seq``)."""
        return len(self.session.log)
