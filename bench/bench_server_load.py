"""Load on the game server: 200 bot clients on 40 tables against a real `karuta serve` process.

    .venv/bin/python bench/bench_server_load.py                       # SQLite, 10 minutes
    .venv/bin/python bench/bench_server_load.py --db postgresql       # a throwaway PostgreSQL cluster
    .venv/bin/python bench/bench_server_load.py --minutes 1 --think 0.2

The server is `python -m trainer.cli serve` on 127.0.0.1 (its own subprocess, a fresh
database: an SQLite file in a temporary folder, or with ``--db postgresql`` a PostgreSQL
cluster this script starts and removes, or ``--db postgresql://…`` one you give).
The 40 table slots mix the turn games so that their seats add up to the bot count
(default: 10 Unsun tables of 8 seats and 30 four-seat tables of Yomi, Yomi 37 and
Ume Botan = 200 seats). Every seat is a bot client with its own WebSocket speaking the
protocol as a person's client would, choosing uniformly among the legal actions the
server lists after a think time (``--think``, mean seconds, uniform 0.5×–1.5×). When a
table finishes, its bots start a new one at once, so the load stays steady.

Printed:
  round trip  p50/p99 of "send act" → "my own seat's next view (or the answer) is back",
              over the whole run and per minute
  server CPU  % of one core, first minute and last minute (from /proc/PID/stat)
  server RSS  before the bots, after the warm-up (``--warmup``) and at the end (VmRSS),
              and the memory check: flat when the end is within ``--flat`` % of the
              warm-up figure
The server runs with ``--keep-finished`` 60 s (a finished table leaves memory 60 s after its
end instead of 600), so a 10-minute run reaches the steady state it measures.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from server_harness import (ServeProcess, cpu_seconds, load_average, postgres_cluster,  # noqa: E402
                            rss_mb)


def slot_games(bots: int, tables: int) -> list[tuple[str, int]]:
    """(game, seats) of each table slot: Unsun's 8-seat tables first, the rest 4-seat (3 if needed)."""
    four = ("yomi", "yomi37", "umebotan")
    # u Unsun tables (8 seats) + r four-seat tables: 8u + 4r = bots, u + r = tables
    unsun = max(0, min(tables, (bots - 4 * tables) // 4))
    slots = [("unsun", 8)] * unsun + [(four[i % 3], 4) for i in range(tables - unsun)]
    extra = bots - sum(n for _, n in slots)
    if extra < 0:                                     # fewer bots: some tables of 3 (yomi, umebotan)
        for i in range(len(slots) - 1, -1, -1):
            if extra == 0:
                break
            if slots[i][0] in ("yomi", "umebotan"):
                slots[i] = (slots[i][0], 3)
                extra += 1
    if extra != 0:
        raise SystemExit(f"{bots} bots do not fit {tables} tables of 3, 4 or 8 seats")
    return slots


@dataclass
class Figures:
    start: float = field(default_factory=time.monotonic)
    rtts: list[tuple[float, float]] = field(default_factory=list)
    """(seconds since start, round trip in seconds) of every action."""
    games: Counter = field(default_factory=Counter)
    connected: int = 0
    """Table slots whose bots are all connected."""
    answers: Counter = field(default_factory=Counter)
    """Error and refusal ids the bots got (a stale view after a think is expected now and then)."""


class Bot:
    """One seat's client: a WebSocket, hello and guest, then plays the tables it is given."""

    def __init__(self, ws: Any, rng: random.Random, figures: Figures, think: float):
        self.ws, self.rng, self.figures, self.think = ws, rng, figures, think
        self.ident = 0

    @classmethod
    async def connect(cls, url: str, seed: int, figures: Figures, think: float) -> "Bot":
        import websockets
        ws = await websockets.connect(url, max_size=2**22, open_timeout=60, ping_interval=None)
        bot = cls(ws, random.Random(seed), figures, think)
        await bot.call("hello", version=1)
        await bot.call("guest")
        return bot

    async def send(self, kind: str, **fields: Any) -> int:
        self.ident += 1
        await self.ws.send(json.dumps({"type": kind, "id": self.ident, **fields}))
        return self.ident

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        ident = await self.send(kind, **fields)
        while True:
            frame = json.loads(await self.ws.recv())
            if frame.get("id") == ident:
                if frame["type"] in ("error", "refusal"):
                    raise SystemExit(f"the server refused {kind}: {frame}")
                return frame

    async def play(self, table: str, stop: asyncio.Event) -> bool:
        """Join `table` and play it to its end; False when `stop` was set first."""
        await self.send("join", table=table)
        sent_at: float | None = None
        sent_seq: int | None = None
        act_id: int | None = None
        while True:
            frame = json.loads(await self.ws.recv())
            kind = frame.get("type")
            if frame.get("table") not in (None, table):
                continue
            if kind in ("error", "refusal"):
                self.figures.answers[frame.get("error") or frame.get("reason")] += 1
                if frame.get("id") == act_id and sent_at is not None:
                    self._took(sent_at)
                    sent_at = None
                continue
            if kind == "over":
                return True
            if kind != "view":
                continue
            if sent_at is not None and frame["seq"] != sent_seq:
                self._took(sent_at)                 # my own seat's view after my action is back
                sent_at = None
            if not frame["legal"] or frame["seq"] == sent_seq or stop.is_set():
                if stop.is_set():
                    return False
                continue
            await asyncio.sleep(self.think * (0.5 + self.rng.random()))
            choice = self.rng.choice(frame["legal"])
            sent_seq = frame["seq"]
            act_id = await self.send("act", table=table, seq=sent_seq, action=choice)
            sent_at = time.monotonic()

    def _took(self, sent_at: float) -> None:
        now = time.monotonic()
        self.figures.rtts.append((now - self.figures.start, now - sent_at))


async def run_slot(url: str, game: str, seats: int, number: int, figures: Figures, think: float,
                   stop: asyncio.Event, ready: asyncio.Event) -> None:
    """One table slot: its bots, forever starting the next table when theirs ends, until `stop`."""
    bots = [await Bot.connect(url, number * 100 + s, figures, think) for s in range(seats)]
    figures.connected += 1
    await ready.wait()
    try:
        while not stop.is_set():
            table = (await bots[0].call("create_table", game=game, seats=seats))["table"]
            done = await asyncio.gather(*(b.play(table, stop) for b in bots))
            if all(done):
                figures.games[game] += 1
    finally:
        for b in bots:
            await b.ws.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def drive(url: str, pid: int, a: argparse.Namespace) -> dict[str, Any]:
    slots = slot_games(a.bots, a.tables)
    figures = Figures()
    stop, ready = asyncio.Event(), asyncio.Event()
    idle_rss = rss_mb(pid)
    jobs = [asyncio.create_task(run_slot(url, g, n, i, figures, a.think, stop, ready))
            for i, (g, n) in enumerate(slots)]
    while figures.connected < len(slots):           # every bot connected: start together
        broken = [j for j in jobs if j.done()]
        if broken:
            await broken[0]                        # a bot that could not connect: its error
        await asyncio.sleep(0.2)
    figures.start = time.monotonic()
    load_start = load_average()
    client_cpu = cpu_seconds(os.getpid())
    ready.set()
    samples: list[tuple[float, float, float]] = []      # (t, cpu s, rss MB)
    end = figures.start + a.minutes * 60
    while time.monotonic() < end:
        samples.append((time.monotonic() - figures.start, cpu_seconds(pid), rss_mb(pid)))
        broken = [j for j in jobs if j.done()]
        if broken:
            await broken[0]
            raise SystemExit("a table slot stopped early")
        await asyncio.sleep(min(5.0, max(0.0, end - time.monotonic())))
    samples.append((time.monotonic() - figures.start, cpu_seconds(pid), rss_mb(pid)))
    load = load_average()
    client_cpu = cpu_seconds(os.getpid()) - client_cpu
    stop.set()
    for j in jobs:
        j.cancel()
    await asyncio.gather(*jobs, return_exceptions=True)
    return {"slots": slots, "figures": figures, "samples": samples, "idle_rss": idle_rss, "load": load,
            "load_start": load_start, "client_cpu": client_cpu}


def cpu_percent(samples: list[tuple[float, float, float]], t0: float, t1: float) -> float:
    inside = [s for s in samples if t0 <= s[0] <= t1]
    if len(inside) < 2:
        return float("nan")
    return 100 * (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])


def rss_at(samples: list[tuple[float, float, float]], t: float) -> float:
    return min(samples, key=lambda s: abs(s[0] - t))[2]


def report(out: dict[str, Any], a: argparse.Namespace, db_label: str) -> bool:
    fig: Figures = out["figures"]
    samples = out["samples"]
    span = samples[-1][0]
    rtts = [r for _, r in fig.rtts]
    ms = [r * 1000 for r in rtts]
    kinds = Counter(g for g, _ in out["slots"])
    print(f"server load: {a.bots} bots on {a.tables} tables ({', '.join(f'{n} {g}' for g, n in kinds.items())}), "
          f"database {db_label}, think {a.think:g} s, {span / 60:.1f} min")
    print(f"  machine          {os.cpu_count()} cores; load average at the start {out['load_start']}, "
          f"at the end {out['load']}")
    print(f"  actions          {len(rtts):,} ({len(rtts) / span:.0f}/s); games finished "
          f"{sum(fig.games.values())} ({', '.join(f'{g} {n}' for g, n in sorted(fig.games.items()))})")
    print(f"  round trip       p50 {pct(ms, 0.5):.1f} ms, p99 {pct(ms, 0.99):.1f} ms, max {max(ms, default=0):.0f} ms")
    minutes = int(span // 60) + (1 if span % 60 > 1 else 0)
    per = []
    for m in range(minutes):
        inside = [r * 1000 for t, r in fig.rtts if m * 60 <= t < (m + 1) * 60]
        per.append(f"{m + 1}: {pct(inside, 0.5):.0f}/{pct(inside, 0.99):.0f}")
    print(f"  per minute       p50/p99 ms  {'  '.join(per)}")
    first = cpu_percent(samples, 0, 60)
    last = cpu_percent(samples, span - 60, span)
    total = 100 * (samples[-1][1] - samples[0][1]) / span
    print(f"  server CPU       first minute {first:.0f} %, last minute {last:.0f} %, whole run {total:.0f} % "
          f"of one core (the bots' own process: {100 * out['client_cpu'] / span:.0f} %)")
    warm = rss_at(samples, a.warmup * 60)
    end = samples[-1][2]
    growth = 100 * (end - warm) / warm
    flat = abs(growth) <= a.flat
    print(f"  server RSS       idle {out['idle_rss']:.1f} MB, after {a.warmup:g} min warm-up {warm:.1f} MB, "
          f"end {end:.1f} MB, peak {max(s[2] for s in samples):.1f} MB")
    print(f"  memory           {'flat' if flat else 'NOT flat'}: end is {growth:+.1f} % of the warm-up figure "
          f"(flat within ±{a.flat:g} %)")
    steps = [f"{s[0] / 60:.0f}:{s[2]:.0f}" for s in samples if abs(s[0] % 60) < 5 or s is samples[-1]]
    print(f"  RSS by minute    {' '.join(steps)}")
    if fig.answers:
        print(f"  error answers    {', '.join(f'{k} {n}' for k, n in fig.answers.most_common())}")
    if a.json:
        print(json.dumps({"db": db_label, "bots": a.bots, "tables": a.tables, "minutes": span / 60,
                          "actions": len(rtts), "p50_ms": pct(ms, 0.5), "p99_ms": pct(ms, 0.99),
                          "cpu_first_pct": first, "cpu_last_pct": last, "rss_idle_mb": out["idle_rss"],
                          "rss_warm_mb": warm, "rss_end_mb": end, "flat": flat,
                          "load": out["load"]}))
    return flat


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0, help="length of the run (default 10)")
    ap.add_argument("--db", default="sqlite",
                    help="sqlite (a fresh file, the default), postgresql (a throwaway cluster) or a URL")
    ap.add_argument("--bots", type=int, default=200)
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--think", type=float, default=0.5, help="mean seconds a bot thinks before acting")
    ap.add_argument("--warmup", type=float, default=2.0, help="minutes before the memory baseline (default 2)")
    ap.add_argument("--flat", type=float, default=10.0, help="%% growth still called flat (default 10)")
    ap.add_argument("--keep-finished", type=float, default=60.0)
    ap.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    a = ap.parse_args()
    a.warmup = min(a.warmup, a.minutes / 2)
    with ExitStack() as stack:
        if a.db == "sqlite":
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="karuta-bench-"))
            url, label = f"sqlite:///{folder}/load.sqlite", "SQLite (file, WAL)"
        elif a.db == "postgresql":
            url, label = stack.enter_context(postgres_cluster()), "PostgreSQL (own cluster)"
        else:
            url, label = a.db, a.db.split("://", 1)[0]
        server = ServeProcess(url, ["--keep-finished", f"{a.keep_finished:g}"])
        try:
            out = asyncio.run(drive(server.url, server.pid, a))
        finally:
            said = server.stop()
        flat = report(out, a, label)
        problems = [line for line in said.splitlines() if "Traceback" in line or "ERROR" in line]
        print(f"  server log       {len(problems)} error lines" + (f": {problems[0][:120]}" if problems else ""))
    return 0 if flat and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
