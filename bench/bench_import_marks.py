"""Bench: the importer's marks on legato readings of all 100 poems and the joka (issue 12).

Two kinds of material, both with exactly known marks:
- "fixture": tests/fixtures_audio.real_reader_reading, formant-synthesised readings
  with the real reader's prosody (legato joins, phrase starts ~13 st low and
  rising, held phrase ends 0.77 s / 1.22 s; the joka kami · shimo · shimo);
- "chant": the synthesised voice (audio.synth, default ChantStyle) reading each
  poem, its kami- and shimo-no-ku joined as lead 0.5 s, kami, 1.0 s pause, shimo
  (the joka: kami, 0.73 s, shimo, 0.77 s, shimo again). Its clips carry the
  marks it imposed. Rendered into --cache (reused next time) or a temp folder.

Each reading is analysed by `audio.importer.analyse_whole` as an imported file is.
Printed per material: phrase starts within 80 ms (the issue's criterion: >= 95 %),
their median error; every kimariji mark's error (median, max, the poems over
80 ms); all mora onsets within 20 / 80 ms and their median; the poems with
marks flagged uncertain (and how many of those are really off).

Run: python bench/bench_import_marks.py [--material fixture chant] [--cache DIR] [--poems N]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

TOLERANCE_S = 0.08
RATE = 48000


@dataclass
class Truth:
    """A whole reading and its exact marks in file seconds."""
    samples: np.ndarray
    kami_onsets: list[float]
    shimo_onsets: list[float]
    kami_phrase_starts: list[float]
    shimo_phrase_starts: list[float]


@dataclass
class Errors:
    phrase: list[float] = field(default_factory=list)
    mora: list[float] = field(default_factory=list)
    kimariji: dict[int, float] = field(default_factory=dict)
    uncertain: dict[int, list[str]] = field(default_factory=dict)
    phrase_off: dict[int, float] = field(default_factory=dict)  # worst phrase-start error per poem


def fixture_reading(no: int) -> Truth:
    from fixtures_audio import real_reader_reading
    r = real_reader_reading(no)
    return Truth(r.samples, r.kami_onsets, r.shimo_onsets, r.kami_phrase_starts, r.shimo_phrase_starts)


def chant_readings(numbers: list[int], cache: Path) -> dict[int, Truth]:
    """The synthesised voice's readings, joined into one file each, with its marks."""
    from audio.cache import ClipCache
    from audio.synth import SynthVoice, synthesize_all
    voice = SynthVoice(cache=ClipCache(cache))
    synthesize_all(voice=voice, poems_to_do=numbers)
    out = {}
    for no in numbers:
        kami, shimo = voice.kami(no), voice.shimo(no)
        parts, pos = [np.zeros(RATE // 2, np.float32), kami.samples], RATE // 2
        k0 = pos / RATE
        pos += len(kami.samples)
        s0 = None
        for pause in ((0.73, 0.77) if no == 0 else (1.0,)):
            parts += [np.zeros(int(pause * RATE), np.float32), shimo.samples]
            pos += int(pause * RATE)
            s0 = pos / RATE if s0 is None else s0
            pos += len(shimo.samples)
        parts.append(np.zeros(RATE // 2, np.float32))
        x = np.concatenate(parts)
        x += np.random.default_rng(no).standard_normal(len(x)).astype(np.float32) * 1e-4

        def marks(clip, prefix, t0):
            return [t0 + v / RATE for k, v in sorted(((int(k.split(":")[1]), v) for k, v in clip.marks.items()
                                                      if k.startswith(prefix)))]
        out[no] = Truth(x, marks(kami, "mora:", k0), marks(shimo, "mora:", s0),
                        marks(kami, "phrase:", k0), marks(shimo, "phrase:", s0))
    return out


def measure(numbers: list[int], reading) -> tuple[Errors, float]:
    import poems
    from audio.importer import _uncertain, analyse_whole
    e = Errors()
    t = time.perf_counter()
    for no in numbers:
        r = reading(no)
        kami, shimo, _ = analyse_whole(no, r.samples)
        got = [kami.mark_s[f"phrase:{i}"] for i in range(3)] + [shimo.mark_s[f"phrase:{i}"] for i in range(2)]
        err = np.array(got) - np.array(r.kami_phrase_starts + r.shimo_phrase_starts)
        e.phrase += err.tolist()
        e.phrase_off[no] = float(np.max(np.abs(err)))
        for verse, truth in ((kami, r.kami_onsets), (shimo, r.shimo_onsets)):
            e.mora += [verse.mark_s[f"mora:{i}"] - t for i, t in enumerate(truth)]
        if no:
            k = poems.get(no).kimariji_mora_count() - 1
            e.kimariji[no] = kami.mark_s["kimariji"] - r.kami_onsets[k]
        doubts = _uncertain(no, kami, shimo)
        if doubts:
            e.uncertain[no] = doubts
    return e, time.perf_counter() - t


def report(name: str, e: Errors, seconds: float) -> None:
    ph = 1000 * np.abs(np.array(e.phrase))
    mo = 1000 * np.abs(np.array(e.mora))
    kim = {no: 1000 * v for no, v in e.kimariji.items()}
    k = np.abs(np.array(list(kim.values())))
    over = sorted((no for no, v in kim.items() if abs(v) > 1000 * TOLERANCE_S), key=lambda n: -abs(kim[n]))
    worst = max(kim, key=lambda n: abs(kim[n]))
    print(f"{name}: {len(e.phrase_off)} readings analysed in {seconds:.1f} s")
    print(f"  phrase starts ({len(ph)}): within 80 ms {np.mean(ph <= 80) * 100:.1f} %, "
          f"median {np.median(ph):.1f} ms, p95 {np.percentile(ph, 95):.0f} ms, max {ph.max():.0f} ms")
    print(f"  kimariji marks ({len(k)}): within 80 ms {np.mean(k <= 80) * 100:.1f} %, "
          f"median {np.median(k):.1f} ms, max {k.max():.0f} ms (poem {worst}, {kim[worst]:+.0f} ms); "
          f"over 80 ms: {', '.join(f'{n} ({kim[n]:+.0f})' for n in over) or 'none'}")
    print(f"  mora onsets ({len(mo)}): within 20 ms {np.mean(mo <= 20) * 100:.1f} %, "
          f"within 80 ms {np.mean(mo <= 80) * 100:.1f} %, median {np.median(mo):.1f} ms")
    flagged = sorted(e.uncertain)
    off = [no for no, v in e.phrase_off.items() if v > TOLERANCE_S]
    print(f"  flagged uncertain: {len(flagged)} poems {flagged}; "
          f"poems with a phrase start over 80 ms: {sorted(off)} "
          f"({len(set(off) & set(flagged))} of them flagged)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--material", nargs="+", choices=("fixture", "chant"), default=["fixture", "chant"])
    ap.add_argument("--cache", type=Path, default=None, help="keep the synthesised clips here")
    ap.add_argument("--poems", type=int, default=100, help="poems 1..N, plus the joka")
    args = ap.parse_args()
    numbers = [0] + list(range(1, args.poems + 1))
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    if "fixture" in args.material:
        report("fixture (real_reader_reading)", *measure(numbers, fixture_reading))
    if "chant" in args.material:
        try:
            import audio.synth  # noqa: F401
        except ImportError as exc:
            print(f"chant: skipped ({exc})")
            return 0
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            readings = chant_readings(numbers, args.cache or Path(tmp))
            print(f"chant: {len(readings)} readings rendered or found in {time.perf_counter() - t:.1f} s")
            report("chant (audio.synth, default ChantStyle)", *measure(numbers, readings.__getitem__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
