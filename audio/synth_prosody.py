"""The reading's prosody measured in the sound: the figures of issue 12.

Used by tests/test_synth_prosody.py and bench/bench_synth.py to compare the
synthesised voice with the real reader (REAL_READER: medians over 100 poems
of 101 recordings of a female reader, from the issue). Pitch comes from an
independent tracker (pyworld's DIO + StoneMask on the clip's samples, a test/bench
dependency), never from the synthesiser's own targets; the clip's marks only
say where the phrases and morae are. Loudness from 5 ms frames of the samples.

Definitions (each figure is a median over all poems measured):
  * reciting tone: the median F0 (semitones) over the held phrase ends of the
    half-verse, from 0.1 s after the mora's onset to 0.05 s before it ends;
  * first_mora_st: a phrase's first voiced 30 ms (inside its first 0.3 s)
    against the tone; rise_s: from the phrase's mark until F0 is within 1
    semitone of the tone (every phrase, but the one a run-on phrase leads into);
  * held_change_st / yoin_change_st: late third minus early third of a held
    end (from 0.15 s in to 0.05 s before its end): + rises, - falls;
  * vibrato_hz / vibrato_cents: on held ends of at least 0.5 s, the F0 in
    cents minus its quadratic trend; the strongest frequency in 3-9 Hz and
    sqrt(2) x its standard deviation (the peak excursion of a sine);
  * phrase_iqr_st: the IQR of F0 inside each phrase (its mark to the next);
  * range_st: p5-p95 of F0 over a half-verse (mora:0 to end);
  * break_s: silence (under SILENT_DB) between a phrase's held end and the
    next phrase's mark; gaps: runs of silence of at least 30 ms per
    half-verse (the issue gives no figure for the real reader), and
    gaps_not_closure: those not before a voiceless stop (k, t, p, ch, ts),
    whose closure is a silence in any reading; dip_db: at every mora joined
    to the one before (not a stop, not a phrase start), how far the level
    falls within 20 ms of its mark under the loudest 40 ms on either side;
  * voiced: share of 5 ms frames the tracker calls voiced from mora:0 to end;
  * held_s: a phrase end's onset to the next phrase's mark (phrases 1-2 of the
    kami-no-ku) or to the end (the kami-no-ku's last mora); kami_s: mora:0 to end;
  * reach_s (cards 11, 15, 31, 50, 64, 76): mora:0 to phrase:1.

Issue 25 added, against its reader's figures (ISSUE25_READER):
  * silences: runs of at least 30 ms under SILENCE_DB (-40 dB under the
    half-verse's loudest 5 ms) from mora:0 to the last mora's mark (the yoin's
    fade is not a break), per half-verse; silence_ms their total;
  * kami_phrase1_s ... shimo_phrase1_s: a phrase's mark to the next's (the last
    phrase to `end`); phrase_mora_r (`phrase_mora_r()`): the correlation of a
    phrase's length with its mora count, both taken about their mean for that
    phrase of that half (so only extra or missing morae count);
  * held_vibrato_* (held ends of the kami-no-ku) and yoin_vibrato_* (the
    shimo-no-ku's last vowel): rate and depth as above; their spread is the IQR;
  * yoin_s: the last mora's mark to `end`; fade_1s / fade_05s / fade_025s: the
    level (50 ms) that long before `end`, against the yoin's loudest 50 ms;
  * peak_dbfs: the clip's sample peak;
  * run_on_first_mora_st: on the six run-on cards, phrase 2's first voiced
    30 ms against the tone (the reader still starts it low; her -13 st is
    issue 12's figure for every phrase).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

RUN_ON_CARDS = (11, 15, 31, 50, 64, 76)  # kimariji ends on the first mora of phrase 2
TRACK_RATE = 16_000  # the tracker runs on a 16 kHz copy (the F0 is far below 8 kHz)
STEP_S = 0.005
SILENT_DB = -45.0  # a 5 ms frame this far under the half-verse's loudest is silence
SILENCE_DB = -40.0  # issue 25's definition of a silence (runs of 30 ms or more)
VOICELESS_STOPS = ("k", "t", "p", "ch", "ts")  # morae whose consonant begins with a closed mouth

# (measure, real reader's median, its range where the issue gives one, unit)
REAL_READER = {
    "first_mora_st": (-13.0, None, "st under the tone"),
    "rise_s": (0.30, (0.24, 0.37), "s"),
    "held_change_st": (0.06, None, "st"),
    "yoin_change_st": (0.08, None, "st"),
    "vibrato_hz": (5.7, None, "Hz"),
    "vibrato_cents": (42.0, None, "cents"),
    "phrase_iqr_st": (0.50, None, "st"),
    "range_st": (12.8, None, "st"),
    "break_s": (0.01, None, "s"),
    "gaps": (None, None, "per half-verse"),
    "gaps_not_closure": (0.0, None, "per half-verse"),
    "dip_db": (None, None, "dB"),
    "voiced": (0.96, (0.93, 0.99), "share"),
    "held_s": (0.77, None, "s"),
    "kami_end_s": (1.22, None, "s"),
    "kami_s": (6.65, (6.42, 6.93), "s"),
    "reach_s": (1.07, None, "s"),
}


# Issue 25's reader (the same 101 recordings): (median, unit); the figures of
# REAL_READER above stay as issue 12 gave them.
ISSUE25_READER = {
    "silences": (0.0, "per half-verse"),
    "silence_ms": (0.0, "ms per half-verse (0-35)"),
    "silences_not_closure": (0.0, "per half-verse"),
    "voiced": (0.99, "share"),
    "kami_phrase1_s": (1.85, "s"),
    "kami_phrase2_s": (1.95, "s"),
    "kami_phrase3_s": (2.81, "s"),
    "shimo_phrase1_s": (2.71, "s"),
    "run_on_first_mora_st": (-13.0, "st under the tone, phrase 2 of 11 15 31 50 64 76"),
    "held_vibrato_hz": (5.7, "Hz"),
    "held_vibrato_cents": (34.0, "cents"),
    "yoin_vibrato_hz": (5.3, "Hz"),
    "yoin_vibrato_cents": (26.0, "cents"),
    "yoin_s": (2.40, "s"),
    "fade_1s": (-2.9, "dB"),
    "fade_05s": (-6.6, "dB"),
    "fade_025s": (-10.8, "dB"),
    "peak_dbfs": (-3.75, "dBFS"),
}
ISSUE25_READER_R = {"kami": -0.07, "shimo": 0.03}  # phrase length against mora count


@dataclass
class Figures:
    """Every measurement of every half-verse measured, by name (see the module docstring)."""
    values: dict[str, list[float]] = field(default_factory=dict)
    # (part, phrase index, mora count, seconds) of every phrase: phrase_mora_r
    phrases: list[tuple[str, int, int, float]] = field(default_factory=list)

    def phrase_mora_r(self, part: str) -> float:
        """Correlation of phrase length with mora count, each about its phrase's mean."""
        rows = [r for r in self.phrases if r[0] == part]
        if len(rows) < 3:
            return float("nan")
        count = np.array([r[2] for r in rows], dtype=float)
        length = np.array([r[3] for r in rows], dtype=float)
        for p in {r[1] for r in rows}:
            sel = np.array([r[1] == p for r in rows])
            count[sel] -= count[sel].mean()
            length[sel] -= length[sel].mean()
        if not count.any() or not length.any():
            return float("nan")
        return float(np.corrcoef(count, length)[0, 1])

    def add(self, name: str, value) -> None:
        if value is not None and np.isfinite(value):
            self.values.setdefault(name, []).append(float(value))

    def median(self, name: str) -> float:
        xs = self.values.get(name, [])
        return float(np.median(xs)) if xs else float("nan")

    def iqr(self, name: str) -> tuple[float, float]:
        xs = self.values.get(name, [])
        return tuple(np.percentile(xs, [25, 75])) if xs else (float("nan"), float("nan"))


def track(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(times in s, F0 in Hz, 0 where unvoiced) by DIO + StoneMask on a 16 kHz copy."""
    import pyworld
    from scipy.signal import resample_poly
    x = resample_poly(np.asarray(samples, dtype=np.float64), TRACK_RATE, rate)
    f0, t = pyworld.dio(x, TRACK_RATE, f0_floor=70.0, f0_ceil=600.0, frame_period=STEP_S * 1000)
    return t, pyworld.stonemask(x, f0, t, TRACK_RATE)


def levels_db(samples: np.ndarray, rate: int) -> np.ndarray:
    """Level of every 5 ms frame (10 ms window), dB under the loudest."""
    hop, win = int(STEP_S * rate), int(2 * STEP_S * rate)
    x = np.pad(np.asarray(samples, dtype=np.float64), (win // 2, win))
    n = len(samples) // hop
    frames = x[np.arange(win)[None, :] + hop * np.arange(n)[:, None]]
    db = 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-14)
    return db - db.max()


def _st(f0: np.ndarray) -> np.ndarray:
    return 12 * np.log2(f0 / 440.0)


def _between(t, f0, a: float, b: float) -> np.ndarray:
    """Voiced F0 (semitones re 440 Hz) in [a, b) seconds."""
    sel = (t >= a) & (t < b) & (f0 > 0)
    return _st(f0[sel])


def vibrato(t, f0, a: float, b: float) -> tuple[float, float] | None:
    """(rate Hz, peak excursion cents) of the F0 over [a, b), or None if too little is voiced."""
    sel = (t >= a) & (t < b)
    if sel.sum() < 0.4 / STEP_S or np.mean(f0[sel] > 0) < 0.9:
        return None
    tt, ff = t[sel], f0[sel]
    ok = ff > 0
    cents = np.interp(tt, tt[ok], 1200 * np.log2(ff[ok]))
    cents = cents - np.polyval(np.polyfit(tt - tt[0], cents, 2), tt - tt[0])
    spectrum = np.abs(np.fft.rfft(cents * np.hanning(len(cents)), n=4096))
    freqs = np.fft.rfftfreq(4096, STEP_S)
    band = (freqs >= 3) & (freqs <= 9)
    rate = float(freqs[band][np.argmax(spectrum[band])])
    spec = np.fft.rfft(cents)
    fr = np.fft.rfftfreq(len(cents), STEP_S)
    spec[(fr < 3) | (fr > 9)] = 0
    return rate, float(np.sqrt(2) * np.std(np.fft.irfft(spec, n=len(cents))))


def measure(figures: Figures, clip, phrase_morae: Sequence[Sequence[str]], part: str, no: int) -> None:
    """Add the figures of one half-verse (a Clip with marks) to `figures`."""
    from poems import romaji
    rate = clip.rate
    t, f0 = track(clip.samples, rate)
    db = levels_db(clip.samples, rate)
    marks = [m / rate for m in clip.mora_marks()]
    end = clip.marks["end"] / rate
    phrase_of = [p for p, morae in enumerate(phrase_morae) for _ in morae]
    kana = [m for morae in phrase_morae for m in morae]
    firsts = [k for k in range(len(marks)) if k == 0 or phrase_of[k] != phrase_of[k - 1]]
    lasts = [k - 1 for k in firsts[1:]] + [len(marks) - 1]
    run_on = part == "kami" and no in RUN_ON_CARDS
    nxt = [marks[f] for f in firsts[1:]] + [end]
    held = [(marks[k], stop) for p, (k, stop) in enumerate(zip(lasts, nxt)) if not (run_on and p == 0)]

    tone_frames = np.concatenate([_between(t, f0, a + 0.1, b - 0.05) for a, b in held])
    if len(tone_frames) == 0:
        return
    tone = float(np.median(tone_frames))
    for p, k in enumerate(firsts):
        a = marks[k]
        first = _between(t, f0, a, a + 0.3)[: int(0.03 / STEP_S)]
        if run_on and p == 1:
            # read in one breath from phrase 1, and still started low (issue 25)
            if len(first):
                figures.add("run_on_first_mora_st", float(np.median(first)) - tone)
            continue
        if len(first):
            figures.add("first_mora_st", float(np.median(first)) - tone)
        sel = (t >= a) & (t < a + 0.8) & (f0 > 0)
        reached = np.flatnonzero(_st(f0[sel]) >= tone - 1.0)
        if len(reached):
            figures.add("rise_s", float(t[sel][reached[0]] - a))
    for i, (a, b) in enumerate(held):
        yoin = part == "shimo" and i == len(held) - 1
        lo, hi = a + 0.15, b - 0.05
        if hi - lo >= 0.3:
            third = (hi - lo) / 3
            early, late = _between(t, f0, lo, lo + third), _between(t, f0, hi - third, hi)
            if len(early) and len(late):
                figures.add("yoin_change_st" if yoin else "held_change_st", np.median(late) - np.median(early))
        if b - a >= 0.5:
            v = vibrato(t, f0, a + 0.15, b - 0.05)
            if v:
                figures.add("vibrato_hz", v[0])
                figures.add("vibrato_cents", v[1])
                if yoin or part == "kami":
                    figures.add(("yoin" if yoin else "held") + "_vibrato_hz", v[0])
                    figures.add(("yoin" if yoin else "held") + "_vibrato_cents", v[1])
    for p, k in enumerate(firsts):
        inside = _between(t, f0, marks[k], nxt[p])
        if len(inside) > 10:
            q = np.percentile(inside, [25, 75])
            figures.add("phrase_iqr_st", q[1] - q[0])
    whole = _between(t, f0, marks[0], end)
    if len(whole):
        q = np.percentile(whole, [5, 95])
        figures.add("range_st", q[1] - q[0])

    def frame(s: float) -> int:
        return int(round(s / STEP_S))
    silent = db < SILENT_DB
    for p in range(1, len(firsts)):
        figures.add("break_s", silent[frame(marks[lasts[p - 1]]):frame(marks[firsts[p]])].sum() * STEP_S)
    gaps = _gap_starts(silent[frame(marks[0]):frame(end)])
    figures.add("gaps", len(gaps))
    # A voiceless stop is a closed mouth: silence is how it is said. Any other
    # gap is a break in the legato (a join, a dip, a voice falling silent).
    after = np.searchsorted(marks, marks[0] + np.asarray(gaps) * STEP_S)  # the mora each gap leads into
    closures = sum(1 for m in after if m < len(marks) and romaji(kana[m]).startswith(VOICELESS_STOPS))
    figures.add("gaps_not_closure", len(gaps) - closures)
    for k in range(1, len(marks)):
        if k in firsts or romaji(kana[k]).startswith(("k", "g", "t", "d", "p", "b", "ch", "ts", "j")):
            continue
        c = frame(marks[k])
        around = db[c - 4:c + 5].min()
        figures.add("dip_db", min(db[c - 8:c].max(), db[c:c + 8].max()) - around)
    sel = (t >= marks[0]) & (t < end)
    figures.add("voiced", float(np.mean(f0[sel] > 0)))
    _issue25(figures, clip, db, marks, firsts, end, part, [len(m) for m in phrase_morae], kana)
    if part == "kami":
        for p, (a, b) in enumerate(zip([marks[k] for k in lasts], nxt)):
            if p < len(lasts) - 1 and not (run_on and p == 0):
                figures.add("held_s", b - a)
        figures.add("kami_end_s", end - marks[lasts[-1]])
        figures.add("kami_s", end - marks[0])
        if run_on:
            figures.add("reach_s", marks[firsts[1]] - marks[0])


def _issue25(figures: Figures, clip, db: np.ndarray, marks: list[float], firsts: list[int], end: float,
             part: str, counts: list[int], kana: list[str]) -> None:
    """Issue 25's figures of one half-verse (module docstring)."""
    from poems import romaji

    def frame(s: float) -> int:
        return int(round(s / STEP_S))

    silent = db[frame(marks[0]):frame(marks[-1])] < SILENCE_DB
    runs = [(a, n) for a, n in _runs(silent) if n * STEP_S >= 0.03]
    figures.add("silences", len(runs))
    figures.add("silence_ms", sum(n for _, n in runs) * STEP_S * 1000)
    # those not at a voiceless stop's closure (which any reading may leave silent)
    after = np.searchsorted(marks, marks[0] + np.array([a for a, _ in runs], dtype=float) * STEP_S)
    figures.add("silences_not_closure", sum(1 for m in after if not (
        m < len(kana) and romaji(kana[m]).startswith(VOICELESS_STOPS))))
    starts = [marks[k] for k in firsts] + [end]
    for p, count in enumerate(counts):
        figures.add(f"{part}_phrase{p + 1}_s", starts[p + 1] - starts[p])
        figures.phrases.append((part, p, count, starts[p + 1] - starts[p]))
    x = np.asarray(clip.samples, dtype=np.float64)
    figures.add("peak_dbfs", 20 * np.log10(max(1e-12, float(np.max(np.abs(x))))))
    if part != "shimo":
        return
    figures.add("yoin_s", end - marks[-1])
    rate, win = clip.rate, int(0.05 * clip.rate)

    def level(at: float) -> float:
        i = int(at * rate)
        seg = x[max(0, i - win // 2):i + win // 2]
        return 10 * np.log10(np.mean(seg ** 2) + 1e-14)

    a, b = int(marks[-1] * rate), int(end * rate)
    loudest = max(level((i + win // 2) / rate) for i in range(a, max(a + 1, b - win), win // 2))
    for name, before in (("fade_1s", 1.0), ("fade_05s", 0.5), ("fade_025s", 0.25)):
        if end - before > marks[-1]:
            figures.add(name, level(end - before) - loudest)


def _runs(silent: np.ndarray) -> list[tuple[int, int]]:
    """(first frame, length in frames) of every run of True."""
    out, run = [], 0
    for i, s in enumerate(silent):
        if s:
            run += 1
        elif run:
            out.append((i - run, run))
            run = 0
    return out + ([(len(silent) - run, run)] if run else [])


def issue25_table(figures: Figures) -> list[str]:
    """Issue 25's figures next to its reader's, one line each."""
    lines = [f"  {'measure':<20} {'reader':>8} {'this voice':>11}  (IQR; unit)"]
    for name, (real, unit) in ISSUE25_READER.items():
        q = figures.iqr(name)
        lines.append(f"  {name:<20} {real:>8g} {figures.median(name):>11.3g}  ({q[0]:.3g}-{q[1]:.3g}; {unit}, "
                     f"n={len(figures.values.get(name, []))})")
    for part, real in ISSUE25_READER_R.items():
        lines.append(f"  {'phrase_mora_r ' + part:<20} {real:>8g} {figures.phrase_mora_r(part):>11.3g}")
    return lines


def _gap_starts(silent: np.ndarray) -> list[int]:
    """Frame where every run of at least 30 ms of silent frames starts."""
    need, run, starts = int(0.03 / STEP_S), 0, []
    for i, s in enumerate(silent):
        run = run + 1 if s else 0
        if run == need:
            starts.append(i - need + 1)
    return starts


def table(figures: Figures) -> list[str]:
    """The figures next to the real reader's, one line each."""
    lines = [f"  {'measure':<16} {'real reader':>12} {'this voice':>11}  (IQR of this voice; unit)"]
    for name, (real, span, unit) in REAL_READER.items():
        q = figures.iqr(name)
        real_s = "?" if real is None else f"{real:g}" + (f" ({span[0]:g}-{span[1]:g})" if span else "")
        lines.append(f"  {name:<16} {real_s:>12} {figures.median(name):>11.3g}  ({q[0]:.3g}-{q[1]:.3g}; {unit}, "
                     f"n={len(figures.values.get(name, []))})")
    return lines


# --- わ heard as ま: an acoustic proxy (no speech recogniser ships offline here) ---
#
# A nasal (m) is a murmur: its energy sits under 500 Hz while the mouth is
# closed, and the release into the vowel is abrupt (the 1-3 kHz band jumps);
# a glide (w) has no closure: its 1-3 kHz energy grows gradually. Two
# figures per mora onset, from the samples only:
#   murmur_db: over the first 30 ms, the level under 500 Hz minus the 1-3 kHz level;
#   abrupt_db: the largest rise of the 1-3 kHz level within 20 ms, in the 110 ms from the onset.
# A わ is counted "m-like" when its two figures (each scaled by the spread
# of the reference tokens) lie nearer the ま centroid than the わ centroid of
# the reference: the plain pyopenjtalk voice (the same HTS model, speaking).


def onset_features(samples: np.ndarray, rate: int, onset: int) -> tuple[float, float]:
    """(murmur_db, abrupt_db) of the mora starting at sample `onset`."""
    hop, win = int(0.005 * rate), int(0.010 * rate)
    a = max(0, onset - 2 * hop)
    x = np.asarray(samples[a:onset + int(0.14 * rate)], dtype=np.float64)
    n = max(1, (len(x) - win) // hop)
    frames = np.stack([x[i * hop:i * hop + win] * np.hanning(win) for i in range(n)])
    power = np.abs(np.fft.rfft(frames, n=2048, axis=1)) ** 2
    f = np.fft.rfftfreq(2048, 1 / rate)
    low = 10 * np.log10(power[:, (f >= 80) & (f < 500)].sum(axis=1) + 1e-12)
    mid = 10 * np.log10(power[:, (f >= 1000) & (f < 3000)].sum(axis=1) + 1e-12)
    first = slice(2, 2 + 6)  # the 30 ms from the onset
    murmur = float(np.mean(low[first] - mid[first]))
    span = mid[: 2 + 22]
    abrupt = float(max((span[i + 4] - span[i] for i in range(len(span) - 4)), default=0.0))
    return murmur, abrupt


def m_like(wa: Sequence[tuple[float, float]], ref_wa: Sequence[tuple[float, float]],
           ref_ma: Sequence[tuple[float, float]]) -> float:
    """Share of the わ tokens `wa` nearer the reference ま centroid than the reference わ one."""
    rw, rm = np.asarray(ref_wa), np.asarray(ref_ma)
    scale = np.std(np.concatenate([rw, rm]), axis=0) + 1e-9
    cw, cm = rw.mean(axis=0) / scale, rm.mean(axis=0) / scale
    w = np.asarray(wa) / scale
    return float(np.mean(np.linalg.norm(w - cm, axis=1) < np.linalg.norm(w - cw, axis=1)))


def plain_speech(phrases, phrase_morae, engine):
    """The verse as the HTS voice speaks it unaided (its own lengths and pitch,
    as pyopenjtalk.synthesize does, with a pause between phrases), and every
    mora's onset: (samples, onsets)."""
    from audio import synth_chant as chant
    from audio.synth_hts import FRAME, openjtalk
    v = chant.verse(phrases, phrase_morae, breaks=True)
    natural = engine.natural_durations(v.labels)
    wav, rate = openjtalk().synthesize(v.labels)
    starts = np.concatenate([[0], np.cumsum(natural)]) * FRAME
    return np.asarray(wav, dtype=np.float64) / 32768.0, [int(starts[m.first]) for m in v.morae]
