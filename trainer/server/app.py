"""The game server: a Starlette application with one WebSocket endpoint (``/ws``).

`Hub` holds the lobby: the connections, the live tables, the database. Every
client message is checked (size, rate, JSON depth, its fields' types) before
anything acts on it; a bad one is answered with an ``error`` frame and changes
nothing. A table's change (an action, CPU moves, a time-out) is committed to
the database first, then each member receives what its seat may see.
The protocol is documented in ``docs/server-protocol.md``.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from trainer.games.protocol import IllegalAction
from trainer.games.registry import find
from trainer.server import codec
from trainer.server.adapter import CPU_LEVELS, DEFAULT_LEVEL
from trainer.server.limits import LoginGuard
from trainer.server.messages import ClientError, parse_message
from trainer.server.race import RACE_GAMES, RaceHall
from trainer.server.ratings import LEADERBOARD_MAX, RATED_GAMES
from trainer.server.store import SeqTaken, Store, User
from trainer.server.tables import OPEN, OVER, PLAYING, LiveTable

PROTOCOL_VERSION = 1
GAMES = ("unsun", "yomi", "yomi37", "umebotan", "bozu")
"""The turn games the server plays (the races after a reader are `trainer.server.race.RACE_GAMES`)."""
RULE_OPTIONS = {"unsun": {"deals": (1, 8)}, "yomi": {"rounds": (1, 10)}, "yomi37": {"rounds": (1, 10)},
                "umebotan": {"rounds": (2, 12)}, "bozu": {}}
"""Game-length options a table may set (bounds included)."""

log = logging.getLogger("karuta.server")
_NAME = re.compile(r"^[\w\-]{1,24}$")


@dataclass
class ServerConfig:
    db: str | None = None
    max_message: int = 16_384
    """Bytes of one client message; more is refused unread."""
    max_depth: int = 6
    rate: float = 20.0
    """Messages a second a connection may send on average ..."""
    burst: float = 40.0
    """... and at once."""
    max_queue: int = 2_000
    """Frames waiting for a client that does not read; more closes the connection."""
    allow_seeds: bool = False
    """Let create_table choose the seed (tests; never on a public server: it shows the deal)."""
    turn_seconds: float = 300.0
    max_open_tables: int = 100
    """Tables not yet started that one account may host: an open table lives in memory and in
    the lobby until it starts, so one client must not make them without end (`karuta bot
    --tables 40` hosts forty)."""
    min_turn_seconds: float = 5.0
    """The shortest turn timer a table may ask for: a stand-in playing many turns a second for
    an absent person would busy the server's loop (tests of time-outs lower it)."""
    keep_finished: float = 600.0
    """Seconds a finished table stays in memory (its members may still look at it); then only
    the database has it, and the server's memory stays flat over a long run."""
    seat_hold: float = 120.0
    """Seconds a dropped person's seat waits for them; then their stand-in CPU plays their turns
    (logged as time-outs) until they join again. Needs the table's turn timer (its stand-in)."""
    beat: float = 1.0
    """PostgreSQL: seconds between this process's heartbeats (and sweeps for missed notes) ..."""
    lease: float = 5.0
    """... and how long without one before another process takes its tables over."""
    login_failures: int = 5
    login_window: float = 300.0
    """Wrong passwords a name may take within this many seconds (`limits.LoginGuard`)."""
    public_url: str | None = None
    """The address clients reach this process at (``ws://host:port/ws``): a client of another
    process is sent here for a race table this one holds (`trainer.server.race_listing`)."""
    base_clock: Any = None
    frame_hook: Callable[["Conn", dict[str, Any]], None] | None = None
    """Called with every frame just before it is queued for a socket (the hidden-information test)."""


class Conn:
    """One WebSocket connection: its user, its tables, its rate budget and its outbound queue."""

    def __init__(self, hub: "Hub", ws: WebSocket, number: int):
        self.hub = hub
        self.ws = ws
        self.number = number
        self.user: User | None = None
        self.hello = False
        self.lobby = False
        self.tables: dict[str, int | None] = {}
        """Table id -> this connection's seat there (None: spectating)."""
        self.sent: dict[str, int] = {}
        """Table id -> how many entries of its log this connection has received."""
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.tokens = hub.config.burst
        self.stamp = time.monotonic()
        self.closed = False

    def send(self, frame: dict[str, Any]) -> None:
        if self.closed:
            return
        if self.hub.config.frame_hook is not None:
            self.hub.config.frame_hook(self, frame)
        if self.queue.qsize() >= self.hub.config.max_queue:
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))

    def allow(self) -> bool:
        """The token bucket: `rate` messages a second on average, `burst` at once."""
        now = time.monotonic()
        cfg = self.hub.config
        self.tokens = min(cfg.burst, self.tokens + (now - self.stamp) * cfg.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


# -- the hub ----------------------------------------------------------------------------------------

class Hub:
    """The lobby, its tables and connections (see the module docstring). With PostgreSQL several
    hubs (processes) share one lobby: `trainer.server.cluster` says how."""

    def __init__(self, config: ServerConfig):
        import os
        import secrets
        import socket

        from audio.clock import SYSTEM
        from trainer.server.bus import LocalBus, PgBus
        from trainer.server.cluster import Cluster
        self.config = config
        self.clock = config.base_clock or SYSTEM
        self.store = Store(config.db)
        self.store.migrate()
        self.server = f"{socket.gethostname()[:20]}-{os.getpid()}-{secrets.token_hex(3)}"
        """This process's name in the heartbeat table and on the tables it owns."""
        self.bus: LocalBus | PgBus = (PgBus(self.store.dsn(), self.server) if self.store.shared
                                      else LocalBus())
        self.cluster = Cluster(self)
        self.tables: dict[str, LiveTable] = {}
        self.members: dict[str, dict[Conn, int | None]] = {}
        self.conns: set[Conn] = set()
        self.timers: dict[str, asyncio.Task] = {}
        self.logins = LoginGuard(config.login_failures, config.login_window)
        self.wake: dict[str, asyncio.Event] = {}
        self._numbers = 0
        self._ending: set[str] = set()
        self._jobs: set[asyncio.Future] = set()
        self.note_handlers: dict[str, Callable[[dict[str, Any]], Awaitable[None]]] = {
            "table": self._note_table, "moved": self._note_moved, "away": self._note_away,
            "races": self._note_races}
        """What a note from another process does, by its ``op`` (a new module may add its own)."""
        self.handlers: dict[str, Callable[[Conn, dict[str, Any]], Awaitable[None]]] = {}
        """Client message kinds handled outside this class (a new module registers its own; the
        kind and its fields must also be in `trainer.server.messages`); else ``_on_<kind>``."""
        self.races = RaceHall(self)
        """Kyōgi and Mubeyama read on each client, timed on its machine (``race.*``, docs/online-races.md)."""

    async def db(self, call: Callable[..., Any], *args: Any) -> Any:
        """A database call: on PostgreSQL in a thread (a network round trip must not stall
        every table); SQLite's short local calls stay on the loop."""
        if self.store.shared:
            return await asyncio.to_thread(call, *args)
        return call(*args)

    # -- start and stop -----------------------------------------------------------------------
    async def start(self) -> None:
        """Lock the SQLite file (one process), restore every unfinished table, own the orphans."""
        self.store.claim_file()
        if self.store.shared:
            await self.cluster.start()
            self.restore()
            await self.cluster.claim()
        else:
            self.store.claim(self.server, 0.0)
            self.restore()

    def restore(self) -> None:
        """Every unfinished table from the database, replayed to where it was."""
        for row, actions in self.store.live_tables():
            if row["id"] not in self.tables:
                self._restored(row, actions)

    def _restored(self, row: dict[str, Any], actions: list[Any]) -> LiveTable | None:
        table = LiveTable(row, self.clock)
        try:
            table.restore(actions)
        except Exception:  # noqa: BLE001 - one damaged table must not keep the lobby down
            log.exception("table %s could not be restored; it is left out", row["id"])
            return None
        self._add(table)
        return table

    async def load(self, table_id: str) -> LiveTable | None:
        """A table another process made or owned, from the database."""
        row = await self.db(self.store.table_row, table_id)
        if row is None or row["status"] == OVER:
            return None
        actions = await self.db(self.store.actions_of, table_id)
        if table_id in self.tables:        # loaded meanwhile by another note
            return self.tables[table_id]
        table = self._restored(row, actions)
        self._lobby_changed()
        return table

    def _add(self, table: LiveTable) -> None:
        self.tables[table.id] = table
        self.members.setdefault(table.id, {})
        if table.status == PLAYING:
            self._start_timer(table)

    async def close(self) -> None:
        await self.races.close()
        for task in self.timers.values():
            task.cancel()
        for conn in list(self.conns):
            conn.closed = True
            conn.queue.put_nowait(None)
        if self.store.shared:
            await self.cluster.close()
            await self.bus.close()
        self.store.close()

    # -- a connection -------------------------------------------------------------------------
    async def serve(self, ws: WebSocket) -> None:
        await ws.accept()
        self._numbers += 1
        conn = Conn(self, ws, self._numbers)
        self.conns.add(conn)
        writer = asyncio.create_task(self._write(conn))
        strikes = 0
        try:
            while not conn.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if not conn.allow():
                    strikes += 1
                    conn.send({"type": "error", "error": "rate_limited",
                               "message": f"at most {self.config.rate:g} messages a second"})
                    if strikes > 100:
                        break
                    continue
                strikes = 0
                await self._handle(conn, text if text is not None else message.get("bytes"))
        except WebSocketDisconnect:
            pass
        finally:
            self._drop(conn)
            conn.closed = True
            conn.queue.put_nowait(None)
            await writer

    async def _write(self, conn: Conn) -> None:
        try:
            while True:
                text = await conn.queue.get()
                if text is None:
                    break
                await conn.ws.send_text(text)
        except Exception:  # noqa: BLE001 - the client went away; the reader notices too
            pass
        finally:
            try:
                await conn.ws.close()
            except Exception:  # noqa: BLE001 - already closed
                pass

    def _drop(self, conn: Conn) -> None:
        self.conns.discard(conn)
        self.races.dropped(conn)
        for table_id, seat in list(conn.tables.items()):
            members = self.members.get(table_id, {})
            members.pop(conn, None)
            table = self.tables.get(table_id)
            if (seat is not None and table is not None and table.status == PLAYING
                    and seat not in members.values()):
                self._spawn(self._presence(table, seat, here=False))

    def _spawn(self, job: Awaitable[None]) -> None:
        task = asyncio.ensure_future(job)
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    async def _presence(self, table: LiveTable, seat: int, here: bool) -> None:
        """A seated person's last connection to a playing table went, or they came back: the seat
        is held for `ServerConfig.seat_hold` s, then its stand-in plays. Every process is told
        (the one running the table's timer may be another)."""
        if self._mark(table, seat, here, self.clock.now()):
            await self.bus.publish({"op": "away", "table": table.id, "seat": seat, "here": here})

    def _mark(self, table: LiveTable, seat: int, here: bool, when: float) -> bool:
        if here == (seat not in table.away):
            return False
        if here:
            table.away.pop(seat, None)
        else:
            table.away[seat] = when
        for member in self.members.get(table.id, {}):
            member.send({"type": "table", **table.summary(), "you": member.tables.get(table.id)})
        self.wake_timer(table)
        return True

    async def _note_races(self, _note: dict[str, Any]) -> None:
        """Another process's race tables changed: its rows read again, the lobby told."""
        await self.races.listing.refresh()

    async def _note_away(self, note: dict[str, Any]) -> None:
        table = self.tables.get(note["table"])
        seat = note.get("seat")
        if table is not None and isinstance(seat, int) and not isinstance(seat, bool):
            self._mark(table, seat, bool(note.get("here")), self.clock.now())

    def _left(self, table: LiveTable) -> float | None:
        """Seconds until the table moves by itself: its turn timer, or sooner when the seat to
        act is away beyond the seat hold (then at once)."""
        left = table.turn_left()
        if left is None or table.driver is None or not table.away:
            return left
        now = self.clock.now()
        for seat in table.driver.session.waiting_for():
            if seat in table.away:
                left = min(left, max(0.0, table.away[seat] + self.config.seat_hold - now))
        return left

    async def _handle(self, conn: Conn, text: Any) -> None:
        ident = None
        try:
            msg = parse_message(text, self.config.max_message, self.config.max_depth)
            ident = msg.get("id")
            await self._dispatch(conn, msg)
        except ClientError as exc:
            conn.send(_with_id({"type": "error", "error": exc.error, "message": exc.message, **exc.fields}, ident))
        except IllegalAction as exc:
            conn.send(_with_id({"type": "refusal", "reason": exc.reason,
                                "fields": _safe_json(exc.fields)}, ident))
        except Exception:  # noqa: BLE001 - a bug must not reach the client or stop the server
            log.exception("message from connection %d failed", conn.number)
            conn.send(_with_id({"type": "error", "error": "internal",
                                "message": "the server could not do that; nothing changed"}, ident))

    async def _dispatch(self, conn: Conn, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        log.info("connection %d: %s", conn.number, kind)   # never the message: it may hold a password
        ident = msg.get("id")
        if kind == "hello":
            if msg["version"] != PROTOCOL_VERSION:
                raise ClientError("unsupported_version", f"this server speaks protocol {PROTOCOL_VERSION}")
            conn.hello = True
            from trainer import __version__
            conn.send(_with_id({"type": "welcome", "version": PROTOCOL_VERSION, "server": f"karuta {__version__}",
                                "games": list(GAMES), "races": list(RACE_GAMES),
                                "limits": {"max_message": self.config.max_message, "rate": self.config.rate,
                                           "burst": self.config.burst}}, ident))
            return
        if not conn.hello:
            raise ClientError("hello_first", "say hello (with the protocol version) first")
        if kind in ("sign_up", "log_in", "guest"):
            await self._sign_in(conn, msg)
            return
        if conn.user is None:
            raise ClientError("not_signed_in", "sign up, log in or come as a guest first")
        if kind.startswith("race."):
            await self.races.handle(conn, msg)
            return
        handler = self.handlers.get(kind) or getattr(self, f"_on_{kind}")
        await handler(conn, msg)

    # -- accounts -----------------------------------------------------------------------------
    async def _sign_in(self, conn: Conn, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if conn.user is not None:
            # the connection's seats are its user's: a second sign-in would hand them to another
            raise ClientError("already_signed_in", "this connection is signed in; sign in as "
                              "someone else on a new connection")
        user: User | None
        if kind == "guest":
            user = await self.db(self.store.guest)
        elif kind == "sign_up":
            name, password = msg["name"], msg["password"]
            if not _NAME.match(name):
                raise ClientError("bad_name", "a name is 1 to 24 letters, digits, - or _")
            if not 8 <= len(password) <= 128:
                raise ClientError("bad_password", "a password is 8 to 128 characters")
            user = await asyncio.to_thread(self.store.sign_up, name, password)
            if user is None:
                raise ClientError("name_taken", "that name is taken")
        elif isinstance(msg.get("token"), str):
            user = await self.db(self.store.user_for_token, msg["token"])
            # a name given with a token must be the token's own: never log in as someone else quietly
            if user is None or (msg.get("name") is not None and msg["name"] != user.name):
                raise ClientError("bad_credentials", "unknown or expired token")
        else:
            if not isinstance(msg.get("name"), str) or not isinstance(msg.get("password"), str):
                raise ClientError("bad_message", "log_in needs a name and a password, or a token")
            if self.logins.locked(msg["name"]):
                raise ClientError("too_many_attempts", "too many wrong passwords for this name; "
                                  "try again in a few minutes")
            user = await asyncio.to_thread(self.store.log_in, msg["name"], msg["password"])
            if user is None:
                self.logins.failed(msg["name"])
                raise ClientError("bad_credentials", "wrong name or password")
            self.logins.succeeded(msg["name"])
        conn.user = user
        token = (msg["token"] if kind == "log_in" and msg.get("token")
                 else await self.db(self.store.new_token, user))
        rating = None
        if not user.guest:       # a guest is never rated
            skill = await self.db(self.store.rating_of, user.id, "kyogi")
            rating = {"game": "kyogi", "rating": skill.shown, "games": skill.games}
        conn.send(_with_id({"type": "signed_in", "name": user.name, "guest": user.guest, "token": token,
                            "rating": rating}, msg.get("id")))

    async def _on_leaderboard(self, conn: Conn, msg: dict[str, Any]) -> None:
        """The best rated accounts at a game (kyōgi), one shown number each (`trainer.server.ratings`)."""
        game = msg.get("game") or "kyogi"
        if game not in RATED_GAMES:
            raise ClientError("unknown_game", f"rated games: {', '.join(RATED_GAMES)}")
        limit = msg.get("limit", 20)
        if limit is None:
            limit = 20
        if not 1 <= limit <= LEADERBOARD_MAX:
            raise ClientError("bad_option", f"limit is 1 to {LEADERBOARD_MAX}")
        rows = await self.db(self.store.leaderboard, game, limit)
        players = [{"rank": rank, "name": name, "rating": skill.shown, "games": skill.games}
                   for rank, (name, skill) in enumerate(rows, 1)]
        conn.send(_with_id({"type": "leaderboard", "game": game, "players": players}, msg.get("id")))

    # -- the lobby ----------------------------------------------------------------------------
    async def _on_lobby(self, conn: Conn, msg: dict[str, Any]) -> None:
        conn.lobby = True
        conn.send(_with_id(self._lobby_frame(conn), msg.get("id")))

    def _lobby_frame(self, conn: Conn) -> dict[str, Any]:
        uid = conn.user.id if conn.user else None
        shown = [t.summary() for t in self.tables.values()
                 if t.status != OVER and (not t.private or t.host == uid or t.seat_of(uid or -1) is not None)]
        return {"type": "lobby", "tables": shown, "races": self.races.summaries(uid)}

    def _lobby_changed(self) -> None:
        for conn in list(self.conns):
            if conn.lobby:
                conn.send(self._lobby_frame(conn))

    async def _on_create_table(self, conn: Conn, msg: dict[str, Any]) -> None:
        assert conn.user is not None
        game = msg["game"]
        if game not in GAMES:
            raise ClientError("unknown_game", f"the server plays {', '.join(GAMES)}")
        try:
            variant = find(game, msg.get("variant") or None)
            seats = variant.check_seats(msg.get("seats"))
        except (KeyError, ValueError):
            raise ClientError("bad_option", "no such variant, or not that many seats") from None
        level = msg.get("level") or DEFAULT_LEVEL[game]
        if level not in CPU_LEVELS[game]:
            raise ClientError("bad_option", f"CPU levels: {', '.join(CPU_LEVELS[game])}")
        cpus = msg.get("cpus") or []
        if not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < seats for s in cpus):
            raise ClientError("bad_option", "cpus lists seat numbers")
        turn = msg.get("turn_seconds", self.config.turn_seconds)
        if turn is not None and not self.config.min_turn_seconds <= turn <= 3600:
            raise ClientError("bad_option", f"turn_seconds is between {self.config.min_turn_seconds:g} "
                              "and 3600, or null (no timer)")
        seed = msg.get("seed")
        if seed is not None and not self.config.allow_seeds:
            raise ClientError("bad_option", "this server chooses the seeds")
        rules: dict[str, int] = {}
        for key, (low, high) in RULE_OPTIONS[game].items():
            if msg.get(key) is not None:
                if not low <= msg[key] <= high:
                    raise ClientError("bad_option", f"{key} is {low} to {high}")
                rules[key] = msg[key]
        for key in ("deals", "rounds"):
            if msg.get(key) is not None and key not in rules:
                raise ClientError("bad_option", f"{game} has no option {key}")
        hosted = sum(1 for t in self.tables.values() if t.host == conn.user.id and t.status == OPEN)
        if hosted >= self.config.max_open_tables:
            raise ClientError("too_many_tables", f"at most {self.config.max_open_tables} tables not yet "
                              "started an account; start or leave some first")
        row = LiveTable.new_row(variant, seats, level, sorted(set(cpus)), turn, bool(msg.get("private")),
                                conn.user.id, seed, rules)
        row["owner"] = self.server
        await self.db(self.store.add_table, row)
        table = LiveTable(row, self.clock)
        self._add(table)
        reply = {"type": "created", "table": table.id}
        if table.code:
            reply["code"] = table.code
        conn.send(_with_id(reply, msg.get("id")))
        self._lobby_changed()
        await self.bus.publish({"op": "table", "table": table.id})

    def _table(self, conn: Conn, msg: dict[str, Any], member: bool = True) -> LiveTable:
        table = self.tables.get(msg["table"])
        if table is None:
            raise ClientError("no_such_table", "no such table")
        if member and table.id not in conn.tables:
            raise ClientError("not_at_table", "join the table first")
        return table

    async def _on_join(self, conn: Conn, msg: dict[str, Any]) -> None:
        await self._enter(conn, msg, sit=True)

    async def _on_spectate(self, conn: Conn, msg: dict[str, Any]) -> None:
        await self._enter(conn, msg, sit=False)

    async def _enter(self, conn: Conn, msg: dict[str, Any], sit: bool) -> None:
        assert conn.user is not None
        table = self._table(conn, msg, member=False)
        uid, name = conn.user.id, conn.user.name
        held = table.seat_of(uid)
        if table.private and held is None and table.host != uid and msg.get("code") != table.code:
            raise ClientError("bad_code", "this table needs its invitation code")
        changed = False
        if sit and held is None:
            wanted = msg.get("seat")

            def take(seats: list[dict[str, Any]], status: str) -> tuple[list[dict[str, Any]], str]:
                if _seat_in(seats, uid) is not None:
                    return seats, status
                if status != OPEN:
                    raise ClientError("not_open", "the game has started; you may spectate")
                free = [s for s, info in enumerate(seats) if not info]
                seat = wanted
                if seat is None:
                    if not free:
                        raise ClientError("seat_taken", "no free seat")
                    seat = free[0]
                _check_free(seats, seat)
                seats[seat] = {"user": uid, "name": name}
                return seats, status
            changed = await self._change_seats(table, take)
        elif not sit and held is not None and table.status == OPEN:
            changed = await self._change_seats(table, _vacate(uid))
        seat = table.seat_of(uid)
        if not sit and table.status == OPEN:
            seat = None
        conn.tables[table.id] = seat
        conn.sent[table.id] = 0
        self.members[table.id][conn] = seat
        if seat is not None and seat in table.away:
            await self._presence(table, seat, here=True)
        self._send_table(conn, table, msg.get("id"))
        if changed:
            self._seats_told(table)

    async def _on_sit(self, conn: Conn, msg: dict[str, Any]) -> None:
        assert conn.user is not None
        table = self._table(conn, msg)
        uid, name, wanted = conn.user.id, conn.user.name, msg["seat"]

        def move(seats: list[dict[str, Any]], status: str) -> tuple[list[dict[str, Any]], str]:
            if status != OPEN:
                raise ClientError("not_open", "seats are taken before the game starts")
            _check_free(seats, wanted)
            held = _seat_in(seats, uid)
            if held is not None:
                seats[held] = {}
            seats[wanted] = {"user": uid, "name": name}
            return seats, status
        await self._change_seats(table, move)
        self._send_table(conn, table, msg.get("id"))
        self._seats_told(table)

    async def _on_leave(self, conn: Conn, msg: dict[str, Any]) -> None:
        assert conn.user is not None
        table = self._table(conn, msg)
        held = table.seat_of(conn.user.id)
        conn.tables.pop(table.id, None)
        self.members[table.id].pop(conn, None)
        conn.send(_with_id({"type": "left", "table": table.id}, msg.get("id")))
        if held is not None and table.status == OPEN:
            if await self._change_seats(table, _vacate(conn.user.id)):
                self._seats_told(table)

    async def _on_start(self, conn: Conn, msg: dict[str, Any]) -> None:
        assert conn.user is not None
        table = self._table(conn, msg, member=False)
        if table.host != conn.user.id:
            raise ClientError("not_host", "only the table's host starts it")
        if table.id not in conn.tables:   # the table's frames go to its members: say so, not nothing
            raise ClientError("not_at_table", "join the table before starting it")

        def start(seats: list[dict[str, Any]], status: str) -> tuple[list[dict[str, Any]], str]:
            if status != OPEN:
                raise ClientError("not_open", "the game has started")
            if not any(info and "user" in info for info in seats):
                # CPUs alone would play the whole game inside this one message (a ten-round Yomi:
                # about a second of the server's loop), so one client could stall every table
                raise ClientError("no_person", "a table starts with at least one person seated")
            return table.filled(seats), PLAYING
        await self._change_seats(table, start)
        self._seats_told(table)

    async def _change_seats(self, table: LiveTable,
                            change: Callable[[list[dict[str, Any]], str], tuple[list[dict[str, Any]], str]]) -> bool:
        """Seats (and the status) changed in the database under the row's lock, then here, then
        the other processes told. A table whose seats are all taken starts. False: no change."""
        def and_start(seats: list[dict[str, Any]], status: str) -> tuple[list[dict[str, Any]], str]:
            before = [dict(s) for s in seats], status
            seats, status = change(seats, status)
            if status == OPEN and all(seats):
                status = PLAYING
            if (seats, status) == before:
                raise _Unchanged
            return seats, status
        async with table.lock:
            try:
                seats, status = await self.db(self.store.change_seats, table.id, and_start)
            except _Unchanged:
                # nothing to change, yet this copy may be behind the row (a note not yet read,
                # or lost with a process that died): take the row as it is
                row = await self.db(self.store.table_row, table.id)
                if row is not None and (row["seats"], row["status"]) != (table.seats, table.status):
                    self._take_row(table, row["seats"], row["status"])
                    await self._catch_up(table)
                return False
            self._take_row(table, seats, status)
        await self.bus.publish({"op": "table", "table": table.id})
        return True

    def _take_row(self, table: LiveTable, seats: list[dict[str, Any]], status: str) -> None:
        """The table as its row now says (seats, status); a table that started here is dealt."""
        table.seats = seats
        if status == PLAYING and table.driver is None:
            table.start()
            self._start_timer(table)
        elif status == OVER:
            table.status = OVER
        self._reseat(table)

    def _seats_told(self, table: LiveTable) -> None:
        """Every member hears of new seats (and, when the game began, its first view); the lobby too."""
        for member in self.members[table.id]:
            member.send({"type": "table", **table.summary(), "you": member.tables.get(table.id)})
        if table.driver is not None:
            self._broadcast(table)
        self._lobby_changed()

    def _reseat(self, table: LiveTable) -> None:
        """Every member's seat after seats moved (a person's seat follows their user)."""
        for member in self.members[table.id]:
            if member.user is not None:
                seat = table.seat_of(member.user.id)
                self.members[table.id][member] = seat
                member.tables[table.id] = seat

    # -- notes from other processes -----------------------------------------------------------
    async def on_note(self, note: dict[str, Any]) -> None:
        handler = self.note_handlers.get(str(note.get("op")))
        if handler is not None and isinstance(note.get("table"), str):
            await handler(note)

    async def _note_table(self, note: dict[str, Any]) -> None:
        """A table was made, or its seats or status changed, by another process."""
        table = self.tables.get(note["table"])
        if table is None:
            await self.load(note["table"])
            return
        async with table.lock:
            # read under the lock: a row read earlier could be older than a change made here since
            row = await self.db(self.store.table_row, table.id)
            if row is None or (row["seats"], row["status"]) == (table.seats, table.status):
                return
            self._take_row(table, row["seats"], row["status"])
            await self._catch_up(table)       # actions recorded elsewhere since the start
        self._seats_told(table)

    async def _note_moved(self, note: dict[str, Any]) -> None:
        """Another process recorded actions at a table: catch up and tell the members here."""
        table = self.tables.get(note["table"])
        if table is None:
            await self.load(note["table"])
            return
        async with table.lock:
            if await self._catch_up(table):
                self._told_of_change(table)

    async def _catch_up(self, table: LiveTable) -> bool:
        """Apply what the database has beyond this copy of the table (another process's
        records); True when there was something. Call with the table's lock held."""
        if table.driver is None:
            return False
        records = await self.db(self.store.actions_of, table.id, table.seq)
        if not records:
            return False
        try:
            table.replay(records)
        except Exception:  # noqa: BLE001 - this copy went wrong: build it again from the log
            log.exception("table %s: catching up failed", table.id)
            await self._rebuild(table)
        return True

    # -- play ---------------------------------------------------------------------------------
    async def _on_act(self, conn: Conn, msg: dict[str, Any]) -> None:
        table = self._table(conn, msg)
        seat = conn.tables.get(table.id)
        if seat is None:
            raise ClientError("not_seated", "spectators do not act")
        async with table.lock:
            if self.store.shared and await self._catch_up(table):
                self._told_of_change(table)
            await self._act(table, seat, msg)
        await self.bus.publish({"op": "moved", "table": table.id})

    async def _act(self, table: LiveTable, seat: int, msg: dict[str, Any]) -> None:
        if table.status != PLAYING or table.driver is None:
            raise ClientError("not_playing", "the table is not playing")
        if msg["seq"] != table.driver.version():
            raise ClientError("stale_seq", "the table has moved on; act on the newest view")
        try:
            action = codec.decode_action(table.game, table.rules, msg["action"], seat)
        except codec.CodecError as exc:
            raise ClientError("bad_action", str(exc)[:160]) from None
        try:
            table.act(seat, action)
        except IllegalAction:
            raise
        except Exception:
            await self._rebuild(table)
            raise
        try:
            await self.db(self.store.add_action, table.id, table.seq, seat, "act", codec.encode_action(action))
        except SeqTaken:
            # another process recorded this table's next action first: theirs stands
            await self._rebuild(table)
            self._told_of_change(table)
            raise ClientError("stale_seq", "the table has moved on; act on the newest view") from None
        except Exception:
            await self._rebuild(table)
            raise
        table.seq += 1
        try:
            table.after_action()
            await self._after_change(table)
        except Exception:  # noqa: BLE001 - the action is confirmed: rebuild from the log, tell everyone
            log.exception("table %s: after an action", table.id)
            await self._rebuild(table)
            self._broadcast(table)

    async def _after_change(self, table: LiveTable) -> None:
        """A change this process recorded: the finished status stored, every member told."""
        if table.status == OVER:
            await self.db(lambda: self.store.update_table(table.id, status=OVER))
        self._told_of_change(table)

    def _told_of_change(self, table: LiveTable) -> None:
        """The members here hear of a change (recorded here or by another process)."""
        if table.status == OVER and table.id not in self._ending:
            self._ending.add(table.id)
            self._lobby_changed()
            asyncio.get_running_loop().call_later(self.config.keep_finished, self._forget, table.id)
        self._broadcast(table)
        self.wake_timer(table)

    async def _rebuild(self, table: LiveTable) -> None:
        """After an unexpected failure or a lost race: the table as the database has it."""
        log.warning("table %s is rebuilt from its log", table.id)
        fresh = LiveTable({"id": table.id, "game": table.game, "variant": table.variant.variant,
                           "seed": table.seed, "options": table.options, "seats": table.seats,
                           "status": PLAYING, "private": table.private, "code": table.code,
                           "host": table.host, "owner": table.owner}, self.clock)
        fresh.restore(await self.db(self.store.actions_of, table.id))
        table.driver, table.clock, table.seq, table.status = fresh.driver, fresh.clock, fresh.seq, fresh.status
        table.changed_at = fresh.changed_at

    def _forget(self, table_id: str) -> None:
        """A finished table leaves memory (see `ServerConfig.keep_finished`)."""
        self.tables.pop(table_id, None)
        self._ending.discard(table_id)
        for conn in self.members.pop(table_id, {}):
            conn.tables.pop(table_id, None)
            conn.sent.pop(table_id, None)
        self.wake.pop(table_id, None)

    def wake_timer(self, table: LiveTable) -> None:
        wake = self.wake.get(table.id)
        if wake is not None:
            wake.set()

    def _start_timer(self, table: LiveTable) -> None:
        if table.id in self.timers or table.status != PLAYING:
            return
        self.wake[table.id] = asyncio.Event()
        self.timers[table.id] = asyncio.create_task(self._timer(table))

    async def _timer(self, table: LiveTable) -> None:
        """Runs out a person's turn when its time is up, on the table's owner only; every
        other process waits to be woken (by a change, or by taking the table over)."""
        wake = self.wake[table.id]
        while table.status == PLAYING and table.driver is not None:
            wake.clear()
            left = self._left(table)
            try:
                if left is None or table.owner != self.server:
                    await wake.wait()
                    continue
                if left > 0:
                    await asyncio.wait_for(wake.wait(), timeout=left + 0.001)
                    continue
            except TimeoutError:
                pass
            try:
                await self._time_out(table)
            except Exception:  # noqa: BLE001 - keep the lobby up; the table is rebuilt from its log
                log.exception("table %s: the timer failed", table.id)
                await self._rebuild(table)
                await asyncio.sleep(1.0)
        self.timers.pop(table.id, None)

    async def _time_out(self, table: LiveTable) -> None:
        """The turn ran out: the seat's stand-in plays, recorded as a time-out."""
        async with table.lock:
            if self.store.shared and await self._catch_up(table):
                self._told_of_change(table)
                return
            left = self._left(table)
            if left is None or left > 0.002 or table.owner != self.server:
                return
            events = table.time_out()
            try:
                for event in events:
                    if event.kind == "table.timeout":
                        await self.db(self.store.add_action, table.id, table.seq, event.fields()["seat"],
                                      "timeout", None)
                        table.seq += 1
            except SeqTaken:
                await self._rebuild(table)
                self._told_of_change(table)
                return
            await self._after_change(table)
        await self.bus.publish({"op": "moved", "table": table.id})

    # -- what each member receives ------------------------------------------------------------
    def _broadcast(self, table: LiveTable) -> None:
        for member, seat in list(self.members[table.id].items()):
            self._send_play(member, table, seat)

    def _send_table(self, conn: Conn, table: LiveTable, ident: Any) -> None:
        """The first frames after joining: the table, then (once dealt) the view and the whole log."""
        conn.send(_with_id({"type": "table", **table.summary(), "you": conn.tables.get(table.id)}, ident))
        if table.driver is not None:
            self._send_play(conn, table, conn.tables.get(table.id))

    def _send_play(self, conn: Conn, table: LiveTable, seat: int | None) -> None:
        if table.driver is None:
            return
        log_now = table.log_for(seat)
        start = conn.sent.get(table.id, 0)
        if start < len(log_now):
            conn.send({"type": "events", "table": table.id, "from": start,
                       "events": [codec.to_json(e) for e in log_now[start:]]})
            conn.sent[table.id] = len(log_now)
        legal = table.driver.legal(seat) if seat is not None else []
        left = table.turn_left()
        conn.send({"type": "view", "table": table.id, "seq": table.driver.version(), "seat": seat,
                   "status": table.status, "view": codec.to_json(table.view_for(seat)),
                   "legal": [codec.encode_action(a) for a in legal],
                   "turn_left": None if left is None else round(left, 3)})
        if table.status == OVER:
            out = table.outcome()
            conn.send({"type": "over", "table": table.id,
                       "outcome": None if out is None else codec.to_json(out)})
            if seat is not None:      # the players (not spectators) read every seat's entries now
                conn.send({"type": "full_log", "table": table.id,
                           "events": [codec.to_json(e) for e in table.full_log()]})


class _Unchanged(Exception):
    """A seat change that changes nothing (nothing written, nobody told)."""


def _seat_in(seats: list[dict[str, Any]], user_id: int) -> int | None:
    return next((s for s, info in enumerate(seats) if info.get("user") == user_id), None)


def _check_free(seats: list[dict[str, Any]], seat: int) -> None:
    if not 0 <= seat < len(seats):
        raise ClientError("no_such_seat", "no such seat")
    if seats[seat]:
        raise ClientError("seat_taken", "that seat is taken")


def _vacate(user_id: int) -> Callable[[list[dict[str, Any]], str], tuple[list[dict[str, Any]], str]]:
    """A seat change: the user's seat emptied while the table is open."""
    def change(seats: list[dict[str, Any]], status: str) -> tuple[list[dict[str, Any]], str]:
        held = _seat_in(seats, user_id)
        if status == OPEN and held is not None:
            seats[held] = {}
        return seats, status
    return change


def _with_id(frame: dict[str, Any], ident: Any) -> dict[str, Any]:
    if ident is not None:
        frame["id"] = ident
    return frame


def _safe_json(fields: dict[str, Any]) -> dict[str, Any]:
    try:
        return codec.to_json(fields)
    except TypeError:
        return {}


def create_app(config: ServerConfig | None = None, hub: Hub | None = None) -> Starlette:
    """The ASGI application (`karuta serve` runs it under uvicorn; tests may run it in-process)."""
    hub = hub or Hub(config or ServerConfig())

    async def health(_request: Any) -> PlainTextResponse:
        return PlainTextResponse(f"karuta game server, protocol {PROTOCOL_VERSION}; WebSocket at /ws\n")

    async def socket(ws: WebSocket) -> None:
        await hub.serve(ws)

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app: Starlette):
        await hub.start()
        yield
        await hub.close()

    app = Starlette(routes=[Route("/", health), WebSocketRoute("/ws", socket)], lifespan=lifespan)
    app.state.hub = hub
    return app
