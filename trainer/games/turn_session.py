"""A turn-based card game at one table: the engine, CPU seats, the people's seats, a log, a turn timer.

Yomi, Ume Botan and Unsun karuta are played one action at a time: the
engine (a `GameState`) says who acts; a CPU seat acts when its move is due
(below); a person's seat waits for the table view to send an action. The Qt
table and `karuta simulate` both play through this object: the simulator
makes every seat a CPU and runs the session to its end with the protocol's
`play_out`.

Hidden information: the log each seat reads is the engine's events as that
seat may see them. An engine that hides something in its events defines
``redact(event, seat) -> GameEvent | None`` (None: the seat does not learn of
it at all); otherwise every event is public.

When things happen is the session's (`trainer.games.protocol.Session`):
`tick()` plays every move due by the injected clock (the reader's deal and the
CPU seats' moves, one every `cpu_delay` seconds so a person can follow them, a
longer pause after the event kinds of `pause_after`; 0 in the simulator) and a
turn time-out; `next_due()` says when that is. The turn timer (off unless
`turn_seconds` is given; Unsun's platform uses 5 minutes) runs on the same
clock: when a person's turn outlasts it, the seat's stand-in CPU plays for them
and a `TurnTimedOut` event is logged.

A person acting out of turn is refused with the protocol's `IllegalAction`
(reason ``turn.not_your_turn``); the engine refuses the rest with its own ids
(`why_illegal`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

from audio.clock import SYSTEM, Clock
from trainer.games.protocol import READER, GameEvent, GameOutcome, GameState, IllegalAction
from trainer.games.protocol import play_out as play_session

HUMAN, CPU = "human", "cpu"

REFUSALS = ("turn.not_your_turn", "turn.game_over", "turn.not_allowed")
"""The table's own refusals (worded by `trainer.text.turn`; every turn game's `REFUSALS` lists the
first two, and its engine's `why_illegal` makes the third unnecessary)."""


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


class TurnSession:
    """One table (see the module docstring)."""

    def __init__(self, state: GameState, seats: Sequence[str], cpus: Mapping[int, CpuPlayer],
                 *, clock: Clock = SYSTEM, turn_seconds: float | None = None,
                 stand_in: Callable[[int], CpuPlayer] | None = None, cpu_delay: float = 0.0,
                 pause_after: Mapping[str, float] | None = None):
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
        self._seen: dict[int, list[GameEvent]] = {}     # log_for's redacted log per seat, so far
        self._seen_upto: dict[int, int] = {}
        self.cpu_delay = cpu_delay
        self.pause_after: dict[str, float] = dict(pause_after or {})
        self.check_each_move = False
        """Check the engine's invariants after every move `tick` makes (the simulators)."""
        self._turn_started = clock.now()
        self._move_due = clock.now() + cpu_delay

    # -- pace ----------------------------------------------------------------------------------
    def set_pace(self, cpu_delay: float, pause_after: Mapping[str, float] | None = None) -> None:
        """How long the reader and the CPUs wait before each move (and after the given event
        kinds); the next move is rescheduled from now."""
        self.cpu_delay = cpu_delay
        if pause_after is not None:
            self.pause_after = dict(pause_after)
        self._move_due = self.clock.now() + self._wait()

    def _wait(self) -> float:
        """The wait before the next move: `cpu_delay`, longer after a `pause_after` kind (an
        unpaced table, delay 0, never pauses: the simulator and the tests)."""
        if not self.cpu_delay or not self.log:
            return self.cpu_delay
        return max(self.cpu_delay, self.pause_after.get(self.log[-1].kind, 0.0))

    # -- questions ---------------------------------------------------------------------------
    def humans(self) -> tuple[int, ...]:
        return tuple(s for s, k in enumerate(self.seats) if k == HUMAN)

    def waiting_for(self) -> tuple[int, ...]:
        """The people the table is waiting for now (empty while CPUs or the reader act)."""
        return tuple(s for s in self.state.actors() if s != READER and self.seats[s] == HUMAN)

    def to_act(self, seat: int) -> int | None:
        """Who acts now as `seat` may know it (the view's ``to_act`` / ``turn`` when it has one,
        so a hidden ロバイ holder stays hidden); None when the reader deals or nobody acts."""
        view = self.state.view(seat)
        for name in ("to_act", "turn"):
            if hasattr(view, name):
                return getattr(view, name)
        actors = [a for a in self.state.actors() if a != READER]
        return actors[0] if actors else None

    def is_over(self) -> bool:
        return self.state.is_over()

    def outcome(self) -> GameOutcome | None:
        return self.state.outcome()

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
        # The log only grows and a redaction depends on the event and the seat alone, so each
        # seat's log is extended, not redone: a server sends it to every member at every move.
        seen, upto = self._seen.setdefault(seat, []), self._seen_upto.get(seat, 0)
        if upto > len(self.log):        # not expected; start again rather than show a stale log
            seen.clear()
            upto = 0
        seen.extend(e for e in (redact(e, seat) for e in self.log[upto:]) if e is not None)
        self._seen_upto[seat] = len(self.log)
        return list(seen)

    def turn_left(self) -> float | None:
        """Seconds left on the person's turn timer, or None when no timer runs."""
        if self.turn_seconds is None or not self.waiting_for():
            return None
        return max(0.0, self.turn_seconds - (self.clock.now() - self._turn_started))

    def check_invariants(self) -> None:
        self.state.check_invariants()

    # -- actions -----------------------------------------------------------------------------
    def why_illegal(self, seat: int, action: Any) -> IllegalAction | None:
        """The refusal `act` would raise (None: `seat` may take `action` now)."""
        if self.state.is_over():
            return IllegalAction("turn.game_over", "the game is over")
        if seat not in self.waiting_for():
            return IllegalAction("turn.not_your_turn", f"seat {seat} is not to act now", seat=seat)
        engine = getattr(self.state, "why_illegal", None)
        if engine is not None:
            return engine(seat, action)
        if action not in self.state.legal_actions(seat):
            return IllegalAction("turn.not_allowed", f"{action!r} is not allowed now")
        return None

    def act(self, seat: int, action: Any) -> list[GameEvent]:
        """A person's action; `IllegalAction` (nothing changed) when it is not theirs to take."""
        refusal = self.why_illegal(seat, action)
        if refusal is not None:
            raise refusal
        return self._apply(action)

    def step(self) -> list[GameEvent]:
        """One action of the reader or of a CPU seat whose turn it is, whatever the clock says;
        [] when a person must act (tests and `tick` use it)."""
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

    def next_due(self) -> float | None:
        """When the next move is due: the reader's or a CPU's, or a person's turn running out;
        None while the table waits for a person with no timer (or the game is over)."""
        if self.state.is_over():
            return None
        if self.waiting_for():
            if self.turn_seconds is None:
                return None
            return self._turn_started + self.turn_seconds
        return self._move_due

    def tick(self, limit: int = 100_000) -> list[GameEvent]:
        """Every move due by the clock now: the reader's and the CPUs' (each `cpu_delay` after
        the last), and a person's turn that outlasted the timer (their stand-in plays)."""
        out: list[GameEvent] = []
        for _ in range(limit):
            due = self.next_due()
            if due is None or due > self.clock.now():
                break
            out += self._time_out() if self.waiting_for() else self.step()
            if self.check_each_move:
                self.state.check_invariants()
        return out

    def _time_out(self) -> list[GameEvent]:
        seat = self.waiting_for()[0]
        if self._stand_in is None:
            raise RuntimeError("a turn timer needs a stand-in CPU")
        out: list[GameEvent] = [TurnTimedOut(seat, float(self.turn_seconds or 0))]
        self.log.append(out[0])
        player = self._stand_in(seat)
        out += self._apply(player.choose(self.state.view(seat), self.state.legal_actions(seat)))
        return out

    def _apply(self, action: Any) -> list[GameEvent]:
        events = list(self.state.apply(action))
        self.log.extend(events)
        if not events:
            raise RuntimeError(f"{type(self.state).__name__}.apply reported no event for {action!r}")
        now = self.clock.now()
        self._turn_started = now
        self._move_due = now + self._wait()
        return events


class _StillClock:
    """A settable clock for a table that has none (the simulators' default)."""

    def __init__(self, start: float = 0.0):
        self._t = start

    def now(self) -> float:
        return self._t

    def set(self, t: float) -> None:
        self._t = t


def play_out(session: TurnSession, check: bool = True, limit: int = 1_000_000) -> TurnSession:
    """Run an all-CPU session to its end through the protocol's one loop
    (`trainer.games.protocol.play_out`), on the session's clock when it can be set."""
    clock: Any = session.clock
    if not hasattr(clock, "set"):
        if session.cpu_delay or session.pause_after:
            raise ValueError("a paced table plays out only on a settable clock")
        clock = _StillClock(clock.now())
    session.check_each_move = check
    play_session(session, clock, check=check, limit=limit)
    return session
