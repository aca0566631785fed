"""Helpers of the online kyōgi tests: a TCP proxy that delays each player's traffic, a fixed
press plan, and one seeded match played by two bot clients (`trainer.server.race_bot`).

The proxy delays every chunk by its direction's latency plus a uniform jitter. TCP
delivers a connection's bytes in order, so a chunk never overtakes an earlier one of
the same connection (that would corrupt the stream, not reorder messages); what
jitter and the players' different latencies do reorder is the arrival of the two
players' messages relative to each other, which is the reordering that could change
a judgement if the server judged on arrival.
"""
from __future__ import annotations

import asyncio
import random
from typing import Any

from trainer.server.bot import Client
from trainer.server.race_bot import Press, RaceBot, RaceResult


class LatencyProxy:
    """127.0.0.1:`port` -> 127.0.0.1:`target`, `up_ms` toward the server, `down_ms` back,
    each chunk ± `jitter_ms` (uniform, seeded)."""

    def __init__(self, target: int, up_ms: float, down_ms: float, jitter_ms: float = 0.0, seed: int = 0):
        assert up_ms >= jitter_ms and down_ms >= jitter_ms, "a chunk cannot arrive before it is sent"
        self.target, self.up_ms, self.down_ms, self.jitter_ms = target, up_ms, down_ms, jitter_ms
        self.rng = random.Random(seed)
        self.port = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()
        self._writers: list[asyncio.StreamWriter] = []
        self.delays: list[float] = []

    async def __aenter__(self) -> "LatencyProxy":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.close()
        for w in self._writers:
            w.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self._writers += [writer, up_writer]
        for src, dst, ms in ((reader, up_writer, self.up_ms), (up_reader, writer, self.down_ms)):
            task = asyncio.get_running_loop().create_task(self._pump(src, dst, ms))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, ms: float) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if not data:
                    dst.close()
                    return
                dst.write(data)
                await dst.drain()

        deliverer = loop.create_task(deliver())
        last = 0.0
        try:
            while True:
                data = await src.read(65_536)
                delay = (ms + self.rng.uniform(-self.jitter_ms, self.jitter_ms)) / 1000
                self.delays.append(delay)
                last = max(last, loop.time() + delay)    # in order within the connection
                queue.put_nowait((last, data))
                if not data:
                    break
            await deliverer
        except (ConnectionError, asyncio.CancelledError):
            deliverer.cancel()
            raise


def fixed_plan(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[Press]:
    """Fixed presses per card and seat (no randomness, nothing timed by the network): takes at
    reactions that differ by card, some within the same-time window, wrong-territory
    touches before a take (otetsuki), a touch on some karafuda reads, some late takes, some
    anticipated (a negative reaction: the press came before the kimariji sounded)."""
    owner = 0 if poem in sides[0] else 1 if poem in sides[1] else None
    if owner is None:
        mine = sides[seat]
        return [(mine[0], 350.0 + 40 * seat)] if mine and (poem + seat) % 3 == 0 else []
    rt = 180.0 + (poem * 53 + seat * 131) % 420
    if poem % 6 == 0:
        rt = 240.0 + 5 * seat            # within the judge's window: the owner takes it
    if poem % 11 == 0:
        rt = 4_500.0 + 700 * seat        # late: in the shimo-no-ku
    if poem % 8 == 1 and seat == 1:
        rt = -120.0                      # anticipated: before the kimariji has sounded
    presses = [(poem, rt)]
    other = sides[1 - owner]
    if (poem + seat) % 5 == 0 and other:
        presses.append((other[0], rt - 60))
    return presses


MATCH: dict[str, Any] = {"game": "kyogi", "seed": "11", "cards": 5, "karafuda": 5, "speed": 20.0}
"""The seeded match of the tests: 5 cards a side, the 10 floor cards and 5 karafuda read first."""


async def play_match(url_a: str, url_b: str, plan: Any = fixed_plan, *, speed: float = 20.0,
                     stalls: tuple[dict[int, float], dict[int, float]] = ({}, {}),
                     options: dict[str, Any] | None = None, deadline: float = 180.0) -> list[RaceResult]:
    """One seeded match: seat 0's bot through `url_a`, seat 1's through `url_b`."""
    a, _ = await Client.connect(url_a, "a")
    b, _ = await Client.connect(url_b, "b")
    try:
        return await play_between(a, b, plan, speed=speed, stalls=stalls, options=options, deadline=deadline)
    finally:
        await a.close()
        await b.close()


async def play_between(a: Client, b: Client, plan: Any = fixed_plan, *, speed: float = 20.0,
                       stalls: tuple[dict[int, float], dict[int, float]] = ({}, {}),
                       options: dict[str, Any] | None = None, deadline: float = 180.0) -> list[RaceResult]:
    """One seeded match between two signed-in clients (guests or accounts): `a` creates the
    table and sits at seat 0, `b` joins seat 1 with the table's invitation code if it has one."""
    created = await a.call("race.create", **{**MATCH, "speed": speed, **(options or {})})
    bots = [RaceBot(a, created["table"], plan, stalls[0]), RaceBot(b, created["table"], plan, stalls[1])]
    await bots[0].join(0)
    code = {"code": created["code"]} if "code" in created else {}   # a private table's invitation
    await bots[1].send("race.join", table=created["table"], seat=1, **code)
    return list(await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in bots)), deadline))


def judgements(result: RaceResult) -> list[tuple[Any, ...]]:
    """What decides the match, read by read: the poem, the taker, the faults, both times."""
    return [(j["read"], j["poem"], j.get("taker"), tuple(map(tuple, j.get("faults", []))),
             tuple(j.get("reaction_ms", ())), tuple(j["left"])) for j in result.judged]


def final(result: RaceResult) -> tuple[Any, ...] | None:
    """How the match ended: the winner, how (cards or abandonment), the cards left."""
    over = result.over
    return None if over is None else (over["winner"], over["by"], tuple(over["left"]))
