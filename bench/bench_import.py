"""Bench: import 100 MP3 readings of ~16 s, and measure the marks against the truth.

Builds 100 synthetic readings (tests/fixtures_audio.py: the real mora
structure of poems 1-100, seeded random rhythm, exact onsets known), writes
them as 44.1 kHz stereo MP3 in a temp dir, imports them with
`audio.importer.import_readings` and prints:
- the import's total wall time and per-file mean (target: <= 10 s for 100);
- the split error (kami start/end, shimo start/end) against the truth;
- the mora-onset error and the kimariji-mark error against the truth.

Run: /tmp/venv/bin/python bench/bench_import.py [--files N] [--workers W] [--cache DIR]
(--cache keeps the MP3 files in DIR and reuses them next time: encoding them
takes longer than importing them.)
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def build(folder: Path, count: int) -> dict:
    import soundfile as sf
    import soxr

    from fixtures_audio import poem_reading

    def one(no: int):
        r = poem_reading(no, seed=1000 + no, mora_s=(0.26, 0.36))  # ~16 s a poem
        path = folder / f"Hyakunin_Isshu ({no}).mp3"
        if path.exists():  # from --cache
            return no, r
        x = soxr.resample(r.samples, r.rate, 44100)
        stereo = np.stack([x, 0.9 * x], axis=1)
        sf.write(str(path), stereo, 44100, format="MP3")
        return no, r

    with ThreadPoolExecutor(os.cpu_count()) as pool:
        return dict(pool.map(one, range(1, count + 1)))


def stats(errors_ms: np.ndarray) -> str:
    a = np.abs(errors_ms)
    return (f"median |err| {np.median(a):5.1f} ms, mean err {np.mean(errors_ms):+5.1f} ms, "
            f"p90 {np.percentile(a, 90):5.1f} ms, p99 {np.percentile(a, 99):5.1f} ms, max {a.max():5.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--cache", type=Path, default=None, help="keep and reuse the MP3 files here")
    args = ap.parse_args()
    import poems
    from audio.importer import import_readings

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["KARUTA_DATA_DIR"] = str(tmp / "data")
        src = args.cache or tmp / "mp3"
        src.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        truth = build(src, args.files)
        sizes = [p.stat().st_size for p in src.glob("*.mp3")]
        durs = [len(r.samples) / r.rate for r in truth.values()]
        print(f"built or found {len(truth)} MP3 files in {time.perf_counter() - t:.1f} s "
              f"(mean {np.mean(durs):.1f} s of audio, {np.mean(sizes) / 1e3:.0f} kB each)")

        t = time.perf_counter()
        t_cpu = time.process_time()
        report = import_readings(src, "bench", workers=args.workers)
        cpu = time.process_time() - t_cpu
        total = time.perf_counter() - t
        print(f"import: {total:.2f} s total, {1000 * total / len(truth):.0f} ms per file "
              f"({len(report.poems)} imported, {len(report.failed)} failed, "
              f"{sum(1 for p in report.poems if p.warnings)} with warnings; "
              f"process CPU {cpu:.2f} s; cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})")

        split, mora, kimariji = [], [], []
        for p in report.poems:
            r = truth[p.no]
            split.append([p.kami_start_s - r.kami_start, p.kami_end_s - r.kami_end,
                          p.shimo_start_s - r.shimo_start, p.shimo_end_s - r.shimo_end])
            clip_start = p.kami_start_s - p.kami.marks["mora:0"] / p.kami.rate
            marks = np.array(p.kami.mora_marks()) / p.kami.rate + clip_start
            if len(marks) == len(r.kami_onsets):
                mora.append(marks - np.array(r.kami_onsets))
                k = poems.get(p.no).kimariji_mora_count() - 1
                kimariji.append(p.kimariji_mark_s - r.kami_onsets[k])
        split = 1000 * np.array(split)
        for i, label in enumerate(("kami start", "kami end", "shimo start", "shimo end")):
            within = np.mean(np.abs(split[:, i]) <= 50) * 100
            print(f"split {label:11}: {stats(split[:, i])}; within 50 ms: {within:.0f}%")
        m = 1000 * np.concatenate(mora)
        print(f"kami mora onsets ({len(m)}): {stats(m)}; within 50 ms: {np.mean(np.abs(m) <= 50) * 100:.1f}%")
        k = 1000 * np.array(kimariji)
        print(f"kimariji marks ({len(k)}): {stats(k)}; within 50 ms: {np.mean(np.abs(k) <= 50) * 100:.1f}%")
        for p in report.poems:
            for w in p.warnings:
                print(f"  warning, poem {p.no}: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
