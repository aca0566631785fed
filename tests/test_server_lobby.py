"""The lobby over the protocol: live updates, private tables and their code, seats, the host's start
with CPU fill-ins, spectators' public view."""
from __future__ import annotations

from tests.server_fixtures import TestClient
from tests.test_server_store import Wire
from trainer.server.app import ServerConfig, create_app


def _signed(ws) -> Wire:
    wire = Wire(ws)
    wire.call(type="hello", version=1)
    wire.call(type="guest")
    return wire


def test_lobby_updates_live_and_hides_private_tables(tmp_path):
    app = create_app(ServerConfig(db=f"sqlite:///{tmp_path / 'l.sqlite'}"))
    with TestClient(app) as client, client.websocket_connect("/ws") as w1, client.websocket_connect("/ws") as w2:
        watcher, host = _signed(w1), _signed(w2)
        assert watcher.call(type="lobby")["tables"] == []
        public = host.call(type="create_table", game="umebotan", seats=3, level="random")["table"]
        listed = watcher.until(lambda f: f["type"] == "lobby" and f["tables"])
        assert [t["table"] for t in listed["tables"]] == [public]
        assert listed["tables"][0]["seats"] == [None, None, None] and listed["tables"][0]["level"] == "random"
        created = host.call(type="create_table", game="yomi", seats=4, private=True)
        assert created["code"]
        host.call(type="lobby")
        assert {t["table"] for t in host.frames[-1]["tables"]} == {public, created["table"]}
        later = watcher.call(type="lobby")
        assert [t["table"] for t in later["tables"]] == [public], "a private table is not listed to others"
        assert watcher.call(type="join", table=created["table"])["error"] == "bad_code"
        joined = watcher.call(type="join", table=created["table"], code=created["code"])
        assert joined["type"] == "table" and joined["you"] == 0
        # the watcher sees the seat taken in the live list too
        seen = watcher.until(lambda f: f["type"] == "lobby" and any(
            t["table"] == created["table"] and t["seats"][0] for t in f["tables"]))
        assert "guest-" in seen["tables"][-1]["seats"][0]["name"]


def test_host_starts_with_cpus_and_spectators_see_the_public_view(tmp_path):
    app = create_app(ServerConfig(db=f"sqlite:///{tmp_path / 's.sqlite'}", allow_seeds=True))
    with TestClient(app) as client, client.websocket_connect("/ws") as w1, client.websocket_connect("/ws") as w2:
        host, guest = _signed(w1), _signed(w2)
        table = host.call(type="create_table", game="unsun", seed="lobby-1", level="random")["table"]
        assert host.call(type="join", table=table, seat=3)["you"] == 3
        assert guest.call(type="sit", table=table, seat=0)["error"] == "not_at_table"
        assert guest.call(type="spectate", table=table)["you"] is None
        assert guest.call(type="start", table=table)["error"] == "not_host"
        host.send(type="start", table=table)
        view = host.until(lambda f: f["type"] == "view")
        seats = app.state.hub.tables[table].seats
        assert [("cpu" in s) for s in seats] == [s != 3 for s in range(8)]
        assert view["seat"] == 3 and len(view["view"]["hand"]) >= 9
        public = guest.until(lambda f: f["type"] == "view")
        assert public["seat"] is None and public["view"]["hand"] == [] and public["legal"] == []
        assert guest.call(type="sit", table=table, seat=1)["error"] == "not_open"
        assert host.call(type="leave", table=table)["type"] == "left"
        assert app.state.hub.tables[table].seat_of(app.state.hub.tables[table].host) == 3, \
            "a person who leaves a started game keeps the seat (the turn timer's stand-in plays)"


def test_a_finished_table_leaves_memory_but_not_the_database(tmp_path):
    from tests.test_server_store import TABLE, _play, _start
    db = tmp_path / "f.sqlite"
    app = create_app(ServerConfig(db=f"sqlite:///{db}", allow_seeds=True, keep_finished=0.2))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        wire = Wire(ws)
        _, table, view = _start(wire, **{**TABLE, "rounds": 1})
        assert _play(wire, table, view, None)["type"] == "over"
        assert wire.call(type="lobby")["tables"] == []
        import time
        deadline = time.monotonic() + 10
        while table in app.state.hub.tables and time.monotonic() < deadline:
            time.sleep(0.05)
        assert table not in app.state.hub.tables and app.state.hub.members.get(table) is None
        assert wire.call(type="spectate", table=table)["error"] == "no_such_table"
    from trainer.server.store import Store
    assert len(Store(f"sqlite:///{db}").actions_of(table)) > 0
