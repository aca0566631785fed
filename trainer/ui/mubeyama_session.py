"""One Mubeyama karuta table as the UI plays it: engine, CPU seats, humans' reaction times.

No Qt here: the panel (`mubeyama_panel`) owns the timers and the sound, this
object owns the game. The rules are `trainer.rules.mubeyama`; CPU seats are
`trainer.players.mubeyama_cpu.MubeyamaCpu`, which decide from their own view.

- The reading order is the app reader's own seeded shuffle of the 100
  yomifuda (`poems.shuffled(seed)`), known in advance so the reading can be
  laid out as one programme; the engine accepts any unread ``Read(no)``, as it
  does from a human reader with real yomifuda.
- Hot-seat: each seat is a person or a CPU. A person flips by clicking the
  read card in their own layout; the reaction time is ``perf_counter`` at the
  press minus the moment the kimariji left the speaker, negative when the
  click came before it (as in kyōgi mode). The kimariji is the card's current
  one among the yomifuda not yet read (every card is read in Mubeyama, so they
  shorten as the game goes on), completed at the programme's ``kami:mora:K``.
- Scorekeeper (記録係): people play with real cards; the scorer marks each
  flip and each passed card; no seat is a CPU and nothing is timed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import poems
import poems.kimariji
from poems.yaku import SEED, YakuSets
from trainer.players.mubeyama_cpu import MubeyamaCpu
from trainer.rules.mubeyama import (AwaitFlip, AwaitPass, Event, Flip, Gambling4, Gambling5,
                                    IllegalAction, Izumoji, MubeyamaView, Okayama, Pass, Read,
                                    Ruleset, Stakes, new_game)

HUMAN, CPU = "human", "cpu"

# variant id -> (ruleset name, players, hidden card)
VARIANTS: dict[str, tuple[str, int, bool]] = {
    "okayama4": ("okayama", 4, False),
    "okayama6": ("okayama", 6, False),
    "izumoji5": ("izumoji", 5, False),
    "izumoji6": ("izumoji", 6, False),
    "gambling4": ("gambling4", 4, True),
    "gambling4open": ("gambling4", 4, False),
    "gambling5": ("gambling5", 5, False),
}


@dataclass(frozen=True)
class GameConfig:
    """Everything chosen on the setup page."""

    variant: str = "okayama4"
    seats: tuple[str, ...] = ()
    """HUMAN or CPU per seat; empty: seat 1 a person, the rest CPU."""
    stakes: Stakes = field(default_factory=Stakes)
    yaku: YakuSets = SEED
    seed: int = 0
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
    def ruleset_name(self) -> str:
        return VARIANTS[self.variant][0]

    @property
    def players(self) -> int:
        return VARIANTS[self.variant][1]

    @property
    def hidden_card(self) -> bool:
        return VARIANTS[self.variant][2]

    @property
    def gambling(self) -> bool:
        return self.ruleset_name.startswith("gambling")

    def seat_kinds(self) -> tuple[str, ...]:
        if self.scorekeeper:
            return (HUMAN,) * self.players
        return self.seats or (HUMAN,) + (CPU,) * (self.players - 1)

    def ruleset(self) -> Ruleset:
        name = self.ruleset_name
        if name == "okayama":
            return Okayama()
        if name == "izumoji":
            return Izumoji(yaku=self.yaku)
        if name == "gambling4":
            return Gambling4(stakes=self.stakes, yaku=self.yaku, hidden_card=self.hidden_card)
        return Gambling5(stakes=self.stakes, yaku=self.yaku)


@dataclass(frozen=True)
class Reaction:
    """A person's flip: how long after the kimariji sounded (ms, negative = before)."""
    seat: int
    no: int
    ms: int
    hinted: bool


class TableSession:
    """The game at one table; the panel calls it and redraws from `view`."""

    def __init__(self, config: GameConfig):
        self.config = config
        self.ruleset = config.ruleset()
        self.state = new_game(self.ruleset, config.players, seed=config.seed,
                              layouts=config.layouts)
        self.kinds = config.seat_kinds()
        self.cpus = {s: MubeyamaCpu(s, config.yaku, config.seed)
                     for s, k in enumerate(self.kinds) if k == CPU}
        self.order: list[int] = poems.shuffled(config.seed)
        self.reactions: dict[int, list[Reaction]] = {s: [] for s in range(config.players)}
        self.current: int | None = None          # the yomifuda being read
        self.kimariji: str = ""                  # its kimariji now (historical kana)
        self.kimariji_mora = 0                   # the kami-no-ku mora that completes it
        self.kimariji_time: float | None = None  # perf_counter when its kimariji sounded
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
        read = set(self.state.read)
        return next((no for no in self.order if no not in read), None)

    def waiting_on_cpu(self) -> bool:
        return self.state.to_act() in self.cpus

    # -- the reader -----------------------------------------------------------------------------
    def read(self, no: int) -> list[Event]:
        """The kami-no-ku of *no* began to sound."""
        now = poems.kimariji.current(no, self.state.read)
        events = self.state.apply(Read(no))
        self.current = no
        self.kimariji = now.kana
        self.kimariji_mora = now.mora
        self.kimariji_time = None
        self.hinted = False
        return events

    def kimariji_sounded(self, no: int, at: float) -> None:
        if no == self.current:
            self.kimariji_time = at

    # -- seats ------------------------------------------------------------------------------------
    def flip_at(self, seat: int, slot_no: int | None, stamp: float | None,
                kimariji_at: float | None = None) -> list[Event]:
        """A click on one of *seat*'s slots (*slot_no* None: a face-down hidden card).

        *kimariji_at*: when the kimariji sounds, for a click before it was heard
        (the player predicts the mark); otherwise the time it sounded is used.

        The hidden card may be clicked only when the read card is not among the
        seat's visible cards: what the seat's owner knows without the engine
        telling anyone else. IllegalAction when the click flips nothing.
        """
        p = self.state.pending
        if not isinstance(p, AwaitFlip) or p.seat != seat:
            raise IllegalAction("no card of this seat is waiting to be flipped")
        if slot_no is None:
            visible = {s.no for row in self.state.view(None).tables[seat].rows for s in row}
            if p.no in visible:
                raise IllegalAction(f"#{p.no} lies face-up; the hidden card was not read")
        elif slot_no != p.no:
            raise IllegalAction(f"#{slot_no} has not been read")
        events = self.state.apply(Flip(seat, p.no))
        mark = self.kimariji_time if self.kimariji_time is not None else kimariji_at
        if stamp is not None and mark is not None and self.is_human(seat):
            ms = round((stamp - mark) * 1000)
            self.reactions[seat].append(Reaction(seat, p.no, ms, self.hinted))
        return events

    def pass_card(self, seat: int, no: int) -> list[Event]:
        p = self.state.pending
        if not isinstance(p, AwaitPass) or p.giver != seat:
            raise IllegalAction("this seat has nothing to pass now")
        return self.state.apply(Pass(seat, no, p.to))

    def mark_flip(self) -> list[Event]:
        """Scorekeeper: the owner flipped the card being waited for."""
        p = self.state.pending
        if not isinstance(p, AwaitFlip):
            raise IllegalAction("no flip is awaited")
        return self.state.apply(Flip(p.seat, p.no))

    def cpu_action(self):
        """What the CPU seat the game waits for does now (not applied), or None."""
        seat = self.state.to_act()
        if seat not in self.cpus:
            return None
        if isinstance(self.state.pending, AwaitFlip):
            return Flip(seat, self.state.pending.no)   # flipping needs no choice
        return self.cpus[seat].choose(self.state.view(seat), self.state.legal_actions(seat))

    def apply(self, action) -> list[Event]:
        return self.state.apply(action)

    # -- results ------------------------------------------------------------------------------------
    def mean_reaction(self, seat: int) -> int | None:
        rts = [r.ms for r in self.reactions[seat]]
        return round(sum(rts) / len(rts)) if rts else None

    def flips(self, seat: int) -> int:
        return sum(1 for e in self.state.log if e.kind in ("flip", "reveal") and e.seat == seat)

    def win_reason(self) -> str:
        return next((e.note for e in reversed(self.state.log) if e.kind == "win"), "")


__all__ = ["HUMAN", "CPU", "VARIANTS", "GameConfig", "Reaction", "TableSession"]
