"""`karuta simulate GAME ...` and `karuta games`: all-CPU games played headless, from the registry.

Every game of `trainer.games.registry` gets a `simulate` subcommand with the
same options (``--variant``, ``--players``, ``--games``, ``--seed``,
``--json``) plus its own (the variant's ``cli_options``). The registry's
``simulate`` function plays the games through the very session the app plays.

A game's ``cli_options`` module may also define:
- ``choose_variant(args, variants) -> Variant | None``: pick the variant from
  game-specific options (Mubeyama's ``--ruleset``), raising ValueError with one line;
- ``before_simulate(args) -> int | None``: answer an option on its own
  (kyōgi's ``--levels``) and return an exit code, or None to go on;
- ``check_options(args, variant, players)``: refuse, with ValueError and one
  line, an option the chosen variant would silently ignore (yomi's
  ``--card-points`` outside yomi37), so no run ends 0 having ignored one.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys

COMMON = {"game", "variant", "players", "games", "seed", "json", "func", "command",
          "log", "lang", "log_seat"}

LEVELS_HELP = """\
CPU levels, spelled the same for every game:
  --level L            every CPU plays level L
  --level L1,L2,...    one level per seat (seat 1 first)
  --against L          one side plays --level, every other side L; the tested side
                       (a seat, or in Unsun that seat's team) changes with every game
                       and the report gives its win rate against its fair share
                       (Yomi, Ume Botan, Unsun; kyogi compares levels with --league)
  --cpu-level          the old spelling of --level
`karuta simulate GAME --help` lists GAME's levels (Mubeyama's CPUs have none)."""


def register(sub) -> None:
    from trainer.games import registry

    g = sub.add_parser("games", help="list the games and variants the application plays")
    g.add_argument("--json", action="store_true",
                   help="a list of objects: name, variant, title, min_seats, max_seats ..., and the "
                        "event kinds, refusal reasons and text module a client words them with")
    g.set_defaults(func=cmd_games)

    p = sub.add_parser("simulate", help="play all-CPU games headless and print aggregate results",
                       epilog=LEVELS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    games = p.add_subparsers(dest="game", metavar="GAME", required=True)
    for name in registry.names():
        variants = registry.variants(name)
        first = variants[0]
        gp = games.add_parser(name, help=f"{short_title(first.title)}: all-CPU games",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
        gp.add_argument("--variant", choices=[v.variant for v in variants], default=None,
                        help=f"default: {first.variant}")
        low, high = min(v.min_seats for v in variants), max(v.max_seats for v in variants)
        gp.add_argument("--players", type=int, default=None, metavar="N",
                        help=f"players: {low}" if low == high else
                        f"players, {low} to {high} as the variant allows (default: its usual number)")
        gp.add_argument("--games", type=int, default=100, metavar="N", help="games to play (default 100)")
        gp.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the first game's deal; the same seed plays the same games (default 0)")
        gp.add_argument("--json", action="store_true", help="print the aggregate results as JSON")
        _add_log_options(gp)
        if first.cli_options:
            registry.resolve(first.cli_options)(gp)
        if any("--level" in a.option_strings for a in gp._actions):
            gp.epilog = LEVELS_HELP        # a game whose CPUs have levels (Mubeyama's have none)
        gp.set_defaults(func=cmd_simulate)


def short_title(title: str) -> str:
    """A variant's title up to its first comma outside parentheses: "Kyōgi karuta (competitive,
    one against one)" stays whole, "Yomi, 3-4 players, ..." becomes "Yomi"."""
    depth = 0
    for i, ch in enumerate(title):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            return title[:i]
    return title


def _add_log_options(parser) -> None:
    parser.add_argument("--log", action="store_true",
                        help="print the log of the run's first game (the one --seed deals first) "
                             "instead of the summary, as the person at --log-seat reads it in the app")
    parser.add_argument("--lang", choices=("ja", "en"), default="en", help="the log's language (default en)")
    parser.add_argument("--log-seat", default="0", metavar="SEAT|all",
                        help="whose log: a seat (default 0; other seats' face-down cards stay hidden) "
                             "or 'all' for the full log")


def _log_seat(text: str, players: int) -> int | None:
    from trainer.errors import UsageError
    if text == "all":
        return None
    if not text.isdigit() or int(text) >= players:
        raise UsageError(f"--log-seat takes a seat from 0 to {players - 1} or 'all', not {text!r}")
    return int(text)


def _vocabulary(variant) -> dict:
    """What a client needs to word a variant's play: its event kinds, its refusal reason ids
    (each has a message ``event.<kind>`` / ``refusal.<reason>``) and the text module. A name the
    registry gives but the module does not define yet is null (the conformance test catches it)."""
    from trainer.games import registry

    def names(ref: str | None) -> list[str] | None:
        if ref is None:
            return None
        try:
            return sorted(registry.resolve(ref))  # type: ignore[call-overload]  # a dict or tuple of ids
        except AttributeError:
            return None
    return {"events": names(variant.events), "refusals": names(variant.refusals), "texts": variant.texts}


def cmd_games(args) -> int:
    from trainer.games import registry
    if args.json:
        entries = [{**v.as_dict(), **_vocabulary(v)} for v in registry.games()]
        json.dump(entries, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    for e in (v.as_dict() for v in registry.games()):
        seats = (str(e["min_seats"]) if e["min_seats"] == e["max_seats"]
                 else f"{e['min_seats']}-{e['max_seats']}")
        print(f"{e['name']:<10} {e['variant']:<14} {seats:>4} seats  {e['title']}")
    return 0


def _hooks(variant) -> object | None:
    if not variant.cli_options:
        return None
    return importlib.import_module(variant.cli_options.partition(":")[0])


def _pick_variant(args: argparse.Namespace):
    from trainer.errors import UsageError
    from trainer.games import registry
    if args.variant is not None:
        return registry.find(args.game, args.variant)
    choose = getattr(_hooks(registry.find(args.game)), "choose_variant", None)
    if choose is not None:
        try:
            chosen = choose(args, registry.variants(args.game))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if chosen is not None:
            return chosen
    return registry.find(args.game)


def cmd_simulate(args: argparse.Namespace) -> int:
    from trainer.errors import UsageError
    from trainer.games import registry
    before = getattr(_hooks(registry.find(args.game)), "before_simulate", None)
    if before is not None:
        code = before(args)
        if code is not None:
            return code
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    variant = _pick_variant(args)
    try:
        players = variant.check_seats(args.players)
        check = getattr(_hooks(variant), "check_options", None)
        if check is not None:
            check(args, variant, players)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    options = {k: v for k, v in vars(args).items() if k not in COMMON}
    if args.log:
        return _print_log(args, variant, players, options)
    try:
        result = registry.resolve(variant.simulate)(
            variant, games=args.games, seed=args.seed, players=players, options=options, check=True)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.json or not variant.report:
        json.dump(result, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        print(registry.resolve(variant.report)(result))
    return 0


def _print_log(args: argparse.Namespace, variant, players: int, options: dict) -> int:
    """`--log`: game 0 of the run, worded by the game's Qt-free text module."""
    from trainer.sim.game_log import game_log
    from trainer.errors import UsageError
    seat = _log_seat(args.log_seat, players)
    try:
        lines = game_log(variant, args.seed, players, options, seat=seat, lang=args.lang)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print("\n".join(lines))
    return 0
