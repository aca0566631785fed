"""The server's storage: a table survives a restart (its log replayed on its seeded session), the turn
timer's time-outs are logged and replayed, accounts keep only hashes, migrations run at start."""
from __future__ import annotations

import contextlib
import json
import logging
from typing import Any, Callable

import anyio
import pytest
import sqlalchemy as sa

from tests.server_fixtures import TestClient
from trainer.server.app import ServerConfig, create_app
from trainer.server.store import ACTIONS, TOKENS, USERS, Store


class Wire:
    """A TestClient WebSocket with the frames it received, read until a condition (bounded)."""

    def __init__(self, ws: Any):
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.n = 0

    def send(self, **msg: Any) -> int:
        self.n += 1
        self.ws.send_text(json.dumps({"id": self.n, **msg}))
        return self.n

    def receive(self, seconds: float = 30.0) -> dict[str, Any]:
        """The next frame; AssertionError after `seconds` without one (a test never hangs)."""
        async def bounded() -> Any:
            with anyio.fail_after(seconds):
                return await self.ws._send_rx.receive()
        try:
            message = self.ws.portal.call(bounded)
        except TimeoutError:
            raise AssertionError(f"no frame within {seconds:g} s") from None
        assert message.get("type") == "websocket.send", message
        return json.loads(message["text"])

    def until(self, pred: Callable[[dict[str, Any]], bool], limit: int = 500) -> dict[str, Any]:
        for _ in range(limit):
            frame = self.receive()
            self.frames.append(frame)
            if pred(frame):
                return frame
        raise AssertionError("the expected frame never came")

    def call(self, **msg: Any) -> dict[str, Any]:
        ident = self.send(**msg)
        return self.until(lambda f: f.get("id") == ident)

    def log(self) -> list[dict[str, Any]]:
        """The table's log as this socket received it (events frames joined by their `from`)."""
        out: list[dict[str, Any]] = []
        for f in self.frames:
            if f["type"] == "events":
                out[f["from"]:] = f["events"]
        return out


def _config(path, **kw) -> ServerConfig:
    return ServerConfig(db=f"sqlite:///{path}", allow_seeds=True, **{"min_turn_seconds": 0.05, **kw})


def _play(wire: Wire, table: str, view: dict[str, Any], actions: int | None) -> dict[str, Any]:
    """Play `actions` of this seat's turns (None: to the end), always the first legal action;
    the newest view (or the over frame)."""
    done = 0
    while view["type"] != "over" and (actions is None or done < actions):
        if view["legal"]:
            wire.send(type="act", table=table, seq=view["seq"], action=view["legal"][0])
            done += 1
        seen = view["seq"]
        view = wire.until(lambda f, seen=seen: f["type"] == "over" or (f["type"] == "view" and f["seq"] != seen))
    return view


def _start(wire: Wire, **table: Any) -> tuple[str, str, dict[str, Any]]:
    wire.call(type="hello", version=1)
    token = wire.call(type="guest")["token"]
    created = wire.call(type="create_table", **table)["table"]
    wire.send(type="join", table=created)
    view = wire.until(lambda f: f["type"] == "view")
    return token, created, view


TABLE = dict(game="yomi", variant="standard", seats=3, cpus=[1, 2], seed="restart-1", rounds=2,
             turn_seconds=None)


def test_a_table_goes_on_identically_after_a_restart(tmp_path):
    # uninterrupted
    with TestClient(create_app(_config(tmp_path / "a.sqlite"))) as client, client.websocket_connect("/ws") as ws:
        straight = Wire(ws)
        _, table, view = _start(straight, **TABLE)
        end = _play(straight, table, view, None)
        assert end["type"] == "over"
    # the same game, the server restarted after six of the person's actions
    db = tmp_path / "b.sqlite"
    with TestClient(create_app(_config(db))) as client, client.websocket_connect("/ws") as ws:
        before = Wire(ws)
        token, table2, view = _start(before, **TABLE)
        mid = _play(before, table2, view, 6)
        assert mid["type"] == "view"
    with TestClient(create_app(_config(db))) as client, client.websocket_connect("/ws") as ws:
        after = Wire(ws)
        after.call(type="hello", version=1)
        assert after.call(type="log_in", token=token)["type"] == "signed_in"
        after.send(type="join", table=table2)
        back = after.until(lambda f: f["type"] == "view")
        assert back["seat"] == 0 and back["seq"] == mid["seq"] and back["view"] == mid["view"]
        assert after.log() == before.log()
        end2 = _play(after, table2, back, None)
    assert end2["outcome"] == end["outcome"]
    assert after.log() == straight.log()
    with Store(f"sqlite:///{db}").engine.connect() as conn:
        seqs = [r.seq for r in conn.execute(sa.select(ACTIONS.c.seq).where(ACTIONS.c.table_id == table2))]
    assert seqs == list(range(len(seqs))) and len(seqs) > 6


def test_a_time_out_is_logged_for_everyone_and_replayed(tmp_path):
    db = tmp_path / "t.sqlite"
    with TestClient(create_app(_config(db))) as client, client.websocket_connect("/ws") as ws:
        wire = Wire(ws)
        token, table, view = _start(wire, **{**TABLE, "turn_seconds": 0.3})
        # the person does not act: the stand-in plays for them when the timer runs out
        while not any(e["kind"] == "table.timeout" for e in wire.log()):
            wire.until(lambda f: f["type"] == "events", limit=50)
        view = wire.until(lambda f: f["type"] == "view" and f["legal"])
        before = wire.log()
    timeout = [e for e in before if e["kind"] == "table.timeout"][0]
    assert timeout["seat"] == 0 and timeout["seconds"] == 0.3
    with Store(f"sqlite:///{db}").engine.connect() as conn:
        kinds = [r.kind for r in conn.execute(sa.select(ACTIONS.c.kind).where(ACTIONS.c.table_id == table))]
    assert "timeout" in kinds
    with TestClient(create_app(_config(db))) as client, client.websocket_connect("/ws") as ws:
        again = Wire(ws)
        again.call(type="hello", version=1)
        again.call(type="log_in", token=token)
        again.send(type="join", table=table)
        back = again.until(lambda f: f["type"] == "view")
        assert again.log()[:len(before)] == before
        assert back["view"]["hand"] == view["view"]["hand"]


def test_accounts_keep_hashes_and_passwords_never_reach_a_log(tmp_path, caplog):
    secret = "correct-horse-battery-%d" % 7
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "u.sqlite"
    frames: list = []
    with TestClient(create_app(_config(db))) as client, contextlib.ExitStack() as sockets:
        def fresh() -> Wire:        # a connection signs in once: each attempt on its own
            wire = Wire(sockets.enter_context(client.websocket_connect("/ws")))
            wire.call(type="hello", version=1)
            frames.append(wire.frames)
            return wire
        signed = fresh().call(type="sign_up", name="ann", password=secret)
        assert signed["type"] == "signed_in" and not signed["guest"]
        assert fresh().call(type="sign_up", name="ann", password=secret)["error"] == "name_taken"
        again = fresh()
        assert again.call(type="log_in", name="ann", password="wrong-password")["error"] == "bad_credentials"
        assert again.call(type="log_in", name="ann", password=secret)["name"] == "ann"
    with Store(f"sqlite:///{db}").engine.connect() as conn:
        stored = conn.execute(sa.select(USERS.c.password_hash)).scalar_one()
        tokens = [r.token_hash for r in conn.execute(sa.select(TOKENS.c.token_hash))]
    assert stored.startswith("$argon2") and secret not in stored
    assert signed["token"] not in tokens and len(tokens) == 2
    assert secret not in caplog.text and all(secret not in json.dumps(f) for each in frames for f in each)
    assert "sign_up" in caplog.text      # the log did record the messages, only not their content


def test_migrations_run_at_start_and_again_harmlessly(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.sqlite'}"
    Store(db).migrate()
    store = Store(db)
    store.migrate()
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select version_num from alembic_version")).scalar_one() == "0004"


def test_sqlite_serves_one_process(tmp_path):
    """A second server on the same SQLite file is refused in one line (the lock is the kernel's, so
    it goes with the process even after kill -9); a planted link at the name is refused too."""
    import os

    import pytest

    from trainer.server.store import StoreError
    db = f"sqlite:///{tmp_path / 'one.sqlite'}"
    first = Store(db)
    first.migrate()
    first.claim_file()
    second = Store(db)
    with pytest.raises(StoreError, match="another karuta serve is using .*one.sqlite; SQLite serves one process"):
        second.claim_file()
    first.close()
    second.claim_file()         # free again once the first has stopped
    second.close()
    target = tmp_path / "target.sqlite"
    target.write_bytes(b"")
    os.symlink(target, tmp_path / "link.sqlite")
    with pytest.raises(StoreError, match="cannot use the database"):
        Store(f"sqlite:///{tmp_path / 'link.sqlite'}").claim_file()
    assert target.read_bytes() == b""


def test_postgresql_without_its_driver_is_one_clear_line(monkeypatch):
    """psycopg is the optional 'postgresql' extra (and left out of the standalone build)."""
    import importlib.util

    from trainer.server.store import StoreError, database_url
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name, *a))
    with pytest.raises(StoreError, match=r"psycopg\[binary\].*'postgresql' extra"):
        database_url("postgresql://club@127.0.0.1/karuta")
    assert database_url("sqlite:///x.sqlite") == "sqlite:///x.sqlite"
