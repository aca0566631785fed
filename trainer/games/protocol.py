"""The protocol every table's session follows, and the one loop that plays a session out.

The engines' protocol (`GameState`, `GameEvent`, `GameOutcome`, `IllegalAction`,
`READER`, `event_kinds`) lives below the sessions, in `trainer.rules.protocol`,
and is re-exported here so a session, a view or a server imports one module.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Protocol, TypeVar, runtime_checkable

from trainer.rules.protocol import (READER, GameEvent, GameOutcome, GameState, IllegalAction,  # noqa: F401
                                    event_kinds)

__all__ = ["READER", "GameEvent", "GameOutcome", "GameState", "IllegalAction", "event_kinds",
           "Session", "Reader", "SettableClock", "play_out"]


@runtime_checkable
class Session(Protocol):
    """A table: an engine, its seats (people and CPUs) and a clock (see docs/DESIGN.md).

    A session is *fed* what happened and *owns when things happen*. The app, the
    simulator and the server all drive it the same way:

    - `act(seat, action)`: a person's action (a touch with its stamp, a card to
      play ...); returns the events, or raises `IllegalAction` (nothing changed);
    - `why_illegal(seat, action)`: the refusal `act` would raise, or None;
    - `tick()`: everything due by the clock now (a CPU's move, the reader's hold
      or release, the memorisation period's notices, a turn timer's time-out);
    - `next_due()`: the clock time the session next needs a `tick()`, or None
      when it waits for a person or for the reader;
    - `view(seat)` / `log_for(seat)`: only what that seat may see;
    - `is_over()` / `outcome()`: the result as a value.

    Races after a reader (kyōgi, Mubeyama) are also fed the reading by a
    `Reader` (below): the audio driver in the app, the programme's timing in
    the simulator.
    """

    seats: tuple[str, ...]
    """``"human"`` or ``"cpu"`` per seat."""

    def view(self, seat: int) -> Any: ...

    def log_for(self, seat: int) -> list[GameEvent]: ...

    def is_over(self) -> bool: ...

    def outcome(self) -> GameOutcome | None: ...

    def act(self, seat: int, action: Any) -> list[GameEvent]: ...

    def why_illegal(self, seat: int, action: Any) -> IllegalAction | None: ...

    def tick(self) -> list[GameEvent]: ...

    def next_due(self) -> float | None: ...


class Reader(Protocol):
    """What feeds a racing session the reading when no audio plays it (the simulator,
    a server's clients' reports): when it next has something to say, and saying it."""

    def next_time(self, session: Any) -> float | None:
        """Clock time of the reader's next report (a kami-no-ku begins, a card ends), None when done."""
        ...

    def feed(self, session: Any) -> list[GameEvent]:
        """Give the session the report due now (calls its reader methods); its events."""
        ...


class SettableClock(Protocol):
    def now(self) -> float: ...

    def set(self, t: float) -> None: ...


def play_out(session: Session, clock: SettableClock, reader: Reader | None = None, *,
             check: bool = True, limit: int = 1_000_000,
             on_step: Callable[[Session], None] | None = None) -> Session:
    """Run a session with no person seated to its end: the one loop of the simulators,
    the tests and a server's CPU-only tables.

    The clock jumps to whichever comes first, the session's `next_due()` or the
    reader's next report; invariants (``session.check_invariants()`` when the
    session has it) are checked after every step when `check` is true; `on_step`
    sees the session after every step (a test's checks, a server's broadcast).
    """
    if any(kind != "cpu" for kind in session.seats):
        raise ValueError("play_out needs every seat to be a CPU")
    checker = getattr(session, "check_invariants", None) if check else None
    for _ in range(limit):
        session.tick()
        if checker is not None:
            checker()
        if on_step is not None:
            on_step(session)
        if session.is_over():
            return session
        due = session.next_due()
        heard = reader.next_time(session) if reader is not None else None
        if due is None and heard is None:
            raise RuntimeError("the game stopped with nobody to act and nothing to read")
        if reader is not None and heard is not None and (due is None or heard < due):
            clock.set(max(heard, clock.now()))
            reader.feed(session)
            if on_step is not None:
                on_step(session)
        elif due is not None:
            clock.set(max(due, clock.now()))
    raise RuntimeError(f"the game did not end within {limit} steps")


F = TypeVar("F", bound=Callable[..., list[GameEvent]])


def logged(method: F) -> F:
    """A session's entry point whose events also go to the session's `log` (its `log_for`),
    once: entry points calling one another log at the outermost call only. The session
    keeps ``self.log`` (a list) and ``self._depth`` (0 between calls)."""
    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> list[GameEvent]:
        self._depth += 1
        try:
            events = method(self, *args, **kwargs)
        finally:
            self._depth -= 1
        if self._depth == 0:
            self.log.extend(events)
        return events
    return wrapper  # type: ignore[return-value]
