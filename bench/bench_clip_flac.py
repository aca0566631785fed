"""Bench: what the FLAC compression level costs the importer's clip writer (issue 23).

The importer writes each verse as a 16-bit FLAC clip (`audio.importer._write_clips`,
libsndfile's default compression). This writes 22 clips of the synthetic reader
(tests/fixtures_audio.py, ~7.8 s each at 48 kHz: halves of 11 readings) at several
`compression_level`s and prints the CPU per clip (best of 3) and the size.

Measured 2026-11-27 (machine shared, CPU time): default 4.07 ms a clip, 387 kB;
0.0 3.71 ms, 401 kB; 0.25 3.77 ms, 401 kB; 0.5 4.08 ms, 388 kB. An import writes 202
clips: level 0 would save 0.07 s of its ~6.9 s CPU (1 %) for files 4 % larger, so the
importer keeps the default.

Run: python bench/bench_clip_flac.py
"""
from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main() -> None:
    import soundfile as sf

    from fixtures_audio import poem_reading
    clips = []
    for no in range(0, 101, 10):
        r = poem_reading(no, seed=1000 + no, mora_s=(0.26, 0.36))
        half = len(r.samples) // 2
        clips += [r.samples[:half].astype(np.float32), r.samples[half:].astype(np.float32)]
    rate = r.rate
    print(f"{len(clips)} clips at {rate} Hz, mean {np.mean([len(c) for c in clips]) / rate:.1f} s")
    for level in (None, 0.0, 0.25, 0.5):
        best, size = float("inf"), 0
        for _ in range(3):
            t0, size = time.process_time(), 0
            for c in clips:
                b = io.BytesIO()
                kw = {} if level is None else {"compression_level": level}
                sf.write(b, c, rate, format="FLAC", subtype="PCM_16", **kw)
                size += b.getbuffer().nbytes
            best = min(best, time.process_time() - t0)
        name = "default" if level is None else f"{level}"
        print(f"compression_level {name}: CPU {best * 1000 / len(clips):.2f} ms a clip (best of 3), "
              f"{size / len(clips) / 1024:.0f} kB a clip; 202 clips: {best * 202 / len(clips):.2f} s")


if __name__ == "__main__":
    main()
