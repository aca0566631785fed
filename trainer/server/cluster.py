"""Several `karuta serve` processes on one PostgreSQL: one lobby, every table everywhere.

How the work is shared (the protocol document says the same for operators):

- **Every process holds every unfinished table**, rebuilt from the database by
  replaying its action log, and keeps it current: when another process records
  an action it publishes a note (`trainer.server.bus`), and each process reads
  the new records and applies them (``LiveTable.replay``). Each process then
  sends its own sockets what their seats may see, so hidden information never
  travels between processes, only "table X has new records".
- **Any process may record a person's action** for a table: the action log's
  key (table, seq) lets exactly one writer have each next record; a process that
  loses the race catches up and answers ``stale_seq`` (the client acts again on
  the newest view). Seats change under the table row's lock.
- **One process owns a table**: the one that runs its clocks (the turn timer,
  the seat hold). Ownership is a column of the table row; each process writes
  a heartbeat row every `ServerConfig.beat` seconds, and a table whose owner has
  not beaten for `ServerConfig.lease` seconds is claimed by one UPDATE, which
  gives it to exactly one live process. A cleanly stopped process deletes its
  heartbeat so its tables move at once; after ``kill -9`` they move within the
  lease. Nothing confirmed is lost: a record is committed before anyone hears
  of it, and a process that dies mid-write never confirmed it.
- **A dead process's clients** reconnect to any process (the bot takes a list of
  addresses), log in with their token and join the table again: their seat, view
  and whole log come back.

SQLite serves one process (the database file is locked for the process's life).
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trainer.server.app import Hub

log = logging.getLogger("karuta.server")


class Cluster:
    """The heartbeat, the claim of orphaned tables and the notes from other processes."""

    def __init__(self, hub: "Hub"):
        self.hub = hub
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        hub = self.hub
        await hub.db(hub.store.beat, hub.server)
        await hub.bus.start(hub.on_note, self.sweep)
        self._task = asyncio.create_task(self._beat())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - stopping anyway
                pass
        try:
            await self.hub.db(self.hub.store.leave, self.hub.server)
        except Exception:  # noqa: BLE001 - the database is gone: the lease runs out instead
            pass

    async def _beat(self) -> None:
        cfg = self.hub.config
        while True:
            try:
                await self.hub.db(self.hub.store.beat, self.hub.server)
                await self.claim()
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the database hiccuped: beat again
                log.warning("heartbeat failed (%s)", type(exc).__name__)
            await asyncio.sleep(cfg.beat)

    async def claim(self) -> None:
        """Take the tables whose owner stopped beating (replayed from the log if not held)."""
        hub = self.hub
        taken = await hub.db(hub.store.claim, hub.server, hub.config.lease)
        for table_id in taken:
            log.warning("table %s taken over by this process", table_id)
            table = hub.tables.get(table_id) or await hub.load(table_id)
            if table is not None:
                table.owner = hub.server
                hub.wake_timer(table)

    async def sweep(self) -> None:
        """What notes may have missed: new tables, new records, new owners."""
        hub = self.hub
        await hub.races.listing.refresh()     # race tables come and go with their processes
        owners = await hub.db(hub.store.owners)
        for table_id, (owner, records, status) in owners.items():
            table = hub.tables.get(table_id)
            if table is None:
                await hub.load(table_id)
                continue
            if table.owner != owner:
                table.owner = owner
                hub.wake_timer(table)
            if table.driver is not None and records > table.seq:
                await hub.on_note({"op": "moved", "table": table_id})
            elif table.status != status or (table.driver is None and records):
                await hub.on_note({"op": "table", "table": table_id})
        for table_id, table in list(hub.tables.items()):
            if table_id not in owners and table.status == "playing":
                # finished by another process whose notes this one missed: read its last records
                await hub.on_note({"op": "moved", "table": table_id})
