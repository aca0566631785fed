"""A kyōgi match as a pure, clock-driven session: what the Match panel draws and the simulator plays.

The rules are ``trainer.rules.kyogi.KyogiState`` (the judge); the opponent is
``trainer.players.karuta_cpu.KarutaCPU``. The session is the judge's clerk and
the time-keeper between them, with no Qt and no audio (only `audio.clock`):

- the deal and the reading order come from the seed, one way (`KyogiState.new`):
  the app and ``karuta simulate kyogi`` deal and read the same cards for a seed;
  a CPU seat arranges its side with its own seeded draw, a person's side starts
  tidily laid out (they rearrange it before the match begins);
- phases: ``arrange`` → (``memorise``) → ``play`` → ``over``;
- inputs are what happens, stamped on the session's clock (seconds, the
  perf_counter scale the player maps the sound onto): the reading reports a
  kami-no-ku starting with the times of its marks (`kami_started`: kami_start,
  every kami:mora:K, kami_end) and the card finishing (`card_finished`: the ma
  begins); the person's touches come with their stamps (`touch`); `tick()` lets
  the session show CPU touches as they land and close races whose time has come;
- all times in the engine are ms since the match began (`epoch`), so a reaction
  is touch − kimariji mark. The kimariji mark of a read is the onset of the
  mora that completes the card's *current* kimariji given every yomifuda read
  so far, karafuda too (`poems.kimariji.current`); the CPU hears the same mark;
- the race for a card stays open, as on a real floor, until the next kami-no-ku
  starts: the shimo-no-ku and the ma included (a late take still takes, a late
  touch during a karafuda is still a fault). It closes sooner once a take is
  decided: ``TAKE_GRACE_S`` after the first touch of the read card (later
  touches can no longer change the judgement: a touch after the take is no
  fault); and when the reader must hold before the next card: when judging now
  would leave a person owing cards as the card finishes (they choose the
  okurifuda in the ma while the reader waits), or when the person asks 待った
  (then ``NO_TAKE_GRACE_S`` after the kami-no-ku, the old rule);
- once a race is judged, a touch in the ma (before the next kami-no-ku) is an
  early touch, a fault judged with the next read [AJKA]; a touch during the
  shimo-no-ku after a decided take is nothing;
- what the person sees: a take's reaction as soon as it is decided; a fault
  that no later touch can undo (any touch while a karafuda is read, a touch of
  the territory where the card is not before anyone took it) at once, as a
  provisional `Reaction` (``final=False``); the judged `Reaction` when the race
  closes. Then the statistics record (`ReadRecorded`), and owed cards are
  sent: a CPU sends at once, a person chooses (`OkurifudaNeeded`, then
  `choose_okurifuda`);
- 待った (`toggle_wait`): the reader holds; between reads the person may
  rearrange their side (`rearrange`);
- `cards_per_side` (1-25): an end-game practice (4 v 4) deals the first N of each
  seat's 25 from the same seeded deal, so 25 is exactly the full match;
- every judged read leaves a `ReviewRow` in `review` (both seats' times, faults,
  who took it, cards sent): the per-card review after the match.

Every method returns the events it caused (`GameEvent` subclasses, kinds
``kyogi.…``: the engine's, `trainer.rules.kyogi.EVENT_TYPES`, and the session's
below); the panel draws them, the simulator counts them; every judged read
ends with a `ReadSummary` (the log's line, worded by `trainer.text.kyogi`).

The session follows the table protocol (`trainer.games.protocol.Session`): a
person's `act(seat, action)` (`Press` on a card: the session decides whether it
is a touch or the okurifuda chosen; `ToggleWait`, `LayOut`, `Memorise`,
`Begin`) or `IllegalAction` with a reason id (`REFUSALS`), `why_illegal`,
`tick`/`next_due` (the memorisation period's swing notice and end, CPU hands
landing, races closing), `view(seat)`/`log_for(seat)` (the kimariji mark kept
back until it has sounded), `is_over`/`outcome`; `result(seat)` is the result
screen's figures. The reading is fed by the audio driver in the app and by
`trainer.sim.kyogi_sim.ProgrammeReader` (a `Reader`) in the simulator, both
through `kami_started` / `card_finished` / `reading_finished`.
"""
from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

import poems
import poems.kimariji
from audio.clock import SYSTEM, Clock
from trainer.games.protocol import GameEvent, GameOutcome, IllegalAction, event_kinds, logged
from trainer.players.karuta_cpu import Heard, KarutaCPU
from trainer.rules import kyogi
from trainer.rules.kyogi import (
    Arrange,
    CurrentRead,
    Judged,
    KyogiState,
    Outcome,
    Phase,
    Read,
    Rules,
    Send,
    Touch,
    Touches,
    View,
)
from trainer.rules.territory import Territory

HUMAN, CPU = "human", "cpu"
TAKE_GRACE_S = 0.25        # the race stays open this long after the first take
NO_TAKE_GRACE_S = 1.0      # with 待った: this long after the kami-no-ku if nobody took it
SWING_NOTICE_S = 120.0     # practice swings (素振り) are allowed in the memorisation's last 2 minutes

ARRANGE, MEMORISE, PLAY, OVER = "arrange", "memorise", "play", "over"


# -- the session's own events ------------------------------------------------------------------

@dataclass(frozen=True)
class PhaseChanged(GameEvent):
    kind: ClassVar[str] = "kyogi.phase"
    phase: str


@dataclass(frozen=True)
class RaceOpened(GameEvent):
    """The `number`-th yomifuda, `poem`, began; its kimariji is now `kimariji` (was `was`)."""
    kind: ClassVar[str] = "kyogi.race"
    number: int
    poem: int
    kimariji: str
    was: str
    kimariji_ms: int | None   # None in a seat's log until it has sounded


@dataclass(frozen=True)
class TouchLanded(GameEvent):
    """A hand reached a card (a person's at once, a CPU's when its time comes)."""
    kind: ClassVar[str] = "kyogi.touch"
    seat: int
    card: int
    time_ms: int


@dataclass(frozen=True)
class EarlyTouch(GameEvent):
    """A touch in the ma, before the next kami-no-ku: judged with it as a fault [AJKA]."""
    kind: ClassVar[str] = "kyogi.early"
    seat: int
    card: int
    time_ms: int


@dataclass(frozen=True)
class Reaction(GameEvent):
    """What a person's screen shows: their time from the kimariji mark (None if they did
    not touch), whether it was a fault, whether they took it; `final` once the read is
    judged, else a fault shown the moment it became certain."""
    kind: ClassVar[str] = "kyogi.reaction"
    seat: int
    poem: int
    ms: int | None
    fault: bool
    taken: bool
    kimariji: str
    was: str
    final: bool = True


@dataclass(frozen=True)
class ReadRecord:
    """One statistics trial (kind "match"): a read that concerned the person, a card on the
    floor or a fault of theirs. The UI hands it to the statistics store."""
    card: int
    correct: bool
    answer: str                  # take, fault, late (touched, not first), missed
    reaction_ms: float | None
    fault: str | None            # FaultKind value


@dataclass(frozen=True)
class ReviewRow:
    """One judged read, for the review after the match: both seats' times from the
    kimariji mark (a faulting seat's first touch when it did not take), their faults
    (FaultKind values), who took it, and the cards sent after it."""
    number: int                                  # 1-based position among the yomifuda read
    poem: int
    kimariji: str                                # the kimariji as it stood when read
    owner: int | None                            # the side the card lay on (None: karafuda)
    taker: int | None
    reaction_ms: tuple[int | None, int | None]
    faults: tuple[tuple[str, ...], tuple[str, ...]]
    giver: int | None
    cards_owed: int
    late_ms: tuple[int | None, int | None] = (None, None)
    """A seat's touch after the other seat had taken the card (no fault, no take): its time."""

    @property
    def karafuda(self) -> bool:
        return self.owner is None

    def lost(self, seat: int) -> bool:
        """The card was on the floor and the other seat took it."""
        return self.taker is not None and self.taker != seat


@dataclass(frozen=True)
class ReadRecorded(GameEvent):
    kind: ClassVar[str] = "kyogi.record"
    seat: int
    record: ReadRecord


@dataclass(frozen=True)
class OkurifudaNeeded(GameEvent):
    """A person owes `cards` cards: they pick each one on their side; the reader holds."""
    kind: ClassVar[str] = "kyogi.okuri_needed"
    seat: int
    cards: int


@dataclass(frozen=True)
class ReaderHeld(GameEvent):
    """The reader must hold: ``okuri`` before the next card, ``wait`` (待った) at once."""
    kind: ClassVar[str] = "kyogi.hold"
    reason: str


@dataclass(frozen=True)
class ReaderReleased(GameEvent):
    kind: ClassVar[str] = "kyogi.release"


@dataclass(frozen=True)
class RearrangeAllowed(GameEvent):
    """The person waits (待った) between reads: they may move their own cards."""
    kind: ClassVar[str] = "kyogi.rearrange"
    seat: int


@dataclass(frozen=True)
class SwingsAllowed(GameEvent):
    """The memorisation period's last `seconds`: practice swings (素振り) are allowed."""
    kind: ClassVar[str] = "kyogi.swings"
    seconds: float


@dataclass(frozen=True)
class MemorisationOver(GameEvent):
    """The memorisation period is over: the table starts the reading (`begin`)."""
    kind: ClassVar[str] = "kyogi.memorised"


@dataclass(frozen=True)
class ReadSummary(GameEvent):
    """One judged read, for the match's log: the `number`-th yomifuda `poem`, its kimariji
    as it stood (`kimariji`, historical kana), who took it, each seat's time from the
    kimariji mark (its take's, or a faulting seat's first touch) and whether it faulted,
    and the faults as (seat, FaultKind value)."""
    kind: ClassVar[str] = "kyogi.summary"
    number: int
    poem: int
    kimariji: str
    karafuda: bool
    taker: int | None
    reaction_ms: tuple[int | None, int | None]
    faulted: tuple[bool, bool]
    faults: tuple[tuple[int, str], ...]
    late_ms: tuple[int | None, int | None] = (None, None)     # touches after the other seat took it


SESSION_EVENTS = (PhaseChanged, RaceOpened, TouchLanded, EarlyTouch, Reaction, ReadRecorded,
                  OkurifudaNeeded, ReaderHeld, ReaderReleased, RearrangeAllowed, SwingsAllowed,
                  MemorisationOver, ReadSummary)
EVENT_TYPES = {**kyogi.EVENT_TYPES, **event_kinds(*SESSION_EVENTS)}
"""Every event kind a kyōgi match reports: the engine's and the session's."""


# -- what a seat does (`act`) ----------------------------------------------------------------------

@dataclass(frozen=True)
class Press:
    """A press on `card` on the floor, stamped on the session clock when it happened. The
    session decides what it is: the okurifuda chosen while the seat owes cards, else a touch."""
    card: int
    stamp: float


@dataclass(frozen=True)
class ToggleWait:
    """待った, or going on again."""


@dataclass(frozen=True)
class LayOut:
    """The seat's side laid out anew: before the match, or between reads while waiting."""
    side: Territory


@dataclass(frozen=True)
class Memorise:
    """Start the memorisation period (暗記時間) of `seconds`."""
    seconds: float


@dataclass(frozen=True)
class Begin:
    """Begin the match now (memorisation skipped or over)."""


SessionAction = Press | ToggleWait | LayOut | Memorise | Begin

SESSION_REFUSALS = ("kyogi.not_a_person", "kyogi.not_playing", "kyogi.setup_over",
                    "kyogi.not_a_session_action")
REFUSALS = tuple(dict.fromkeys(kyogi.REFUSALS + SESSION_REFUSALS))
"""Every reason id a kyōgi match refuses with: the engine's and the session's."""


@dataclass(frozen=True)
class MatchResult:
    """The match as a seat's result screen shows it (finished or abandoned)."""
    finished: bool
    won: bool
    left: tuple[int, int]            # cards left: this seat's, the other's
    taken: tuple[int, int]
    faults: int                      # this seat's faults
    mean_reaction_ms: int | None     # over this seat's takes

    @property
    def margin(self) -> int:
        return abs(self.left[0] - self.left[1])




# -- the race of one read ----------------------------------------------------------------------

@dataclass
class Race:
    """The read being raced for. Times are on the session clock (seconds)."""
    poem: int
    index: int                       # position in the reading order
    number: int                      # 1-based count of the yomifuda read (the engine's)
    start: float                     # the kami-no-ku began to sound
    kimariji: float                  # the current kimariji's mark
    kimariji_kana: str
    kami_end: float
    close: float = math.inf          # open until the next kami-no-ku, or the first take's grace ends
    touches: tuple[list[Touch], list[Touch]] = field(default_factory=lambda: ([], []))
    landed: set[tuple[int, Touch]] = field(default_factory=set)   # CPU touches already reported
    faults_shown: set[int] = field(default_factory=set)          # seats shown a certain fault

    def take_at(self, t: float) -> None:
        """Someone touched the read card at `t`: the take is decided a grace later."""
        self.close = min(self.close, t + TAKE_GRACE_S)


def _mark(marks: Mapping[str, float | None], name: str, default: float) -> float:
    t = marks.get(name)
    return default if t is None else t


@functools.cache
def kami_morae(poem: int) -> tuple[str, ...]:
    """The kami-no-ku's morae as heard (cached: worked out once per poem)."""
    return tuple(poems.get(poem).kami_morae())


@functools.cache
def mark_names(poem: int) -> tuple[str, ...]:
    """The programme marks a read's inputs need (`kami_started`)."""
    n = len(kami_morae(poem))
    return ("kami_start", *(f"kami:mora:{k}" for k in range(n)), "kami_end")


class KyogiSession:
    """One kyōgi match: seat 0 and seat 1, each "human" or "cpu", on `clock`."""

    def __init__(self, seed: int, *, seats: Sequence[str] = (HUMAN, CPU), clock: Clock = SYSTEM,
                 cpu_level: str | Sequence[str] = "club", cpus: Mapping[int, object] | None = None,
                 sides: Sequence[Territory] | None = None, yomifuda: Sequence[int] | None = None,
                 rules: Rules | None = None, cards_per_side: int = kyogi.CARDS_PER_SIDE):
        """`sides` sets up the floor as given (any number of cards each: an endgame, a short
        test match); `yomifuda` the reading order (all 100); `cpus` opponents in place of
        the level's KarutaCPU (anything with ``arrange``/``touches``/``choose_send``);
        `cards_per_side` deals fewer than 25 each (end-game practice)."""
        if len(seats) != 2 or any(s not in (HUMAN, CPU) for s in seats):
            raise ValueError(f"a kyogi match has two seats, each 'human' or 'cpu', not {seats!r}")
        if not 1 <= cards_per_side <= kyogi.CARDS_PER_SIDE:
            raise ValueError(f"cards per side must be 1 to {kyogi.CARDS_PER_SIDE}, not {cards_per_side}")
        self.cards_per_side = cards_per_side
        self.seed = seed
        self.seats = tuple(seats)
        self.clock = clock
        self.rules = rules or Rules.for_match()     # ties within the judge's window
        self._given = (sides, yomifuda, dict(cpus or {}))
        levels = (cpu_level, cpu_level) if isinstance(cpu_level, str) else tuple(cpu_level)
        self.levels: tuple[str, str] = (levels[0], levels[1])
        self.phase = ARRANGE
        self.epoch = 0.0
        self.race: Race | None = None
        self.early: list[tuple[int, Touch]] = []   # people's touches in the ma, by seat
        self.in_ma = False               # between a card finishing and the next kami-no-ku
        self.waiting = False             # 待った: the person asked the reader to hold
        self.reactions: list[int] = []   # the person's reaction times on their takes
        self.review: list[ReviewRow] = []   # every judged read, in order
        self._pending: tuple[int, dict] | None = None   # a kami-no-ku that began while a card was owed
        self.memorise_end: float | None = None      # the memorisation period's end on the clock
        self._swings_told = False
        self.log: list[GameEvent] = []              # every event, in order (`log_for`)
        self._depth = 0
        self._deal()

    # -- setting up ------------------------------------------------------------------------------
    def _deal(self) -> None:
        sides, yomifuda, cpus = self._given
        self.cpus: dict[int, object] = {}
        for s in kyogi.SEATS:
            if self.seats[s] == CPU:
                self.cpus[s] = cpus.get(s) or KarutaCPU(self.levels[s], s, self.seed)
        dealt = sides
        if sides is None and self.cards_per_side < kyogi.CARDS_PER_SIDE:
            n = self.cards_per_side          # the first n of the full deal: 25 is the full match
            dealt = [Territory.arranged(hand[:n]) for hand in kyogi.deal(self.seed)]
        self.state = KyogiState.new(self.seed, sides=dealt, yomifuda=yomifuda, rules=self.rules)
        self.order = self.state.reader_order()
        self.arrangement: dict[int, Territory] = {}
        for s in kyogi.SEATS:
            cards = self.state.side(s).cards()
            if sides is not None:
                self.arrangement[s] = self.state.side(s)
            elif s in self.cpus:
                self.arrangement[s] = self.cpus[s].arrange(cards)  # type: ignore[attr-defined]
            else:
                self.arrangement[s] = Territory.arranged(cards, random.Random(f"kyogi-arrange:{self.seed}:{s}"))
            if s in self.cpus:
                self.state.apply(Arrange(s, self.arrangement[s].rows()))

    def set_cpu_level(self, level: str) -> bool:
        """Choose the CPU's level for the match about to start (deals its side again: a
        level's CPU arranges in its own way). Refused once the match has begun."""
        if self.phase != ARRANGE:
            return False
        self.levels = (level, level)
        people = {s: self.arrangement[s] for s in kyogi.SEATS if s not in self.cpus}
        self._deal()
        self.arrangement.update(people)
        return True

    @property
    def people(self) -> tuple[int, ...]:
        return tuple(s for s in kyogi.SEATS if self.seats[s] == HUMAN)

    def set_arrangement(self, seat: int, side: Territory) -> None:
        """A person's layout before the match (the same cards laid out anew)."""
        if self.phase not in (ARRANGE, MEMORISE):
            raise IllegalAction("kyogi.setup_over", "the layout before the match is set before it begins")
        if sorted(side.cards()) != sorted(self.state.side(seat).cards()):
            raise IllegalAction("kyogi.wrong_cards", "an arrangement must hold exactly the cards of one's side")
        self.arrangement[seat] = side.copy()

    @logged
    def start_memorisation(self, seconds: float | None = None) -> list[GameEvent]:
        """The memorisation period begins; with `seconds`, the session keeps its time: `tick`
        says when practice swings are allowed (`SwingsAllowed`) and when it is over
        (`MemorisationOver`)."""
        if self.phase != ARRANGE:
            return []
        self.phase = MEMORISE
        self._swings_told = False
        self.memorise_end = None if seconds is None else self.clock.now() + seconds
        return [PhaseChanged(MEMORISE)] + self._memorisation_notices()

    def memorise_left(self) -> float | None:
        """Seconds left of the memorisation period (None: none is running)."""
        if self.phase != MEMORISE or self.memorise_end is None:
            return None
        return max(0.0, self.memorise_end - self.clock.now())

    @property
    def swings_allowed(self) -> bool:
        """Practice swings are allowed: the memorisation period's last `SWING_NOTICE_S`."""
        return self.phase == MEMORISE and self._swings_told

    def _memorisation_notices(self) -> list[GameEvent]:
        left = self.memorise_left()
        if left is None:
            return []
        events: list[GameEvent] = []
        if left <= SWING_NOTICE_S and not self._swings_told:
            self._swings_told = True
            events.append(SwingsAllowed(SWING_NOTICE_S))
        if left <= 0:
            self.memorise_end = None
            events.append(MemorisationOver())
        return events

    @logged
    def begin(self) -> list[GameEvent]:
        """The match begins: the people's layouts go to the judge; the clock's zero is now."""
        if self.phase not in (ARRANGE, MEMORISE):
            return []
        events: list[GameEvent] = []
        for s in self.people:
            events += self.state.apply(Arrange(s, self.arrangement[s].rows()))
        self.phase = PLAY
        self.memorise_end = None
        self.epoch = self.clock.now()
        # until the first yomifuda's kami-no-ku (the joka included) a touch is early: "Touching
        # any Torifuda before the reader starts reading the Yomifuda" is a fault (AJKA)
        self.in_ma = True
        return events + [PhaseChanged(PLAY)]

    def ms(self, t: float) -> int:
        """A clock time as ms since the match began (the engine's time base)."""
        return round((t - self.epoch) * 1000)

    # -- the reading ------------------------------------------------------------------------------
    @logged
    def kami_started(self, poem: int, marks: Mapping[str, float | None]) -> list[GameEvent]:
        """The kami-no-ku of `poem` began to sound; `marks` are its programme marks on the
        clock (`mark_names`), missing ones guessed from now."""
        if self.phase != PLAY or poem not in self.order:
            return []                   # the joka is not a yomifuda: touching during it is early
        self.in_ma = False
        now = self.clock.now()
        start = _mark(marks, "kami_start", now)       # when it sounded, not when we heard of it
        events: list[GameEvent] = []
        if self.race is not None:                     # the last read's race ends here
            events += self.judge(at=start)
        if self.state.phase is Phase.OKURI:           # a person owes cards: this read waits for them
            self._pending = (poem, dict(marks))
            return events
        if self.phase != PLAY or self.state.phase is not Phase.AWAIT_READ:
            return events
        index = self.order.index(poem)
        cur = poems.kimariji.current(poem, self.state.read)
        kima = max(start, _mark(marks, f"kami:mora:{cur.mora}", now))
        kami_end = _mark(marks, "kami_end", now + 3.0)
        events += self.state.apply(Read(self.ms(start), self.ms(kima)))
        race = Race(poem, index, len(self.state.read) + 1, start, kima, cur.kana, kami_end)
        for seat, t in self.early:      # each person's own early touches, theirs alone
            race.touches[seat].append(t)
        self.early = []
        heard = self._heard(poem, marks, kima)
        for s, cpu in self.cpus.items():
            planned = cpu.touches(self.state.view(s), heard).touches  # type: ignore[attr-defined]
            race.touches[s].extend(planned)
            takes = [t.time_ms for t in planned if t.card == poem]
            if takes:
                race.take_at(self.epoch + min(takes) / 1000)
        self.race = race
        events.append(RaceOpened(len(self.state.read) + 1, poem, cur.kana, poems.get(poem).kimariji,
                                 self.ms(kima)))
        return events

    def _heard(self, poem: int, marks: Mapping[str, float | None], kima: float) -> Heard:
        morae = kami_morae(poem)
        times = tuple(self.ms(_mark(marks, f"kami:mora:{k}", kima)) for k in range(len(morae)))
        return Heard(morae, times, self.ms(kima))

    @logged
    def card_finished(self, poem: int) -> list[GameEvent]:
        """The card's shimo-no-ku ended: the ma begins. The race stays open through it,
        unless judging now leaves a person owing cards: then it is judged now and they
        choose the okurifuda while the reader waits before the next card."""
        if self.phase != PLAY:
            return []
        self.in_ma = True
        if self.race is not None and self._person_would_owe():
            return self.judge()
        return []

    def _person_would_owe(self) -> bool:
        if not self.people:          # CPUs send at once: nobody makes the reader wait
            return False
        trial = self.state.clone()
        now_ms = self.ms(self.clock.now())
        for s in kyogi.SEATS:
            trial.apply(Touches(s, tuple(t for t in self.race.touches[s] if t.time_ms <= now_ms)))  # type: ignore[union-attr]
        return trial.phase is Phase.OKURI and trial.owing[0] in self.people  # type: ignore[index]

    @logged
    def reading_finished(self) -> list[GameEvent]:
        """The reader's stack ran out: an open race is judged."""
        if self.phase == PLAY and not self.state.is_over() and self.race is not None:
            return self.judge()
        return []

    # -- touches -------------------------------------------------------------------------------------
    @logged
    def touch(self, card: int, stamp: float, seat: int | None = None) -> list[GameEvent]:
        """A person's press on `card`, stamped on the clock when it happened."""
        seat = self.people[0] if seat is None else seat
        if self.phase != PLAY:
            return []
        touch = Touch(card, self.ms(stamp))
        events: list[GameEvent] = [TouchLanded(seat, card, touch.time_ms)]
        race = self.race
        if race is None:
            if self.in_ma:           # before the next reading starts: a fault (AJKA)
                self.early.append((seat, touch))
                events.append(EarlyTouch(seat, card, touch.time_ms))
            return events            # during the shimo-no-ku after a judged read: nothing
        race.touches[seat].append(touch)
        if card == race.poem:
            race.take_at(stamp)
        elif seat not in race.faults_shown and self._certain_fault(race, touch):
            race.faults_shown.add(seat)
            first = min(t.time_ms for t in race.touches[seat])
            events.append(Reaction(seat, race.poem, first - self.ms(race.kimariji), True, False,
                                   race.kimariji_kana, poems.get(race.poem).kimariji, final=False))
        return events

    @logged
    def touch_before_reading(self, card: int, stamp: float, seat: int) -> list[GameEvent]:
        """A person's touch stamped before the open read's kami-no-ku began (online: during the
        joka, reported once read 1 was released): "Touching any Torifuda before the reader
        starts reading the Yomifuda" is a fault, judged with this read as an early touch in
        the ma is [AJKA]. A touch at or after the start is an ordinary `touch`."""
        race = self.race
        if self.phase != PLAY or race is None or stamp >= race.start:
            return self.touch(card, stamp, seat)
        touch = Touch(card, self.ms(stamp))
        race.touches[seat].append(touch)
        return [TouchLanded(seat, card, touch.time_ms), EarlyTouch(seat, card, touch.time_ms)]

    def _certain_fault(self, race: Race, touch: Touch) -> bool:
        """No later touch can undo this fault: a karafuda is read, or the touch is in the
        territory where the card is not and nobody has touched the card before it (the
        CPU's hands are planned, so their takes are known)."""
        owner = self.state.side_of(race.poem)
        start_ms = self.ms(race.start)
        if touch.time_ms < start_ms:
            return False
        if any(t.card == race.poem and start_ms <= t.time_ms <= touch.time_ms
               for ts in race.touches for t in ts):
            return False              # the card was already taken: no fault
        return owner is None or self.state.side_of(touch.card) != owner

    @logged
    def tick(self, paused: bool = False) -> list[GameEvent]:
        """Everything due by the clock now: the memorisation period's notices; CPU touches
        that have landed; the race judged once its time has come (not while the reading is
        `paused`)."""
        if self.phase == MEMORISE:
            return self._memorisation_notices()
        race = self.race
        if race is None:
            return []
        now = self.clock.now()
        events: list[GameEvent] = []
        for s in self.cpus:
            for t in sorted(race.touches[s], key=lambda t: t.time_ms):
                if (s, t) not in race.landed and self.epoch + t.time_ms / 1000 <= now:
                    race.landed.add((s, t))
                    events.append(TouchLanded(s, t.card, t.time_ms))
        if paused or now < race.close:
            return events
        return events + self.judge()

    def next_due(self) -> float | None:
        """The clock time of the next `tick` with something to do: a memorisation notice, a
        CPU hand landing, the race's close; None while the session waits for the reader or
        a person."""
        if self.phase == MEMORISE and self.memorise_end is not None:
            swing = self.memorise_end - SWING_NOTICE_S
            return swing if not self._swings_told and swing > self.clock.now() else self.memorise_end
        race = self.race
        if self.phase != PLAY or race is None:
            return None
        times = [self.epoch + t.time_ms / 1000 for s in self.cpus for t in race.touches[s]
                 if (s, t) not in race.landed]
        if race.close < math.inf:
            times.append(race.close)
        return min(times) if times else None

    # -- judging -------------------------------------------------------------------------------------
    @logged
    def judge(self, at: float | None = None) -> list[GameEvent]:
        """Close the race (at its close, or now / `at` if sooner): both seats' touches up to
        then go to the engine, which judges."""
        race, self.race = self.race, None
        if race is None:
            return []
        close_ms = self.ms(min(race.close, self.clock.now() if at is None else at))
        events: list[GameEvent] = []
        for s in kyogi.SEATS:
            events += self.state.apply(Touches(s, tuple(t for t in race.touches[s] if t.time_ms <= close_ms)))
        outcome = next(e.outcome for e in events if isinstance(e, Judged))
        self.review.append(self._review_row(outcome, race))
        for s in self.people:
            events += self._reaction(outcome, race, s)
        events.append(self._summary(outcome, race))
        return events + self._settle_owing() + self._after_read()

    def _summary(self, outcome: Outcome, race: Race) -> ReadSummary:
        rts = tuple(self._first_ms(outcome, race, s) for s in kyogi.SEATS)
        faulted = tuple(any(f.seat == s for f in outcome.faults) for s in kyogi.SEATS)
        late = tuple(self._late_ms(outcome, race, s) for s in kyogi.SEATS)
        return ReadSummary(len(self.state.read), outcome.poem, race.kimariji_kana, outcome.karafuda,
                           outcome.taker, (rts[0], rts[1]), (faulted[0], faulted[1]),
                           tuple((f.seat, f.kind.value) for f in outcome.faults), (late[0], late[1]))

    def _late_ms(self, outcome: Outcome, race: Race, seat: int) -> int | None:
        """A seat that touched after the other seat took the card, without a fault: its first
        touch's time (statistics store it as "late"; the log and the review say so too)."""
        touched = race.touches[seat]
        if not touched or outcome.taker in (None, seat) or any(f.seat == seat for f in outcome.faults):
            return None
        return min(t.time_ms for t in touched) - self.ms(race.kimariji)

    def _first_ms(self, outcome: Outcome, race: Race, seat: int) -> int | None:
        """A seat's time from the kimariji mark: its take's, or a faulting seat's first touch."""
        rt = outcome.reaction_ms[seat]
        if rt is None and race.touches[seat] and any(f.seat == seat for f in outcome.faults):
            rt = min(t.time_ms for t in race.touches[seat]) - self.ms(race.kimariji)
        return rt

    def _review_row(self, outcome: Outcome, race: Race) -> ReviewRow:
        rts = tuple(self._first_ms(outcome, race, s) for s in kyogi.SEATS)
        faults = tuple(tuple(f.kind.value for f in outcome.faults if f.seat == s) for s in kyogi.SEATS)
        late = tuple(self._late_ms(outcome, race, s) for s in kyogi.SEATS)
        return ReviewRow(len(self.state.read), outcome.poem, race.kimariji_kana, outcome.owner,
                         outcome.taker, (rts[0], rts[1]), (faults[0], faults[1]),
                         outcome.giver, outcome.cards_owed, (late[0], late[1]))

    def _reaction(self, outcome: Outcome, race: Race, seat: int) -> list[GameEvent]:
        rt = self._first_ms(outcome, race, seat)
        faults = [f for f in outcome.faults if f.seat == seat]
        touched = race.touches[seat]
        taken = outcome.taker == seat
        if taken and rt is not None:
            self.reactions.append(rt)
        events: list[GameEvent] = [Reaction(seat, outcome.poem, rt, bool(faults), taken, race.kimariji_kana,
                                            poems.get(outcome.poem).kimariji)]
        if not outcome.karafuda or faults:     # a karafuda nobody touched is no trial
            answer = "take" if taken else "fault" if faults else "late" if touched else "missed"
            events.append(ReadRecorded(seat, ReadRecord(
                card=outcome.poem, correct=taken, answer=answer,
                reaction_ms=None if rt is None else float(rt),
                fault=faults[0].kind.value if faults else None)))
        return events

    def _settle_owing(self) -> list[GameEvent]:
        """Send owed cards: a CPU chooses at once; a person is asked (the reader holds)."""
        events: list[GameEvent] = []
        while self.state.phase is Phase.OKURI:
            giver, _, count = self.state.owing  # type: ignore[misc]
            if giver in self.cpus:
                events += self.state.apply(self.cpus[giver].choose_send(self.state.view(giver)))  # type: ignore[attr-defined]
                continue
            events += [OkurifudaNeeded(giver, count), ReaderHeld("okuri")]
            break
        return events

    @logged
    def choose_okurifuda(self, card: int, seat: int | None = None) -> list[GameEvent]:
        """A person sends `card` of their side; False-y (no events) if it is not theirs to send."""
        seat = self.people[0] if seat is None else seat
        if self.state.phase is not Phase.OKURI or self.state.owing[0] != seat:  # type: ignore[index]
            return []
        if card not in self.state.side(seat):
            return []
        events = list(self.state.apply(Send(seat, card)))
        if self.state.phase is Phase.OKURI:
            return events + self._settle_owing()
        if not self.waiting:         # the person's own wait outlasts the okurifuda
            events.append(ReaderReleased())
        events += self._after_read()
        if self._pending is not None and self.phase == PLAY:
            # The next kami-no-ku began while the okurifuda was owed (a take decided in the
            # last instant of the ma): its race opens now, with the times it sounded at.
            poem, marks = self._pending
            self._pending = None
            events += self.kami_started(poem, marks)
        return events

    def _after_read(self) -> list[GameEvent]:
        if self.state.phase is Phase.OKURI:
            return []
        if self.state.is_over():
            self.phase = OVER
            self.race = None
            return [PhaseChanged(OVER)]
        return self._rearranging()

    # -- 待った and rearranging ------------------------------------------------------------------------
    @property
    def may_rearrange(self) -> bool:
        return self.waiting and self.phase == PLAY and self.state.phase is Phase.AWAIT_READ

    def _rearranging(self) -> list[GameEvent]:
        return [RearrangeAllowed(self.people[0])] if self.may_rearrange and self.people else []

    @logged
    def toggle_wait(self) -> list[GameEvent]:
        """待った: hold the reader; once the read is settled, the person may rearrange their side.
        Again: go on (unless an okurifuda choice still holds the reader)."""
        if self.phase != PLAY:
            return []
        if self.waiting:
            self.waiting = False
            return [] if self.state.phase is Phase.OKURI else [ReaderReleased()]
        self.waiting = True
        if self.race is not None:    # the reader stops: the read is settled 1 s after its kami-no-ku
            self.race.close = min(self.race.close, max(self.clock.now(), self.race.kami_end + NO_TAKE_GRACE_S))
        return [ReaderHeld("wait"), *self._rearranging()]

    @logged
    def rearrange(self, side: Territory, seat: int | None = None) -> list[GameEvent]:
        """The person's side laid out anew, between reads only (else `IllegalAction`)."""
        seat = self.people[0] if seat is None else seat
        if self.phase in (ARRANGE, MEMORISE):
            self.set_arrangement(seat, side)
            return []
        if self.phase != PLAY:
            raise IllegalAction("kyogi.over", "the match is over")
        return list(self.state.apply(Arrange(seat, side.rows())))

    @logged
    def abandon(self) -> list[GameEvent]:
        self.race = None
        self.phase = OVER
        return [PhaseChanged(OVER)]

    # -- for drawing -------------------------------------------------------------------------------
    def side(self, seat: int) -> Territory:
        """A side as it should be drawn: the pending layout before the match, then the judge's."""
        if self.phase in (ARRANGE, MEMORISE):
            return self.arrangement[seat].copy()
        return self.state.side(seat)

    def mean_reaction(self, seat: int | None = None) -> int | None:
        """The mean reaction (ms) over the people's takes (`reactions`), or over `seat`'s."""
        rts = self.reactions if seat is None else [
            row.reaction_ms[seat] for row in self.review
            if row.taker == seat and row.reaction_ms[seat] is not None]
        return round(sum(rts) / len(rts)) if rts else None  # type: ignore[arg-type]

    def result(self, seat: int) -> MatchResult:
        """The match's result as `seat` sees it (finished, or abandoned so far); the mean
        reaction is over that seat's takes."""
        left = self.state.scores()
        other = kyogi.other(seat)
        faults = sum(1 for o in self.state.outcomes for f in o.faults if f.seat == seat)
        return MatchResult(self.state.is_over(), self.state.winner() == seat, (left[seat], left[other]),
                           (len(self.state.taken(seat)), len(self.state.taken(other))), faults,
                           self.mean_reaction(seat))

    # -- the Session protocol (trainer.games.protocol) ---------------------------------------------
    def why_illegal(self, seat: int, action: object) -> IllegalAction | None:
        """The refusal `act(seat, action)` would raise, or None."""
        if seat not in self.people:
            return IllegalAction("kyogi.not_a_person", f"seat {seat!r} is not a person's", seat=seat)
        if isinstance(action, Press):
            if self.phase != PLAY:
                return IllegalAction("kyogi.not_playing", "the match has not begun or is over")
            if self.state.phase is Phase.OKURI and self.state.owing[0] == seat:  # type: ignore[index]
                return self._refusal(kyogi.Send(seat, action.card))
            if self.state.side_of(action.card) is None:
                return IllegalAction("kyogi.not_on_floor", f"card {action.card} is not on the floor",
                                     card=action.card)
            return None
        if isinstance(action, LayOut):
            if self.phase in (ARRANGE, MEMORISE):
                if sorted(action.side.cards()) != sorted(self.state.side(seat).cards()):
                    return IllegalAction("kyogi.wrong_cards",
                                         "an arrangement must hold exactly the cards of one's side")
                return None
            if self.phase != PLAY:
                return IllegalAction("kyogi.over", "the match is over")
            return self._refusal(Arrange(seat, action.side.rows()))
        if isinstance(action, (Memorise, Begin)):
            return None if self.phase in (ARRANGE, MEMORISE) else IllegalAction(
                "kyogi.setup_over", "the match has already begun")
        if isinstance(action, ToggleWait):
            return None if self.phase == PLAY else IllegalAction(
                "kyogi.not_playing", "the match has not begun or is over")
        return IllegalAction("kyogi.not_a_session_action", f"not a kyogi action: {action!r}")

    def _refusal(self, action: kyogi.Action) -> IllegalAction | None:
        try:
            self.state._check(action)
        except IllegalAction as exc:
            return exc
        return None

    @logged
    def act(self, seat: int, action: object) -> list[GameEvent]:
        """A person's action (`Press`, `ToggleWait`, `LayOut`, `Memorise`, `Begin`); its
        events, or `IllegalAction` with nothing changed."""
        refusal = self.why_illegal(seat, action)
        if refusal is not None:
            raise refusal
        if isinstance(action, Press):
            if self.state.phase is Phase.OKURI and self.state.owing[0] == seat:  # type: ignore[index]
                return self.choose_okurifuda(action.card, seat)
            return self.touch(action.card, action.stamp, seat)
        if isinstance(action, LayOut):
            return self.rearrange(action.side, seat)
        if isinstance(action, Memorise):
            return self.start_memorisation(action.seconds)
        if isinstance(action, Begin):
            return self.begin()
        return self.toggle_wait()

    def view(self, seat: int) -> View:
        """What `seat` may see: the judge's view, with the current read's kimariji mark only
        once it has sounded on the clock (before that, the mark would say which card it is)."""
        view = self.state.view(seat)
        if view.current is not None and not self._kimariji_sounded():
            view = replace(view, current=CurrentRead(view.current.number, view.current.start_ms, None))
        return view

    def _kimariji_sounded(self) -> bool:
        return self.race is None or self.clock.now() >= self.race.kimariji

    def log_for(self, seat: int) -> list[GameEvent]:
        """Every event so far as `seat` may know it: the open read's start keeps its poem,
        kimariji and mark to itself until the kimariji has sounded."""
        if seat not in kyogi.SEATS:
            raise ValueError(f"seat is 0 or 1, not {seat!r}")
        if self._kimariji_sounded():
            return list(self.log)
        number = self.race.number  # type: ignore[union-attr]
        out: list[GameEvent] = []
        for e in self.log:
            if isinstance(e, kyogi.ReadStarted) and e.number == number:
                e = replace(e, kimariji_ms=None)
            elif isinstance(e, RaceOpened) and e.number == number:
                e = replace(e, poem=0, kimariji="", was="", kimariji_ms=None)
            out.append(e)
        return out

    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> GameOutcome | None:
        return self.state.outcome()

    def check_invariants(self) -> None:
        self.state.check_invariants()


def new_session(variant, seed: int, seats: Sequence[str], options: Mapping[str, object]) -> KyogiSession:
    """The registry's constructor (`trainer.games.registry`): options may give ``cpu_level``
    (one level, or two separated by a comma) and ``clock``."""
    level = str(options.get("cpu_level", "club"))
    levels = [p.strip() for p in level.split(",")] if "," in level else [level, level]
    clock = options.get("clock", SYSTEM)
    cards = int(options.get("cards_per_side", kyogi.CARDS_PER_SIDE))  # type: ignore[call-overload]
    return KyogiSession(seed, seats=tuple(seats), clock=clock, cpu_level=levels,  # type: ignore[arg-type]
                        cards_per_side=cards)
