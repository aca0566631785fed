"""The kyōgi CPU league: every level against every other, through the match session.

Plays `--games` games per pair of levels (seats alternated, the same deals for
every pair) with `trainer.sim.kyogi_sim.league` — the code behind
``karuta simulate kyogi --league`` — and prints the win table, the
neighbouring levels' upset rates (the weaker level's share of wins; issue 10
asks for 20–35 %), the two-level gaps, and the time it took.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_league.py               # 400 games per pair
    PYTHONPATH=$PWD .venv/bin/python bench/bench_league.py --games 1000 --seed 3
"""
from __future__ import annotations

import argparse
import math
import time

from trainer.sim.kyogi_sim import format_league, league


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="games per pair of levels")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    start = time.perf_counter()
    r = league(args.games, args.seed, check=True)
    took = time.perf_counter() - start
    names, wins, n = r["levels"], r["wins"], r["games"]
    pairs = len(names) * (len(names) - 1) // 2

    print(format_league(r))
    print(f"\n{pairs * n} games ({n} per pair, invariants checked after every step) in {took:.1f} s, "
          f"{1000 * took / (pairs * n):.1f} ms a game")
    print("\nneighbours: the weaker level's share of wins (target 20-35 %), ± one standard error")
    for a, b in zip(names, names[1:]):
        p = wins[a][b]
        print(f"  {a:>9} vs {b:<9} {p:6.1%} ± {math.sqrt(p * (1 - p) / n):.1%}")
    print("two levels apart: the weaker level's share of wins")
    for a, b in zip(names, names[2:]):
        print(f"  {a:>9} vs {b:<9} {wins[a][b]:6.1%}")


if __name__ == "__main__":
    main()
