"""How fast CPU-vs-CPU kyogi matches run headless: matches per second, with and without
the invariant check after every step, and the wall time of the acceptance command.

    /tmp/venv/bin/python bench/bench_simulate.py [--games N]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from trainer.sim import kyogi_sim


def matches_per_second(games: int, levels: tuple[str, str], check: bool) -> tuple[float, float]:
    timing = kyogi_sim.make_timing()
    timing.start(list(range(1, 101)))          # build the tone voice's clips before timing
    reads = 0
    t0 = time.perf_counter()
    for k in range(games):
        state = kyogi_sim.play_game(kyogi_sim.game_seed(1, k), levels, timing, check).state
        reads += len(state.read)
    dt = time.perf_counter() - t0
    return games / dt, reads / dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    args = ap.parse_args()
    print(f"kyogi simulation, {args.games} games per row, timing {type(kyogi_sim.make_timing()).__name__}")
    for levels in (("club", "club"), ("beginner", "meijin"), ("a-class", "a-class")):
        for check in (True, False):
            mps, rps = matches_per_second(args.games, levels, check)
            print(f"  {levels[0]:>8} vs {levels[1]:<8} invariants {'on ' if check else 'off'}: "
                  f"{mps:7.1f} matches/s  {rps:8.0f} reads/s")
    root = Path(__file__).resolve().parent.parent
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "trainer.cli", "simulate", "kyogi", "--games", "200",
                    "--seed", "1", "--json"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    print(f"  `karuta simulate kyogi --games 200 --seed 1 --json`: {time.perf_counter() - t0:.2f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
