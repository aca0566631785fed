"""How fast the kyōgi match session plays all-CPU matches (the simulator's and the tests' loop).

Prints ms per match for the short seeded endgames of tests/test_kyogi_session.py
(1-8 cards a side, floor cards read early) and for whole 25 + 25 matches, with
the nominal timing and with the programme timing, invariants checked after every step.

    PYTHONPATH=$PWD python bench/bench_kyogi_session.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_kyogi_session import _short_match  # noqa: E402

from trainer.sim import kyogi_sim  # noqa: E402


def per_match(label: str, n: int, play) -> None:
    t0 = time.perf_counter()
    reads = sum(play(k) for k in range(n))
    dt = time.perf_counter() - t0
    print(f"{label:44} {n:5} matches  {1000 * dt / n:7.2f} ms/match  {1e6 * dt / reads:6.0f} µs/read "
          f"({reads / n:.1f} reads/match)")


def short(k: int) -> int:
    session, clock = _short_match(k)
    kyogi_sim.play_session(session, clock, kyogi_sim.NominalTiming(), check=True)
    return len(session.state.read)


def whole(timing):
    return lambda k: len(kyogi_sim.play_game(k, ("club", "strong"), timing, check=True).state.read)


if __name__ == "__main__":
    per_match("short endgames (the test's 1,000), nominal", 1000, short)
    per_match("whole matches, nominal timing", 100, whole(kyogi_sim.NominalTiming()))
    per_match("whole matches, programme timing", 100, whole(kyogi_sim.ProgrammeTiming()))
