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
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from trainer.games.protocol import GameEvent, IllegalAction
from trainer.games.registry import find
from trainer.server import codec
from trainer.server.adapter import CPU_LEVELS, DEFAULT_LEVEL
from trainer.server.limits import LoginGuard
from trainer.server.messages import ClientError, parse_message
from trainer.server.store import Store, User
from trainer.server.tables import OPEN, OVER, PLAYING, LiveTable

PROTOCOL_VERSION = 1
GAMES = ("unsun", "yomi", "yomi37", "umebotan")
"""The games the server plays (the turn games; kyōgi and Mubeyama race after a reader: later)."""
RULE_OPTIONS = {"unsun": {"deals": (1, 8)}, "yomi": {"rounds": (1, 10)}, "yomi37": {"rounds": (1, 10)},
                "umebotan": {"rounds": (2, 12)}}
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
    keep_finished: float = 600.0
    """Seconds a finished table stays in memory (its members may still look at it); then only
    the database has it, and the server's memory stays flat over a long run."""
    login_failures: int = 5
    login_window: float = 300.0
    """Wrong passwords a name may take within this many seconds (`limits.LoginGuard`)."""
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
    """The lobby, its tables and connections (see the module docstring)."""

    def __init__(self, config: ServerConfig):
        from audio.clock import SYSTEM
        self.config = config
        self.clock = config.base_clock or SYSTEM
        self.store = Store(config.db)
        self.store.migrate()
        self.tables: dict[str, LiveTable] = {}
        self.members: dict[str, dict[Conn, int | None]] = {}
        self.conns: set[Conn] = set()
        self.timers: dict[str, asyncio.Task] = {}
        self.logins = LoginGuard(config.login_failures, config.login_window)
        self.wake: dict[str, asyncio.Event] = {}
        self._numbers = 0

    # -- start and stop -----------------------------------------------------------------------
    def restore(self) -> None:
        """Every unfinished table from the database, replayed to where it was."""
        for row, actions in self.store.live_tables():
            table = LiveTable(row, self.clock)
            try:
                table.restore(actions)
            except Exception:  # noqa: BLE001 - one damaged table must not keep the lobby down
                log.exception("table %s could not be restored; it is left out", row["id"])
                continue
            self._add(table)

    def _add(self, table: LiveTable) -> None:
        self.tables[table.id] = table
        self.members.setdefault(table.id, {})
        if table.status == PLAYING:
            self._start_timer(table)

    async def close(self) -> None:
        for task in self.timers.values():
            task.cancel()
        for conn in list(self.conns):
            conn.closed = True
            conn.queue.put_nowait(None)
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
        for table_id in list(conn.tables):
            self.members.get(table_id, {}).pop(conn, None)

    async def _handle(self, conn: Conn, text: Any) -> None:
        ident = None
        try:
            msg = parse_message(text, self.config.max_message, self.config.max_depth)
            ident = msg.get("id")
            await self._dispatch(conn, msg)
        except ClientError as exc:
            conn.send(_with_id({"type": "error", "error": exc.error, "message": exc.message}, ident))
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
                                "games": list(GAMES),
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
        handler = getattr(self, f"_on_{kind}")
        await handler(conn, msg)

    # -- accounts -----------------------------------------------------------------------------
    async def _sign_in(self, conn: Conn, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        user: User | None
        if kind == "guest":
            user = self.store.guest()
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
            user = self.store.user_for_token(msg["token"])
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
        token = msg.get("token") if kind == "log_in" and msg.get("token") else self.store.new_token(user)
        conn.send(_with_id({"type": "signed_in", "name": user.name, "guest": user.guest, "token": token},
                           msg.get("id")))

    # -- the lobby ----------------------------------------------------------------------------
    async def _on_lobby(self, conn: Conn, msg: dict[str, Any]) -> None:
        conn.lobby = True
        conn.send(_with_id(self._lobby_frame(conn), msg.get("id")))

    def _lobby_frame(self, conn: Conn) -> dict[str, Any]:
        uid = conn.user.id if conn.user else None
        shown = [t.summary() for t in self.tables.values()
                 if t.status != OVER and (not t.private or t.host == uid or t.seat_of(uid or -1) is not None)]
        return {"type": "lobby", "tables": shown}

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
        if turn is not None and not 0.05 <= turn <= 3600:
            raise ClientError("bad_option", "turn_seconds is between 0.05 and 3600, or null (no timer)")
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
        row = LiveTable.new_row(variant, seats, level, sorted(set(cpus)), turn, bool(msg.get("private")),
                                conn.user.id, seed, rules)
        self.store.add_table(row)
        table = LiveTable(row, self.clock)
        self._add(table)
        reply = {"type": "created", "table": table.id}
        if table.code:
            reply["code"] = table.code
        conn.send(_with_id(reply, msg.get("id")))
        self._lobby_changed()

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
        uid = conn.user.id
        held = table.seat_of(uid)
        if table.private and held is None and table.host != uid and msg.get("code") != table.code:
            raise ClientError("bad_code", "this table needs its invitation code")
        seat: int | None = held
        changed = False
        if sit and held is None:
            if table.status != OPEN:
                raise ClientError("not_open", "the game has started; you may spectate")
            wanted = msg.get("seat")
            free = table.free_seats()
            if wanted is None:
                if not free:
                    raise ClientError("seat_taken", "no free seat")
                wanted = free[0]
            self._check_free(table, wanted)
            table.seats[wanted] = {"user": uid, "name": conn.user.name}
            seat, changed = wanted, True
        elif not sit and held is not None and table.status == OPEN:
            table.seats[held] = {}
            seat, changed = None, True
        elif not sit:
            seat = None if held is None or table.status == OPEN else held
        conn.tables[table.id] = seat
        conn.sent[table.id] = 0
        self.members[table.id][conn] = seat
        if changed:
            self.store.update_table(table.id, seats=table.seats)
        self._send_table(conn, table, msg.get("id"))
        if changed:
            await self._seats_changed(table)

    @staticmethod
    def _check_free(table: LiveTable, seat: int) -> None:
        if not 0 <= seat < len(table.seats):
            raise ClientError("no_such_seat", "no such seat")
        if table.seats[seat]:
            raise ClientError("seat_taken", "that seat is taken")

    async def _on_sit(self, conn: Conn, msg: dict[str, Any]) -> None:
        assert conn.user is not None
        table = self._table(conn, msg)
        if table.status != OPEN:
            raise ClientError("not_open", "seats are taken before the game starts")
        self._check_free(table, msg["seat"])
        held = table.seat_of(conn.user.id)
        if held is not None:
            table.seats[held] = {}
        table.seats[msg["seat"]] = {"user": conn.user.id, "name": conn.user.name}
        self._reseat(table)
        self.store.update_table(table.id, seats=table.seats)
        self._send_table(conn, table, msg.get("id"))
        await self._seats_changed(table)

    async def _on_leave(self, conn: Conn, msg: dict[str, Any]) -> None:
        assert conn.user is not None
        table = self._table(conn, msg)
        held = table.seat_of(conn.user.id)
        conn.tables.pop(table.id, None)
        self.members[table.id].pop(conn, None)
        conn.send(_with_id({"type": "left", "table": table.id}, msg.get("id")))
        if held is not None and table.status == OPEN:
            table.seats[held] = {}
            self._reseat(table)
            self.store.update_table(table.id, seats=table.seats)
            await self._seats_changed(table)

    async def _on_start(self, conn: Conn, msg: dict[str, Any]) -> None:
        assert conn.user is not None
        table = self._table(conn, msg, member=False)
        if table.host != conn.user.id:
            raise ClientError("not_host", "only the table's host starts it")
        if table.status != OPEN:
            raise ClientError("not_open", "the game has started")
        if not any("user" in info for info in table.seats):
            # CPUs alone would play the whole game inside this one message (a ten-round Yomi:
            # about a second of the server's loop), so one client could stall every table
            raise ClientError("no_person", "a table starts with at least one person seated")
        await self._start(table)

    def _reseat(self, table: LiveTable) -> None:
        """Every member's seat after seats moved (a person's seat follows their user)."""
        for member in self.members[table.id]:
            if member.user is not None:
                seat = table.seat_of(member.user.id)
                self.members[table.id][member] = seat
                member.tables[table.id] = seat

    async def _seats_changed(self, table: LiveTable) -> None:
        self._reseat(table)
        for member in self.members[table.id]:
            member.send({"type": "table", **table.summary(), "you": member.tables.get(table.id)})
        self._lobby_changed()
        if table.status == OPEN and table.is_full():
            await self._start(table)

    async def _start(self, table: LiveTable) -> None:
        table.start()
        self.store.update_table(table.id, seats=table.seats, status=table.status)
        self._reseat(table)
        self._start_timer(table)
        self._broadcast(table)
        self._lobby_changed()

    # -- play ---------------------------------------------------------------------------------
    async def _on_act(self, conn: Conn, msg: dict[str, Any]) -> None:
        table = self._table(conn, msg)
        seat = conn.tables.get(table.id)
        if seat is None:
            raise ClientError("not_seated", "spectators do not act")
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
            self._rebuild(table)
            raise
        try:
            self.store.add_action(table.id, table.seq, seat, "act", codec.encode_action(action))
        except Exception:
            self._rebuild(table)
            raise
        table.seq += 1
        try:
            self._after_change(table)
        except Exception:  # noqa: BLE001 - the action is confirmed: rebuild from the log, tell everyone
            log.exception("table %s: after an action", table.id)
            self._rebuild(table)
            self._broadcast(table)

    def _after_change(self, table: LiveTable) -> None:
        """CPU moves and time-outs due now, recorded; then every member hears of it."""
        events = table.after_action()
        self._record_timeouts(table, events)
        if table.status == OVER:
            self.store.update_table(table.id, status=OVER)
            self._lobby_changed()
            asyncio.get_running_loop().call_later(self.config.keep_finished, self._forget, table.id)
        self._broadcast(table)
        wake = self.wake.get(table.id)
        if wake is not None:
            wake.set()

    def _record_timeouts(self, table: LiveTable, events: list[GameEvent]) -> None:
        for event in events:
            if event.kind == "table.timeout":
                self.store.add_action(table.id, table.seq, event.fields()["seat"], "timeout", None)
                table.seq += 1

    def _rebuild(self, table: LiveTable) -> None:
        """After an unexpected failure: the table as the database has it (nothing unconfirmed kept)."""
        log.error("table %s is rebuilt from its log after a failure", table.id)
        fresh = LiveTable({"id": table.id, "game": table.game, "variant": table.variant.variant,
                           "seed": table.seed, "options": table.options, "seats": table.seats,
                           "status": PLAYING, "private": table.private, "code": table.code,
                           "host": table.host}, self.clock)
        fresh.restore(self.store.actions_of(table.id))
        table.driver, table.clock, table.seq, table.status = fresh.driver, fresh.clock, fresh.seq, fresh.status

    def _forget(self, table_id: str) -> None:
        """A finished table leaves memory (see `ServerConfig.keep_finished`)."""
        self.tables.pop(table_id, None)
        for conn in self.members.pop(table_id, {}):
            conn.tables.pop(table_id, None)
            conn.sent.pop(table_id, None)
        self.wake.pop(table_id, None)

    def _start_timer(self, table: LiveTable) -> None:
        if table.id in self.timers or table.status != PLAYING:
            return
        self.wake[table.id] = asyncio.Event()
        self.timers[table.id] = asyncio.create_task(self._timer(table))

    async def _timer(self, table: LiveTable) -> None:
        """Wakes the table when its session is due (a turn timer), until the game ends."""
        wake = self.wake[table.id]
        while table.status == PLAYING and table.driver is not None:
            due = table.driver.next_due()
            wake.clear()
            try:
                if due is None:
                    await wake.wait()
                    continue
                await asyncio.wait_for(wake.wait(), timeout=max(0.0, due - table.clock.now()) + 0.001)
                continue
            except TimeoutError:
                pass
            try:
                self._after_change(table)
            except Exception:  # noqa: BLE001 - keep the lobby up; the table is rebuilt from its log
                log.exception("table %s: the timer failed", table.id)
                self._rebuild(table)
                await asyncio.sleep(1.0)
        self.timers.pop(table.id, None)

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
        due = table.driver.next_due()
        conn.send({"type": "view", "table": table.id, "seq": table.driver.version(), "seat": seat,
                   "status": table.status, "view": codec.to_json(table.view_for(seat)),
                   "legal": [codec.encode_action(a) for a in legal],
                   "turn_left": None if due is None else round(max(0.0, due - table.clock.now()), 3)})
        if table.status == OVER:
            out = table.outcome()
            conn.send({"type": "over", "table": table.id,
                       "outcome": None if out is None else codec.to_json(out)})


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
        hub.restore()
        yield
        await hub.close()

    app = Starlette(routes=[Route("/", health), WebSocketRoute("/ws", socket)], lifespan=lifespan)
    app.state.hub = hub
    return app
