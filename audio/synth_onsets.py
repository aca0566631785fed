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
MIN_DIP_DB = 4.0


@dataclass(frozen=True)
class Onset:
    kind: str
    sample: int | None   # None: nothing found near the mark
    strength: float

    @property
    def found(self) -> bool:
        return self.sample is not None


def onset_kinds(phrase_morae: Sequence[Sequence[str]]) -> list[str]:
    from poems import romaji
    kinds = []
    for phrase in phrase_morae:
        for k, mora in enumerate(phrase):
            r = romaji(mora)
            if k == 0 or r.startswith(STOP_ONSETS):
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
        bands = np.stack([power[:, (freqs >= a) & (freqs < b)].sum(axis=1) for a, b in zip(edges[:-1], edges[1:])], axis=1)
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
        bottom = lo + int(np.argmin(level[lo:hi + 1]))
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
        depth = min(float(level[max(0, t - ctx):t].max(initial=-1e9)), float(level[t:t + ctx].max(initial=-1e9))) - float(level[t])
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


def check_clip(clip, phrase_morae: Sequence[Sequence[str]]) -> list[tuple[int, str, int, int | None]]:
    """For every mora: (index, kind, mark, onset found in the sound or None)."""
    analysis = Analysis(clip.samples, clip.rate)
    marks = clip.mora_marks()
    out = []
    for k, kind in enumerate(onset_kinds(phrase_morae)):
        found = analysis.find(marks[k], kind)
        out.append((k, kind, marks[k], found.sample))
    return out
