"""Every poem (100 + joka) read by the synthesised voice: marks and rhythm.

All 202 verses are rendered once per test session into the session's
temporary cache (about 30 s on two cores; tests/conftest.py), which the
prosody and import sweeps read too; every test below reads them from there. The whole
file takes about 2 minutes (the plain-rendering check renders every verse
again, unlooped: about 35 s on two cores).

Tolerances, and why:
  * mora marks within 20 ms of the onset an independent finder sees in the
    sound (audio.synth_onsets: level and dips only, no labels, no engine data);
    20 ms is the precision the brief asks for, well under a mora (230 ms).
    The dips are the synthesiser's own, so a second check compares every mark
    with the engine's phoneme alignment of a plain (unlooped, undipped)
    rendering (audio.synth_onsets.plain_check): also 20 ms, except a phrase's
    first sound, which fades in out of silence and can only be bounded.
  * held ends: DIO hears the looped part voiced, in one piece.
  * kami-no-ku 4.5-7.5 s of voice (the brief's range for a reading was 4.5-7;
    the real reader's median is 6.65 s, issue 12).
  * phrase ends: the held end lasts at least 1.8x the phrase's median mora; an
    official reader's lengthening is about 2-3x, speech is about 1x.
  * shimo-no-ku: before the yoin 3.4-4.6 s, yoin (2nd-last mora to the end of
    the voice) 2.6-3.4 s: "about 4 s + 3 s" with room of 0.6 s and 0.4 s,
    less than two morae either way.
  * chant: over the voiced part of a kami-no-ku the F0 (pyworld's DIO, not the
    synthesiser's own track) stays within 2 semitones of its median for 80%
    of frames (the low start of each phrase, issue 12, takes about 10%);
    conversational Japanese pitch accent moves 3-6 semitones.
  * issue 12 changed two of these: no silent break between phrases (legato,
    the real reader's median silence is 0.01 s) and no fall on the held end
    (level, within 0.4 st); the figures against the real reader are in
    tests/test_synth_prosody.py.
"""
from __future__ import annotations

import numpy as np
import pytest

import poems
from audio.cache import ClipCache
from audio.synth import SynthVoice, synthesize_all
from audio.synth_onsets import check_clip
from audio.voice import RATE

pytestmark = pytest.mark.slow

ALL_NOS = list(range(0, 101))
RUN_ON_CARDS = (11, 15, 31, 50, 64, 76)  # kimariji ends on the first mora of phrase 2
TOLERANCE_MS = 20.0
LEGATO_GLIDE_S = 0.2  # a held end glides 15 st down into the next phrase over about its last 0.2 s: DIO loses
                      # 30-40 ms of that fast glide (poems 39, 72, 94), not of the held tone


@pytest.fixture(scope="session")
def voice():
    v = SynthVoice(cache=ClipCache())  # the session's cache: the prosody and import sweeps read the same clips
    assert synthesize_all(voice=v) == len(ALL_NOS)
    return v


def _poem(no):
    return poems.JOKA if no == 0 else poems.get(no)


def _phrase_morae(poem, part):
    return [poems.morae(p) for p in (poem.kami_sound if part == "kami" else poem.shimo_sound)]


def _clip(voice, no, part):
    return voice.clip(no, part, remember=False)


@pytest.mark.parametrize("part", ["kami", "shimo"])
def test_every_mora_mark_is_where_the_sound_shows_it(voice, part):
    errors, missing = [], []
    for no in ALL_NOS:
        # rises only: read legato the voice has no dips to find (issue 12); the
        # joined morae are checked by the plain rendering (last test below)
        for k, kind, mark, found in check_clip(_clip(voice, no, part), _phrase_morae(_poem(no), part), ("rise",)):
            if found is None:
                missing.append((no, k, kind))
            else:
                errors.append(((found - mark) / RATE * 1000, no, k, kind))
    worst = max(errors, key=lambda e: abs(e[0]))
    print(f"{part}: {len(errors)} onsets, worst {worst[0]:+.1f} ms (poem {worst[1]} mora {worst[2]}, {worst[3]})")
    assert not missing, f"no onset found near these marks: {missing}"
    assert abs(worst[0]) <= TOLERANCE_MS, worst


def test_kimariji_mark_is_its_mora(voice):
    for no in range(1, 101):
        clip = _clip(voice, no, "kami")
        assert clip.marks["kimariji"] == clip.marks[f"mora:{poems.get(no).kimariji_mora_count() - 1}"]


def _level_db(samples, hop=240, win=480):
    x = samples.astype(np.float64)
    n = 1 + (len(x) - win) // hop
    frames = x[np.arange(win)[None, :] + hop * np.arange(n)[:, None]]
    return 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-12), hop


def _sound_ends(clip, start, stop):
    """Last sample in [start, stop) that is still voice (within 45 dB of the clip's peak level)."""
    level, hop = _level_db(clip.samples)
    loud = np.flatnonzero(level > level.max() - 45)
    inside = loud[(loud * hop >= start) & (loud * hop < stop)]
    return int(inside[-1] * hop + 480) if len(inside) else start


@pytest.mark.parametrize("no", ALL_NOS)
def test_kami_is_three_phrases_with_held_ends(voice, no):
    clip = _clip(voice, no, "kami")
    voice_s = (clip.marks["end"] - clip.marks["mora:0"]) / RATE
    # 4.5-7 s was the brief's range; the real reader of issue 12 reads a kami-no-ku
    # in 6.65 s (IQR 6.42-6.93) and this voice now as well, so a ji-amari verse
    # (poem 4, 18 morae: 7.2 s) may pass 7 s
    assert 4.5 <= voice_s <= 7.5
    onsets = clip.mora_marks()
    phrase_of = [p for p, morae in enumerate(_phrase_morae(_poem(no), "kami")) for _ in morae]
    for p in range(3):
        ks = [k for k, q in enumerate(phrase_of) if q == p]
        plain = np.median(np.diff([onsets[k] for k in ks]))
        if p < 2:
            # read legato (issue 12: the real reader's median silence between
            # phrases is 0.01 s): the held end runs into the next phrase, no break
            nxt = clip.marks[f"phrase:{p + 1}"]
            held = _sound_ends(clip, onsets[ks[-1]], nxt) - onsets[ks[-1]]
        else:
            held = clip.marks["end"] - onsets[ks[-1]]
        if p == 0 and no in RUN_ON_CARDS:
            # the kimariji ends on phrase 2's first mora: phrase 1 is read in one breath into it
            assert held <= 1.3 * plain, f"phrase 0 of run-on card {no} held {held / RATE:.2f} s"
            continue
        assert held >= 1.8 * plain, f"phrase {p}: end held {held / RATE:.2f} s, mora {plain / RATE:.2f} s"


@pytest.mark.parametrize("no", ALL_NOS)
def test_shimo_splits_into_reading_and_yoin(voice, no):
    clip = _clip(voice, no, "shimo")
    onsets = clip.mora_marks()
    body = (onsets[-2] - onsets[0]) / RATE
    yoin = (clip.marks["end"] - onsets[-2]) / RATE
    assert 3.4 <= body <= 4.6
    assert 2.6 <= yoin <= 3.4
    # the yoin is really heard to (nearly) its end, and nothing after it
    assert _sound_ends(clip, onsets[-2], len(clip.samples)) >= clip.marks["end"] - int(0.1 * RATE)
    assert np.max(np.abs(clip.samples[clip.marks["end"]:])) < 1e-3


# 61 (やえざくら): its held end was once looped on the glide out of the r, heard as unvoiced.
@pytest.mark.parametrize("no", [0, 1, 17, 33, 50, 61, 77, 87, 99, 100])
def test_pitch_is_a_steady_reciting_tone(voice, no):
    import pyworld
    clip = _clip(voice, no, "kami")
    x = clip.samples.astype(np.float64)
    f0, t = pyworld.dio(x, RATE, frame_period=5.0, f0_floor=80, f0_ceil=500)
    f0 = pyworld.stonemask(x, f0, t, RATE)
    voiced = f0[f0 > 0]
    assert len(voiced) > 0.5 * (clip.marks["end"] - clip.marks["mora:0"]) / RATE / 0.005
    st = 12 * np.log2(voiced / np.median(voiced))
    assert np.mean(np.abs(st) <= 2.0) >= 0.8, f"pitch spread: {np.percentile(st, [5, 25, 75, 95])}"
    # the held end of the verse stays level (issue 12: the real reader's +0.06 st;
    # it used to fall 0.4-4 st), its vibrato aside
    end = clip.marks["end"] / RATE
    last = clip.marks[f"mora:{len(clip.mora_marks()) - 1}"] / RATE
    early = f0[(t > last + 0.15) & (t < last + 0.45) & (f0 > 0)]
    late = f0[(t > end - 0.35) & (t < end - 0.05) & (f0 > 0)]
    fall = 12 * np.log2(np.median(early) / np.median(late))
    assert abs(fall) <= 0.4, fall


def test_every_held_end_is_heard_voiced(voice):
    """A held phrase end is lengthened by looping a stretch of it: the loop must
    be of the steady tone (a loop over a moving vowel, or with a step at its
    joins, is heard, and tracked, as a buzz at the loop rate, not a voice).
    DIO, not the synthesiser's own voicing, judges every 5 ms of the held sound
    (from 0.1 s after the mora's onset to 30 ms before its sound ends): the voiced part must be one piece
    (no gap: at least 97% voiced from its first voiced frame to its last) and
    at least 60% of the held sound; the rest is the mora's consonant and the
    voice's own breathy ending into the break (HTS's, looped or not)."""
    import pyworld
    bad = []
    for no in ALL_NOS:
        for part in ("kami", "shimo"):
            clip = _clip(voice, no, part)
            x = clip.samples.astype(np.float64)
            f0, t = pyworld.dio(x, RATE, frame_period=5.0, f0_floor=80, f0_ceil=500)
            onsets = clip.mora_marks()
            phrase_of = [p for p, morae in enumerate(_phrase_morae(_poem(no), part)) for _ in morae]
            for k in range(len(onsets)):
                if k + 1 < len(onsets) and phrase_of[k + 1] == phrase_of[k]:
                    continue  # not a phrase end
                # read legato (issue 12), a held end glides down into the next
                # phrase's low start over its last ~0.2 s: judged up to there
                stop = clip.marks["end"] if k + 1 == len(onsets) else min(
                    _sound_ends(clip, onsets[k], onsets[k + 1]), onsets[k + 1] - int(LEGATO_GLIDE_S * RATE))
                voiced = f0[(t > onsets[k] / RATE + 0.1) & (t < stop / RATE - 0.03)] > 0
                run = np.flatnonzero(voiced)
                piece = voiced[run[0]:run[-1] + 1] if len(run) else voiced[:0]
                if len(run) < 0.6 * len(voiced) or np.mean(piece) < 0.97:
                    bad.append((no, part, k, round(len(run) / max(1, len(voiced)), 2)))
    assert not bad, f"held ends heard unvoiced (poem, part, mora, voiced share): {bad}"


def test_every_mark_agrees_with_a_plain_rendering(voice):
    """The plain-rendering check (audio.synth_onsets.plain_check: the engine's own
    alignment of an unlooped, undipped rendering, found in the clip by spectral
    shape) on every verse: stops and joined morae within 20 ms, phrase starts
    inside HTS's fade-in. Two engines, one per core."""
    from concurrent.futures import ThreadPoolExecutor
    from audio import synth
    from audio.synth_hts import HtsEngine
    from audio.synth_onsets import plain_verdicts

    engines = [HtsEngine(), HtsEngine()]

    def check(job):
        index, no = job
        engine, poem, out = engines[index % 2], _poem(no), []
        for part in ("kami", "shimo"):
            phrases = poem.kami_sound if part == "kami" else poem.shimo_sound
            rendering, v, held = synth.render_plain(phrases, _phrase_morae(poem, part), part, engine=engine,
                                                    kimariji_mora=SynthVoice._kimariji_mora(poem, part))
            verdicts = plain_verdicts(_clip(voice, no, part), rendering, v, _phrase_morae(poem, part), held)
            for k, kind, err, ok in verdicts:
                out.append((no, part, k, kind, err, ok))
        return out

    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = [row for rows in pool.map(check, enumerate(ALL_NOS)) for row in rows]
    for kind in ("joined", "stop", "silence"):
        errs = [abs(r[4]) for r in rows if r[3] == kind and r[4] is not None]
        print(f"plain check, {kind}: n={len(errs)}  worst {max(errs):.1f} ms  p95 {np.percentile(errs, 95):.1f} ms")
    bad = [r[:5] for r in rows if not r[5]]
    assert not bad, bad


def _flat_tops(samples: np.ndarray, run: int = 3) -> int:
    """Runs of `run` or more equal samples at the clip's extreme (a saturated waveform's flat tops)."""
    peak = float(np.max(np.abs(samples)))
    at_peak = np.abs(samples) >= peak
    # a run of `run` neighbours all equal to the extreme
    windows = np.lib.stride_tricks.sliding_window_view(at_peak, run)
    return int(np.count_nonzero(windows.all(axis=1)))


def test_no_clip_is_clipped_and_every_clip_plays_at_one_level(voice):
    """Issue 25: 58 of 200 half-verses had flat tops (the vocoder's waveform saturated
    at 16 bits before any scaling); every clip now peaks at or under -1 dBFS and
    has the one loudness target (audio.loudness, ITU-R BS.1770)."""
    from audio import loudness

    flat, peaks, levels = [], [], []
    for no in ALL_NOS:
        for part in ("kami", "shimo"):
            x = _clip(voice, no, part).samples
            if _flat_tops(x):
                flat.append((no, part, _flat_tops(x)))
            peaks.append(20 * np.log10(float(np.max(np.abs(x)))))
            levels.append(loudness.loudness(x, RATE))
    print(f"peaks {min(peaks):.2f} to {max(peaks):.2f} dBFS; loudness {min(levels):.2f} to {max(levels):.2f} LUFS")
    assert not flat, f"flat tops at the extreme (poem, part, runs): {flat}"
    assert max(peaks) <= loudness.PEAK_DBFS + 1e-3
    # every clip at the target, but for the few whose peaks hold them under it (peak to loudness
    # over 21 dB: 2.1 dB under, at most, in the 202 clips)
    at_target = np.abs(np.asarray(levels) - loudness.TARGET_LUFS) <= 0.1
    assert at_target.mean() >= 0.9, at_target.mean()
    assert max(levels) <= loudness.TARGET_LUFS + 0.1 and min(levels) >= loudness.TARGET_LUFS - 3.0


def test_flat_top_finder_sees_a_saturated_wave():
    wave = np.sin(np.linspace(0, 20 * np.pi, 4800)) * 1.5
    assert _flat_tops(np.clip(wave, -1, 1)) > 0
    assert _flat_tops(np.sin(np.linspace(0, 20 * np.pi, 4801))) == 0
