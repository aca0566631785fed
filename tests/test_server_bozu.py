"""Bōzu-mekuri on the server: a turn game like the others (lobby, CPU fill-in, turn timer), its
one action ``draw {stack}`` coded as a number, its cards as ``"B:<poem>"``; bad draws refused
with nothing changed; its hidden-information case (the stacks' order in no frame) is in `tests/test_server_hidden.py`,
`karuta bot --game bozu` in `tests/test_server_cli.py`."""
from __future__ import annotations

import json
from typing import Any

import pytest

from tests.server_fixtures import TestClient
from tests.test_server_bad_input import _everything
from tests.test_server_store import Wire
from trainer.rules import bozu
from trainer.server import codec
from trainer.server.app import ServerConfig, create_app


def test_a_bozu_card_and_its_draw_round_trip():
    assert codec.encode_card(bozu.BozuCard(99, "emperor")) == "B:99"
    kinds = {c.no: c.kind for c in bozu.deck()}
    assert all(codec.decode_card("bozu", f"B:{no}") == bozu.BozuCard(no, kind) for no, kind in kinds.items())
    for bad in ("B:0", "B:101", "B:x", "H:1", 7, None):
        with pytest.raises(codec.CodecError):
            codec.decode_card("bozu", bad)
    for stack in (0, 2):
        assert codec.decode_action("bozu", bozu, codec.encode_action(bozu.Draw(stack)), 1) == bozu.Draw(stack)
    assert codec.decode_action("bozu", bozu, {"action": "draw"}, 1) == bozu.Draw(0)   # the one stack


def test_a_bozu_view_comes_back_from_json_as_the_engines_own():
    from trainer.games.registry import find, resolve
    v = find("bozu")
    session = resolve(v.session)(v, 5, ["cpu"] * 4, {"stacks": 2})
    for _ in range(40):
        session.step()
        for seat in range(4):
            assert codec.decode_view("bozu", codec.to_json(session.view(seat))) == session.view(seat)


def _draw(**action: Any) -> dict[str, Any]:
    return {"action": "draw", **action}


BAD_DRAWS = [
    ("a stack that does not exist", _draw(stack=3), "bozu.no_such_stack"),
    ("a negative stack", _draw(stack=-1), "bozu.no_such_stack"),
    ("a stack as a string", _draw(stack="0"), "bad_action"),
    ("a stack as a bool", _draw(stack=True), "bad_action"),
    ("a stack as a float", _draw(stack=0.5), "bad_action"),
    ("a huge stack", _draw(stack=10**12), "bad_action"),
    ("a card named in a draw", _draw(card="B:1"), "bad_action"),
    ("another game's action", {"action": "play", "card": "B:1"}, "bad_action"),
    ("a draw for another seat", _draw(seat=1), "bad_action"),
]


@pytest.fixture(scope="module")
def bozu_table(tmp_path_factory):
    """Two people at a 3-seat table (one CPU), no timer: one of them is to draw."""
    db = tmp_path_factory.mktemp("bozu") / "s.sqlite"
    app = create_app(ServerConfig(db=f"sqlite:///{db}", turn_seconds=3600, rate=1000, burst=1000,
                                  allow_seeds=True))
    with TestClient(app) as client, client.websocket_connect("/ws") as w1, \
            client.websocket_connect("/ws") as w2:
        wires = [Wire(w1), Wire(w2)]
        for wire in wires:
            wire.call(type="hello", version=1)
            wire.call(type="guest")
        t = wires[0].call(type="create_table", game="bozu", seats=3, cpus=[2], seed="bozu-bad",
                          turn_seconds=None)["table"]
        wires[0].call(type="join", table=t, seat=0)
        wires[1].send(type="join", table=t, seat=1)
        views = [w.until(lambda f: f["type"] == "view" and f["table"] == t) for w in wires]
        hub = app.state.hub
        yield {"hub": hub, "wires": wires, "raw": [w1, w2], "table": t, "views": views,
               "conns": [next(c for c in hub.conns if c.tables.get(t) == s) for s in (0, 1)]}


def _to_draw(fx: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The seat (0 or 1) whose turn it is now, and its newest view; drawing for the CPU's turn first."""
    hub, t = fx["hub"], fx["table"]
    turn = hub.tables[t].driver.session.state.turn
    assert turn in (0, 1), "the CPU seat moves at once on the server"
    seq = hub.tables[t].driver.version()
    return turn, {"seq": seq}


@pytest.mark.parametrize("name,action,expected", BAD_DRAWS, ids=[c[0] for c in BAD_DRAWS])
def test_a_bad_draw_is_refused_and_changes_nothing(bozu_table, name, action, expected):
    seat, view = _to_draw(bozu_table)
    wire, conn = bozu_table["wires"][seat], bozu_table["conns"][seat]
    before = _everything(bozu_table["hub"], conn)
    bozu_table["raw"][seat].send_text(json.dumps({"type": "act", "table": bozu_table["table"], "seq": view["seq"],
                                                  "action": action}))
    reply = wire.until(lambda f: f["type"] in ("error", "refusal"))
    assert (reply.get("error") or reply.get("reason")) == expected, reply
    assert "Traceback" not in json.dumps(reply)
    assert _everything(bozu_table["hub"], conn) == before


def test_drawing_out_of_turn_is_refused_and_the_game_goes_on(bozu_table):
    hub, t = bozu_table["hub"], bozu_table["table"]
    seat, view = _to_draw(bozu_table)
    other = 1 - seat
    before = _everything(hub, bozu_table["conns"][other])
    bozu_table["wires"][other].send(type="act", table=t, seq=view["seq"], action=_draw(stack=0))
    reply = bozu_table["wires"][other].until(lambda f: f["type"] in ("error", "refusal"))
    assert reply.get("reason") == "turn.not_your_turn"
    assert _everything(hub, bozu_table["conns"][other]) == before
    # the one to draw draws: the stack shrinks by one (or more with the CPU's draw after)
    left = sum(len(s) for s in hub.tables[t].driver.session.state.stacks)
    bozu_table["wires"][seat].send(type="act", table=t, seq=view["seq"], action=_draw(stack=0))
    bozu_table["wires"][seat].until(lambda f: f["type"] == "view" and f["seq"] > view["seq"])
    assert sum(len(s) for s in hub.tables[t].driver.session.state.stacks) < left


def test_the_spectators_view_is_every_seats_but_its_seat(bozu_table):
    hub, t = bozu_table["hub"], bozu_table["table"]
    table = hub.tables[t]
    public = table.view_for(None)
    mine = table.view_for(0)
    assert public.seat == -2 and public.hands == mine.hands and public.stacks == mine.stacks

