"""Mubeyama online (trainer.server.race_mubeyama): each client reads locally; the owner's flip is
reported as a reaction time and timed on the programme as the app times a press.

Played by bot clients (`trainer.server.race_bot.MubeyamaBot`) at 50x on a test server whose
frame hook checks, as each frame is queued, that a seat's view is exactly the engine's
`view(seat)` and a spectator's `view(None)`."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.race_helpers import LatencyProxy
from tests.server_fixtures import running_server
from trainer.server import codec
from trainer.server.app import ServerConfig
from trainer.server.bot import Client
from trainer.server.race_bot import MubeyamaBot, fixed_flip

GAME = {"game": "mubeyama", "variant": "okayama4", "seed": "4", "speed": 50.0}   # a line wins at read 27 (seed 3: 51)
checked: list[int] = []


def _hook(conn: Any, frame: dict[str, Any]) -> None:
    if frame.get("type") != "race.view":
        return
    table = conn.hub.races.tables[frame["table"]]
    assert frame["view"] == codec.to_json(table.session.view(frame["seat"])), "a view other than the engine's"
    seat = table.seat_of(conn.user.id)
    assert frame["seat"] == seat or (frame["seat"] is None and conn in table.watchers), "another seat's view"
    checked.append(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("mubeyama") / "server.sqlite"
    config = ServerConfig(db=f"sqlite:///{db}", allow_seeds=True, rate=200, burst=400, frame_hook=_hook)
    with running_server(config) as srv:
        yield srv


async def _game(urls: list[str], bot_class: type[MubeyamaBot] = MubeyamaBot, watch_url: str | None = None,
                **options: Any) -> tuple[list[Any], list[dict[str, Any]]]:
    clients = [(await Client.connect(url, f"seat{s}"))[0] for s, url in enumerate(urls)]
    seen: list[dict[str, Any]] = []
    try:
        created = await clients[0].call("race.create", **{**GAME, **options})
        if watch_url is not None:
            watcher, _ = await Client.connect(watch_url, "watcher", lambda _l, f: seen.append(f))
            clients.append(watcher)
            await watcher.call("race.watch", table=created["table"])
        bots = [bot_class(c, created["table"], fixed_flip) for c in clients[:len(urls)]]
        for s, bot in enumerate(bots):
            await bot.join(s)
        results = list(await asyncio.wait_for(asyncio.gather(*(b.play() for b in bots)), 150))
        if watch_url is not None:
            while not any(f.get("type") == "race.over" for f in seen):
                await clients[-1].recv()
        return results, seen
    finally:
        for c in clients:
            await c.close()


@pytest.fixture(scope="module")
def played(server):
    checked.clear()
    return asyncio.run(_game([server.url] * 4, watch_url=server.url))


def test_a_game_is_played_to_its_end_with_every_flip_timed_as_its_client_measured(server, played):
    results, seen = played
    over = {tuple(map(str, sorted(r.over.items()))) for r in results if r.over}
    assert len(over) == 1 and results[0].over["by"] not in ("abandonment", "no_clock")
    flips = [f for j in results[0].judged for f in j["flips"]]
    assert len(flips) >= 10 and {f["seat"] for f in flips} == {0, 1, 2, 3}
    for f in flips:
        poem = next(j["poem"] for j in results[0].judged if j["read"] == f["read"])
        assert f["reaction_ms"] == round(fixed_flip(f["seat"], poem))
    session = server.hub.races.tables[results[0].table].session
    timed = sorted((r.seat, r.ms) for rs in session.reactions.values() for r in rs)
    assert timed == sorted((f["seat"], f["reaction_ms"]) for f in flips), \
        "the session timed each flip at the reported reaction on the programme"
    assert checked, "the frame hook saw the views"
    assert any(f.get("type") == "race.view" and f["seat"] is None for f in seen), "the spectator saw the floor"


@pytest.mark.slow
def test_latency_changes_nothing(server, played):
    """Seats 0 and 2 at 20-140 ms one way, seats 1 and 3 at 100-300 ms (about a minute)."""
    async def through() -> tuple[list[Any], list[dict[str, Any]]]:
        async with LatencyProxy(server.port, 70, 90, 50, seed=3) as near, \
                LatencyProxy(server.port, 250, 150, 50, seed=4) as far:
            return await _game([near.url, far.url, near.url, far.url])

    results, _ = asyncio.run(through())
    clean = played[0][0]
    assert [(j["read"], j["poem"], j["flips"], j["left"]) for j in results[0].judged] == \
        [(j["read"], j["poem"], j["flips"], j["left"]) for j in clean.judged]
    assert {k: v for k, v in results[0].over.items() if k != "table"} == \
        {k: v for k, v in clean.over.items() if k != "table"}


class MeddlingBot(MubeyamaBot):
    """Also flips every card it does not own, and a card not being read."""

    bad: dict[int, list[tuple[str, int]]] = {}     # per seat: (the refusal expected, the message id)

    async def _read(self, frame: dict[str, Any]) -> None:
        p = self.view.get("pending", {})
        if frame["read"] <= 4 and not (self.pending == "AwaitFlip" and p.get("seat") == self.result.seat):
            ident = await self.client.send("race.flip", table=self.table, read=frame["read"], card=frame["poem"],
                                           reaction_ms=50.0, stamp=1.0, part="kami")
            self.bad.setdefault(self.result.seat or 0, []).append(("mubeyama.not_yours", ident))
            ident = await self.client.send("race.flip", table=self.table, read=frame["read"] + 3,
                                           card=frame["poem"], reaction_ms=50.0, stamp=1.0, part="kami")
            self.bad.setdefault(self.result.seat or 0, []).append(("race.closed", ident))
        await super()._read(frame)


def test_a_flip_of_another_seats_card_is_refused_and_changes_nothing(server, played):
    MeddlingBot.bad = {}
    results, _ = asyncio.run(_game([server.url] * 4, bot_class=MeddlingBot))
    assert sum(len(sent) for sent in MeddlingBot.bad.values()) >= 8
    for r in results:
        answers = {f.get("id"): f.get("reason") for f in r.refusals}
        for reason, ident in MeddlingBot.bad.get(r.seat or 0, []):
            assert answers.get(ident) == reason, (reason, answers)
    clean = played[0][0]
    assert [j["flips"] for j in results[0].judged] == [j["flips"] for j in clean.judged]


def test_karuta_bot_plays_a_mubeyama_table_to_its_end(server):
    """`karuta bot --game mubeyama` (its own process) against this test server at 50x."""
    from tests.test_server_cli import _karuta
    done = _karuta("bot", "--server", server.url, "--game", "mubeyama", "--variant", "izumoji5",
                   "--speed", "50", "--timeout", "100")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 mubeyama tables finished") and "by 5 bots" in done.stdout


class NoPassBot(MubeyamaBot):
    """Reads along, flips, says each card is done, but never gives a card a yaku asks for."""

    async def send(self, kind: str, **fields: Any) -> None:
        if kind != "race.pass":
            await super().send(kind, **fields)


class AbsentMindedBot(NoPassBot):
    """Nor does it flip."""

    async def send(self, kind: str, **fields: Any) -> None:
        if kind != "race.flip":
            await super().send(kind, **fields)


def test_a_flip_or_pass_never_made_is_made_for_the_seat_after_the_hold(server):
    """Seat 0 never flips; no seat ever gives a card: the game still ends, every missing
    step made for its seat `hold_seconds` after the card (untimed)."""
    async def game() -> tuple[list[Any], list[dict[str, Any]]]:
        clients = [(await Client.connect(server.url, f"seat{s}"))[0] for s in range(5)]
        try:
            created = await clients[0].call("race.create", **{**GAME, "variant": "izumoji5"}, hold_seconds=0.1)
            bots = [(AbsentMindedBot if s == 0 else NoPassBot)(c, created["table"], fixed_flip)
                    for s, c in enumerate(clients)]
            for s, bot in enumerate(bots):
                await bot.join(s)
            return list(await asyncio.wait_for(asyncio.gather(*(b.play() for b in bots)), 150)), []
        finally:
            for c in clients:
                await c.close()

    results, _ = asyncio.run(game())
    assert results[1].over is not None and results[1].over["by"] not in ("abandonment", "no_clock")
    session = server.hub.races.tables[results[1].table].session
    assert session.flips(0) > 0 and not session.reactions[0], "seat 0's cards were turned for it, untimed"
    assert all(f["seat"] != 0 for j in results[1].judged for f in j["flips"])
    from trainer.rules.mubeyama.events import Passed
    assert any(isinstance(e, Passed) for e in session.state.log), "the cards owed were given for their seats"
