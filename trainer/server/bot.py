"""The headless bot client (`karuta bot`): creates tables, fills every seat with a bot, plays them out.

A bot speaks only the protocol (``docs/server-protocol.md``), one WebSocket per
seat, exactly as a person's client would: it sees its seat's view and the
legal actions the server lists, and picks one: ``random`` (seeded, uniform),
``first`` (the first listed), or a level of the game's own CPU player (unsun
``medium``, yomi ``sample``, umebotan ``greedy`` ...), which reads the view
decoded back into the engine's view object, exactly what a local CPU reads.
Every wait is bounded by `deadline`.
"""
from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Sequence, TypeVar
from urllib.parse import urlsplit, urlunsplit

BOT_LEVELS = ("random", "first")
"""Levels of any game; each game's CPU levels (`trainer.server.adapter.CPU_LEVELS`) work too."""


def cpu_player(game: str, level: str, seat: int, seed: int) -> Any:
    """The game's own CPU player of `level` for `seat` (what the server's CPU seats play)."""
    if game == "unsun":
        from trainer.players.unsun_cpu import make_cpu
        return make_cpu(level, seat, seed)
    if game in ("yomi", "yomi37"):
        from trainer.players.yomi_cpu import YomiCpu
        return YomiCpu(seat, level, seed)
    if game == "bozu":
        from trainer.players.bozu_cpu import BozuCpu
        return BozuCpu(seat, level, seed)
    from trainer.players.umebotan_cpu import UmeBotanCpu
    return UmeBotanCpu(seat, level, seed)


class BotError(Exception):
    """The bot could not do its job (one line)."""


def socket_url(url: str) -> str:
    """``ws://host:port/ws`` from ``http://host:port``, ``ws://host:port`` or the full address."""
    parts = urlsplit(url if "://" in url else f"ws://{url}")
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.hostname:
        raise BotError(f"the server address is ws://HOST:PORT or http://HOST:PORT, not {url!r}")
    return urlunsplit((scheme, parts.netloc, parts.path if parts.path not in ("", "/") else "/ws", "", ""))


def server_urls(url: str | Sequence[str]) -> list[str]:
    """The addresses of one lobby: ``URL`` or ``URL,URL,…`` (several processes on one PostgreSQL)."""
    items = url.split(",") if isinstance(url, str) else list(url)
    urls = [u.strip() for u in items if u.strip()]
    if not urls:
        raise BotError("no server address given")
    for u in urls:
        socket_url(u)
    return urls


async def _open(url: str) -> Any:
    import websockets
    address = socket_url(url)
    try:
        return await websockets.connect(address, max_size=2**22, open_timeout=10)
    except (OSError, asyncio.TimeoutError) as exc:
        raise BotError(f"cannot reach the server at {url}: {exc.strerror or exc}"
                       if isinstance(exc, OSError) else f"cannot reach the server at {url}") from None
    except Exception as exc:  # noqa: BLE001 - a refused handshake: one line
        raise BotError(f"the server at {url} refused the connection ({type(exc).__name__})") from None


class Client:
    """One connection speaking the protocol; `record` sees every frame received. When the
    connection drops, `reconnect` tries each of the lobby's addresses in turn (with the
    token, so the person is the same) until `retry` seconds have gone by."""

    def __init__(self, ws: Any, label: str, record: Callable[[str, dict[str, Any]], None] | None = None,
                 urls: Sequence[str] = (), retry: float = 0.0):
        self.ws = ws
        self.label = label
        self.record = record
        self.urls = list(urls)
        self.retry = retry
        self.token: str | None = None
        self.reconnects = 0
        self._next = 0

    @classmethod
    async def connect(cls, url: str | Sequence[str], label: str,
                      record: Callable[[str, dict[str, Any]], None] | None = None,
                      token: str | None = None, retry: float = 0.0,
                      sign_up: tuple[str, str] | None = None) -> tuple["Client", str]:
        """A connection that said hello and signed in (as a guest, with `token`, or as a new
        account `sign_up` = (name, password)); its token. A connection signs in once.
        `url` may list several addresses of one lobby: the first is tried first."""
        urls = server_urls(url)
        client = cls(await _open(urls[0]), label, record, urls, retry)
        await client._sign_in(token, sign_up)
        assert client.token is not None
        return client, client.token

    async def _sign_in(self, token: str | None, sign_up: tuple[str, str] | None = None) -> None:
        await self.call("hello", version=1)
        if sign_up is not None:
            signed = await self.call("sign_up", name=sign_up[0], password=sign_up[1])
        else:
            signed = await (self.call("log_in", token=token) if token else self.call("guest"))
        self.token = signed["token"]

    async def reconnect(self) -> None:
        """A new connection to one of the addresses, signed in with this client's token."""
        deadline = time.monotonic() + self.retry
        turn = self.reconnects
        self.reconnects += 1
        while True:
            url = self.urls[turn % len(self.urls)]
            turn += 1
            try:
                self.ws = await _open(url)
                await self._sign_in(self.token)
                return
            except (BotError, OSError, ConnectionError) as exc:
                if time.monotonic() > deadline:
                    raise BotError(f"could not reconnect within {self.retry:g} s: {exc}") from None
            except Exception as exc:  # noqa: BLE001 - the socket closed during hello: try again
                if time.monotonic() > deadline:
                    raise BotError(f"could not reconnect within {self.retry:g} s ({type(exc).__name__})") from None
            await asyncio.sleep(0.2)

    async def move(self, url: str) -> None:
        """To the process a ``race_elsewhere`` error names (it holds the race table): a new
        connection there, signed in with this client's token; the old one is closed."""
        old = self.ws
        self.ws = await _open(url)
        await self._sign_in(self.token)
        if url not in self.urls:
            self.urls.append(url)
        try:
            await old.close()
        except Exception:  # noqa: BLE001 - already gone
            pass

    async def send(self, kind: str, **fields: Any) -> int:
        self._next += 1
        await self.ws.send(json.dumps({"type": kind, "id": self._next, **fields}))
        return self._next

    async def recv(self) -> dict[str, Any]:
        frame = json.loads(await self.ws.recv())
        if self.record is not None:
            self.record(self.label, frame)
        return frame

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a message and wait for the reply carrying its id; BotError on an error frame.
        Over the server's message rate (its ``rate_limited`` frame names no message, as the server
        refuses it unread) the message is sent again a little later."""
        ident = await self.send(kind, **fields)
        while True:
            frame = await self.recv()
            if frame.get("error") == "rate_limited" and "id" not in frame:
                await asyncio.sleep(0.1)
                await self.ws.send(json.dumps({"type": kind, "id": ident, **fields}))
                continue
            if frame.get("id") == ident:
                if frame["type"] in ("error", "refusal"):
                    raise BotError(f"the server refused {kind}: {frame.get('error') or frame.get('reason')}")
                return frame

    async def close(self) -> None:
        await self.ws.close()


@dataclass
class SeatResult:
    table: str
    seat: int | None
    actions: int = 0
    finished: bool = False
    outcome: Any = None
    refusals: list[str] = field(default_factory=list)


async def play_seat(client: Client, table: str, level: str, seed: int, result: SeatResult,
                    join: dict[str, Any] | None = None, max_actions: int = 100_000,
                    game: str | None = None) -> SeatResult:
    """Join `table` (taking a free seat) and play it to its end, one legal action a turn. When the
    connection drops and the client may retry, it reconnects, joins again and goes on from the
    view it is sent (its seat held by its token)."""
    rng = random.Random(seed)
    cpu: Any = None
    pending: dict[str, Any] | None = None
    ident = await client.send("join", table=table, **(join or {}))
    for _ in range(max_actions * 20):
        try:
            frame = await client.recv()
        except Exception as exc:  # noqa: BLE001 - the connection dropped (ConnectionClosed, OSError …)
            if not client.retry or isinstance(exc, (BotError, asyncio.CancelledError)):
                raise
            await client.reconnect()
            pending = None
            ident = await client.send("join", table=table, **(join or {}))
            continue
        kind = frame.get("type")
        if kind == "error" and frame.get("id") == ident:
            raise BotError(f"could not join table {table}: {frame['error']}")
        if kind == "error" and frame.get("error") == "rate_limited" and pending is not None:
            await asyncio.sleep(0.1)    # over the server's message rate: say it again, a little later
            await _send_quietly(client, pending)
        elif kind == "table" and frame.get("table") == table:
            result.seat = frame.get("you")
        elif kind == "over" and frame.get("table") == table:
            result.finished, result.outcome = True, frame.get("outcome")
            return result
        elif kind == "refusal":
            result.refusals.append(frame.get("reason", "?"))
        elif kind == "view" and frame.get("table") == table and frame.get("legal"):
            legal = frame["legal"]
            if level == "first":
                choice = legal[0]
            elif level == "random" or game is None:
                choice = rng.choice(legal)
            else:
                choice, cpu = _cpu_choice(game, level, seed, frame, cpu)
            pending = {"table": table, "seq": frame["seq"], "action": choice}
            await _send_quietly(client, pending)
            result.actions += 1
            if result.actions > max_actions:
                break
    return result


async def _send_quietly(client: Client, act: dict[str, Any]) -> None:
    """Send an action; a connection that just dropped is noticed by the next read instead."""
    try:
        await client.send("act", **act)
    except Exception:  # noqa: BLE001 - ConnectionClosed and the like
        if not client.retry:
            raise


def _cpu_choice(game: str, level: str, seed: int, frame: dict[str, Any], cpu: Any) -> tuple[Any, Any]:
    """The CPU player's choice among the frame's legal actions (as the protocol's JSON)."""
    from trainer.server import codec
    from trainer.server.tables import rules_module
    from trainer.games.registry import find
    seat = frame["seat"]
    if cpu is None:
        cpu = cpu_player(game, level, seat, seed)
    rules = rules_module(find(game))
    legal = [codec.decode_action(game, rules, a, seat) for a in frame["legal"]]
    chosen = cpu.choose(codec.decode_view(game, frame["view"]), legal)
    return frame["legal"][legal.index(chosen)], cpu


async def run_bots(url: str | Sequence[str], game: str, tables: int = 1, level: str = "random", *,
                   variant: str | None = None, seats: int | None = None, seed: int = 0, deadline: float = 600.0,
                   options: dict[str, Any] | None = None, retry: float = 60.0,
                   record: Callable[[str, dict[str, Any]], None] | None = None) -> list[SeatResult]:
    """Create `tables` tables of `game`, sit a bot in every seat, play all to the end (within `deadline` s).
    With several addresses (one lobby served by several processes) the bots are spread over them,
    and a bot whose connection drops reconnects to any of them for up to `retry` s."""
    urls = server_urls(url)
    from trainer.server.adapter import CPU_LEVELS
    known = BOT_LEVELS + CPU_LEVELS.get(game, ())
    if level not in known:
        raise BotError(f"a {game} bot's level is one of {', '.join(dict.fromkeys(known))}, not {level!r}")

    async def work() -> list[SeatResult]:
        host, _ = await Client.connect(urls, "host", record)
        created = []
        for _ in range(tables):
            extra = {k: v for k, v in (options or {}).items() if v is not None}
            reply = await host.call("create_table", game=game, variant=variant, seats=seats, **extra)
            created.append(reply["table"])
        lobby = await host.call("lobby")
        counts = {t["table"]: len(t["seats"]) for t in lobby["tables"]}
        await host.close()
        clients: list[Client] = []
        jobs = []
        for t_no, table in enumerate(created):
            for s in range(counts.get(table, 0)):
                turn = len(clients) % len(urls)
                client, _ = await Client.connect(urls[turn:] + urls[:turn], f"{table}/{s}", record, retry=retry)
                clients.append(client)
                jobs.append(play_seat(client, table, level, seed * 1000 + t_no * 16 + s, SeatResult(table, None),
                                     game=game))
        try:
            return list(await asyncio.gather(*jobs))
        finally:
            for client in clients:
                await client.close()

    return await finished_within(work(), deadline, url)


T = TypeVar("T")


async def finished_within(work: Awaitable[T], deadline: float, url: Any) -> T:
    """The bots' whole run, or one line saying why it stopped: out of time, or no connection."""
    try:
        return await asyncio.wait_for(work, timeout=deadline)
    except asyncio.TimeoutError:
        raise BotError(f"the tables did not finish within {deadline:g} s") from None
    except OSError as exc:
        raise BotError(f"the connection to {url} failed: {exc.strerror or exc}") from None


def run(url: str | Sequence[str], game: str, tables: int, level: str, deadline: float, **kw: Any) -> tuple[int, str]:
    """`karuta bot`: (exit status, the line to print)."""
    start = time.monotonic()
    try:
        results = asyncio.run(run_bots(url, game, tables, level, deadline=deadline, **kw))
    except BotError as exc:
        return 1, str(exc)
    except Exception as exc:  # noqa: BLE001 - the connection dropped mid-game and the like: one line
        return 1, f"the bots stopped: {type(exc).__name__}: {str(exc)[:120]}"
    unfinished = sorted({r.table for r in results if not r.finished})
    took = time.monotonic() - start
    if unfinished:
        return 1, f"{len(unfinished)} of {tables} tables did not finish ({', '.join(unfinished)})"
    actions = sum(r.actions for r in results)
    return 0, f"{tables} {game} tables finished, {actions} actions by {len(results)} bots in {took:.1f} s"
