"""Online kyōgi judged on reaction times (trainer.server.race, docs/online-races.md).

The fairness test plays one seeded match twice with the same fixed presses: once
straight to the server on loopback, once with each player behind their own
proxy (20-300 ms one way, different per player and per direction, ±50 ms
jitter): the same player takes every card, the same faults are charged, the
final score is the same. Then a stall, bad input and a drop-out.
"""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.race_helpers import MATCH, LatencyProxy, final, fixed_plan, judgements, play_match
from tests.server_fixtures import running_server
from tests import test_server_cli
from trainer.server.app import ServerConfig
from trainer.server.bot import Client
from trainer.server.race_bot import RaceBot
from trainer.server.race_protocol import ClockSync, ReactionRefused, ReadTimes, canonical_time

served = test_server_cli.served       # `karuta serve` as its own process (the fixture)
_karuta = test_server_cli._karuta


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("race") / "server.sqlite"
    with running_server(ServerConfig(db=f"sqlite:///{db}", allow_seeds=True, rate=200, burst=400)) as srv:
        yield srv


@pytest.fixture(scope="module")
def baseline(server) -> list[Any]:
    """The seeded match straight to the server (no added delay)."""
    return asyncio.run(play_match(server.url, server.url))


def test_baseline_match_is_decided_by_cards_with_takes_and_faults_on_both_sides(baseline):
    a, b = baseline
    assert a.over is not None and a.over["by"] == "cards" and a.over == {**b.over}
    assert judgements(a) == judgements(b), "both players are told the same judgements"
    takers = {j.get("taker") for j in a.judged}
    assert {0, 1} <= takers, "each seat takes some card"
    faults = [f for j in a.judged for f in j.get("faults", [])]
    assert {s for s, _ in faults} == {0, 1}, "each seat is charged some fault"
    assert any(j.get("karafuda") for j in a.judged)
    assert any(j.get("taker") is not None and j["reaction_ms"][j["taker"]] < 0 for j in a.judged), \
        "an anticipated press (before the kimariji) takes a card, as the rules say"
    assert not a.refusals and not b.refusals


def test_latency_jitter_and_asymmetry_change_no_judgement(server, baseline):
    """One way, ±50 ms jitter each: seat 0 70 ms toward the server and 90 ms back, seat 1
    250 ms and 150 ms (every chunk 20-300 ms)."""
    async def through_proxies() -> tuple[list[Any], list[float]]:
        async with LatencyProxy(server.port, 70, 90, 50, seed=1) as near, \
                LatencyProxy(server.port, 250, 150, 50, seed=2) as far:
            result = await play_match(near.url, far.url)
            return result, near.delays + far.delays

    (a, b), delays = asyncio.run(through_proxies())
    assert 0.02 <= min(delays) and max(delays) <= 0.30
    assert judgements(a) == judgements(baseline[0])
    assert judgements(b) == judgements(baseline[1])
    assert final(a) == final(baseline[0])
    offsets = [r.start["error_ms"] for r in (a, b)]
    assert offsets[1] > offsets[0], "the far player's clock estimate has the wider error bound"


def test_a_stalled_touch_is_judged_from_when_it_happened(server, baseline):
    """Seat 0's sound stalls 0.5 s at the start of a card it would have taken: its press is
    judged from the agreed start (its stamp), 0.5 s later than it reports; both are told."""
    a = baseline[0]
    target = next(j for j in a.judged if j.get("taker") == 0 and j["reaction_ms"][1] is not None
                  and 30 < j["reaction_ms"][1] - j["reaction_ms"][0] < 400 and not j.get("faults"))
    speed = 10.0
    stalled_a, stalled_b = asyncio.run(play_match(server.url, server.url, speed=speed,
                                                  stalls=({target["read"]: 0.5}, {})))
    got = next(j for j in stalled_a.judged if j["read"] == target["read"])
    told_b = next(j for j in stalled_b.judged if j["read"] == target["read"])
    assert got["stalled"] == [0] and told_b["stalled"] == [0]
    assert got["taker"] == 1, "the opponent, who heard the card on time and pressed, takes it"
    assert got["reaction_ms"][1] == target["reaction_ms"][1], "the opponent's time is untouched"
    # seat 0's press as the server placed it: 0.5 s after its reported reaction (the stamp's
    # time; within the clock estimate's error times the reading speed)
    session = server.hub.races.tables[stalled_a.table].session
    opened = next(e for e in session.log if e.kind == "kyogi.race" and e.number == target["read"])
    landed = [e for e in session.log if e.kind == "kyogi.touch" and e.seat == 0 and e.card == target["poem"]]
    assert len(landed) == 1
    assert abs(landed[0].time_ms - opened.kimariji_ms - (target["reaction_ms"][0] + 500)) < 40
    assert stalled_a.over is not None and stalled_a.over["by"] == "cards"


class BadInputBot(RaceBot):
    """Seat 0, which sends hostile touches at the start of read 2 and a late one in read 3."""

    bad: list[tuple[str, dict[str, Any]]] = []

    async def _read(self, frame: dict[str, Any]) -> None:
        n = frame["read"]
        ok = {"table": self.table, "read": n, "card": self.sides[0][0], "reaction_ms": 100.0,
              "stamp": 1.0, "part": "kami"}
        off_floor = next(c for c in range(1, 101) if all(c not in s for s in self.sides))
        cases = {2: [("kyogi.not_on_floor", {**ok, "card": off_floor}),
                     ("bad_message", {**ok, "reaction_ms": "fast"}),
                     ("race.bad_reaction", {**ok, "reaction_ms": -20_000.0}),
                     ("race.bad_reaction", {**ok, "reaction_ms": 1e9}),
                     ("race.not_your_seat", {**ok, "seat": 1}),
                     ("race.closed", {**ok, "read": n + 5}),
                     ("race.bad_part", {**ok, "part": "joka"})],
                 3: [("race.closed", {**ok, "read": n - 1})]}
        for reason, fields in cases.get(n, []):
            ident = await self.client.send("race.touch", **fields)
            self.bad.append((reason, {"id": ident}))
        if n == 2:
            ident = await self.client.send("race.send", table=self.table, card=self.sides[0][0])
            self.bad.append(("race.nothing_owed", {"id": ident}))
        await super()._read(frame)


def test_bad_touches_are_refused_and_change_nothing(server, baseline):
    async def match() -> list[Any]:
        a, _ = await Client.connect(server.url, "a")
        b, _ = await Client.connect(server.url, "b")
        try:
            created = await a.call("race.create", **MATCH)
            bots = [BadInputBot(a, created["table"], fixed_plan), RaceBot(b, created["table"], fixed_plan)]
            await bots[0].join(0)
            await bots[1].join(1)
            return list(await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in bots)), 120))
        finally:
            await a.close()
            await b.close()

    BadInputBot.bad = []
    a, b = asyncio.run(match())
    answers = {f.get("id"): f.get("reason") or f.get("error") for f in a.refusals}
    assert len(BadInputBot.bad) == 9
    for reason, sent in BadInputBot.bad:
        # a message that does not fit the schema is answered before its id is read
        assert answers.get(None if reason == "bad_message" else sent["id"]) == reason, (reason, answers)
    assert judgements(a) == judgements(baseline[0]), "nothing the refused touches said changed a judgement"
    assert final(a) == final(baseline[0]) and not b.refusals


def _drop_and_maybe_return(server, come_back: bool, wait: float) -> list[Any]:
    async def match() -> list[Any]:
        a, _ = await Client.connect(server.url, "a")
        b, token = await Client.connect(server.url, "b")
        clients = [a, b]
        try:
            created = await a.call("race.create", **MATCH, wait_seconds=wait)
            table = created["table"]
            bots = [RaceBot(a, table, fixed_plan), RaceBot(b, table, fixed_plan)]
            await bots[0].join(0)
            await bots[1].join(1)
            first = asyncio.ensure_future(bots[0].play())
            await bots[1].play(stop_after=lambda f: f.get("type") == "race.read" and f["read"] == 3)
            await b.close()                                  # seat 1 drops as read 3 is released
            if not come_back:
                return [await asyncio.wait_for(first, 30), bots[1].result]
            await asyncio.sleep(wait / 4)
            b2, _ = await Client.connect(server.url, "b again", token=token)
            clients.append(b2)
            back = RaceBot(b2, table, fixed_plan)
            await back.send("race.resume", table=table)
            second = await asyncio.wait_for(back.play(), 60)
            second.judged = bots[1].result.judged + second.judged
            return [await asyncio.wait_for(first, 30), second]
        finally:
            for c in clients:
                await c.close()
    return asyncio.run(match())


def test_a_player_who_drops_out_loses_by_abandonment_after_the_wait(server):
    a, b = _drop_and_maybe_return(server, come_back=False, wait=1.0)
    assert a.over is not None and a.over["by"] == "abandonment" and a.over["winner"] == 0
    assert len(a.judged) == 2, "the read in progress when seat 1 left is never judged"


def test_a_player_who_returns_within_the_wait_resumes_the_same_match(server, baseline):
    a, b = _drop_and_maybe_return(server, come_back=True, wait=5.0)
    assert final(a) == final(baseline[0])
    assert judgements(a) == judgements(baseline[0])
    assert judgements(b) == judgements(baseline[1])


# -- the pure parts -------------------------------------------------------------------------------

def test_clock_offset_keeps_the_fastest_exchange_and_its_half_round_trip():
    sync = ClockSync()
    true_offset = 100.0
    for sent, up, down in ((0.0, 0.30, 0.05), (1.0, 0.02, 0.03), (2.0, 0.2, 0.2)):
        sync.add(sent, sent + up + true_offset, sent + up + down)
    assert sync.error == pytest.approx(0.025)
    assert abs(sync.offset - true_offset) <= sync.error
    assert sync.to_server(sync.to_client(5.0)) == pytest.approx(5.0)


def test_a_reaction_is_kept_within_its_part_of_the_reading():
    times = ReadTimes(kami_start=10.0, kimariji=11.0, kami_end=12.0, card_end=16.0, next_kami=17.0)
    assert canonical_time(times, 250, "kami") == pytest.approx(11.25)
    assert canonical_time(times, -400, "kami") == pytest.approx(10.6)      # anticipation
    assert canonical_time(times, -1500, "kami") == pytest.approx(10.0)     # held to the kami-no-ku
    assert canonical_time(times, 200, "shimo") == pytest.approx(12.0)      # held to its part
    assert canonical_time(times, 9000, "ma") == pytest.approx(16.999)
    for bad in (float("nan"), float("inf"), -70_000, 70_000):
        with pytest.raises(ReactionRefused):
            canonical_time(times, bad, "kami")
    with pytest.raises(ReactionRefused):
        canonical_time(times, -4_500, "kami")


# -- karuta bot --game kyogi -----------------------------------------------------------------------

def test_karuta_bot_fills_every_seat_of_kyogi_tables_and_plays_them_out(served):
    """Against a real `karuta serve` (speed 1: a public server reads at the real pace), one
    card a side so that a table ends after its first take."""
    port, _ = served
    done = _karuta("bot", "--server", f"ws://127.0.0.1:{port}", "--game", "kyogi", "--tables", "2",
                   "--cards", "1", "--karafuda", "0", "--level", "a-class", "--timeout", "100")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2 kyogi tables finished") and "by 4 bots" in done.stdout and not done.stderr


@pytest.mark.parametrize("args,words", [
    (("--game", "yomi", "--cards", "3"), "--cards apply to --game kyogi"),
    (("--game", "mubeyama"), "needs --variant"),
    (("--game", "mubeyama", "--variant", "okayama4", "--cards", "3"), "do not apply"),
    (("--game", "kyogi", "--seats", "3"), "no --variant or --seats"),
])
def test_race_options_that_do_not_apply_are_refused_in_one_line(args, words):
    done = _karuta("bot", "--server", "ws://127.0.0.1:1", *args, timeout=60)
    assert done.returncode == 2 and words in done.stderr and done.stderr.count("\n") == 1


def test_a_public_server_reads_at_the_real_pace(served):
    port, _ = served
    done = _karuta("bot", "--server", f"ws://127.0.0.1:{port}", "--game", "kyogi", "--cards", "1",
                   "--speed", "20", "--timeout", "30")
    assert done.returncode == 1 and "bad_option" in done.stderr and done.stderr.count("\n") == 1


class SilentBot(RaceBot):
    """A client that never says read 2 finished (a client whose reading hung)."""

    async def send(self, kind: str, **fields: Any) -> None:
        if kind == "race.done" and fields["read"] == 2:
            return
        await super().send(kind, **fields)


def test_a_read_nobody_closes_is_judged_after_the_hold_and_fast_times_are_flagged(server, baseline):
    async def match() -> list[Any]:
        a, _ = await Client.connect(server.url, "a")
        b, _ = await Client.connect(server.url, "b")
        try:
            created = await a.call("race.create", **MATCH, hold_seconds=0.5, floor_ms=250.0)
            bots = [RaceBot(a, created["table"], fixed_plan), SilentBot(b, created["table"], fixed_plan)]
            await bots[0].join(0)
            await bots[1].join(1)
            return list(await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in bots)), 120))
        finally:
            await a.close()
            await b.close()

    a, b = asyncio.run(match())
    assert [j["timed_out"] for j in a.judged][:3] == [False, True, False]
    assert judgements(a) == judgements(baseline[0]), "seat 1's touches were in before the hold ran out"
    flagged = [j for j in a.judged if j.get("fast")]
    assert flagged and all(j["reaction_ms"][j["taker"]] < 250 for j in flagged)
    assert all(not j.get("fast") for j in a.judged if j.get("taker") is not None
               and j["reaction_ms"][j["taker"]] >= 250)


def test_a_player_may_resign_and_the_other_side_wins(server):
    async def match() -> list[Any]:
        a, _ = await Client.connect(server.url, "a")
        b, _ = await Client.connect(server.url, "b")
        try:
            created = await a.call("race.create", **MATCH)
            bots = [RaceBot(a, created["table"], fixed_plan), RaceBot(b, created["table"], fixed_plan)]
            await bots[0].join(0)
            await bots[1].join(1)
            other = asyncio.ensure_future(bots[1].play())
            await bots[0].play(stop_after=lambda f: f.get("type") == "race.judged" and f["read"] == 2)
            await a.call("race.resign", table=created["table"])
            return [bots[0].result, await asyncio.wait_for(other, 30)]
        finally:
            await a.close()
            await b.close()

    a, b = asyncio.run(match())
    assert b.over is not None and (b.over["winner"], b.over["by"]) == (1, "resignation")


def test_a_spectator_sees_the_floor_and_each_judgement_but_never_a_card_before_it_is_judged(server, baseline):
    async def match() -> tuple[list[Any], list[dict[str, Any]], dict[str, Any]]:
        a, _ = await Client.connect(server.url, "a")
        b, _ = await Client.connect(server.url, "b")
        seen: list[dict[str, Any]] = []
        watcher, _ = await Client.connect(server.url, "watcher", lambda _label, frame: seen.append(frame))
        try:
            created = await a.call("race.create", **MATCH)
            table = created["table"]
            listed = await watcher.call("race.list")
            bots = [RaceBot(a, table, fixed_plan), RaceBot(b, table, fixed_plan)]
            await bots[0].join(0)
            await bots[1].join(1)
            players = asyncio.ensure_future(asyncio.gather(bots[0].play(), bots[1].play()))
            await asyncio.sleep(0.5)
            await watcher.call("race.watch", table=table)
            while not any(f.get("type") == "race.over" for f in seen):
                await watcher.recv()
            return list(await asyncio.wait_for(players, 60)), seen, listed
        finally:
            for c in (a, b, watcher):
                await c.close()

    (a, _b), seen, listed = asyncio.run(match())
    assert any(t["table"] == a.table and "seed" not in t for t in listed["tables"])
    kinds = {f.get("type") for f in seen}
    assert "race.read" not in kinds and "race.start" not in kinds and "race.okuri" not in kinds
    watching = next(f for f in seen if f.get("type") == "race.watching")
    judged = watching["history"] + [f for f in seen if f.get("type") == "race.judged"]
    assert [j["read"] for j in judged] == [j["read"] for j in a.judged]
    assert [j.get("taker") for j in judged] == [j.get("taker") for j in a.judged]
    assert next(f for f in seen if f.get("type") == "race.over")["winner"] == a.over["winner"]


class WaitingBot(RaceBot):
    """Seat 0: 待った after read 2 is judged, rearranges its side after the next read that
    leaves nobody owing a card (between reads, the reader held), then goes on."""

    sent: list[tuple[str, int]] = []

    arranged = False

    def on_frame(self, frame: dict[str, Any]) -> None:
        super().on_frame(frame)
        kind = frame.get("type")
        if kind == "race.judged" and frame["read"] == 2:
            self._spawn(self._wait_and_arrange(2))
        elif kind in ("race.judged", "race.sides") and frame["owing"] is None and not self.arranged \
                and self.result.judged[-1]["read"] > 2:      # between reads, nobody owing a card
            self.arranged = True
            self._spawn(self._wait_and_arrange(3))

    async def _call(self, reason: str, kind: str, **fields: Any) -> None:
        async with self._lock:
            self.sent.append((reason, await self.client.send(kind, table=self.table, **fields)))

    async def _wait_and_arrange(self, number: int) -> None:
        mine = self.sides[0]
        rows = [[mine, []], [[], []], [[], []]]
        if number == 2:
            await self._call("race.not_holding", "race.arrange", rows=rows)   # not held yet
            await self._call("", "race.wait", hold=True)
            return
        await self._call("kyogi.wrong_cards", "race.arrange", rows=[[mine[1:], []], [[], []], [[], []]])
        await self._call("bad_message", "race.arrange", rows=[[mine, []]])
        await self._call("", "race.arrange", rows=rows)
        await self._call("", "race.wait", hold=False)


def test_matta_holds_the_next_card_while_a_player_rearranges(server, baseline):
    async def match() -> list[Any]:
        a, _ = await Client.connect(server.url, "a")
        b, _ = await Client.connect(server.url, "b")
        try:
            created = await a.call("race.create", **MATCH)
            bots = [WaitingBot(a, created["table"], fixed_plan), RaceBot(b, created["table"], fixed_plan)]
            await bots[0].join(0)
            await bots[1].join(1)
            layouts: list[dict[str, Any]] = []
            seen = bots[1].on_frame

            def watch(frame: dict[str, Any]) -> None:
                if frame.get("type") in ("race.layout", "race.held", "race.read"):
                    layouts.append(frame)
                seen(frame)
            bots[1].on_frame = watch  # type: ignore[method-assign]
            results = list(await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in bots)), 120))
            return results + [layouts]
        finally:
            await a.close()
            await b.close()

    WaitingBot.sent = []
    a, b, frames = asyncio.run(match())
    answers = {f.get("id"): f.get("reason") or f.get("error") for f in a.refusals}
    for reason, ident in WaitingBot.sent:
        assert answers.get(ident, "") == reason, (reason, answers)
    kinds = [(f["type"], f.get("read"), tuple(f.get("seats", ()))) for f in frames]
    held, layout, released = kinds.index(("race.held", None, (0,))), \
        kinds.index(("race.layout", None, ())), kinds.index(("race.held", None, ()))
    next_read = next(i for i in range(released, len(kinds)) if kinds[i][0] == "race.read")
    assert held < layout < released < next_read, \
        "the other player sees the hold, the new layout, the release, then the next card"
    reads_between = [k for k in kinds[layout - 1:released] if k[0] == "race.read"]
    assert not reads_between, "no card is released while the reader is held"
    new_rows = next(f for f in frames if f["type"] == "race.layout")["rows"]
    assert new_rows[1:] == [[[], []], [[], []]] and new_rows[0][1] == []
    assert judgements(a) == judgements(baseline[0]) and final(a) == final(baseline[0])
