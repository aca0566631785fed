"""One connection to a game server for the app: websockets' asyncio client in a worker thread.

Why a thread with websockets rather than QtWebSockets: PySide6 as installed
(the Essentials wheels) ships no QtWebSockets, and `websockets` is already the
server's WebSocket layer and the bot's client. The worker runs its own asyncio
loop; the GUI thread calls `send` (thread-safe) and hears of frames and
status changes through two callbacks called *in the worker thread*: the Qt
layer re-emits them as signals, which Qt queues to the GUI thread.

A dropped connection (the server stopped, the network went) is said at once
(`LOST`, with the reason) and retried with a growing wait (0.5 s doubling to
5 s). Back online, the connection says hello, logs in again with the token the
server gave at sign-in, joins again every table it sits at or watches (the
server gives back the held seat and sends the whole log and the view), and
asks for the lobby again if it was watching it. Messages sent while offline
wait and go out after that, in order.

A race table is held by one server process of a lobby (``docs/online-races.md``):
joining, watching or resuming one that another process holds is answered
``race_elsewhere`` with that process's address, and the connection moves there
(the same token, tables and lobby) and sends the message again. Lost after such a
move, it comes back to the address it was given first.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import deque
from typing import Any, Callable
from urllib.parse import urlsplit, urlunsplit

PROTOCOL_VERSION = 1
DEFAULT_SERVER = "ws://127.0.0.1:8750/ws"

CONNECTING, ONLINE, LOST, CLOSED = "connecting", "online", "lost", "closed"
"""The connection's states, as `on_status(state, detail)` reports them."""

RETRY_FIRST_S, RETRY_MAX_S = 0.5, 5.0


class AddressError(ValueError):
    """A server address that is not ws://HOST:PORT[/ws] (one line)."""


def socket_url(url: str) -> str:
    """``ws://host:port/ws`` from ``host:port``, ``ws://host:port``, ``http(s)://`` or the full address."""
    text = url.strip()
    parts = urlsplit(text if "://" in text else f"ws://{text}")
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    try:
        parts.port   # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        scheme = None
    if scheme is None or not parts.hostname:
        raise AddressError(f"the server address is ws://HOST:PORT, not {url!r}")
    return urlunsplit((scheme, parts.netloc, parts.path if parts.path not in ("", "/") else "/ws", "", ""))


class Connection:
    """A connection to one server (see the module docstring).

    `on_frame(frame)` gets every frame the server sends (a dict); `on_status(state,
    detail)` every change of state (`CONNECTING`, `ONLINE`, `LOST`, `CLOSED`;
    *detail* says why a connection was lost, in English, for the log only: the
    app words the state itself)."""

    def __init__(self, url: str, on_frame: Callable[[dict[str, Any]], None],
                 on_status: Callable[[str, str], None]):
        self.url = socket_url(url)
        self.home = self.url
        """The address given; `url` may be another process of its lobby that holds our race table."""
        self._race_asks: dict[int, str] = {}
        """Recent race.join/watch/resume by id: sent again at the process a ``race_elsewhere`` names."""
        self._moving = False
        self.on_frame, self.on_status = on_frame, on_status
        self.token: str | None = None
        self.name: str | None = None
        self.state = CLOSED
        self.watching_lobby = False
        self.tables: dict[str, dict[str, Any]] = {}
        """Tables this connection is at: id → how to come back (``{"type": "join"|"spectate", "code": ...}``)."""
        self._ids = itertools.count(1)
        self._outbox: deque[str] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ws: Any = None
        self._wake: asyncio.Event | None = None
        self._closing = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._main, name="karuta-online", daemon=True)
        self.clock = time.perf_counter
        """The clock a race's pongs report and its cards start on (the player's: perf_counter)."""
        self.races: set[str] = set()
        """Race tables this connection sits at: resumed (``race.resume``) after a reconnection."""

    # -- the GUI thread's side ----------------------------------------------------------------
    def open(self) -> None:
        """Start connecting (and keep connected until `close`)."""
        self._thread.start()

    def send(self, kind: str, **fields: Any) -> int:
        """Send a message (now, or once back online); its id (the server's answer carries it)."""
        ident = next(self._ids)
        text = json.dumps({"type": kind, "id": ident, **fields})     # null: absent (or "no timer")
        self._remember(kind, fields)
        if kind in ("race.join", "race.watch", "race.resume"):
            self._ask(ident, text)
        with self._lock:
            self._outbox.append(text)
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._flush_soon)
            except RuntimeError:   # the loop just stopped (closing)
                pass
        return ident

    def close(self, timeout: float = 5.0) -> None:
        """Close the socket and stop the worker (waits at most `timeout` seconds)."""
        self._closing = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._interrupt)
            except RuntimeError:
                pass
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- what the connection remembers to come back -------------------------------------------
    def _remember(self, kind: str, fields: dict[str, Any]) -> None:
        if kind == "lobby":
            self.watching_lobby = True
        elif kind in ("join", "spectate") and fields.get("table"):
            self.tables[fields["table"]] = {"type": kind, "code": fields.get("code")}
        elif kind == "leave" and fields.get("table"):
            self.tables.pop(fields["table"], None)
        elif kind == "race.join" and fields.get("table"):
            self.races.add(fields["table"])

    def _note(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "signed_in":
            self.token, self.name = frame.get("token"), frame.get("name")
        elif kind == "table" and frame.get("table") in self.tables:
            # a seat held is taken back with `join`; a spectator watches again
            self.tables[frame["table"]]["type"] = "spectate" if frame.get("you") is None else "join"
        elif kind == "left":
            self.tables.pop(str(frame.get("table")), None)
        elif kind in ("race.joined", "race.resumed"):
            self.races.add(str(frame.get("table")))
        elif kind == "race.over" or (kind == "error" and frame.get("error") == "race_lost"):
            self.races.discard(str(frame.get("table")))
        elif kind == "error" and frame.get("error") == "bad_credentials":
            self.token = None           # an expired token is not sent again at the next reconnect

    def _ask(self, ident: int, text: str) -> None:
        """A race message kept by its id (the last 16) to be sent again where ``race_elsewhere`` says."""
        self._race_asks[ident] = text
        for old in list(self._race_asks)[:-16]:
            self._race_asks.pop(old, None)     # (the GUI thread and the worker both keep asks)

    def _follow(self, frame: dict[str, Any]) -> bool:
        """A ``race_elsewhere`` answering our race message: move to the process it names and
        send the message again there (True: the frame is handled, the app need not hear it)."""
        ident = frame.get("id")
        # kept, not popped: sent again, the message may be redirected again (its owner's lease
        # not yet lapsed when we could not reach it), and is followed again
        text = self._race_asks.get(ident) if isinstance(ident, int) and frame.get("error") == "race_elsewhere" \
            else None
        if text is None or not isinstance(frame.get("url"), str):
            return False
        try:
            self.url = socket_url(frame["url"])
        except AddressError:
            return False
        message = json.loads(text)
        table = str(message.get("table"))
        if message.get("type") != "race.resume" or table not in self.races:
            self.races.discard(table)      # joined there by the message itself, sent again first
            with self._lock:
                self._outbox.appendleft(text)
        # (a race we sit at is resumed by the greeting there, as after any reconnection, so a
        # resume lost with a connection that closed at once is sent again the next time)
        self._moving = True
        ws = self._ws
        if ws is not None:
            asyncio.ensure_future(ws.close())
        return True

    # -- the worker thread --------------------------------------------------------------------
    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._run())
        finally:
            loop.close()
            self._set(CLOSED, "")

    def _set(self, state: str, detail: str) -> None:
        self.state = state
        self._tell(self.on_status, state, detail)

    def _tell(self, callback: Callable[..., None], *args: Any) -> None:
        """A callback from the worker thread. Its receiver may be gone (a Qt bridge raises
        RuntimeError once its window is deleted): nobody is listening, so the connection ends."""
        try:
            callback(*args)
        except RuntimeError:
            self._closing = True

    async def _run(self) -> None:
        import websockets
        self._wake = asyncio.Event()
        wait = RETRY_FIRST_S
        while not self._closing:
            self._set(CONNECTING, "")
            detail = ""
            try:
                async with websockets.connect(self.url, max_size=2**22, open_timeout=5,
                                              ping_interval=5, ping_timeout=10) as ws:
                    self._ws = ws
                    wait = RETRY_FIRST_S
                    await self._greet(ws)
                    self._set(ONLINE, "")
                    await self._flush(ws)
                    async for text in ws:
                        frame = json.loads(text)
                        if isinstance(frame, dict):
                            if frame.get("type") == "race.ping":
                                await self._pong(ws, frame)
                            if frame.get("type") == "error" and self._follow(frame):
                                continue
                            self._note(frame)
                            self._tell(self.on_frame, frame)
                        if self._closing:
                            break
                detail = "the server closed the connection"
            except (OSError, asyncio.TimeoutError) as exc:
                detail = getattr(exc, "strerror", None) or type(exc).__name__
            except websockets.WebSocketException as exc:
                detail = type(exc).__name__
            except json.JSONDecodeError:
                detail = "the server sent something that is not JSON"
            finally:
                self._ws = None
            if self._closing:
                break
            if self._moving:              # to the process holding our race table, at once
                self._moving = False
                continue
            self.url = self.home          # lost: back to the address given (any process of the lobby)
            self._set(LOST, detail)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
            except asyncio.TimeoutError:
                pass
            wait = min(wait * 2, RETRY_MAX_S)

    async def _greet(self, ws: Any) -> None:
        """hello, the token's log-in, the tables and the lobby again: queued before anything waiting."""
        again = [{"type": "hello", "version": PROTOCOL_VERSION, "client": "karuta app"}]
        if self.token:
            again.append({"type": "log_in", "token": self.token})
            for table, how in self.tables.items():
                again.append({"type": how["type"], "table": table,
                              **({"code": how["code"]} if how.get("code") else {})})
            again += [{"type": "race.resume", "table": table} for table in sorted(self.races)]
            if self.watching_lobby:
                again.append({"type": "lobby"})
        for message in again:
            ident = next(self._ids)
            text = json.dumps({**message, "id": ident})
            if message["type"] == "race.resume":
                self._ask(ident, text)              # followed if another process holds the race
            await ws.send(text)

    async def _pong(self, ws: Any, frame: dict[str, Any]) -> None:
        """A race's clock ping is answered here, in the worker, at once: the GUI thread's
        delay would widen the clock estimate's error (``docs/online-races.md``)."""
        await ws.send(json.dumps({"type": "race.pong", "n": frame.get("n"), "t": self.clock(),
                                  "id": next(self._ids)}))

    async def _flush(self, ws: Any) -> None:
        while True:
            with self._lock:
                if not self._outbox:
                    return
                text = self._outbox.popleft()
            await ws.send(text)

    def _flush_soon(self) -> None:
        ws = self._ws
        if ws is not None and self.state == ONLINE:
            asyncio.ensure_future(self._flush(ws))

    def _interrupt(self) -> None:
        if self._wake is not None:
            self._wake.set()
        ws = self._ws
        if ws is not None:
            asyncio.ensure_future(ws.close())


__all__ = ["Connection", "AddressError", "socket_url", "DEFAULT_SERVER", "CONNECTING", "ONLINE", "LOST", "CLOSED"]
