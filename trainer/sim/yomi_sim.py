"""`karuta simulate yomi|yomi37`: all-CPU Yomi games through the app's session, invariants checked."""
from __future__ import annotations

import argparse
from typing import Any

from trainer.games.turn_session import TurnSession
from trainer.games.yomi_session import BEST_LEVEL, new_session
from trainer.players.yomi_cpu import LEVELS
from trainer.sim.card_sim import add_level_options, format_test_seat, level_options, run_games


def _add_common_options(parser) -> None:
    add_level_options(parser, LEVELS, BEST_LEVEL)
    parser.add_argument("--rounds", type=int, default=None, help="rounds per game (default 1)")


def _add_wild_card(parser, shown: bool) -> None:
    parser.add_argument("--wild-card", dest="wild_card", choices=("onifuda", "shirofuda"), default=None,
                        help="4-player wild card of --variant wild (default onifuda)" if shown
                        else argparse.SUPPRESS)


def _add_card_points(parser, shown: bool) -> None:
    parser.add_argument("--card-points", dest="card_points", choices=("one", "rank"), default=None,
                        help="a discarded card is worth 1 (default) or its number" if shown
                        else argparse.SUPPRESS)


# Each command's --help lists only its own options; the other game's option is
# still parsed, hidden, so that check_options can say where it belongs.
def add_cli_options(parser) -> None:
    """`simulate yomi`."""
    _add_common_options(parser)
    _add_wild_card(parser, shown=True)
    _add_card_points(parser, shown=False)


def add_yomi37_options(parser) -> None:
    """`simulate yomi37`: the 37-card variation."""
    _add_common_options(parser)
    _add_card_points(parser, shown=True)
    _add_wild_card(parser, shown=False)


MAX_ROUNDS = 1000   # rounds per game a simulation plays at most (a game is minutes of CPU past this)


def check_options(args, variant, players) -> None:
    """Options that apply to one variant only are refused elsewhere, not ignored."""
    name = f"{variant.game} --variant {variant.variant}"
    if args.wild_card is not None and not variant.options.get("wild"):
        raise ValueError(f"simulate {name}: --wild-card is for the wild variant "
                         f"(simulate yomi --variant wild)")
    if args.card_points is not None and variant.options.get("ruleset") != "yomi37":
        raise ValueError(f"simulate {name}: --card-points is a yomi37 option (simulate yomi37)")
    if args.rounds is not None and not 1 <= args.rounds <= MAX_ROUNDS:
        raise ValueError(f"simulate {variant.game}: --rounds must be 1..{MAX_ROUNDS}, not {args.rounds}")


def simulate_variant(variant, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict[str, Any]:
    opts = level_options(options, LEVELS, players)
    points: list[int] = []

    def per_game(session: TurnSession, test_seat: int | None) -> None:
        points.extend(e.points for e in session.log if e.kind == "yomi.won")  # type: ignore[attr-defined]

    out = run_games(new_session, variant, games=games, seed=seed, players=players, options=opts,
                    check=check, best=BEST_LEVEL, per_game=per_game)
    n = max(len(points), 1)
    played = out["events"].get("yomi.lead", 0) + out["events"].get("yomi.discard", 0)
    out = {"game": variant.game, "variant": variant.variant, **out,
           "rounds": len(points),
           "discarded_per_round": round(played / n, 2),
           "winner_points_per_round": round(sum(points) / n, 2)}
    return out


def format_report(d: dict) -> str:
    ev = d["events"]
    lines = [f"{d['game']} {d['variant']}: {d['games']} all-CPU games, {d['players']} players, "
             f"seed {d['seed']}",
             "wins by seat: " + "  ".join(f"{s}: {w}" for s, w in enumerate(d["wins_by_seat"])),
             f"rounds {d['rounds']}, cards discarded per round {d['discarded_per_round']}, "
             f"passes {ev.get('yomi.pass', 0)}, blocked sequences {ev.get('yomi.blocked', 0)}, "
             f"teyaku {ev.get('yomi.teyaku', 0)}, winner's points per round {d['winner_points_per_round']}",
             *format_test_seat(d), f"invariants: {d['invariants']}"]
    return "\n".join(lines)
