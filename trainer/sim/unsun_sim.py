"""`karuta simulate unsun`: all-CPU games of Unsun karuta (Hachi-nin Meri), headless.

Game *i* of a run with ``--seed S`` is played from seed ``"S:i"`` through the
session the app plays (`trainer.games.unsun_session`), every seat a CPU, by
the card games' one loop (`trainer.sim.card_sim.run_games`), with the engine's
invariants checked after every action. With ``--against`` the tested team
alternates game by game.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from trainer.games.turn_session import TurnSession
from trainer.games.unsun_session import BEST_LEVEL, new_session
from trainer.players.unsun_cpu import LEVELS
from trainer.rules.unsun import PLAYERS, UnsunState, team_of
from trainer.sim.card_sim import add_level_options, format_test_seat, level_options, run_games

COUNTED = {"unsun.robau": "robau", "unsun.hidden_robai": "hidden_robai", "unsun.no_robai": "robai_unheld",
           "unsun.meri": "meri", "unsun.yaku": "yaku", "unsun.yaku_void": "yaku_void"}
"""The events counted per deal, by kind."""


def play_game(variant: Any, seed: int | str, options: dict | None = None,
              check: bool = True) -> tuple[UnsunState, list]:
    """One all-CPU game to its end: the final state and the session's log."""
    from trainer.games.turn_session import CPU, play_out
    session = play_out(new_session(variant, seed, (CPU,) * PLAYERS, options or {}), check=check)
    assert isinstance(session.state, UnsunState)
    return session.state, session.log


def simulate_variant(variant: Any, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict:
    opts = level_options(options, LEVELS, players)
    team_wins: Counter[str] = Counter()
    points, tricks, deals = [0, 0], [0, 0], [0]

    def per_game(session: TurnSession, test_seat: int | None) -> None:
        state = session.state
        assert isinstance(state, UnsunState)
        winner = state.winning_team()
        team_wins["tie" if winner is None else "AB"[winner]] += 1
        for t in (0, 1):
            points[t] += state.totals[t]
            tricks[t] += sum(r.tricks[t] for r in state.results)
        deals[0] += len(state.results)

    out = run_games(new_session, variant, games=games, seed=seed, players=players, options=opts,
                    check=check, best=BEST_LEVEL, per_game=per_game, side_of=team_of)
    n = max(deals[0], 1)
    levels = opts.get("levels") or [opts.get("level") or BEST_LEVEL] * PLAYERS
    return {
        "game": "unsun", "variant": variant.variant, **out, "deals": deals[0],
        "levels": {"A": levels[0], "B": levels[1]} if not opts.get("against") else "alternating",
        "wins": {"A": team_wins["A"], "B": team_wins["B"], "tie": team_wins["tie"]},
        "mean_points": {"A": round(points[0] / games, 2), "B": round(points[1] / games, 2)},
        "tricks_per_deal": {"A": round(tricks[0] / n, 2), "B": round(tricks[1] / n, 2)},
        "per_deal": {name: round(out["events"].get(kind, 0) / n, 3) for kind, name in COUNTED.items()},
    }


def format_report(d: dict) -> str:
    w, p = d["wins"], d["mean_points"]
    per = d["per_deal"]
    levels = d["levels"] if isinstance(d["levels"], dict) else {"A": "alternating", "B": "alternating"}
    return "\n".join([
        f"Unsun karuta, Hachi-nin Meri ({d['variant']}): {d['games']} all-CPU games "
        f"({d['deals']} deals), seed {d['seed']}",
        f"  Team A ({levels['A']}): {w['A']} wins, {p['A']} points a game, "
        f"{d['tricks_per_deal']['A']} tricks a deal",
        f"  Team B ({levels['B']}): {w['B']} wins, {p['B']} points a game, "
        f"{d['tricks_per_deal']['B']} tricks a deal",
        f"  ties: {w['tie']}",
        f"  per deal: ロバう {per['robau']}, hidden ロバイ {per['hidden_robai']}, "
        f"ロバイ unheld {per['robai_unheld']}, Meri {per['meri']}, yaku {per['yaku']} "
        f"(void {per['yaku_void']})",
        *("  " + line for line in format_test_seat(d)),
        f"  invariants: {d['invariants']}",
    ])


def add_cli_options(parser) -> None:
    add_level_options(parser, LEVELS, BEST_LEVEL, team=True)
