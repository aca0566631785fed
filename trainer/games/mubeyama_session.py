"""One Mubeyama karuta table (むべ山かるた): engine, CPU seats, the reader's order, reaction times.

Pure and clock-driven (no Qt, no audio but `audio.clock`): the Qt panel
(`trainer.ui.mubeyama_panel`) owns the sound and the timers and calls this
object; the simulator (`trainer.sim.mubeyama_sim`) drives the very same object
with every seat a CPU on a `FakeClock`. So the same seed gives the same deal
and the same reading order in both: the deal is `rulesets.deal` and the order
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

from dataclasses import dataclass, field
from typing import Any, Mapping

import poems.kimariji
from audio.clock import SYSTEM, Clock
from poems.yaku import SEED, YakuSets
from trainer.players.mubeyama_cpu import MubeyamaCpu
from trainer.rules.mubeyama import (READER, VARIANTS, Action, AwaitFlip, AwaitPass, Event, Flip,
                                    Flipped, IllegalAction, MubeyamaView, Pass, Read, Revealed,
                                    Ruleset, Stakes, VariantSpec, Won, new_game)

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


class MubeyamaSession:
    """The game at one table; the panel (or the simulator) calls it and redraws from `view`.

    *clock* stamps what happens "now" (a kimariji heard without a mark from the
    player); *ruleset* overrides the variant's own (tests, the simulator's
    `play_game` with a hand-made ruleset).
    """

    def __init__(self, config: GameConfig, clock: Clock = SYSTEM, ruleset: Ruleset | None = None):
        self.config = config
        self.clock = clock
        self.ruleset = ruleset or config.ruleset()
        self.state = new_game(self.ruleset, config.players, seed=config.seed, layouts=config.layouts)
        self.kinds = config.seat_kinds()
        self.cpus = {s: MubeyamaCpu(s, config.yaku, config.seed)
                     for s, k in enumerate(self.kinds) if k == CPU}
        self.order: list[int] = list(self.state.reader_order)
        self.reactions: dict[int, list[Reaction]] = {s: [] for s in range(config.players)}
        self.current: int | None = None          # the yomifuda being read
        self._kimariji: poems.kimariji.Current | None = None   # worked out when first asked
        self.kimariji_time: float | None = None  # clock time when its kimariji sounded
        self.hinted = False

    # -- questions ------------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.config.players

    def is_cpu(self, seat: int) -> bool:
        return seat in self.cpus

    def is_human(self, seat: int) -> bool:
        return not self.config.scorekeeper and self.kinds[seat] == HUMAN

    def view(self, viewer: int | None) -> MubeyamaView:
        return self.state.view(viewer)

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

    def is_over(self) -> bool:
        return self.state.is_over()

    # -- the reader -----------------------------------------------------------------------------
    def read(self, no: int) -> list[Event]:
        """The kami-no-ku of *no* began to sound."""
        events = self.state.apply(Read(no))
        self.current = no
        self._kimariji = None
        self.kimariji_time = None
        self.hinted = False
        return events

    def kimariji_sounded(self, no: int, at: float | None = None) -> None:
        """The current card's kimariji has sounded (*at*: when; None: now on the clock)."""
        if no == self.current:
            self.kimariji_time = self.clock.now() if at is None else at

    # -- seats ------------------------------------------------------------------------------------
    def flip_at(self, seat: int, slot_no: int | None, stamp: float | None,
                kimariji_at: float | None = None) -> list[Event]:
        """A click on one of *seat*'s slots (*slot_no* None: a face-down hidden card).

        *stamp*: when the press happened (None: not timed, the scorekeeper);
        *kimariji_at*: when the kimariji sounds, for a click before it was heard
        (the player predicts the mark); otherwise the time it sounded is used.

        The hidden card may be clicked only when the read card is not among the
        seat's visible cards: what the seat's owner knows without the engine
        telling anyone else. IllegalAction (``problem`` "not_yours", "not_read",
        "hidden_not_read") when the click flips nothing.
        """
        p = self.state.pending
        if not isinstance(p, AwaitFlip) or p.seat != seat:
            raise IllegalAction("no card of this seat is waiting to be flipped", "not_yours", seat=seat)
        if slot_no is None:
            visible = {s.no for row in self.state.view(None).tables[seat].rows for s in row}
            if p.no in visible:
                raise IllegalAction(f"#{p.no} lies face-up; the hidden card was not read",
                                    "hidden_not_read", seat=seat)
        elif slot_no != p.no:
            raise IllegalAction(f"#{slot_no} has not been read", "not_read", seat=seat, no=slot_no)
        events = self.state.apply(Flip(seat, p.no))
        mark = self.kimariji_time if self.kimariji_time is not None else kimariji_at
        if stamp is not None and mark is not None and self.is_human(seat):
            ms = round((stamp - mark) * 1000)
            self.reactions[seat].append(Reaction(seat, p.no, ms, self.hinted))
        return events

    def pass_card(self, seat: int, no: int) -> list[Event]:
        p = self.state.pending
        if not isinstance(p, AwaitPass) or p.giver != seat:
            raise IllegalAction("this seat has nothing to pass now", "not_yours", seat=seat)
        return self.state.apply(Pass(seat, no, p.to))

    def mark_flip(self) -> list[Event]:
        """Scorekeeper: the owner flipped the card being waited for."""
        p = self.state.pending
        if not isinstance(p, AwaitFlip):
            raise IllegalAction("no flip is awaited", "no_flip")
        return self.state.apply(Flip(p.seat, p.no))

    def cpu_action(self) -> Action | None:
        """What the CPU seat the game waits for does now (not applied), or None."""
        seat = self.state.to_act()
        if seat is None or seat not in self.cpus:
            return None
        if isinstance(self.state.pending, AwaitFlip):
            return Flip(seat, self.state.pending.no)   # flipping needs no choice
        return self.cpus[seat].choose(self.state.view(seat), self.state.legal_actions(seat))

    def apply(self, action: Action) -> list[Event]:
        return self.state.apply(action)

    def run_cpus(self, check: bool = False) -> list[Event]:
        """Let CPU seats act at once until a person or the reader is waited for."""
        events: list[Event] = []
        while (action := self.cpu_action()) is not None:
            events += self.state.apply(action)
            if check:
                self.state.check_invariants()
        return events

    # -- results ------------------------------------------------------------------------------------
    def mean_reaction(self, seat: int) -> int | None:
        rts = [r.ms for r in self.reactions[seat]]
        return round(sum(rts) / len(rts)) if rts else None

    def flips(self, seat: int) -> int:
        return sum(1 for e in self.state.log if isinstance(e, (Flipped, Revealed)) and e.seat == seat)

    def win_reason(self) -> Won | None:
        """The event that ended the game (its `reason` and `by`), None while it goes on."""
        return self.state.win_event


def play_out(session: MubeyamaSession, check: str = "reading", step_s: float = 1.0) -> None:
    """Play an all-CPU session to the end, as the app would with no person seated.

    The reader reads `order` front to back; each kimariji sounds *step_s* later
    on the session's clock (a `FakeClock` in the simulator). *check*: "action"
    runs the invariants after every action, "reading" after every reading,
    "end" only at the end.
    """
    state = session.state
    if any(session.is_human(s) for s in range(session.players)):
        raise ValueError("play_out plays all-CPU tables only")
    while not state.is_over():
        if state.to_act() != READER:
            raise RuntimeError(f"the game waits for seat {state.to_act()}, not the reader")
        no = session.next_yomifuda()
        assert no is not None, "an unfinished game has cards left to read"
        session.read(no)
        advance = getattr(session.clock, "advance", None)
        if advance is not None:
            advance(step_s)
        session.kimariji_sounded(no)
        session.run_cpus(check=check == "action")
        if check == "reading":
            state.check_invariants()
    state.check_invariants()


def new_session(variant: Any, seed: int | str, seats: tuple[str, ...],
                options: Mapping[str, Any] | None = None, clock: Clock = SYSTEM) -> MubeyamaSession:
    """The registry's entry: a session for *variant* (a registry `Variant` or its id).

    *options*: ``stakes`` (`Stakes`), ``yaku`` (`YakuSets`), ``scorekeeper``,
    ``layouts``, ``hint_delay_s``; the registry's own option keys (``ruleset``,
    ``hidden_card``) are facts of the variant and are ignored here.
    """
    variant_id = getattr(variant, "variant", variant)
    opts = {k: v for k, v in dict(options or {}).items()
            if k in ("stakes", "yaku", "scorekeeper", "layouts", "hint_delay_s")}
    return MubeyamaSession(GameConfig(variant=variant_id, seats=tuple(seats), seed=seed, **opts),
                           clock=clock)


__all__ = ["HUMAN", "CPU", "GameConfig", "Reaction", "MubeyamaSession", "new_session", "play_out"]
