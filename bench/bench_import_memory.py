"""Bench: peak memory of importing one long recording, by its length.

For each length (minutes) a file is made from synthetic readings
(tests/fixtures_audio.py) laid end to end with 1 s gaps, so its verses are as
long as the file allows, and `karuta import-readings` runs on it alone in a
fresh process under ``/usr/bin/time -v`` (apt package ``time``). Printed per
length: the peak resident memory of that process, its exit code, its wall
time and the line the import printed for the file.

Before the fix (issue 11, finding 4) the mora placement's tables grew with the
square of a verse's length: 1 min 229 MB, 2 min 466 MB, 4 min 2.36 GB, 20 min
killed at 23.6 GB. Target: under 600 MB whatever the length (a file over
`audio.importer.MAX_FILE_S` is refused with a line saying so).

Run: python bench/bench_import_memory.py [--minutes 1 2 4 20] [--format flac|mp3]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
TIME = "/usr/bin/time"
TARGET_MB = 600


def long_reading(minutes: float) -> np.ndarray:
    """`minutes` of readings of poem 1 (different rhythms) with 1 s gaps."""
    from fixtures_audio import RATE, poem_reading
    total = int(minutes * 60 * RATE)
    out = np.zeros(total, np.float32)
    at, seed = 0, 0
    while at < total:
        r = poem_reading(1, seed=seed).samples.astype(np.float32)
        n = min(len(r), total - at)
        out[at:at + n] = r[:n]
        at += n + RATE
        seed += 1
    return out


def measure(path: Path, data_dir: Path) -> tuple[float, int, float, str]:
    """Peak RSS (MB), exit code, wall seconds and the file's report lines of one import."""
    code = ("import sys; from trainer.cli import main; "
            f"sys.exit(main(['import-readings', {str(path.parent)!r}, '--name', 'bench']))")
    env = {**os.environ, "KARUTA_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    r = subprocess.run([TIME, "-v", sys.executable, "-c", code], env=env,
                       capture_output=True, text=True)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", r.stderr).group(1)
    secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
    lines = [line.strip() for line in r.stdout.splitlines()
             if path.name in line or line.strip().startswith("!")]
    status = int(re.search(r"Exit status: (\d+)", r.stderr).group(1))
    return peak_kb / 1024, status, secs, " | ".join(lines)[:300]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, nargs="+", default=[1, 2, 4, 20])
    ap.add_argument("--format", choices=("flac", "mp3"), default="flac")
    args = ap.parse_args()
    if not Path(TIME).exists():
        print(f"{TIME} is missing: apt-get install time", file=sys.stderr)
        return 1
    import soundfile as sf
    from fixtures_audio import RATE
    worst = 0.0
    print(f"{'length':>8} {'peak MB':>8} {'exit':>4} {'wall s':>7}  line printed")
    with tempfile.TemporaryDirectory() as tmp:
        for minutes in args.minutes:
            src = Path(tmp, f"src{minutes:g}")
            src.mkdir()
            path = src / f"001.{args.format}"
            sf.write(str(path), long_reading(minutes), RATE, format=args.format.upper())
            peak, status, secs, line = measure(path, Path(tmp, f"data{minutes:g}"))
            worst = max(worst, peak)
            print(f"{minutes:6g} m {peak:8.0f} {status:4d} {secs:7.1f}  {line}", flush=True)
            path.unlink()
    print(f"worst peak {worst:.0f} MB (target: under {TARGET_MB} MB)")
    return 0 if worst < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
