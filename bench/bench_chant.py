"""The chant against issue 25's reader: silences, voicing, phrase lengths, vibrato,
yoin, peak level (audio.synth_prosody, pyworld's tracker), plus issue 12's table.

    python bench/bench_chant.py [--poems 1 2 ...] [--workers 2] [--style NAME=VALUE ...]
    python bench/bench_chant.py --dump DIR      # render and store the clips only (any version of audio/)
    python bench/bench_chant.py --from DIR      # measure stored clips (e.g. an older version's)

Renders into a fresh cache (2 workers), then measures every half-verse.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _clips(args):
    import numpy as np

    from audio.clip import Clip
    if args.source:
        for no in args.poems:
            for part in ("kami", "shimo"):
                data = np.load(Path(args.source) / f"{no:03d}-{part}.npz")
                marks = {str(k): int(v) for k, v in zip(data["names"], data["positions"])}
                yield no, part, Clip(data["samples"], int(data["rate"]), marks)
        return
    from audio.cache import ClipCache
    from audio.synth import SynthVoice, synthesize_all
    voice = SynthVoice(style=chant_style(args.style), cache=ClipCache(Path(tempfile.mkdtemp(prefix="bench-chant-"))))
    t0 = time.perf_counter()
    synthesize_all(voice=voice, poems_to_do=args.poems, workers=args.workers)
    print(f"synthesised {len(args.poems)} poems in {time.perf_counter() - t0:.1f} s "
          f"({args.workers} workers, load {os.getloadavg()[0]:.2f})")
    for no in args.poems:
        for part in ("kami", "shimo"):
            yield no, part, voice.clip(no, part, remember=False)


def chant_style(changes):
    """The default ChantStyle with `changes` ("name=value", numbers) made: one change at a time."""
    from dataclasses import fields, replace

    from audio.synth_chant import ChantStyle
    style = ChantStyle()
    kinds = {f.name: type(getattr(style, f.name)) for f in fields(style)}
    for change in changes or ():
        name, _, value = change.partition("=")
        if name not in kinds or kinds[name] not in (float, int):
            raise SystemExit(f"--style {change!r}: no number {name!r} in ChantStyle")
        style = replace(style, **{name: kinds[name](value)})
    return style


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--poems", nargs="+", type=int, default=list(range(1, 101)))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dump", help="store the rendered clips here and stop")
    parser.add_argument("--from", dest="source", help="measure the clips stored here")
    parser.add_argument("--style", nargs="+", metavar="NAME=VALUE",
                        help="a ChantStyle number changed from its default (an experiment)")
    args = parser.parse_args()
    os.environ.setdefault("KARUTA_DATA_DIR", tempfile.mkdtemp(prefix="bench-chant-data-"))

    import numpy as np

    import poems

    if args.dump:
        Path(args.dump).mkdir(parents=True, exist_ok=True)
        for no, part, clip in _clips(args):
            np.savez(Path(args.dump) / f"{no:03d}-{part}.npz", samples=clip.samples, rate=clip.rate,
                     names=np.array(list(clip.marks)), positions=np.array(list(clip.marks.values())))
        return 0

    from audio.synth_prosody import Figures, issue25_table, measure, table
    figures = Figures()
    for no, part, clip in _clips(args):
        poem = poems.JOKA if no == 0 else poems.get(no)
        phrases = poem.kami_sound if part == "kami" else poem.shimo_sound
        measure(figures, clip, [poems.morae(p) for p in phrases], part, no)
    print("issue 25 (medians over the half-verses measured):")
    print("\n".join(issue25_table(figures)))
    print("issue 12:")
    print("\n".join(table(figures)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
