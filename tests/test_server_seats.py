"""A dropped person's seat: held for the seat-hold time, then the stand-in CPU plays their turns
(logged as time-outs for everyone), and the person comes back to it; after the end every player
receives the whole log, spectators do not."""
from __future__ import annotations

import time

from tests.server_fixtures import TestClient
from tests.test_server_store import TABLE, Wire, _config, _play, _start
from trainer.server.app import create_app


def _until_turn(wire: Wire, view: dict) -> dict:
    """The newest frame once it is this seat's turn (or the game is over)."""
    while view["type"] == "view" and view["status"] != "over" and not view["legal"]:
        view = wire.until(lambda f: f["type"] in ("view", "over"))
    return view


def _newest(wire: Wire, view: dict) -> dict:
    """The newest view or over frame this socket has been sent (reading until 0.3 s of quiet)."""
    while True:
        try:
            frame = wire.receive(0.3)
        except AssertionError:
            return view
        wire.frames.append(frame)
        if frame["type"] in ("view", "over"):
            view = frame


def test_a_dropped_seat_is_held_then_played_by_its_stand_in_and_given_back(tmp_path):
    opts = {**TABLE, "seed": "hold-2", "cpus": [2], "turn_seconds": 60, "rounds": 3}
    with TestClient(create_app(_config(tmp_path / "h.sqlite", seat_hold=0.3))) as client, \
            client.websocket_connect("/ws") as ws_b:
        with client.websocket_connect("/ws") as ws_a:
            a = Wire(ws_a)
            a.call(type="hello", version=1)
            token = a.call(type="guest")["token"]
            table = a.call(type="create_table", **opts)["table"]
            a.call(type="join", table=table)
            b = Wire(ws_b)
            b.call(type="hello", version=1)
            b.call(type="guest")
            b.call(type="join", table=table)
            view_a = a.until(lambda f: f["type"] == "view")
            view_b = b.until(lambda f: f["type"] == "view")
            assert view_a["seat"] == 0 and view_b["seat"] == 1
        # A's connection is gone. B plays on; when A's turn comes, after the hold (not the 60 s
        # turn timer) A's stand-in plays it, logged as a time-out for everyone
        away = b.until(lambda f: f["type"] == "table" and (f["seats"][0] or {}).get("away"))
        assert away["you"] == 1
        started = time.monotonic()
        while not any(e["kind"] == "table.timeout" for e in b.log()):
            view_b = _until_turn(b, view_b if view_b["type"] == "over" else b.until(lambda f: f["type"] == "view"))
            if view_b["type"] == "over" or view_b["status"] == "over":
                break
            view_b = _play(b, table, view_b, 1)
        assert time.monotonic() - started < 30
        stood_in = [e for e in b.log() if e["kind"] == "table.timeout"]
        assert stood_in and all(e["seat"] == 0 and e["seconds"] == 60 for e in stood_in)
        # A comes back with the token: the same seat, its view, and its turns wait for it again
        with client.websocket_connect("/ws") as ws_a:
            a = Wire(ws_a)
            a.call(type="hello", version=1)
            a.call(type="log_in", token=token)
            joined = a.call(type="join", table=table)
            assert joined["you"] == 0 and "away" not in (joined["seats"][0] or {})
            back = a.until(lambda f: f["type"] == "view")
            assert back["seat"] == 0 and [e for e in a.log() if e["kind"] == "table.timeout"] == stood_in
            # A's next turn is A's to take: B plays its turn if it is B's, then A's turn comes and
            # stays (twice the hold) until A acts, and A's action is taken
            for _ in range(40):
                back = _newest(a, back)
                if back["type"] == "over" or back["status"] == "over" or back["legal"]:
                    break
                view_b = _newest(b, view_b)
                if view_b["type"] == "view" and view_b["legal"]:
                    view_b = _play(b, table, view_b, 1)
            if back["type"] == "view" and back["status"] != "over":
                time.sleep(0.6)
                after = _play(a, table, back, 1)
                assert after["type"] == "over" or after["seq"] > back["seq"]
                assert not [f for f in a.frames if f.get("error") == "stale_seq"]
                assert [e for e in a.log() if e["kind"] == "table.timeout"] == stood_in


def test_the_players_get_the_whole_log_after_the_end_and_spectators_do_not(tmp_path):
    with TestClient(create_app(_config(tmp_path / "f.sqlite"))) as client, \
            client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as other:
        player = Wire(ws)
        _, table, view = _start(player, **{**TABLE, "seed": "full-1"})
        watcher = Wire(other)
        watcher.call(type="hello", version=1)
        watcher.call(type="guest")
        watcher.call(type="spectate", table=table)
        end = _play(player, table, view, None)
        assert end["type"] == "over"
        full = player.until(lambda f: f["type"] == "full_log")["events"]
        own = player.log()
        assert len(full) >= len(own) and full != own
        hands = [e for e in full if e["kind"] == "yomi.hand"]
        assert {e["seat"] for e in hands} == {0, 1, 2} and all(e["cards"] for e in hands), \
            "every seat's private hand entries, cards and all"
        assert all(not e["cards"] for e in own if e["kind"] == "yomi.hand" and e["seat"] != 0), \
            "during the game the others' hands were hidden"
        watcher.until(lambda f: f["type"] == "over")
        watcher.send(type="lobby")
        assert not [f for f in [watcher.until(lambda f: f["type"] == "lobby")] + watcher.frames
                    if f["type"] == "full_log"]
