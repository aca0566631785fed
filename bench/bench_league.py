"""The kyōgi CPU league: every level against every other, through the match session.

Plays `--games` games per pair of levels (seats alternated, the same deals for
every pair) with `trainer.sim.kyogi_sim.league` — the code behind
``karuta simulate kyogi --league`` — and prints the win table, the
neighbouring levels' upset rates (the weaker level's share of wins; issue 10
asks for 20–35 %), the two-level gaps, and the time it took; then, per level
in `--self-play` games against itself, what its play looks like: takes before
the kimariji mark (anticipation), faults by kind, the mean take reaction.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_league.py               # 400 games per pair
    PYTHONPATH=$PWD .venv/bin/python bench/bench_league.py --games 1000 --seed 3
"""
from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter

from trainer.players.karuta_cpu import LEVELS
from trainer.sim.kyogi_sim import format_league, game_seed, league, make_timing, play_game


def self_play(name: str, games: int, seed: int) -> str:
    """One level against itself: per player and game, early touches (before the kimariji
    mark) and how many of them took the card, faults by kind; the mean take reaction."""
    timing = make_timing()
    early = early_takes = 0
    faults: Counter[str] = Counter()
    takes, reads = [], 0
    for k in range(games):
        state = play_game(game_seed(seed, k), (name, name), timing, check=False).state
        reads += len(state.read)
        for o in state.outcomes:
            if o.taker is not None:
                takes.append(o.reaction_ms[o.taker])
                early_takes += o.reaction_ms[o.taker] < 0
            for f in o.faults:
                faults[f.kind.value] += 1
        early += sum(1 for e in state.log if e.kind == "touch" and e.get("reaction_ms") < 0)
    per = 2 * games
    kinds = ", ".join(f"{k} {n / per:.2f}" for k, n in sorted(faults.items()))
    return (f"  {name:>9}: early touches {early / per:.2f} (takes {early_takes / per:.2f}), "
            f"faults {sum(faults.values()) / per:.2f} ({kinds}), "
            f"take reaction {statistics.fmean(takes):.0f} ms, {reads / games:.0f} cards read")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="games per pair of levels")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--self-play", type=int, default=100, help="games of each level against itself")
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
    if args.self_play:
        print(f"\neach level against itself, {args.self_play} games; per player and game:")
        for name in LEVELS:
            print(self_play(name, args.self_play, args.seed), flush=True)


if __name__ == "__main__":
    main()
