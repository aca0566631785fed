"""Bot players of online kyōgi (`karuta bot --game kyogi`): each reads locally on the silent clock.

A bot speaks the race protocol (``docs/online-races.md``) over one WebSocket,
as a person's client would: it answers the server's clock pings with its own
monotonic clock; for each card released (``race.read``) it "reads" it on the
silent clock from the start moment the server named on *its* clock (the
programme's parts at the table's reading speed, nothing played), presses at
its reaction time after the kimariji as it sounded there, and reports each
press as (read, card, reaction ms, its monotonic stamp, the part of the
reading it fell in, whether the sound stalled); when its ma is over it says the
card is done. It never says who was first: it cannot know.

How a bot presses is a `Plan`: for a read (its number, poem, both sides) the
presses it makes (card, reaction ms from the kimariji). `modelled_plan` draws
reactions from a CPU level's reaction model (seeded); a test gives fixed times.
The first card's frame names the joka read before it (``joka_s``); a press planned
before that card's kami-no-ku is reported in the part ``joka``.
A stall (`stalls`: read number -> seconds of the reading) holds the bot's sound
that long at the start of the kami-no-ku: every later moment of that read moves with it, and
its presses are reported with the stall flag, as the app's player would.
"""
from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from trainer.server.bot import BotError, Client, finished_within, server_urls

Press = tuple[int, float]                  # (card, reaction ms from the kimariji)
Plan = Callable[[int, int, int, list[list[int]]], list[Press]]
"""(seat, read number, poem, sides) -> the presses of that read."""


def modelled_plan(level_name: str, seed: int) -> Plan:
    """Reactions from a CPU level's model (`trainer.players.karuta_cpu`): the read card if it
    lies on the floor, nothing on a karafuda."""
    from trainer.players.karuta_cpu import level
    lv = level(level_name)
    rng = random.Random(f"race-bot:{seed}")

    def plan(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[Press]:
        if not any(poem in side for side in sides):
            return []
        return [(poem, max(60.0, rng.gauss(lv.mu, lv.sigma) + rng.expovariate(1 / lv.tau)))]
    return plan


@dataclass
class RaceResult:
    table: str
    seat: int | None = None
    judged: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    over: dict[str, Any] | None = None
    start: dict[str, Any] | None = None
    presses: int = 0


class RaceBot:
    """One seat's client (see the module docstring)."""

    def __init__(self, client: Client, table: str, plan: Plan, stalls: dict[int, float] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.client = client
        self.table = table
        self.plan = plan
        self.stalls = dict(stalls or {})
        self.clock = clock
        self.result = RaceResult(table)
        self._wanted: int | None = None
        self.sides: list[list[int]] = [[], []]
        self._lock = asyncio.Lock()
        self._reads: set[asyncio.Task] = set()

    async def send(self, kind: str, **fields: Any) -> None:
        async with self._lock:
            await self.client.send(kind, **fields)

    async def join(self, seat: int | None = None) -> None:
        self._wanted = seat
        await self.send("race.join", table=self.table, **({} if seat is None else {"seat": seat}))

    async def play(self, stop_after: Callable[[dict[str, Any]], bool] | None = None) -> RaceResult:
        """Answer the server until the match is over (or `stop_after(frame)` says stop)."""
        try:
            while True:
                frame = await self.client.recv()
                if frame.get("error") == "race_elsewhere" and isinstance(frame.get("url"), str):
                    # another process of the lobby holds the table: join it there
                    async with self._lock:
                        await self.client.move(frame["url"])
                    await self.join(self._wanted)
                    continue
                self.on_frame(frame)
                if frame.get("error") == "race_lost":
                    self.result.over = frame      # the process holding the table stopped: no result
                if self.result.over is not None or (stop_after is not None and stop_after(frame)):
                    return self.result
        finally:
            for task in self._reads:
                task.cancel()

    def on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "race.ping":         # at once: the answer's delay is the estimate's error
            self._spawn(self.send("race.pong", n=frame["n"], t=self.clock()))
        elif kind in ("race.joined", "race.resumed"):
            self.result.seat = frame["seat"]
        elif kind == "race.start":
            self.result.start = frame
            self.result.seat = frame["seat"]
            self.sides = frame.get("sides", self.sides)
        elif kind == "race.read":
            self._spawn(self._read(frame))
        elif kind == "race.judged":
            self.result.judged.append(frame)
            self.sides = frame.get("sides", self.sides)
        elif kind == "race.sides":
            self.sides = frame["sides"]
        elif kind == "race.okuri" and frame["seat"] == self.result.seat:
            self._spawn(self.send("race.send", table=self.table, card=frame["side"][0]))
        elif kind == "race.over":
            self.result.over = frame
        elif kind in ("refusal", "error"):
            self.result.refusals.append(frame)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def _read(self, frame: dict[str, Any]) -> None:
        """One card on the silent clock: the presses at their moments, then done after the ma."""
        speed, number = frame["speed"], frame["read"]
        stall = self.stalls.get(number, 0.0)
        start = frame["start_at"] + stall / speed  # the sound held `stall` s of the reading as the card began
        presses = sorted(self.plan(self.result.seat or 0, number, frame["poem"], self.sides), key=lambda p: p[1])
        for card, reaction in presses:
            at = frame["kimariji_s"] + reaction / 1000        # programme seconds from the kami-no-ku
            if at >= frame["card_s"] + frame["ma_s"]:
                continue                                      # after the next card began: not this race
            part = "kami" if at < frame["kami_s"] else "shimo" if at < frame["card_s"] else "ma"
            if at < 0 and frame.get("joka_s"):
                part = "joka"                                 # read 1: before its kami-no-ku, in the joka
            pressed = start + at / speed
            await self._until(pressed)
            self.result.presses += 1
            # stamped when the press happened, as the app stamps a real press (not when it is sent)
            await self.send("race.touch", table=self.table, read=number, card=card, reaction_ms=reaction,
                            stamp=pressed, part=part, stall=stall > 0)
        await self._until(start + (frame["card_s"] + frame["ma_s"]) / speed)
        await self.send("race.done", table=self.table, read=number)

    async def _until(self, t: float) -> None:
        await asyncio.sleep(max(0.0, t - self.clock()))


class MubeyamaBot(RaceBot):
    """A Mubeyama seat: flips its own card (its view names it) at its reaction time after the
    kimariji, reported as that reaction; gives the first face-up card a yaku asks for."""

    def __init__(self, client: Client, table: str, reaction: Callable[[int, int], float],
                 stalls: dict[int, float] | None = None, clock: Callable[[], float] = time.monotonic):
        super().__init__(client, table, lambda *_: [], stalls, clock)
        self.reaction = reaction
        self.view: dict[str, Any] = {}
        self.pending = ""
        self._passed: set[str] = set()

    def on_frame(self, frame: dict[str, Any]) -> None:
        if frame.get("type") == "race.view":
            self.view, self.pending = frame["view"], frame["pending"]
            p = self.view["pending"]
            key = json.dumps([len(self.view["log"]), p], sort_keys=True)
            if self.pending == "AwaitPass" and p.get("giver") == self.result.seat and key not in self._passed:
                self._passed.add(key)
                mine = [slot["no"] for row in self.view["tables"][self.result.seat]["rows"] for slot in row
                        if slot["face_up"] and slot["no"] is not None]
                if mine:
                    self._spawn(self.send("race.pass", table=self.table, card=mine[0]))
            return
        super().on_frame(frame)

    async def _read(self, frame: dict[str, Any]) -> None:
        speed, number, poem = frame["speed"], frame["read"], frame["poem"]
        stall = self.stalls.get(number, 0.0)
        start = frame["start_at"] + stall / speed
        p = self.view.get("pending", {})
        if self.pending == "AwaitFlip" and p.get("seat") == self.result.seat and p.get("no") == poem:
            face_up = {slot["no"] for row in self.view["tables"][self.result.seat]["rows"] for slot in row
                       if slot["face_up"]}
            reaction = self.reaction(self.result.seat or 0, poem)
            at = frame["kimariji_s"] + reaction / 1000
            part = "kami" if at < frame["kami_s"] else "shimo" if at < frame["card_s"] else "ma"
            pressed = start + at / speed
            await self._until(pressed)
            self.result.presses += 1
            await self.send("race.flip", table=self.table, read=number, card=poem if poem in face_up else None,
                            reaction_ms=reaction, stamp=pressed, part=part, stall=stall > 0)
        await self._until(start + (frame["card_s"] + frame["ma_s"]) / speed)
        await self.send("race.done", table=self.table, read=number)


class FloorBot(RaceBot):
    """A floor-race seat (chirashi, sakasama, Genpei, relay, shimonoku): reads each card on the
    silent clock and touches as its `plan` says, with the floor of its last view as the
    sides (``[every card on the floor]``); sends the first card of its side a Genpei send asks."""

    def __init__(self, client: Client, table: str, plan: Plan, stalls: dict[int, float] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__(client, table, plan, stalls, clock)
        self.view: dict[str, Any] = {}
        self.views = 0

    def on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "race.view":
            self.view = frame["view"]
            self.views += 1
            reach = (self.result.start or {}).get("reach")     # shimonoku: own and the facing seat's cards
            races = self.result.seat in self.view.get("eligible", [])   # not sitting out, on turn in relay
            self.sides = [[card for card, spot in self.view["floor"]
                           if races and (reach is None or spot["side"] in reach)]]
        elif kind == "race.owe" and frame["seat"] == self.result.seat:
            owing = self.view.get("owing") or [None, None]
            mine = [card for card, spot in self.view.get("floor", []) if spot.get("side") == owing[1]]
            if mine:
                self._spawn(self.send("race.send", table=self.table, card=mine[0]))
        elif kind == "race.judged":
            self.result.judged.append(frame)
        else:
            super().on_frame(frame)


def fixed_flip(seat: int, poem: int) -> float:
    """A Mubeyama bot's fixed reaction to its own card (ms after the kimariji)."""
    return 250.0 + (poem * 37 + seat * 53) % 500


async def run_race_bots(url: str, tables: int = 1, *, level: str = "club", seed: int = 0, cards: int | None = 25,
                        karafuda: int | None = None, speed: float | None = None, deadline: float = 3600.0,
                        game: str = "kyogi", variant: str | None = None,
                        plan: Plan | None = None, record: Callable[[str, dict[str, Any]], None] | None = None,
                        options: dict[str, Any] | None = None) -> list[RaceResult]:
    """Create `tables` race tables of `game`, sit a bot in every seat of each (but the CPU seats
    `options` may name), play all to the end. `url` may list several processes of one lobby."""
    urls = server_urls(url)

    async def work() -> list[RaceResult]:
        clients: list[Client] = []
        jobs = []
        try:
            for t_no in range(tables):
                first, _ = await Client.connect(url, f"t{t_no}/0", record)
                clients.append(first)
                extra = {k: v for k, v in {"karafuda": karafuda, "speed": speed, "variant": variant,
                                           "cards": cards if game == "kyogi" else None,
                                           **(options or {})}.items() if v is not None}
                created = await first.call("race.create", game=game, **extra)
                seats = 2 if game == "kyogi" else _players(variant) if game == "mubeyama" else _seats(game, extra)
                cpus = set(extra.get("cpus") or ())       # played by the table's own CPUs
                for i, s in enumerate(s for s in range(seats) if s not in cpus):
                    client = first
                    if i:     # several addresses of one lobby: the seats spread over them (each
                        # seat on another process than the table's is sent to it: race_elsewhere)
                        client, _ = await Client.connect(urls[i % len(urls)], f"t{t_no}/{s}", record)
                        clients.append(client)
                    bot: RaceBot
                    if game == "kyogi":
                        bot = RaceBot(client, created["table"],
                                      plan or modelled_plan(level, seed * 1000 + t_no * 8 + s))
                    elif game != "mubeyama":
                        bot = FloorBot(client, created["table"],
                                       plan or modelled_plan(level, seed * 1000 + t_no * 16 + s))
                    else:
                        bot = MubeyamaBot(client, created["table"], fixed_flip)
                    await bot.join(s)
                    jobs.append(bot.play())
            return list(await asyncio.gather(*jobs))
        finally:
            for client in clients:
                await client.close()

    return await finished_within(work(), deadline, url)


def _seats(game: str, options: dict[str, Any]) -> int:
    from trainer.games.registry import find
    return int(options.get("seats") or find(game).seats)


def _players(variant: str | None) -> int:
    from trainer.rules.mubeyama import VARIANTS
    if variant not in VARIANTS:
        raise BotError(f"a Mubeyama table needs --variant: {', '.join(VARIANTS)}")
    return VARIANTS[variant].players


def run(url: str, tables: int, level: str, deadline: float, game: str = "kyogi", **kw: Any) -> tuple[int, str]:
    """`karuta bot --game kyogi|mubeyama|chirashi|…`: (exit status, the line to print)."""
    from trainer.players.karuta_cpu import LEVELS
    if game not in ("mubeyama",) and level not in LEVELS:
        return 1, f"a kyogi bot's level is one of {', '.join(LEVELS)}, not {level!r}"
    began = time.monotonic()
    try:
        results = asyncio.run(run_race_bots(url, tables, level=level, deadline=deadline, game=game, **kw))
    except BotError as exc:
        return 1, str(exc)
    except Exception as exc:  # noqa: BLE001 - the connection dropped mid-match and the like: one line
        return 1, f"the bots stopped: {type(exc).__name__}: {str(exc)[:120]}"
    unfinished = sorted({r.table for r in results if r.over is None or r.over.get("by") in
                         ("abandonment", "resignation", "no_clock")})
    if unfinished:
        return 1, f"{len(unfinished)} of {tables} {game} tables did not finish ({', '.join(unfinished)})"
    reads = sum(len(r.judged) for r in results) // max(1, len(results) // tables)
    presses = sum(r.presses for r in results)
    return 0, (f"{tables} {game} tables finished, {reads} cards read, {presses} presses by {len(results)} bots "
               f"in {time.monotonic() - began:.1f} s")
