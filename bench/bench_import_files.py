"""Bench: peak memory of an import by the number of files (issue 24).

The memory of an import must be bounded by its largest file, not by how many
files it holds: an import used to keep every poem's clips until the end (314 MB
for 101 poems, 725 MB for eight 4.9-minute files). For each case a folder of
synthetic readings (tests/fixtures_audio.py) is made and `karuta import-readings`
runs on it in a fresh process under ``/usr/bin/time -v`` (apt package ``time``).
Printed per case: files, their total length, the peak resident memory, the exit
code and the wall time.

Cases: 1, 25 and 101 one-poem files (about 20 s each), and 1 and 8 long files
(4.9 minutes each: readings of one poem laid end to end).

Run: python bench/bench_import_files.py [--cases short1 short25 short101 long1 long8]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

CASES = {"short1": ("short", 1), "short25": ("short", 25), "short101": ("short", 101),
         "long1": ("long", 1), "long8": ("long", 8)}
LONG_MIN = 4.9


def make_folder(folder: Path, kind: str, n: int) -> float:
    """The case's files in `folder`; returns their total length in minutes."""
    import soundfile as sf
    from bench_import_memory import long_reading
    from fixtures_audio import RATE, poem_reading
    folder.mkdir()
    total = 0
    for k in range(n):
        no = k if kind == "short" else k + 1      # 0 is the joka: 101 files are joka + 100
        samples = poem_reading(max(no, 1), seed=k).samples if kind == "short" else long_reading(LONG_MIN)
        sf.write(str(folder / (f"{no:03d}.flac")), samples, RATE, format="FLAC")
        total += len(samples)
    return total / RATE / 60


def main() -> int:
    from bench_import_memory import TIME, measure
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    args = ap.parse_args()
    if not Path(TIME).exists():
        print(f"{TIME} is missing: apt-get install time", file=sys.stderr)
        return 1
    print(f"{'case':>9} {'files':>5} {'minutes':>7} {'peak MB':>8} {'exit':>4} {'wall s':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.cases:
            kind, n = CASES[name]
            folder = Path(tmp, name, "src")
            folder.parent.mkdir()
            minutes = make_folder(folder, kind, n)
            peak, status, secs, _ = measure(folder / "x", Path(tmp, name, "data"))
            print(f"{name:>9} {n:5d} {minutes:7.1f} {peak:8.0f} {status:4d} {secs:7.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
