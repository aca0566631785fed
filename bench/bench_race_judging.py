"""Judging latency of online kyōgi: a read's race closed on the server -> both clients told.

Starts the game server in this process (uvicorn on 127.0.0.1, a free port, a
throw-away SQLite file), plays `--tables` seeded short matches at once with
the fixed presses of the fairness test (bots on the silent clock, reading at
`--speed`), and for every read takes the time from the moment the server began
judging it (the last client said the card finished) to the moment the later of
the two clients received its ``race.judged`` frame. Both ends read the same
monotonic clock (perf_counter), so no offset enters the figure.

    PYTHONPATH=$PWD python bench/bench_race_judging.py --tables 10
    PYTHONPATH=$PWD python bench/bench_race_judging.py --tables 10 --game chirashi

``--game chirashi``: floor races instead (three people and a CPU seat, 24 reads, the
fixed touches of ``tests/test_server_race_floor.py``); "both told" is then all three.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.race_helpers import MATCH, fixed_plan  # noqa: E402
from tests.server_fixtures import running_server  # noqa: E402
from trainer.server.app import ServerConfig  # noqa: E402
from trainer.server.bot import Client  # noqa: E402
from trainer.server.race_bot import FloorBot, RaceBot  # noqa: E402

FLOOR = {"game": "chirashi", "seats": 4, "cpus": [3], "level": "strong", "reads": 24}


async def floor_tables(url: str, n: int, speed: float, told: dict[tuple[str, int], list[float]]) -> int:
    from tests.test_server_race_floor import floor_plan

    def record(_label: str, frame: dict) -> None:
        if frame.get("type") == "race.judged":
            told.setdefault((frame["table"], frame["read"]), []).append(time.perf_counter())

    clients, jobs = [], []
    for t in range(n):
        people = [(await Client.connect(url, f"{t}/{k}", record))[0] for k in range(3)]
        clients += people
        created = await people[0].call("race.create", **{**FLOOR, "seed": str(11 + t), "speed": speed})
        for seat, client in enumerate(people):
            bot = FloorBot(client, created["table"], floor_plan)
            await bot.join(seat)
            jobs.append(bot.play())
    try:
        results = await asyncio.gather(*jobs)
    finally:
        for c in clients:
            await c.close()
    return sum(1 for r in results if r.over and r.over["by"] == "reads") // 3


async def tables(url: str, n: int, speed: float, told: dict[tuple[str, int], list[float]]) -> int:
    def record(_label: str, frame: dict) -> None:
        if frame.get("type") == "race.judged":
            told.setdefault((frame["table"], frame["read"]), []).append(time.perf_counter())

    clients, jobs = [], []
    for t in range(n):
        a, _ = await Client.connect(url, f"{t}a", record)
        b, _ = await Client.connect(url, f"{t}b", record)
        clients += [a, b]
        created = await a.call("race.create", **{**MATCH, "seed": str(11 + t), "speed": speed})
        bots = [RaceBot(a, created["table"], fixed_plan), RaceBot(b, created["table"], fixed_plan)]
        await bots[0].join(0)
        await bots[1].join(1)
        jobs += [bot.play() for bot in bots]
    try:
        results = await asyncio.gather(*jobs)
    finally:
        for c in clients:
            await c.close()
    return sum(1 for r in results if r.over and r.over["by"] == "cards") // 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--game", choices=("kyogi", "chirashi"), default="kyogi")
    args = parser.parse_args()
    play, told_by = (floor_tables, 3) if args.game == "chirashi" else (tables, 2)
    told: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp, \
            running_server(ServerConfig(db=f"sqlite:///{tmp}/bench.sqlite", allow_seeds=True)) as srv:
        t0 = time.perf_counter()
        finished = asyncio.run(play(srv.url, args.tables, args.speed, told))
        wall = time.perf_counter() - t0
        closed = {(t.id, n): at for t in srv.hub.races.tables.values() for n, at in t.closed_at.items()}
    lat = sorted(1000 * (max(told[k]) - closed[k]) for k in closed if len(told.get(k, ())) == told_by)
    q = statistics.quantiles(lat, n=100, method="inclusive")
    print(f"{args.game}: {finished}/{args.tables} matches finished in {wall:.1f} s, {len(lat)} reads judged; "
          f"race closed -> both told: p50 {q[49]:.2f} ms, p99 {q[98]:.2f} ms, max {lat[-1]:.2f} ms "
          f"(loopback, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
