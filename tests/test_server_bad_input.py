"""Hostile messages: each one answered with an error (or a refusal) frame, nothing changed (the
live tables, the lobby as the sender sees it, the sender's account and seats, every database
row), no internal detail, and the server, the table and another table unharmed afterwards.
Also the log-in guard: wrong passwords for one name, from any connection, lock it for a while."""
from __future__ import annotations

import json
import time
from typing import Any

import pytest
import sqlalchemy as sa

from tests.test_server_store import Wire
from tests.server_fixtures import TestClient
from trainer.server.app import ServerConfig, create_app
from trainer.server.limits import LoginGuard
from trainer.server.store import ACTIONS, TABLES, TOKENS, USERS

T = "{T}"          # the person's table (yomi, seat 0, two CPUs)
B = "{B}"          # a second table: two people, one CPU
E = "{E}"          # an open table: the other person in seat 0, me in seat 1, seat 2 empty
D = "{D}"          # an open table of the other person's: the other in seat 0, me not there


def _wrong(kind: str, field: str, value: Any, **rest: Any) -> tuple[str, Any, str]:
    """A message whose `field` has the wrong type."""
    return (f"{kind}.{field} of the wrong type", {"type": kind, **rest, field: value}, "bad_message")


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
    # every field of every message with the wrong type
    _wrong("hello", "version", "1"),
    _wrong("hello", "client", 7, version=1),
    _wrong("sign_up", "name", 5, password="long enough"),
    _wrong("sign_up", "password", ["long enough"], name="carol"),
    _wrong("log_in", "name", 5, password="long enough"),
    _wrong("log_in", "password", 12345678, name="bob-x"),
    _wrong("log_in", "token", ["t"]),
    _wrong("create_table", "game", 1),
    _wrong("create_table", "variant", 2, game="yomi"),
    _wrong("create_table", "seats", "3", game="yomi"),
    _wrong("create_table", "level", 3, game="yomi"),
    _wrong("create_table", "cpus", "1", game="yomi"),
    _wrong("create_table", "turn_seconds", "60", game="yomi"),
    _wrong("create_table", "private", "yes", game="yomi"),
    _wrong("create_table", "seed", 42, game="yomi"),
    _wrong("create_table", "deals", "2", game="unsun"),
    _wrong("create_table", "rounds", 2.5, game="yomi"),
    _wrong("join", "table", 1),
    _wrong("join", "code", 123456, table="{P}"),
    _wrong("join", "seat", "0", table=D),
    _wrong("spectate", "table", ["t"]),
    _wrong("spectate", "code", True, table="{P}"),
    _wrong("sit", "table", 1, seat=2),
    _wrong("sit", "seat", 2.0, table=E),
    _wrong("leave", "table", None),
    _wrong("start", "table", 1),
    _wrong("act", "table", 1, seq=0, action={"action": "pass"}),
    ("id a float", {"type": "lobby", "id": 1.5}, "bad_message"),
    ("type null", {"type": None}, "bad_message"),
    ("seq NaN", '{"type": "act", "table": "{T}", "seq": NaN, "action": {"action": "pass"}}', "bad_message"),
    ("seat a bool", {"type": "join", "table": D, "seat": True}, "bad_message"),
    ("seventeen cpus", {"type": "create_table", "game": "yomi", "cpus": list(range(17))}, "bad_message"),
    ("lone surrogate in the id", '{"type": "lobby", "id": "\\ud800"}', "bad_message"),
    ("lone surrogate in a name", '{"type": "sign_up", "name": "a\\udfff", "password": "long enough"}',
     "bad_message"),
    ("duplicate type key", '{"type": "lobby", "type": "drop_tables"}', "unknown_type"),
    # the lobby, seats and tables
    ("unknown variant", {"type": "create_table", "game": "yomi", "variant": "nope"}, "bad_option"),
    ("too few seats", {"type": "create_table", "game": "yomi", "seats": 1}, "bad_option"),
    ("unsun with 4 seats", {"type": "create_table", "game": "unsun", "seats": 4}, "bad_option"),
    ("another game's CPU level", {"type": "create_table", "game": "yomi", "level": "greedy"}, "bad_option"),
    ("cpus a bool", {"type": "create_table", "game": "yomi", "cpus": [True]}, "bad_option"),
    ("rounds 0", {"type": "create_table", "game": "yomi", "rounds": 0}, "bad_option"),
    ("rounds 11", {"type": "create_table", "game": "yomi", "rounds": 11}, "bad_option"),
    ("timer over an hour", {"type": "create_table", "game": "yomi", "turn_seconds": 3601}, "bad_option"),
    ("timer under five seconds", {"type": "create_table", "game": "yomi", "turn_seconds": 1}, "bad_option"),
    ("sit on a taken seat", {"type": "sit", "table": E, "seat": 0}, "seat_taken"),
    ("sit on no such seat", {"type": "sit", "table": E, "seat": 9}, "no_such_seat"),
    ("sit on seat -1", {"type": "sit", "table": E, "seat": -1}, "no_such_seat"),
    ("join a taken seat", {"type": "join", "table": D, "seat": 0}, "seat_taken"),
    ("join no such seat", {"type": "join", "table": D, "seat": 3}, "no_such_seat"),
    ("start by a non-host", {"type": "start", "table": D}, "not_host"),
    ("start with nobody seated", {"type": "start", "table": "{F}"}, "no_person"),
    ("start by a host not at the table", {"type": "start", "table": "{G}"}, "not_at_table"),
    ("spectate private without code", {"type": "spectate", "table": "{P}"}, "bad_code"),
    ("act at a private table not joined", {"type": "act", "table": "{P}", "seq": 0, "action": {"action": "pass"}},
     "not_at_table"),
    ("leave a table never joined", {"type": "leave", "table": D}, "not_at_table"),
    ("act at an open table", {"type": "act", "table": E, "seq": 0, "action": {"action": "pass"}}, "not_playing"),
    ("action without its name", _act(action={"card": "M:clubs-1"}), "bad_action"),
    ("negative seq", _act(seq=-1), "stale_seq"),
    # accounts
    ("sign up with a taken name", {"type": "sign_up", "name": "bob-x", "password": "long enough"}, "name_taken"),
    ("name too long", {"type": "sign_up", "name": "n" * 25, "password": "long enough"}, "bad_name"),
    ("name with a slash", {"type": "sign_up", "name": "../x", "password": "long enough"}, "bad_name"),
    ("password too long", {"type": "sign_up", "name": "carol", "password": "p" * 129}, "bad_password"),
    ("log in with a wrong password", {"type": "log_in", "name": "bob-x", "password": "not his password"},
     "bad_credentials"),
    ("log in as nobody", {"type": "log_in", "name": "nobody-here", "password": "long enough"}, "bad_credentials"),
    ("log in with a name only", {"type": "log_in", "name": "bob-x"}, "bad_message"),
    ("log in with nothing", {"type": "log_in"}, "bad_message"),
    ("another user's token under my name", {"type": "log_in", "name": "{ME}", "token": "{BOB_TOKEN}"},
     "bad_credentials"),
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
            client.websocket_connect("/ws") as w2, client.websocket_connect("/ws") as w3:
        me, other, anon = Wire(w1), Wire(w2), Wire(w3)
        for wire in (me, other, anon):
            wire.call(type="hello", version=1)
        me_name = me.call(type="guest")["name"]
        bob_token = other.call(type="sign_up", name="bob-x", password="bob's password")["token"]
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
        other.call(type="join", table=d, seat=0)
        p = other.call(type="create_table", game="yomi", seats=3, private=True)["table"]
        e = other.call(type="create_table", game="yomi", seats=3)["table"]
        other.call(type="join", table=e, seat=0)
        me.call(type="join", table=e, seat=1)
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
        f = me.call(type="create_table", game="yomi", seats=3, cpus=[0, 1, 2], rounds=10)["table"]
        me.call(type="spectate", table=f)          # at the table, with nobody seated
        g = me.call(type="create_table", game="yomi", seats=3, cpus=[1, 2])["table"]   # never joined
        mine = next(conn for conn in hub.conns if conn.user and conn.user.name == me_name)
        signing = next(conn for conn in hub.conns if conn.user is None)
        yield {"hub": hub, "me": me, "w1": w1, "conn": mine, "anon": anon, "w3": w3, "signing": signing, "subs": {
            T: t, B: b, "{C}": c, D: d, E: e, "{F}": f, "{G}": g, "{P}": p, "{ME}": me_name, "{BOB_TOKEN}": bob_token,
            "{SEQ}": view["seq"], "{SEQ-1}": view["seq"] - 1,
            "{SEQ+100}": view["seq"] + 100, "{BSEQ}": bview["seq"], "{LEGAL}": view["legal"][0],
            "{NOT_HELD}": {"action": "lead", "card": not_held}, "{REPLAY}": first}}


@pytest.mark.parametrize("name,message,expected", CASES, ids=[c[0] for c in CASES])
def test_a_hostile_message_gets_an_error_and_changes_nothing(lobby, name, message, expected):
    hub, subs = lobby["hub"], lobby["subs"]
    before = _everything(hub, lobby["conn"])
    text = _fill(message, subs) if isinstance(message, str) else json.dumps(_fill(message, subs))
    # a signed-in connection may not sign in again (already_signed_in): the account messages'
    # own checks are sent from a connection that has said hello and not signed in yet
    wire, ws = (lobby["anon"], lobby["w3"]) if _signs_in(text) else (lobby["me"], lobby["w1"])
    ws.send_text(text)
    reply = wire.until(lambda f: f["type"] in ("error", "refusal"))
    got = reply.get("error") or reply.get("reason")
    assert got == expected, reply
    shown = json.dumps(reply)
    assert "Traceback" not in shown and "File \"" not in shown and "/" not in reply.get("message", "")
    assert len(shown) < 400
    after = _everything(hub, lobby["conn"])
    for part in before:
        assert after[part] == before[part], f"a refused message changed {part}"
    assert lobby["signing"].user is None, "a refused sign-in signed the connection in"


def _signs_in(text: str) -> bool:
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):        # raw cases: a cut or otherwise broken account message still counts
        return any(f'"type": "{kind}"' in text for kind in ("sign_up", "log_in", "guest"))
    return isinstance(message, dict) and message.get("type") in ("sign_up", "log_in", "guest")


def _everything(hub: Any, conn: Any) -> dict[str, Any]:
    """What a refused message must leave as it was: the live tables, the lobby the sender sees,
    the sender's account and seats, and every row of the database."""
    with hub.store.engine.connect() as db:
        rows = {name: sorted(tuple(map(str, r)) for r in db.execute(sa.select(table)))
                for name, table in (("users", USERS), ("tokens", TOKENS), ("tables", TABLES),
                                    ("actions", ACTIONS))}
    return {
        "a live table": {tid: (t.status, t.seq, t.driver.version() if t.driver else None, json.dumps(t.seats))
                         for tid, t in hub.tables.items()},
        "the lobby": json.dumps(hub._lobby_frame(conn), sort_keys=True),
        "the sender's account and seats": (conn.user, dict(conn.tables)),
        **{f"the database's {name}": r for name, r in rows.items()},
    }


def test_there_are_sixty_hostile_messages_or_more():
    assert len(CASES) >= 60 and len({c[0] for c in CASES}) == len(CASES)


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


def test_one_account_hosts_a_bounded_number_of_tables_not_yet_started(tmp_path):
    """An open table lives in memory and the lobby until it starts: one client cannot make
    them without end. Starting one frees a place."""
    app = create_app(ServerConfig(db=f"sqlite:///{tmp_path / 's.sqlite'}", max_open_tables=3,
                                  rate=1000, burst=1000))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        me = Wire(ws)
        me.call(type="hello", version=1)
        me.call(type="guest")
        tables = [me.call(type="create_table", game="yomi", seats=3, cpus=[1, 2])["table"] for _ in range(3)]
        refused = me.call(type="create_table", game="yomi", seats=3)
        assert refused["type"] == "error" and refused["error"] == "too_many_tables"
        assert len(app.state.hub.tables) == 3
        me.call(type="join", table=tables[0], seat=0)
        me.send(type="start", table=tables[0])
        me.until(lambda f: f["type"] == "view")
        assert me.call(type="create_table", game="yomi", seats=3)["type"] == "created"


def test_wrong_passwords_lock_the_name_from_every_connection_for_a_while(tmp_path):
    app = create_app(ServerConfig(db=f"sqlite:///{tmp_path / 'g.sqlite'}", login_failures=3, login_window=1.5))
    with TestClient(app) as client, client.websocket_connect("/ws") as w1, client.websocket_connect("/ws") as w2, \
            client.websocket_connect("/ws") as w0:
        first, second, owner = Wire(w1), Wire(w2), Wire(w0)
        for wire in (first, second, owner):
            wire.call(type="hello", version=1)
        owner.call(type="sign_up", name="dora", password="the right one")
        guesses = [wire.call(type="log_in", name="dora", password=f"guess {n}")
                   for n, wire in enumerate((first, second, first))]
        assert [g["error"] for g in guesses] == ["bad_credentials"] * 3
        # locked: a fourth guess, and even the right password (which would confirm a guess), from any connection
        assert second.call(type="log_in", name="dora", password="guess 4")["error"] == "too_many_attempts"
        assert second.call(type="log_in", name="dora", password="the right one")["error"] == "too_many_attempts"
        assert first.call(type="log_in", name="DORA", password="the right one")["error"] == "too_many_attempts"
        time.sleep(1.6)
        assert second.call(type="log_in", name="dora", password="the right one")["name"] == "dora"


def test_the_login_guard_counts_within_its_window_and_forgets_old_names():
    now = [0.0]
    guard = LoginGuard(failures=2, window=10, clock=lambda: now[0], names=3)
    guard.failed("a")
    assert guard.locked("a") == 0
    now[0] = 4
    guard.failed("a")
    assert guard.locked("a") == 6           # until the first failure is 10 s old
    now[0] = 10
    assert guard.locked("a") == 0 and guard.locked("b") == 0
    guard.failed("a")
    guard.succeeded("a")                    # a right password clears the count
    guard.failed("a")
    assert guard.locked("a") == 0
    for name in ("b", "c", "d", "e"):
        guard.failed(name)
    assert len(guard._seen) == 3 and "a" not in guard._seen


def test_a_signed_in_connection_cannot_sign_in_again_as_someone_else(tmp_path):
    """The seats a connection holds are its user's: signing in again on it as another account
    would hand that account the first one's seats (and hidden hands). Refused, nothing changed;
    a reconnect signs in on a new connection (the app and the bots do)."""
    app = create_app(ServerConfig(db=f"sqlite:///{tmp_path / 'a.sqlite'}"))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        me = Wire(ws)
        me.call(type="hello", version=1)
        first = me.call(type="guest")["name"]
        table = me.call(type="create_table", game="yomi", seats=3, cpus=[1, 2])["table"]
        me.call(type="join", table=table, seat=0)
        for again in ({"type": "guest"}, {"type": "sign_up", "name": "mallory", "password": "p" * 12},
                      {"type": "log_in", "name": first, "password": "x" * 8}):
            assert me.call(**again)["error"] == "already_signed_in"
        hub = app.state.hub
        assert [c.user.name for c in hub.conns if c.user] == [first]
        with hub.store.engine.connect() as db:
            assert db.execute(sa.select(sa.func.count()).select_from(USERS)).scalar() == 1
