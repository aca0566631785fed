"""Faults: several server processes on one PostgreSQL, one killed mid-game; a client whose
connection a proxy cuts.

- Two `karuta serve` processes on a PostgreSQL cluster this test starts itself
  (`tests.postgres_cluster`); 40 tables of bots spread over both; one process is
  killed with SIGKILL while the games run. Every table must finish (its bots
  reconnect to the survivor), and each table's stored action log, replayed on a
  fresh session of the same seed, must end the game and give every seat exactly
  the log its bot received (nothing confirmed lost, nothing told that was not kept).
- A bot connected through a small TCP proxy that delays every chunk and cuts the
  connection (dropping what is in flight) three times mid-game comes back to the
  same seat and its view, and ends with its seat's whole log.
"""
from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tests.postgres_cluster import postgres  # noqa: F401 - the fixture
from tests.server_fixtures import free_port, running_server
from trainer.server import codec
from trainer.server.app import ServerConfig
from trainer.server.bot import BotError, Client, SeatResult, play_seat, run_bots
from trainer.server.store import ACTIONS, TABLES, Store
from trainer.server.tables import LiveTable

ROOT = Path(__file__).resolve().parents[1]


def received_log(frames: list[dict[str, Any]], table: str) -> list[dict[str, Any]]:
    """A table's log as one client received it (``events`` frames joined at their ``from``)."""
    out: list[dict[str, Any]] = []
    for f in frames:
        if f.get("type") == "events" and f.get("table") == table:
            out[f["from"]:] = f["events"]
    return out


def _serve(db: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "trainer.cli", "serve", "--port", str(port), "--db", db,
                             "--lease", "2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"karuta serve did not start: {proc.communicate()[1][-400:]}") from None
            time.sleep(0.1)


def _stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return proc.communicate()[1]


async def _read_all(client: Client) -> None:
    try:
        while True:
            await client.recv()
    except Exception:  # noqa: BLE001 - closed: done
        return


def _counts(db: str) -> tuple[int, int, int]:
    """(tables playing, tables over, actions recorded)."""
    store = Store(db)
    try:
        with store.engine.connect() as conn:
            status = [r.status for r in conn.execute(sa.select(TABLES.c.status))]
            actions = conn.execute(sa.select(sa.func.count()).select_from(ACTIONS)).scalar_one()
    finally:
        store.close()
    return status.count("playing"), status.count("over"), int(actions)


def test_two_processes_one_killed_mid_game_every_table_finishes(postgres):  # noqa: F811
    tables = 40
    ports = [free_port(), free_port()]
    procs = [_serve(postgres, port) for port in ports]
    urls = [f"ws://127.0.0.1:{port}/ws" for port in ports]
    frames: dict[str, list[dict[str, Any]]] = defaultdict(list)
    at_kill: tuple[int, int, int] = (0, 0, 0)
    lobby_seen: set[str] = set()

    async def main() -> list[SeatResult]:
        nonlocal at_kill
        bots = asyncio.create_task(run_bots(
            urls, "yomi", tables, "random", seats=3, options={"rounds": 2, "turn_seconds": None},
            deadline=150, retry=60, record=lambda label, f: frames[label].append(f)))
        # the lobby is one: a client of the second process sees the tables the first made
        watcher, _ = await Client.connect(urls[1], "watcher")
        listed: set[str] = set()
        while len(listed) < tables and not bots.done():
            listed = {t["table"] for t in (await watcher.call("lobby"))["tables"]}
            await asyncio.sleep(0.05)
        reading = asyncio.create_task(_read_all(watcher))    # a closing client reads on
        await watcher.close()
        reading.cancel()
        lobby_seen.update(listed)
        while not bots.done():
            at_kill = await asyncio.to_thread(_counts, postgres)
            if at_kill[0] + at_kill[1] == tables and at_kill[2] >= 150:
                procs[0].kill()       # SIGKILL: no clean stop, no goodbye to the database
                break
            await asyncio.sleep(0.05)
        return await bots

    try:
        try:
            results = asyncio.run(main())
        except BotError as exc:
            stuck = {label: [(f["type"], f.get("seq"), f.get("you"), bool(f.get("legal"))) for f in got[-4:]]
                     for label, got in frames.items() if not any(f["type"] == "over" for f in got)}
            raise AssertionError(f"{exc}; killed at {at_kill}; unfinished: {dict(list(stuck.items())[:9])}") from None
    finally:
        survivor_log = _stop(procs[1])
        _stop(procs[0])
    print(survivor_log[-2000:])
    assert procs[0].returncode == -signal.SIGKILL, "the first process was killed mid-game"
    assert at_kill[1] < tables, f"tables were still playing when the process died: {at_kill}"
    assert len({r.table for r in results}) == tables and all(r.finished for r in results)
    assert lobby_seen == {r.table for r in results}, "the second process listed every table"
    reconnected = [label for label, got in frames.items() if sum(f["type"] == "welcome" for f in got) > 1]
    assert reconnected, "bots on the killed process reconnected to the survivor"
    assert "Traceback" not in survivor_log

    # each table's stored log, replayed on a fresh session of its seed: the game ends at its last
    # record, and every seat's bot received exactly that seat's log
    from audio.clock import SYSTEM
    store = Store(postgres)
    try:
        for table_id in {r.table for r in results}:
            row = store.table_row(table_id)
            assert row is not None and row["status"] == "over"
            actions = store.actions_of(table_id)
            assert [a.seq for a in actions] == list(range(len(actions))) and actions
            replay = LiveTable(row, SYSTEM)
            replay.restore(actions)
            assert replay.status == "over" and replay.seq == len(actions)
            for s in range(3):
                label = f"{table_id}/{s}"
                seat = next(f["seat"] for f in frames[label] if f.get("type") == "view")
                want = [codec.to_json(e) for e in replay.log_for(seat)]
                assert received_log(frames[label], table_id) == want, f"{label} (seat {seat})"
    finally:
        store.close()


class CuttingProxy:
    """A TCP proxy to the server that delays every chunk and, on `cut`, aborts every connection
    through it (whatever was read and not yet forwarded is dropped)."""

    def __init__(self, target: int, delay: float = 0.01):
        self.target = target
        self.delay = delay
        self.links: list[asyncio.StreamWriter] = []
        self.port = 0
        self.server: Any = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._link, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.links += [writer, up_writer]
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer),
                             return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(4096):
                await asyncio.sleep(self.delay)
                if writer.is_closing():
                    return
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    def cut(self) -> None:
        for writer in self.links:
            writer.transport.abort()
        self.links.clear()

    async def close(self) -> None:
        self.cut()
        self.server.close()
        await self.server.wait_closed()


def test_a_client_cut_off_by_a_proxy_comes_back_to_its_seat_and_view():
    with running_server(ServerConfig(allow_seeds=True)) as server:
        frames: list[dict[str, Any]] = []
        cuts: list[int] = []        # how many frames the proxied bot had when each cut came

        async def main() -> SeatResult:
            proxy = CuttingProxy(server.port)
            await proxy.start()
            host, _ = await Client.connect(server.url, "host")
            table = (await host.call("create_table", game="yomi", seats=3, rounds=8, seed="cut-1",
                                     turn_seconds=None))["table"]
            proxied, _ = await Client.connect(f"ws://127.0.0.1:{proxy.port}/ws", "proxied",
                                              lambda _l, f: frames.append(f), retry=20)
            others = [(await Client.connect(server.url, f"seat{s}"))[0] for s in (1, 2)]
            mine = asyncio.create_task(play_seat(proxied, table, "random", 1, SeatResult(table, None)))
            rest = [asyncio.create_task(play_seat(c, table, "random", 10 + i, SeatResult(table, None)))
                    for i, c in enumerate(others)]
            for n in range(3):
                # after a cut: wait for the reconnection, then for views on the new connection
                while sum(f["type"] == "welcome" for f in frames) < n + 1 and not mine.done():
                    await asyncio.sleep(0.01)
                seen = len([f for f in frames if f["type"] == "view"])
                while len([f for f in frames if f["type"] == "view"]) < seen + 4 and not mine.done():
                    await asyncio.sleep(0.01)
                if mine.done():
                    break
                cuts.append(len(frames))
                proxy.cut()
            result = await asyncio.wait_for(mine, 60)
            await asyncio.wait_for(asyncio.gather(*rest), 60)
            for c in [host, proxied, *others]:
                await c.close()
            await proxy.close()
            return result

        result = asyncio.run(main())
        table = server.hub.tables[result.table]
        assert result.finished and len(cuts) == 3, "three cuts while the game ran"
        assert sum(f["type"] == "welcome" for f in frames) == 4, "three reconnections"
        seats = {f["seat"] for f in frames if f["type"] == "view"} | {f["you"] for f in frames if f["type"] == "table"}
        assert seats == {result.seat}, "always the same seat"
        for at in cuts:
            before = [f["seq"] for f in frames[:at] if f["type"] == "view"]
            after = next(f for f in frames[at:] if f["type"] == "view")
            assert after["seq"] >= before[-1], "the view came back where it was, or later"
        assert received_log(frames, table.id) == [codec.to_json(e) for e in table.log_for(result.seat)]


def test_the_bots_host_keeps_to_the_servers_message_rate():
    """Creating more tables than the rate limit's burst: the refused messages are sent again later
    (the server's rate_limited frame names no message), so every table is made and played."""
    with running_server(ServerConfig(rate=5, burst=5)) as server:
        results = asyncio.run(run_bots(server.url, "yomi", 12, "random", seats=3, options={"rounds": 1},
                                       deadline=60))
    assert len({r.table for r in results}) == 12 and all(r.finished for r in results)
