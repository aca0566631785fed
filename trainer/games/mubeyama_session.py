"""One Mubeyama karuta table (むべ山かるた): engine, CPU seats, the reader's order, reaction times.

A `trainer.games.protocol.Session`, pure and clock-driven (no Qt, no audio but
`audio.clock`). It is fed the reading (`card_started`, `kimariji_sounded`,
`card_finished`) and the people's clicks (`act`), and owns *when* things
happen: it tells the reader to hold after each card and to go on once the
card and every pass it caused are done (`ReaderHeld` / `ReaderReleased`
events), moves the CPU seats and shows the hint when they are due (`tick` at
`next_due`), and times people's flips. The Qt panel (`trainer.ui.mubeyama_panel`)
plays the sound, forwards the driver's signals and clicks, calls `tick` on a
timer and draws; the simulator (`trainer.sim.mubeyama_sim`) drives the very
same object through `protocol.play_out` with every seat a CPU, a `FakeClock`
and `SimulatedReader`. So the same seed gives the same deal and the same
reading order in both: the deal is `rulesets.deal` and the order
`core.reading_order`, both from the seed, and the reader reads `order` front
to back (`next_yomifuda`).

- Seats: each is a person (``"human"``) or a CPU (``"cpu"``). A person flips by
  clicking the read card in their own layout; the reaction time is the press
  (stamped on the clock) minus the moment the kimariji left the speaker,
  negative when the click came first (as in kyōgi mode). The kimariji is the
  card's current one among the yomifuda not yet read (`poems.kimariji`),
  completed at the programme's ``kami:mora:K``.
- Scorekeeper (記録係): people play with real cards; the scorer marks each
  flip and each passed card; no seat is a CPU and nothing is timed.
- The variants and their ruleset facts are `trainer.rules.mubeyama.VARIANTS`;
  nothing about a ruleset is repeated here.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Mapping

import poems.kimariji
from audio.clock import SYSTEM, Clock
from poems.yaku import SEED, YakuSets
from trainer.games import protocol
from trainer.games.protocol import GameEvent, GameOutcome
from trainer.players.mubeyama_cpu import MubeyamaCpu
from trainer.rules.mubeyama import (EVENT_TYPES as ENGINE_EVENT_TYPES, VARIANTS, Action, AwaitFlip,
                                    AwaitPass, AwaitRead, Flip, Flipped, IllegalAction,
                                    MubeyamaError, MubeyamaEvent, MubeyamaView, Pass, Read, Revealed,
                                    Ruleset, Stakes, VariantSpec, Won, new_game)
from trainer.games.protocol import event_kinds

HUMAN, CPU = "human", "cpu"


@dataclass(frozen=True)
class GameConfig:
    """Everything chosen on the setup page (or by the simulator)."""

    variant: str = "okayama4"
    seats: tuple[str, ...] = ()
    """HUMAN or CPU per seat; empty: seat 1 a person, the rest CPU."""
    stakes: Stakes = field(default_factory=Stakes)
    yaku: YakuSets = SEED
    seed: int | str = 0
    scorekeeper: bool = False
    layouts: tuple[tuple[int, ...], ...] | None = None
    """Scorekeeper mode: each seat's torifuda in slot order (None: dealt from the seed)."""
    hint_delay_s: float = 5.0
    cpu_delay_s: float = 0.8
    """How long after the kimariji (or after its own last move) a CPU seat acts."""

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown Mubeyama ruleset {self.variant!r}; "
                             f"known: {', '.join(VARIANTS)}")
        if self.seats and len(self.seats) != self.players:
            raise ValueError(f"{self.players} players need {self.players} seats, got {len(self.seats)}")
        if any(k not in (HUMAN, CPU) for k in self.seats):
            raise ValueError(f"a seat is {HUMAN!r} or {CPU!r}: {self.seats}")

    @property
    def spec(self) -> VariantSpec:
        return VARIANTS[self.variant]

    @property
    def ruleset_name(self) -> str:
        return self.spec.ruleset

    @property
    def players(self) -> int:
        return self.spec.players

    @property
    def hidden_card(self) -> bool:
        return self.spec.hidden_card

    @property
    def gambling(self) -> bool:
        return self.spec.gambling

    def seat_kinds(self) -> tuple[str, ...]:
        if self.scorekeeper:
            return (HUMAN,) * self.players
        return self.seats or (HUMAN,) + (CPU,) * (self.players - 1)

    def ruleset(self) -> Ruleset:
        return self.spec.make_ruleset(yaku=self.yaku, stakes=self.stakes)


@dataclass(frozen=True)
class Reaction:
    """A person's flip: how long after the kimariji sounded (ms, negative = before)."""
    seat: int
    no: int
    ms: int
    hinted: bool
    disturbed: str | None = None    # the sound stuttered in this race: shown, in no mean


# --------------------------------------------------------------------------- session events

@dataclass(frozen=True)
class ReaderHeld(MubeyamaEvent):
    """Card *no* began; the reader is to wait after its shimo-no-ku until it is flipped."""
    kind: ClassVar[str] = "mubeyama.reader_hold"
    no: int


@dataclass(frozen=True)
class ReaderReleased(MubeyamaEvent):
    """Card *no* and everything it caused are done: the reader reads on."""
    kind: ClassVar[str] = "mubeyama.reader_release"
    no: int


@dataclass(frozen=True)
class HintGiven(MubeyamaEvent):
    """The hint delay passed: *seat* is named as the owner of card *no*. When *no* is the
    seat's face-down hidden card only that seat learns it (the others when it is shown)."""
    kind: ClassVar[str] = "mubeyama.hint"
    seat: int
    no: int
    hidden_card: bool = False

    @property
    def private_to(self) -> int | None:
        return self.seat if self.hidden_card else None


@dataclass(frozen=True)
class FlipTimed(MubeyamaEvent):
    """A person flipped card *no* *ms* after its kimariji sounded (negative: before)."""
    kind: ClassVar[str] = "mubeyama.reaction"
    seat: int
    no: int
    ms: int
    hinted: bool


SESSION_EVENT_TYPES = event_kinds(ReaderHeld, ReaderReleased, HintGiven, FlipTimed)
EVENT_TYPES = {**ENGINE_EVENT_TYPES, **SESSION_EVENT_TYPES}
"""Every event kind a Mubeyama table reports: the engine's and the session's (the registry's `events`)."""

REFUSALS: tuple[str, ...] = tuple(f"mubeyama.{problem}" for problem in (
    "not_yours", "not_read", "hidden_not_read", "no_flip", "reader_waits", "not_now",
    "not_an_action", "players", "layouts", "count", "not_a_card", "not_a_kimariji", "twice",
    "stake_rows", "stake_amount", "stake_not_highest"))
"""Every reason id the engine, the session, the layout entry and the stakes refuse with
(``mubeyama.<problem>``)."""


# --------------------------------------------------------------------------- actions

@dataclass(frozen=True)
class Click:
    """A person's click on one of the acting seat's slots: card *no*, or None for the
    face-down hidden card. *stamp*: when the press happened (None: not timed);
    *kimariji_at*: when the reader's player predicts the kimariji sounds, for a click
    before it was heard. The session decides what it means: a flip, a pass, or a refusal."""
    no: int | None
    stamp: float | None = None
    kimariji_at: float | None = None


@dataclass(frozen=True)
class MarkFlip:
    """Scorekeeper: the owner flipped the card being waited for (on the real floor)."""


class MubeyamaSession:
    """The game at one table (see the module docstring); the panel or the simulator feeds it.

    *clock* stamps what happens "now" and times the CPU and the hint; *ruleset*
    overrides the variant's own (tests, the simulator's `play_game` with a
    hand-made ruleset).
    """

    def __init__(self, config: GameConfig, clock: Clock = SYSTEM, ruleset: Ruleset | None = None):
        self.config = config
        self.clock = clock
        self.ruleset = ruleset or config.ruleset()
        self.state = new_game(self.ruleset, config.players, seed=config.seed, layouts=config.layouts)
        self.kinds = config.seat_kinds()
        self.seats: tuple[str, ...] = self.kinds   # the protocol's name: "human" / "cpu" per seat
        self.cpus = {s: MubeyamaCpu(s, config.yaku, config.seed)
                     for s, k in enumerate(self.kinds) if k == CPU}
        self.order: list[int] = list(self.state.reader_order)
        self.reactions: dict[int, list[Reaction]] = {s: [] for s in range(config.players)}
        self.events: list[GameEvent] = list(self.state.log)   # engine and session events, in order
        self.current: int | None = None          # the yomifuda being read
        self.started_at: float | None = None     # clock time its kami-no-ku began
        self._kimariji: poems.kimariji.Current | None = None   # worked out when first asked
        self.kimariji_time: float | None = None  # clock time when its kimariji sounded
        self.hinted = False
        self.holding = False                     # the reader was told to wait after this card
        self._due: float | None = None           # when the CPU's move or the hint is due
        self._due_is_hint = False
        self._checked = -1                       # the engine log's length at the last check
        self._logs: dict[int | None, tuple[int, list[GameEvent]]] = {}

    # -- questions ------------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.config.players

    def is_cpu(self, seat: int) -> bool:
        return seat in self.cpus

    def is_human(self, seat: int) -> bool:
        return not self.config.scorekeeper and self.kinds[seat] == HUMAN

    def view(self, seat: int | None) -> MubeyamaView:
        return self.state.view(seat)

    def log_for(self, seat: int | None) -> list[GameEvent]:
        """Every event *seat* may know of (None: an onlooker), engine and session alike."""
        seen, log = self._logs.get(seat, (0, []))      # kept up to date as the events grow
        log += [e for e in self.events[seen:] if getattr(e, "private_to", None) in (None, seat)]
        self._logs[seat] = (len(self.events), log)
        return list(log)

    def is_over(self) -> bool:
        return self.state.is_over()

    def outcome(self) -> GameOutcome | None:
        return self.state.outcome()

    def check_invariants(self) -> None:
        """The engine's invariants, skipped when nothing happened since the last check
        (a kimariji heard, a hint: the cards did not move)."""
        if self._checked != len(self.state.log):
            self.state.check_invariants()
            self._checked = len(self.state.log)

    def waits_for_reader(self) -> bool:
        return isinstance(self.state.pending, AwaitRead)

    def next_yomifuda(self) -> int | None:
        """The next card of the reader's order not read yet (None: all read)."""
        read = self.state.read
        if read == self.order[:len(read)]:          # the usual case: read in order
            return self.order[len(read)] if len(read) < len(self.order) else None
        done = set(read)
        return next((no for no in self.order if no not in done), None)

    @property
    def kimariji(self) -> str:
        """The current card's kimariji now, among the cards not yet read (historical kana)."""
        now = self._current_kimariji()
        return now.kana if now else ""

    @property
    def kimariji_mora(self) -> int:
        """The kami-no-ku mora whose onset completes the current kimariji."""
        now = self._current_kimariji()
        return now.mora if now else 0

    def _current_kimariji(self) -> poems.kimariji.Current | None:
        # Lazy: the simulator never asks, and this is the costliest step of a reading.
        if self._kimariji is None and self.current is not None:
            before = self.state.read[:self.state.read.index(self.current)]
            self._kimariji = poems.kimariji.current(self.current, before)
        return self._kimariji

    def waiting_on_cpu(self) -> bool:
        return self.state.to_act() in self.cpus

    def named_owner(self) -> int | None:
        """The seat the table names as acting now: a giver, or the flipper once it is
        named (the scorer's table, the hint, a CPU); None while the owner is unnamed."""
        p = self.state.pending
        if isinstance(p, AwaitPass):
            return p.giver
        if isinstance(p, AwaitFlip) and (self.config.scorekeeper or self.hinted or self.is_cpu(p.seat)):
            return p.seat
        return None

    def reading_flipped(self) -> bool:
        """The current card is no longer waited for (flipped, or nobody holds it)."""
        p = self.state.pending
        return not (isinstance(p, AwaitFlip) and p.no == self.current)

    # -- the reader (the audio driver in the app, `SimulatedReader` in the simulator) -----------
    def card_started(self, no: int) -> list[GameEvent]:
        """A kami-no-ku began to sound: read it into the game if it is the card the game
        waits for (the joka, a repeat or a stale card change nothing)."""
        if self.is_over() or not self.waits_for_reader() or no != self.next_yomifuda():
            return []
        return self.read(no)

    def read(self, no: int) -> list[GameEvent]:
        """The kami-no-ku of *no* began: the reader is to hold after it until it is flipped."""
        events = self._apply(Read(no))
        self.current = no
        self.started_at = self.clock.now()
        self._kimariji = None
        self.kimariji_time = None
        self.hinted = False
        self.holding = True
        return events + self._record(ReaderHeld(no)) + self._after()

    def kimariji_sounded(self, no: int, at: float | None = None) -> list[GameEvent]:
        """The current card's kimariji has sounded (*at*: when; None: now on the clock);
        the owner's CPU or hint is due from now."""
        if no != self.current or self.is_over():
            return []
        self.kimariji_time = self.clock.now() if at is None else at
        return self._after()

    def card_finished(self, no: int) -> list[GameEvent]:
        """The card's reading ended; without a kimariji report it counts from now."""
        if no == self.current and self.kimariji_time is None:
            return self.kimariji_sounded(no)
        return []

    # -- people ---------------------------------------------------------------------------------------
    def act(self, seat: int, action: Any) -> list[GameEvent]:
        """A person's action: a `Click`, the scorer's `MarkFlip`, or an engine `Flip` / `Pass`.
        Raises `IllegalAction` (nothing changed) when the rules or the seat refuse it."""
        refusal = self.why_illegal(seat, action)
        if refusal is not None:
            raise refusal
        p = self.state.pending
        if isinstance(action, MarkFlip):
            assert isinstance(p, AwaitFlip)
            return self._apply(Flip(p.seat, p.no)) + self._after()
        if isinstance(action, Click) and isinstance(p, AwaitPass):
            assert action.no is not None
            return self._apply(Pass(seat, action.no, p.to)) + self._after()
        if isinstance(action, Click):            # the card read, or the hidden back when it was read
            assert isinstance(p, AwaitFlip)
            return self._flip(Flip(seat, p.no), action.stamp, action.kimariji_at) + self._after()
        return self._apply(action) + self._after()

    def why_illegal(self, seat: int, action: Any) -> protocol.IllegalAction | None:
        """The refusal `act` would raise, or None."""
        if not isinstance(action, (Click, MarkFlip, Flip, Pass)):
            return MubeyamaError(f"not a Mubeyama action: {action!r}", "not_an_action")
        if isinstance(action, MarkFlip):
            if not self.config.scorekeeper or not isinstance(self.state.pending, AwaitFlip):
                return IllegalAction("no flip is awaited", "no_flip")
            return None
        if self.is_over() or not (self.config.scorekeeper or self.is_human(seat)):
            return IllegalAction("not this seat's card", "not_yours", seat=seat)
        if isinstance(action, Click):
            return self._click_refusal(seat, action)
        if action.seat != seat or not self.state.is_legal(action):
            return IllegalAction(f"not allowed now: {action!r}", "not_now", seat=seat)
        return None

    def _click_refusal(self, seat: int, click: Click) -> IllegalAction | None:
        p = self.state.pending
        if isinstance(p, AwaitFlip) and p.seat == seat:
            if click.no is None and p.no in self._visible(seat):
                return IllegalAction(f"#{p.no} lies face-up; the hidden card was not read",
                                     "hidden_not_read", seat=seat)
            if click.no is not None and click.no != p.no:
                return IllegalAction(f"#{click.no} has not been read", "not_read", seat=seat, no=click.no)
            return None
        if isinstance(p, AwaitPass) and p.giver == seat and click.no is not None:
            if click.no not in self.state.tables[seat].face_up:
                return IllegalAction(f"#{click.no} is not face-up", "not_now", seat=seat)
            return None
        if click.no is not None and click.no not in self.state.read:
            return IllegalAction(f"#{click.no} has not been read", "not_read", seat=seat, no=click.no)
        return IllegalAction("not this seat's card", "not_yours", seat=seat)

    def _visible(self, seat: int) -> set[int]:
        return {s.no for row in self.state.view(None).tables[seat].rows for s in row if s.no is not None}

    def _flip(self, flip: Flip, stamp: float | None, predicted: float | None) -> list[GameEvent]:
        """Flip, and time it for a person: the press minus the kimariji (heard or predicted)."""
        events = self._apply(flip)
        mark = self.kimariji_time if self.kimariji_time is not None else predicted
        if stamp is not None and mark is not None and self.is_human(flip.seat):
            reaction = Reaction(flip.seat, flip.no, round((stamp - mark) * 1000), self.hinted)
            self.reactions[flip.seat].append(reaction)
            events += self._record(FlipTimed(flip.seat, flip.no, reaction.ms, reaction.hinted))
        return events

    # -- the clock ------------------------------------------------------------------------------------
    def next_due(self) -> float | None:
        """When a CPU's move or the hint is due; None while a person or the reader is waited for."""
        return self._due

    def tick(self) -> list[GameEvent]:
        """Everything due by the clock now: CPU moves (one after another) and the hint."""
        events: list[GameEvent] = []
        while self._due is not None and self.clock.now() >= self._due:
            self._due = None
            if self._due_is_hint:
                events += self._hint()
            else:
                events += self._apply(self._cpu_action()) + self._after()
        return events

    def _cpu_action(self) -> Action:
        """What the CPU seat the game waits for does now."""
        seat = self.state.to_act()
        assert seat is not None and seat in self.cpus
        if isinstance(self.state.pending, AwaitFlip):
            return Flip(seat, self.state.pending.no)   # flipping needs no choice
        return self.cpus[seat].choose(self.state.view(seat), self.state.legal_actions(seat))

    def _hint(self) -> list[GameEvent]:
        p = self.state.pending
        if not isinstance(p, AwaitFlip) or self.hinted:
            return []
        self.hinted = True
        return self._record(HintGiven(p.seat, p.no, p.no == self.state.tables[p.seat].hidden))

    def _after(self) -> list[GameEvent]:
        """After every change: release the reader once the card is done, or plan what is due."""
        self._due = None
        p = self.state.pending
        if self.is_over():
            self.holding = False
            return []
        if isinstance(p, AwaitRead):
            if not self.holding:
                return []
            self.holding = False
            return self._record(ReaderReleased(self.current or 0))
        if isinstance(p, AwaitFlip) and self.kimariji_time is None:
            return []                         # nobody acts before the kimariji has sounded
        if p.seat in self.cpus:
            self._due, self._due_is_hint = self.clock.now() + self.config.cpu_delay_s, False
        elif isinstance(p, AwaitFlip) and self.is_human(p.seat) and not self.hinted:
            self._due, self._due_is_hint = self.clock.now() + self.config.hint_delay_s, True
        return []

    def _apply(self, action: Action) -> list[GameEvent]:
        events = self.state.apply(action)
        self.events += events
        return list(events)

    def _record(self, event: MubeyamaEvent) -> list[GameEvent]:
        self.events.append(event)
        return [event]

    # -- results ------------------------------------------------------------------------------------
    def mark_disturbed(self, seat: int, no: int, reason: str) -> None:
        """The player found that the sound stuttered in the race for *no* (the UI's race
        checks answer after the flip): the flip time stays, left out of the mean."""
        rts = self.reactions[seat]
        for k in range(len(rts) - 1, -1, -1):
            if rts[k].no == no:
                rts[k] = replace(rts[k], disturbed=reason)
                return

    def counted_reactions(self, seat: int) -> list[Reaction]:
        """The flips the mean is made of: those whose sound left on time."""
        return [r for r in self.reactions[seat] if r.disturbed is None]

    def mean_reaction(self, seat: int) -> int | None:
        rts = [r.ms for r in self.counted_reactions(seat)]
        return round(sum(rts) / len(rts)) if rts else None

    def flips(self, seat: int) -> int:
        return sum(1 for e in self.state.log if isinstance(e, (Flipped, Revealed)) and e.seat == seat)

    def win_reason(self) -> Won | None:
        """The event that ended the game (its `reason` and `by`), None while it goes on."""
        return self.state.win_event


@dataclass(frozen=True)
class SimulatedReader:
    """The reading as `protocol.play_out` feeds it when no sound plays (the simulator, tests):
    the next card starts as soon as the game waits for the reader, and its kimariji is
    heard *step_s* later on the session's clock."""

    step_s: float = 1.0

    def next_time(self, session: MubeyamaSession) -> float | None:
        if session.is_over():
            return None
        if session.waits_for_reader():
            return session.clock.now()
        if session.kimariji_time is None and session.started_at is not None:
            return session.started_at + self.step_s
        return None

    def feed(self, session: MubeyamaSession) -> list[GameEvent]:
        if session.waits_for_reader():
            no = session.next_yomifuda()
            assert no is not None, "an unfinished game has cards left to read"
            return session.card_started(no)
        assert session.current is not None
        return session.kimariji_sounded(session.current)


def new_session(variant: Any, seed: int | str, seats: tuple[str, ...],
                options: Mapping[str, Any] | None = None, clock: Clock = SYSTEM) -> MubeyamaSession:
    """The registry's entry: a session for *variant* (a registry `Variant` or its id).

    *options*: ``stakes`` (`Stakes`), ``yaku`` (`YakuSets`), ``scorekeeper``,
    ``layouts``, ``hint_delay_s``, ``cpu_delay_s``, and ``clock`` as every registry session
    takes it (the `clock` argument is the same, for callers that name it); the registry's own
    option keys (``ruleset``, ``hidden_card``) are facts of the variant and are ignored here.
    """
    clock = dict(options or {}).get("clock") or clock
    variant_id = getattr(variant, "variant", variant)
    opts = {k: v for k, v in dict(options or {}).items()
            if k in ("stakes", "yaku", "scorekeeper", "layouts", "hint_delay_s", "cpu_delay_s")}
    return MubeyamaSession(GameConfig(variant=variant_id, seats=tuple(seats), seed=seed, **opts),
                           clock=clock)


__all__ = ["HUMAN", "CPU", "EVENT_TYPES", "REFUSALS", "Click", "FlipTimed", "GameConfig", "HintGiven",
           "MarkFlip", "MubeyamaSession", "Reaction", "ReaderHeld", "ReaderReleased", "SimulatedReader",
           "new_session"]
