"""An independent check of mora marks: find each onset in the sound itself.

The synthesiser knows its marks from the phoneme lengths it imposed; this
module looks only at the samples (and at the kana, to know what kind of
onset to look for), never at labels or engine data, and finds the onset near
each mark. Tests and bench/bench_synth.py compare the two.

Kinds of onset, by the mora's first sound (from its romaji) and what precedes it:
  * ``rise``: out of silence (a phrase's first mora) or out of a stop's closure
    (k, g, t, d, p, b, ch, ts, j): the release, where the level first stands
    15 dB (or half the rise, if smaller) above the quietest point just before.
  * ``dip``: any other mora (a vowel, glide, nasal, r or fricative after the
    mora before): the reader articulates it with a dip in loudness; the onset
    is the bottom of the dip (the quietest point near the mark, at least
    MIN_DIP_DB below the loud parts on both sides).

What this does not check: whether the synthesiser's phoneme boundary is where a
phonetician would put it; it checks that the clip's mark is where the sound
shows the new mora (which catches any error in timing, cropping, splicing or
lead-in), to the precision of a 2.5 ms analysis hop.

Every search is limited to SEARCH_S either side of the mark, so the finder
reports "no onset here" rather than a far-away event (`Onset.found`).

A second check, `plain_check`, at the end of this module, does not use the
dips at all (see there).

Measured on all 101 poems, both halves (bench/bench_synth.py, 2026-11-21):
  * this finder: rises (stops, phrase starts) n=1340, worst 20.0 ms, p95 10 ms;
    dips n=1826, worst 17.5 ms (circular: the dips are the synthesiser's own).
  * plain_check, joined morae (vowel, glide, nasal, r, fricative after a mora):
    n=1826, worst 13.9 ms, p95 1.2 ms. Not circular: the reference is the
    engine's own phoneme alignment of a rendering without loops or dips.
  * plain_check, stops inside a phrase: n=835, worst 13.6 ms, p95 10 ms (the
    reference: 15 dB over the closure in the plain sound; the mark: 60% up the
    engine's c0 rise. Two definitions of a release, which differed by up to
    20.9 ms with held ends rendered 0.16 s long: sensitive to the rendering).
  * plain_check, phrase starts (out of silence, stops included): n=505, the
    mark 0-150 ms after the engine's phoneme start (p95 110 ms): where, on
    HTS's fade-in, a sound starts to be heard is the synthesiser's choice
    (audio.synth OUT_OF_SILENCE_SHARE / RELEASE_SHARE, calibrated against THIS
    finder); the plain check only bounds it (FADE_IN_MAX_S). This is the
    weakest-checked kind of mark.
  * the importer's placement (audio.onsets.place_morae, written for recorded
    readings by another engineer): median 9.2 ms from the marks, 73% within
    20 ms, 87% within 50 ms, a few gross misplacements (up to 1.5 s): a third
    opinion that agrees on most marks, not a check to 20 ms.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

HOP = 120           # 2.5 ms at 48 kHz
WIN = 480           # 10 ms
SEARCH_S = 0.03
STOP_ONSETS = ("k", "g", "t", "d", "p", "b", "ch", "ts", "j")
MIN_FALL_DB = 3.0
FLOOR_BELOW_DB = 70.0  # a rise is measured from at most this far below its top
MIN_RISE_DB = 12.0   # least rise out of a closure or silence
RISE_TOP_S = 0.1     # the loud part a rise leads to is looked for this far past the window
RISE_ABOVE_FLOOR_DB = 15.0  # a release is heard once the level is this far above the closure
CLOSURE_HOPS = 4     # a closure's level: its lowest 10 ms
MIN_DIP_DB = 4.0


@dataclass(frozen=True)
class Onset:
    kind: str
    sample: int | None   # None: nothing found near the mark
    strength: float

    @property
    def found(self) -> bool:
        return self.sample is not None


def onset_kinds(phrase_morae: Sequence[Sequence[str]], legato: bool = True) -> list[str]:
    """"rise" or "dip" for every mora. Read legato (the voice's default since
    issue 12), only the verse's first mora comes out of silence: a later
    phrase's first mora is joined to the held end before it."""
    from poems import romaji
    kinds = []
    for p, phrase in enumerate(phrase_morae):
        for k, mora in enumerate(phrase):
            r = romaji(mora)
            if (k == 0 and (p == 0 or not legato)) or r.startswith(STOP_ONSETS):
                kinds.append("rise")
            else:
                kinds.append("dip")
    return kinds


class Analysis:
    """Short-time level and band spectrum of a clip (2.5 ms hop)."""

    def __init__(self, samples: np.ndarray, rate: int):
        self.rate = rate
        x = np.asarray(samples, dtype=np.float64)
        n = max(1, 1 + (len(x) - WIN) // HOP)
        idx = np.arange(WIN)[None, :] + HOP * np.arange(n)[:, None]
        frames = np.pad(x, (0, WIN))[idx] * np.hanning(WIN)
        power = np.abs(np.fft.rfft(frames, n=512, axis=1)) ** 2
        freqs = np.fft.rfftfreq(512, 1 / rate)
        edges = np.geomspace(100, 12000, 25)
        bands = np.stack([power[:, (freqs >= a) & (freqs < b)].sum(axis=1)
                          for a, b in zip(edges[:-1], edges[1:])], axis=1)
        floor = 1e-10 * max(1.0, float(power.max()))
        self.bands_db = 10 * np.log10(bands + floor)
        self.level_db = 10 * np.log10(power.sum(axis=1) + floor)
        self.centre = HOP * np.arange(n) + WIN // 2  # sample at each frame's centre

    def frame(self, sample: int) -> int:
        return int(np.clip(round((sample - WIN // 2) / HOP), 0, len(self.centre) - 1))

    def find(self, mark: int, kind: str) -> Onset:
        search = int(SEARCH_S * self.rate / HOP)
        lo, hi = max(1, self.frame(mark) - search), min(len(self.centre) - 2, self.frame(mark) + search)
        if kind == "rise":
            return self._rise(lo, hi)
        if kind == "dip":
            return self._dip(lo, hi)
        return self._fall(lo, hi)

    def _rise(self, lo: int, hi: int) -> Onset:
        level = self.level_db
        ahead = int(RISE_TOP_S * self.rate / HOP)
        # the closure's lowest 10 ms, not one frame's dip where the vowel before fades
        # (a closure that is not digital silence may lie above such a dip; issue 25)
        power = 10 ** (level[lo:hi + 1] / 10)
        smooth = np.convolve(power, np.ones(CLOSURE_HOPS) / CLOSURE_HOPS, "same")
        bottom = lo + int(np.argmin(smooth))
        top = float(level[bottom:min(len(level), hi + ahead)].max())
        floor = max(float(level[bottom]), top - FLOOR_BELOW_DB)  # digital silence is not a level
        rise = top - floor
        if rise < MIN_RISE_DB:
            return Onset("rise", None, rise)
        half = floor + min(RISE_ABOVE_FLOOR_DB, rise / 2)
        t = bottom + int(np.argmax(level[bottom:] >= half))
        return Onset("rise", int(self.centre[t]) if t <= hi else None, rise)

    def _dip(self, lo: int, hi: int) -> Onset:
        level = self.level_db
        ctx = int(0.04 * self.rate / HOP)
        t = lo + int(np.argmin(level[lo:hi + 1]))
        before = float(level[max(0, t - ctx):t].max(initial=-1e9))
        after = float(level[t:t + ctx].max(initial=-1e9))
        depth = min(before, after) - float(level[t])
        return Onset("dip", int(self.centre[t]) if depth >= MIN_DIP_DB else None, depth)

    def _fall(self, lo: int, hi: int) -> Onset:
        """Vowel peak in the 30 ms before the window's middle, lowest point after it."""
        level = self.level_db
        ctx = int(0.03 * self.rate / HOP)
        mid = (lo + hi) // 2
        a = max(0, lo - ctx)
        top = a + int(np.argmax(level[a:mid + 1]))
        bottom = top + int(np.argmin(level[top:hi + 1]))
        drop = float(level[top] - level[bottom])
        if drop < MIN_FALL_DB:
            return Onset("fall", None, drop)
        t = top + int(np.argmax(level[top:bottom + 1] <= level[top] - drop / 2))
        return Onset("fall", int(self.centre[t]) if lo <= t <= hi else None, drop)


def check_clip(clip, phrase_morae: Sequence[Sequence[str]],
               kinds: Sequence[str] = ("rise", "dip")) -> list[tuple[int, str, int, int | None]]:
    """For every mora of the `kinds` asked for: (index, kind, mark, onset found in the sound or None).

    A voice read legato, without dips (audio.synth_chant.ChantStyle.mora_dip_db
    0), shows no "dip" to find: its joined morae are checked by `plain_check`."""
    analysis = Analysis(clip.samples, clip.rate)
    marks = clip.mora_marks()
    out = []
    for k, kind in enumerate(onset_kinds(phrase_morae)):
        if kind not in kinds:
            continue
        found = analysis.find(marks[k], kind)
        out.append((k, kind, marks[k], found.sample))
    return out


# --- A second, independent check: the clip against a plain rendering ---------
#
# `check_clip` finds the dips the synthesiser itself puts at its marks, so it
# cannot tell a dip put at the wrong place from a right one. `plain_check` does
# not look at dips at all. It renders the verse again, untouched
# (audio.synth.render_plain: every phoneme at its full planned length, no
# loops, glides, dips, fades, splices or lead-in), takes where each mora
# begins in THAT rendering (the engine's own phoneme alignment; for a mora out
# of silence or a stop's closure, the release as `Analysis._rise` finds it in
# the plain sound), and finds where that moment lies in the clip by matching
# the spectral shape (band levels minus their mean: blind to loudness, so a
# dip does not move it) of the clip around it against the plain rendering.
# The clip's mark must be there. This catches any error in the synthesiser's
# time arithmetic (held ends lengthened by loops, glides, breaks inserted,
# lead-in, the stop/onset shares), which the dip finder cannot.

MATCH_BEFORE_S, MATCH_AFTER_S = 0.08, 0.12  # the stretch of clip matched around each moment
FIRST_SEARCH_S = 0.2   # the first mora is looked for this far either side (lead-in unknown)
TRACK_SEARCH_S = 0.08  # each next one this far from where the previous offset predicts
SHAPE_FLOOR_DB = 60.0  # frames this far under the loudest are silence: not compared
# Where the clip holds the plain rendering's own waveform around a moment (no
# loop, glide, vibrato or dip there, only the clip's overall gain), the moment
# is found by that waveform: a correlation this close to 1 over WAVE_S either side
# is the same sound, to the sample. The spectral shape is the fallback: at a
# quick pulse (issue 25's phrase 2, 0.2 s a mora) its 0.2 s window spans
# neighbouring morae of one vowel and slid 65-80 ms where the waveform showed
# the mark exact.
WAVE_S = 0.03
WAVE_SAME = 0.999


def _shape(a: Analysis) -> tuple[np.ndarray, np.ndarray]:
    shape = a.bands_db - a.bands_db.mean(axis=1, keepdims=True)
    return shape, a.level_db > a.level_db.max() - SHAPE_FLOOR_DB


def plain_references(rendering, verse, phrase_morae: Sequence[Sequence[str]], rate: int) -> list[int]:
    """Where each mora begins in a plain rendering (samples): its first phoneme's
    start by the engine's alignment; for a rise (out of silence or a stop's
    closure) the release found in the plain sound inside the mora."""
    plain = Analysis(rendering.samples, rate)
    starts = rendering.phoneme_starts + [len(rendering.samples)]
    out = []
    for mora, kind in zip(verse.morae, plain_kinds(verse, phrase_morae)):
        start = starts[mora.first]
        if kind == "joined":
            out.append(start)
            continue
        if kind == "silence":
            # out of silence: the engine's own phoneme start, where HTS begins to
            # fade the sound in (how far up the fade it is heard is the
            # synthesiser's choice, not checked here: see the module docstring)
            out.append(start)
            continue
        lo = plain.frame(start - int(0.03 * rate))
        hi = plain.frame(starts[mora.last] + int(0.06 * rate))
        # a release out of a stop's closure: where the level stands 15 dB over the closure
        found = plain._rise(max(1, lo), min(len(plain.centre) - 2, hi))
        out.append(found.sample if found.found else start)
    return out


def plain_kinds(verse, phrase_morae: Sequence[Sequence[str]]) -> list[str]:
    """Every mora's onset as the plain check sees it: "stop" (a release inside a
    phrase), "silence" (a phrase's first sound, fading in or released out of the
    break) or "joined" (after the mora before)."""
    out = []
    for mora, kind in zip(verse.morae, onset_kinds(phrase_morae)):
        if kind == "dip":
            out.append("joined")
        elif verse.phonemes[mora.first - 1] in ("sil", "pau"):
            out.append("silence")  # a stop too: its closure is the silence before the phrase
        else:
            out.append("stop")
    return out


def plain_check(clip, rendering, verse, phrase_morae: Sequence[Sequence[str]],
                held: Sequence[tuple[int, int]] = ()) -> list[tuple[int, str, int, int | None]]:
    """For every mora: (index, plain kind, mark, where the plain rendering's onset lies in the clip, or None).

    `held`: (plain sample, samples) the plan adds by lengthening held ends
    (audio.synth.render_plain): the search for the next mora is centred that
    much further on; what the loops really inserted is what is measured."""
    rate = clip.rate
    ca, pa = Analysis(clip.samples, rate), Analysis(rendering.samples, rate)
    cs, cv = _shape(ca)
    ps, pv = _shape(pa)
    before, after = int(MATCH_BEFORE_S * rate / HOP), int(MATCH_AFTER_S * rate / HOP)
    refs = plain_references(rendering, verse, phrase_morae, rate)
    kinds = plain_kinds(verse, phrase_morae)
    offset = None  # clip frame minus plain frame, from the last mora matched
    previous = 0
    out: list[tuple[int, str, int, int | None]] = []
    for k, (mark, ref) in enumerate(zip(clip.mora_marks(), refs)):
        r = pa.frame(ref)
        if offset is None:  # the first mora: the clip starts with a lead-in of unknown length
            centre, search = ca.frame(mark) - r, int(FIRST_SEARCH_S * rate / HOP)
        else:
            grown = sum(n for at, n in held if previous < at <= ref)
            centre, search = offset + int(round(grown / HOP)), int(TRACK_SEARCH_S * rate / HOP)
        previous = ref
        if verse.phonemes[verse.morae[k].first - 1] in ("sil", "pau"):
            # nothing to match before a phrase's start out of silence, nor in
            # HTS's fade-in before the sound is audible (a long first mora,
            # 0.285 s, fades in over 0.15 s): take more after it. (A phrase read
            # legato is matched across its join, as any joined mora: after the
            # held end, its first mora is low and level, issue 12, and a match
            # of that steady sound alone could slide along it by 30 ms.)
            audible = r + int(np.argmax(pv[r:])) if pv[r:].any() else r
            p_idx = np.arange(audible, audible + before + after)
        else:
            p_idx = np.arange(r - before, r + after)
        p_idx = p_idx[(p_idx >= 0) & (p_idx < len(ps))]
        best: int | None = None
        best_cost = np.inf
        for lag in range(centre - search, centre + search + 1):
            c_idx = p_idx + lag
            ok = (c_idx >= 0) & (c_idx < len(cs))
            both = ok.copy()
            both[ok] &= cv[c_idx[ok]] & pv[p_idx[ok]]
            if both.sum() < 0.3 * len(p_idx):
                continue
            cost = float(np.mean(np.abs(cs[c_idx[both]] - ps[p_idx[both]])))
            if cost < best_cost:
                best, best_cost = lag, cost
        exact = _same_waveform(clip.samples, rendering.samples, ref, ref + centre * HOP, search * HOP, rate)
        if exact is not None:
            offset = int(round((exact - ref) / HOP))
            out.append((k, kinds[k], mark, exact))
            continue
        if best is None:
            out.append((k, kinds[k], mark, None))
            continue
        offset = best
        out.append((k, kinds[k], mark, int(ref + best * HOP)))
    return out


def _same_waveform(clip: np.ndarray, plain: np.ndarray, ref: int, centre: int, search: int,
                   rate: int) -> int | None:
    """The clip sample where the plain rendering's sound around `ref` lies unchanged
    (within `search` of `centre`), or None where the clip's sound there differs."""
    from scipy.signal import correlate
    w = int(WAVE_S * rate)
    if ref - w < 0 or ref + w > len(plain):
        return None
    piece = plain[ref - w:ref + w].astype(np.float64)
    norm = float(np.linalg.norm(piece))
    a, b = max(0, centre - search - w), min(len(clip), centre + search + w)
    region = clip[a:b].astype(np.float64)
    if norm == 0.0 or len(region) < 2 * w:
        return None
    dots = correlate(region, piece, mode="valid", method="fft")
    energy = np.concatenate([[0.0], np.cumsum(region ** 2)])
    norms = np.sqrt(np.maximum(energy[2 * w:] - energy[:-2 * w], 1e-30))
    score = dots / (norms * norm)
    i = int(np.argmax(score))
    return a + i + w if score[i] >= WAVE_SAME else None


FADE_IN_MAX_S = 0.16  # a phrase's first sound out of silence: its mark at most this after HTS's phoneme start


def plain_verdicts(clip, rendering, verse, phrase_morae: Sequence[Sequence[str]], held: Sequence[tuple[int, int]] = (),
                   tolerance_s: float = 0.02) -> list[tuple[int, str, float | None, bool]]:
    """`plain_check` judged: (index, kind, mark minus plain onset in ms or None, within bounds).

    "stop" and "joined" marks must lie within `tolerance_s` of the plain
    rendering's onset; a "silence" mark (a phrase fading in) must lie after the
    engine's phoneme start, by at most FADE_IN_MAX_S (the check can only bound it)."""
    out: list[tuple[int, str, float | None, bool]] = []
    for k, kind, mark, found in plain_check(clip, rendering, verse, phrase_morae, held):
        if found is None:
            out.append((k, kind, None, False))
            continue
        err = (mark - found) / clip.rate
        ok = 0 <= err <= FADE_IN_MAX_S if kind == "silence" else abs(err) <= tolerance_s
        out.append((k, kind, err * 1000, ok))
    return out
