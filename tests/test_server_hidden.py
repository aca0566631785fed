"""Hidden information on the server: no frame ever shows a seat a card it may not see.

Every frame the server queues for any socket passes through a hook that runs
on the server's loop at that moment, with the tables' true state at hand:

- a frame may not contain a card another seat holds face-down (Unsun:
  `UnsunState.secrets_of`; Yomi and Ume Botan: the other hands), nor a card
  nobody may see (Unsun's set-aside cards, Yomi's undealt card while its round
  runs, Ume Botan's draw pile and the face-down card reserved on the
  Lightning), nor a table's seed (which would give away every deal);
- a log entry is checked against the state when the engine reports it (as
  each seat and the spectators will read it), since the cards are dealt anew
  every deal; a frame that carries log entries (live, or a late joiner's
  history) must carry exactly its own audience's log.

Recorded sockets: every seat (bots over the protocol), a spectator joining
mid-game, a seat that drops and reconnects with its token, the first frames
after joining, and the lobby list of a watcher subscribed to it.
"""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.server_fixtures import running_server, walk_strings
from trainer.server import codec
from trainer.server.adapter import SPECTATOR
from trainer.server.app import Conn, ServerConfig
from trainer.server.bot import Client, SeatResult, play_seat
from trainer.server.tables import LiveTable


def _cards(cards: Any, hana: bool) -> set[str]:
    return {codec.encode_card(c, hana) for c in cards}


def secrets(table: LiveTable) -> tuple[dict[int, set[str]], set[str]]:
    """Per seat the cards only it may see now, and the cards nobody may see now."""
    if table.driver is None:
        return {}, {table.seed}
    state = table.driver.session.state
    if table.game == "unsun":
        per_seat = {s: _cards(state.secrets_of(s), False) for s in range(state.players)}
        hidden = _cards(state.set_aside, False)
    elif table.game == "bozu":
        # the hands and the pot lie face up; the stacks' order (every card still in them) is nobody's
        per_seat = {}
        hidden = _cards([c for stack in state.stacks for c in stack], False)
    elif table.game in ("yomi", "yomi37"):
        per_seat = {s: _cards(state.hands[s], False) for s in range(state.players)}
        live = state.undealt is not None and state.phase in ("lead", "follow")
        hidden = _cards([state.undealt], False) if live else set()
    else:
        per_seat = {s: _cards(state.hands[s], True) for s in range(state.players)}
        hidden = _cards(state.draw_pile, True)
        if state.reserved is not None:
            hidden |= _cards([state.reserved[1]], True)
    return per_seat, hidden | {table.seed}


RESHUFFLED = ("umebotan.seats", "umebotan.redraw")
"""Ume Botan's seating draw: cards drawn face up, then shuffled back before the deal of the
same action (checking them against the hands dealt after would be a false alarm)."""


class Watch:
    """The hook: checks every frame and vets every audience's log (see the module docstring)."""

    def __init__(self) -> None:
        self.hub: Any = None
        self.checked = 0
        self.violations: list[str] = []
        self.frames: dict[str, int] = {}

    def forbidden(self, table: LiveTable, seat: int | None) -> set[str]:
        per_seat, hidden = secrets(table)
        out = set(hidden)
        for s, cards in per_seat.items():
            if s != seat:
                out |= cards
        return out

    def install(self, table: LiveTable) -> None:
        """Check each event as every audience will read it, the moment the engine reports it."""
        state = table.driver.session.state
        apply, redact = state.apply, getattr(state, "redact", lambda e, _s: e)

        def checked_apply(action: Any) -> Any:
            events = apply(action)
            for audience in [*range(len(table.seats)), None]:
                for event in events:
                    if event.kind in RESHUFFLED:
                        continue
                    seen = redact(event, SPECTATOR if audience is None else audience)
                    if seen is not None:
                        self._check(codec.to_json(seen), self.forbidden(table, audience),
                                    f"{event.kind} of {table.id} for {audience}")
            self.checked += len(events)
            return events
        state.apply = checked_apply

    def __call__(self, conn: Conn, frame: dict[str, Any]) -> None:
        kind = frame.get("type", "?")
        self.frames[kind] = self.frames.get(kind, 0) + 1
        if kind == "full_log":
            # every seat's entries, for the players once the game is over (issue 21, Play)
            done = self.hub.tables.get(frame.get("table"))
            if done is None or done.status != "over" or conn.tables.get(done.id) is None:
                self.violations.append(f"a full log sent before the end or to a spectator: {frame.get('table')}")
            return
        table = self.hub.tables.get(frame.get("table")) if kind in ("view", "events", "table", "over") else None
        if table is None:
            # lobby, welcome, errors ...: nobody's secret, no seed
            forbidden: set[str] = set()
            for t in self.hub.tables.values():
                forbidden |= self.forbidden(t, None) | set().union(*secrets(t)[0].values())
            self._check(frame, forbidden, f"{kind} frame")
            return
        seat = conn.tables.get(table.id)
        if kind == "events":
            start = frame["from"]
            # only the entries this frame carries are encoded: the whole log at every frame
            # made the check quadratic in the game's length (most of the slow test's time)
            log_now = [codec.to_json(e) for e in table.log_for(seat)[start:start + len(frame["events"])]]
            for i, event in enumerate(frame["events"]):
                if i >= len(log_now) or event != log_now[i]:
                    self.violations.append(f"{table.id}: entry {start + i} sent to {seat} is not its log's")
            return
        self._check(frame, self.forbidden(table, seat), f"{kind} frame of {table.id} for {seat}")

    def _check(self, value: Any, forbidden: set[str], where: str) -> None:
        if isinstance(value, dict) and isinstance(value.get("view"), dict):
            # Yomi's wild card is named by the rules (which card is wild), not where it lies
            value = {**value, "view": {k: v for k, v in value["view"].items() if k != "wild_card"}}
        leaked = {s for s in walk_strings(value) if s in forbidden}
        if leaked:
            self.violations.append(f"{where} shows {sorted(leaked)[:3]}")


def _watch_builds(monkeypatch: Any, watch: Watch) -> None:
    build = LiveTable._build

    def watched(table: LiveTable) -> None:
        build(table)
        watch.install(table)
    monkeypatch.setattr(LiveTable, "_build", watched)


CASES = [
    ("unsun", "standard", 8, {"deals": 2}),
    ("yomi", "wild", 4, {"rounds": 3}),
    ("yomi", "standard", 3, {"rounds": 2}),
    ("yomi37", "standard", 4, {"rounds": 2}),
    ("umebotan", "standard", 3, {"rounds": 2}),
    ("umebotan", "standard", 4, {"rounds": 2}),
    ("bozu", "standard", 5, {}),
]


async def _play_table(url: str, game: str, variant: str, seats: int, options: dict[str, Any],
                      seed: int, record: Any) -> list[SeatResult]:
    host, _ = await Client.connect(url, "host", record)
    await host.call("lobby")       # a lobby watcher all game long
    created = await host.call("create_table", game=game, variant=variant, seats=seats,
                              seed=f"hidden-{seed}", turn_seconds=None, **options)
    table = created["table"]
    clients, tokens = [], []
    for s in range(seats):
        client, token = await Client.connect(url, f"seat{s}", record)
        clients.append(client)
        tokens.append(token)
    spectator, _ = await Client.connect(url, "spectator", record)

    async def dropping_seat() -> SeatResult:
        # plays a few turns, drops the connection, comes back with its token to its seat
        first = await play_seat(clients[1], table, "random", seed + 1, SeatResult(table, None), max_actions=3)
        if first.finished:
            return first
        await clients[1].close()
        again, _ = await Client.connect(url, "reconnected", record, token=tokens[1])
        clients[1] = again
        return await play_seat(again, table, "random", seed + 101, SeatResult(table, None))

    async def late_spectator() -> None:
        await asyncio.sleep(0.05)
        await spectator.send("spectate", table=table)
        while True:
            frame = await spectator.recv()
            if frame.get("type") == "over":
                return

    async def lobby_watcher() -> None:
        # reads its lobby frames as a client does (the hook has checked each one already); a
        # client that leaves them unread makes its own close wait out websockets' 10 s close
        # timeout, which was most of this test's time
        while True:
            await host.recv()

    jobs = [play_seat(c, table, "random", seed + s, SeatResult(table, None))
            for s, c in enumerate(clients) if s != 1]
    watching = asyncio.create_task(lobby_watcher())
    try:
        results = await asyncio.wait_for(asyncio.gather(dropping_seat(), *jobs, late_spectator()), 120)
    finally:
        watching.cancel()
        for c in [host, spectator, *clients]:
            await c.close()
    return [r for r in results if r is not None]


@pytest.mark.parametrize("game,variant,seats,options", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_no_frame_shows_a_hidden_card(game, variant, seats, options, monkeypatch):
    watch = Watch()
    _watch_builds(monkeypatch, watch)
    with running_server(ServerConfig(allow_seeds=True, frame_hook=watch)) as server:
        watch.hub = server.hub
        received: list[tuple[str, dict[str, Any]]] = []
        results = asyncio.run(_play_table(server.url, game, variant, seats, options, 7,
                                          lambda label, f: received.append((label, f))))
    assert all(r.finished for r in results), "every seat saw the game end"
    assert not watch.violations, watch.violations[:5]
    labels = {label for label, _ in received}
    assert {"spectator", "reconnected", "host"} <= labels
    # the hook saw the kinds of frame this test is about, in numbers
    assert watch.checked > 50
    assert watch.frames.get("view", 0) > 20 and watch.frames.get("events", 0) > 20
    assert watch.frames.get("lobby", 0) >= 2 and watch.frames.get("table", 0) >= seats
    spectator_views = [f for label, f in received if label == "spectator" and f["type"] == "view"]
    assert spectator_views and all(f["view"].get("hand", []) == [] for f in spectator_views)


def test_the_hook_catches_a_leak(monkeypatch):
    """The checker is not blind: the true other hands, sent as a frame, are caught."""
    watch = Watch()
    _watch_builds(monkeypatch, watch)
    with running_server(ServerConfig(allow_seeds=True, frame_hook=watch)) as server:
        watch.hub = server.hub
        asyncio.run(_play_table(server.url, "yomi", "standard", 3, {"rounds": 1}, 3, None))
        table = next(iter(server.hub.tables.values()))
        assert not watch.violations
        # a view of seat 0 sent to a connection sitting at seat 1: a leak the hook must see
        table.driver.session.state.hands[0] = list(table.driver.session.state.deck[:3])
        table.driver.session.state.phase = "lead"

        class Fake:
            tables = {table.id: 1}
        watch(Fake(), {"type": "view", "table": table.id,
                       "view": codec.to_json(table.driver.session.view(0))})
        assert watch.violations


SLOW_CASES = [("unsun", "standard", (8,), {"deals": 2}), ("yomi", "wild", (3, 4), {"rounds": 2}),
              ("yomi37", "standard", (4,), {"rounds": 2}), ("umebotan", "standard", (3, 4), {"rounds": 2}),
              ("bozu", "standard", (2, 5, 8), {})]


@pytest.mark.slow
@pytest.mark.parametrize("game,variant,seat_counts,options", SLOW_CASES, ids=[c[0] for c in SLOW_CASES])
def test_many_seeded_games_show_no_hidden_card(game, variant, seat_counts, options, monkeypatch):
    """The issue's version: 200 seeded games of each online game (KARUTA_SERVER_GAMES to change
    it), ten tables at a time on one server, each with its spectator and its reconnecting seat."""
    import os
    games = int(os.environ.get("KARUTA_SERVER_GAMES", "200"))
    watch = Watch()
    _watch_builds(monkeypatch, watch)
    with running_server(ServerConfig(allow_seeds=True, frame_hook=watch)) as server:
        watch.hub = server.hub

        async def batch(seeds: range) -> list[list[SeatResult]]:
            return list(await asyncio.gather(*(
                _play_table(server.url, game, variant, seat_counts[s % len(seat_counts)], options, s, None)
                for s in seeds)))

        finished = 0
        for start in range(0, games, 10):
            for results in asyncio.run(batch(range(start, min(games, start + 10)))):
                assert all(r.finished for r in results)
                finished += 1
            assert not watch.violations, watch.violations[:5]
    assert finished == games and watch.checked > games * 20
