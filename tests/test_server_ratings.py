"""Kyōgi ratings of accounts (trainer.server.ratings, Store.rate_match; docs/online-races.md).

Short seeded matches (2 cards a side, no karafuda, read at 20x) between bots with fixed
reaction times, so the winner is known before the match: seat 0 presses every floor
card at 200 ms, seat 1 at 450 ms. The expected ratings are computed here with the
openskill library itself, apart from the server's code path.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import sqlalchemy as sa
from openskill.models import PlackettLuce

from tests.race_helpers import play_between
from tests.server_fixtures import running_server
from trainer.server.app import ServerConfig
from trainer.server.bot import BotError, Client, _open
from trainer.server.store import RATINGS, Store

SHORT = {"cards": 2, "karafuda": 0}
PASSWORD = "correct horse battery"


def seat0_faster(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[tuple[int, float]]:
    """Every floor card pressed, seat 0 at 200 ms, seat 1 at 450 ms: seat 0 takes them all."""
    if not any(poem in side for side in sides):
        return []
    return [(poem, 200.0 if seat == 0 else 450.0)]


def shown(rating: Any) -> int:
    """The shown number from the library's own ordinal: 60 (mu - 3 sigma) + 1500."""
    return round(rating.ordinal(z=3.0, alpha=60.0, target=1500.0))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("ratings") / "server.sqlite"
    with running_server(ServerConfig(db=f"sqlite:///{db}", allow_seeds=True, rate=200, burst=400)) as srv:
        yield srv


async def account(url: str, name: str) -> Client:
    """An account (made on first use), signed in on its own connection."""
    client = Client(await _open(url), name)
    await client.call("hello", version=1)
    try:
        signed = await client.call("sign_up", name=name, password=PASSWORD)
    except BotError:
        signed = await client.call("log_in", name=name, password=PASSWORD)
    client.token = signed["token"]
    return client


async def frame_of(client: Client, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    async def wait() -> dict[str, Any]:
        while True:
            frame = await client.recv()
            if frame.get("type") == kind:
                return frame
    return await asyncio.wait_for(wait(), timeout)


def stored(server: Any) -> dict[str, tuple[float, float, int]]:
    """Every rating row: user name -> (mu, sigma, games)."""
    from trainer.server.store import USERS
    with server.hub.store.engine.connect() as conn:
        rows = conn.execute(sa.select(USERS.c.name, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.games)
                            .join(USERS, USERS.c.id == RATINGS.c.user_id)).all()
    return {r.name: (r.mu, r.sigma, r.games) for r in rows}


def rated_match(server: Any, first: str, second: str, options: dict[str, Any] | None = None) -> Any:
    """One short match between two accounts; both results and the rating frames."""
    async def go() -> Any:
        a, b = await account(server.url, first), await account(server.url, second)
        try:
            results = await play_between(a, b, seat0_faster, options={**SHORT, **(options or {})}, deadline=60)
            frames = [await frame_of(c, "rating") for c in (a, b)] if results[0].over["rated"] else []
            return results, frames
        finally:
            await a.close()
            await b.close()
    return asyncio.run(go())


@pytest.fixture(scope="module")
def first_match(server):
    before = stored(server)
    (a, b), frames = rated_match(server, "hana", "tsuki")
    return before, a, b, frames


def test_a_rated_match_moves_both_ratings_by_the_librarys_numbers(server, first_match):
    before, a, b, frames = first_match
    assert "hana" not in before and "tsuki" not in before
    assert a.over["winner"] == 0 and a.over["by"] == "cards" and a.over["rated"] is True
    assert a.start["rated"] is True and not a.refusals and not b.refusals
    model = PlackettLuce()
    [[win], [loss]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    after = stored(server)
    assert after["hana"][:2] == pytest.approx((win.mu, win.sigma), abs=1e-9)
    assert after["tsuki"][:2] == pytest.approx((loss.mu, loss.sigma), abs=1e-9)
    assert after["hana"][2] == after["tsuki"][2] == 1
    assert win.mu > model.mu > loss.mu, "the winner's rating rises, the loser's falls"
    start = shown(model.rating())
    assert frames[0] == {"type": "rating", "game": "kyogi", "table": a.table, "rating": shown(win),
                         "change": shown(win) - start, "games": 1}
    assert frames[1]["rating"] == shown(loss) and frames[1]["change"] == shown(loss) - start < 0 < frames[0]["change"]


def test_signed_in_carries_the_accounts_rating_and_a_guest_has_none(server, first_match):
    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        client = Client(await _open(server.url), "hana")
        await client.call("hello", version=1)
        signed = await client.call("log_in", name="hana", password=PASSWORD)
        await client.close()
        guest = Client(await _open(server.url), "g")
        await guest.call("hello", version=1)
        as_guest = await guest.call("guest")
        await guest.close()
        return signed, as_guest
    signed, as_guest = asyncio.run(go())
    mu, sigma, games = stored(server)["hana"]
    assert signed["rating"] == {"game": "kyogi", "rating": shown(PlackettLuce().rating(mu=mu, sigma=sigma)),
                                "games": games}
    assert as_guest["guest"] is True and as_guest["rating"] is None


def test_a_match_counts_once_whatever_replays_or_restarts(server, first_match, tmp_path):
    """The match's record is the key: applying it again (a replay) changes nothing, and neither
    does a restart (a new store on the same database, migrated again)."""
    hub = server.hub
    before = stored(server)
    with hub.store.engine.connect() as conn:
        match = conn.execute(sa.text("select id, first_user, second_user, winner, by from rated_matches")).all()
    assert len(match) == 1
    key, first, second, winner, by = match[0]
    assert hub.store.rate_match(key, "kyogi", (first, second), winner, by) is None
    again = Store(hub.store.url)
    again.migrate()
    assert again.rate_match(key, "kyogi", (first, second), winner, by) is None
    again.close()
    assert stored(server) == before


def test_a_guest_is_never_rated_and_neither_is_a_private_table(server, first_match):
    async def go() -> Any:
        a = Client(await _open(server.url), "hana")
        await a.call("hello", version=1)
        await a.call("log_in", name="hana", password=PASSWORD)
        guest, _ = await Client.connect(server.url, "guest")
        try:
            with_guest = await play_between(a, guest, seat0_faster, options=SHORT, deadline=60)
            b = Client(await _open(server.url), "tsuki")
            await b.call("hello", version=1)
            await b.call("log_in", name="tsuki", password=PASSWORD)
            private = await play_between(a, b, seat0_faster, options={**SHORT, "private": True}, deadline=60)
            await b.close()
            return with_guest, private
        finally:
            await a.close()
            await guest.close()

    before = stored(server)
    with_guest, private = asyncio.run(go())
    assert with_guest[0].over["winner"] == 0 and with_guest[0].over["rated"] is False
    assert with_guest[0].start["rated"] is False
    assert private[0].over["winner"] == 0 and private[0].over["rated"] is False
    assert stored(server) == before, "no rating changed"


def test_a_private_table_needs_its_code_and_is_listed_only_to_its_players(server):
    async def go() -> Any:
        host, _ = await Client.connect(server.url, "host")
        other, _ = await Client.connect(server.url, "other")
        try:
            created = await host.call("race.create", game="kyogi", seed="3", private=True, **SHORT)
            for fields in ({}, {"code": "wrong"}):
                with pytest.raises(BotError, match="bad_code"):
                    await other.call("race.join", table=created["table"], **fields)
                with pytest.raises(BotError, match="bad_code"):
                    await other.call("race.watch", table=created["table"], **fields)
            seen_by = [await c.call("race.list") for c in (host, other)]
            joined = await other.call("race.join", table=created["table"], code=created["code"])
            seen_by.append(await other.call("race.list"))      # now a player there: listed
            return created, seen_by, joined
        finally:
            await host.close()
            await other.close()
    created, (by_host, by_other, by_player), joined = asyncio.run(go())
    assert created["rated"] is False and len(created["code"]) >= 8
    listed = [t for t in by_host["tables"] if t["table"] == created["table"]]
    assert listed and listed[0]["private"] is True and listed[0]["rated"] is False
    assert "code" not in json.dumps(by_host) and created["code"] not in json.dumps(by_host)
    assert all(t["table"] != created["table"] for t in by_other["tables"])
    assert joined["seat"] == 0 and any(t["table"] == created["table"] for t in by_player["tables"])


def test_resigning_a_rated_match_loses_it(server):
    async def go() -> Any:
        from trainer.server.race_bot import RaceBot
        a, b = await account(server.url, "kaze"), await account(server.url, "kumo")
        try:
            created = await a.call("race.create", game="kyogi", seed="5", speed=20.0, **SHORT)
            bots = [RaceBot(a, created["table"], seat0_faster), RaceBot(b, created["table"], seat0_faster)]
            await bots[0].join(0)
            await bots[1].join(1)
            playing = asyncio.ensure_future(bots[0].play())
            await bots[1].play(stop_after=lambda f: f.get("type") == "race.start")
            await b.call("race.resign", table=created["table"])
            over = await frame_of(b, "race.over")
            frames = [await frame_of(b, "rating")]
            await asyncio.wait_for(playing, 30)
            frames.insert(0, await frame_of(a, "rating"))
            return over, frames
        finally:
            await a.close()
            await b.close()
    over, frames = asyncio.run(go())
    assert over["winner"] == 0 and over["by"] == "resignation" and over["rated"] is True
    model = PlackettLuce()
    [[win], [loss]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert [f["rating"] for f in frames] == [shown(win), shown(loss)]
    assert stored(server)["kumo"][:2] == pytest.approx((loss.mu, loss.sigma), abs=1e-9)


def test_abandoning_a_rated_match_loses_it_once_the_wait_is_over(server):
    """Seat 1's connection goes after the start and does not come back within the wait (0.5 s):
    seat 0 wins by abandonment and both ratings move as for a loss (the absent one learns it
    at the next sign-in)."""
    async def go() -> Any:
        from trainer.server.race_bot import RaceBot
        a, b = await account(server.url, "ame"), await account(server.url, "yuki2")
        try:
            created = await a.call("race.create", game="kyogi", seed="7", speed=20.0, wait_seconds=0.5, **SHORT)
            bots = [RaceBot(a, created["table"], seat0_faster), RaceBot(b, created["table"], seat0_faster)]
            await bots[0].join(0)
            await bots[1].join(1)
            playing = asyncio.ensure_future(bots[0].play())
            await bots[1].play(stop_after=lambda f: f.get("type") == "race.start")
            await b.close()
            result = await asyncio.wait_for(playing, 30)
            return result.over, await frame_of(a, "rating")
        finally:
            await a.close()
    over, frame = asyncio.run(go())
    assert over["winner"] == 0 and over["by"] == "abandonment" and over["rated"] is True
    model = PlackettLuce()
    [[win], [loss]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert frame["rating"] == shown(win) and frame["games"] == 1
    assert stored(server)["yuki2"] == pytest.approx((loss.mu, loss.sigma, 1), abs=1e-9)


def test_the_leaderboard_lists_the_best_first_and_refuses_bad_limits(server, first_match):
    """A second win for hana (against a new account) moves her from her first rating by the
    library's numbers; the leaderboard lists accounts by the shown number, best first (then
    more games, then the name); bad requests change nothing."""
    hana = stored(server)["hana"]
    rated_match(server, "hana", "yuki")
    ratings = stored(server)
    model = PlackettLuce()
    [[win], [loss]] = model.rate([[model.rating(mu=hana[0], sigma=hana[1])], [model.rating()]], ranks=[1, 2])
    assert ratings["hana"] == pytest.approx((win.mu, win.sigma, 2), abs=1e-9)
    assert ratings["yuki"] == pytest.approx((loss.mu, loss.sigma, 1), abs=1e-9)
    expected = sorted(ratings, key=lambda n: (-(ratings[n][0] - 3 * ratings[n][1]), -ratings[n][2], n))

    async def go() -> Any:
        client, _ = await Client.connect(server.url, "viewer")
        try:
            board = await client.call("leaderboard", game="kyogi", limit=50)
            top2 = await client.call("leaderboard", limit=2)
            errors = []
            for fields in ({"limit": 0}, {"limit": 101}, {"limit": -3}, {"limit": "ten"}, {"limit": True},
                           {"game": "unsun"}, {"game": 7}, {"rows": 3}):
                # a field of the wrong type is refused before its id is read: the error has none
                await client.send("leaderboard", **fields)
                errors.append((await frame_of(client, "error"))["error"])
            still = await client.call("leaderboard", limit=50)
            return board, top2, errors, still
        finally:
            await client.close()

    board, top2, errors, still = asyncio.run(go())
    names = [p["name"] for p in board["players"]]
    assert names == expected
    assert [p["rank"] for p in board["players"]] == list(range(1, len(names) + 1))
    shown_numbers = [p["rating"] for p in board["players"]]
    assert shown_numbers == sorted(shown_numbers, reverse=True)
    assert all(p["games"] == ratings[p["name"]][2] for p in board["players"])
    assert not any(n.startswith("guest-") for n in names)
    assert top2["game"] == "kyogi" and top2["players"] == board["players"][:2]
    assert errors == ["bad_option"] * 3 + ["bad_message"] * 2 + \
        ["unknown_game", "bad_message", "bad_message"]
    assert still == {**board, "id": still["id"]} and stored(server) == ratings


def test_a_draw_moves_two_equal_players_nowhere_apart_and_the_shown_number_starts_at_1500():
    from trainer.server.ratings import Skill, new_skill, rated
    model = PlackettLuce()
    a, b = rated(new_skill(), new_skill(), None)
    [[x], [y]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 1])
    assert (a.mu, a.sigma, b.mu, b.sigma) == pytest.approx((x.mu, x.sigma, y.mu, y.sigma), abs=1e-12)
    assert a.mu == pytest.approx(b.mu) and a.games == b.games == 1
    assert new_skill().shown == shown(model.rating()) == 1500
    low, high = Skill(20.0, 2.0), Skill(30.0, 2.0)
    assert rated(high, low, 1)[0].mu < high.mu and rated(high, low, 1)[1].mu > low.mu, "an upset moves both"
