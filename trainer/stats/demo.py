"""A simulated month of practice, for screenshots, tests and trying the dashboard.

A player who practises most days: a few sessions a day over the drills and
matches, each card with its own difficulty (some cards stay weak), reactions
getting faster over the month, faults of the kinds each drill counts. Trials
are written with their past dates (``Trial.at``) and one session per run, and
the memorisation drills also feed the FSRS schedule, on a fake clock.

    python -m trainer.stats.demo /tmp/demo.sqlite3 [days]
"""
from __future__ import annotations

import random
import sys
import time

from trainer.stats.store import StatsStore, Trial

BASE_MS = {"fuda_nagashi": 2100.0, "kami_to_torifuda": 750.0, "listening_reflex": 480.0,
           "kimariji_henka": 2600.0, "positional": 900.0, "match": 560.0}
FAULTS = {"kami_to_torifuda": ("otetsuki",), "listening_reflex": ("karafuda", "wrong_card"),
          "positional": ("wrong_place", "karafuda"), "match": ("otetsuki",)}
SESSION_TRIALS = {"fuda_nagashi": 50, "kami_to_torifuda": 20, "listening_reflex": 16,
                  "kimariji_henka": 18, "positional": 12, "match": 40}


def simulate(store: StatsStore, days: int = 30, seed: int = 0, end: float | None = None) -> int:
    """Write `days` days of practice ending at `end` (default now); returns the trial count."""
    from trainer.stats.srs import Memorisation
    rng = random.Random(seed)
    end = time.time() if end is None else end
    difficulty = {c: rng.lognormvariate(0.0, 0.25) for c in range(1, 101)}
    for c in rng.sample(range(1, 101), 8):      # a few cards the player keeps missing
        difficulty[c] *= 1.6
    clock = [end - days * 86400]
    memo = Memorisation(store, now=lambda: clock[0], fuzz=False)
    total = 0
    for day in range(days):
        if rng.random() < 0.15:
            continue                            # a day off
        progress = day / max(1, days - 1)
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(list(BASE_MS))
            at = end - (days - day) * 86400 + rng.uniform(18, 22) * 3600
            session = store.begin_session(kind, None, at=at)
            trials = []
            for k in range(SESSION_TRIALS[kind]):
                card = rng.randint(1, 100)
                d = difficulty[card]
                p_wrong = min(0.6, 0.05 * d ** 3 * (1.2 - 0.4 * progress))
                correct = rng.random() >= p_wrong
                speedup = 1.0 - 0.18 * progress
                rt = BASE_MS[kind] * d * speedup * rng.lognormvariate(0.0, 0.22)
                if kind in ("listening_reflex", "match") and rng.random() < 0.04:
                    rt = -rng.uniform(20, 150)   # an anticipation
                fault = None
                if not correct and kind in FAULTS and rng.random() < 0.7:
                    fault = rng.choice(FAULTS[kind])
                t = at + k * 4.0
                answered = kind in ("fuda_nagashi", "kimariji_henka")   # timed even when wrong
                trials.append(Trial(kind, card, correct, None,
                                    round(rt, 1) if correct or fault or answered else None,
                                    fault, "synth", session, t))
                if kind in ("fuda_nagashi", "kami_to_torifuda"):
                    clock[0] = t
                    memo.review(card, kind, correct, rt if correct else None)
            total += store.record_many(trials)
    return total


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip())
        return 2
    days = int(argv[1]) if len(argv) > 1 else 30
    with StatsStore.open(argv[0]) as store:
        n = simulate(store, days)
    print(f"{n} trials over {days} days in {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
