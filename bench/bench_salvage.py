"""Salvage of a partly damaged statistics database: how much comes back, how fast.

    python bench/bench_salvage.py [--trials 450000] [--bad-pages 20] [--seed 0]

Builds a store of N trials (bench_stats' generator), scribbles over
--bad-pages leaf pages of the trials table (chosen at random, as a failing
disk would), then prints:
  salvage   trainer.stats.salvage.read_rows: trials recovered, seconds
  .dump     `sqlite3 FILE .dump` (the CLI, if installed): trials in its INSERTs
  .recover  `sqlite3 FILE .recover`: the same
  lost      trials the bad pages held (from dbstat before the damage)
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def cli_count(path: Path, command: str) -> str:
    if not shutil.which("sqlite3"):
        return "not installed"
    proc = subprocess.run(["sqlite3", str(path), command], capture_output=True, text=True,
                          errors="replace")
    n = sum(1 for line in proc.stdout.splitlines()
            if line.startswith(('INSERT INTO trials', 'INSERT INTO "trials"')))
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    return f"{n:,} trials" + (f" (stderr: {errors[0][:60]})" if errors else "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=450_000)
    ap.add_argument("--bad-pages", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    from bench_stats import build
    from trainer.stats.salvage import read_rows

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stats.sqlite3"
        os.environ["KARUTA_DATA_DIR"] = tmp
        build(path, a.trials, a.seed)
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        leaves = [r[0] for r in conn.execute(
            "SELECT pageno FROM dbstat WHERE name='trials' AND pagetype='leaf'")]
        cells = dict(conn.execute(
            "SELECT pageno, ncell FROM dbstat WHERE name='trials' AND pagetype='leaf'"))
        total = conn.execute("SELECT count(*) FROM trials").fetchone()[0]
        conn.close()
        bad = random.Random(a.seed).sample(leaves, a.bad_pages)
        data = bytearray(path.read_bytes())
        rng = random.Random(a.seed + 1)
        for p in bad:
            data[(p - 1) * page_size: p * page_size] = rng.randbytes(page_size)
        path.write_bytes(bytes(data))
        lost = sum(cells[p] for p in bad)

        t0 = time.perf_counter()
        rows, report = read_rows(path)
        dt = time.perf_counter() - t0
        print(f"trials            {total:,} in {len(leaves):,} leaf pages; "
              f"{a.bad_pages} pages scribbled holding {lost:,} trials")
        print(f"salvage           {len(rows['trials']):,} trials recovered "
              f"(of {total - lost:,} on undamaged pages) in {dt:.2f} s")
        for cmd in (".dump", ".recover"):
            print(f"sqlite3 {cmd:<9} {cli_count(path, cmd)}")


if __name__ == "__main__":
    main()
