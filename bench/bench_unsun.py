"""Unsun karuta (Hachi-nin Meri): random-play deals per second, 10,000 checked random deals,
and the medium CPU's margin over random play.

Three figures, each printed:

1. speed: all-random games played through the session (`TurnSession`, as
   `karuta simulate` plays them), no checks: deals per second;
2. invariants: 10,000 seeded random deals (1,250 games) with the engine's
   invariants after every action (75 cards conserved, 9 tricks a deal, at
   most one team scoring a deal, totals consistent) and, every 9th action,
   no hidden card in another seat's view (the test suite runs 2,000);
3. margin: 1,000 seeded games of medium CPUs against random CPUs, the
   medium team Team A in even games and Team B in odd ones: the medium
   team's win rate, points per game, and tricks per deal.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_unsun.py
    PYTHONPATH=$PWD .venv/bin/python bench/bench_unsun.py --deals 2000 --games 200
"""
from __future__ import annotations

import argparse
import time

from trainer.games import registry
from trainer.games.turn_session import CPU, play_out
from trainer.games.unsun_session import new_session
from trainer.rules.unsun import PLAYERS, TRICKS, UnsunState

STANDARD = registry.find("unsun", "standard")
RANDOM = {"cpu_level": "random"}


def speed(games: int, seed: int) -> tuple[int, float]:
    start = time.perf_counter()
    deals = 0
    for g in range(games):
        session = play_out(new_session(STANDARD, f"{seed}:{g}", (CPU,) * PLAYERS, RANDOM), check=False)
        deals += len(session.state.results)
    return deals, time.perf_counter() - start


def check_hidden(state: UnsunState) -> None:
    secrets = [state.secrets_of(s) for s in range(PLAYERS)]
    for seat in range(PLAYERS):
        seen = state.view(seat).cards_seen()
        assert not seen & set(state.set_aside)
        assert not any(seen & secrets[o] for o in range(PLAYERS) if o != seat)


def invariants(deals: int, seed: int) -> tuple[int, float]:
    start = time.perf_counter()
    played = 0
    g = 0
    while played < deals:
        session = new_session(STANDARD, f"inv:{seed}:{g}", (CPU,) * PLAYERS, RANDOM)
        steps = 0
        while not session.is_over():
            assert session.step()
            session.state.check_invariants()
            steps += 1
            if steps % 9 == 0:
                check_hidden(session.state)
        state = session.state
        assert all(sum(r.tricks) == TRICKS and min(r.points) == 0 for r in state.results)
        played += len(state.results)
        g += 1
    return played, time.perf_counter() - start


def margin(games: int, seed: int) -> dict:
    wins = points = tricks = against_points = 0
    deals = 0
    start = time.perf_counter()
    for g in range(games):
        medium = g % 2
        opts = {"level": "medium", "against": "random", "test_seat": medium}   # medium: that team
        session = play_out(new_session(STANDARD, f"m:{seed}:{g}", (CPU,) * PLAYERS, opts), check=False)
        state = session.state
        wins += state.winning_team() == medium
        points += state.totals[medium]
        against_points += state.totals[1 - medium]
        tricks += sum(r.tricks[medium] for r in state.results)
        deals += len(state.results)
    return {"games": games, "wins": wins, "win_rate": wins / games, "points": points / games,
            "random_points": against_points / games, "tricks_per_deal": tricks / deals,
            "seconds": time.perf_counter() - start}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed-games", type=int, default=250, help="games for the speed figure")
    ap.add_argument("--deals", type=int, default=10_000, help="checked random deals")
    ap.add_argument("--games", type=int, default=1_000, help="medium-against-random games")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    deals, seconds = speed(args.speed_games, args.seed)
    print(f"speed: {deals} random deals through the session in {seconds:.1f} s: "
          f"{deals / seconds:.0f} deals/s (no checks)", flush=True)
    deals, seconds = invariants(args.deals, args.seed)
    print(f"invariants: {deals} random deals checked after every action "
          f"(hidden cards every 9th) in {seconds:.1f} s: all held", flush=True)
    m = margin(args.games, args.seed)
    print(f"margin: medium CPUs against random CPUs, {m['games']} games (sides alternate): "
          f"medium wins {m['wins']} ({m['win_rate']:.1%}); points a game {m['points']:.1f} "
          f"against {m['random_points']:.1f}; {m['tricks_per_deal']:.2f} of 9 tricks a deal "
          f"({m['seconds']:.1f} s)")


if __name__ == "__main__":
    main()
