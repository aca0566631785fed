"""The offline synthesised reader: a karuta reading from pyopenjtalk's HTS voice.

`SynthVoice` implements `audio.voice.Voice`. How a clip is made:

1. The verse's SOUND form (modern hiragana as read aloud) becomes full-context
   labels with exactly its kana as pronunciation (`audio.synth_chant.verse`),
   so OpenJTalk cannot re-read it. The joka is poem 0.
2. The HTS engine says how long the voice would make every phoneme; the chant
   plan (`synth_chant`) keeps consonants near that length and gives every mora
   the reading's pulse, holds phrase ends, and holds the shimo-no-ku's last two
   morae (yoin, about 3 s).
3. The engine renders with exactly those lengths (HTS phoneme alignment) and
   with every state's pitch target replaced: the voice's own contour compressed
   toward one reciting tone (no global-variance expansion on pitch). The
   vocoder is the slow step, so the engine renders only what is heard and not
   stationary: a held end is rendered HELD_RENDER_S long (synth_chant) and
   lengthened by repeating whole pitch periods of its steadiest voiced stretch
   (`_loop_point`; each copy cross-faded in, `_sustain`); a fall, if the style
   asks for one (the real reader's ends are level, issue 12), is made on the
   lengthened waveform (a slow resampling, `_glide`), and so is the vibrato
   (`_vibrato`, keeping the length). Every other lengthened vowel (the chant's
   vowels are about twice their speech length) is rendered
   synth_chant.VOWEL_RENDER_S long and lengthened the same way, by a shorter
   loop and with neither fall nor vibrato (synth_chant.sustains). All loops are
   spliced in with one copy (`_insert`). Nothing is rendered to be cut.
   Since issue 12 a half-verse is one utterance (legato, no pause labels) and
   every phrase starts low and rises to the tone (synth_chant.chant_pitch).
4. Marks come from the lengths we imposed, not from analysis: a mora starts
   where its first phoneme starts; a mora opening with a stop is heard from its
   release, found on the engine's own energy track (mgc c0) inside the stop.
   Every other mora starts at its first phoneme's start (the engine's own
   alignment, checked against a plain rendering: audio.synth_onsets.plain_check).
   A dip in loudness at each such mark (style.mora_dip_db) is off by default
   since issue 12: the real reader joins morae legato.

Clip layout: LEAD_IN_S (0.25 s) of silence, then mora:0 (= phrase:0) exactly at
LEAD_IN_S; the voice ends at `end`, followed by TAIL_S of silence.

Rendering one verse takes about 0.26 s of CPU (0.32 s before the vowels were
looped; most of it the vocoder, about 55 ms per second of rendered sound, which
is now about 3.4 s of a 7 s clip, 4.3 s before); clips are cached on disk (`audio.cache`).
`synthesize_all` fills the cache for every poem on a worker thread with two
engines (ctypes releases the GIL, so both cores work): bench/bench_synth.py.

`render_plain` renders a verse's plan untouched (no loops, glides, dips or
splices): the reference of the independent mark check, audio.synth_onsets.plain_check.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Callable, Sequence

import numpy as np

from audio.cache import ClipCache, cache_key
from audio.clip import Clip
from audio.loudness import levelled
from audio.voice import RATE, VoiceError

SYNTH_VERSION = 13  # bump when the rendering changes in a way the settings do not show
LEAD_IN_S = 0.25    # silence before the first mora onset
TAIL_S = 0.05       # silence after the end of the voice
OUTPUT_GAIN = 1.8   # the engine runs at -6 dB for headroom; this brings speech near -3 dBFS peaks
DIP_BEFORE_S, DIP_AFTER_S = 0.035, 0.025
SUSTAIN_LOOP_S = 0.03  # a held vowel is lengthened by repeating about this much of it
# ... and a vowel inside a phrase by repeating this much: rendered 0.1 s long
# (synth_chant.VOWEL_RENDER_S), it is rarely steady over 30 ms (a loop point
# matched its copy with a similarity under 0.9 one time in four, at 15 ms one in 50)
VOWEL_LOOP_S = 0.015
RELEASE_SHARE = 0.6  # where on the closure-to-burst energy rise a stop is heard
# ... and a phrase's first sound when it is not a stop (HTS fades it in from the
# silence; shares measured against the onset finder, audio.synth_onsets, on all poems;
# a, i, u, n, w, y raised when the reading became legato, issue 12: the finder
# heard them 7-28 ms after the old shares' marks)
OUT_OF_SILENCE_SHARE = {"a": 0.6, "i": 0.55, "u": 0.65, "e": 0.5, "o": 0.6,
                        "f": 0.7, "h": 0.8, "s": 0.6, "sh": 0.4, "m": 0.35, "n": 0.45, "w": 0.45, "y": 0.5}
ONSET_FADE_S = 0.008  # a phrase's first sound fades in over this, ending at its mark
KAMI_FADE_S = 0.12    # the held end of the kami-no-ku tapers off over this
BREAK_FADE_S = 0.015  # a phrase end fades into the break over this
HEARD_DB = 40.0       # the voice has ended when it stays this far below its loudest
PARTS = ("kami", "shimo")
MEMORY_CLIPS = 6    # clips kept in memory by a voice (the cache on disk holds them all)


def _poem(no: int):
    import poems
    if no == 0:
        return poems.JOKA
    try:
        return poems.get(no)
    except (KeyError, ValueError, IndexError) as exc:
        raise VoiceError(f"no poem number {no}") from exc


def _text(poem, part: str) -> tuple[tuple[str, ...], list[list[str]]]:
    import poems
    phrases = poem.kami_sound if part == "kami" else poem.shimo_sound
    return phrases, [poems.morae(p) for p in phrases]


def render(phrases: Sequence[str], phrase_morae: Sequence[Sequence[str]], part: str,
           style=None, kimariji_mora: int | None = None, engine=None) -> Clip:
    """Synthesise one half-verse as a karuta reading, with its marks."""
    from audio import synth_chant as chant
    from audio import synth_hts as hts

    style = style or chant.ChantStyle()
    engine = engine or hts.engine()
    verse, frames, hold_list, sustain_list, pitch, states = _plan(
        phrases, phrase_morae, part, style, kimariji_mora, engine)
    phonemes = verse.phonemes
    # Where on its energy rise (c0, from closure or silence up) each mora is heard:
    # a stop at its release; a phrase's first sound part-way up (HTS fades it in
    # from the silence); anything else at its first phoneme's start.
    rise = [RELEASE_SHARE if phonemes[m.first] in chant.RELEASED
            else OUT_OF_SILENCE_SHARE.get(phonemes[m.first], 0.5) if phonemes[m.first - 1] in chant.SILENCES
            else None
            for m in verse.morae]
    tracked = [m.first for m, r in zip(verse.morae, rise) if r is not None]
    looped = [h for h in [*hold_list, *sustain_list] if h.extra]
    out = engine.render(chant.sung_labels(verse.labels), frames, pitch, tracked, [h.label for h in looped], states,
                        plain_spectrum=chant.plain_spectrum(verse, style, engine.nstate))

    # Onsets and the voice's end in the rendering, then the held ends and sustained vowels restored.
    onsets = [_onset(out, m.first, r) for m, r in zip(verse.morae, rise)]
    last = verse.morae[-1].last
    voice_end = out.phoneme_starts[last] + frames[last] * hts.FRAME
    loop_at: dict[int, int] = {}
    copies = []
    for h in looped:
        start = out.phoneme_starts[h.label]
        c0, voiced = out.spectra[h.label]
        if isinstance(h, chant.Sustain):
            # loop before the vowel's speech-length ending (its last two states)
            limit = len(c0) - sum(n or 0 for n in states.get(h.label, [])[-2:])
            loop_s = VOWEL_LOOP_S
        else:
            # read legato, a held vowel's last part already glides toward the
            # next phrase's low start (HTS smooths pitch across the join)
            limit = int(LOOP_EARLY_SHARE * len(c0))
            loop_s = SUSTAIN_LOOP_S
        at, lag = _loop_point(out.samples, start, c0, voiced, limit, loop_s)
        loop_at[h.label] = at
        copies.append((at, _sustain(out.samples, at, lag, h.extra * hts.FRAME)))
    samples = _insert(out.samples, copies)
    splices = [(at, len(body)) for at, body in copies]

    def moved(x: int) -> int:
        """A rendering position after the held ends and vowels were lengthened."""
        return x + sum(n for at, n in splices if x >= at)

    for h in sorted(hold_list, key=lambda h: -h.label):  # from the end: earlier positions stay valid
        start, stop = out.phoneme_starts[h.label], out.phoneme_starts[h.label + 1]
        ending = stop - loop_at[h.label] if h.label in loop_at else 0  # the voice's own ending, after the loop
        # The fall is made on the lengthened vowel: over h.fall frames, ending where
        # the voice's own ending begins (which then stays on the lower tone).
        a, b = moved(start), moved(stop)
        glide = max(a, b - h.fall * hts.FRAME - ending)
        samples, inserted = _glide(samples, glide, b, h.fall * hts.FRAME, h.fall_st)
        splices.append((stop, inserted))
        # Inside the verse the vibrato dies out before the voice's own ending, which
        # glides into the next phrase: a voice's vibrato stops as its pitch moves, and
        # the join then sounds as the engine made it (the plain-rendering check finds
        # the next mora by its waveform there; issue 25).
        joined = ending if h.label != last else 0
        _vibrato(samples, a, b + inserted - joined, style, yoin=part == "shimo" and h.label == last)

    onsets = [moved(x) for x in onsets]
    voice_end = moved(voice_end)

    first = moved(out.phoneme_starts[verse.morae[0].first])
    pad = int(round(LEAD_IN_S * RATE)) - (onsets[0] - first)
    shift = pad - first  # sample in rendering + shift = sample in clip
    body = samples[first:voice_end].astype(np.float32) * OUTPUT_GAIN
    samples = np.concatenate([np.zeros(pad, np.float32), body, np.zeros(int(TAIL_S * RATE), np.float32)])
    end = pad + len(body)

    for label, ph in enumerate(phonemes):
        if ph == "pau":  # the reader's break between phrases is a true silence
            _silence(samples, moved(out.phoneme_starts[label]) + shift, moved(out.phoneme_starts[label + 1]) + shift)

    marks = {f"mora:{k}": onset + shift for k, onset in enumerate(onsets)}
    for k, mora in enumerate(verse.morae):
        marks.setdefault(f"phrase:{mora.phrase}", marks[f"mora:{k}"])
        if phonemes[mora.first - 1] in chant.SILENCES and phonemes[mora.first] not in chant.RELEASED:
            _clean_start(samples, marks[f"mora:{k}"], whole=phonemes[mora.first - 1] == "sil")
        if style.mora_dip_db > 0 and rise[k] is None and phonemes[mora.first - 1] not in chant.SILENCES:
            _dip(samples, marks[f"mora:{k}"], style.mora_dip_db)
    if style.closure_murmur_db > 0:
        inside = [(marks[f"mora:{k}"], phonemes[m.first] in CLOSED) for k, m in enumerate(verse.morae)
                  if phonemes[m.first] in CLOSED | VOICED_CLOSED and phonemes[m.first - 1] not in chant.SILENCES]
        _murmur_closures(samples, inside, style.closure_murmur_db, style.closure_guard_s)
    if kimariji_mora is not None and 0 <= kimariji_mora < len(onsets):
        marks["kimariji"] = marks[f"mora:{kimariji_mora}"]
    samples, marks["end"] = voice_ending(samples, marks[f"mora:{len(onsets) - 1}"], end, part, style)
    return Clip(levelled(samples, RATE), RATE, marks)


def voice_ending(samples: np.ndarray, last_onset: int, end: int, part: str, style) -> tuple[np.ndarray, int]:
    """(samples, end): a half-verse's ending made as the reader's, for any voice
    rendering one whose last mora starts at `last_onset` and whose sound runs to
    `end`: the shimo-no-ku's yoin faded, the voice ended where it is heard (HTS
    lets a verse-final vowel die away in its last state), TAIL_S of silence
    after it, and a short taper (longer on the kami-no-ku's held end)."""
    if part == "shimo":
        _fade_yoin(samples, last_onset, end, style)
    end = _heard_end(samples, last_onset, end)
    samples = samples[:end + int(TAIL_S * RATE)]
    samples[end:] = 0.0
    _taper(samples, end, KAMI_FADE_S if part == "kami" else 0.03)
    return samples, end


def _plan(phrases, phrase_morae, part: str, style, kimariji_mora: int | None, engine):
    """(verse, rendered frames, holds, sustained vowels, pitch shaper, imposed
    state frames): what the engine is asked to render."""
    from audio import synth_chant as chant
    verse = chant.verse(phrases, phrase_morae, breaks=style.break_s > 0)
    running = chant.run_on(verse, part, kimariji_mora)
    natural = engine.natural_states(verse.labels)
    planned = chant.phoneme_frames(verse, natural, part, style, engine.nstate, running)
    hold_list = chant.holds(verse, planned, part, style, running)
    rises = chant.phrase_rises(verse, planned, running, style.first_rise)
    sustain_list = chant.sustains(verse, planned, natural, hold_list, rises, style)
    frames = chant.rendered_frames(planned, hold_list, sustain_list)
    pitch = chant.chant_pitch(frames, hold_list, style, chant.phrase_rises(verse, frames, running, style.first_rise))
    states = chant.state_frames(verse, frames, natural, style, hold_list)
    return verse, frames, hold_list, sustain_list, pitch, states


def render_plain(phrases: Sequence[str], phrase_morae: Sequence[Sequence[str]], part: str,
                 style=None, engine=None, kimariji_mora: int | None = None):
    """The verse as the engine renders it for `render`, left untouched: the same
    labels, phoneme lengths (held ends short) and reciting tone, but no loops,
    glides, dips, fades, silencing, splices or lead-in.

    Returns (audio.synth_hts.Rendering, audio.synth_chant.Verse, held): held
    lists (plain sample where a held end stops, samples the plan adds to it).
    The reference against which `audio.synth_onsets.plain_check` tests a clip's marks.
    """
    from audio import synth_chant as chant
    from audio import synth_hts as hts

    style = style or chant.ChantStyle()
    engine = engine or hts.engine()
    verse, frames, hold_list, sustain_list, pitch, states = _plan(
        phrases, phrase_morae, part, style, kimariji_mora, engine)
    out = engine.render(chant.sung_labels(verse.labels), frames, pitch, states=states,
                        plain_spectrum=chant.plain_spectrum(verse, style, engine.nstate))
    # The plan's lengthening of each held end and sustained vowel (not what the loops actually insert).
    held = sorted((out.phoneme_starts[h.label + 1], h.extra * hts.FRAME)
                  for h in [*hold_list, *sustain_list] if h.extra)
    return out, verse, held


LOOP_FRAMES = 8  # the steady stretch looked for in a held vowel: 40 ms (the loop and its match window)
LOOP_MARGIN = 3  # frames kept between the loop and the first unvoiced frame of the ending
LOOP_XFADE_S = 0.005  # each loop copy fades in from the voice's continuation over this
LOOP_MATCH_S = 0.012  # the stretch compared with itself one loop earlier
LOOP_EARLY_SHARE = 0.6  # a loop ends within this share of the rendered held vowel
LOOP_MAX_DROP = 0.3  # a looped frame's energy (mgc c0, log amplitude) is within this of the vowel's loudest


def _loop_candidates(c0: np.ndarray, voiced: np.ndarray, limit: int) -> list[int]:
    """Frames (into a vowel) where it may be repeated: the end of a stretch of
    LOOP_FRAMES that is voiced and at the vowel's full, steady energy (c0, within
    LOOP_MAX_DROP of its loudest), before the voice's own breathy ending and not
    after frame `limit`. If no stretch qualifies, the loudest voiced one."""
    n = len(c0)
    c0 = np.where(voiced, c0, -np.inf)
    unvoiced = np.flatnonzero(~voiced[LOOP_FRAMES:]) + LOOP_FRAMES
    last = min(n - 2, int(unvoiced[0]) - LOOP_MARGIN if len(unvoiced) else n - 2)
    last = min(last, max(LOOP_FRAMES + 1, limit))
    ends = list(range(LOOP_FRAMES + 1, max(LOOP_FRAMES + 2, last + 1)))
    steady = [e for e in ends if c0[e - LOOP_FRAMES:e].min() >= c0.max() - LOOP_MAX_DROP]
    return steady or [max(ends, key=lambda e: float(np.sum(c0[e - LOOP_FRAMES:e])))]


def _best_lag(x: np.ndarray, at: int, loop_s: float = SUSTAIN_LOOP_S) -> tuple[int, float]:
    """(lag near loop_s, similarity) at which the waveform before `at` best repeats itself."""
    window = int(LOOP_MATCH_S * RATE)
    lo, hi = int(loop_s * RATE * 0.8), int(loop_s * RATE * 1.25)
    if at - hi - window < 0:
        return 0, -1.0
    ref = x[at - window:at].astype(np.float64)
    seg = x[at - hi - window:at - lo].astype(np.float64)
    # Entry i: the `window` samples of seg from i on, which end `hi - i` samples before `at` (lag hi - i).
    dots = np.correlate(seg, ref, "valid")
    energy = np.concatenate([[0.0], np.cumsum(seg * seg)])
    norms = np.sqrt(np.maximum(energy[window:] - energy[:-window], 0.0))
    score = dots / (norms * np.linalg.norm(ref) + 1e-12)
    i = int(np.argmax(score))
    return hi - i, float(score[i])


def _loop_point(x: np.ndarray, start: int, c0: np.ndarray, voiced: np.ndarray, limit: int,
                loop_s: float = SUSTAIN_LOOP_S) -> tuple[int, int]:
    """(sample, lag): where to repeat a held vowel that starts at sample `start`, and how much of it.

    Of the steady, voiced frames, the one before which the waveform repeats
    itself best. Looping a stretch that still moves (the glide out of the
    consonant, as in the ら of やえざくら) would repeat a formant sweep every
    loop: a buzz at the loop rate that a pitch tracker (and an ear) no longer
    hears as the voice's tone.
    """
    from audio.synth_hts import FRAME
    candidates = _loop_candidates(c0, voiced, limit)
    best = (start + candidates[0] * FRAME, 0, -2.0)
    for frame in candidates:
        at = start + frame * FRAME
        lag, score = _best_lag(x, at, loop_s)
        if score > best[2]:
            best = (at, lag, score)
    return best[0], best[1]


def _sustain(x: np.ndarray, at: int, lag: int, length: int) -> np.ndarray:
    """What lengthens a steady vowel at sample `at` by about `length` samples:
    copies of the `lag` samples before `at` (whole pitch periods). Each copy
    begins by cross-fading from the voice's own continuation (x[at:]) into the
    copy over LOOP_XFADE_S: even a well-matched loop leaves a small step at
    every join, a click train at the loop rate (about 36 Hz) heard as a buzz,
    and enough to make a pitch tracker call the tone unvoiced."""
    if lag <= 0 or length <= 0:
        return x[:0]
    count = max(1, int(round(length / lag)))
    body = x[at - lag:at].copy()
    fade = min(lag // 2, int(LOOP_XFADE_S * RATE), len(x) - at)
    w = (0.5 - 0.5 * np.cos(np.linspace(0, np.pi, fade))).astype(x.dtype)
    body[:fade] = w * body[:fade] + (1 - w) * x[at:at + fade]
    return np.tile(body, count)


def _insert(x: np.ndarray, pieces: Sequence[tuple[int, np.ndarray]]) -> np.ndarray:
    """x with every piece inserted before its sample (positions in x), in one copy."""
    parts, done = [], 0
    for at, piece in sorted(pieces, key=lambda p: p[0]):
        parts += [x[done:at], piece]
        done = at
    return np.concatenate([*parts, x[done:]])


def _glide(x: np.ndarray, a: int, b: int, fall: int, semitones: float) -> tuple[np.ndarray, int]:
    """Let the held tone in [a, b) fall by `semitones` over its first `fall` samples, then stay there.

    The stretch is read progressively slower (a gentle resampling: at most
    a few percent, so the vowel's colour hardly moves). Returns (new samples,
    samples added), the added ones all before b.
    """
    n = b - a
    if n <= 1 or semitones <= 0:
        return x, 0
    low = 2 ** (-semitones / 12)
    fall = max(1, min(fall, n))
    # Output sample j reads the input at position sum(rate[:j]); the rate falls, then holds.
    m_fall = int(round(2 * fall / (1 + low)))
    m_rest = int(round((n - fall) / low))
    rate = np.concatenate([np.linspace(1.0, low, m_fall), np.full(m_rest, low)])
    pos = np.concatenate([[0.0], np.cumsum(rate)[:-1]])
    pos = pos[pos <= n - 1]
    warped = np.interp(pos, np.arange(n), x[a:b]).astype(x.dtype)
    return np.concatenate([x[:a], warped, x[b:]]), len(warped) - n


def _wander(rng: np.random.Generator, n: int, every_s: float) -> np.ndarray:
    """A slow random wander of n samples about 0 (unit spread): random knots
    every `every_s`, joined by half cosines."""
    step = max(1, int(every_s * RATE))
    knots = rng.standard_normal(n // step + 2)
    j = np.arange(n) / step
    k = j.astype(np.intp)
    blend = 0.5 - 0.5 * np.cos(np.pi * (j - k))
    return knots[k] + blend * (knots[k + 1] - knots[k])


def _vibrato(x: np.ndarray, a: int, b: int, style, yoin: bool = False) -> None:
    """A vibrato on the held vowel x[a:b], in place and without changing its length.

    The vowel is read at a rate that swings by about +-style.vibrato_cents at
    about style.vibrato_hz (yoin_vibrato_* on the yoin); a resampling: its
    pitch swings, its colour hardly moves. Like a voice's (issue 25: the reader's
    rate and depth vary from vowel to vowel and within one; one sinusoid on every
    vowel was heard as a machine), each vowel draws its own rate and depth
    (spread style.vibrato_rate_spread, style.vibrato_depth_spread) and both
    wander within it. The random draws are seeded by the vowel's place and
    length: a verse renders the same every time.
    The swing grows in over style.vibrato_onset_s and dies out over the last
    50 ms, so the read position meets the true one at both ends: nothing
    before or after the vowel moves, and so no mark."""
    n = b - a
    hz = style.yoin_vibrato_hz if yoin else style.vibrato_hz
    cents = style.yoin_vibrato_cents if yoin else style.vibrato_cents
    if n <= 2 or cents <= 0 or hz <= 0:
        return
    rng = np.random.default_rng([a, n, int(yoin)])
    rate = hz * (1 + style.vibrato_rate_spread * (0.6 * rng.standard_normal() + 0.8 * _wander(rng, n, 0.4)))
    rate = np.clip(rate, 0.7 * hz, 1.3 * hz) / RATE  # turns per sample
    depth_c = cents * np.clip(1 + style.vibrato_depth_spread * (0.6 * rng.standard_normal()
                                                                + 0.8 * _wander(rng, n, 0.3)), 0.3, 1.8)
    phase = 2 * np.pi * np.cumsum(rate)
    depth = (2 ** (depth_c / 1200) - 1) / (2 * np.pi * rate)  # samples of read-ahead at the swing's peak
    j = np.arange(n, dtype=np.float64)
    envelope = np.ones(n)  # the swing's depth: 1 but where it grows in and dies out
    grow = max(1.0, style.vibrato_onset_s * RATE)
    k = min(n, int(np.ceil(grow)))
    envelope[:k] = 0.5 - 0.5 * np.cos(np.pi * j[:k] / grow)
    die = 0.05 * RATE
    k = min(n, int(np.ceil(die)))
    envelope[n - k:] *= 0.5 - 0.5 * np.cos(np.pi * np.minimum((n - 1 - j[n - k:]) / die, 1.0))
    swing = np.cos(np.mod(phase, 2 * np.pi).astype(np.float32))
    pos = np.clip(j + envelope * depth * (1 - swing), 0, n - 1)
    # linear interpolation between neighbouring samples (np.interp would search for them)
    at = np.minimum(pos.astype(np.intp), n - 2)
    seg = x[a:b]
    x[a:b] = (seg[at] + (pos - at) * (seg[at + 1] - seg[at])).astype(x.dtype)


def _onset(out, label: int, share: float | None) -> int:
    """Sample where a mora is first heard: its first phoneme's start, or where the
    engine's energy track c0 has come `share` of the way up from its lowest point
    (closure, silence) to its highest inside that phoneme."""
    from audio.synth_hts import FRAME
    start = out.phoneme_starts[label]
    if not share:
        return start
    a = start // FRAME
    c0 = out.c0[a:]
    c0 = c0[: np.argmax(np.isnan(c0))] if np.isnan(c0).any() else c0
    low = int(np.argmin(c0))
    level = c0[low] + share * (c0[low:].max() - c0[low])
    return (a + low + int(np.argmax(c0[low:] >= level - 1e-9))) * FRAME


def _power_10ms(samples: np.ndarray, end: int) -> tuple[int, np.ndarray]:
    """(hop, mean power of each whole 10 ms step of samples[:end])."""
    hop = int(0.01 * RATE)
    n = end // hop
    return hop, np.mean(np.square(samples[:n * hop], dtype=np.float64).reshape(n, hop), axis=1)


def _heard_end(samples: np.ndarray, last_onset: int, end: int) -> int:
    """Last sample (at 10 ms steps) of the final mora within HEARD_DB of the verse's loudest 10 ms."""
    hop, levels = _power_10ms(samples, end)
    loud = np.flatnonzero(levels > levels.max() * 10 ** (-HEARD_DB / 10))
    last = int(loud[-1]) * hop + hop if len(loud) else end
    return int(min(end, max(last, last_onset + hop)))


def _silence(samples: np.ndarray, a: int, b: int) -> None:
    """Silence [a, b): the sound before fades over BREAK_FADE_S, the next phrase starts clean."""
    fade = int(BREAK_FADE_S * RATE)
    samples[a - fade:a] *= (0.5 * (1 + np.cos(np.linspace(0, np.pi, fade)))).astype(np.float32)
    samples[a:b] = 0.0


def _clean_start(samples: np.ndarray, at: int, whole: bool = False) -> None:
    """A phrase's first sound starts at its mark: HTS's faint fade-in before it
    (some 40 dB under the voice, too faint to be heard as the start) is silenced,
    60 ms of it (inside a break, 0.08 s before the label), or all of it in the
    lead-in before a verse (`whole`). (Without global variance on the spectrum,
    issue 25, the fade-in starts louder and up to 0.15 s before the mark: the
    importer heard the verse start there, 0.12 s early.)"""
    fade = int(ONSET_FADE_S * RATE)
    a = max(0, at - fade)
    start = 0 if whole else max(0, at - int(0.06 * RATE))
    samples[start:a] = 0.0
    samples[a:at] *= (0.5 * (1 - np.cos(np.linspace(0, np.pi, at - a)))).astype(np.float32)


CLOSED = frozenset({"k", "ky", "t", "ty", "ch", "ts", "p", "py"})  # voiceless stops: a silent closure
# Voiced stops, the affricate z and the tap r: HTS renders their closures silent too
VOICED_CLOSED = frozenset({"b", "by", "d", "dy", "g", "gy", "j", "z", "r", "ry"})
MURMUR_FADE_S = 0.004
MURMUR_LOOK_S = 0.04  # how far before a release its closure's silence is looked for


def _murmur_closures(samples: np.ndarray, releases: Sequence[tuple[int, bool]], db: float,
                     guard_s: float) -> None:
    """A voicing bar through the silent part of each stop's closure after a vowel
    (a real chanter's closures are short and voiced: the voice does not stop at
    every k and t): the fundamental of the vowel's tone before the silence
    (`_period`) alone, as a closed vocal tract lets it out, `db` under the verse's
    loudest 5 ms, flat, faded in and out over MURMUR_FADE_S. `releases`: (release,
    voiceless); before a voiceless stop the bar ends `guard_s` before the release
    (voicing up to the release is what makes a stop heard voiced), before a voiced
    one it runs up to it."""
    hop = int(0.005 * RATE)
    n = len(samples) // hop
    power = np.mean(np.square(samples[:n * hop], dtype=np.float64).reshape(n, hop), axis=1)
    loudest = float(power.max()) if n else 0.0
    if loudest <= 0:
        return
    quiet = power < loudest * 10 ** (-db / 10)       # under the murmur's own level
    target = np.sqrt(loudest) * 10 ** (-db / 20)
    fade, guard = int(MURMUR_FADE_S * RATE), int(guard_s * RATE)
    look = int(MURMUR_LOOK_S * RATE) // hop
    for release, voiceless in releases:
        j = release // hop - 1
        stop = j - look
        while j > stop and j > 0 and not quiet[j]:
            j -= 1                                 # back over the burst
        if j <= stop or j <= 0:
            continue                               # no silent closure here
        b = min((j + 1) * hop, release - (guard if voiceless else 0))
        while j > 0 and quiet[j]:
            j -= 1
        a = (j + 1) * hop                          # the quiet stretch before the release
        if b - a < 2 * fade:
            continue
        # the vowel's last clear period: its very end may be breathy, so look a little earlier too
        lag = next((lag for at in (a, a - 2 * hop, a - 4 * hop, a - 6 * hop)
                    if (lag := _period(samples, at)) > 0), 0)
        if lag <= 0:
            continue
        bar = np.sqrt(2) * target * np.sin(2 * np.pi * np.arange(b - a) / lag)
        env = np.ones(b - a)
        ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, fade))
        env[:fade], env[-fade:] = ramp, ramp[::-1]
        samples[a:b] += (bar * env).astype(samples.dtype)


def _period(x: np.ndarray, at: int) -> int:
    """Length in samples of the voice's pitch period just before `at` (80-400 Hz), 0 if none."""
    lo, hi, window = int(RATE / 400), int(RATE / 80), int(0.012 * RATE)
    if at - hi - window < 0:
        return 0
    ref = x[at - window:at].astype(np.float64)
    seg = x[at - hi - window:at - lo].astype(np.float64)
    dots = np.correlate(seg, ref, "valid")[::-1]     # entry k: lag lo + k
    energy = np.concatenate([[0.0], np.cumsum(seg * seg)])
    norms = np.sqrt(np.maximum(energy[window:] - energy[:-window], 0.0))[::-1]
    score = dots / (norms * np.linalg.norm(ref) + 1e-12)
    k = int(np.argmax(score))
    return lo + k if score[k] > 0.5 else 0


def _dip(samples: np.ndarray, at: int, db: float) -> None:
    """A short loss of loudness whose bottom is `at`: the new mora is heard from there."""
    before, after = int(DIP_BEFORE_S * RATE), int(DIP_AFTER_S * RATE)
    depth = 10 ** (-db / 20)
    down = 1 - (1 - depth) * 0.5 * (1 - np.cos(np.linspace(0, np.pi, before)))
    up = depth + (1 - depth) * 0.5 * (1 - np.cos(np.linspace(0, np.pi, after)))
    a = max(0, at - before)
    samples[a:at] *= down[before - (at - a):]
    samples[at:at + after] *= up[: len(samples[at:at + after])]


YOIN_HEARD_MARGIN_DB = 3.0  # a fading yoin ends this far above the level where the voice is no longer heard


# The reader's yoin fades slowly, then ever faster (issue 25): -2.9, -6.6 and
# -10.8 dB at 1.0, 0.5 and 0.25 s before its end, about -3.9 dB each time the
# time left halves. The fade follows that curve, from where it reaches 0 dB.
YOIN_FADE_AT_1S_DB = -2.9
YOIN_FADE_PER_HALVING_DB = 3.9


def yoin_gain_db(seconds_left: np.ndarray, deepest_db: float) -> np.ndarray:
    """The yoin's fade (dB) with `seconds_left` to its end, never under -deepest_db."""
    left = np.maximum(seconds_left, 1e-3)
    curve = YOIN_FADE_AT_1S_DB + YOIN_FADE_PER_HALVING_DB * np.log2(left)
    return np.clip(curve, -deepest_db, 0.0)


def _fade_yoin(samples: np.ndarray, last_onset: int, end: int, style) -> None:
    """The yoin fades as the reader's (`yoin_gain_db`): by style.yoin_fade_db at
    its planned end, or less if it would then no longer be heard (HEARD_DB under
    the verse's loudest 10 ms). A yoin on ん is hummed some 27 dB under the
    loudest vowel: faded by the full depth it fell out of hearing before its
    end (poems 3, 18, 22, 26)."""
    a = last_onset + (end - last_onset) // 4
    levels = 10 * np.log10(_power_10ms(samples, a)[1] + 1e-20)
    yoin = float(np.median(levels[-20:]))  # the yoin's level before the fade (0.2 s)
    fade_db = min(style.yoin_fade_db, max(0.0, yoin - (levels.max() - HEARD_DB) - YOIN_HEARD_MARGIN_DB))
    gain_db = yoin_gain_db((end - np.arange(a, end)) / RATE, fade_db)
    samples[a:end] *= (10 ** (gain_db / 20)).astype(np.float32)


def _taper(samples: np.ndarray, end: int, seconds: float) -> None:
    """A short fade to zero at the end of the voice (no click)."""
    n = min(int(seconds * RATE), end)
    samples[end - n:end] *= (0.5 * (1 + np.cos(np.linspace(0, np.pi, n)))).astype(np.float32)


class SynthVoice:
    """The synthesised reader (voice "mei", HTS, chant style). Thread-safe."""

    rate = RATE

    def __init__(self, style=None, cache: ClipCache | None = None):
        from audio.synth_chant import ChantStyle
        self.style = style or ChantStyle()
        self.name = "synth-mei"
        self._cache = cache
        self._memory: OrderedDict[tuple[int, str], Clip] = OrderedDict()  # the last few clips
        self._lock = threading.Lock()

    @property
    def cache(self) -> ClipCache:
        if self._cache is None:
            self._cache = ClipCache()
        return self._cache

    def available(self) -> frozenset[int]:
        return frozenset() if self.unavailable() else frozenset(range(0, 101))

    @staticmethod
    def unavailable() -> str | None:
        """Why this machine cannot synthesise (None: it can)."""
        try:
            from audio import synth_hts
            synth_hts.engine()
        except Exception as exc:  # no engine on this platform, or one it does not know
            return str(exc) or type(exc).__name__
        return None

    def kami(self, no: int) -> Clip:
        return self.clip(no, "kami")

    def shimo(self, no: int) -> Clip:
        return self.clip(no, "shimo")

    def key(self, no: int, part: str) -> str:
        from audio.synth_hts import engine_version
        poem = _poem(no)
        phrases, _ = _text(poem, part)
        return cache_key(text=list(phrases), part=part, voice=self.name, style=self.style.key(),
                         kimariji=self._kimariji_mora(poem, part), lead_in=LEAD_IN_S, tail=TAIL_S,
                         version=SYNTH_VERSION, engine=engine_version())

    def clip(self, no: int, part: str, engine=None, remember: bool = True) -> Clip:
        """The clip from memory, the disk cache, or a new rendering (then cached)."""
        if part not in PARTS:
            raise ValueError(f"part is 'kami' or 'shimo', not {part!r}")
        with self._lock:
            hit = self._memory.get((no, part))
            if hit is not None:
                self._memory.move_to_end((no, part))
                return hit
        key = self.key(no, part)
        clip = self.cache.get(key)
        if clip is None:
            poem = _poem(no)
            phrases, phrase_morae = _text(poem, part)
            try:
                clip = render(phrases, phrase_morae, part, self.style, self._kimariji_mora(poem, part), engine)
            except Exception as exc:
                raise VoiceError(f"synthesis of poem {no} ({part}) failed: {exc}") from exc
            try:
                self.cache.put(key, clip)
            except OSError:
                pass  # a full or read-only disk costs speed, not the reading
        if remember:
            with self._lock:
                self._memory[(no, part)] = clip
                while len(self._memory) > MEMORY_CLIPS:
                    self._memory.popitem(last=False)
        return clip

    @staticmethod
    def _kimariji_mora(poem, part: str) -> int | None:
        if part != "kami":
            return None
        n = poem.kimariji_mora_count()
        return n - 1 if n > 0 else None


ProgressFn = Callable[[int, int], None]


def synthesize_all(progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                   voice: SynthVoice | None = None, poems_to_do: Sequence[int] | None = None,
                   workers: int = 2, ready: Callable[[int], None] | None = None) -> int:
    """Render (or find in the cache) both halves of every poem, joka first.

    Plain blocking function, for a QThread or any worker thread: `progress(done,
    total)` is called from this thread after every poem; setting `cancel` stops
    it after the verses in flight (at most `workers`). Returns how many poems
    are ready. Each worker thread drives its own HTS engine. Poems are started in
    the order given; `ready(no)` is called (from a worker thread) as soon as poem
    `no`'s two clips are in the cache, at once for those already there.
    """
    from audio.synth_hts import HtsEngine

    voice = voice or SynthVoice()
    todo = list(range(0, 101) if poems_to_do is None else poems_to_do)
    total = len(todo)
    cancel = cancel or threading.Event()
    # One task per verse, not per poem: the joka's two verses are made at once on two
    # workers, so a reading can start sooner (issue 25).
    clips = [(no, part) for no in todo for part in PARTS if voice.key(no, part) not in voice.cache]
    left: dict[int, int] = {}
    for no, _part in clips:
        left[no] = left.get(no, 0) + 1
    done = total - len(left)
    if ready:
        for no in todo:
            if no not in left:
                ready(no)
    if progress:
        progress(done, total)
    if not clips:
        return done
    engines = [HtsEngine() for _ in range(max(1, workers))]
    free = list(engines)
    lock = threading.Lock()

    def work(no: int, part: str) -> bool:
        """Make one verse; True when it was the last of its poem."""
        if cancel.is_set():
            return False
        with lock:
            engine = free.pop()
        try:
            voice.clip(no, part, engine, remember=False)
        finally:
            with lock:
                free.append(engine)
        with lock:
            left[no] -= 1
            last = left[no] == 0
        if last and ready:
            ready(no)
        return last

    with ThreadPoolExecutor(max_workers=len(engines), thread_name_prefix="synth") as pool:
        futures = [pool.submit(work, no, part) for no, part in clips]
        try:
            for future in as_completed(futures):
                if future.result():
                    done += 1
                    if progress:
                        progress(done, total)
                if cancel.is_set():
                    break
        finally:
            for future in futures:
                future.cancel()
    # Verses already in flight when cancelled were finished (and cached): count them.
    finished = total - sum(1 for n in left.values() if n > 0)
    if finished != done:
        done = finished
        if progress:
            progress(done, total)
    return done


class SynthesisAhead:
    """`synthesize_all` on a thread of its own, in reading order, ahead of a reading
    that starts before it ends (issue 25): `voice` gives each clip once its poem is
    made, waiting for it if need be, so a growing programme (`Programme.grow`) takes
    its cards as they come while both cores render the rest. If synthesis stops
    (cancelled, or a verse failed) the waits end and the voice renders what is left
    itself, saying any failure as its own `VoiceError`.

    The first `first` poems (what the reading needs to start) are made on `workers`
    threads; the rest on one, ahead of a reader that needs a poem every 15 s or so
    while one worker makes one in about 0.5 s: the other core is left to the sound
    (the stream's callback and the sound server), which a loaded machine starves."""

    def __init__(self, voice: SynthVoice, poems_in_order: Sequence[int], workers: int = 2,
                 first: int = 2):
        self.synth = voice
        self.cancel = threading.Event()
        self.first = first
        self.order = list(dict.fromkeys(poems_in_order))
        self._ready = {no: threading.Event() for no in self.order}
        self.voice = _WaitingVoice(voice, self.wait)
        self._thread = threading.Thread(target=self._run, args=(workers,), name="synth-ahead",
                                        daemon=True)

    def start(self) -> "SynthesisAhead":
        from audio.loudness import warm
        warm(self.synth.rate)    # its import (scipy.signal, 1.2 s) beside the first verses' vocoding
        self._thread.start()
        return self

    def _run(self, workers: int) -> None:
        ready = lambda no: self._ready[no].set()  # noqa: E731
        try:
            synthesize_all(cancel=self.cancel, voice=self.synth, poems_to_do=self.order[:self.first],
                           workers=workers, ready=ready)
            if not self.cancel.is_set():
                synthesize_all(cancel=self.cancel, voice=self.synth, poems_to_do=self.order[self.first:],
                               workers=1, ready=ready)
        except Exception:   # the voice will meet the same failure and say it in the reading
            pass
        finally:
            for event in self._ready.values():
                event.set()

    def wait(self, no: int) -> None:
        event = self._ready.get(no)
        if event is not None:
            event.wait()

    def stop(self) -> None:
        """Start no further poem (those in flight finish and are cached)."""
        self.cancel.set()
        for event in self._ready.values():
            event.set()


class _WaitingVoice:
    """A synthesised voice whose clips wait for `SynthesisAhead` before they are taken."""

    def __init__(self, voice: SynthVoice, wait: Callable[[int], None]):
        self._voice, self._wait = voice, wait
        self.name, self.rate = voice.name, voice.rate

    def kami(self, no: int) -> Clip:
        self._wait(no)
        return self._voice.kami(no)

    def shimo(self, no: int) -> Clip:
        self._wait(no)
        return self._voice.shimo(no)

    def available(self) -> frozenset[int]:
        return self._voice.available()
