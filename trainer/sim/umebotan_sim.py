"""`karuta simulate umebotan`: all-CPU Ume Botan games through the app's session.

Invariants after every action (the 48 cards conserved, every round's scores
summing to zero) when checked.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from trainer.games.turn_session import TurnSession
from trainer.games.umebotan_session import BEST_LEVEL, new_session
from trainer.players.umebotan_cpu import LEVELS
from trainer.sim.card_sim import add_level_options, level_options


def add_cli_options(parser) -> None:
    add_level_options(parser, LEVELS, BEST_LEVEL)
    parser.add_argument("--rounds", type=int, default=None, help="rounds per game, even (default 12)")
    parser.add_argument("--reseat", choices=("stay", "score"), default=None,
                        help="4 players: the middle seats after a round (default stay)")


MAX_ROUNDS = 1200   # rounds per game at most: a hundred 12-round games' worth


def check_options(args, variant, players) -> None:
    """--reseat is for 4 players; --rounds is even and bounded."""
    if args.reseat is not None and players != 4:
        raise ValueError(f"simulate umebotan: --reseat moves the middle seats of a 4-player game; "
                         f"{players} players have none")
    if args.rounds is not None and not (2 <= args.rounds <= MAX_ROUNDS and args.rounds % 2 == 0):
        raise ValueError(f"simulate umebotan: --rounds must be an even number 2..{MAX_ROUNDS}, "
                         f"not {args.rounds}")


def simulate_variant(variant, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict[str, Any]:
    from trainer.sim.card_sim import run_games
    opts = level_options(options, LEVELS, players)
    yaku: Counter = Counter()
    fields: Counter = Counter()
    rounds = [0]
    swing = [0]

    def per_game(session: TurnSession, test_seat: int | None) -> None:
        for e in session.log:
            if e.kind == "umebotan.scored":
                rounds[0] += 1
                yaku.update(name for names in e.yaku for name in names)  # type: ignore[attr-defined]
                swing[0] += max(e.scores)  # type: ignore[attr-defined]
                if sum(e.scores) != 0:  # type: ignore[attr-defined]
                    raise AssertionError(f"round scores do not sum to zero: {e}")
            elif e.kind == "umebotan.multiplier":
                fields[e.field_kind] += 1  # type: ignore[attr-defined]

    out = run_games(new_session, variant, games=games, seed=seed, players=players, options=opts,
                    check=check, best=BEST_LEVEL, per_game=per_game)
    n = max(rounds[0], 1)
    return {"game": variant.game, "variant": variant.variant, **out, "rounds": rounds[0],
            "yaku": dict(sorted(yaku.items())), "fields": dict(sorted(fields.items())),
            "best_round_score_mean": round(swing[0] / n, 1), "zero_sum": "every round"}


def format_report(d: dict) -> str:
    from trainer.sim.card_sim import format_test_seat
    ev = d["events"]
    n = max(d["rounds"], 1)
    yaku = ", ".join(f"{k} {v / n:.1%}" for k, v in sorted(d["yaku"].items(), key=lambda kv: -kv[1]))
    fields = ", ".join(f"{k} {v}" for k, v in d["fields"].items())
    lines = [f"Ume Botan: {d['games']} all-CPU games ({d['rounds']} rounds), {d['players']} players, "
             f"seed {d['seed']}",
             "wins by seat: " + "  ".join(f"{s}: {w}" for s, w in enumerate(d["wins_by_seat"])),
             f"fields: {fields}; misdeals {ev.get('umebotan.misdeal', 0)}, "
             f"Lightning dealt to the field {ev.get('umebotan.reserved', 0)}",
             f"yaku per round: {yaku}",
             f"best score of a round, mean: {d['best_round_score_mean']}; scores sum to zero: {d['zero_sum']}",
             *format_test_seat(d), f"invariants: {d['invariants']}"]
    return "\n".join(lines)
