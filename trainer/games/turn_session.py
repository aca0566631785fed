"""A turn-based card game at one table: the engine, CPU seats, the people's seats, a log, a turn timer.

Yomi, Ume Botan and Unsun karuta are played one action at a time: the
engine (a `GameState`) says who acts; a CPU seat acts as soon as it is its
turn; a person's seat waits for the table view to send an action. The Qt
table and `karuta simulate` both play through this object: the simulator
simply makes every seat a CPU and runs the session to its end.

Hidden information: the log each seat reads is the engine's events as that
seat may see them. An engine that hides something in its events defines
``redact(event, seat) -> GameEvent | None`` (None: the seat does not learn of
it at all); otherwise every event is public.

The turn timer (off unless `turn_seconds` is given; Unsun's platform uses 5
minutes) runs on the injected clock: when a person's turn outlasts it,
`tick()` lets the seat's stand-in CPU play for them and logs a
`TurnTimedOut` event.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

from audio.clock import SYSTEM, Clock
from trainer.games.protocol import READER, GameEvent, GameState

HUMAN, CPU = "human", "cpu"


class CpuPlayer(Protocol):
    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """One of `legal`, decided from `view` (what this seat may see) only."""
        ...


@dataclass(frozen=True)
class TurnTimedOut(GameEvent):
    """A person's turn outlasted the turn timer; their stand-in played for them."""

    kind = "table.timeout"
    seat: int
    seconds: float


class NotYourTurn(ValueError):
    """A seat tried to act when the engine is not waiting for it (said to the user as is)."""


class TurnSession:
    """One table (see the module docstring)."""

    def __init__(self, state: GameState, seats: Sequence[str], cpus: Mapping[int, CpuPlayer],
                 *, clock: Clock = SYSTEM, turn_seconds: float | None = None,
                 stand_in: Callable[[int], CpuPlayer] | None = None):
        if len(seats) != state.players:
            raise ValueError(f"{state.players} seats needed, {len(seats)} given")
        if any(k not in (HUMAN, CPU) for k in seats):
            raise ValueError(f"a seat is {HUMAN!r} or {CPU!r}: {tuple(seats)}")
        missing = [s for s, k in enumerate(seats) if k == CPU and s not in cpus]
        if missing:
            raise ValueError(f"no CPU player for seats {missing}")
        self.state = state
        self.seats = tuple(seats)
        self.cpus = dict(cpus)
        self.clock = clock
        self.turn_seconds = turn_seconds
        self._stand_in = stand_in
        self.log: list[GameEvent] = []
        self._turn_started = clock.now()

    # -- questions ---------------------------------------------------------------------------
    def humans(self) -> tuple[int, ...]:
        return tuple(s for s, k in enumerate(self.seats) if k == HUMAN)

    def waiting_for(self) -> tuple[int, ...]:
        """The people the table is waiting for now (empty while CPUs or the reader act)."""
        return tuple(s for s in self.state.actors() if s != READER and self.seats[s] == HUMAN)

    def is_over(self) -> bool:
        return self.state.is_over()

    def view(self, seat: int) -> Any:
        return self.state.view(seat)

    def legal(self, seat: int) -> Sequence[Any]:
        if seat not in self.state.actors():
            return []
        return self.state.legal_actions(seat)

    def log_for(self, seat: int) -> list[GameEvent]:
        """The log as `seat` may see it."""
        redact = getattr(self.state, "redact", None)
        if redact is None:
            return list(self.log)
        seen = (redact(e, seat) for e in self.log)
        return [e for e in seen if e is not None]

    def turn_left(self) -> float | None:
        """Seconds left on the person's turn timer, or None when no timer runs."""
        if self.turn_seconds is None or not self.waiting_for():
            return None
        return max(0.0, self.turn_seconds - (self.clock.now() - self._turn_started))

    # -- actions -----------------------------------------------------------------------------
    def act(self, seat: int, action: Any) -> list[GameEvent]:
        """A person's action (the engine checks it is legal)."""
        if seat not in self.waiting_for():
            raise NotYourTurn(f"seat {seat} is not to act now")
        return self._apply(action)

    def step(self) -> list[GameEvent]:
        """One action of the reader or of a CPU seat whose turn it is; [] when a person must act."""
        actors = self.state.actors()
        if not actors or self.state.is_over():
            return []
        if READER in actors:
            return self._apply(self.state.legal_actions(READER)[0])
        for seat in actors:
            if self.seats[seat] == CPU:
                cpu = self.cpus[seat]
                return self._apply(cpu.choose(self.state.view(seat), self.state.legal_actions(seat)))
        return []

    def run_cpus(self, limit: int = 100_000, check: bool = False) -> list[GameEvent]:
        """Let the reader and the CPUs play until a person must act or the game ends."""
        events: list[GameEvent] = []
        for _ in range(limit):
            got = self.step()
            if not got:
                break
            events += got
            if check:
                self.state.check_invariants()
        return events

    def tick(self) -> list[GameEvent]:
        """Call often: when a person's turn outlasted the timer, their stand-in plays."""
        left = self.turn_left()
        if left is None or left > 0:
            return []
        seat = self.waiting_for()[0]
        if self._stand_in is None:
            raise RuntimeError("a turn timer needs a stand-in CPU")
        out = [TurnTimedOut(seat, float(self.turn_seconds or 0))]
        self.log.append(out[0])
        player = self._stand_in(seat)
        out += self._apply(player.choose(self.state.view(seat), self.state.legal_actions(seat)))
        return out

    def _apply(self, action: Any) -> list[GameEvent]:
        events = list(self.state.apply(action))
        self.log.extend(events)
        if not events:
            raise RuntimeError(f"{type(self.state).__name__}.apply reported no event for {action!r}")
        self._turn_started = self.clock.now()
        return events


def play_out(session: TurnSession, check: bool = True, limit: int = 1_000_000) -> TurnSession:
    """Run an all-CPU session to its end (the simulators' loop), invariants checked after each step."""
    if session.humans():
        raise ValueError("play_out needs every seat to be a CPU")
    for _ in range(limit):
        if session.is_over():
            return session
        if not session.step():
            raise RuntimeError("the game stopped with nobody to act")
        if check:
            session.state.check_invariants()
    raise RuntimeError(f"the game did not end within {limit} actions")
