"""A floor race (chirashi-dori, sakasama, Genpei, relay) as a pure, clock-driven session.

The judge is `trainer.rules.chirashi.ChirashiState`; the CPUs are
`trainer.players.race_cpu.RaceCpu` (kyōgi's reaction model). The session works
as kyōgi's (`trainer.games.kyogi_session`), whose pieces it reuses: the reading
reports each card's verse starting with the times of its marks
(`verse_started`: ``<verse>_start``, every ``<verse>:mora:K``, ``<verse>_end``,
the verse being the kami-no-ku, or the shimo-no-ku in sakasama karuta) and the
card finishing (`card_finished`); a person's touches come with their clock
stamps (`act(seat, Press(card, stamp))`); times in the engine are ms since the
game began, so a reaction is touch − the mark of the mora completing the
verse's current kimariji; CPU hands are planned from what they hear and land
on `tick()`.

The race for a card closes ``TAKE_GRACE_S`` after the first touch of it (kyōgi's
grace: a later touch can no longer change who took it) or, [decided, see
docs/racing-games.md] when the card's reading ends (`card_finished`): a card
nobody touched by then is put aside. A press while no card is read is refused
(``chirashi.not_reading``): the home games have no early-touch fault.

Genpei: a person who owes a card (the send after a take from the other side,
or the penalty their team gives) chooses it with a press on their side; the
reader holds before the next card until they have (`SendNeeded`,
`ReaderHeld`); a CPU chooses at once.

Every method returns the events it caused and logs them once (`log_for`); each
judged read ends with a `ReadSummary`, and a person's `Reaction` carries their
time, and a `kyogi_session.ReadRecord` for the statistics (kind ``chirashi``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Mapping, Sequence

import poems
from audio.clock import SYSTEM, Clock
from trainer.games.kyogi_session import TAKE_GRACE_S, ReadRecord
from trainer.games.protocol import GameEvent, GameOutcome, IllegalAction, event_kinds, logged
from trainer.players.karuta_cpu import Heard
from trainer.players.race_cpu import RaceCpu, decisive_mora, verse_morae
from trainer.rules import chirashi, shimonoku
from trainer.rules.chirashi import AWAIT_READ, SEND, ChirashiState, RaceOptions, Read, Send, Touch, Touches
from trainer.rules.kyogi import JUDGE_WINDOW_MS

HUMAN, CPU = "human", "cpu"
READY, PLAY, OVER = "ready", "play", "over"


# -- the session's events ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PhaseChanged(GameEvent):
    kind: ClassVar[str] = "chirashi.phase"
    phase: str


@dataclass(frozen=True)
class TouchLanded(GameEvent):
    kind: ClassVar[str] = "chirashi.touch"
    seat: int
    card: int
    time_ms: int


@dataclass(frozen=True)
class Reaction(GameEvent):
    """A person's read: their time from the kimariji mark (None: no touch), fault, take."""
    kind: ClassVar[str] = "chirashi.reaction"
    seat: int
    poem: int
    ms: int | None
    fault: bool
    taken: bool
    record: ReadRecord | None


@dataclass(frozen=True)
class ReadSummary(GameEvent):
    """One judged read for the log: the poem, its kimariji as it stood, who took it and in
    how many ms, and who faulted."""
    kind: ClassVar[str] = "chirashi.summary"
    number: int
    poem: int
    kimariji: str
    taker: int | None
    reaction_ms: int | None
    faulted: tuple[int, ...]


@dataclass(frozen=True)
class SendNeeded(GameEvent):
    kind: ClassVar[str] = "chirashi.send_needed"
    seat: int
    cards: int


@dataclass(frozen=True)
class ReaderHeld(GameEvent):
    kind: ClassVar[str] = "chirashi.hold"
    reason: str


@dataclass(frozen=True)
class ReaderReleased(GameEvent):
    kind: ClassVar[str] = "chirashi.release"


SESSION_EVENTS = (PhaseChanged, TouchLanded, Reaction, ReadSummary, SendNeeded, ReaderHeld, ReaderReleased)
EVENT_TYPES = {**chirashi.EVENT_TYPES, **shimonoku.EVENT_TYPES, **event_kinds(*SESSION_EVENTS)}
SESSION_REFUSALS = ("chirashi.not_a_person", "chirashi.not_playing", "chirashi.not_a_session_action")
REFUSALS = tuple(dict.fromkeys(chirashi.REFUSALS + shimonoku.REFUSALS + SESSION_REFUSALS))


@dataclass(frozen=True)
class Press:
    """A press on `card`, stamped on the session clock: a touch, or the card a Genpei send moves."""
    card: int
    stamp: float


@dataclass(frozen=True)
class Begin:
    """Begin the game (the reading starts)."""


@dataclass
class Race:
    poem: int
    number: int
    start: float
    kimariji: float
    kimariji_kana: str
    close: float = math.inf
    touches: dict[int, list[Touch]] = field(default_factory=dict)
    landed: set[tuple[int, Touch]] = field(default_factory=set)

    def take_at(self, t: float) -> None:
        self.close = min(self.close, t + TAKE_GRACE_S)


def verse_mark_names(poem: int, verse: str) -> tuple[str, ...]:
    """The programme marks a read's `verse_started` needs."""
    n = len(verse_morae(poem, verse))
    return (f"{verse}_start", *(f"{verse}:mora:{k}" for k in range(n)), f"{verse}_end")


def kimariji_kana(poem: int, read: Sequence[int], verse: str) -> str:
    """The verse's current kimariji as heard (morae up to the decisive one)."""
    return "".join(verse_morae(poem, verse)[:decisive_mora(poem, read, verse) + 1])




class ChirashiSession:
    """One floor race: any seats, each "human" or "cpu", on `clock`."""

    def __init__(self, seed: object, *, seats: Sequence[str], options: RaceOptions = RaceOptions(),
                 clock: Clock = SYSTEM, cpu_level: str | Sequence[str] = "club",
                 judge_window_ms: int = JUDGE_WINDOW_MS):
        if not seats or any(s not in (HUMAN, CPU) for s in seats):
            raise ValueError(f"each seat is 'human' or 'cpu', not {seats!r}")
        self.seed = seed
        self.seats = tuple(seats)
        self.clock = clock
        self.options = replace(options, simultaneous_ms=max(0, int(judge_window_ms)))
        self.verse = options.verse
        self.state: ChirashiState = chirashi.new_game(len(seats), seed, self.options)
        self.order = self.state.reader_order()
        levels = [cpu_level] * len(seats) if isinstance(cpu_level, str) else list(cpu_level)
        if len(levels) != len(seats):
            raise ValueError(f"{len(seats)} seats need {len(seats)} levels, not {len(levels)}")
        self.levels = tuple(levels)
        self.cpus = {s: RaceCpu(levels[s], s, seed, len(seats), self.options.teams, self.verse)
                     for s in range(len(seats)) if seats[s] == CPU}
        reach = getattr(self.state, "reach", None)
        for s, cpu in self.cpus.items():
            cpu.reach = None if reach is None else reach(s)
            cpu.area_rows = getattr(self.state, "area_rows", None)     # shimonoku: it kneels at its area
        self.phase = READY
        self.epoch = 0.0
        self.race: Race | None = None
        self.reactions: list[int] = []
        self.log: list[GameEvent] = list(self.state.log)
        self._depth = 0

    @property
    def people(self) -> tuple[int, ...]:
        return tuple(s for s, kind in enumerate(self.seats) if kind == HUMAN)

    def ms(self, t: float) -> int:
        return round((t - self.epoch) * 1000)

    @logged
    def begin(self) -> list[GameEvent]:
        if self.phase != READY:
            return []
        self.phase = PLAY
        self.epoch = self.clock.now()
        return [PhaseChanged(PLAY)]

    # -- the reading -----------------------------------------------------------------------------
    @logged
    def verse_started(self, poem: int, marks: Mapping[str, float | None]) -> list[GameEvent]:
        """The read verse of `poem` began to sound; `marks` (`verse_mark_names`) on the clock."""
        if self.phase != PLAY or poem not in self.order:
            return []
        now = self.clock.now()
        v = self.verse
        start = _mark(marks, f"{v}_start", _mark(marks, "kami_start", now))
        events: list[GameEvent] = []
        if self.race is not None:
            events += self.judge(at=start)
        if self.phase != PLAY or self.state.phase != AWAIT_READ or self.state.reader_next() != poem:
            return events
        decisive = decisive_mora(poem, self.state.read, v)
        kima = max(start, _mark(marks, f"{v}:mora:{decisive}", now))
        kana = kimariji_kana(poem, self.state.read, v)
        read = self.state.apply(Read(self.ms(start), self.ms(kima)))
        events += read
        if self.state.phase != chirashi.TOUCHES:     # everybody sits out: judged untouched at once
            judged = next(e for e in read if isinstance(e, chirashi.Judged))
            return events + [ReadSummary(judged.number, poem, kana, None, None, ())] + self._settle()
        self.race = race = Race(poem, len(self.state.read) + 1, start, kima, kana)
        morae = verse_morae(poem, v)
        onsets = tuple(self.ms(_mark(marks, f"{v}:mora:{k}", start + 0.2 * k)) for k in range(len(morae)))
        heard = Heard(morae, onsets, self.ms(kima))
        for s in self.state.eligible():
            race.touches[s] = []
            if s in self.cpus:
                race.touches[s] = list(self.cpus[s].touches(self.state.view(s), heard))
                for t in race.touches[s]:
                    if t.card == poem:
                        race.take_at(self.epoch + t.time_ms / 1000)
        return events

    @logged
    def card_finished(self, poem: int) -> list[GameEvent]:
        """The card's reading ended: an open race is judged (an untouched card is put aside)."""
        if self.phase == PLAY and self.race is not None and self.race.poem == poem:
            return self.judge()
        return []

    @logged
    def reading_finished(self) -> list[GameEvent]:
        return self.judge() if self.phase == PLAY and self.race is not None else []

    # -- touches ---------------------------------------------------------------------------------
    @logged
    def touch(self, seat: int, card: int, stamp: float) -> list[GameEvent]:
        race = self.race
        if race is None or self.phase != PLAY or seat not in race.touches:
            return []
        t = Touch(card, self.ms(stamp))
        race.touches[seat].append(t)
        if card == race.poem:
            race.take_at(stamp)
        return [TouchLanded(seat, card, t.time_ms)]

    @logged
    def tick(self, paused: bool = False) -> list[GameEvent]:
        race = self.race
        if race is None:
            return []
        now = self.clock.now()
        events: list[GameEvent] = []
        for s in self.cpus:
            for t in sorted(race.touches.get(s, ()), key=lambda t: t.time_ms):
                if (s, t) not in race.landed and self.epoch + t.time_ms / 1000 <= now:
                    race.landed.add((s, t))
                    events.append(TouchLanded(s, t.card, t.time_ms))
        if paused or now < race.close:
            return events
        return events + self.judge()

    def next_due(self) -> float | None:
        race = self.race
        if self.phase != PLAY or race is None:
            return None
        times = [self.epoch + t.time_ms / 1000 for s in self.cpus for t in race.touches.get(s, ())
                 if (s, t) not in race.landed]
        if race.close < math.inf:
            times.append(race.close)
        return min(times) if times else None

    # -- judging ---------------------------------------------------------------------------------
    @logged
    def judge(self, at: float | None = None) -> list[GameEvent]:
        race, self.race = self.race, None
        if race is None:
            return []
        close_ms = self.ms(min(race.close, self.clock.now() if at is None else at))
        events: list[GameEvent] = []
        for s in sorted(race.touches):
            events += self.state.apply(Touches(s, tuple(t for t in race.touches[s] if t.time_ms <= close_ms)))
        taken = next(e for e in events if isinstance(e, chirashi.Judged))
        take = next((e for e in events if isinstance(e, chirashi.Taken)), None)
        faulted = tuple(sorted({e.seat for e in events if isinstance(e, chirashi.Faulted)}))
        for s in self.people:
            if s in race.touches:
                events.append(self._reaction(race, s, taken.taker == s, s in faulted))
        events.append(ReadSummary(taken.number, race.poem, race.kimariji_kana, taken.taker,
                                  None if take is None else take.reaction_ms, faulted))
        return events + self._settle()

    def _reaction(self, race: Race, seat: int, took: bool, fault: bool) -> Reaction:
        mine = race.touches[seat]
        first = min((t.time_ms for t in mine if t.card == race.poem), default=None) if took else \
            min((t.time_ms for t in mine), default=None)
        ms = None if first is None else first - self.ms(race.kimariji)
        if took and ms is not None:
            self.reactions.append(ms)
        answer = "take" if took else "fault" if fault else "late" if mine else "missed"
        record = ReadRecord(card=race.poem, correct=took, answer=answer,
                            reaction_ms=None if ms is None else float(ms), fault="otetsuki" if fault else None)
        return Reaction(seat, race.poem, ms, fault, took, record)

    def _settle(self) -> list[GameEvent]:
        """Genpei's owed cards: a CPU sends at once; a person is asked while the reader holds."""
        events: list[GameEvent] = []
        while self.state.phase == SEND:
            giver, _, cards = self.state.view(0).owing  # type: ignore[misc]
            if giver in self.cpus:
                events += self.state.apply(self.cpus[giver].choose_send(self.state.view(giver)))
                continue
            return events + [SendNeeded(giver, cards), ReaderHeld("send")]
        return events + self._after()

    def _after(self) -> list[GameEvent]:
        if self.state.is_over() and self.phase != OVER:
            self.phase = OVER
            self.race = None
            return [PhaseChanged(OVER)]
        return []

    @logged
    def send(self, seat: int, card: int) -> list[GameEvent]:
        events = list(self.state.apply(Send(seat, card)))
        if self.state.phase == SEND:
            return events + self._settle()
        return events + [ReaderReleased()] + self._after()

    @logged
    def abandon(self) -> list[GameEvent]:
        self.race = None
        self.phase = OVER
        return [PhaseChanged(OVER)]

    # -- the Session protocol --------------------------------------------------------------------
    def why_illegal(self, seat: int, action: object) -> IllegalAction | None:
        if seat not in self.people:
            return IllegalAction("chirashi.not_a_person", f"seat {seat!r} is not a person's", seat=seat)
        if isinstance(action, Begin):
            return None if self.phase == READY else IllegalAction("chirashi.not_playing", "the game has begun")
        if not isinstance(action, Press):
            return IllegalAction("chirashi.not_a_session_action", f"not a floor-race action: {action!r}")
        if self.phase != PLAY:
            return IllegalAction("chirashi.not_playing", "the game has not begun or is over")
        if self.state.phase == SEND:
            return self.state.why_illegal(Send(seat, action.card))
        if action.card not in self.state.floor:
            return IllegalAction("chirashi.not_on_floor", f"card {action.card} is not on the floor",
                                 card=action.card)
        if self.race is None:
            return IllegalAction("chirashi.not_reading", "no card is being read")
        if seat not in self.race.touches:
            return IllegalAction("chirashi.sitting_out", f"seat {seat} does not race this read", seat=seat)
        return self.state.why_illegal(Touches(seat, (Touch(action.card, self.ms(action.stamp)),)))

    @logged
    def act(self, seat: int, action: object) -> list[GameEvent]:
        refusal = self.why_illegal(seat, action)
        if refusal is not None:
            raise refusal
        if isinstance(action, Begin):
            return self.begin()
        assert isinstance(action, Press)
        if self.state.phase == SEND:
            return self.send(seat, action.card)
        return self.touch(seat, action.card, action.stamp)

    def _kimariji_sounded(self) -> bool:
        return self.race is None or self.clock.now() >= self.race.kimariji

    def view(self, seat: int) -> chirashi.View:
        view = self.state.view(seat)
        if view.current is not None and not self._kimariji_sounded():
            view = replace(view, current=replace(view.current, kimariji_ms=None))
        return view

    def log_for(self, seat: int) -> list[GameEvent]:
        if not 0 <= seat < len(self.seats):
            raise ValueError(f"there is no seat {seat!r}")
        if self._kimariji_sounded():
            return list(self.log)
        number = self.race.number  # type: ignore[union-attr]
        return [replace(e, kimariji_ms=None) if isinstance(e, chirashi.ReadStarted) and e.number == number
                else e for e in self.log]

    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> GameOutcome | None:
        return self.state.outcome()

    def check_invariants(self) -> None:
        self.state.check_invariants()

    def mean_reaction(self) -> int | None:
        return round(sum(self.reactions) / len(self.reactions)) if self.reactions else None


def _mark(marks: Mapping[str, float | None], name: str, default: float) -> float:
    t = marks.get(name)
    return default if t is None else t


def race_options(variant: Any, options: Mapping[str, Any]) -> RaceOptions:
    """The variant's rules (registry options) with the caller's changes."""
    names = {"game", "verse", "otetsuki", "relay", "relay_every", "nanae", "teppa_sender", "chonchon", "balance"}
    merged = {**dict(getattr(variant, "options", {}) or {}), **dict(options)}
    return RaceOptions(**{k: v for k, v in merged.items() if k in names})


def new_session(variant: Any, seed: object, seats: Sequence[str], options: Mapping[str, Any]) -> ChirashiSession:
    """The registry's constructor: `options` may give ``cpu_level`` (one, or one per seat
    separated by commas), ``clock``, ``judge_window_ms`` and the rules' options."""
    level = str(options.get("cpu_level", "club"))
    levels: str | list[str] = [p.strip() for p in level.split(",")] if "," in level else level
    return ChirashiSession(seed, seats=tuple(seats), options=race_options(variant, options),
                           clock=options.get("clock", SYSTEM), cpu_level=levels,
                           judge_window_ms=int(options.get("judge_window_ms", JUDGE_WINDOW_MS)))


# -- the reading without sound (simulator, tests, CPU-only tables) ----------------------------------

MA_S, PAUSE_S, MORA_S, PHRASE_GAP_S, YOIN_S = 1.0, 1.0, 0.2, 0.15, 0.9


class VerseReader:
    """The reading laid out by arithmetic (kyōgi's nominal timing: 200 ms a mora, 150 ms between
    phrases, 900 ms yoin, 1 s pause and ma) for `play_out`: the game begins, then each card's
    verse starts (its marks) and the card ends. In sakasama only the shimo-no-ku is read."""

    def __init__(self, order: Sequence[int], verse: str = "kami"):
        self.order = list(order)
        self.verse = verse
        self.index = 0
        self.verse_next = True
        self.done = False
        self.t = MA_S                       # seconds from the game's start
        self._marks: tuple[tuple[int, float], tuple[dict[str, float], float]] | None = None

    def _phrases(self, poem: int, verse: str) -> list[list[str]]:
        p = poems.get(poem)
        return p.kami_phrase_morae() if verse == "kami" else [poems.morae(s) for s in p.shimo_sound]

    def marks(self, poem: int) -> tuple[dict[str, float], float]:
        """The read's marks (seconds from the game's start) and when the card ends."""
        key = (poem, self.t)
        if self._marks is None or self._marks[0] != key:
            self._marks = (key, self._lay_out(poem))
        return self._marks[1]

    def _lay_out(self, poem: int) -> tuple[dict[str, float], float]:
        t, k = self.t, 0
        out = {f"{self.verse}_start": t}
        for i, phrase in enumerate(self._phrases(poem, self.verse)):
            if i:
                t += PHRASE_GAP_S
            for _ in phrase:
                out[f"{self.verse}:mora:{k}"] = t
                t += MORA_S
                k += 1
        out[f"{self.verse}_end"] = t
        if self.verse == "kami":            # the shimo-no-ku follows after the pause
            t += PAUSE_S + sum(len(p) for p in self._phrases(poem, "shimo")) * MORA_S
        return out, t + YOIN_S

    def next_time(self, session: ChirashiSession) -> float | None:
        if self.done or session.is_over():
            return None
        if session.phase == READY:
            return session.clock.now()
        if self.index >= len(self.order):
            return session.clock.now()
        if session.state.phase == SEND:      # the reader holds for a person's send
            return None
        if self.verse_next:
            return session.epoch + self.t
        return session.epoch + self.marks(self.order[self.index])[1]

    def feed(self, session: ChirashiSession) -> list[GameEvent]:
        if session.phase == READY:
            return session.begin()
        if self.index >= len(self.order):
            self.done = True
            return session.reading_finished()
        poem = self.order[self.index]
        marks, end = self.marks(poem)
        if self.verse_next:
            self.verse_next = False
            return session.verse_started(poem, {k: session.epoch + v for k, v in marks.items()})
        self.verse_next = True
        self.index += 1
        self.t = max(end, session.clock.now() - session.epoch) + MA_S
        return session.card_finished(poem)
