"""The floor races online (chirashi-dori, sakasama, Genpei, relay, Hokkaido shimonoku): read on
each client, touches judged on reaction times by the game's own session.

The same hall as online kyōgi (`trainer.server.race`): the clock estimate, one
card released at a time with its start on each client's clock, ``race.done``
holding the next card, drop-outs, spectators, 待った. What is the game's is
judged by `trainer.games.chirashi_session.ChirashiSession`, the session the
Games tab and `karuta simulate` play: every person's touch is placed on one
programme timeline (the kimariji mark of the read plus the reported reaction)
and handed to the session in programme-time order, the session's clock walked
along them, so its CPU seats' touches (planned when the verse starts, as in
local play) land between the people's exactly where they fall. The same-time
window, the grace after a take, faults, sitting out, Genpei's sends and
penalty cards, relay turns and shimonoku's reach are the session's.

The programme is the nominal reading of the session's own `VerseReader`
(200 ms a mora ...): the read verse (the kami-no-ku; the shimo-no-ku in
sakasama and shimonoku), for a kami-no-ku game the pause and the shimo-no-ku,
the yoin, then the ma. Seats the table's host gave to CPUs (``cpus``) and
seats filled by a ``race.start`` are CPU seats of that session; a person who
resigns or stays away past the wait is replaced by a stand-in CPU of the
table's level, and the game goes on while anybody is left.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from audio.clock import FakeClock
from trainer.games.chirashi_session import (CPU, HUMAN, MA_S, ChirashiSession, Press, VerseReader,
                                            kimariji_kana, new_session)
from trainer.games.protocol import GameEvent
from trainer.games.registry import find
from trainer.players.race_cpu import RaceCpu, decisive_mora
from trainer.rules.chirashi import SEND
from trainer.server import codec
from trainer.server.race_protocol import ReadTimes

FLOOR_GAMES = ("chirashi", "sakasama", "genpei", "relay", "shimonoku")
SPECTATOR_SEAT = -2


class FloorRaceTable:
    """One online floor race: the attributes the hall reads, and the game's own steps."""

    def __init__(self, ident: str, seed: int, host: int, game: str, *, seats: int, cpus: list[int],
                 level: str, speed: float, wait_seconds: float, hold_seconds: float, floor_ms: float,
                 cpu_seat: Any, reads: int | None = None, variant: str | None = None):
        from trainer.server.race import OPEN
        self.game = game
        self.variant = find(game, variant)
        """The registry's variant (shimonoku: ``standard`` or ``nanae``): the session's rules."""
        self.id, self.seed, self.host, self.level = ident, seed, host, level
        self.speed, self.wait_seconds, self.hold_seconds, self.floor_ms = speed, wait_seconds, hold_seconds, floor_ms
        self.cpu_seat = cpu_seat
        """Makes the hall's seat record of a CPU seat (`race.Seat` with ``cpu=True``)."""
        self.seats: list[Any] = [cpu_seat(level) if s in cpus else None for s in range(seats)]
        self.status = OPEN
        self.clock = FakeClock(0.0)        # the programme timeline: seconds from the game's start
        self.session: ChirashiSession | None = None
        self.reader: VerseReader | None = None
        self.read: Any = None
        self.result: dict[str, Any] | None = None
        self.hold_task: Any = None
        self.closed_at: dict[int, float] = {}
        self.watchers: set[Any] = set()
        self.history: list[dict[str, Any]] = []
        self.holds: set[int] = set()
        self.cards, self.karafuda = None, None
        self.private, self.code = False, None     # set by the hall (an invitation code)
        self.began, self.rated = False, False      # the floor races are not rated
        self.stand_ins: list[int] = []             # seats a CPU took over from an absent person
        self.number = 0                            # reads released
        self.max_reads = reads
        """A test server's shortened game: it ends after this many reads, with no winner."""
        self.start_events: list[GameEvent] = []    # what the session said as the read's verse began
        self.raced: list[int] = []
        """The seats that race the card being read (not sitting out, on turn): ``race.judged``'s
        ``raced``, so a client can tell "missed" from "sat out" (public: every view shows it)."""

    def seat_of(self, user: int) -> int | None:
        return next((s for s, seat in enumerate(self.seats)
                     if seat is not None and not seat.cpu and seat.user == user), None)

    def people(self) -> list[int]:
        """The seats whose clients read and race (not the CPUs')."""
        return [s for s, seat in enumerate(self.seats) if seat is not None and not seat.cpu]

    # -- the game --------------------------------------------------------------------------------
    def deal(self) -> None:
        """Every seat taken (people, CPUs): the session is built and begins."""
        kinds = [CPU if seat.cpu else HUMAN for seat in self.seats]
        self.session = new_session(self.variant, self.seed, kinds, {"clock": self.clock, "cpu_level": self.level})
        self.reader = VerseReader(self.session.order, self.session.verse)
        self.session.begin()

    def next_read(self) -> tuple[int, ReadTimes, dict[str, float], int, str] | None:
        """The next card: (poem, its times, its marks, the decisive mora, the kimariji kana);
        None when the game is over or the reader's stack is read through."""
        s, reader = self.session, self.reader
        assert s is not None and reader is not None
        if s.is_over() or s.state.phase == SEND:
            return None
        poem = s.state.reader_next()
        if poem is None:
            return None
        reader.t = max(reader.t, self.clock.now())
        marks, end = reader.marks(poem)
        v = s.verse
        mora = decisive_mora(poem, s.state.read, v)
        times = ReadTimes(marks[f"{v}_start"], max(marks[f"{v}_start"], marks[f"{v}:mora:{mora}"]),
                          marks[f"{v}_end"], end, end + MA_S)
        return poem, times, marks, mora, kimariji_kana(poem, s.state.read, v)

    def start_read(self, poem: int, times: ReadTimes, marks: dict[str, float]) -> list[GameEvent]:
        """The verse begins on the programme: the session opens the race and plans its CPUs."""
        assert self.session is not None and self.reader is not None
        self.clock.set(max(self.clock.now(), times.kami_start))
        self.reader.t = times.next_kami
        events = self.session.verse_started(poem, marks)
        race = self.session.race
        self.raced = sorted(race.touches) if race is not None and race.poem == poem else []
        return events

    def refusal(self, seat: int, card: int, t: float) -> Any:
        """Why a person's touch cannot be raced (the session's IllegalAction), or None."""
        assert self.session is not None
        return self.session.why_illegal(seat, Press(card, t))

    def judge(self, poem: int, times: ReadTimes, touches: list[Any]) -> list[GameEvent]:
        """The read's people's touches to the session in programme-time order, its clock walked
        along them (its CPUs' touches land as the clock passes them), then the card's end."""
        s = self.session
        assert s is not None
        events: list[GameEvent] = []
        for touch in sorted(touches, key=lambda x: (x.t, x.seat, x.card)):
            if s.race is None or touch.t >= times.card_end:
                break
            self.clock.set(max(self.clock.now(), touch.t))
            events += s.tick()
            events += s.touch(touch.seat, touch.card, touch.t)
        self.clock.set(max(self.clock.now(), times.card_end))
        events += s.tick()
        events += s.card_finished(poem)
        return events

    def owing(self) -> tuple[int, int] | None:
        """(the seat that owes, cards) while a person owes a Genpei send, else None."""
        s = self.session
        if s is None or s.state.phase != SEND:
            return None
        giver, _, cards = s.state.view(0).owing  # type: ignore[misc]
        return giver, cards

    def send(self, seat: int, card: int) -> list[GameEvent]:
        """A Genpei send (or penalty card) chosen by its person (IllegalAction: nothing changed)."""
        assert self.session is not None
        return self.session.act(seat, Press(card, self.clock.now()))

    def send_for(self, seat: int) -> list[GameEvent]:
        """The hold ran out with a send not chosen: the seat's first legal card goes."""
        assert self.session is not None
        view = self.session.state.view(seat)
        side = view.owing[1] if view.owing else None  # type: ignore[index]
        mine = sorted(card for card, spot in view.floor if getattr(spot, "side", None) == side)
        for card in mine:
            if self.session.why_illegal(seat, Press(card, self.clock.now())) is None:
                return self.send(seat, card)
        return []

    def stand_in(self, seat: int) -> None:
        """A person left: a CPU of the table's level plays the seat from the next read on."""
        s = self.session
        self.seats[seat] = self.cpu_seat(self.level)
        self.stand_ins.append(seat)
        if s is None:
            return
        cpu = RaceCpu(self.level, seat, s.seed, len(s.seats), s.options.teams, s.verse)
        reach = getattr(s.state, "reach", None)
        cpu.reach = None if reach is None else reach(seat)
        cpu.area_rows = getattr(s.state, "area_rows", None)     # as the session sets its own CPUs
        s.cpus[seat] = cpu
        s.seats = tuple(CPU if k == seat else kind for k, kind in enumerate(s.seats))

    # -- what each audience receives -----------------------------------------------------------
    def view_frame(self, seat: int | None) -> dict[str, Any]:
        assert self.session is not None
        view = self.session.view(0 if seat is None else seat)
        if seat is None:
            view = dataclasses.replace(view, seat=SPECTATOR_SEAT)
        return {"type": "race.view", "table": self.id, "seat": seat, "view": codec.to_json(view),
                "scores": self.scores()}

    def start_frame(self, seat: int) -> dict[str, Any]:
        return {"type": "race.start", "table": self.id, "game": self.game, "variant": self.variant.variant,
                "seat": seat,
                "names": [s.name if s else None for s in self.seats], "cpus": self.cpu_seats(),
                "speed": self.speed, "floor_ms": self.floor_ms,
                "verse": self.session.verse if self.session else "kami", "reach": self.reach(seat)}

    def reach(self, seat: int) -> list[int] | None:
        """Shimonoku: the seats whose cards (``Spot.side``) `seat` may touch; None: every card."""
        reach = getattr(self.session.state, "reach", None) if self.session else None
        return None if reach is None else list(reach(seat))

    def cpu_seats(self) -> list[int]:
        return [s for s, seat in enumerate(self.seats) if seat is not None and seat.cpu]

    def scores(self) -> list[int]:
        """The game's own score per seat: cards taken (chirashi), cards left on the seat's
        team's side (Genpei, relay, shimonoku)."""
        if self.session is None:
            return [0] * len(self.seats)
        return list(self.session.state.scores())

    def outcome(self) -> tuple[list[int], str] | None:
        out = None if self.session is None else self.session.outcome()
        return None if out is None else (list(out.winners), out.reason)
