"""Yomi: all-CPU games per second and the CPU levels' margins over random play.

Each configuration: 1,000 seeded games through `karuta simulate`'s code
(invariants checked after every action unless --no-check) with every seat
'chain' (the engine's speed: 'sample' spends its time in its own rollouts), then
the same 1,000 with one seat (rotating) playing 'chain', then 'sample' (the
best level), and the others random.

    python bench/bench_yomi.py                 # 1,000 games per configuration
    python bench/bench_yomi.py --games 200
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cards import report  # noqa: E402

CONFIGS = [("yomi", "standard", 4), ("yomi", "standard", 3), ("yomi", "wild", 4),
           ("yomi", "wild", 3), ("yomi37", "standard", 4)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-check", action="store_true", help="skip the per-action invariants")
    args = ap.parse_args()
    for game, variant, players in CONFIGS:
        report(game, variant, players, args.games, args.seed, "sample", {}, not args.no_check,
               levels=("chain", "sample"), speed_level="chain")


if __name__ == "__main__":
    main()
