"""Bench: import 100 MP3 readings of ~16 s, and measure the marks against the truth.

Builds 100 synthetic readings (tests/fixtures_audio.py: the real mora
structure of poems 1-100, seeded random rhythm, exact onsets known), writes
them as 44.1 kHz stereo MP3 in a temp dir, imports them with
`audio.importer.import_readings` and prints:
- the import's total wall time and per-file mean (target: <= 10 s for 100);
- the split error (kami start/end, shimo start/end) against the truth;
- the mora-onset error and the kimariji-mark error against the truth;
- with --speech N (default 20; 0 skips): the same marks on speech, N poems
  read by the project's synthesised voice (`audio.synth.SynthVoice`, whose
  clips carry the marks it imposed), joined as kami + 1 s pause + shimo.
  Conventions differ a little: the synth marks a vowel after a vowel at the
  bottom of its loudness dip and a nasal at its start, the importer at the
  first clear change it can hear. Rendering costs ~0.8 s a poem.

Marks on legato readings (the real reader's manner, the synthesised chant): bench_import_marks.py.

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
    ap.add_argument("--speech", type=int, default=20, help="poems of synthesised speech to check marks on")
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
        n_files = len(list(src.glob("*.mp3")))
        print(f"import of {n_files} files: {total:.2f} s total, {1000 * total / n_files:.0f} ms per file "
              f"({len(report.poems)} imported, {len(report.failed)} failed, "
              f"{sum(1 for p in report.poems if p.warnings)} with warnings; "
              f"process CPU {cpu:.2f} s; cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})")

        split, mora, kimariji = [], [], []
        for p in report.poems:
            if p.no not in truth:  # a --cache folder from a run with more --files
                continue
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
        if args.speech:
            speech(args.speech)
    return 0


def speech(count: int) -> None:
    """Marks on synthesised speech against the synth's own marks."""
    try:
        from audio.synth import SynthVoice
    except ImportError as exc:
        print(f"speech: skipped ({exc})")
        return
    from audio.importer import analyse_whole
    voice, rate = SynthVoice(), 48000
    errors, kimariji, split = [], [], []
    t = time.perf_counter()
    for no in np.linspace(1, 100, count).round().astype(int):
        kami, shimo = voice.kami(int(no)), voice.shimo(int(no))
        lead, pause = np.zeros(rate // 2, np.float32), np.zeros(rate, np.float32)
        x = np.concatenate([lead, kami.samples, pause, shimo.samples, lead])
        x += np.random.default_rng(int(no)).standard_normal(len(x)).astype(np.float32) * 1e-4
        k0 = len(lead) / rate
        s0 = (len(lead) + len(kami.samples) + len(pause)) / rate
        got_kami, got_shimo, _ = analyse_whole(int(no), x)
        truth = np.array(kami.mora_marks()) / rate + k0
        got = np.array([got_kami.mark_s[f"mora:{i}"] for i in range(len(truth))])
        errors.append(got - truth)
        kimariji.append(got_kami.mark_s["kimariji"] - (k0 + kami.marks["kimariji"] / rate))
        split.append([got_kami.start_s - (k0 + kami.marks["mora:0"] / rate),
                      got_shimo.start_s - (s0 + shimo.marks["mora:0"] / rate)])
    print(f"speech: {count} poems of synthesised speech ({time.perf_counter() - t:.1f} s)")
    split = 1000 * np.array(split)
    for i, label in enumerate(("kami start", "shimo start")):
        print(f"speech split {label:11}: {stats(split[:, i])}")
    m = 1000 * np.concatenate(errors)
    print(f"speech kami mora onsets ({len(m)}): {stats(m)}; within 50 ms: {np.mean(np.abs(m) <= 50) * 100:.1f}%")
    k = 1000 * np.array(kimariji)
    print(f"speech kimariji marks ({len(k)}): {stats(k)}; within 50 ms: {np.mean(np.abs(k) <= 50) * 100:.1f}%")


if __name__ == "__main__":
    sys.exit(main())
