"""Race tables on a lobby of several server processes (one PostgreSQL this test starts itself).

A race is timed in the memory of the process that holds it, so it stays there;
the lobby is one: every process lists every open race table, and a client of
another process that joins or watches one is told where it is (``race_elsewhere``
with the owner's address) and follows. When the owning process dies (SIGKILL),
its tables leave every lobby within the lease and a client coming back to one
through another process hears ``race_lost`` instead of waiting for ever.
"""
from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from typing import Any

import pytest

from tests.postgres_cluster import postgres  # noqa: F401 - the fixture
from tests.server_fixtures import free_port, running_server
from tests.test_server_cluster import _serve, _stop
from trainer.commands.server_cmd import _public_url
from trainer.errors import Failure
from trainer.online.client import Connection
from trainer.server.app import ServerConfig
from trainer.server.bot import Client
from trainer.server.race_bot import run_race_bots


async def _error(client: Client, kind: str, **fields: Any) -> dict[str, Any]:
    """The error frame answering one message (BotError would hide its fields)."""
    ident = await client.send(kind, **fields)
    while True:
        frame = await client.recv()
        if frame.get("id") == ident:
            assert frame["type"] == "error", frame
            return frame


async def _races(client: Client, until: Any, within: float = 10.0) -> list[dict[str, Any]]:
    """The lobby's race tables once `until(races)` holds (the other process's note, or its sweep)."""
    deadline = time.monotonic() + within
    while True:
        races = (await client.call("lobby"))["races"]
        if until(races) or time.monotonic() > deadline:
            return races
        await asyncio.sleep(0.1)


def test_a_race_table_is_listed_by_every_process_and_joined_where_it_is(postgres):  # noqa: F811
    ports = [free_port(), free_port()]
    procs = [_serve(postgres, port) for port in ports]
    a, b = (f"ws://127.0.0.1:{port}/ws" for port in ports)
    seen: dict[str, Any] = {}

    async def main() -> None:
        host, _ = await Client.connect(a, "host")
        made = await host.call("race.create", game="kyogi", cards=1, wait_seconds=30)
        private = await host.call("race.create", game="mubeyama", variant="okayama4", private=True)
        table = made["table"]
        await host.call("race.join", table=table)
        other, token = await Client.connect(b, "other")
        listed = await _races(other, lambda r: any(t["table"] == table for t in r))
        seen["listed"] = {t["table"]: t for t in listed}
        seen["watch"] = await _error(other, "race.watch", table=table)
        seen["join"] = await _error(other, "race.join", table=table)
        seen["bad"] = await _error(other, "race.join", table="r-nothing")
        # the address the error names is where the table is: the client moves there and sits
        await other.move(seen["join"]["url"])
        seen["joined"] = await other.call("race.join", table=table)
        procs[0].kill()             # SIGKILL: the process holding the race dies mid-match
        back, _ = await Client.connect(b, "back", token=token)
        seen["gone"] = await _races(back, lambda r: all(t["table"] != table for t in r))
        seen["resume"] = await _error(back, "race.resume", table=table)
        seen["private"] = private["table"]
        await back.close()

    try:
        asyncio.run(asyncio.wait_for(main(), 40))
    finally:
        _stop(procs[1])
        _stop(procs[0])
    table = seen["joined"]["table"]
    row = seen["listed"][table]
    assert row["server"] == a and row["game"] == "kyogi" and row["status"] == "open"
    assert "seed" not in row and "code" not in row
    assert seen["private"] not in seen["listed"], "a private race table is listed for its host and players only"
    for kind in ("watch", "join"):
        assert seen[kind]["error"] == "race_elsewhere" and seen[kind]["url"] == a, seen[kind]
    assert seen["bad"]["error"] == "no_such_table"
    assert seen["joined"]["type"] == "race.joined" and seen["joined"]["seat"] == 1
    assert all(t["table"] != table for t in seen["gone"]), "a dead process's race tables leave the lobby"
    assert seen["resume"]["error"] == "race_lost", seen["resume"]


def _until(test: Any, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while not test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_the_bot_and_the_apps_connection_follow_a_race_table_to_its_process(postgres):  # noqa: F811
    """`karuta bot --server A,B` seats a race's second player on B, which is sent to A and plays
    there; the app's connection to B joining a race on A moves to A by itself (and again when it
    comes back through B after a drop), and when A stops
    it goes back to the address it was given, resumes and hears that the match ended (race_lost)."""
    def config() -> ServerConfig:
        return ServerConfig(db=postgres, allow_seeds=True, rate=200, burst=400)

    with contextlib.ExitStack() as stop_a, running_server(config()) as b:
        a = stop_a.enter_context(running_server(config()))
        for srv in (a, b):
            srv.hub.config.public_url = srv.url
        played = asyncio.run(run_race_bots(f"{a.url},{b.url}", 1, game="kyogi", cards=1, karafuda=0,
                                           speed=20, seed=3, deadline=30))
        assert played[0].over is not None and played[0].over["by"] == "cards", played[0].over
        assert not b.hub.races.tables, "the race was played on the process that holds it"

        async def host_table() -> tuple[Client, str]:
            host, _ = await Client.connect(a.url, "host")
            table = (await host.call("race.create", game="kyogi", cards=1))["table"]
            await host.call("race.join", table=table)
            return host, table
        loop = asyncio.new_event_loop()
        host, table = loop.run_until_complete(host_table())
        frames: list[dict[str, Any]] = []
        conn = Connection(b.url, frames.append, lambda state, detail: None)
        conn.open()
        try:
            conn.send("guest")
            assert _until(lambda: any(f["type"] == "signed_in" for f in frames))
            conn.send("race.join", table=table)
            assert _until(lambda: any(f["type"] == "race.joined" for f in frames)), frames[-3:]
            assert conn.url == a.url and table in conn.races
            assert not any(f.get("error") == "race_elsewhere" for f in frames), "followed, not shown"
            # the connection drops: back at B its greeting resumes the race, B names A, it moves again
            assert conn._loop is not None
            conn._loop.call_soon_threadsafe(conn._interrupt)
            assert _until(lambda: any(f["type"] == "race.resumed" for f in frames)), frames[-3:]
            assert conn.url == a.url and not any(f.get("error") == "race_elsewhere" for f in frames)
            loop.run_until_complete(host.close())
            stop_a.close()          # A stops: the match ends with it
            assert _until(lambda: any(f.get("error") == "race_lost" for f in frames), 15), frames[-3:]
            lost = next(f for f in frames if f.get("error") == "race_lost")
            assert lost["table"] == table and table not in conn.races
            assert conn.url == b.url and conn.state == "online", "back to the address given"
        finally:
            conn.close()
            loop.close()


def test_each_process_names_its_address_from_public_url_or_its_listen_address():
    assert _public_url(None, "127.0.0.1", 8751) == "ws://127.0.0.1:8751/ws"
    assert _public_url(None, "0.0.0.0", 8751) == f"ws://{socket.gethostname()}:8751/ws"
    assert _public_url("https://club.example/p2/ws", "127.0.0.1", 8751) == "wss://club.example/p2/ws"
    with pytest.raises(Failure, match="--public-url"):
        _public_url("ftp://club.example", "127.0.0.1", 8751)
