"""The server on PostgreSQL: the test starts its own PostgreSQL (initdb and pg_ctl in a temporary
folder, on 127.0.0.1 and a free port, as an unprivileged user), plays a table there across a
restart, and stops it. Without PostgreSQL's programs the test skips, saying why; in CI
(KARUTA_REQUIRE_REAL=1) it fails instead, since CI installs apt's ``postgresql``."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.server_fixtures import TestClient, free_port
from tests.test_server_store import TABLE, Wire, _play, _start
from trainer.server.app import ServerConfig, create_app
from trainer.server.store import ACTIONS, TABLES, Store


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


def _unavailable(reason: str) -> None:
    if os.environ.get("KARUTA_REQUIRE_REAL") == "1":
        pytest.fail(f"PostgreSQL test could not run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def postgres():
    bindir = _pg_bin()
    if bindir is None:
        _unavailable("PostgreSQL is not installed (apt-get install postgresql)")
    user = None
    if os.geteuid() == 0:      # initdb refuses to run as root: run the cluster as nobody
        user = "nobody"
    base = Path(tempfile.mkdtemp(prefix="karuta-pg-"))
    data, sock = base / "data", base / "sock"
    data.mkdir()
    sock.mkdir()
    os.chmod(base, 0o755)
    if user:
        shutil.chown(data, user)
        shutil.chown(sock, user)
    port = free_port()

    def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([str(bindir / args[0]), *args[1:]], user=user, capture_output=True,
                              text=True, timeout=timeout, cwd=base)

    made = run("initdb", "-D", str(data), "-U", "karuta", "-A", "trust", "-E", "UTF8", "--no-instructions")
    if made.returncode:
        shutil.rmtree(base, ignore_errors=True)
        _unavailable(f"initdb failed: {made.stderr.strip().splitlines()[-1:]}")
    started = run("pg_ctl", "-D", str(data), "-l", str(data / "log"), "-w", "-t", "30", "-o",
                  f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
    try:
        if started.returncode:
            _unavailable(f"PostgreSQL did not start: {started.stderr.strip()[-200:]}")
        yield f"postgresql://karuta@127.0.0.1:{port}/postgres"
    finally:
        run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)


def test_a_table_plays_on_postgresql_across_a_restart(postgres):
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
        assert conn.execute(sa.text("select version_num from alembic_version")).scalar_one() == "0002"
    store.close()
    assert seqs == list(range(len(seqs))) and len(seqs) > 5
