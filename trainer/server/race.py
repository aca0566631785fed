"""Kyōgi between two people over the network, judged on reaction times (``docs/online-races.md``).

No packet's arrival decides a card. Each client reads the card itself, at a
moment the server names in that client's own clock (`ClockSync`, NTP-style),
and reports each touch as a reaction time from the kimariji *as it sounded on
that client*. The server places every touch on one programme timeline (the
kimariji mark of the read on the nominal programme plus the reaction) and
hands them, in programme-time order, to the very `KyogiSession` a local match
uses: the same-time window, the late-take rule, faults, karafuda, double faults
and okurifuda are the session's, not re-implemented here. The server walks the
session's clock along the touches exactly as time passes in a local match.

A read is judged only when both clients have said the card finished on their
side (``race.done``: their ma is over, so the race is closed there too), or
`RaceTable.hold_seconds` after it should have; then the next card is released.
The cards are released one at a time, a lead ahead of their start, never the
whole order: a client that knew the order could touch before it hears a card.

`RaceHall` holds the race tables and answers the ``race.*`` messages
(`race_protocol.RACE_SCHEMA`); the hub (`trainer.server.app`) hands it those
messages and tells it when a connection drops. Mubeyama tables
(`race_mubeyama.MubeyamaRaceTable`) and the floor races (`race_floor.FloorRaceTable`:
chirashi-dori, sakasama, Genpei, relay, shimonoku, with CPU seats) share the hall:
the clock, the release of each card, the hold, drop-outs and spectators; their
game steps are theirs.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import poems.kimariji
from audio.clock import FakeClock
from trainer.games.kyogi_session import (HUMAN, NO_TAKE_GRACE_S, PLAY, KyogiSession, OkurifudaNeeded, Press,
                                         ReadSummary)
from trainer.games.chirashi_session import Reaction as FloorReaction
from trainer.games.chirashi_session import ReadSummary as FloorSummary
from trainer.games.protocol import GameEvent, IllegalAction
from trainer.games.registry import variants as registry_variants
from trainer.rules import kyogi
from trainer.rules.kyogi import Phase
from trainer.rules.territory import LayoutError, Territory
from trainer.server.messages import ClientError
from trainer.server.race_floor import FLOOR_GAMES, FloorRaceTable
from trainer.server.race_listing import RaceListing
from trainer.server.race_mubeyama import MubeyamaRaceTable
from trainer.server.race_protocol import ClockSync, ReactionRefused, ReadTimes, canonical_time, race_order
from trainer.sim.kyogi_sim import NominalTiming

if TYPE_CHECKING:
    from trainer.server.app import Conn, Hub

log = logging.getLogger("karuta.server.race")

RACE_GAMES = ("kyogi", "mubeyama", *FLOOR_GAMES)
PINGS = 8                  # ping exchanges per clock estimate
PING_GAP_S = 0.02
PING_TIMEOUT_S = 5.0
LEAD_S = 0.15              # a card is released at least this long before it starts, plus 1.5 round trips
MAX_TOUCHES = 8            # touches one seat may report for one read
MAX_OPEN_PER_USER = 8      # race tables one account may have waiting for players
MAX_HOLD_S = 120.0         # 待った holds the next card at most this long
MAX_TABLES = 2_000         # race tables in memory at once (guests are free to make: a bound)
OPEN, SYNCING, PLAYING, OVER = "open", "syncing", "playing", "over"
RATED_ENDS = ("cards", "resignation", "abandonment")
"""How a rated match may end and count (a match whose clocks never agreed does not)."""


@dataclass
class Seat:
    user: int
    name: str
    conn: Any = None                       # the seat's connection (None: dropped)
    sync: ClockSync = field(default_factory=ClockSync)
    dropped_task: asyncio.Task | None = None
    guest: bool = False                    # a guest is never rated
    cpu: bool = False                      # a floor race's CPU seat (no client, no clock)


def cpu_seat(level: str) -> Seat:
    """A CPU's seat at a floor race: played by the table's session, no connection."""
    return Seat(-1, f"CPU ({level})", cpu=True)


def people(table: Any) -> list[int]:
    """The seats read by a client (every seat but a floor race's CPUs)."""
    return [s for s, seat in enumerate(table.seats) if seat is not None and not seat.cpu]


@dataclass(frozen=True)
class ReportedTouch:
    t: float                               # programme time (s) the touch is judged at
    seat: int
    card: int
    reaction_ms: float                     # as reported
    stalled: bool


@dataclass
class OpenRead:
    """The read the clients are racing for."""
    number: int
    index: int
    poem: int
    times: ReadTimes
    wall_start: float                      # server clock: the kami-no-ku starts
    mora: int                              # the kimariji's mora (0-based) in the kami-no-ku
    kimariji: str
    touches: list[ReportedTouch] = field(default_factory=list)
    done: set[int] = field(default_factory=set)
    joka: float = 0.0                      # programme seconds of the joka read before it (read 1)
    matta: bool = False                    # 待った asked while it was raced: closed early


class RaceTable:
    """One online kyōgi match (see the module docstring); Mubeyama's is `MubeyamaRaceTable`."""

    game = "kyogi"

    def __init__(self, ident: str, seed: int, host: int, *, cards: int, karafuda: int | None, speed: float,
                 wait_seconds: float, hold_seconds: float, floor_ms: float):
        self.id = ident
        self.seed = seed
        self.host = host
        self.cards, self.karafuda, self.speed = cards, karafuda, speed
        self.wait_seconds, self.hold_seconds, self.floor_ms = wait_seconds, hold_seconds, floor_ms
        self.seats: list[Seat | None] = [None, None]
        self.watchers: set[Any] = set()    # spectators' connections: the floor and the judgements only
        self.history: list[dict[str, Any]] = []   # every race.judged frame, for a late spectator
        self.holds: set[int] = set()      # seats asking the reader to wait (待った) before the next card
        self.status = OPEN
        self.clock = FakeClock(0.0)        # the programme timeline: seconds from the match's start
        floor = [c for hand in kyogi.deal(seed) for c in hand[:cards]]
        self.session = KyogiSession(seed, seats=(HUMAN, HUMAN), clock=self.clock, cards_per_side=cards,
                                    yomifuda=race_order(seed, floor, karafuda))
        self.timing = NominalTiming()
        self.timing.start(self.session.order)
        self.read: OpenRead | None = None
        self.next_index = 0
        self.result: dict[str, Any] | None = None
        self.hold_task: asyncio.Task | None = None
        self.closed_at: dict[int, float] = {}   # read number -> server clock as judging began (the bench)
        self.private = False               # set by the hall: a private table is joined with its code
        self.code: str | None = None
        self.match = secrets.token_hex(16)  # the rated match's key: its ratings apply once
        self.began = False                 # the clocks agreed and the first card released

    @property
    def rated(self) -> bool:
        """Whether the match changes ratings: kyōgi, not private, two accounts (no guest)."""
        return (self.game == "kyogi" and not self.private
                and all(seat is not None and not seat.guest for seat in self.seats))

    def seat_of(self, user: int) -> int | None:
        return next((s for s, seat in enumerate(self.seats) if seat is not None and seat.user == user), None)

    def times(self, index: int, poem: int) -> tuple[ReadTimes, dict[str, float], int, str]:
        """The read's times on the programme, its marks for the session, its kimariji mora and kana."""
        marks = self.timing.marks(index, poems.get(poem))
        cur = poems.kimariji.current(poem, self.session.state.read)
        kima = max(marks["kami_start"], marks[f"kami:mora:{cur.mora}"])
        if index + 1 < len(self.session.order):
            nxt = self.timing.marks(index + 1, poems.get(self.session.order[index + 1]))["kami_start"]
        else:
            nxt = marks["card_end"] + 1.0
        times = ReadTimes(marks["kami_start"], kima, marks["kami_end"], marks["card_end"], nxt)
        session_marks = {k: v for k, v in marks.items() if k != "card_end"}
        return times, session_marks, cur.mora, cur.kana

    def sides(self) -> list[list[int]]:
        return [sorted(self.session.state.side(s).cards()) for s in kyogi.SEATS]


def _user(conn: "Conn") -> Any:
    """The signed-in user of a connection (the hub hands on race messages only after sign-in)."""
    assert conn.user is not None
    return conn.user


class RaceHall:
    """The race tables of one hub and the ``race.*`` messages (see the module docstring)."""

    def __init__(self, hub: "Hub"):
        self.hub = hub
        self.tables: dict[str, RaceTable] = {}
        self._pings: dict[tuple[int, int], tuple[float, asyncio.Future]] = {}
        self._ping_no = 0
        self._tasks: set[asyncio.Task] = set()
        self.listing = RaceListing(self)
        """Every process's lobby lists this hall's tables (PostgreSQL, several processes)."""

    def now(self) -> float:
        return time.perf_counter()

    def _spawn(self, coro: Any) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        """The process stops: every match here ends, its players told (their rows stay, so a
        client coming back through another process hears ``race_lost``)."""
        self.listing.closing = True
        for table in list(self.tables.values()):
            if table.status != OVER:
                self._finish(table, [] if table.game != "kyogi" else None, "server_stopped")
        for task in list(self._tasks):
            task.cancel()

    # -- messages ------------------------------------------------------------------------------
    async def handle(self, conn: "Conn", msg: dict[str, Any]) -> None:
        kind = msg["type"].removeprefix("race.")
        if kind == "pong":
            self._pong(conn, msg)
            return
        handler = getattr(self, f"_on_{kind}")
        if isinstance(msg.get("table"), str) and msg["table"] not in self.tables:
            await self.listing.elsewhere(msg["table"])     # held by another process: say where
        await handler(conn, msg)

    def _reply(self, conn: "Conn", msg: dict[str, Any], frame: dict[str, Any]) -> None:
        if msg.get("id") is not None:
            frame["id"] = msg["id"]
        conn.send(frame)

    async def _on_create(self, conn: "Conn", msg: dict[str, Any]) -> None:
        if msg["game"] not in RACE_GAMES:
            raise ClientError("unknown_game", f"the server races {', '.join(RACE_GAMES)}")
        variant = msg.get("variant")
        floor_options = [k for k in ("seats", "cpus", "level", "reads") if msg.get(k) is not None]
        if floor_options and msg["game"] not in FLOOR_GAMES:
            raise ClientError("bad_option", f"{', '.join(floor_options)}: options of the floor races")
        if msg["game"] in FLOOR_GAMES:
            if msg.get("cards") is not None or msg.get("karafuda") is not None:
                raise ClientError("bad_option", "cards and karafuda are not options of the floor races")
            floor_variants = [v.variant for v in registry_variants(msg["game"])]
            if variant is not None and variant not in floor_variants:
                raise ClientError("bad_option", f"{msg['game']} variants: {', '.join(floor_variants)}")
        elif msg["game"] == "mubeyama":
            from trainer.rules.mubeyama import VARIANTS
            if variant not in VARIANTS:
                raise ClientError("bad_option", f"a Mubeyama variant: {', '.join(VARIANTS)}")
            if msg.get("cards") is not None or msg.get("karafuda") is not None:
                raise ClientError("bad_option", "cards and karafuda are kyogi options")
        elif variant is not None:
            raise ClientError("bad_option", "kyogi has no variant")
        cards = msg.get("cards") or kyogi.CARDS_PER_SIDE
        karafuda = msg.get("karafuda")
        speed = float(msg.get("speed") or 1.0)
        if not 1 <= cards <= kyogi.CARDS_PER_SIDE:
            raise ClientError("bad_option", f"cards is 1 to {kyogi.CARDS_PER_SIDE}")
        if karafuda is not None and not 0 <= karafuda <= 100 - 2 * cards:
            raise ClientError("bad_option", "karafuda is 0 to the number of cards not dealt")
        if not 1 <= speed <= 50 or (speed != 1 and not self.hub.config.allow_seeds):
            raise ClientError("bad_option", "speed is 1 (a faster reading is for test servers: 1 to 50)")
        seed = msg.get("seed")
        if seed is not None and not self.hub.config.allow_seeds:
            raise ClientError("bad_option", "this server chooses the seeds")
        if seed is not None and not seed.isdigit():
            raise ClientError("bad_option", "a seed is a number")
        wait = msg.get("wait_seconds", 60.0)
        hold = msg.get("hold_seconds", 10.0)
        floor = msg.get("floor_ms", 100.0)
        if not (0.1 <= wait <= 3600 and 0.1 <= hold <= 600 and 0 <= floor <= 1000):
            raise ClientError("bad_option", "wait_seconds 0.1-3600, hold_seconds 0.1-600, floor_ms 0-1000")
        waiting = sum(1 for t in self.tables.values() if t.host == _user(conn).id and t.status == OPEN)
        if waiting >= MAX_OPEN_PER_USER:
            raise ClientError("too_many_tables", f"at most {MAX_OPEN_PER_USER} open race tables an account")
        if len(self.tables) >= MAX_TABLES:
            raise ClientError("server_full", "the server has as many race tables as it holds; try later")
        ident = "r" + secrets.token_hex(4)
        number = int(seed) if seed is not None else secrets.randbits(31)
        table: Any
        if msg["game"] in FLOOR_GAMES:
            seats, cpus, level = self._floor_seats(msg)
            reads = msg.get("reads")
            if reads is not None and (not 1 <= reads <= 100 or not self.hub.config.allow_seeds):
                raise ClientError("bad_option", "reads (a shortened game) is 1 to 100, on test servers only")
            table = FloorRaceTable(ident, number, _user(conn).id, msg["game"], seats=seats, cpus=cpus, level=level,
                                   speed=speed, wait_seconds=wait, hold_seconds=hold, floor_ms=floor,
                                   cpu_seat=cpu_seat, reads=reads, variant=variant)
        elif msg["game"] == "mubeyama":
            table = MubeyamaRaceTable(ident, number, _user(conn).id, str(variant), speed=speed, wait_seconds=wait,
                                      hold_seconds=hold, floor_ms=floor)
        else:
            table = RaceTable(ident, number, _user(conn).id, cards=cards, karafuda=karafuda, speed=speed,
                              wait_seconds=wait, hold_seconds=hold, floor_ms=floor)
        if msg.get("private"):
            table.private, table.code = True, secrets.token_urlsafe(6)
        self.tables[ident] = table
        await self.listing.settle()      # created is listed: another process may be asked for it at once
        reply = {"type": "race.created", "table": ident, "rated": table.game == "kyogi" and not table.private}
        if table.code:
            reply["code"] = table.code
        self._reply(conn, msg, reply)
        self.lobby_changed()

    @staticmethod
    def _floor_seats(msg: dict[str, Any]) -> tuple[int, list[int], str]:
        """A floor race's seats, its CPU seats and their level, as `race.create` asks."""
        from trainer.games.registry import find
        from trainer.players.karuta_cpu import LEVELS
        variant = find(msg["game"], msg.get("variant"))     # checked by the caller
        try:
            seats = variant.check_seats(msg.get("seats"))
        except ValueError as exc:
            raise ClientError("bad_option", str(exc)) from None
        cpus = msg.get("cpus") or []
        if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < seats for c in cpus):
            raise ClientError("bad_option", f"cpus lists seat numbers 0 to {seats - 1}")
        if len(set(cpus)) >= seats:
            raise ClientError("bad_option", "at least one seat is a person's")
        level = msg.get("level") or "club"
        if level not in LEVELS:
            raise ClientError("bad_option", f"CPU levels: {', '.join(LEVELS)}")
        return seats, sorted(set(cpus)), level

    @staticmethod
    def _let_in(conn: "Conn", table: Any, msg: dict[str, Any]) -> None:
        """A private table is for its host and whoever has its invitation code."""
        if (getattr(table, "private", False) and table.host != _user(conn).id
                and table.seat_of(_user(conn).id) is None and msg.get("code") != table.code):
            raise ClientError("bad_code", "this table needs its invitation code")

    def _table(self, msg: dict[str, Any]) -> Any:
        table = self.tables.get(msg["table"])
        if table is None:
            raise ClientError("no_such_table", "no such table")
        return table

    def _seat(self, conn: "Conn", table: Any) -> int:
        seat = table.seat_of(_user(conn).id)
        if seat is None or table.seats[seat].conn is not conn:  # type: ignore[union-attr]
            raise ClientError("not_seated", "you have no seat at this table (resume it first)")
        return seat

    async def _on_join(self, conn: "Conn", msg: dict[str, Any]) -> None:
        table = self._table(msg)
        if table.seat_of(_user(conn).id) is not None:
            raise ClientError("seat_taken", "you already sit at this table (race.resume after a drop)")
        self._let_in(conn, table, msg)
        if table.status != OPEN:
            raise ClientError("not_open", "the match has started")
        free = [s for s, seat in enumerate(table.seats) if seat is None]
        wanted = msg.get("seat", free[0] if free else None)
        if wanted not in range(len(table.seats)):
            raise ClientError("no_such_seat", f"seat 0 to {len(table.seats) - 1}")
        if wanted not in free:
            raise ClientError("seat_taken", "that seat is taken")
        table.seats[wanted] = Seat(_user(conn).id, _user(conn).name, conn, guest=_user(conn).guest)
        self._reply(conn, msg, {"type": "race.joined", "table": table.id, "seat": wanted})
        if all(table.seats):
            table.status = SYNCING
            self._spawn(self._begin(table))
        self.lobby_changed()

    async def _on_begin(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """A floor race's host starts it now: every empty seat becomes a CPU of the table's level."""
        table = self._table(msg)
        if table.game not in FLOOR_GAMES:
            raise ClientError("bad_message", "race.begin starts a floor race (kyogi and mubeyama start when full)")
        if table.host != _user(conn).id:
            raise ClientError("not_host", "only the table's host starts it")
        if table.status != OPEN:
            raise ClientError("not_open", "the match has started")
        if not people(table):
            raise ClientError("nobody_seated", "nobody sits at the table yet")
        table.seats = [seat or cpu_seat(table.level) for seat in table.seats]
        self._reply(conn, msg, {"type": "race.begun", "table": table.id, "cpus": table.cpu_seats()})
        table.status = SYNCING
        self._spawn(self._begin(table))
        self.lobby_changed()

    async def _on_resume(self, conn: "Conn", msg: dict[str, Any]) -> None:
        table = self._table(msg)
        seat_no = table.seat_of(_user(conn).id)
        if seat_no is None:
            raise ClientError("not_seated", "you have no seat at this table")
        if table.status == OVER:
            raise ClientError("not_playing", "the match is over")
        seat = table.seats[seat_no]
        assert seat is not None
        seat.conn = conn
        if seat.dropped_task is not None:
            seat.dropped_task.cancel()
            seat.dropped_task = None
        self._reply(conn, msg, {"type": "race.resumed", "table": table.id, "seat": seat_no})
        self._to_others(table, seat_no, {"type": "race.back", "table": table.id, "seat": seat_no})
        if table.status == PLAYING:
            self._spawn(self._rejoin(table, seat_no))

    async def _rejoin(self, table: Any, seat_no: int) -> None:
        seat = table.seats[seat_no]
        assert seat is not None
        seat.sync = ClockSync()
        await self._sync(seat)
        self._send_start(table, seat_no)
        if table.read is not None and seat_no not in table.read.done:
            self._send_read(table, seat_no)
        elif table.game in FLOOR_GAMES and table.owing() is not None and table.owing()[0] == seat_no:
            self._send(table, seat_no, {"type": "race.owe", "table": table.id, "seat": seat_no,
                                        "cards": table.owing()[1]})          # a Genpei send still owed
        elif table.game == "kyogi" and self._owing(table) is not None and self._owing(table)[0] == seat_no:  # type: ignore[index]
            self._send(table, seat_no, {"type": "race.okuri", "table": table.id, "seat": seat_no,
                                        "cards": table.session.state.owing[2],  # type: ignore[index]
                                        "side": table.sides()[seat_no]})

    # -- the clock ------------------------------------------------------------------------------
    async def _sync(self, seat: Seat) -> None:
        """Several ping exchanges with the seat's client; the estimate keeps the best."""
        for _ in range(PINGS):
            conn = seat.conn
            if conn is None or conn.closed:
                return
            self._ping_no += 1
            n = self._ping_no
            fut: asyncio.Future = asyncio.get_running_loop().create_future()
            sent = self.now()
            self._pings[(conn.number, n)] = (sent, fut)
            conn.send({"type": "race.ping", "n": n, "t": sent})
            try:
                client_t, heard = await asyncio.wait_for(fut, PING_TIMEOUT_S)
                seat.sync.add(sent, client_t, heard)
            except asyncio.TimeoutError:
                pass
            finally:
                self._pings.pop((conn.number, n), None)
            await asyncio.sleep(PING_GAP_S)

    def _pong(self, conn: "Conn", msg: dict[str, Any]) -> None:
        entry = self._pings.get((conn.number, msg["n"]))
        if entry is None:
            raise ClientError("no_such_ping", "no ping of that number is waiting")
        if not entry[1].done():
            entry[1].set_result((float(msg["t"]), self.now()))

    # -- the match --------------------------------------------------------------------------------
    async def _begin(self, table: RaceTable) -> None:
        seats = [table.seats[s] for s in people(table)]
        await asyncio.gather(*(self._sync(s) for s in seats if s is not None))
        if not all(s is not None and s.sync.ready for s in seats):
            self._finish(table, None, "no_clock")
            return
        table.status = PLAYING
        table.began = True
        self.lobby_changed()
        if table.game == "kyogi":
            table.session.begin()
        elif table.game in FLOOR_GAMES:
            table.deal()  # type: ignore[attr-defined]
        for s in people(table):
            self._send_start(table, s)
        self._release(table)

    def _send_start(self, table: Any, seat_no: int) -> None:
        seat = table.seats[seat_no]
        assert seat is not None
        if table.game == "mubeyama" or table.game in FLOOR_GAMES:
            self._send(table, seat_no, {**table.start_frame(seat_no), "offset_ms": round(seat.sync.offset * 1000, 3),
                                        "error_ms": round(seat.sync.error * 1000, 3)})
            self._send(table, seat_no, table.view_frame(seat_no))
            return
        self._send(table, seat_no, {
            "type": "race.start", "table": table.id, "seat": seat_no, "sides": table.sides(),
            "names": [s.name if s else None for s in table.seats], "speed": table.speed,
            "cards": table.cards, "karafuda": table.karafuda, "floor_ms": table.floor_ms, "rated": table.rated,
            "offset_ms": round(seat.sync.offset * 1000, 3), "error_ms": round(seat.sync.error * 1000, 3)})

    def _send(self, table: RaceTable, seat_no: int, frame: dict[str, Any]) -> None:
        seat = table.seats[seat_no]
        if seat is not None and seat.conn is not None:
            seat.conn.send(frame)

    def _to_others(self, table: Any, seat_no: int, frame: dict[str, Any]) -> None:
        for other in range(len(table.seats)):
            if other != seat_no:
                self._send(table, other, dict(frame))

    def _release(self, table: RaceTable) -> None:
        """The next card: on the session's programme timeline, then to each client with the
        moment it starts on that client's clock."""
        if table.game == "mubeyama":
            self._release_mubeyama(table)
            return
        if table.game in FLOOR_GAMES:
            self._release_floor(table)
            return
        s = table.session
        if s.is_over():
            self._finish(table, s.state.winner(), "cards")
            return
        if table.next_index >= len(s.order):
            s.reading_finished()
            self._finish(table, s.state.winner(), "cards")
            return
        index = table.next_index
        poem = s.order[index]
        times, marks, mora, kana = table.times(index, poem)
        table.clock.set(max(table.clock.now(), times.kami_start))
        s.kami_started(poem, marks)
        table.next_index += 1
        # the programme opens with the joka: each client reads it before the first card
        joka = times.kami_start if index == 0 else 0.0
        wall = self.now() + LEAD_S + 1.5 * self._rtt(table) + joka / table.speed
        table.read = OpenRead(len(s.state.read) + 1, index, poem, times, wall, mora, kana, joka=joka)
        for seat_no in kyogi.SEATS:
            self._send_read(table, seat_no)
        self._arm_hold(table)

    def _release_mubeyama(self, table: Any) -> None:
        nxt = table.next_read()
        if nxt is None:
            out = table.outcome()
            self._finish(table, out[0] if out else None, out[1] if out else "stack_out")
            return
        poem, index, times, mora, kana = nxt
        table.start_read(poem, times)
        wall = self.now() + LEAD_S + 1.5 * self._rtt(table)
        table.read = OpenRead(len(table.session.state.read), index, poem, times, wall, mora, kana)
        for seat_no in range(len(table.seats)):
            self._send(table, seat_no, table.view_frame(seat_no))
            self._send_read(table, seat_no)
        self._arm_hold(table)

    @staticmethod
    def _rtt(table: Any) -> float:
        """The slowest client's best round trip (the clients that read: no CPU seat)."""
        return max((table.seats[s].sync.error * 2 for s in people(table) if table.seats[s].sync.ready), default=0.0)

    def _release_floor(self, table: Any) -> None:
        """The next card of a floor race, unless a person owes a Genpei send first; the end
        when the game is decided or the stack is read through."""
        s = table.session
        if table.owing() is not None:
            return
        if table.max_reads is not None and table.number >= table.max_reads:
            self._finish(table, [], "reads")        # a test server's shortened game: no winner
            return
        nxt = table.next_read()
        if nxt is None:
            if not s.is_over():
                s.reading_finished()
            out = table.outcome()
            self._finish(table, out[0] if out else [], out[1] if out else "stack_out")
            return
        poem, times, marks, mora, kana = nxt
        table.start_events = table.start_read(poem, times, marks)
        table.number += 1
        wall = self.now() + LEAD_S + 1.5 * self._rtt(table)
        table.read = OpenRead(table.number, table.number - 1, poem, times, wall, mora, kana)
        for seat_no in people(table):
            self._send_read(table, seat_no)
        self._arm_hold(table)

    def _send_read(self, table: Any, seat_no: int) -> None:
        read, seat = table.read, table.seats[seat_no]
        assert read is not None and seat is not None
        t = read.times
        self._send(table, seat_no, {
            "type": "race.read", "table": table.id, "read": read.number, "poem": read.poem,
            "mora": read.mora, "kimariji": read.kimariji,
            "start_at": seat.sync.to_client(read.wall_start), "speed": table.speed,
            "kimariji_s": round(t.kimariji - t.kami_start, 4), "kami_s": round(t.kami_end - t.kami_start, 4),
            "card_s": round(t.card_end - t.kami_start, 4), "ma_s": round(t.next_kami - t.card_end, 4),
            **({"verse": table.session.verse} if table.game in FLOOR_GAMES else {}),
            **({"joka_s": round(read.joka, 4)} if read.joka else {})})

    def _arm_hold(self, table: RaceTable) -> None:
        read = table.read
        assert read is not None
        due = read.wall_start + (read.times.next_kami - read.times.kami_start) / table.speed + table.hold_seconds
        if table.hold_task is not None:
            table.hold_task.cancel()
        table.hold_task = self._spawn(self._hold(table, read, due))

    async def _hold(self, table: RaceTable, read: OpenRead, due: float) -> None:
        """Close the read when a client never says it finished (an absent seat is left to the
        drop-out wait instead)."""
        while table.read is read:
            await asyncio.sleep(max(0.01, due - self.now()))
            if table.read is not read:
                return
            if all(table.seats[s].conn is not None for s in people(table)):  # type: ignore[union-attr]
                if table.game == "mubeyama":
                    self._close_mubeyama(table, timed_out=True)
                elif table.game in FLOOR_GAMES:
                    self._close_floor(table, timed_out=True)
                else:
                    self._close(table, timed_out=True)
                return
            due = self.now() + 0.5

    async def _on_touch(self, conn: "Conn", msg: dict[str, Any]) -> None:
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        if msg.get("seat") is not None and msg["seat"] != seat_no:
            raise IllegalAction("race.not_your_seat", "a client touches for its own seat only", seat=msg["seat"])
        read = table.read
        if table.status != PLAYING or read is None or msg["read"] != read.number or seat_no in read.done:
            raise IllegalAction("race.closed", "that read's race is closed", read=msg["read"])
        card = msg["card"]
        if table.game in FLOOR_GAMES:
            if not 1 <= card <= 100 or card not in table.session.state.floor:
                raise IllegalAction("chirashi.not_on_floor", f"card {card} is not on the floor", card=card)
        elif not 1 <= card <= 100 or table.session.state.side_of(card) is None:
            raise IllegalAction("kyogi.not_on_floor", f"card {card} is not on the floor", card=card)
        if sum(1 for t in read.touches if t.seat == seat_no) >= MAX_TOUCHES:
            raise IllegalAction("race.too_many_touches", f"at most {MAX_TOUCHES} touches a read")
        if msg["part"] == "joka" and not read.joka:
            raise IllegalAction("race.bad_part", "the joka is read before kyogi's first card only")
        reaction = float(msg["reaction_ms"])
        stalled = bool(msg.get("stall"))
        try:
            t = canonical_time(read.times, reaction, msg["part"])
            if stalled:       # the sound stuttered: judged on when the touch happened, never sooner
                t = max(t, self._stamped_time(table, read, table.seats[seat_no], float(msg["stamp"])))  # type: ignore[arg-type]
        except ReactionRefused as exc:
            raise IllegalAction(exc.reason, str(exc)) from None
        if table.game in FLOOR_GAMES:
            refusal = table.refusal(seat_no, card, t)     # sitting out, out of reach ...: the session's
            if refusal is not None:
                raise refusal
        read.touches.append(ReportedTouch(t, seat_no, card, reaction, stalled))
        self._reply(conn, msg, {"type": "race.touched", "table": table.id, "read": read.number})

    @staticmethod
    def _stamped_time(table: RaceTable, read: OpenRead, seat: Seat, stamp: float) -> float:
        """Programme time of a touch from its monotonic stamp and the agreed start: what the
        time would be had the sound not stuttered (the stamp's clock does not stutter)."""
        wall = seat.sync.to_server(stamp)
        t = read.times.kami_start + (wall - read.wall_start) * table.speed
        return min(max(t, read.times.kami_start), read.times.next_kami - 0.001)

    async def _on_done(self, conn: "Conn", msg: dict[str, Any]) -> None:
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        read = table.read
        if read is None or msg["read"] != read.number:
            raise IllegalAction("race.closed", "that read's race is closed", read=msg["read"])
        read.done.add(seat_no)
        self._close_when_done(table)

    def _close_when_done(self, table: Any) -> None:
        """Every client read the card to its end (a seat a CPU took over no longer counts)."""
        read = table.read
        if read is None or not read.done >= set(people(table)):
            return
        if table.game == "mubeyama":
            self._close_mubeyama(table)
        elif table.game in FLOOR_GAMES:
            self._close_floor(table)
        else:
            self._close(table)

    def _close(self, table: RaceTable, timed_out: bool = False) -> None:
        """Judge the read: its touches to the session in programme-time order, the session's
        clock walked along them as time passes in a local match."""
        read, table.read = table.read, None
        assert read is not None
        table.closed_at[read.number] = self.now()
        if table.hold_task is not None and table.hold_task is not asyncio.current_task():
            table.hold_task.cancel()
        s, times = table.session, read.times
        events: list[GameEvent] = []
        finished = False
        touches = read.touches
        if read.matta:
            # 待った while it was raced: the reader stopped; as locally, the read is settled 1 s
            # after its kami-no-ku (`KyogiSession.toggle_wait`), and nothing after that counts
            if not s.waiting:
                events += s.toggle_wait()
            cut = times.kami_end + NO_TAKE_GRACE_S
            touches = [t for t in touches if t.t <= cut]
            times = dataclasses.replace(times, card_end=max(cut, times.kami_start))
        for touch in sorted(touches, key=lambda x: (x.t, x.seat, x.card)):
            if not finished and touch.t >= times.card_end:
                events += self._walk(table, times.card_end)
                events += s.card_finished(read.poem)
                finished = True
            events += self._walk(table, touch.t)
            if s.phase != PLAY:
                break
            if touch.t < times.kami_start:       # during the joka: a fault judged with read 1
                events += s.touch_before_reading(touch.card, touch.t, touch.seat)
                continue
            events += s.touch(touch.card, touch.t, touch.seat)
        if not finished and s.phase == PLAY:
            events += self._walk(table, times.card_end)
            events += s.card_finished(read.poem)
        if s.race is not None:   # no take decided: the race closes as the next kami-no-ku starts
            events += s.judge(at=times.next_kami)
        if read.matta and not table.holds and s.waiting:     # the hold was lifted before the close
            events += s.toggle_wait()
        self._tell_judged(table, read, events, timed_out)
        self._after_judged(table, events)

    # -- the floor races ---------------------------------------------------------------------------
    def _close_floor(self, table: Any, timed_out: bool = False) -> None:
        """Judge a floor race's read (`FloorRaceTable.judge`), tell everyone, then the next card
        (or a person's Genpei send first)."""
        read, table.read = table.read, None
        assert read is not None
        table.closed_at[read.number] = self.now()
        if table.hold_task is not None and table.hold_task is not asyncio.current_task():
            table.hold_task.cancel()
        events = list(table.start_events) + table.judge(read.poem, read.times, read.touches)
        table.start_events = []
        summary = next((e for e in events if isinstance(e, FloorSummary) and e.poem == read.poem), None)
        reactions: list[int | None] = [None] * len(table.seats)
        for e in events:
            if isinstance(e, FloorReaction) and e.poem == read.poem:
                reactions[e.seat] = e.ms
        taker = None if summary is None else summary.taker
        frame: dict[str, Any] = {
            "type": "race.judged", "table": table.id, "read": read.number, "poem": read.poem,
            "kimariji": read.kimariji, "stalled": sorted({t.seat for t in read.touches if t.stalled}),
            "timed_out": timed_out, "taker": taker, "raced": list(table.raced),
            "taker_ms": None if summary is None else summary.reaction_ms, "reaction_ms": reactions,
            "faulted": [] if summary is None else list(summary.faulted), "scores": table.scores(),
            "owing": None if table.owing() is None else list(table.owing()),
            "fast": [taker] if taker in people(table) and reactions[taker] is not None
            and reactions[taker] < table.floor_ms else []}  # type: ignore[index,operator]
        for seat_no in people(table):
            self._send(table, seat_no, dict(frame))
        table.history.append(frame)
        self._to_watchers(table, frame)
        self._floor_changed(table)

    def _floor_changed(self, table: Any) -> None:
        """Every seat its view; then a person's owed send is asked for, or the next card comes."""
        for seat_no in people(table):
            self._send(table, seat_no, table.view_frame(seat_no))
        self._to_watchers(table, table.view_frame(None))
        owing = table.owing()
        if owing is not None:
            giver, cards = owing
            self._send(table, giver, {"type": "race.owe", "table": table.id, "seat": giver, "cards": cards})
            self._spawn(self._send_later(table, len(table.session.log)))
            return
        if table.holds and not table.session.is_over():
            return                          # 待った: the next card waits for the seat to go on
        self._release(table)

    async def _send_later(self, table: Any, logged: int) -> None:
        """A send still not chosen `hold_seconds` after it was asked for (and nothing happened
        since) is made for the seat: its first card that may go."""
        await asyncio.sleep(table.hold_seconds)
        if table.status == PLAYING and table.owing() is not None and len(table.session.log) == logged:
            table.send_for(table.owing()[0])
            self._floor_changed(table)

    # -- Mubeyama ---------------------------------------------------------------------------------
    async def _on_flip(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """The owner flips the card read (`card` null: its face-down hidden card), reported as
        a reaction time from the kimariji as it sounded on its client."""
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        read = table.read
        if table.game != "mubeyama":
            raise ClientError("bad_message", "race.flip is Mubeyama's")
        if table.status != PLAYING or read is None or msg["read"] != read.number:
            raise IllegalAction("race.closed", "that card is no longer read", read=msg["read"])
        try:
            t = canonical_time(read.times, float(msg["reaction_ms"]), msg["part"])
            if msg.get("stall"):
                t = max(t, self._stamped_time(table, read, table.seats[seat_no], float(msg["stamp"])))
        except ReactionRefused as exc:
            raise IllegalAction(exc.reason, str(exc)) from None
        table.flip(seat_no, msg.get("card"), t, read.number, float(msg["reaction_ms"]))
        self._reply(conn, msg, {"type": "race.flipped", "table": table.id, "read": read.number})
        self._mubeyama_changed(table)

    async def _on_pass(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """A card a yaku asks the seat to give."""
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        if table.game != "mubeyama" or table.status != PLAYING:
            raise ClientError("not_playing", "no Mubeyama game is being played here")
        table.pass_card(seat_no, msg["card"])
        self._reply(conn, msg, {"type": "race.passed", "table": table.id, "card": msg["card"]})
        self._mubeyama_changed(table)

    def _mubeyama_changed(self, table: Any) -> None:
        """Every seat its own view; the next card once every client is done with this one."""
        for seat_no in range(len(table.seats)):
            self._send(table, seat_no, table.view_frame(seat_no))
        self._to_watchers(table, table.view_frame(None))
        if table.read is None and table.ready_for_next():
            self._release(table)

    def _close_mubeyama(self, table: Any, timed_out: bool = False) -> None:
        """Every client finished the card: the next one once the flip and the passes are done
        (a flip still missing at the hold time-out is made for the owner, untimed)."""
        read = table.read
        if read is not None:
            table.closed_at[read.number] = self.now()
            if timed_out and table.flip_for_owner():
                for seat_no in range(len(table.seats)):
                    self._send(table, seat_no, table.view_frame(seat_no))
            table.read = None
            frame = {"type": "race.judged", "table": table.id, "read": read.number, "poem": read.poem,
                     "timed_out": timed_out, "flips": [f for f in table.flips if f["read"] == read.number],
                     "left": table.scores()}
            for seat_no in range(len(table.seats)):
                self._send(table, seat_no, dict(frame))
            table.history.append(frame)
            self._to_watchers(table, frame)
        if table.ready_for_next():
            self._release(table)
        else:
            self._spawn(self._stand_in_later(table, len(table.session.events)))

    async def _stand_in_later(self, table: Any, events: int) -> None:
        """A flip or pass still awaited `hold_seconds` after every client finished the card
        (and nothing happened since) is made for its seat."""
        while table.status == PLAYING and table.read is None and not table.ready_for_next():
            await asyncio.sleep(table.hold_seconds)
            if len(table.session.events) == events and table.read is None and table.stand_in():
                self._mubeyama_changed(table)
            events = len(table.session.events)

    def _walk(self, table: RaceTable, t: float) -> list[GameEvent]:
        table.clock.set(max(table.clock.now(), t))
        return table.session.tick()

    def _tell_judged(self, table: RaceTable, read: OpenRead, events: list[GameEvent], timed_out: bool) -> None:
        summary = next((e for e in events if isinstance(e, ReadSummary) and e.poem == read.poem), None)
        stalled = sorted({t.seat for t in read.touches if t.stalled})
        frame: dict[str, Any] = {"type": "race.judged", "table": table.id, "read": read.number, "poem": read.poem,
                                 "stalled": stalled, "timed_out": timed_out, "matta": read.matta,
                                 "sides": table.sides(),
                                 "left": list(table.session.state.scores()), "owing": self._owing(table)}
        if summary is not None:
            fast = [s for s in kyogi.SEATS if summary.taker == s and summary.reaction_ms[s] is not None
                    and summary.reaction_ms[s] < table.floor_ms]  # type: ignore[operator]
            frame.update(taker=summary.taker, reaction_ms=list(summary.reaction_ms), karafuda=summary.karafuda,
                         faults=[list(f) for f in summary.faults], fast=fast)
        for s in kyogi.SEATS:
            self._send(table, s, dict(frame))
        table.history.append(frame)
        self._to_watchers(table, frame)

    def _to_watchers(self, table: RaceTable, frame: dict[str, Any]) -> None:
        for conn in list(table.watchers):
            if conn.closed:
                table.watchers.discard(conn)
            else:
                conn.send(dict(frame))

    @staticmethod
    def _owing(table: RaceTable) -> list[int] | None:
        """[giver, cards] while a seat owes okurifuda, else None."""
        state = table.session.state
        return None if state.phase is not Phase.OKURI else [state.owing[0], state.owing[2]]  # type: ignore[index]

    def _after_judged(self, table: RaceTable, events: list[GameEvent]) -> None:
        for e in events:
            if isinstance(e, OkurifudaNeeded):
                self._send(table, e.seat, {"type": "race.okuri", "table": table.id, "seat": e.seat,
                                           "cards": e.cards, "side": table.sides()[e.seat]})
        if table.session.state.phase is Phase.OKURI and not table.session.is_over():
            return
        if table.holds and not table.session.is_over():
            return                          # 待った: the next card waits for the seat to go on
        self._release(table)

    async def _on_send(self, conn: "Conn", msg: dict[str, Any]) -> None:
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        if table.game in FLOOR_GAMES:
            owing = table.owing() if table.status == PLAYING else None
            if owing is None or owing[0] != seat_no:
                raise IllegalAction("race.nothing_owed", "you owe no card now")
            table.send(seat_no, msg["card"])
            self._reply(conn, msg, {"type": "race.sent", "table": table.id, "card": msg["card"]})
            self._floor_changed(table)
            return
        s = table.session
        if table.status != PLAYING or s.state.phase is not Phase.OKURI or s.state.owing[0] != seat_no:  # type: ignore[index]
            raise IllegalAction("race.nothing_owed", "you owe no card now")
        events = s.act(seat_no, Press(msg["card"], table.clock.now()))
        self._reply(conn, msg, {"type": "race.sent", "table": table.id, "card": msg["card"]})
        sides = {"type": "race.sides", "table": table.id, "sides": table.sides(), "owing": self._owing(table)}
        for seat in kyogi.SEATS:
            self._send(table, seat, dict(sides))
        self._to_watchers(table, sides)
        self._after_judged(table, events)

    async def _on_list(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """The race tables not over (no seed, nothing of the reading order)."""
        self._reply(conn, msg, {"type": "race.tables", "tables": self.summaries(_user(conn).id)})

    def summaries(self, uid: int | None) -> list[dict[str, Any]]:
        """The race tables not over that `uid` may see (a private one: its host and its players),
        as ``race.list`` and the main lobby list them: no seed, no code, nothing of the order."""
        here = [self._summary(t) for t in self.tables.values() if t.status != OVER and (
            not t.private or (uid is not None and (t.host == uid or t.seat_of(uid) is not None)))]
        return here + self.listing.summaries(uid)

    @staticmethod
    def _summary(t: Any) -> dict[str, Any]:
        seats = [None if s is None else {"cpu": s.name} if s.cpu else {"name": s.name} for s in t.seats]
        out = {"table": t.id, "game": t.game, "status": t.status, "names": [s.name if s else None for s in t.seats],
               "seats": seats, "cards": t.cards, "karafuda": t.karafuda, "speed": t.speed, "private": t.private,
               "rated": t.game == "kyogi" and not t.private}
        if t.game == "mubeyama":
            out["variant"] = t.variant
        elif t.game in FLOOR_GAMES:
            out["variant"] = t.variant.variant
        return out

    def lobby_changed(self) -> None:
        """The main lobby's watchers hear of a race table's change (created, seated, begun, over),
        and so do the other processes' (its row in the database)."""
        self.hub._lobby_changed()
        self.listing.changed()

    async def _on_watch(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """A spectator: the floor, every judgement so far and from now on, the end. Never a
        card before it is judged (a spectator could pass it to a player)."""
        table = self._table(msg)
        self._let_in(conn, table, msg)
        table.watchers.add(conn)
        if table.game == "mubeyama" or (table.game in FLOOR_GAMES and table.session is not None):
            floor = {"view": table.view_frame(None)["view"]}
        elif table.game in FLOOR_GAMES:
            floor = {"view": None}
        else:
            floor = {"sides": table.sides(), "left": list(table.session.state.scores())}
        self._reply(conn, msg, {"type": "race.watching", "table": table.id, "game": table.game,
                                "status": table.status, "names": [s.name if s else None for s in table.seats],
                                **floor, "history": table.history[-50:]})
        if table.result is not None:
            conn.send({"type": "race.over", "table": table.id, **table.result})

    async def _on_wait(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """待った (hold: true): the next card is not released until the seat goes on (hold:
        false), or `MAX_HOLD_S` has passed; between reads the seat may rearrange its side.
        A read being raced is judged as usual first."""
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        if table.status != PLAYING:
            raise ClientError("not_playing", "the match has not begun or is over")
        if msg["hold"]:
            if seat_no not in table.holds:
                table.holds.add(seat_no)
                self._spawn(self._hold_limit(table, seat_no))
            read = table.read
            if table.game == "kyogi" and read is not None and not read.matta:
                read.matta = True
                self._spawn(self._close_for_matta(table, read))
        else:
            table.holds.discard(seat_no)
            if table.game == "kyogi" and not table.holds and table.session.waiting:
                table.session.toggle_wait()     # the session's own hold ends with the last seat's
        self._reply(conn, msg, {"type": "race.waited", "table": table.id, "hold": msg["hold"]})
        self._tell_holds(table)

    async def _close_for_matta(self, table: RaceTable, read: OpenRead) -> None:
        """待った during a read: it is closed (not left to run to its ma) once every client has
        read past the settling moment (1 s after the kami-no-ku) and its touches up to then
        have had a round trip to arrive; then the hold keeps the next card."""
        cut = read.times.kami_end + NO_TAKE_GRACE_S
        due = read.wall_start + (cut - read.times.kami_start) / table.speed + 2 * self._rtt(table) + 0.05
        await asyncio.sleep(max(0.0, due - self.now()))
        if table.read is read and table.status == PLAYING:
            self._close(table)

    def _tell_holds(self, table: Any) -> None:
        frame = {"type": "race.held", "table": table.id, "seats": sorted(table.holds)}
        for s in people(table):
            self._send(table, s, dict(frame))
        self._to_watchers(table, frame)
        if table.game in FLOOR_GAMES:
            owing = table.owing() is not None
        elif table.game == "mubeyama":
            owing = not table.ready_for_next()
        else:
            owing = table.session.state.phase is Phase.OKURI
        if not table.holds and table.read is None and table.status == PLAYING and not owing:
            self._release(table)

    async def _hold_limit(self, table: RaceTable, seat_no: int) -> None:
        await asyncio.sleep(MAX_HOLD_S)
        if seat_no in table.holds and table.status == PLAYING:
            table.holds.discard(seat_no)
            self._tell_holds(table)

    async def _on_arrange(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """The seat's side laid out anew: while it holds the reader (待った), between reads."""
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        if table.game != "kyogi":
            raise ClientError("bad_message", "race.arrange lays out a kyogi side")
        if seat_no not in table.holds or table.read is not None or table.status != PLAYING:
            raise IllegalAction("race.not_holding", "rearrange between reads, after asking the reader to wait")
        rows = msg["rows"]
        if not (len(rows) == 3 and all(isinstance(r, list) and len(r) == 2 and all(
                isinstance(g, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in g)
                for g in r) for r in rows)):
            raise ClientError("bad_message", "rows: three rows of [left, right] lists of card numbers")
        try:
            side = Territory([(left, right) for left, right in rows])
        except LayoutError as exc:
            raise IllegalAction("kyogi.layout", str(exc)[:160]) from None
        table.session.rearrange(side, seat_no)
        self._reply(conn, msg, {"type": "race.arranged", "table": table.id})
        frame = {"type": "race.layout", "table": table.id, "seat": seat_no,
                 "rows": [[list(left), list(right)] for left, right in side.rows()]}
        for s in kyogi.SEATS:
            self._send(table, s, dict(frame))
        self._to_watchers(table, frame)

    async def _on_resign(self, conn: "Conn", msg: dict[str, Any]) -> None:
        """A player abandons the match: the other side wins."""
        table = self._table(msg)
        seat_no = self._seat(conn, table)
        if table.status not in (SYNCING, PLAYING):
            raise ClientError("not_playing", "the match has not begun or is over")
        self._reply(conn, msg, {"type": "race.resigned", "table": table.id})
        if table.game in FLOOR_GAMES:
            self._leave_floor(table, seat_no, "resignation")
            return
        self._finish(table, self._others(table, seat_no), "resignation")

    def _leave_floor(self, table: Any, seat_no: int, by: str) -> None:
        """A person leaves a floor race: a stand-in CPU plays the seat while anybody is left;
        with nobody left the game ends."""
        if len(people(table)) <= 1:
            self._finish(table, [], by)
            return
        table.stand_in(seat_no)
        table.holds.discard(seat_no)
        frame = {"type": "race.stand_in", "table": table.id, "seat": seat_no, "by": by,
                 "name": table.seats[seat_no].name}
        for s in people(table):
            self._send(table, s, dict(frame))
        self._to_watchers(table, frame)
        if table.status == PLAYING:
            if table.read is not None:
                self._close_when_done(table)
            elif not table.holds and table.owing() is None:
                self._release(table)

    @staticmethod
    def _others(table: Any, seat_no: int) -> Any:
        """Who wins when `seat_no` leaves: the other kyōgi seat; every other Mubeyama seat."""
        if table.game == "kyogi":
            return kyogi.other(seat_no)
        return [s for s in range(len(table.seats)) if s != seat_no]

    # -- the end, drop-outs -----------------------------------------------------------------------
    def _finish(self, table: Any, winner: Any, by: str) -> None:
        if table.status == OVER:
            return
        table.status = OVER
        self.lobby_changed()
        if table.hold_task is not None and table.hold_task is not asyncio.current_task():
            table.hold_task.cancel()
        if table.game == "kyogi" and table.session.phase != "over":
            table.session.abandon()
        table.read = None
        if table.game in FLOOR_GAMES and table.session is not None and not table.session.is_over():
            table.session.abandon()
        if table.game == "mubeyama" or table.game in FLOOR_GAMES:
            winners = winner if isinstance(winner, list) else [] if winner is None else [winner]
            table.result = {"winners": winners, "by": by, "scores": table.scores()}
        else:
            table.result = {"winner": winner, "by": by, "left": list(table.session.state.scores()),
                            "rated": table.rated and table.began and by in RATED_ENDS}
            if table.result["rated"]:
                self._spawn(self._rate(table, winner, by))
        self._to_watchers(table, {"type": "race.over", "table": table.id, **table.result})
        for s in range(len(table.seats)):
            self._send(table, s, {"type": "race.over", "table": table.id, **table.result})
            seat = table.seats[s]
            if seat is not None and seat.dropped_task is not None and seat.dropped_task is not asyncio.current_task():
                seat.dropped_task.cancel()
        # a finished match stays a while for its players, then leaves memory
        asyncio.get_running_loop().call_later(self.hub.config.keep_finished, self.tables.pop, table.id, None)

    async def _rate(self, table: RaceTable, winner: int | None, by: str) -> None:
        """A rated match ended: both ratings change once (`Store.rate_match`), each player
        is told theirs (a player away sees it in their next ``signed_in``)."""
        users = tuple(seat.user for seat in table.seats if seat is not None)
        assert len(users) == 2
        try:
            changed = await self.hub.db(self.hub.store.rate_match, f"race:{table.match}", table.game,
                                        users, winner, by)
        except Exception:  # noqa: BLE001 - the match stands; only its rating is lost (logged)
            log.exception("table %s: the ratings could not be stored", table.id)
            return
        if changed is None:
            return
        for seat_no, (before, after) in enumerate(changed):
            self._send(table, seat_no, {"type": "rating", "game": table.game, "table": table.id,
                                        "rating": after.shown, "change": after.shown - before.shown,
                                        "games": after.games})

    def dropped(self, conn: "Conn") -> None:
        """A connection went away: each seat it held waits `wait_seconds` for its return."""
        for table in self.tables.values():
            table.watchers.discard(conn)
            for seat_no, seat in enumerate(table.seats):
                if seat is None or seat.conn is not conn:
                    continue
                seat.conn = None
                if table.status in (SYNCING, PLAYING):
                    self._to_others(table, seat_no, {"type": "race.waiting", "table": table.id, "seat": seat_no,
                                                    "seconds": table.wait_seconds})
                    seat.dropped_task = self._spawn(self._abandon_later(table, seat_no))

    async def _abandon_later(self, table: RaceTable, seat_no: int) -> None:
        await asyncio.sleep(table.wait_seconds)
        seat = table.seats[seat_no]
        if seat is not None and seat.conn is None and table.status != OVER:
            seat.dropped_task = None
            if table.game in FLOOR_GAMES:
                self._leave_floor(table, seat_no, "abandonment")
                return
            self._finish(table, self._others(table, seat_no), "abandonment")
