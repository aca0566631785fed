"""`karuta simulate unsun`: all-CPU games of Unsun karuta (Hachi-nin Meri), headless.

Game *i* of a run with ``--seed S`` is played from seed ``"S:i"`` through the
session the app plays (`trainer.games.unsun_session`), every seat a CPU, with
the engine's invariants checked after every action.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from trainer.games.turn_session import CPU, play_out
from trainer.games.unsun_session import DEFAULT_LEVEL, new_session
from trainer.players.unsun_cpu import LEVELS
from trainer.rules.unsun import (PLAYERS, MeriDeclared, OkieTaken, RobaiDeclared, RobaiHidden,
                                 RobaiUnheld, UnsunState, YakuMade, YakuVoid)


def play_game(variant: Any, seed: int | str, options: dict | None = None,
              check: bool = True) -> tuple[UnsunState, list]:
    """One all-CPU game to its end: the final state and the session's log."""
    session = play_out(new_session(variant, seed, (CPU,) * PLAYERS, options or {}), check=check)
    assert isinstance(session.state, UnsunState)
    return session.state, session.log


def simulate_variant(variant: Any, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict:
    level_a = options.get("cpu_level") or DEFAULT_LEVEL
    level_b = options.get("against") or level_a
    wins, events = Counter[str](), Counter[str]()
    points, tricks, deals = [0, 0], [0, 0], 0
    for i in range(games):
        state, log = play_game(variant, f"{seed}:{i}", options, check)
        winner = state.winning_team()
        wins["tie" if winner is None else "AB"[winner]] += 1
        for t in (0, 1):
            points[t] += state.totals[t]
            tricks[t] += sum(r.tricks[t] for r in state.results)
        deals += len(state.results)
        events.update(type(e).__name__ for e in log
                      if isinstance(e, (RobaiDeclared, RobaiHidden, RobaiUnheld, OkieTaken,
                                        MeriDeclared, YakuMade, YakuVoid)))
    return {
        "game": "unsun", "variant": variant.variant, "seed": seed, "games": games,
        "deals": deals, "levels": {"A": level_a, "B": level_b},
        "wins": {"A": wins["A"], "B": wins["B"], "tie": wins["tie"]},
        "mean_points": {"A": round(points[0] / games, 2), "B": round(points[1] / games, 2)},
        "tricks_per_deal": {"A": round(tricks[0] / deals, 2), "B": round(tricks[1] / deals, 2)},
        "per_deal": {"robau": round(events["RobaiDeclared"] / deals, 3),
                     "hidden_robai": round(events["RobaiHidden"] / deals, 3),
                     "robai_unheld": round(events["RobaiUnheld"] / deals, 3),
                     "meri": round(events["MeriDeclared"] / deals, 3),
                     "yaku": round(events["YakuMade"] / deals, 3),
                     "yaku_void": round(events["YakuVoid"] / deals, 3)},
        "invariants": "held" if check else "not checked",
    }


def format_report(d: dict) -> str:
    w, p = d["wins"], d["mean_points"]
    per = d["per_deal"]
    return "\n".join([
        f"Unsun karuta, Hachi-nin Meri ({d['variant']}): {d['games']} all-CPU games "
        f"({d['deals']} deals), seed {d['seed']}",
        f"  Team A ({d['levels']['A']}): {w['A']} wins, {p['A']} points a game, "
        f"{d['tricks_per_deal']['A']} tricks a deal",
        f"  Team B ({d['levels']['B']}): {w['B']} wins, {p['B']} points a game, "
        f"{d['tricks_per_deal']['B']} tricks a deal",
        f"  ties: {w['tie']}",
        f"  per deal: ロバう {per['robau']}, hidden ロバイ {per['hidden_robai']}, "
        f"ロバイ unheld {per['robai_unheld']}, Meri {per['meri']}, yaku {per['yaku']} "
        f"(void {per['yaku_void']})",
        f"  invariants: {d['invariants']}",
    ])


def add_cli_options(parser) -> None:
    parser.add_argument("--cpu-level", choices=LEVELS, default=None,
                        help=f"the CPUs' level (default {DEFAULT_LEVEL}; Team A's with --against)")
    parser.add_argument("--against", choices=LEVELS, default=None,
                        help="Team B's CPU level (default: the same as --cpu-level)")
