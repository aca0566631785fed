"""The server on PostgreSQL: the test starts its own PostgreSQL (initdb and pg_ctl in a temporary
folder, on 127.0.0.1 and a free port, as an unprivileged user), plays a table there across a
restart, and stops it. Without PostgreSQL's programs the test skips, saying why; in CI
(KARUTA_REQUIRE_REAL=1) it fails instead, since CI installs apt's ``postgresql``."""
from __future__ import annotations

import sqlalchemy as sa

from tests.postgres_cluster import postgres  # noqa: F401 - the fixture
from tests.server_fixtures import TestClient
from tests.test_server_store import TABLE, Wire, _play, _start
from trainer.server.app import ServerConfig, create_app
from trainer.server.store import ACTIONS, TABLES, Store


def test_a_table_plays_on_postgresql_across_a_restart(postgres):  # noqa: F811 - the fixture
    config = ServerConfig(db=postgres, allow_seeds=True)
    with TestClient(create_app(config)) as client, client.websocket_connect("/ws") as ws:
        before = Wire(ws)
        token, table, view = _start(before, **{**TABLE, "seed": "pg-1"})
        mid = _play(before, table, view, 5)
    with TestClient(create_app(ServerConfig(db=postgres, allow_seeds=True))) as client, \
            client.websocket_connect("/ws") as ws:
        after = Wire(ws)
        after.call(type="hello", version=1)
        after.call(type="log_in", token=token)
        after.send(type="join", table=table)
        back = after.until(lambda f: f["type"] == "view")
        assert back["view"] == mid["view"] and after.log() == before.log()
        end = _play(after, table, back, None)
    assert end["type"] == "over"
    store = Store(postgres)
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(TABLES.c.status).where(TABLES.c.id == table)).scalar_one() == "over"
        seqs = [r.seq for r in conn.execute(sa.select(ACTIONS.c.seq).where(ACTIONS.c.table_id == table)
                                            .order_by(ACTIONS.c.seq))]
        assert conn.execute(sa.text("select version_num from alembic_version")).scalar_one() == "0004"
    store.close()
    assert seqs == list(range(len(seqs))) and len(seqs) > 5


def test_the_listener_comes_back_after_postgresql_drops_it_and_resyncs(postgres):  # noqa: F811
    """A dropped LISTEN connection (a restarted database, a cut network, an idle timeout)
    must not leave a process deaf: it listens again, asks for a sweep of what it may have
    missed, and then hears new notes. The publisher reconnects too."""
    import asyncio

    import psycopg

    from trainer.server.bus import PgBus

    async def scenario() -> tuple[list[str], int]:
        heard: list[str] = []
        resyncs = 0
        got = asyncio.Event()

        async def handler(note: dict) -> None:
            heard.append(note["op"])
            got.set()

        async def resync() -> None:
            nonlocal resyncs
            resyncs += 1

        async def until_heard(op: str) -> None:
            for _ in range(20):          # a note sent before LISTEN is back is lost: send again
                got.clear()
                await sender.publish({"op": op})
                try:
                    await asyncio.wait_for(got.wait(), 1.0)
                except TimeoutError:
                    continue
                if op in heard:
                    return
            raise AssertionError(f"{op} never heard; heard {heard}")

        listener, sender = PgBus(postgres, "listener"), PgBus(postgres, "sender")
        await listener.start(handler, resync)
        async def nothing(*_: object) -> None:
            return None

        await sender.start(nothing, nothing)
        try:
            await until_heard("before")
            async with await psycopg.AsyncConnection.connect(postgres, autocommit=True) as admin:
                # every other session: both buses' listeners and the publisher's connection
                await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    "WHERE pid <> pg_backend_pid() AND datname = current_database()")
            await until_heard("after")
        finally:
            await listener.close()
            await sender.close()
        return heard, resyncs

    heard, resyncs = asyncio.run(scenario())
    assert heard[0] == "before" and heard[-1] == "after"
    assert resyncs >= 1, "the listener came back without sweeping for what it missed"
