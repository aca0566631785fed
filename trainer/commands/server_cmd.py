"""`karuta serve` (the game server) and `karuta bot` (its headless bot client).

Both only parse arguments here; the work is in `trainer.server` (imported when
the command runs, so `karuta --help` stays fast and needs no server packages).
"""
from __future__ import annotations

import socket

DEFAULT_PORT = 8750
FLOOR_GAMES = ("chirashi", "sakasama", "genpei", "relay", "shimonoku")
RACE_GAMES = ("kyogi", "mubeyama", *FLOOR_GAMES)   # after a reader, timed on each machine (docs/online-races.md)
SERVER_GAMES = ("unsun", "yomi", "yomi37", "umebotan", "bozu", *RACE_GAMES)


def register(sub) -> None:
    s = sub.add_parser("serve", help="run the game server (lobby, tables, CPU fill-ins) for online play",
                       description="A WebSocket game server for the turn games (Unsun, Yomi, Yomi37, "
                       "Ume Botan, bozu-mekuri) and the races after a reader (docs/online-races.md). "
                       "Protocol: docs/server-protocol.md. Keep it on 127.0.0.1 behind a "
                       "reverse proxy that terminates TLS (see the README).")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    s.add_argument("--db", metavar="URL", default=None,
                   help="database: postgresql://USER@HOST/NAME or sqlite:///FILE "
                        "(default: server.sqlite in the data folder)")
    s.add_argument("--turn-seconds", type=_seconds, default=300.0, metavar="S",
                   help="default turn timer of new tables (default 300)")
    s.add_argument("--seat-hold", type=_seconds, default=120.0, metavar="S",
                   help="a dropped person's seat waits this long, then their stand-in CPU plays their "
                        "turns until they come back (default 120; tables with a turn timer)")
    s.add_argument("--lease", type=_seconds, default=5.0, metavar="S",
                   help="with PostgreSQL: a process silent this long has its tables taken over by "
                        "another (default 5)")
    s.add_argument("--keep-finished", type=_seconds, default=600.0, metavar="S",
                   help="seconds a finished table stays in memory for its players to look at; then "
                        "only the database keeps it (default 600)")
    s.add_argument("--public-url", metavar="URL", default=None,
                   help="with PostgreSQL and several processes: the address clients reach this process "
                        "at (wss://club.example/p1/ws); a client of another process is sent here for a "
                        "race table this process holds (default ws://HOST:PORT/ws)")
    s.set_defaults(func=cmd_serve)

    b = sub.add_parser("bot", help="play tables on a game server with bot clients (tests, load, fill seats)")
    b.add_argument("--server", required=True, metavar="URL[,URL…]",
                   help="ws://HOST:PORT or http://HOST:PORT; several addresses of one lobby (processes on "
                        "one PostgreSQL) separated by commas: the bots are spread over them and reconnect "
                        "to any when one goes away")
    b.add_argument("--game", required=True, choices=SERVER_GAMES)
    b.add_argument("--variant", default=None)
    b.add_argument("--level", default="random",
                   help="how the bots choose: random (seeded, the default), first, or a CPU level of "
                        "the game (unsun: medium; yomi: chain, sample; umebotan: greedy; bozu: first; kyogi: the "
                        "reaction model of a CPU level, beginner ... meijin, club for random; so the floor races)")
    b.add_argument("--tables", type=_count, default=1, help="tables to create and play (default 1)")
    b.add_argument("--seats", type=_count, default=None, help="seats per table (default: the variant's)")
    b.add_argument("--seed", type=int, default=0, help="seed of the bots' choices (default 0)")
    b.add_argument("--timeout", type=_seconds, default=None, metavar="S",
                   help="give up after this many seconds (default 600; kyogi 3600: it is read at the real pace)")
    b.add_argument("--cards", type=_count, default=None, help="kyogi: cards a side (1-25, default 25)")
    b.add_argument("--karafuda", type=int, default=None,
                   help="kyogi: read only this many karafuda among the floor cards first (default: all)")
    b.add_argument("--speed", type=float, default=None,
                   help="kyogi: reading speed (1; up to 50 only on a test server)")
    b.add_argument("--reads", type=_count, default=None,
                   help="floor races: end each game after this many cards, with no winner (test servers only)")
    b.add_argument("--retry", type=_seconds, default=60.0, metavar="S",
                   help="a bot whose connection drops reconnects for up to this many seconds (default 60)")
    b.set_defaults(func=cmd_bot)


def _number(parse, low, high, wrong: str, outside: str):
    """An argparse type: `parse(text)` within low..high, else one line (`wrong`/`outside`
    with ``{text}``/``{value}``)."""
    def convert(text: str):
        import argparse
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(wrong.format(text=repr(text))) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(outside.format(value=value, text=text))
        return value
    return convert


_port = _number(int, 1, 65535, "a port is a number, not {text}", "a port is 1 to 65535, not {value}")
_seconds = _number(float, 0.05, 86400, "expected seconds, not {text}", "expected 0.05 to 86400 seconds, not {text}")
_count = _number(int, 1, 1000, "expected a whole number, not {text}", "expected 1 to 1000, not {value}")


def cmd_serve(args) -> int:
    from trainer.errors import Failure
    try:
        import uvicorn

        from trainer.server.app import Hub, ServerConfig, create_app
        from trainer.server.store import StoreError
    except ModuleNotFoundError as exc:
        raise Failure(f"the server needs the package {exc.name!r} (reinstall the trainer: "
                      "packaging/bootstrap.sh)") from None
    _check_port_free(args.host, args.port)
    public = _public_url(args.public_url, args.host, args.port)
    try:
        hub = Hub(ServerConfig(db=args.db, turn_seconds=args.turn_seconds, lease=args.lease,
                               seat_hold=args.seat_hold, keep_finished=args.keep_finished,
                               beat=min(1.0, args.lease / 3), public_url=public))
        hub.store.claim_file()
    except StoreError as exc:
        raise Failure(str(exc)) from None
    print(f"karuta: serving on ws://{args.host}:{args.port}/ws (database {hub.store.engine.url.render_as_string()}"
          "); Ctrl+C stops", flush=True)
    uvicorn.run(create_app(hub=hub), host=args.host, port=args.port, ws_max_size=65_536,
                log_level="warning", lifespan="on")
    return 0


def _public_url(given: str | None, host: str, port: int) -> str:
    """Where clients reach this process: --public-url (checked), else the listen address (a
    wildcard listen address is named by the machine's host name)."""
    from trainer.errors import Failure
    from trainer.server.bot import BotError, socket_url
    if given is not None:
        try:
            return socket_url(given)
        except BotError as exc:
            raise Failure(f"--public-url: {exc}") from None
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    return f"ws://{'[' + host + ']' if ':' in host else host}:{port}/ws"


def _check_port_free(host: str, port: int) -> None:
    from trainer.errors import Failure
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise Failure(f"cannot listen on {host!r}: no such address") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(addr)
        except OSError as exc:
            raise Failure(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def cmd_bot(args) -> int:
    import sys

    from trainer.errors import UsageError
    race_only = [name for name, value in (("--cards", args.cards), ("--karafuda", args.karafuda),
                                          ("--speed", args.speed)) if value is not None]
    if args.reads is not None and args.game not in FLOOR_GAMES:
        raise UsageError("bot: --reads applies to the floor races (chirashi, sakasama, genpei, relay, shimonoku)")
    if args.game == "kyogi":
        if args.variant is not None or args.seats is not None:
            raise UsageError("bot: a kyogi table has two seats and no variant; it takes no --variant or --seats")
        from trainer.server import race_bot
        level = "club" if args.level in ("random", "first") else args.level
        status, line = race_bot.run(args.server, args.tables, level, args.timeout or 3600.0, seed=args.seed,
                                    cards=args.cards or 25, karafuda=args.karafuda, speed=args.speed)
    elif args.game == "mubeyama":
        from trainer.rules.mubeyama import VARIANTS
        if args.variant not in VARIANTS or args.seats is not None or args.cards or args.karafuda is not None:
            raise UsageError(f"bot: a mubeyama table needs --variant ({', '.join(VARIANTS)}); its seats are the "
                             "variant's, and --cards, --karafuda and --seats do not apply")
        from trainer.server import race_bot
        status, line = race_bot.run(args.server, args.tables, args.level, args.timeout or 3600.0, game="mubeyama",
                                    variant=args.variant, speed=args.speed, cards=None)
    elif args.game in FLOOR_GAMES:
        from trainer.games.registry import variants
        known = [v.variant for v in variants(args.game)]
        if args.variant not in (None, *known) or args.cards or args.karafuda is not None:
            raise UsageError(f"bot: a {args.game} table has no variant {args.variant or ''} (its variants: "
                             f"{', '.join(known)}), and --cards and --karafuda do not apply")
        from trainer.server import race_bot
        level = "club" if args.level in ("random", "first") else args.level
        status, line = race_bot.run(args.server, args.tables, level, args.timeout or 3600.0, game=args.game,
                                    speed=args.speed, cards=None, seed=args.seed, variant=args.variant,
                                    options={"seats": args.seats, "reads": args.reads})
    elif race_only:
        raise UsageError(f"bot: {', '.join(race_only)} apply to --game kyogi (--speed: mubeyama and the floor "
                         "races too) only")
    else:
        from trainer.server.bot import run
        status, line = run(args.server, args.game, args.tables, args.level, args.timeout or 600.0,
                           variant=args.variant, seats=args.seats, seed=args.seed, retry=args.retry)
    print(f"karuta: bot: {line}" if status else line, file=sys.stderr if status else sys.stdout)
    return status
