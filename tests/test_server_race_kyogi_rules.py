"""Online kyōgi's rules at the edges of a read (trainer.server.race, docs/online-races.md): the
joka read before card 1 and a touch during it, 待った asked while a card is raced, and the race
tables in the main lobby's list."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.race_helpers import MATCH
from tests.server_fixtures import running_server
from trainer.server.app import ServerConfig
from trainer.server.bot import Client
from trainer.server.race_bot import Press, RaceBot, RaceResult


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("kyogi-rules") / "server.sqlite"
    with running_server(ServerConfig(db=f"sqlite:///{db}", allow_seeds=True, rate=200, burst=400)) as srv:
        yield srv


def owner_takes(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[Press]:
    """The card's owner takes it 300 ms after the kimariji; nobody touches anything else."""
    return [(poem, 300.0)] if poem in sides[seat] else []


async def _match(url: str, bots: list[type[RaceBot]], plan: Any = owner_takes,
                 options: dict[str, Any] | None = None) -> list[RaceResult]:
    a, _ = await Client.connect(url, "a")
    b, _ = await Client.connect(url, "b")
    try:
        created = await a.call("race.create", **{**MATCH, **(options or {})})
        seats = [bots[0](a, created["table"], plan), bots[1](b, created["table"], plan)]
        await seats[0].join(0)
        await seats[1].join(1)
        return list(await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), 120))
    finally:
        await a.close()
        await b.close()


class JokaBot(RaceBot):
    """Touches the first card of its own side during the joka (before card 1), and sends a
    touch in the part "joka" at read 2 (refused: the joka comes before card 1 only)."""

    reads: list[dict[str, Any]] = []

    async def _read(self, frame: dict[str, Any]) -> None:
        JokaBot.reads.append(frame)
        if frame["read"] == 1:
            joka = frame["joka_s"]
            pressed = frame["start_at"] - joka / 2 / frame["speed"]     # halfway through the joka
            await self._until(pressed)
            await self.send("race.touch", table=self.table, read=1, card=self.sides[self.result.seat or 0][0],
                            reaction_ms=-(joka / 2 + frame["kimariji_s"]) * 1000, stamp=pressed, part="joka")
        elif frame["read"] == 2:
            await self.send("race.touch", table=self.table, read=2, card=self.sides[0][0], reaction_ms=-500.0,
                            stamp=self.clock(), part="joka")
        await super()._read(frame)


def test_a_touch_during_the_joka_is_a_fault_judged_with_the_first_card(server):
    short = {"cards": 2, "karafuda": 0}     # reads 1 and 2 are all this test looks at
    plain = asyncio.run(_match(server.url, [RaceBot, RaceBot], options=short))
    JokaBot.reads = []
    touched = asyncio.run(_match(server.url, [JokaBot, RaceBot], options=short))
    first = touched[0].judged[0]
    assert JokaBot.reads[0]["joka_s"] > 5.0, "card 1's frame names the joka read before it"
    assert all("joka_s" not in f for f in JokaBot.reads[1:])
    assert not any(f[0] == 0 for f in plain[0].judged[0]["faults"]), "without the touch: no fault"
    assert any(f[0] == 0 for f in first["faults"]), "the joka touch is seat 0's fault at read 1"
    assert [r.get("reason") for r in touched[0].refusals] == ["race.bad_part"]
    assert first["taker"] == plain[0].judged[0]["taker"], "the card is still taken as it was"


class MattaBot(RaceBot):
    """Seat 0 asks 待った as read 2 is released, goes on after the judgement; its plan takes
    nothing of read 2 before 3 s after the kimariji (after the read is settled)."""

    judged_at: dict[int, float] = {}
    read_frames: dict[int, dict[str, Any]] = {}

    def on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "race.read":
            MattaBot.read_frames[frame["read"]] = frame
            if frame["read"] == 2:
                self._spawn(self.send("race.wait", table=self.table, hold=True))
        if kind == "race.judged":
            MattaBot.judged_at[frame["read"]] = self.clock()
            if frame["read"] == 2:
                self._spawn(self._go_on())
        super().on_frame(frame)

    async def _go_on(self) -> None:
        await asyncio.sleep(0.3)
        MattaBot.released_at = self.clock()
        await self.send("race.wait", table=self.table, hold=False)


def late_at_read_2(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[Press]:
    """Read 2's owner touches in the shimo-no-ku (after the 待った settles the read); other reads
    are taken at 300 ms."""
    if poem not in sides[seat]:
        return []
    return [(poem, 5_500.0 if number == 2 else 300.0)]


# Slower than the other matches, and shorter: at speed 20 the read's natural end came only
# ~0.4 s of wall time after the 待った close, which a loaded CI machine overran.
MATTA_MATCH = {"cards": 3, "karafuda": 0, "speed": 8.0}


def test_matta_during_a_read_closes_it_first_then_holds(server):
    MattaBot.judged_at, MattaBot.read_frames = {}, {}
    plain = asyncio.run(_match(server.url, [RaceBot, RaceBot], late_at_read_2, MATTA_MATCH))
    held = asyncio.run(_match(server.url, [MattaBot, RaceBot], late_at_read_2, MATTA_MATCH))
    before, after = plain[0].judged[1], held[0].judged[1]
    assert not before["matta"] and before["taker"] is not None, "left alone, read 2 is taken in the shimo"
    assert after["matta"] and after["taker"] is None, "with 待った the read is settled before that touch"
    frame = MattaBot.read_frames[2]
    natural_end = frame["start_at"] + (frame["card_s"] + frame["ma_s"]) / frame["speed"]
    assert MattaBot.judged_at[2] < natural_end, "the read is judged before its reading would have ended"
    third = MattaBot.read_frames[3]
    assert third["start_at"] > MattaBot.released_at, "the next card waits for the hold to end"
    assert held[0].over is not None and held[0].over["by"] == "cards"


def test_race_tables_are_in_the_main_lobby_list(server):
    async def look() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        watcher, _ = await Client.connect(server.url, "watcher")
        host, _ = await Client.connect(server.url, "host")
        try:
            await watcher.call("lobby")
            public = await host.call("race.create", game="kyogi", cards=3)
            await host.call("race.create", game="chirashi", seats=3, cpus=[2], private=True)
            await host.call("race.join", table=public["table"], seat=0)
            seen: list[dict[str, Any]] = []
            while not any(r["table"] == public["table"] and r["names"][0] for r in seen):
                frame = await watcher.recv()
                if frame.get("type") == "lobby":
                    seen = frame["races"]
            mine = (await host.call("lobby"))["races"]
            listed = (await watcher.call("race.list"))["tables"]
            return seen, mine, listed
        finally:
            await watcher.close()
            await host.close()

    seen, mine, listed = asyncio.run(look())
    entry = next(r for r in seen if r["game"] == "kyogi")
    assert entry["rated"] is True and entry["private"] is False and entry["status"] == "open"
    assert entry["seats"][0] == {"name": entry["names"][0]} and entry["seats"][1] is None and entry["cards"] == 3
    assert not any(r["game"] == "chirashi" for r in seen), "a private table only for its host and players"
    floor = next(r for r in mine if r["game"] == "chirashi")
    assert floor["private"] is True and floor["rated"] is False and floor["seats"][2] == {"cpu": "CPU (club)"}
    assert {r["table"] for r in listed} <= {r["table"] for r in seen}, "race.list and the lobby agree"
    assert not any("seed" in r or "code" in r for r in mine)
