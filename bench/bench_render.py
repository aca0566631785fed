"""Time to prepare and render a full reading session (joka + 100 poems) to a file.

Uses the synthesised voice when it is available here, else the tone voice
(says which). Preparing = asking the voice for all 203 clips (synthesis, or
the synthesis cache when warm); rendering = writing the FLAC and the WAV.

    /tmp/venv/bin/python bench/bench_render.py           # the user's synthesis cache
    /tmp/venv/bin/python bench/bench_render.py --cold    # a fresh, empty cache
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def pick_voice():
    try:
        from audio.synth import SynthVoice
        voice = SynthVoice()
        if voice.available():
            return voice
        why = "the synthesis engine is not available here"
    except ImportError as exc:
        why = f"audio.synth cannot be imported ({exc})"
    from audio.fake_voice import ToneVoice
    print(f"synthesised voice unavailable: {why}; using the tone voice")
    return ToneVoice()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="synthesise into a fresh empty cache")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    if args.cold:
        os.environ["KARUTA_CACHE_DIR"] = tmp.name + "/cache"
    from audio.programme import Programme, ReadingSettings
    from audio.render import render_to_file

    voice = pick_voice()
    print(f"voice: {voice.name}" + (" (fresh cache)" if args.cold else ""))
    t = time.perf_counter()
    programme = Programme.shuffled(voice, args.seed, ReadingSettings())
    prepare = time.perf_counter() - t
    session = programme.total_samples / programme.rate
    clips = {id(s.clip): s.clip.samples.nbytes for s in programme.segments if s.clip is not None}
    clip_bytes = sum(clips.values())
    print(f"session: {len(programme.card_order)} cards + joka, {session / 60:.1f} min of audio; "
          f"clips held in memory {clip_bytes / 1e6:.0f} MB")
    print(f"prepare (voice gives 203 clips, programme laid out): {prepare:.2f} s")
    for suffix in (".flac", ".wav"):
        out = Path(tmp.name) / f"session{suffix}"
        t = time.perf_counter()
        render_to_file(programme, out)
        dt = time.perf_counter() - t
        print(f"render {suffix:5s}: {dt:.2f} s ({session / dt:.0f}x real time), "
              f"file {out.stat().st_size / 1e6:.1f} MB")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
