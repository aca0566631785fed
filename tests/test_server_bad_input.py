"""Hostile messages: each one answered with an error (or a refusal) frame, nothing changed, no
internal detail, and the server, the table and another table unharmed afterwards."""
from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.test_server_store import Wire
from tests.server_fixtures import TestClient
from trainer.server.app import ServerConfig, create_app

T = "{T}"          # the person's table (yomi, seat 0, two CPUs)
B = "{B}"          # a second table: two people, one CPU


def _act(**over: Any) -> dict[str, Any]:
    return {"type": "act", "table": T, "seq": "{SEQ}", "action": "{LEGAL}", **over}


# (name, message: a dict (placeholders filled) or raw text, expected error id or refusal reason)
CASES: list[tuple[str, Any, str]] = [
    ("not json", "not json", "malformed_json"),
    ("cut json", '{"type": "lobby"', "malformed_json"),
    ("a list", "[]", "bad_message"),
    ("a string", '"hello"', "bad_message"),
    ("a number", "123", "bad_message"),
    ("null", "null", "bad_message"),
    ("no type", {}, "bad_message"),
    ("type not a string", {"type": 5}, "bad_message"),
    ("unknown type", {"type": "drop_tables"}, "unknown_type"),
    ("act without fields", {"type": "act"}, "bad_message"),
    ("seq as a string", _act(seq="1"), "bad_message"),
    ("seq as a bool", _act(seq=True), "bad_message"),
    ("seq huge", _act(seq=2**40), "bad_message"),
    ("action a list", _act(action=["lead"]), "bad_message"),
    ("unknown action", _act(action={"action": "steal"}), "bad_action"),
    ("the reader's deal", _act(action={"action": "deal"}), "bad_action"),
    ("not a card", _act(action={"action": "lead", "card": "X:1"}), "bad_action"),
    ("card of another deck", _act(action={"action": "lead", "card": "U:pao-9"}), "bad_action"),
    ("card as a number", _act(action={"action": "lead", "card": 7}), "bad_action"),
    ("extra action field", _act(action={"action": "pass", "why": "x"}), "bad_action"),
    ("action for another seat", _act(action={"action": "pass", "seat": 1}), "bad_action"),
    ("a card not in hand", _act(action="{NOT_HELD}"), "yomi.not_in_hand"),
    ("stale seq", _act(seq="{SEQ-1}"), "stale_seq"),
    ("future seq", _act(seq="{SEQ+100}"), "stale_seq"),
    ("replayed act", "{REPLAY}", "stale_seq"),
    ("out of turn", {"type": "act", "table": B, "seq": "{BSEQ}", "action": {"action": "pass"}},
     "turn.not_your_turn"),
    ("spectator acts", {"type": "act", "table": "{C}", "seq": 0, "action": {"action": "pass"}}, "not_seated"),
    ("table not joined", {"type": "act", "table": "{D}", "seq": 0, "action": {"action": "pass"}},
     "not_at_table"),
    ("no such table", {"type": "act", "table": "nope", "seq": 0, "action": {"action": "pass"}},
     "no_such_table"),
    ("huge", {"type": "lobby", "id": "x", "pad": "a" * 20_000}, "too_large"),
    ("deep list", "[" * 5000 + "]" * 5000, "too_deep"),
    ("deep object", {"type": "act", "table": T, "seq": 0, "action": {"a": {"b": {"c": {"d": {"e": {}}}}}}},
     "too_deep"),
    ("long string", {"type": "join", "table": "t" * 500}, "bad_message"),
    ("unknown field", {"type": "lobby", "x": 1}, "bad_message"),
    ("id an object", {"type": "lobby", "id": {}}, "bad_message"),
    ("wrong version", {"type": "hello", "version": 99}, "unsupported_version"),
    ("unknown game", {"type": "create_table", "game": "chess"}, "unknown_game"),
    ("kyogi not online yet", {"type": "create_table", "game": "kyogi"}, "unknown_game"),
    ("too many seats", {"type": "create_table", "game": "yomi", "seats": 99}, "bad_option"),
    ("no such level", {"type": "create_table", "game": "yomi", "level": "god"}, "bad_option"),
    ("cpus not seats", {"type": "create_table", "game": "yomi", "cpus": [9]}, "bad_option"),
    ("negative timer", {"type": "create_table", "game": "yomi", "turn_seconds": -1}, "bad_option"),
    ("NaN timer", '{"type": "create_table", "game": "yomi", "turn_seconds": NaN}', "bad_message"),
    ("infinite timer", '{"type": "create_table", "game": "yomi", "turn_seconds": Infinity}', "bad_option"),
    ("option of another game", {"type": "create_table", "game": "yomi", "deals": 2}, "bad_option"),
    ("private without code", {"type": "join", "table": "{P}"}, "bad_code"),
    ("private wrong code", {"type": "join", "table": "{P}", "code": "guess"}, "bad_code"),
    ("sit after start", {"type": "sit", "table": T, "seat": 1}, "not_open"),
    ("start another's table", {"type": "start", "table": B}, "not_host"),
    ("bad name", {"type": "sign_up", "name": "a b", "password": "long enough"}, "bad_name"),
    ("short password", {"type": "sign_up", "name": "bob", "password": "short"}, "bad_password"),
    ("forged token", {"type": "log_in", "token": "forged"}, "bad_credentials"),
]


def _fill(value: Any, subs: dict[str, Any]) -> Any:
    if isinstance(value, str) and value in subs:
        return subs[value]
    if isinstance(value, str):
        for key, sub in subs.items():
            if isinstance(sub, str):
                value = value.replace(key, sub)
        return value
    if isinstance(value, dict):
        return {k: _fill(v, subs) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def lobby(tmp_path_factory):
    db = tmp_path_factory.mktemp("bad") / "s.sqlite"
    app = create_app(ServerConfig(db=f"sqlite:///{db}", turn_seconds=3600, rate=1000, burst=1000,
                                  allow_seeds=True))
    with TestClient(app) as client, client.websocket_connect("/ws") as w1, \
            client.websocket_connect("/ws") as w2:
        me, other = Wire(w1), Wire(w2)
        for wire in (me, other):
            wire.call(type="hello", version=1)
            wire.call(type="guest")
        hub = app.state.hub
        t = me.call(type="create_table", game="yomi", seats=3, cpus=[1, 2], seed="bad-1")["table"]
        me.send(type="join", table=t)
        view = me.until(lambda f: f["type"] == "view" and bool(f["legal"]))
        # one accepted action, kept to be replayed later
        first = json.dumps({"type": "act", "table": t, "seq": view["seq"], "action": view["legal"][0]})
        w1.send_text(first)
        view = me.until(lambda f: f["type"] == "view" and bool(f["legal"]) and f["seq"] != view["seq"])
        b = other.call(type="create_table", game="yomi", seats=3, cpus=[2], seed="bad-2")["table"]
        other.send(type="join", table=b, seat=0)
        other.until(lambda f: f["type"] == "table")
        me.send(type="join", table=b, seat=1)
        bview = me.until(lambda f: f["type"] == "view" and f["table"] == b)
        c = other.call(type="create_table", game="yomi", seats=3)["table"]
        me.call(type="spectate", table=c)
        d = other.call(type="create_table", game="yomi", seats=3)["table"]
        p = other.call(type="create_table", game="yomi", seats=3, private=True)["table"]
        for _ in range(60):          # play on at table B until it waits for the other person
            if not bview["legal"]:
                break
            me.send(type="act", table=b, seq=bview["seq"], action=bview["legal"][0])
            seen = bview["seq"]
            bview = me.until(lambda f, seen=seen: f["type"] == "view" and f["table"] == b and f["seq"] != seen)
        assert bview["status"] == "playing" and not bview["legal"]
        held = set(view["view"]["hand"])
        deck = [f"M:{s}-{r}" for s in ("clubs", "swords", "cups", "coins") for r in range(1, 11)]
        not_held = next(c for c in deck if c not in held)
        yield {"hub": hub, "me": me, "w1": w1, "subs": {
            T: t, B: b, "{C}": c, "{D}": d, "{P}": p, "{SEQ}": view["seq"], "{SEQ-1}": view["seq"] - 1,
            "{SEQ+100}": view["seq"] + 100, "{BSEQ}": bview["seq"], "{LEGAL}": view["legal"][0],
            "{NOT_HELD}": {"action": "lead", "card": not_held}, "{REPLAY}": first}}


@pytest.mark.parametrize("name,message,expected", CASES, ids=[c[0] for c in CASES])
def test_a_hostile_message_gets_an_error_and_changes_nothing(lobby, name, message, expected):
    hub, me, subs = lobby["hub"], lobby["me"], lobby["subs"]
    tables = {tid: (t.status, t.seq, t.driver.version() if t.driver else None, json.dumps(t.seats))
              for tid, t in hub.tables.items()}
    text = _fill(message, subs) if isinstance(message, str) else json.dumps(_fill(message, subs))
    lobby["w1"].send_text(text)
    reply = me.until(lambda f: f["type"] in ("error", "refusal"))
    got = reply.get("error") or reply.get("reason")
    assert got == expected, reply
    shown = json.dumps(reply)
    assert "Traceback" not in shown and "File \"" not in shown and "/" not in reply.get("message", "")
    assert len(shown) < 400
    after = {tid: (t.status, t.seq, t.driver.version() if t.driver else None, json.dumps(t.seats))
             for tid, t in hub.tables.items()}
    assert after == tables, "a refused message changed a table"


def test_after_every_hostile_message_the_table_still_plays(lobby):
    me, subs = lobby["me"], lobby["subs"]
    before = lobby["hub"].tables[subs[T]].seq
    me.send(type="act", table=subs[T], seq=subs["{SEQ}"], action=subs["{LEGAL}"])
    me.until(lambda f: f["type"] == "view" and f["table"] == subs[T] and f["seq"] != subs["{SEQ}"])
    assert lobby["hub"].tables[subs[T]].seq == before + 1


def test_binary_frames_and_messages_before_hello_are_refused(tmp_path):
    app = create_app(ServerConfig(db=f"sqlite:///{tmp_path / 'h.sqlite'}"))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        wire = Wire(ws)
        ws.send_bytes(b"\x00\x01")
        assert wire.until(lambda f: f["type"] == "error")["error"] == "bad_message"
        assert wire.call(type="lobby")["error"] == "hello_first"
        wire.call(type="hello", version=1)
        assert wire.call(type="lobby")["error"] == "not_signed_in"
        assert wire.call(type="guest")["type"] == "signed_in"
        # a public server chooses the seeds: a client's seed would let it know the deal
        assert wire.call(type="create_table", game="yomi", seed="1")["error"] == "bad_option"


def test_a_flood_is_rate_limited_and_the_connection_recovers(tmp_path):
    app = create_app(ServerConfig(db=f"sqlite:///{tmp_path / 'r.sqlite'}", rate=10, burst=10))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        wire = Wire(ws)
        wire.call(type="hello", version=1)
        wire.call(type="guest")
        for _ in range(40):
            ws.send_text(json.dumps({"type": "lobby"}))
        replies = [wire.until(lambda f: f["type"] in ("lobby", "error")) for _ in range(40)]
        limited = sum(1 for f in replies if f.get("error") == "rate_limited")
        assert 20 <= limited < 40
        time.sleep(1.1)
        assert wire.call(type="lobby")["type"] == "lobby"
