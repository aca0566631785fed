"""Was a race's reaction time measured on sound that left on time? (issue 23)

The player records every stall of its output (`audio.player.Stall`). A race whose
kimariji or whose touch falls in or after a stall the player could not re-derive is
*disturbed*: its reaction is kept, shown with a mark and the reason, and counted in no
statistic (the store's `disturbed` column). A callback that ran late is recorded only
when it finally runs, so each race is asked about `CHECK_AFTER_S` after its touch:
`RaceChecks` holds it until then, polled from a timer the panel already has, and hands
the answer to the panel's `then(reason)` (None: the race is sound).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from audio.clock import Clock

CHECK_AFTER_S = 0.15    # a callback up to this late is in the player's list by then


def reason_of(stalls) -> str | None:
    """The reason stored with a disturbed trial: the first stall's cause and its length in
    ms when known ("late:52", "gap:-30", "underflow"); None for no stall."""
    if not stalls:
        return None
    first = min(stalls, key=lambda s: s.at)
    if first.length_s is None:
        return first.cause
    return f"{first.cause}:{first.length_s * 1000:.0f}"


class _Race(NamedTuple):
    due: float
    kimariji_t: float
    touch_t: float
    then: Callable[[str | None], None]


class RaceChecks:
    """Races waiting for their answer. `driver` has `disturbance(kimariji_t, touch_t)`
    (`ReadingDriver`), `clock` is the clock the touches were stamped on."""

    def __init__(self, driver, clock: Clock):
        self.driver = driver
        self.clock = clock
        self._waiting: list[_Race] = []

    def add(self, kimariji_t: float | None, touch_t: float | None,
            then: Callable[[str | None], None]) -> None:
        """Ask about the race once the sound around it is known; a race without a kimariji
        time (nothing was heard to race against) is answered at once as sound."""
        if kimariji_t is None:
            then(None)
            return
        touch_t = self.clock.now() if touch_t is None else touch_t
        self._waiting.append(_Race(touch_t + CHECK_AFTER_S, kimariji_t, touch_t, then))
        self.poll()

    def poll(self) -> None:
        """Answer every race whose time has come (call it from the panel's timer)."""
        now = self.clock.now()
        due = [r for r in self._waiting if r.due <= now]
        self._waiting = [r for r in self._waiting if r.due > now]
        for r in due:
            self._answer(r)

    def flush(self) -> None:
        """Answer every race now (the match or drill ends: nothing is left unrecorded)."""
        waiting, self._waiting = self._waiting, []
        for r in waiting:
            self._answer(r)

    def _answer(self, r: _Race) -> None:
        r.then(reason_of(self.driver.disturbance(r.kimariji_t, r.touch_t)))

    @property
    def pending(self) -> int:
        return len(self._waiting)
