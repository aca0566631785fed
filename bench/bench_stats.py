"""Statistics store at scale: open + dashboard aggregates on a million trials.

    /tmp/venv/bin/python bench/bench_stats.py [--trials 1000000] [--db PATH] [--repeat 3]

Builds a store of N trials (two years of practice: sessions of 50 trials over
six drill kinds and matches, ~5 % faults, per-card skill so some cards are
weak) with the bulk loader, then, in a fresh process each time, times:
  open       StatsStore.open() with its default checks
  dashboard  dashboard_data(store): everything the dashboard draws
The target is open + dashboard <= 1 s (the UI's drawing comes on top).
Also printed, for information: open with the full quick_check forced.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KINDS = ("fuda_nagashi", "kami_to_torifuda", "listening_reflex", "kimariji_henka",
         "positional", "match")
BASE_MS = {"fuda_nagashi": 1800.0, "kami_to_torifuda": 700.0, "listening_reflex": 450.0,
           "kimariji_henka": 2500.0, "positional": 800.0, "match": 500.0}
SESSION_LEN = 50


def build(path: Path, n_trials: int, seed: int = 0) -> float:
    import numpy as np
    from trainer.stats.store import StatsStore, local_day

    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    store = StatsStore.open(path)
    n_sessions = (n_trials + SESSION_LEN - 1) // SESSION_LEN
    now = time.time()
    start = now - 730 * 86400
    session_at = np.sort(rng.uniform(start, now, n_sessions))
    session_kind = rng.integers(0, len(KINDS), n_sessions)
    with store.transaction() as conn:
        conn.executemany("INSERT INTO sessions (id, kind, started, settings) VALUES (?,?,?,NULL)",
                         ((i + 1, KINDS[k], float(at)) for i, (k, at) in
                          enumerate(zip(session_kind.tolist(), session_at.tolist()))))
    skill = rng.uniform(0.7, 1.6, 101)           # per-card slowness factor
    idx = np.arange(n_trials)
    sess = idx // SESSION_LEN
    at = session_at[sess] + (idx % SESSION_LEN) * 2.5
    kind_i = session_kind[sess]
    card = rng.integers(1, 101, n_trials)
    base = np.array([BASE_MS[k] for k in KINDS])[kind_i]
    rt = base * skill[card] * rng.lognormal(0.0, 0.3, n_trials)
    p_wrong = 0.04 + 0.08 * (skill[card] - 0.7)
    correct = rng.random(n_trials) >= p_wrong
    fault = np.where(~correct & (rng.random(n_trials) < 0.6), 1, 0)
    days = {}

    def day_of(t: float) -> int:
        key = int(t // 3600)
        if key not in days:
            days[key] = local_day(t)
        return days[key]

    rows = ((float(a), day_of(a), KINDS[k], int(s) + 1, int(c), None, int(ok), float(r),
             "otetsuki" if f else None, "synth")
            for a, k, s, c, ok, r, f in zip(at.tolist(), kind_i.tolist(), sess.tolist(),
                                            card.tolist(), correct.tolist(), rt.tolist(),
                                            fault.tolist()))
    store.bulk_load_rows(rows)
    with store.transaction() as conn:  # memorisation states for all 100 cards
        conn.executemany("INSERT INTO srs_cards VALUES (?, 2, NULL, 10.0, 5.0, ?, ?)",
                         [(c, now + rng.uniform(-3, 20) * 86400, now - 86400) for c in range(1, 101)])
    store.close()
    return time.perf_counter() - t0


def measure(path: Path, deep_check: str) -> dict:
    """Run in a fresh process so nothing is cached in Python (the OS page cache is warm)."""
    code = f"""
import json, time
t0 = time.perf_counter()
from trainer.stats.store import StatsStore
from trainer.stats.aggregates import dashboard_data
t_import = time.perf_counter() - t0
t0 = time.perf_counter()
store = StatsStore.open({str(path)!r}, deep_check={deep_check})
t_open = time.perf_counter() - t0
t0 = time.perf_counter()
d = dashboard_data(store)
t_dash = time.perf_counter() - t0
print(json.dumps(dict(imports=t_import, open=t_open, dashboard=t_dash, trials=d.total_trials,
      weakest=list(d.weakest[:5]), days=len({{p.day for p in d.trend}}), faults=d.faults,
      damaged=store.recovery_message)))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1_000_000)
    ap.add_argument("--db", type=Path, default=None, help="build here and keep it (default: a temp dir)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    tmp = None
    if args.db is None:
        tmp = tempfile.TemporaryDirectory(prefix="bench_stats_")
        path = Path(tmp.name) / "stats.sqlite3"
    else:
        path = args.db
        if path.exists():
            sys.exit(f"{path} exists; choose a new path")
    print(f"building {args.trials:,} trials in {path} ...", flush=True)
    t_build = build(path, args.trials)
    size_mb = os.path.getsize(path) / 2**20
    print(f"build (bulk insert + summaries): {t_build:.1f} s, file {size_mb:.0f} MB")

    best = None
    for k in range(args.repeat):
        r = measure(path, "None")
        total = r["open"] + r["dashboard"]
        print(f"run {k + 1}: open {r['open'] * 1000:.1f} ms, dashboard_data "
              f"{r['dashboard'] * 1000:.1f} ms, total {total * 1000:.1f} ms "
              f"(imports {r['imports'] * 1000:.0f} ms, not counted)")
        best = total if best is None else min(best, total)
        assert r["trials"] == args.trials and not r["damaged"], r
    print(f"trials seen by the dashboard: {r['trials']:,}; days in the trend: {r['days']}; "
          f"weakest: {r['weakest']}; faults: {r['faults']}")
    full = measure(path, "True")
    print(f"for information, open with the full quick_check: {full['open'] * 1000:.0f} ms")
    verdict = "OK" if best <= 1.0 else "OVER"
    print(f"open + dashboard_data (best of {args.repeat}): {best * 1000:.1f} ms  "
          f"[target <= 1000 ms: {verdict}]")
    if tmp is not None:
        tmp.cleanup()
    return 0 if best <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
