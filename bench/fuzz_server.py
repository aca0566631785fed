"""Random frames against a running game server, for a few minutes: it must answer, stay up, say
nothing internal, and leave the other tables alone.

    .venv/bin/python bench/fuzz_server.py                 # 3 minutes, seed 0
    .venv/bin/python bench/fuzz_server.py --minutes 10 --seed 7

The server is the real application under uvicorn on 127.0.0.1 (a free port), in this process's
second thread, so that the fuzzer can look at the lobby's state between frames; its database is
an SQLite file in a temporary folder. The per-connection rate limit is raised so that every
frame is parsed (the limit itself is tested in tests/test_server_bad_input.py).

Set-up: the fuzzer's connection has seat 0 of its own Yomi table T (CPUs in seats 1 and 2; a new
one when it ends) and seat 0 of table B, where a second person ("the victim", another
connection) is to act and never does. Four honest bots meanwhile play Yomi tables one after
another on their own connections (the control tables).

Each frame is one of: a random JSON value; a valid message mutated (a field dropped, a field's
value replaced by a random one, an extra field, the action's payload altered, another table's
id, seq moved); random bytes (binary or as text); a huge message (past the 16 KiB message limit
or the 64 KiB frame limit); deep nesting; a replay of an act the server accepted; an action at B,
where it is the victim's turn, or one naming another seat. After each frame the fuzzer sends a
probe (``lobby`` with an id) and reads up to its answer. Checked after each:
  - something answered the frame before the probe (an error or a refusal, or the frames of a
    message that was valid after all), unless the server closed the connection (the 64 KiB
    frame limit, said with close code 1009): then the fuzzer reconnects with its token;
  - the probe is answered within 10 s, and the server thread is alive;
  - no frame holds a traceback, a file path, an exception's class name or the ``internal`` error
    (the server's catch-all for a bug), and the server logged no error;
  - table B is unchanged (status, seq, session version, seats) and the victim received nothing
    from it; the control bots go on finishing tables.
Printed: frames by kind, answers by error id, accepted frames, closes, and every failure (exit 1).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import string
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server_load import Figures, run_slot  # noqa: E402
from server_harness import free_port  # noqa: E402

LEAKS = ("Traceback", 'File "', ".py", "/work", "/usr/", "site-packages", "Error(", "KeyError", "TypeError",
         "ValueError", "AttributeError", "IndexError", "AssertionError", "sqlalchemy", "psycopg",
         "sqlite3", "Exception")
MESSAGE_TYPES = ("hello", "sign_up", "log_in", "guest", "lobby", "create_table", "join", "spectate", "sit",
                 "leave", "start", "act")


class Failures(logging.Handler):
    """The server's own error log lines (an exception caught by its catch-all is a defect)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()[:200]}"
                          + (f" ({record.exc_info[1]!r})"[:200] if record.exc_info else ""))


def start_server(db: str) -> tuple[Any, Any, str, threading.Thread]:
    import uvicorn

    from trainer.server.app import Hub, ServerConfig, create_app
    hub = Hub(ServerConfig(db=db, rate=10_000, burst=10_000, turn_seconds=3600, keep_finished=30))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(hub=hub), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on", ws_max_size=65_536))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return hub, server, f"ws://127.0.0.1:{port}/ws", thread


# -- random values ----------------------------------------------------------------------------------

def random_scalar(rng: random.Random) -> Any:
    pick = rng.randrange(10)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 1, 2**31, -2**63, 2**64, 10**400 if rng.random() < 0.1 else 7])
    if pick == 3:
        return rng.choice([0.5, -0.0, 1e308, 1e-308, 3.14])
    if pick == 4:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(0, 30)))
    if pick == 5:       # now and then a lone surrogate (json.dumps writes it as a \udXXX escape)
        return "".join(chr(rng.choice([rng.randrange(0x20, 0x3000), rng.randrange(0xd800, 0xe000)]))
                       for _ in range(rng.randrange(1, 20)))
    if pick == 6:
        return rng.choice(MESSAGE_TYPES)
    if pick == 7:
        return rng.choice(["U:pao-9", "M:clubs-1", "H:113", "M:oni-0", "H:999", "U:x-0", "M:clubs-99"])
    if pick == 8:
        return "x" * rng.choice([199, 200, 201, 5000])
    return rng.randrange(-5, 50)


def random_value(rng: random.Random, depth: int = 0) -> Any:
    if depth > 4 or rng.random() < 0.4:
        return random_scalar(rng)
    if rng.random() < 0.5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    keys = ["type", "id", "table", "seq", "action", "seat", "card", "game", "name", "password", "token",
            "code", "version", "seats", "cpus", "level", "private", "turn_seconds", "seed", "deals", "rounds"]
    return {rng.choice(keys) if rng.random() < 0.8 else str(random_scalar(rng)): random_value(rng, depth + 1)
            for _ in range(rng.randrange(0, 6))}


def deep(rng: random.Random) -> str:
    n = rng.choice([7, 8, 20, 100, 1000, 100_000])
    if rng.random() < 0.5:
        return "[" * n + "]" * n
    body = '{"a":' * n + "1" + "}" * n
    return '{"type":"act","table":"x","seq":0,"action":' + body + "}"


class Fuzzer:
    def __init__(self, url: str, hub: Any, rng: random.Random):
        self.url, self.hub, self.rng = url, hub, rng
        self.kinds: Counter = Counter()
        self.answers: Counter = Counter()
        self.closes: Counter = Counter()
        self.failures: list[str] = []
        self.accepted_acts: list[str] = []
        self.ws: Any = None
        self.token = ""
        self.n = 0
        self.table = ""
        self.view: dict[str, Any] = {}
        self.other_b_frames = 0
        self.waits: list[float] = []
        """Seconds from sending each frame to the probe's answer (the server's loop never stalls)."""

    # -- connections ------------------------------------------------------------------------------
    async def open(self, token: str | None = None) -> Any:
        import websockets
        ws = await websockets.connect(self.url, max_size=2**22, ping_interval=None)
        await ws.send(json.dumps({"type": "hello", "version": 1}))
        await ws.recv()
        await ws.send(json.dumps({"type": "log_in", "token": token} if token else {"type": "guest"}))
        signed = json.loads(await ws.recv())
        return ws, signed["token"]

    async def call(self, ws: Any, **msg: Any) -> dict[str, Any]:
        self.n += 1
        await ws.send(json.dumps({**msg, "id": f"c{self.n}"}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame.get("id") == f"c{self.n}":
                return frame

    async def set_up(self) -> None:
        self.ws, self.token = await self.open()
        self.victim, _ = await self.open()
        b = (await self.call(self.ws, type="create_table", game="yomi", seats=3, cpus=[2]))["table"]
        await self.call(self.ws, type="join", table=b, seat=0)
        await self.call(self.victim, type="join", table=b, seat=1)
        # play B until it waits for the victim (the fuzzer's turns taken with the first legal action)
        for _ in range(200):
            view = self.hub.tables[b]
            if view.driver is not None and view.driver.legal(1):
                break
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if frame.get("type") == "view" and frame["table"] == b and frame["legal"]:
                await self.ws.send(json.dumps({"type": "act", "table": b, "seq": frame["seq"],
                                               "action": frame["legal"][0]}))
        assert self.hub.tables[b].driver.legal(1), "table B does not wait for the victim"
        self.b = b
        await self.new_table()
        self.b_state = self.b_snapshot()
        while True:                       # the victim's pending frames from the set-up
            try:
                await asyncio.wait_for(self.victim.recv(), 0.5)
            except asyncio.TimeoutError:
                break

    async def new_table(self) -> None:
        self.table = (await self.call(self.ws, type="create_table", game="yomi", seats=3, cpus=[1, 2]))["table"]
        await self.ws.send(json.dumps({"type": "join", "table": self.table, "id": "j"}))
        await self.read_until(lambda f: f.get("type") == "view" and f["table"] == self.table)

    def b_snapshot(self) -> tuple[Any, ...]:
        t = self.hub.tables[self.b]
        return (t.status, t.seq, t.driver.version(), json.dumps(t.seats))

    async def read_until(self, pred: Any, seconds: float = 10.0) -> list[dict[str, Any]]:
        frames = []
        end = time.monotonic() + seconds
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), max(0.01, end - time.monotonic())))
            frames.append(frame)
            if frame.get("type") == "view" and frame.get("table") == self.table:
                self.view = frame
            if pred(frame):
                return frames

    # -- frames -------------------------------------------------------------------------------------
    def valid_messages(self) -> list[dict[str, Any]]:
        v = self.view
        act = {"type": "act", "table": self.table, "seq": v.get("seq", 0),
               "action": (v.get("legal") or [{"action": "pass"}])[0]}
        return [act, act, act,
                {"type": "act", "table": self.b, "seq": self.hub.tables[self.b].driver.version(),
                 "action": {"action": "pass"}},
                {"type": "lobby"}, {"type": "hello", "version": 1},
                {"type": "create_table", "game": "yomi", "seats": 3, "cpus": [1, 2]},
                {"type": "join", "table": self.b, "seat": 1}, {"type": "sit", "table": self.b, "seat": 1},
                {"type": "spectate", "table": self.b}, {"type": "start", "table": self.b},
                {"type": "log_in", "name": "nobody", "password": "wrong password"},
                {"type": "sign_up", "name": "fuzz", "password": "long enough"}]

    def mutate(self, msg: dict[str, Any]) -> tuple[str, Any]:
        rng = self.rng
        msg = json.loads(json.dumps(msg))
        how = rng.randrange(7)
        keys = [k for k in msg if k != "type"]
        if how == 0 and keys:
            msg.pop(rng.choice(keys))
        elif how == 1 and keys:
            msg[rng.choice(keys)] = random_value(rng)
        elif how == 2:
            msg[rng.choice(["seat", "x", "id", "action", "table"])] = random_value(rng)
        elif how == 3 and isinstance(msg.get("action"), dict):
            action = msg["action"]
            field = rng.choice(list(action) + ["seat", "card", "cards", "action"])
            action[field] = random_value(rng) if rng.random() < 0.7 else 1
        elif how == 4 and "table" in msg:
            msg["table"] = rng.choice([self.b, self.table, "nope", "", "0" * 8])
        elif how == 5 and "seq" in msg:
            msg["seq"] += rng.choice([-2, -1, 1, 100])
        else:
            msg["type"] = rng.choice(MESSAGE_TYPES)
        return "mutated", msg

    def frame(self) -> tuple[str, Any]:
        """(kind, a JSON-able value, raw text, or bytes)."""
        rng = self.rng
        pick = rng.random()
        if pick < 0.2:
            return "random json", random_value(rng)
        if pick < 0.5:
            return self.mutate(rng.choice(self.valid_messages()))
        if pick < 0.55:                  # the fuzzer's own table moves on: acts to replay later
            return "valid act", self.valid_messages()[0]
        if pick < 0.62:
            return "random bytes", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        if pick < 0.67:
            return "random text", "".join(chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0xd7ff)]))
                                          for _ in range(rng.randrange(1, 200)))
        if pick < 0.72:
            size = rng.choice([17_000, 60_000, 70_000, 200_000])
            return "huge", json.dumps({"type": "lobby", "pad": "a" * size})
        if pick < 0.78:
            return "deep", deep(rng)
        if pick < 0.86 and self.accepted_acts:
            return "replayed act", rng.choice(self.accepted_acts)
        # an action at B, where it is the victim's turn; or naming another seat
        b = self.hub.tables[self.b]
        legal = b.driver.legal(1)
        action = dict(rng.choice(legal_json(b, legal))) if legal else {"action": "pass"}
        if rng.random() < 0.5:
            action["seat"] = 1
        return "other seat", {"type": "act", "table": self.b, "seq": b.driver.version(), "action": action}

    async def one(self) -> None:
        import websockets
        kind, payload = self.frame()
        self.kinds[kind] += 1
        if isinstance(payload, bytes):
            data: Any = payload
        elif isinstance(payload, str) and kind != "random json":     # raw text (a random JSON value may be a string)
            data = payload
        else:
            data = json.dumps(payload)
        self.n += 1
        probe = f"probe-{self.n}"
        try:
            if kind in ("other seat", "valid act", "replayed act"):
                # back at the table first (a mutated leave may have taken the fuzzer away)
                back = self.b if kind == "other seat" else self.table
                await self.ws.send(json.dumps({"type": "join", "table": back, "id": f"back-{self.n}"}))
                got = await self.read_until(lambda f: f.get("id") == f"back-{self.n}")
                if got[-1].get("type") == "table" and got[-1].get("status") == "playing":
                    await self.read_until(lambda f: f.get("type") == "view" and f.get("table") == back)
                if kind == "valid act":
                    payload = data = json.dumps(self.valid_messages()[0])
            sent_at = time.monotonic()
            await self.ws.send(data)
            await self.ws.send(json.dumps({"type": "lobby", "id": probe}))
            frames = await self.read_until(lambda f: f.get("id") == probe)
            self.waits.append(time.monotonic() - sent_at)
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            self.closes[f"{kind}: close {code}"] += 1
            if not (len(data) > 65_536 and code == 1009):     # past the WebSocket frame limit: closed
                self.failures.append(f"{kind}: the server closed the connection ({code}) after {str(data)[:80]!r}")
            self.ws, _ = await self.open(self.token)
            return
        except asyncio.TimeoutError:
            self.failures.append(f"{kind}: no answer within 10 s to {str(data)[:80]!r}")
            return
        answers = frames[:-1]
        if not answers:
            self.failures.append(f"{kind}: no answer to {str(data)[:120]!r}")
        for f in frames:
            text = json.dumps(f, ensure_ascii=False)
            leak = next((w for w in LEAKS if w in text), None)
            if leak or f.get("error") == "internal":
                self.failures.append(f"{kind}: {leak or 'internal'} in {text[:160]} after {str(data)[:80]!r}")
            if f.get("type") in ("error", "refusal"):
                self.answers[f.get("error") or f.get("reason")] += 1
                if len(text) > 600:
                    self.failures.append(f"{kind}: a {len(text)}-character error frame")
        sent = payload if isinstance(payload, dict) else _json_or_none(payload)
        if any(f.get("type") == "view" and f.get("table") == self.table for f in answers) and \
                isinstance(sent, dict) and sent.get("type") == "act":
            self.answers["(accepted act)"] += 1
            if kind == "replayed act":
                self.failures.append(f"a replayed act was accepted: {str(data)[:120]}")
            self.accepted_acts.append(data)
        elif not any(f.get("type") in ("error", "refusal") for f in answers):
            self.answers["(valid, answered)"] += 1
        if self.b_snapshot() != self.b_state:
            self.failures.append(f"{kind}: table B changed after {str(data)[:120]!r}")
            self.b_state = self.b_snapshot()
        try:
            await asyncio.wait_for(self.victim.recv(), 0.001)
            self.other_b_frames += 1
        except asyncio.TimeoutError:
            pass
        t = self.hub.tables.get(self.table)
        if t is None or t.status == "over" or self.table not in self.hub.tables:
            await self.new_table()


def _json_or_none(payload: Any) -> Any:
    try:
        return json.loads(payload)
    except (ValueError, TypeError, RecursionError):
        return None


def legal_json(table: Any, legal: list[Any]) -> list[dict[str, Any]]:
    from trainer.server import codec
    return [codec.encode_action(a) for a in legal]


async def fuzz(url: str, hub: Any, thread: threading.Thread, a: argparse.Namespace) -> tuple[Fuzzer, Figures]:
    fuzzer = Fuzzer(url, hub, random.Random(a.seed))
    await fuzzer.set_up()
    figures = Figures()
    stop, ready = asyncio.Event(), asyncio.Event()
    ready.set()
    control = asyncio.create_task(run_slot(url, "yomi", 4, 999, figures, 0.02, stop, ready))
    end = time.monotonic() + a.minutes * 60
    frames = 0
    while time.monotonic() < end:
        await fuzzer.one()
        frames += 1
        if not thread.is_alive():
            fuzzer.failures.append("the server thread stopped")
            break
        if control.done():
            fuzzer.failures.append(f"the control bots stopped: {control.exception()!r}")
            break
    stop.set()
    control.cancel()
    await asyncio.gather(control, return_exceptions=True)
    return fuzzer, figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    failures = Failures()
    logging.getLogger("karuta.server").addHandler(failures)
    logging.getLogger("uvicorn.error").addHandler(failures)
    with tempfile.TemporaryDirectory(prefix="karuta-fuzz-") as folder:
        hub, server, url, thread = start_server(f"sqlite:///{folder}/fuzz.sqlite")
        started = time.monotonic()
        try:
            fuzzer, figures = asyncio.run(fuzz(url, hub, thread, a))
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    took = time.monotonic() - started
    total = sum(fuzzer.kinds.values())
    print(f"fuzz: {total:,} frames in {took / 60:.1f} min (seed {a.seed}); server up to the end: "
          f"{'yes' if not thread.is_alive() and not any('stopped' in f for f in fuzzer.failures) else 'no'}")
    print(f"  frames by kind   {', '.join(f'{k} {n}' for k, n in fuzzer.kinds.most_common())}")
    print(f"  answers          {', '.join(f'{k} {n}' for k, n in fuzzer.answers.most_common())}")
    waits = sorted(fuzzer.waits)
    print(f"  answered in      median {1000 * waits[len(waits) // 2]:.1f} ms, "
          f"p99 {1000 * waits[int(0.99 * len(waits))]:.1f} ms, slowest {1000 * waits[-1]:.0f} ms")
    print(f"  closes           {', '.join(f'{k} ×{n}' for k, n in fuzzer.closes.items()) or 'none'}")
    print(f"  control tables   {sum(figures.games.values())} finished by the honest bots meanwhile; "
          f"table B unchanged; frames to its waiting person: {fuzzer.other_b_frames}")
    problems = fuzzer.failures + failures.lines
    if fuzzer.other_b_frames:
        problems.append(f"the victim at table B received {fuzzer.other_b_frames} frames")
    if not sum(figures.games.values()):
        problems.append("the control bots finished no table")
    print(f"  failures         {len(problems)}")
    for line in problems[:30]:
        print(f"    {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
