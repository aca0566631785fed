"""The floor races online (chirashi-dori, Genpei, shimonoku ...) judged on reaction times
(trainer.server.race_floor, docs/online-races.md).

The fairness test plays one seeded game twice with the same fixed touches: once straight to
the server on loopback, once with each person behind their own proxy (20-300 ms one way,
different per person and per direction, ±50 ms jitter): the same seat takes every card, the
same faults are charged, the same Genpei sends are owed, the scores are the same. Chirashi with
three people and a CPU seat, Genpei with three people and a CPU. Then hidden information (no
card is named to anybody before it is read), bad input, a leaver's stand-in, CPU fill-in by
``race.begin``, and `karuta bot --game chirashi|genpei|sakasama|relay|shimonoku`.
"""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests import test_server_cli
from tests.race_helpers import LatencyProxy
from tests.server_fixtures import running_server, walk_strings
from trainer.server.app import ServerConfig
from trainer.server.bot import Client
from trainer.server.race_bot import FloorBot, Press, RaceResult

served = test_server_cli.served       # `karuta serve` as its own process (the fixture)
_karuta = test_server_cli._karuta

SPEED = 20.0
READS = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("floor") / "server.sqlite"
    with running_server(ServerConfig(db=f"sqlite:///{db}", allow_seeds=True, rate=200, burst=400)) as srv:
        yield srv


def floor_plan(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[Press]:
    """Fixed touches per card and seat (nothing random, nothing timed by the network): takes at
    reactions that differ by card, some within the same-time window (a seeded draw decides),
    some anticipated (before the kimariji), wrong touches before a take (faults)."""
    floor = sorted(sides[0]) if sides else []
    presses: list[Press] = []
    if (poem + seat) % 5 == 0:
        wrong = [c for c in floor if c != poem]
        if wrong:
            presses.append((wrong[(poem * 7 + seat) % len(wrong)], 150.0 + 30 * seat))
    if poem in floor:
        rt = 180.0 + (poem * 53 + seat * 131) % 420
        if poem % 6 == 0:
            rt = 240.0 + 5 * seat            # within the 30 ms window: the same time
        if poem % 7 == 1 and seat == 1:
            rt = -120.0                      # anticipated: before the kimariji has sounded
        presses.append((poem, rt))
    return presses


GAMES: dict[str, dict[str, Any]] = {
    "chirashi": {"game": "chirashi", "seats": 4, "cpus": [3], "level": "strong"},
    "genpei": {"game": "genpei", "seats": 4, "cpus": [2], "level": "club"},
}


async def play_floor(urls: list[str], options: dict[str, Any], *, record: Any = None,
                     deadline: float = 240.0, reads: int = READS) -> list[RaceResult]:
    """One seeded floor game: the person seats' bots, each through its own address."""
    clients = [(await Client.connect(url, f"p{k}", record))[0] for k, url in enumerate(urls)]
    try:
        created = await clients[0].call("race.create", seed="7", speed=SPEED, reads=reads, **options)
        cpus = set(options.get("cpus", ()))
        seats = [s for s in range(options["seats"]) if s not in cpus]
        bots = [FloorBot(c, created["table"], floor_plan) for c in clients]
        for bot, seat in zip(bots, seats):
            await bot.join(seat)
        return list(await asyncio.wait_for(asyncio.gather(*(b.play() for b in bots)), deadline))
    finally:
        for c in clients:
            await c.close()


def judgements(result: RaceResult) -> list[tuple[Any, ...]]:
    """What decides the game, read by read: the poem, the taker and their time, every
    person's time, the faults, the scores, a send owed."""
    return [(j["read"], j["poem"], j["taker"], j["taker_ms"], tuple(j["reaction_ms"]), tuple(j["faulted"]),
             tuple(j["scores"]), tuple(j["owing"] or ())) for j in result.judged]


def final(result: RaceResult) -> tuple[Any, ...] | None:
    """How the game ended: the winners, how, the scores."""
    over = result.over
    return None if over is None else (tuple(over["winners"]), over["by"], tuple(over["scores"]))


@pytest.fixture(scope="module")
def baselines(server) -> dict[str, list[RaceResult]]:
    return {name: asyncio.run(play_floor([server.url] * (o["seats"] - len(o["cpus"])), o))
            for name, o in GAMES.items()}


@pytest.mark.parametrize("name", list(GAMES))
def test_baseline_has_takes_faults_and_the_cpu_seat(baselines, name):
    results = baselines[name]
    first = results[0]
    assert first.over is not None and first.over["by"] == "reads"
    assert all(judgements(r) == judgements(first) and r.over == first.over for r in results), \
        "every person is told the same judgements"
    assert len(first.judged) == READS
    takers = {j["taker"] for j in first.judged}
    assert set(GAMES[name]["cpus"]) & takers, "the CPU seat takes cards"
    assert len(takers - set(GAMES[name]["cpus"])) >= 2, "several people take cards"
    assert any(j["faulted"] for j in first.judged), "some wrong touch is a fault"
    assert any(j["taker"] is not None and j["taker_ms"] is not None and j["taker_ms"] < 0 for j in first.judged), \
        "an anticipated touch takes a card"
    if name == "genpei":
        assert any(j["owing"] for j in first.judged), "a take from the other side owes a send"
    # who raced each card (a client tells a miss from sitting out): in chirashi a faulting seat
    # sits out the next card; a Genpei fault is paid with a card, nobody sits out
    everyone = set(range(GAMES[name]["seats"]))
    assert set(first.judged[0]["raced"]) == everyone
    for before, j in zip(first.judged, first.judged[1:]):
        assert set(j["raced"]) == everyone - (set(before["faulted"]) if name == "chirashi" else set())
    assert name != "chirashi" or any(len(j["raced"]) < len(everyone) for j in first.judged)


@pytest.mark.parametrize("name", list(GAMES))
def test_latency_jitter_and_asymmetry_change_no_judgement(server, baselines, name):
    """Each person behind their own proxy: 70/90, 250/150 and 180/70 ms one way (up/down),
    ±50 ms jitter each (every chunk 20-300 ms)."""
    options = GAMES[name]

    async def through_proxies() -> tuple[list[RaceResult], list[float]]:
        async with LatencyProxy(server.port, 70, 90, 50, seed=1) as a, \
                LatencyProxy(server.port, 250, 150, 50, seed=2) as b, \
                LatencyProxy(server.port, 180, 70, 50, seed=3) as c:
            result = await play_floor([a.url, b.url, c.url], options)
            return result, a.delays + b.delays + c.delays

    results, delays = asyncio.run(through_proxies())
    assert 0.02 <= min(delays) and max(delays) <= 0.30
    base = baselines[name]
    for got, want in zip(results, base):
        assert judgements(got) == judgements(want)
        assert final(got) == final(want)
    errors = [r.start["error_ms"] for r in results]
    assert errors[1] > errors[0], "the far person's clock estimate has the wider error bound"


def test_no_frame_names_a_card_before_it_is_read(server):
    """Every frame each person receives, in order: a poem is named (a ``race.read``, a
    judgement, the view's reads) only once its ``race.read`` came; no list in any frame holds
    three cards of the reading order still to come."""
    frames: list[tuple[str, dict[str, Any]]] = []
    results = asyncio.run(play_floor([server.url] * 3, GAMES["chirashi"],
                                     record=lambda label, f: frames.append((label, f))))
    assert results[0].over is not None
    order = [j["poem"] for j in results[0].judged]
    assert len(order) == READS
    checked = 0
    for label in ("p0", "p1", "p2"):
        released: list[int] = []
        for who, frame in frames:
            if who != label:
                continue
            if frame.get("type") == "race.read":
                assert frame["poem"] == order[len(released)], "cards come in the reading order"
                released.append(frame["poem"])
            future = order[len(released):]
            if "poem" in frame:
                assert frame["poem"] in released, f"{frame['type']} names a card not yet read"
            view = frame.get("view") or {}
            assert set(view.get("read", [])) <= set(released)
            for seq in _int_lists(frame):
                for k in range(len(seq) - 2):
                    assert seq[k:k + 3] != future[:3] or len(future) < 3, f"{frame['type']} shows the order"
            assert not any(s in ("order", "stack") for s in _keys(frame))
            checked += 1
    assert checked > 3 * READS


def _int_lists(value: Any) -> list[list[int]]:
    found: list[list[int]] = []
    if isinstance(value, dict):
        for v in value.values():
            found += _int_lists(v)
    elif isinstance(value, list):
        if value and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            found.append(value)
        for v in value:
            found += _int_lists(v)
    return found


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(k for v in value.values() for k in _keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


class BadFloorBot(FloorBot):
    """Sends hostile touches at the first read, then plays as its plan says."""

    def __init__(self, *a: Any, **k: Any):
        super().__init__(*a, **k)
        self.answers: list[dict[str, Any]] = []
        self.judged_before: list[int] = []

    async def _read(self, frame: dict[str, Any]) -> None:
        if frame["read"] == 1:
            floor = self.sides[0]
            taken = next(c for c in range(1, 101) if c not in floor) if len(floor) < 100 else None
            for touch in ({"card": 0}, {"card": 101}, {"reaction_ms": "fast"}, {"reaction_ms": -30_000.0},
                          {"reaction_ms": 1e9}, {"part": "chorus"}, {"seat": 1 - (self.result.seat or 0)},
                          {"read": 2}, *([{"card": taken}] if taken else [])):
                fields = {"table": self.table, "read": 1, "card": floor[0], "reaction_ms": 500.0,
                          "stamp": self.clock(), "part": "kami", **touch}
                ident = await self.client.send("race.touch", **fields)
                self.answers.append({"id": ident, "touch": touch})
            await self.send("race.send", table=self.table, card=floor[0])        # nothing owed
        await super()._read(frame)


def test_bad_touches_are_refused_and_change_nothing(server):
    async def game() -> tuple[list[RaceResult], BadFloorBot]:
        a, _ = await Client.connect(server.url, "bad")
        b, _ = await Client.connect(server.url, "good")
        try:
            created = await a.call("race.create", game="chirashi", seed="7", speed=SPEED, reads=6,
                                   seats=3, cpus=[2])
            bad = BadFloorBot(a, created["table"], floor_plan)
            good = FloorBot(b, created["table"], floor_plan)
            await bad.join(0)
            await good.join(1)
            return list(await asyncio.wait_for(asyncio.gather(bad.play(), good.play()), 120)), bad
        finally:
            await a.close()
            await b.close()

    (bad_result, good_result), bad = asyncio.run(game())
    reasons = [r.get("reason") or r.get("error") for r in bad_result.refusals]
    for expected in ("chirashi.not_on_floor", "bad_message", "race.bad_reaction", "race.bad_part",
                     "race.not_your_seat", "race.closed", "race.nothing_owed"):
        assert expected in reasons, (expected, reasons)
    assert len(bad_result.refusals) >= 9
    assert not good_result.refusals
    # the game went on and both were told the same: as if the hostile touches never came
    assert bad_result.over == good_result.over and bad_result.over["by"] == "reads"
    assert judgements(bad_result) == judgements(good_result) and len(bad_result.judged) == 6


def test_a_host_fills_the_empty_seats_with_cpus_and_a_leaver_gets_a_stand_in(server):
    """``race.begin``: the one person seated plays three CPUs; a second table: a person
    resigns mid-game, a stand-in CPU plays their seat and the game ends by its reads."""
    async def games() -> tuple[RaceResult, list[RaceResult], list[dict[str, Any]]]:
        a, _ = await Client.connect(server.url, "alone")
        try:
            created = await a.call("race.create", game="genpei", seed="3", speed=SPEED, reads=5, seats=4)
            bot = FloorBot(a, created["table"], floor_plan)
            await bot.join(0)
            begun = await a.call("race.begin", table=created["table"])
            assert begun["cpus"] == [1, 2, 3]
            alone = await asyncio.wait_for(bot.play(), 60)
        finally:
            await a.close()
        b, _ = await Client.connect(server.url, "stays")
        c, _ = await Client.connect(server.url, "leaves")
        told: list[dict[str, Any]] = []
        try:
            created = await b.call("race.create", game="chirashi", seed="3", speed=SPEED, reads=8, seats=2,
                                   level="meijin")
            # the one who stays is slow (2.5 s): the stand-in CPU then takes cards for seat 1
            stays = FloorBot(b, created["table"], lambda _s, _n, poem, sides: [(poem, 2500.0)] * (poem in sides[0]))
            leaves = FloorBot(c, created["table"], floor_plan)
            await stays.join(0)
            await leaves.join(1)

            def watch(frame: dict[str, Any]) -> bool:
                if frame.get("type") == "race.stand_in":
                    told.append(frame)
                return False

            async def leave_after_two() -> RaceResult:
                await leaves.play(stop_after=lambda f: f.get("type") == "race.judged" and f["read"] == 2)
                await c.send("race.resign", table=created["table"])
                return leaves.result
            both = list(await asyncio.wait_for(asyncio.gather(stays.play(stop_after=watch), leave_after_two()), 60))
        finally:
            await b.close()
            await c.close()
        return alone, both, told

    alone, (stays, _left), told = asyncio.run(games())
    assert alone.over is not None and alone.over["by"] == "reads" and len(alone.judged) == 5
    assert alone.start is not None and alone.start["cpus"] == [1, 2, 3]
    assert stays.over is not None and stays.over["by"] == "reads" and len(stays.judged) == 8
    assert told and told[0]["seat"] == 1 and told[0]["by"] == "resignation"
    assert sum(j["taker"] == 1 for j in stays.judged[2:]) >= 3, "the stand-in CPU takes cards for seat 1"


@pytest.mark.parametrize("args,words", [
    (("--game", "chirashi", "--cards", "5"), "do not apply"),
    (("--game", "genpei", "--variant", "x"), "no variant"),
    (("--game", "kyogi", "--reads", "5"), "--reads applies to the floor races"),
])
def test_floor_race_options_that_do_not_apply_are_refused_in_one_line(args, words):
    done = _karuta("bot", "--server", "ws://127.0.0.1:1", *args, timeout=60)
    assert done.returncode == 2 and words in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.parametrize("message,error", [
    ({"game": "chirashi", "seats": 9}, "bad_option"),
    ({"game": "chirashi", "seats": 3, "cpus": [0, 1, 2]}, "bad_option"),
    ({"game": "chirashi", "cpus": [7]}, "bad_option"),
    ({"game": "chirashi", "cpus": ["x"]}, "bad_option"),
    ({"game": "genpei", "level": "god"}, "bad_option"),
    ({"game": "genpei", "cards": 5}, "bad_option"),
    ({"game": "kyogi", "seats": 3}, "bad_option"),
    ({"game": "chirashi", "reads": 0}, "bad_option"),
    ({"game": "shimonoku", "variant": "hokkaido"}, "bad_option"),
    ({"game": "chirashi", "variant": "nanae"}, "bad_option"),
])
def test_bad_floor_race_options_are_refused(server, message, error):
    async def ask() -> dict[str, Any]:
        client, _ = await Client.connect(server.url, "asker")
        try:
            ident = await client.send("race.create", **message)
            while True:
                frame = await client.recv()
                if frame.get("id") == ident:
                    return frame
        finally:
            await client.close()
    reply = asyncio.run(ask())
    assert reply.get("error") == error, reply
    assert "Traceback" not in str(reply) and not any("Traceback" in s for s in walk_strings(reply))


@pytest.mark.parametrize("game,seats", [("chirashi", "3"), ("sakasama", "2"), ("genpei", "4"), ("relay", "4"),
                                        ("shimonoku", "6")])
def test_karuta_bot_plays_each_floor_race(server, game, seats):
    """The command line against a test server (it allows the fast reading and a shortened game)."""
    done = _karuta("bot", "--server", server.url, "--game", game, "--seats", seats, "--speed", "50",
                   "--reads", "6", "--tables", "2", "--timeout", "100", timeout=150)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"2 {game} tables finished, 12 cards read") and not done.stderr


def test_a_public_server_plays_floor_races_at_the_real_pace_and_to_their_end(served):
    port, _ = served
    for extra in (("--speed", "20"), ("--reads", "5")):
        done = _karuta("bot", "--server", f"ws://127.0.0.1:{port}", "--game", "chirashi", *extra,
                       "--timeout", "30")
        assert done.returncode == 1 and "bad_option" in done.stderr and done.stderr.count("\n") == 1


def test_a_person_who_drops_and_returns_within_the_wait_plays_on_and_one_who_stays_away_gets_a_stand_in(server):
    """Seat 1 of a Genpei game drops as read 3 is released: back within the wait (with its
    token, ``race.resume``) it plays on with the same judgements as a game without the drop;
    away longer, a stand-in CPU plays its seat and the game still ends by its reads."""
    options = {"game": "genpei", "seats": 3, "cpus": [2], "level": "club"}

    async def game(come_back: bool) -> tuple[RaceResult, list[dict[str, Any]]]:
        a, _ = await Client.connect(server.url, "a")
        b, token = await Client.connect(server.url, "b")
        clients, told = [a, b], []
        try:
            created = await a.call("race.create", seed="7", speed=SPEED, reads=6, wait_seconds=2.0, **options)
            table = created["table"]
            bots = [FloorBot(a, table, floor_plan), FloorBot(b, table, floor_plan)]
            await bots[0].join(0)
            await bots[1].join(1)

            def watch(frame: dict[str, Any]) -> bool:
                if frame.get("type") in ("race.stand_in", "race.waiting", "race.back"):
                    told.append(frame)
                return False
            first = asyncio.ensure_future(bots[0].play(stop_after=watch))
            await bots[1].play(stop_after=lambda f: f.get("type") == "race.read" and f["read"] == 3)
            await b.close()
            if come_back:
                await asyncio.sleep(0.3)
                b2, _ = await Client.connect(server.url, "b again", token=token)
                clients.append(b2)
                back = FloorBot(b2, table, floor_plan)
                await back.send("race.resume", table=table)
                await asyncio.wait_for(back.play(), 60)
            return await asyncio.wait_for(first, 60), told
        finally:
            for c in clients:
                await c.close()

    straight = asyncio.run(play_floor([server.url] * 2, options, reads=6))[0]
    back, told_back = asyncio.run(game(True))
    away, told_away = asyncio.run(game(False))
    assert [f["type"] for f in told_back] == ["race.waiting", "race.back"]
    assert judgements(back) == judgements(straight) and final(back) == final(straight)
    assert [f["type"] for f in told_away] == ["race.waiting", "race.stand_in"]
    assert told_away[1]["seat"] == 1 and told_away[1]["by"] == "abandonment"
    assert away.over is not None and away.over["by"] == "reads" and len(away.judged) == 6


def test_shimonoku_nanae_is_served_and_a_bad_variant_changes_nothing(server):
    """Nanae-town shimonoku (``variant: "nanae"``): the start names it, the floor is Nanae's deal
    (15/20/15 a side); a variant the game lacks is refused in one line and no table is made."""
    async def ask() -> tuple[dict[str, Any], list[Any], dict[str, Any], dict[str, Any]]:
        client, _ = await Client.connect(server.url, "nanae")
        try:
            before = (await client.call("race.list"))["tables"]
            ident = await client.send("race.create", game="shimonoku", variant="teppa", seats=6, cpus=[1, 2, 3, 4, 5])
            refused = await client.recv()
            while refused.get("id") != ident:
                refused = await client.recv()
            after = (await client.call("race.list"))["tables"]
            created = await client.call("race.create", game="shimonoku", variant="nanae", seats=6,
                                        cpus=[1, 2, 3, 4, 5], reads=1)
            listed = next(t for t in (await client.call("race.list"))["tables"] if t["table"] == created["table"])
            bot = FloorBot(client, created["table"], floor_plan)
            await bot.join(0)
            views: list[dict[str, Any]] = []

            def first_view(frame: dict[str, Any]) -> bool:
                if frame.get("type") == "race.view":
                    views.append(frame)
                return bool(views)
            result = await bot.play(stop_after=first_view)
            await client.send("race.resign", table=created["table"])
            assert result.start is not None
            return refused, [before, after], {**result.start, "listed": listed}, views[0]
        finally:
            await client.close()

    refused, (before, after), start, view = asyncio.run(asyncio.wait_for(ask(), 30))
    assert refused["error"] == "bad_option" and "nanae" in refused["message"] and "\n" not in refused["message"]
    assert after == before
    assert start["variant"] == "nanae" and start["listed"]["variant"] == "nanae" and start["game"] == "shimonoku"
    assert sorted(view["view"]["side_counts"]) == [15, 15, 15, 15, 20, 20]


class MattaFloorBot(FloorBot):
    """Asks 待った as read 2 is released and goes on 0.3 s after its judgement."""

    released_at = 0.0
    read_frames: dict[int, dict[str, Any]] = {}
    held: list[list[int]] = []

    def on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "race.read":
            MattaFloorBot.read_frames[frame["read"]] = frame
            if frame["read"] == 2:
                self._spawn(self.send("race.wait", table=self.table, hold=True))
        elif kind == "race.held":
            MattaFloorBot.held.append(frame["seats"])
        elif kind == "race.judged" and frame["read"] == 2:
            self._spawn(self._go_on())
        super().on_frame(frame)

    async def _go_on(self) -> None:
        await asyncio.sleep(0.3)
        MattaFloorBot.released_at = self.clock()
        await self.send("race.wait", table=self.table, hold=False)


def test_matta_at_a_floor_table_holds_the_next_card_until_the_seat_goes_on(server):
    """待った at a chirashi table (the reference is silent; kyōgi's courtesy, docs/online-races.md):
    the card being read is raced to its end as usual, then the next waits for the seat."""
    MattaFloorBot.read_frames, MattaFloorBot.held = {}, []

    async def game() -> RaceResult:
        client, _ = await Client.connect(server.url, "matta")
        try:
            created = await client.call("race.create", game="chirashi", seed="7", speed=SPEED, reads=3,
                                        seats=2, cpus=[1])
            bot = MattaFloorBot(client, created["table"], floor_plan)
            await bot.join(0)
            return await asyncio.wait_for(bot.play(), 60)
        finally:
            await client.close()

    result = asyncio.run(game())
    assert result.over is not None and result.over["by"] == "reads" and len(result.judged) == 3
    assert not result.refusals and MattaFloorBot.held == [[0], []]
    assert MattaFloorBot.read_frames[3]["start_at"] > MattaFloorBot.released_at, "the next card waited"
