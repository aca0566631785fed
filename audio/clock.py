"""The one time base of the application: seconds on the ``time.perf_counter`` scale.

Reaction times are touch time minus the moment a kimariji left the speaker, so
every part that stamps or schedules something takes a `Clock` instead of
calling ``time.perf_counter`` itself:

- `SYSTEM` (`SystemClock`): perf_counter, where touches are stamped when Qt
  delivers them;
- the player (`audio.player.Player`) maps the sound card's sample clock onto the
  same scale, so its marks and `SYSTEM` agree (a silent player uses `SYSTEM`);
- `FakeClock`: tests and the simulator move time by hand.

A clock is also callable (``clock()`` is ``clock.now()``), so code written for a
plain ``time.perf_counter`` callable keeps working.
"""
from __future__ import annotations

import time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    def now(self) -> float:
        """Seconds on the perf_counter scale."""
        ...

    def __call__(self) -> float: ...


class SystemClock:
    """``time.perf_counter``: the clock Qt's presses are stamped on (CLOCK_MONOTONIC on Linux)."""

    def now(self) -> float:
        return time.perf_counter()

    __call__ = now

    def __repr__(self) -> str:
        return "SystemClock()"


class FakeClock:
    """A clock that moves only when told to: for tests and headless simulation."""

    def __init__(self, start: float = 0.0):
        self.t = float(start)

    def now(self) -> float:
        return self.t

    __call__ = now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("a clock never runs backwards")
        self.t += seconds
        return self.t

    def set(self, t: float) -> None:
        if t < self.t:
            raise ValueError(f"a clock never runs backwards ({t} < {self.t})")
        self.t = float(t)

    def __repr__(self) -> str:
        return f"FakeClock({self.t!r})"


SYSTEM = SystemClock()
