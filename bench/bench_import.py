"""Bench: import 101 MP3 readings of ~16 s, and measure the marks against the truth.

Builds 101 synthetic readings (tests/fixtures_audio.py: the real mora
structure of the joka and poems 1-100, seeded random rhythm, exact onsets
known), writes them as 44.1 kHz stereo MP3 (kept in a cache folder: encoding
takes longer than importing), imports them with
`audio.importer.import_readings` and prints:
- the import's wall time, CPU time (all threads) and the process's peak
  resident memory, with the load average (the machine is shared: a wall time
  measured under load is not the quiet figure; CPU seconds are less affected).
  Target (issue 23): under 4 s wall for the 101 files on 2 quiet cores; the
  first build took 6.1 s wall / 8.4 s CPU on the real reader's 101 MP3s.
  Measured 2026-11-27 on this material, machine shared (load average 3.9-4.6
  on 2 cores, so no quiet wall figure): CPU 7.9-8.8 s, wall 7.9-16.7 s, peak
  434 MB before the mora programme read its rows from a padded copy instead
  of a gather; after it (marks identical on all 101), CPU 8.0 s with 4
  threads, 7.4 s with one; the analysis alone in one thread 6.16 -> 5.5 s.
  Then the programme's table laid out onset frames x durations (a contiguous
  reduction): 40 files in one thread, best of 3, 2.59 s CPU (main before
  issue 23) -> 2.13 s; the whole bench CPU 7.2 s, wall 7.4 s at load 4.4.
  Worker processes instead of threads were tried: 0.8 s more CPU to start
  them and no wall time won under that load; not kept.
  2026-11-27 18:22 UTC, the quietest moment of that day (load average 0.8 before,
  1.1 after, other sessions sharing the 2 cores): wall 4.29 s, CPU 6.86 s, peak
  422 MB (`--speech 0 --cache DIR`, MP3 files made beforehand).
  Lower FLAC compression in the clip writer, measured alone on 22 clips of 7.8 s
  at 48 kHz (best of 3): libsndfile's default 4.07 ms CPU a clip, 387 kB;
  compression_level=0.0 3.71 ms, 401 kB. For the 202 clips of an import that is
  0.07 s of 6.9 s CPU (1 %) for files 4 % larger: not taken;
- the split error (kami start/end, shimo start/end) against the truth;
- the mora-onset error and the kimariji-mark error against the truth;
- with --speech N (default 20; 0 skips): the same marks on speech, N poems
  read by the project's synthesised voice (`audio.synth.SynthVoice`, whose
  clips carry the marks it imposed), joined as kami + 1 s pause + shimo.
  Conventions differ a little: the synth marks a vowel after a vowel at the
  bottom of its loudness dip and a nasal at its start, the importer at the
  first clear change it can hear. Rendering costs ~0.8 s a poem.

Marks on legato readings (the real reader's manner, the synthesised chant): bench_import_marks.py.

Run: python bench/bench_import.py [--files N] [--workers W] [--cache DIR] [--speech N]
(--cache: where the MP3 files are kept and reused, default a folder in the
system's temp dir; --speech 0 skips the synthesised speech.)
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def _one(args: tuple[int, Path]):
    """Make (or find) the MP3 of poem `no`; its truth without the samples."""
    import soundfile as sf
    import soxr

    from fixtures_audio import poem_reading
    no, folder = args
    r = poem_reading(no, seed=1000 + no, mora_s=(0.26, 0.36))  # ~16 s a poem
    path = folder / (f"Hyakunin_Isshu ({no}).mp3" if no else "joka.mp3")
    if not path.exists():  # from --cache
        x = soxr.resample(r.samples, r.rate, 44100)
        stereo = np.stack([x, 0.9 * x], axis=1)
        sf.write(str(path), stereo, 44100, format="MP3")
    seconds = len(r.samples) / r.rate
    r.samples = r.samples[:0]   # the import's peak memory is measured in this process
    return no, (r, seconds)


def build(folder: Path, count: int) -> dict:
    """Truth (and length in seconds) of the joka and poems 1..count-1, by number; the
    readings are made in worker processes so their samples do not count in this one's
    peak memory."""
    with ProcessPoolExecutor(os.cpu_count(), mp_context=get_context("spawn")) as pool:
        return dict(pool.map(_one, [(no, folder) for no in range(count)]))


def stats(errors_ms: np.ndarray) -> str:
    a = np.abs(errors_ms)
    return (f"median |err| {np.median(a):5.1f} ms, mean err {np.mean(errors_ms):+5.1f} ms, "
            f"p90 {np.percentile(a, 90):5.1f} ms, p99 {np.percentile(a, 99):5.1f} ms, max {a.max():5.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=101, help="the joka and poems 1..N-1")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--cache", type=Path, default=None, help="keep and reuse the MP3 files here")
    ap.add_argument("--speech", type=int, default=20, help="poems of synthesised speech to check marks on")
    args = ap.parse_args()
    import poems
    from audio.importer import import_readings

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["KARUTA_DATA_DIR"] = str(tmp / "data")
        src = args.cache or Path(tempfile.gettempdir()) / f"karuta-bench-import-{args.files}"
        src.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        built = build(src, args.files)
        truth = {no: r for no, (r, _) in built.items()}
        names = {"joka.mp3" if no == 0 else f"Hyakunin_Isshu ({no}).mp3" for no in truth}
        sizes = [(src / n).stat().st_size for n in names]
        durs = [s for _, s in built.values()]
        print(f"built or found {len(truth)} MP3 files in {src} in {time.perf_counter() - t:.1f} s "
              f"(mean {np.mean(durs):.1f} s of audio, {np.mean(sizes) / 1e3:.0f} kB each)")

        load = os.getloadavg()
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        t_cpu = time.process_time()
        report = import_readings(src, "bench", workers=args.workers)
        total = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # the import's worker processes count too (reaped when its pool closed)
        cpu = time.process_time() - t_cpu + (after.ru_utime + after.ru_stime) - (kids.ru_utime + kids.ru_stime)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        child_mb = after.ru_maxrss / 1024 if after.ru_maxrss != kids.ru_maxrss else 0.0
        n_files = len(names)
        print(f"import of {n_files} files: wall {total:.2f} s ({1000 * total / n_files:.0f} ms per file), "
              f"CPU {cpu:.2f} s (all threads and worker processes), peak memory {peak_mb:.0f} MB "
              f"(this process's resident set; the largest worker process's: {child_mb:.0f} MB); "
              f"{len(report.poems)} imported, {len(report.failed)} failed, "
              f"{sum(1 for p in report.poems if p.warnings)} with warnings; "
              f"{os.cpu_count()} cpus, load average {load[0]:.1f} before, {os.getloadavg()[0]:.1f} after")

        split, mora, kimariji = [], [], []
        for p in report.poems:
            if p.no not in truth or p.no == 0:  # a --cache folder from a run with more --files; the joka
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
