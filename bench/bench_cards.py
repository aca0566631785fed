"""Shared part of the Yomi and Ume Botan benchmarks: speed and the CPU's margin over random.

Both go through the registry's `simulate` (the app's session, all seats CPU)
so the figures are those of `karuta simulate`.
"""
from __future__ import annotations

import time

from trainer.games import registry


def run(game: str, variant: str, players: int, games: int, seed: int, options: dict,
        check: bool) -> tuple[dict, float]:
    v = registry.find(game, variant)
    start = time.perf_counter()
    d = registry.resolve(v.simulate)(v, games=games, seed=seed, players=players, options=options,
                                     check=check)
    return d, time.perf_counter() - start


def report(game: str, variant: str, players: int, games: int, seed: int, best: str,
           extra: dict, check: bool, levels: tuple[str, ...] = (), speed_level: str = "") -> None:
    """One line of speed (`speed_level`, default `best`, everywhere) and one of margin per level
    against random."""
    speed_level = speed_level or best
    d, s = run(game, variant, players, games, seed, {**extra, "level": speed_level}, check)
    print(f"{game}/{variant} {players}p, {speed_level} everywhere: {games} games in {s:.2f} s = "
          f"{games / s:,.0f} games/s "
          f"({d['rounds'] / s:,.0f} rounds/s), invariants {d['invariants']}", flush=True)
    for level in levels or (best,):
        d, s = run(game, variant, players, games, seed,
                   {**extra, "level": level, "against": "random"}, check)
        t = d["test_seat"]
        print(f"{game}/{variant} {players}p: {level} against random over {games} seeded games: "
              f"wins {t['win_rate']:.1%} (fair share {t['fair_share']:.1%}), "
              f"mean score margin {t['mean_margin']:+} ({s:.1f} s)", flush=True)
