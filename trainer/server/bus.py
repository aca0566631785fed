"""How server processes on one database tell each other that something changed.

`PgBus` is PostgreSQL's LISTEN/NOTIFY through psycopg 3's async connections:
every process listens on one channel and publishes small JSON notes ("table X
has a new record", "table X's seats changed"); the note carries no game
state, only what to read again from the database, so a note never holds a
card and a lost note costs only a delay (the heartbeat's sweep catches up).
Why not Redis pub/sub: the processes already share PostgreSQL, so NOTIFY needs
no second service to install, secure and keep running, and a note is sent
after the change it names is committed.

`LocalBus` is the single process (SQLite): nobody else to tell.
"""
from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Awaitable, Callable

CHANNEL = "karuta"
log = logging.getLogger("karuta.server")

Handler = Callable[[dict[str, Any]], Awaitable[None]]


class LocalBus:
    """One process: publishing tells nobody."""

    shared = False

    async def start(self, handler: Handler, resync: Callable[[], Awaitable[None]]) -> None:
        return None

    async def publish(self, note: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        return None


class PgBus:
    """LISTEN/NOTIFY on PostgreSQL (see the module docstring). Notes from this process
    itself are dropped on arrival (``from`` is the sender's server id)."""

    shared = True

    def __init__(self, dsn: str, server: str):
        self.dsn = dsn
        self.server = server
        self._listener: asyncio.Task | None = None
        self._pub: Any = None
        self._pub_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task] = set()
        self.ready = asyncio.Event()

    async def start(self, handler: Handler, resync: Callable[[], Awaitable[None]]) -> None:
        self._listener = asyncio.create_task(self._listen(handler, resync))
        try:
            await asyncio.wait_for(self.ready.wait(), 15)
        except TimeoutError:
            log.error("LISTEN on PostgreSQL did not start within 15 s; retrying in the background")

    async def _listen(self, handler: Handler, resync: Callable[[], Awaitable[None]]) -> None:
        import psycopg
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if self.ready.is_set():
                        await resync()     # notes may have been missed while reconnecting
                    self.ready.set()
                    async for note in conn.notifies():
                        self._deliver(handler, note.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the database went away: listen again
                log.warning("LISTEN connection lost (%s); again in 1 s", type(exc).__name__)
                await asyncio.sleep(1.0)

    def _deliver(self, handler: Handler, payload: str) -> None:
        try:
            note = json.loads(payload)
        except ValueError:
            return
        if not isinstance(note, dict) or note.get("from") == self.server:
            return
        task = asyncio.create_task(self._run(handler, note))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _run(handler: Handler, note: dict[str, Any]) -> None:
        try:
            await handler(note)
        except Exception:  # noqa: BLE001 - one note must not stop the listener
            log.exception("a note from another server process failed: %s", note.get("op"))

    async def publish(self, note: dict[str, Any]) -> None:
        """Tell the other processes (after the change is committed). A failure is logged,
        not raised: the change is already in the database, and the sweep finds it."""
        import psycopg
        payload = json.dumps({**note, "from": self.server}, separators=(",", ":"))
        async with self._pub_lock:
            for attempt in (1, 2):
                try:
                    if self._pub is None or self._pub.closed:
                        self._pub = await psycopg.AsyncConnection.connect(self.dsn, autocommit=True)
                    await self._pub.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                    return
                except Exception as exc:  # noqa: BLE001 - reconnect once, then leave it to the sweep
                    self._pub = None
                    if attempt == 2:
                        log.warning("NOTIFY failed (%s)", type(exc).__name__)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            try:
                await self._listener
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - stopping anyway
                pass
        for task in list(self._tasks):
            task.cancel()
        if self._pub is not None:
            await self._pub.close()
