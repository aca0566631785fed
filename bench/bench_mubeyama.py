"""Mubeyama karuta: all-CPU games per second, 10,000 seeded games per ruleset.

Every game runs to the end with the engine's invariants checked after every
reading (every torifuda in exactly one place, face-down cards read, Mon sums to
zero and matches the ledger), and each result is sanity-checked here too.

    /tmp/venv/bin/python bench/bench_mubeyama.py                 # 10,000 per ruleset
    /tmp/venv/bin/python bench/bench_mubeyama.py --games 500 --ruleset izumoji
"""
from __future__ import annotations

import argparse
import time

from trainer.rules.mubeyama import DEFAULT_PLAYERS, RULESETS
from trainer.sim.mubeyama_sim import SimTotals, play_game


def bench(name: str, players: int, games: int, seed: int, check: str) -> dict:
    ruleset = RULESETS[name]()
    totals = SimTotals(name, players, seed)
    start = time.perf_counter()
    for i in range(games):
        g = play_game(ruleset, players, f"{seed}:{i}", check)
        assert g.is_over() and g.winners(), f"game {i}: no winner"
        assert sum(g.balances) == 0
        if name == "okayama":
            assert len(g.winners()) == 1
        if name == "izumoji":
            assert all(not g.tables[w].face_up for w in g.winners())
        if name.startswith("gambling"):
            best = max(g.balances)
            assert all(g.balances[w] == best for w in g.winners())
        totals.add(g)
    elapsed = time.perf_counter() - start
    d = totals.as_dict()
    assert sum(d["wins_by_seat"]) >= games
    return {"ruleset": name, "players": players, "games": games, "seconds": elapsed,
            "games_per_s": games / elapsed, "reads_per_s": sum(totals.reads) / elapsed,
            "mean_reads": d["reads"]["mean"], "passes_per_game": d["passes"]["per_game"],
            "payments_per_game": d["payments"]["per_game"], "shared_wins": d["shared_wins"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--ruleset", action="append", choices=sorted(RULESETS),
                    help="repeatable; default: all four at their default player count")
    ap.add_argument("--check", choices=["action", "reading", "end"], default="reading",
                    help="how often the invariants are checked (default: after every reading)")
    args = ap.parse_args()
    names = args.ruleset or ["okayama", "izumoji", "gambling4", "gambling5"]
    print(f"{'ruleset':<10} {'players':>7} {'games':>7} {'seconds':>8} {'games/s':>8} "
          f"{'reads/s':>9} {'reads/game':>10} {'passes/game':>11} {'payments/game':>13}")
    for name in names:
        r = bench(name, DEFAULT_PLAYERS[name], args.games, args.seed, args.check)
        print(f"{r['ruleset']:<10} {r['players']:>7} {r['games']:>7} {r['seconds']:>8.1f} "
              f"{r['games_per_s']:>8.1f} {r['reads_per_s']:>9.0f} {r['mean_reads']:>10.1f} "
              f"{r['passes_per_game']:>11.1f} {r['payments_per_game']:>13.1f}", flush=True)
    print(f"invariants checked after every {args.check}: all held")


if __name__ == "__main__":
    main()
