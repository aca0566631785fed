"""Race tables across several server processes: listed by every lobby, raced where they were made.

A race is timed in the memory of the process that holds it (each client's clock
estimate, the release of each card a lead ahead of its start, the hold after it),
so it stays on that process; it is not replayed elsewhere as a turn table is.
What is shared is the lobby: the owning process writes one row per race table not
over (`Store.race_put`: the lobby's summary only, never a seed, code or card) and
tells the others (a ``races`` note); every process lists the rows of live
processes. A client of another process that joins, watches or resumes such a
table gets the error ``race_elsewhere`` with the owner's ``url`` and connects
there (the app's Online tab and `karuta bot` follow it). When the owner's
heartbeat lapses its tables leave the lobby, and a client coming back to one
hears ``race_lost``: the match ended with that process, without a result.
"""
from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

from trainer.server.messages import ClientError

if TYPE_CHECKING:
    from trainer.server.race import RaceHall

log = logging.getLogger("karuta.server.race")
OVER = "over"


class RaceListing:
    """This process's race tables in the database, and the other processes' (see the module docstring)."""

    def __init__(self, hall: "RaceHall"):
        self.hall = hall
        self.hub = hall.hub
        self.remote: list[dict[str, Any]] = []
        """The other live processes' race tables (rows of `Store.races`)."""
        self.closing = False
        self._written: dict[str, str] = {}
        self._lock = asyncio.Lock()
        self._again = False

    @property
    def shared(self) -> bool:
        return self.hub.store.shared

    def summaries(self, uid: int | None) -> list[dict[str, Any]]:
        """The other processes' race tables `uid` may see, each with its ``server`` address."""
        return [{**row["summary"], "server": row["url"]} for row in self.remote
                if not row["private"] or (uid is not None and uid in row["members"])]

    def changed(self) -> None:
        """A race table here was made, seated, begun or ended: its row is written (in order)."""
        if self.shared and not self.closing:
            if self._lock.locked():
                self._again = True      # the running write takes this change too
                return
            self.hall._spawn(self._write())

    async def settle(self) -> None:
        """Write now and return once written (a new table: its creator may hand its id to a
        client of another process straight away, as `karuta bot` does)."""
        if self.shared and not self.closing:
            await self._write()

    async def _write(self) -> None:
        async with self._lock:
            self._again = True
            while self._again:
                self._again = False
                try:
                    await self._write_once()
                except Exception as exc:  # noqa: BLE001 - the database hiccuped: the next change writes
                    log.warning("race tables could not be listed (%s)", type(exc).__name__)
                    return
        await self.hub.bus.publish({"op": "races", "table": "*"})

    async def _write_once(self) -> None:
        hub = self.hub
        now: dict[str, str] = {}
        for t in list(self.hall.tables.values()):
            if t.status == OVER:
                continue
            members = sorted({t.host, *(s.user for s in t.seats if s is not None and not s.cpu)})
            now[t.id] = json.dumps([self.hall._summary(t), t.private, members])
        for ident, text in now.items():
            if self._written.get(ident) != text:
                summary, private, members = json.loads(text)
                await hub.db(hub.store.race_put, ident, hub.server, hub.config.public_url, summary, private, members)
                self._written[ident] = text
        for ident in [i for i in self._written if i not in now]:
            await hub.db(hub.store.race_drop, ident)
            del self._written[ident]

    async def refresh(self) -> None:
        """The other processes' rows read again (a note, or the heartbeat's sweep); the lobby
        hears of a change."""
        if not self.shared:
            return
        rows = [r for r in await self.hub.db(self.hub.store.races, self.hub.config.lease)
                if r["owner"] != self.hub.server]
        rows.sort(key=lambda r: r["id"])
        if rows != self.remote:
            self.remote = rows
            self.hub._lobby_changed()

    async def elsewhere(self, table_id: str) -> None:
        """A race table not here: ClientError naming where it is (or that it ended with its
        process); nothing when no process lists it (the caller says no such table)."""
        if not self.shared:
            return
        found = await self.hub.db(self.hub.store.race_where, table_id, self.hub.config.lease)
        if found is None or found[0] == self.hub.server:
            return
        _owner, url, alive = found
        if alive:
            raise ClientError("race_elsewhere", "this race table is held by another server process of "
                              "this lobby; connect to its address (url) and send this again", url=url, table=table_id)
        raise ClientError("race_lost", "the server process holding this race table stopped; "
                          "the match ended there without a result", table=table_id)
