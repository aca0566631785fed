"""The app's Qt-free client of the game server (`trainer.online`): a remote table built from
frames, and what a connection sends when it comes back. No server, no Qt: frames are made by
the server's own codec from a real session, so they are the frames a server sends."""
import asyncio
import json

import pytest

from trainer.games.registry import find, resolve
from trainer.online.client import AddressError, Connection, socket_url
from trainer.online.table import RemoteTable
from trainer.server import codec


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def frames_of(game, variant, seats, seat, steps):
    """A session's table as the server would send it to `seat` (summary, events, view)."""
    v = find(game, variant)
    session = resolve(v.session)(v, 7, ["human" if s == seat else "cpu" for s in range(seats)], {})
    for _ in range(steps):
        if seat in session.waiting_for() or not session.step():
            break
    summary = {"type": "table", "table": "t1", "game": game, "variant": variant,
               "seats": [{"name": "me"} if s == seat else {} for s in range(seats)],
               "status": "playing", "private": False, "level": "random", "turn_seconds": 300, "you": seat}
    events = {"type": "events", "table": "t1", "from": 0,
              "events": [codec.to_json(e) for e in session.log_for(seat)]}
    legal = session.legal(seat) if seat in session.waiting_for() else []
    view = {"type": "view", "table": "t1", "seq": len(session.log), "seat": seat, "status": "playing",
            "view": codec.to_json(session.view(seat)), "legal": [codec.encode_action(a) for a in legal],
            "turn_left": 120.0 if legal else None}
    return session, summary, events, view


@pytest.mark.parametrize("game, variant, seats", [("yomi", "standard", 3), ("umebotan", "standard", 4),
                                                  ("unsun", "standard", 8), ("bozu", "standard", 4)])
def test_a_remote_table_reads_back_what_the_session_shows_the_seat(game, variant, seats):
    session, summary, events, view = frames_of(game, variant, seats, 0, 400)
    sent = []
    clock = Clock()
    remote = RemoteTable(summary, send=lambda kind, **f: sent.append((kind, f)) or len(sent), now=clock)
    for frame in (summary, events, view):
        assert remote.apply(frame)
    assert remote.view() == session.view(0) and remote.log_for() == session.log_for(0)
    assert list(remote.legal()) == list(session.legal(0))
    assert all(remote.summary["seats"]), "once dealt, the seats left empty are the CPUs of the start"
    remote.apply(events)                         # a rejoin sends the whole log again from 0
    assert remote.log == session.log_for(0)
    assert remote.waiting_for() == (0,)
    clock.t += 20
    assert remote.turn_left() == pytest.approx(100.0)
    assert remote.why_illegal(0, remote.legal()[0]) is None          # the server decides
    remote.act(0, remote.legal()[0])
    remote.act(0, remote.legal()[0] if remote.legal() else None)    # answered already: not sent twice
    assert [k for k, _ in sent] == ["act"] and sent[0][1]["seq"] == view["seq"]
    assert sent[0][1]["action"] == codec.encode_action(session.legal(0)[0])
    assert not remote.legal() and remote.waiting_for() == () and remote.turn_left() is None
    assert remote.answered({"type": "error", "error": "rate_limited", "id": 1})    # not taken: act again
    assert remote.legal()
    remote.act(0, remote.legal()[0])
    assert not remote.answered({"type": "error", "error": "bad_message"})        # someone else's error
    assert not remote.legal()
    # over its rate the server drops a message unread and answers with no id: the action is
    # given back (the guest game stalled 1 run in 4 without this, waiting for an answer)
    assert remote.answered({"type": "error", "error": "rate_limited"})
    assert remote.legal()


def test_the_outcome_and_a_refusal_come_back_as_the_session_layers_objects():
    _, summary, events, view = frames_of("yomi", "standard", 3, 0, 400)
    remote = RemoteTable(summary, send=lambda *a, **k: 1)
    remote.apply(view)
    refusal = remote.refusal({"type": "refusal", "reason": "yomi.not_in_hand", "fields": {"card": "M:clubs-1"}})
    assert refusal.reason == "yomi.not_in_hand" and refusal.fields == {"card": "M:clubs-1"}
    remote.apply({"type": "over", "table": "t1", "outcome": {"scores": [1, 0, 0], "winners": [0], "reason": "x"}})
    assert remote.is_over() and remote.outcome().winners == (0,) and remote.outcome().scores == (1, 0, 0)


class FakeSocket:
    def __init__(self):
        self.sent = []

    async def send(self, text):
        self.sent.append(json.loads(text))


def test_coming_back_the_connection_logs_in_with_its_token_and_rejoins_its_tables():
    conn = Connection("127.0.0.1:1", on_frame=lambda f: None, on_status=lambda s, d: None)
    conn._note({"type": "signed_in", "name": "hanako", "token": "tok", "guest": False})
    conn._remember("lobby", {})
    conn._remember("join", {"table": "a1", "code": "xyz"})
    conn._remember("spectate", {"table": "b2"})
    conn._remember("join", {"table": "c3"})
    conn._remember("leave", {"table": "c3"})
    conn._note({"type": "table", "table": "a1", "you": 2})
    ws = FakeSocket()
    asyncio.run(conn._greet(ws))
    assert [{k: v for k, v in m.items() if k != "id"} for m in ws.sent] == [
        {"type": "hello", "version": 1, "client": "karuta app"}, {"type": "log_in", "token": "tok"},
        {"type": "join", "table": "a1", "code": "xyz"}, {"type": "spectate", "table": "b2"}, {"type": "lobby"}]
    conn._note({"type": "error", "error": "bad_credentials"})      # the token expired
    ws = FakeSocket()
    asyncio.run(conn._greet(ws))
    assert [m["type"] for m in ws.sent] == ["hello"]


@pytest.mark.parametrize("address, url", [("127.0.0.1:8750", "ws://127.0.0.1:8750/ws"),
                                           ("ws://h:1", "ws://h:1/ws"), ("https://club.example/ws",
                                                                         "wss://club.example/ws"),
                                           (" ws://h:2/ws ", "ws://h:2/ws")])
def test_server_addresses(address, url):
    assert socket_url(address) == url


@pytest.mark.parametrize("address", ["ftp://h:1", "", "ws://:1", "ws://h:port", "http://"])
def test_bad_server_addresses_are_refused_in_one_line(address):
    with pytest.raises(AddressError, match="ws://HOST:PORT"):
        socket_url(address)
