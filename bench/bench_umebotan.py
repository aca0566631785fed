"""Ume Botan: all-CPU games per second and the 'greedy' CPU's margin over random play.

1,000 seeded games of 12 rounds (invariants checked after every action: the 48
cards conserved, every round's scores summing to zero) for 3 and 4 players,
then the same with one seat (rotating) playing 'greedy' and the others random;
the margin is the test seat's total minus the others' mean total.

    python bench/bench_umebotan.py               # 1,000 games per player count
    python bench/bench_umebotan.py --games 200
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cards import report  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--no-check", action="store_true", help="skip the per-action invariants")
    args = ap.parse_args()
    for players in (3, 4):
        report("umebotan", "standard", players, args.games, args.seed, "greedy",
               {"rounds": args.rounds}, not args.no_check)


if __name__ == "__main__":
    main()
