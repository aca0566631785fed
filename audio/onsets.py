"""Signal analysis of a recorded reading: where the voice is, where the
kami-no-ku (上の句) ends and the shimo-no-ku (下の句) begins, and where each
mora starts.

Everything here works on mono float32 samples at `audio.voice.RATE` and
returns sample offsets or plain values; no files, no poems. The importer
(`audio.importer`) turns these into clips and warnings.

Method, in short:
- level: RMS in dB over 20 ms windows every 5 ms; the noise floor is a low
  percentile, the speech level a high one, and the voiced threshold sits
  between them (`Levels`).
- split: the longest silence in the middle part of the voiced span (a
  reader's pause between kami and shimo is much longer than the breaths
  between phrases). The joka is often read kami · shimo · shimo: two pauses
  of similar length, and the two last parts alike (`split_three`).
- morae: the number of morae is known from the text, so instead of picking
  peaks of an onset detector we choose exactly that many onsets by dynamic
  programming on a 10 ms grid: onset strength (a rise of band energy, or a
  change of spectral tilt as at a nasal or a fricative) is rewarded, mora
  durations far from the reading's pace are penalised (phrase-final morae
  only when shorter than HELD_RATIO morae: readers hold them). Durations count
  speaking time: a stop's closure belongs to its mora, a breath between
  phrases to none.
- phrase starts: a reader like the real one of issue 12 reads legato and
  starts every phrase about 13 semitones under the reciting tone, rising to it
  in 0.3 s (`pitch_drops`: the pitch after a frame against the tone and the
  pitch before, across an unvoiced consonant; a tracker's octave error is told
  from a low start by the pitch after it). How surely this reader starts low
  (`low_start_evidence`, judged on the whole poem) weighs drops against
  silences: a low-starting reader's silences are stops' closures, not breaths.
  On a card whose kimariji ends on the next phrase's first mora the reader may
  read it in one breath (phrase 1 fast, no held end, no low start): where no
  low start is found there, that reading is placed too and kept if it explains
  the sound better.
- pace: guessed from the speaking time up to the verse's last clear change
  (a held end or yoin says nothing of it), then measured on the plain morae of
  a placement and placed again until the two agree; the best of that and 15 %
  either side is kept.
- refinement: each onset is moved, at 2.5 ms, to the first clear change of
  its mora (the consonant, not the louder vowel after it); knowing the kana,
  a fricative's mora to where its noise starts (up to 0.18 s before its vowel:
  し, ひ, and the voiced ざ, じ that barely change the loudness), a nasal's to
  where its murmur starts, a low phrase start to where its drop begins (a
  stop keeps its release). No two morae closer than MIN_MORA_S (60 ms).
- a verse's first mora, low and soft, may be drawn out at little cost
  (`_first_mora_costs`): priced at the pace, its second change (a burst's
  hiss, a nasal's vowel) was taken for the next mora (issue 23).
- the deciding mora (and those before it): checked against its consonant's
  own onset (`deciding_onset`: a fricative's noise, a stop's closure and
  release); one heard clearly later is where the mora is placed again.

Measured mark error: bench/bench_import_marks.py (legato readings: the real
reader's manner and the synthesised chant, all 100 poems) and
bench/bench_import.py (breathing readings, MP3, speed).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.fft

HOP = 240          # 5 ms at 48 kHz: resolution of levels and silences
WIN = 960          # 20 ms RMS window
MIN_PAUSE_S = 0.15  # a silence shorter than this is not a kami/shimo pause
SHORT_PAUSE_S = 0.4  # a pause of the joka's three parts is at least this long
SPLIT_REGION = (0.2, 0.8)  # where, as a fraction of the voiced span, the pause may lie
GAP_FILL_S = 0.04  # silences shorter than this inside speech are not silences
BLIP_S = 0.03      # voiced bits shorter than this (clicks) are not speech
PHRASE_GAP_S = (0.06, 0.25)  # a silence inside a verse is a breath between phrases if it is
                             # longer than the first and clearly longer than the others
                             # (`breath_gaps`), or longer than the second; others are a
                             # stop's closure (up to ~0.12 s in a slow reading or in HTS)
BREATH_OVER_CLOSURE = 1.5  # a breath is at least this much longer than any closure of its verse


def frame_db(x: np.ndarray, hop: int = HOP, win: int = WIN) -> np.ndarray:
    """RMS level in dB of a window of `win` samples centred on every `hop`-th sample."""
    per = win // hop
    n = len(x) // hop + 1
    blocks = np.zeros(n + per, np.float64)  # energy of each hop-long block, zero-padded
    full = len(x) // hop * hop
    sq = np.square(x, dtype=np.float32)
    blocks[per // 2: per // 2 + len(x) // hop] = sq[:full].reshape(-1, hop).sum(axis=1)
    blocks[per // 2 + len(x) // hop] = sq[full:].sum()
    c = np.concatenate(([0.0], np.cumsum(blocks)))
    energy = (c[per:per + n] - c[:n]) / win
    return 10.0 * np.log10(energy + 1e-10)


@dataclass(frozen=True)
class Levels:
    db: np.ndarray          # per frame
    floor_db: float         # noise floor (low percentile)
    speech_db: float        # loud speech (high percentile)
    threshold_db: float     # frames above are voiced

    @property
    def dynamic_range_db(self) -> float:
        return self.speech_db - self.floor_db


def levels(x: np.ndarray) -> Levels:
    db = frame_db(x)
    floor = float(np.percentile(db, 5))
    speech = float(np.percentile(db, 99))
    # Between floor and speech, but never far below the speech: room reverb and
    # breath noise 45 dB under the voice are not reading.
    thr = max(floor + 0.3 * (speech - floor), speech - 45.0)
    return Levels(db, floor, speech, thr)


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) index pairs of the True runs of a boolean array."""
    m = np.concatenate(([False], mask, [False])).astype(np.int8)
    d = np.diff(m)
    return list(zip(np.flatnonzero(d == 1).tolist(), np.flatnonzero(d == -1).tolist()))


def voiced_mask(lv: Levels) -> np.ndarray:
    """Frames holding voice: above threshold, short gaps filled, clicks dropped."""
    mask = lv.db > lv.threshold_db
    fill = int(round(GAP_FILL_S * 48000 / HOP))
    blip = int(round(BLIP_S * 48000 / HOP))
    for a, b in runs(~mask):
        if 0 < a and b < len(mask) and b - a < fill:
            mask[a:b] = True
    for a, b in runs(mask):
        if b - a < blip:
            mask[a:b] = False
    return mask


@dataclass(frozen=True)
class Split:
    """Voiced boundaries of a single-file reading, in frames of HOP samples."""
    kami: tuple[int, int]    # [start, end)
    shimo: tuple[int, int]
    pause_found: bool
    rival_pause: int | None  # frame of a nearly as long silence elsewhere, if any
    repeat: tuple[int, int] | None = None  # the joka's shimo-no-ku read again, not kept
    shimo_limit: int | None = None  # frame the shimo-no-ku's clip must end before


def voiced_span(mask: np.ndarray) -> tuple[int, int] | None:
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return None
    return int(idx[0]), int(idx[-1]) + 1


def fade_threshold(lv: Levels) -> float:
    """Lower than the voiced threshold: a voice fading out (a held vowel dying
    away) still counts down to here, once it has been found above it."""
    return lv.floor_db + max(6.0, 0.15 * lv.dynamic_range_db)


def widen(lv: Levels, start: int, end: int, lo: int, hi: int) -> tuple[int, int]:
    """Voiced frames [start, end) grown to where the sound really fades:
    forward down to `fade_threshold` (no further than `hi`), backward at most
    30 ms (a breath before the voice is not the reading; no further than `lo`)."""
    quiet = lv.db <= fade_threshold(lv)
    reach = int(0.03 * 48000 / HOP)
    back = quiet[max(lo, start - reach):start][::-1]
    start -= int(np.argmax(back)) if back.any() else len(back)
    ahead = quiet[end:hi]
    end += int(np.argmax(ahead)) if ahead.any() else len(ahead)
    return start, end


def split_reading(mask: np.ndarray, lv: Levels) -> Split | None:
    """Split a whole reading (kami, pause, shimo) at its kami/shimo pause.

    The pause is the longest silence whose middle lies in SPLIT_REGION of the
    voiced span. Without one, the quietest 100 ms near the middle is used and
    `pause_found` is False. None if there is no voice at all. The verses are
    widened to their fades (`widen`), never past the middle of the pause.
    """
    db = lv.db
    span = voiced_span(mask)
    if span is None:
        return None
    on, off = span
    length = off - on
    lo, hi = on + SPLIT_REGION[0] * length, on + SPLIT_REGION[1] * length
    min_pause = MIN_PAUSE_S * 48000 / HOP
    gaps = [(b - a, a, b) for a, b in runs(~mask[on:off])]
    gaps = [(n, a + on, b + on) for n, a, b in gaps if lo <= on + (a + b) / 2 <= hi]
    gaps.sort(reverse=True)
    if gaps and gaps[0][0] >= min_pause:
        _, a, b = gaps[0]
        rival = None
        if len(gaps) > 1 and gaps[1][0] >= 0.8 * gaps[0][0]:
            rival = gaps[1][1]
        mid = (a + b) // 2
        return Split(widen(lv, on, a, 0, mid), widen(lv, b, off, mid, len(db)), True, rival)
    # No clear pause: cut at the quietest 100 ms of the middle region.
    w = max(1, int(0.1 * 48000 / HOP))
    seg = db[int(lo):int(hi)]
    if len(seg) <= w:
        cut = (on + off) // 2
    else:
        smooth = np.convolve(seg, np.ones(w) / w, mode="valid")
        cut = int(lo) + int(np.argmin(smooth)) + w // 2
    return Split(widen(lv, on, cut, 0, cut), widen(lv, cut, off, cut, len(db)), False, None)


REPEAT_LENGTHS = 0.25  # a repeated shimo-no-ku lasts within this fraction of the first


def split_three(mask: np.ndarray, lv: Levels) -> Split | None:
    """The joka read as kami · shimo · shimo (序歌: the reader repeats its shimo-no-ku).

    The two longest silences of at least SHORT_PAUSE cut the reading in three;
    it is kami, shimo, shimo again if the last two parts last about as long
    (within REPEAT_LENGTHS) and the first is no fragment. The longest pause
    alone would be either join, and splitting there makes the "kami-no-ku" hold
    a shimo-no-ku too. None if the reading is not like that.
    """
    span = voiced_span(mask)
    if span is None:
        return None
    on, off = span
    min_pause = SHORT_PAUSE_S * 48000 / HOP
    gaps = sorted(((b - a, a + on, b + on) for a, b in runs(~mask[on:off])), reverse=True)[:2]
    if len(gaps) < 2 or gaps[1][0] < min_pause:
        return None
    (_, a1, b1), (_, a2, b2) = sorted(gaps, key=lambda g: g[1])
    kami, shimo, again = a1 - on, a2 - b1, off - b2
    if abs(again - shimo) > REPEAT_LENGTHS * max(shimo, again) or kami < 0.5 * shimo:
        return None
    mid1, mid2 = (a1 + b1) // 2, (a2 + b2) // 2
    return Split(widen(lv, on, a1, 0, mid1), widen(lv, b1, a2, mid1, mid2), True, None,
                 repeat=(b2, off), shimo_limit=mid2)


# --- mora onsets -------------------------------------------------------------

TILT_WEIGHT = 0.7  # weight of a change of spectral tilt against a rise
FIRST_CHANGE = 0.3  # a change this strong, relative to the mora's strongest, starts it
DROP_WEIGHT = 0.75  # reward of a phrase start at a pitch drop (and cost of another mora there)
DROP_TRUST = 1.5    # ... more, for a reader whose phrases start low (`low_start_evidence`)
BREATH_WEIGHT = 1.5  # reward of a phrase start at the end of a breath
LOW_START_CUE = 0.5  # a drop cue this strong is a phrase starting low
RUN_ON_PACE = 0.75  # a phrase read in one breath into the kimariji, against the pace (the real
                    # reader: 1.07 s from the start to phrase 2 on those cards, 0.21 s a mora)
PACE_ROUNDS = 3     # placements at most, each at the pace measured on the one before
PACE_AGREES = 0.03  # ... until the pace measured is within 3 % of the pace placed at
PACE_TRIES = (0.85, 1.15)  # then the best placement at it or these multiples of it
CLEAR_CHANGE = 0.5  # onset strength of a clear change (a consonant, a vowel's attack)
HELD_GUESS = 2.7  # a phrase end as long as this many morae, to guess the pace (the real reader: 0.77 s / 0.285 s)
HELD_RATIO = 2.0  # a phrase-final mora shorter than this many morae costs (readers hold it 2-3)
PACE_WEIGHT = 1.5  # how much a mora duration far from the pace costs, against onset strength
DP_HOP = 480  # 10 ms: the dynamic programme's grid; onsets are refined to 2.5 ms after
MAX_STEP = int(4.0 * 48000 / DP_HOP)  # grid frames: the longest mora (with a breath) considered
DP_COLUMNS = 2048  # onset frames per slice of the programme's tables: bounded memory
MIN_MORA_S = 0.06   # no two morae of a verse are closer than this (issue 23: marks 5-22 ms
MIN_MORA = int(MIN_MORA_S * 48000)  # apart were a mora early, on the real reader's readings)


FFT_BATCH = 2048  # frames transformed at once: memory stays bounded on a long file


def _band_powers(x: np.ndarray, hop: int, nfft: int, edges_hz: tuple[float, ...],
                 only: np.ndarray | None) -> tuple[int, np.ndarray, np.ndarray]:
    """(frame count, the frames measured, their summed power in each band between
    consecutive `edges_hz`: bands x frames, float32). Frames centred on k*hop; with
    `only` (a boolean mask of frames) just those are transformed, in batches so that
    memory stays bounded on a long file."""
    pad = np.concatenate((np.zeros(nfft // 2, np.float32), x.astype(np.float32),
                          np.zeros(nfft // 2, np.float32)))
    n = len(x) // hop + 1
    frames = np.lib.stride_tricks.sliding_window_view(pad, nfft)[::hop][:n]
    idx = np.arange(len(frames)) if only is None else np.flatnonzero(only[:len(frames)])
    bin_hz = 48000 / nfft
    edges = [int(np.ceil(f / bin_hz)) for f in edges_hz]
    window = np.hanning(nfft).astype(np.float32)
    out = np.empty((len(edges) - 1, len(idx)), np.float32)
    for a in range(0, len(idx), FFT_BATCH):
        batch = idx[a:a + FFT_BATCH]
        spec = scipy.fft.rfft(frames[batch] * window, axis=1)[:, edges[0]:edges[-1]]
        power = spec.real ** 2 + spec.imag ** 2
        for k in range(len(edges) - 1):
            out[k, a:a + len(batch)] = power[:, edges[k] - edges[0]:edges[k + 1] - edges[0]].sum(axis=1)
    return n, idx, out


def _band_log_energy(x: np.ndarray, hop: int, nfft: int,
                     only: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Log energy per frame in a low band (voicing, 100-1000 Hz) and a high
    band (consonants and formants, 1-6 kHz). Frames centred on k*hop; with
    `only` (a boolean mask of frames), the others are left at 0."""
    n, idx, power = _band_powers(x, hop, nfft, (100, 1000, 6000), only)
    # frames past the padding's end count as silence
    low, high = np.full(n, np.log(1e-9)), np.full(n, np.log(1e-9))
    low[idx], high[idx] = np.log(power[0] + 1e-9), np.log(power[1] + 1e-9)
    return low, high


def consonant_bands(x: np.ndarray, hop: int, nfft: int, only: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Levels (dB) of 100-1000 Hz, 1-3 kHz and 3-10 kHz per frame (centred on k*hop),
    where `only` is True (elsewhere 0). A fricative's noise (さ, し, ざ, ひ) is loud
    in the top band against the lowest, far more than a vowel; a nasal's murmur
    (な, ま, ん) is weak in the middle band, far weaker than a vowel."""
    n, idx, power = _band_powers(x, hop, nfft, (100, 1000, 3000, 10000), only)
    bands = np.zeros((3, n))
    bands[:, idx] = 10 * np.log10(power + 1e-12)
    return bands[0], bands[1], bands[2]


def raw_onset_strength(x: np.ndarray, hop: int, nfft: int = 1024, half_lag: int = 1,
                       only: np.ndarray | None = None) -> np.ndarray:
    """How sharply band energy changes across every frame (centred difference
    over +-half_lag frames), in log-energy units. With `only`, just there."""
    h = half_lag
    need = None
    if only is not None:
        need = only.copy()
        for k in range(1, h + 1):
            need[k:] |= only[:-k]
            need[:-k] |= only[k:]
    low, high = _band_log_energy(x, hop, nfft, need)
    rise = np.zeros_like(low)
    if len(low) > 2 * h:
        d_low = low[2 * h:] - low[:-2 * h]
        d_high = high[2 * h:] - high[:-2 * h]
        # A new mora is a rise of energy (burst, vowel attack) or a change of
        # spectral tilt: the upper band drops at a nasal (な, ま), the lower at
        # a fricative (さ, は). A drop of both alike (a stop's closure) is not it.
        rise[h:-h] = (np.maximum(d_low, 0) + np.maximum(d_high, 0)
                      + TILT_WEIGHT * np.abs(d_high - d_low))
    if only is not None:
        rise[~only[:len(rise)]] = 0.0
    return rise


def strength_scale(rise: np.ndarray) -> float:
    return float(np.percentile(rise, 98)) if len(rise) else 1.0


PITCH_RATE = 12000   # pitch is tracked on the voice resampled to this rate
PITCH_HZ = (60.0, 500.0)  # lowest and highest fundamental looked for
PITCH_CLEAR = 0.5    # normalised autocorrelation above which a frame is voiced
DROP_ST = (4.0, 10.0)  # a pitch drop of this many semitones is no cue / a full cue
DROP_STEP = 4.0      # semitones by which the step down may fall short of the depth under the tone
RISE_S = 0.45        # a low start has risen to the tone within this (the real reader: 0.30 s)
RISE_BETWEEN_ST = 2.0  # ... through a pitch this far above its start and under the tone
CUE_FOUND = 0.15     # a phrase start with at least this cue (a ~5 st drop) is not in doubt


def pitch_track(x: np.ndarray, hop: int = DP_HOP) -> np.ndarray:
    """Fundamental frequency (Hz) per frame of `hop` samples, 0 where unvoiced.

    Normalised autocorrelation of 40 ms frames at 12 kHz; the shortest lag
    nearly as strong as the best is taken (against octave errors).
    """
    import soxr
    step = 48000 // PITCH_RATE
    y = soxr.resample(x.astype(np.float32), 48000, PITCH_RATE, quality="MQ")
    h, win, nfft = hop // step, int(0.04 * PITCH_RATE), 1024
    lo, hi = int(PITCH_RATE / PITCH_HZ[1]), int(PITCH_RATE / PITCH_HZ[0])
    n = len(x) // hop + 1
    pad = np.concatenate((np.zeros(win // 2, np.float32), y, np.zeros(win, np.float32)))
    frames = np.lib.stride_tricks.sliding_window_view(pad, win)[::h][:n]
    f0 = np.zeros(n)
    for a in range(0, len(frames), FFT_BATCH):
        fr = frames[a:a + FFT_BATCH] - frames[a:a + FFT_BATCH].mean(axis=1, keepdims=True)
        spec = scipy.fft.rfft(fr, nfft, axis=1)
        ac = scipy.fft.irfft(spec.real ** 2 + spec.imag ** 2, nfft, axis=1)[:, :hi + 1]
        # normalise by the overlap's shrinking length and the frame's energy
        ac = ac / (ac[:, :1] + 1e-9) * (win / (win - np.arange(hi + 1)))
        part = ac[:, lo:hi + 1]
        best = part.max(axis=1)
        first = np.argmax(part >= 0.9 * best[:, None], axis=1)
        # the first peak that is nearly the best: climb to its top
        lag = lo + first
        for _ in range(8):
            nxt = np.minimum(lag + 1, hi)
            up = ac[np.arange(len(lag)), nxt] > ac[np.arange(len(lag)), lag]
            lag = np.where(up, nxt, lag)
        f0[a:a + len(fr)] = np.where(best > PITCH_CLEAR, PITCH_RATE / lag, 0.0)
    return f0


def pitch_drops(f0: np.ndarray, before_n: int = 5, after_n: int = 3, reach: int = 25) -> np.ndarray:
    """0..1 per frame: how clearly a phrase starts here by its pitch. A reader
    begins each phrase far under the reciting tone and rises to it.

    The lowest pitch of the first `after_n` voiced frames from the frame on (few,
    and the lowest: the low start rises fast, and a tracker often loses it, or
    finds it in one frame), against the reciting
    tone (the verse's median pitch) and against the last `before_n` voiced
    frames before it, each within `reach` frames. An unvoiced consonant
    at the phrase start (a fricative lasts up to ~0.15 s) lies between the two,
    and the cue covers it. The depth under the tone counts, provided the pitch
    steps down here (by DROP_STEP less than that depth): a voice that glides
    down into the low start before its first sound steps less far.
    """
    n = len(f0)
    cue = np.zeros(n)
    idx = np.flatnonzero(f0 > 0)
    if len(idx) < before_n + after_n:
        return cue
    st = 12 * np.log2(f0[idx] / 100.0)
    tone = float(np.median(st))
    pos = np.searchsorted(idx, np.arange(n))   # first voiced frame at or after each frame
    ok = (pos >= before_n) & (pos <= len(idx) - after_n)
    t = np.flatnonzero(ok)
    p = pos[t]
    before = np.stack([p - k for k in range(1, before_n + 1)], axis=1)
    after = np.stack([p + k for k in range(after_n)], axis=1)
    near = (t - idx[before[:, -1]] <= reach) & (idx[after[:, -1]] - t <= reach)
    low = st[after].min(axis=1)   # a tracker often holds a low start for one frame only
    drop = np.minimum(tone - low, np.median(st[before], axis=1) - low + DROP_STEP)
    cue[t] = np.where(near, np.clip((drop - DROP_ST[0]) / (DROP_ST[1] - DROP_ST[0]), 0.0, 1.0), 0.0)
    # A low start rises to the tone through the pitches between; a tracker's
    # octave error (as deep as a low start: about 12 st) jumps back: the first
    # pitch above the low one must lie between (one far over the tone is an
    # error the other way, and says nothing).
    rise = int(RISE_S * 48000 / DP_HOP)
    for k in np.flatnonzero(cue[t] > 0):
        ahead = st[p[k]:np.searchsorted(idx, t[k] + rise, side="right")]
        higher = ahead[(ahead > low[k] + RISE_BETWEEN_ST) & (ahead < tone + DROP_STEP)]
        if len(higher) == 0 or higher[0] >= tone - RISE_BETWEEN_ST:
            cue[t[k]] = 0.0
    return cue


def phrase_drop_cue(x: np.ndarray) -> np.ndarray:
    """`pitch_drops` of a verse on the DP_HOP grid (one pitch track serves the
    placement and the check of its phrase starts)."""
    return pitch_drops(pitch_track(x, DP_HOP))


def low_start_evidence(verses: list[tuple[np.ndarray, int]]) -> float:
    """0..1: how surely a reader starts phrases low, from the drop cues
    (`pitch_drops`, DP_HOP frames) of the verses read and their phrase joins:
    the mean over all joins of the strongest distinct drops (LOW_START_CUE or
    more counts fully; none found counts 0). A verse's first 0.3 s is left out:
    that is its first phrase's own start."""
    strengths: list[float] = []
    joins = 0
    lead = int(0.3 * 48000 / DP_HOP)
    apart = int(0.4 * 48000 / DP_HOP)   # drops closer than this are one phrase start
    for drops, boundaries in verses:
        if boundaries <= 0:
            continue
        joins += boundaries
        cue = drops[lead:]
        peaks: list[int] = []
        for k in np.argsort(-cue):
            if cue[k] <= 0 or len(peaks) == boundaries:
                break
            if all(abs(k - j) >= apart for j in peaks):
                peaks.append(int(k))
        strengths += [min(1.0, float(cue[k]) / LOW_START_CUE) for k in peaks]
    return sum(strengths) / joins if joins else 0.0


def place_morae(x: np.ndarray, voiced: np.ndarray, phrase_lengths: list[int],
                held_last: bool = False, drops: np.ndarray | None = None,
                kana: list[str] | None = None, run_on: frozenset[int] = frozenset(),
                low_starts: float | None = None, pinned: dict[int, int] | None = None) -> list[int]:
    """Onsets (sample offsets into `x`) of all morae of a verse.

    `x` is one verse (kami- or shimo-no-ku) trimmed so that it starts at the
    first mora; `voiced` is its voiced mask in HOP frames; `phrase_lengths` the
    mora count of each phrase. `held_last`: the last mora is drawn out (the
    yoin of the shimo-no-ku). The last mora of a verse and of each phrase may
    be held at will, so they say little about the reading's pace: the pace is
    first guessed from the verse's length, then measured on the other morae
    of a first placement, and the placement is made again with it.
    `pinned` (mora index -> sample offset): morae whose onset is known from their
    own consonant (`deciding_onset`); the others are placed around them.
    """
    n = sum(phrase_lengths)
    if n == 0:
        return []
    step = DP_HOP // HOP
    v = voiced[::step][: len(x) // DP_HOP + 1].astype(bool)
    T = len(v)
    if n == 1 or T < 2 * n:
        return [int(round(k * len(x) / n)) for k in range(n)]
    raw = raw_onset_strength(x, DP_HOP, 1024, 1)
    scale = strength_scale(raw)
    strength = np.clip(raw / (scale + 1e-9), 0, 1.5)[:T]
    if drops is None:
        drops = phrase_drop_cue(x) if len(phrase_lengths) > 1 else np.zeros(T)
    drops = np.pad(drops[:T], (0, max(0, T - len(drops))))
    low = (low_start_evidence([(drops, len(phrase_lengths) - 1 - len(run_on))])
           if low_starts is None else low_starts)
    # Durations count speaking time: a stop's closure belongs to its mora,
    # only a breath between phrases is left out. A reader who starts phrases
    # low reads legato: a silence that may be a breath or a closure is the
    # less surely a breath (`low`); one of PHRASE_GAP_S[1] or more is one.
    breaths = breath_gaps(v, len(phrase_lengths) - 1)
    speaking = np.ones(T)
    for a, b in breaths:
        speaking[a:b] = 0.0 if b - a >= PHRASE_GAP_S[1] * 48000 / DP_HOP else low
    for a, b in runs(~v):
        if a == 0 or b == T:
            speaking[a:b] = 0.0
    vcum = np.concatenate(([0.0], np.cumsum(speaking)))  # speaking frames before frame t
    mean = max(_pace_guess(strength, vcum, phrase_lengths, held_last), 3.0)
    pins = {i: min(o // DP_HOP, T - 1) for i, o in (pinned or {}).items() if 0 < i < n}
    # a bare vowel second (おお, ゆう) has nothing but the pace to place it: keep the pace on the first
    long_first = not (kana and len(kana) > 1 and kana[1] in BARE_VOWELS)
    grid = (strength, v, vcum, phrase_lengths, long_first)
    placed, pace, score = _place_at_pace(*grid, mean, breaths, drops, low_starts=low, pinned=pins)
    # The placement that explains the sound best at a pace near the one measured
    # (a placement measured at its own pace can be consistent and still wrong).
    for f in PACE_TRIES:
        tried = _place_on_grid(*grid, pace * f, breaths, drops, low_starts=low, pinned=pins)
        if tried[1] > score:
            placed, score = tried
    if run_on and not (low >= 0.5 and any(_starts_low(placed[sum(phrase_lengths[:k])], drops) for k in run_on)):
        # No low start where the kimariji's phrase begins: the reader may have read
        # the kimariji in one breath. That reading is kept if it explains the sound
        # better at its own pace (measured on the phrases read at the pace).
        joined, joined_pace, joined_score = _place_at_pace(*grid, mean, breaths, drops, low_starts=low,
                                                           run_on=run_on, pinned=pins)
        if joined_score > _place_on_grid(*grid, joined_pace, breaths, drops, low_starts=low, pinned=pins)[1]:
            placed = joined
    starts = set(np.cumsum([0] + phrase_lengths[:-1]).tolist()[1:])
    onsets = [_low_start(o, drops) if i in starts and not (kana and kana[i][0] in STOPS) else o
              for i, o in enumerate(placed)]
    fixed = [o != g for o, g in zip(onsets, placed)]
    refined = _refine(x, [o * DP_HOP for o in onsets], scale, kana, fixed=fixed)
    for i, o in (pinned or {}).items():   # its consonant's own onset, not the grid's
        if 0 < i < n and (i + 1 == n or o < refined[i + 1] - MIN_MORA) and o > refined[i - 1] + MIN_MORA:
            refined[i] = o
    return refined


def _starts_low(t: int, drops: np.ndarray) -> bool:
    """A low start near a phrase start placed at `t` (DP_HOP frames): from 50 ms
    before it (the drop begins with the consonant) to 120 ms after (the low voice
    after the consonant, which the grid may have taken for the onset)."""
    return bool(drops[max(t - 5, 0):t + 13].max(initial=0.0) >= LOW_START_CUE)


def _low_start(t: int, drops: np.ndarray) -> int:
    """A phrase start placed on a clear drop (DP_HOP frames): where the drop
    begins. The cue covers the consonant up to the low voice after it (a stop's
    closure too: a stop is heard at its release, after it, and keeps its place)."""
    if drops[t] < LOW_START_CUE:
        return t
    k = t
    while k > 0 and drops[k - 1] >= LOW_START_CUE:
        k -= 1
    return k



def _pace_guess(strength: np.ndarray, vcum: np.ndarray, phrase_lengths: list[int],
                held_last: bool) -> float:
    """Speaking frames per mora, guessed before any placement.

    The last mora is held at will (the kami-no-ku's end 1.2 s, a yoin 1.5-3.5 s,
    i.e. 4 to 12 morae of the reading's pace), so its length says nothing: the
    speaking time counts up to the verse's last clear change (its last mora's
    onset, or the one before if that mora's change is faint), phrase ends as
    HELD_GUESS morae. Without a clear change late enough, the whole verse counts,
    the last mora as 1 (4 if `held_last`) morae."""
    n, joins = sum(phrase_lengths), len(phrase_lengths) - 1
    clear = np.flatnonzero(strength >= CLEAR_CHANGE)
    units = (n - 1) + joins * (HELD_GUESS - 1)
    if len(clear) and vcum[clear[-1]] >= 0.5 * vcum[-1]:
        return vcum[clear[-1]] / units
    return vcum[-1] / (units + (4.0 if held_last else 1.0))


def _place_at_pace(s: np.ndarray, v: np.ndarray, vcum: np.ndarray, phrase_lengths: list[int],
                   long_first: bool, guess: float, breaths: list[tuple[int, int]], drops: np.ndarray,
                   **cues) -> tuple[list[int], float, float]:
    """`_place_on_grid` at a guessed pace, then again at the pace measured on that
    placement's plain morae (not phrase ends, not a phrase read in one breath),
    until the two agree (PACE_AGREES) or PACE_ROUNDS placements are made.
    Returns the placement, the pace it was made at and its score."""
    ends = set(np.cumsum(phrase_lengths).tolist())   # 1 + each phrase's last mora
    run_on = cues.get("run_on", frozenset())
    fast = {i for k in run_on for i in range(sum(phrase_lengths[:k - 1]), sum(phrase_lengths[:k]))}
    pace = guess
    for _ in range(PACE_ROUNDS):
        onsets, score = _place_on_grid(s, v, vcum, phrase_lengths, long_first, pace, breaths, drops, **cues)
        inner = [vcum[b] - vcum[a] for i, (a, b) in enumerate(zip(onsets, onsets[1:]))
                 if i + 1 not in ends and i not in fast]
        measured = max(float(np.median(inner)), 3.0) if inner else pace
        if abs(np.log(measured / pace)) <= PACE_AGREES:
            break
        pace = measured
    return onsets, pace, score


def unsupported_phrase_starts(x: np.ndarray, voiced: np.ndarray, mora: list[int],
                              phrase_lengths: list[int], drops: np.ndarray | None = None) -> list[int]:
    """Phrases (index >= 1) whose placed start has neither a breath within 50 ms nor
    a pitch drop from 50 ms before to 120 ms after it: its mark rests on the pace
    alone and may be a mora off."""
    starts = np.cumsum([0] + phrase_lengths[:-1]).tolist()[1:]
    if not starts or len(mora) < sum(phrase_lengths):
        return []
    step = DP_HOP // HOP
    v = voiced[::step][: len(x) // DP_HOP + 1].astype(bool)
    drops = phrase_drop_cue(x) if drops is None else drops
    gap_ends = [b for a, b in runs(~v) if a > 0 and b - a >= 4]
    near, late = 5, 12  # grid frames: 50 ms; the low voice may come 120 ms after a consonant
    out = []
    for k, i in enumerate(starts, start=1):
        t = mora[i] // DP_HOP
        cue = drops[max(t - near, 0):t + late + 1].max(initial=0.0) >= CUE_FOUND
        breath = any(abs(b - t) <= near for b in gap_ends)
        if not (cue or breath):
            out.append(k)
    return out


BARE_VOWELS = frozenset("あいうえお")


def unmarked_onsets(x: np.ndarray, mora: list[int], kana: list[str], phrase_lengths: list[int],
                    which: list[int]) -> list[int]:
    """Those of morae `which` (not a phrase's first) that begin with a bare vowel
    straight after another vowel (わがい, よお) and whose placed onset shows no
    clear change within 30 ms: nothing in the sound marks where they start,
    their marks rest on the pace alone."""
    starts = set(np.cumsum([0] + phrase_lengths[:-1]).tolist())
    bare = [i for i in which if 0 < i < min(len(mora), len(kana))
            and i not in starts and kana[i] in BARE_VOWELS and kana[i - 1][-1] not in "んっ"]
    if not bare:
        return []
    raw = raw_onset_strength(x, DP_HOP, 1024, 1)
    strength = raw / (strength_scale(raw) + 1e-9)
    near = 3   # grid frames: 30 ms
    return [i for i in bare
            if strength[max(mora[i] // DP_HOP - near, 0):mora[i] // DP_HOP + near + 1].max(initial=0.0)
            < CLEAR_CHANGE]


def breath_gaps(v: np.ndarray, boundaries: int) -> list[tuple[int, int]]:
    """The silences of a verse (DP_HOP frames) that are breaths between phrases.

    A breath is among the longest silences (no more of them than phrase
    boundaries) and clearly longer than every silence left (BREATH_OVER_CLOSURE):
    a legato reader takes none, and then the longest silences are stops'
    closures, all about as long (up to ~0.12 s in slow reading). A silence of
    PHRASE_GAP_S[1] or more is a breath in any case.
    """
    lo, hi = (g * 48000 / DP_HOP for g in PHRASE_GAP_S)
    gaps = sorted(((b - a, a, b) for a, b in runs(~v) if 0 < a and b < len(v)), reverse=True)
    lengths = [n for n, _, _ in gaps] + [0]
    count = max((j for j in range(1, boundaries + 1) if j < len(lengths)
                 and lengths[j - 1] >= lo and lengths[j - 1] >= BREATH_OVER_CLOSURE * lengths[j]),
                default=0)
    return [(a, b) for k, (n, a, b) in enumerate(gaps) if k < count or n >= hi]


def _place_on_grid(s: np.ndarray, v: np.ndarray, vcum: np.ndarray,
                   phrase_lengths: list[int], long_first: bool, mean: float,
                   breaths: list[tuple[int, int]], drops: np.ndarray | None = None,
                   low_starts: float = 0.0, run_on: frozenset[int] = frozenset(),
                   pinned: dict[int, int] | None = None) -> tuple[list[int], float]:
    """The dynamic programme: n onsets on the DP_HOP grid, the first at 0, and
    the placement's score (onset strengths and cues, less the misfit of its
    durations to the pace `mean`).

    `drops` (0..1 per frame, `pitch_drops`): a phrase is likely to start where
    the pitch falls far, and no other mora does (in legato reading there is
    often no breath to show the join). `low_starts` (0..1, `low_start_evidence`):
    how surely this reader starts phrases low; the more surely, the more a
    phrase start is sought at a drop and the less at a silence (a reader who
    starts low and breathes does both at once; one who reads legato has only
    stops' closures for silences). `run_on`: phrases the reader joins to the
    one before (the kimariji read in one breath): that one is read at
    RUN_ON_PACE, its end not held, and this one need not start low. `pinned`:
    mora index -> the only grid frames (+-1) that mora may start on. `long_first`: the
    verse's first mora may be drawn out (`_first_mora_costs`)."""
    T, n = len(v), sum(phrase_lengths)
    drops = np.zeros(T) if drops is None else drops[:T]
    # A phrase is likely to start where the voice resumes after a breath.
    gap_end = np.zeros(T)
    for _a, b in breaths:
        gap_end[max(b - 2, 0):b + 1] = 1.0
    # Onsets sit on voice or just before it (a stop's burst can be quieter
    # than the voiced threshold: allow 40 ms).
    near_voice = v.copy()
    for k in range(1, 5):
        near_voice[:-k] |= v[k:]
    allowed = np.where(near_voice, 0.0, -np.inf)
    starts = set(np.cumsum([0] + phrase_lengths[:-1]).tolist())
    ends = {k - 1 for k in np.cumsum(phrase_lengths).tolist()}
    d_min = max(MIN_MORA // DP_HOP, int(0.3 * mean))   # no mora shorter than MIN_MORA_S
    longest_breath = max((b - a for a, b in breaths), default=0)
    # No mora (with a breath before it) lasts longer than MAX_STEP_S: without
    # this bound the tables below grew with the square of the verse's length.
    d_max = min(T - 1, int(4.0 * mean) + longest_breath, MAX_STEP)
    ds = np.arange(d_min, max(d_min, d_max) + 1)
    slices = [slice(a, min(a + DP_COLUMNS, T)) for a in range(0, T, DP_COLUMNS)]
    kept = [_step_costs(ds, cols, vcum, mean) for cols in slices] if len(slices) == 1 else None
    # the morae of a phrase read in one breath into the next (their durations at RUN_ON_PACE)
    fast = {i for k in run_on for i in range(sum(phrase_lengths[:k - 1]), sum(phrase_lengths[:k]))}
    fast_costs = [_step_costs(ds, cols, vcum, RUN_ON_PACE * mean) for cols in slices] if fast else None
    s = s.astype(np.float32)
    allowed = allowed.astype(np.float32)
    _previous = _Previous(ds, slices, T)

    # float32; float64 on a step to a phrase's first mora (gap_end, which adds its bonus, is float64)
    score: np.ndarray = np.full(T, -np.inf, dtype=np.float32)
    score[0] = 0.0
    back = []
    first_of = {m: k for k, m in enumerate(sorted(starts))}   # phrase index by its first mora
    trusted = DROP_WEIGHT + low_starts * DROP_TRUST
    for i in range(1, n):
        if i in starts and first_of[i] in run_on:
            gain = s + allowed + BREATH_WEIGHT * gap_end + DROP_WEIGHT * drops
        elif i in starts:
            # trusted * drops, less what a phrase start with no low start costs this reader
            # (the same on every placement, but not if the kimariji is read in one breath)
            gain = (s + allowed + (1.0 - low_starts) * BREATH_WEIGHT * gap_end + trusted * drops
                    - low_starts * DROP_TRUST)
        else:
            gain = s + allowed - trusted * drops
        if pinned and i in pinned:
            only = np.full(T, -np.inf, np.float32)
            only[max(pinned[i] - 1, 0):pinned[i] + 2] = 0.0
            gain = gain + only
        held = (i - 1) in ends and (i - 1) not in fast
        new, arg = np.empty(T, np.float32), np.empty(T, np.int32)
        if i == 1 and long_first and 0 not in ends:
            new, arg = _first_mora_costs(T, vcum, mean, ds)
            score = new + gain
            back.append(arg)
            continue
        rows = _previous.rows(score)
        for k, cols in enumerate(slices):
            if (i - 1) in fast and fast_costs is not None:
                misfit, held_misfit = fast_costs[k]
            else:
                misfit, held_misfit = kept[k] if kept else _step_costs(ds, cols, vcum, mean)
            # onset frames x durations: the best duration of each along a contiguous row
            cand = rows[k] - (held_misfit if held else misfit)
            j = np.argmax(cand, axis=1)
            new[cols] = cand[np.arange(len(j)), j]
            arg[cols] = ds[j]
        score = new + gain
        back.append(arg)
    # The last mora runs from its onset to the end of the verse, held at will.
    tail = (vcum[-1] - vcum[:T]).astype(np.float64)
    final = score - np.where(tail >= 0.5 * mean, 0.0, np.inf)
    t = int(np.argmax(final))
    if not np.isfinite(final[t]):  # no placement fits (an implausibly slow verse): spread evenly
        return [int(round(k * (T - 1) / n)) for k in range(n)], -np.inf
    best = float(final[t])
    onsets = [t]
    for arg in reversed(back):
        t = t - int(arg[t])
        onsets.append(t)
    onsets.reverse()
    return onsets, best


class _Previous:
    """The previous onset's score for every duration, as windows of a padded copy of
    the scores (one strided view per slice, made once): `rows(score)[k][t, m]` is
    score[t - ds[m]] for the onset frames t of slice k (counted from its start), and
    -inf before frame 0 (the misfit is inf there). Gathering score by an index table
    of durations x frames, and reducing across rows, did the same at about 30 % more
    cost of the whole import."""

    def __init__(self, ds: np.ndarray, slices: list[slice], T: int):
        self.lead, self.slices, self.T, self.D = int(ds[-1]), slices, T, len(ds)
        self._views: dict = {}   # by dtype: the padded buffer and its views

    def rows(self, score: np.ndarray) -> list[np.ndarray]:
        got = self._views.get(score.dtype)
        if got is None:
            buf = np.full(self.lead + self.T, -np.inf, score.dtype)
            # the window starting at t holds score[t - ds[-1]] .. score[t - ds[0]]: reversed,
            # durations ascend, so that ties go to the shortest as before
            windows = np.lib.stride_tricks.sliding_window_view(buf, self.D)
            views = [windows[c.start:c.stop, ::-1] for c in self.slices]
            got = self._views[score.dtype] = (buf, views)
        got[0][self.lead:] = score
        return got[1]


FIRST_LONG = 0.2  # what a verse's first mora drawn out costs, against another mora (issue 23)


def _first_mora_costs(T: int, vcum: np.ndarray, mean: float, ds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Score and step of the second mora's onset at every frame: the first mora starts
    the verse at frame 0, low and soft, and a reader draws it out (the real reader up to
    ~1.7 morae, issue 23): length costs FIRST_LONG of what it costs another mora. Priced
    at the pace, a long first mora made the grid put the second inside it, and the
    deciding mark a mora early; free, it let a mora with nothing to mark its start (ゆう)
    drift late."""
    t = np.arange(T)
    log_ratio = np.log(np.maximum(vcum[:T] - vcum[0], 1.0) / mean)
    cost = PACE_WEIGHT * (np.minimum(log_ratio, 0.0) ** 2 + FIRST_LONG * np.maximum(log_ratio, 0.0) ** 2)
    ok = (t >= ds[0]) & (t <= ds[-1])
    return np.where(ok, -cost, -np.inf).astype(np.float32), t.astype(np.int32)


def _step_costs(ds: np.ndarray, cols: slice, vcum: np.ndarray, mean: float):
    """For onset frames `cols` and every duration in `ds` (frames x durations): what
    that duration costs (ordinary mora; phrase-final mora, held at will)."""
    # The previous onset is t-d, and the mora between them lasts vcum[t]-vcum[t-d]
    # voiced frames.
    t_idx = np.arange(cols.start, cols.stop)
    src = t_idx[:, None] - ds[None, :]
    valid = src >= 0
    src = np.maximum(src, 0)
    dur = (vcum[t_idx][:, None] - vcum[src]).astype(np.float32)
    log_ratio = np.log(np.maximum(dur, 1.0) / np.float32(mean))
    misfit = np.where(valid, PACE_WEIGHT * log_ratio ** 2, np.inf).astype(np.float32)
    # A phrase's last mora is drawn out (a karuta reader holds it two to three
    # times a mora): only shortness counts against it, shortness against HELD_RATIO.
    held_misfit = np.where(valid, PACE_WEIGHT * np.minimum(log_ratio - np.log(HELD_RATIO), 0.0) ** 2,
                           np.inf).astype(np.float32)
    return misfit, held_misfit


FRICATIVES = frozenset("さしすせそざじずぜぞはひふへほ")
STOPS = frozenset("かきくけこがぎぐげごたちつてとだぢづでどぱぴぷぺぽばびぶべぼ")
NASALS = frozenset("なにぬねのまみむめもん")
FRICATIVE_BACK_S = 0.18  # a fricative (or voiced fricative) before its vowel lasts up to this
QUIET_DB = 6.0  # a frame this close to the verse's quietest is silence, not a faint consonant
FRICATION_DB = 12.0  # a fricative's noise stands this far (3-10 kHz over 100-1000 Hz) above a vowel
MURMUR_DB = 12.0  # a nasal's murmur is this far under a vowel at 1-3 kHz
CONSONANT_S = 0.01  # a fricative's noise or a nasal's murmur lasts at least this


def _refine(x: np.ndarray, onsets: list[int], scale: float, kana: list[str] | None = None,
            fixed: list[bool] | None = None, hop: int = 120) -> list[int]:
    """Move every onset (but the first) to the first clear change of its mora.

    A mora such as の, ま or さ changes the sound twice, at the consonant and
    again, louder, at the vowel; the grid search tends to land on the louder.
    So: find the mora's strongest change near the grid onset (90 ms before to
    15 ms after), then walk back to the earliest frame reaching FIRST_CHANGE of
    it, but never into the previous mora (not before its own strongest change)
    nor across a silence (within QUIET_DB of the verse's quietest moment: a
    mora's consonant is voice or noise up to its vowel, if faint; a silence
    before it is a breath or a stop's closure, and a stop is heard at its
    release). Where the `kana` say what the consonant is, its own sound is
    looked for instead (`_consonant_start`): a fricative's noise, up to
    FRICATIVE_BACK_S before its vowel (a voiced one, ざ, じ, barely changes the
    loudness), a nasal's murmur (a vowel's attack after it is the louder change).
    An onset `fixed` already (a low start's beginning) moves only to such a sound.
    """
    ahead = int(0.015 * 48000 / hop)
    kinds = [None if not kana else "fricative" if kana[k][0] in FRICATIVES
             else "nasal" if kana[k][0] in NASALS else None for k in range(len(onsets))]
    backs = [int((FRICATIVE_BACK_S if kind == "fricative" else 0.09) * 48000 / hop) for kind in kinds]
    # Fine resolution only where onsets are looked for; scaled like the coarse grid.
    near = np.zeros(len(x) // hop + 1, dtype=bool)
    known = np.zeros(len(x) // hop + 1, dtype=bool)
    for o, back, kind in zip(onsets[1:], backs[1:], kinds[1:]):
        near[max(o // hop - back, 0):o // hop + ahead + 1] = True
        if kind:
            known[max(o // hop - back, 0):o // hop + ahead + 1] = True
    s = np.clip(raw_onset_strength(x, hop, 512, 2, only=near) / (scale + 1e-9), 0, 1.5)
    bands = consonant_bands(x, hop, 512, known)
    db = frame_db(x)
    quiet = db <= db.min() + QUIET_DB
    last_silent = np.maximum.accumulate(np.where(quiet, np.arange(len(db)), -1))  # per HOP frame
    out = [onsets[0]]
    prev_peak = onsets[0] // hop
    for o, back, kind in zip(onsets[1:], backs[1:], kinds[1:]):
        c = o // hop
        silent = last_silent[min(o // HOP, len(db) - 1)]
        after_silence = (silent + 1) * HOP // hop - 2
        # never within MIN_MORA_S of the onset before: two morae are never that close
        lo = max(c - back, prev_peak + 2, 0, after_silence, (out[-1] + MIN_MORA) // hop)
        hi = min(c + ahead + 1, len(s))
        if hi <= lo:
            out.append(o)
            continue
        w = s[lo:hi]
        peak = lo + int(np.argmax(w))
        low, mid, high = (b[lo:hi] for b in bands)
        k = _consonant_start(kind, low, mid, high, int(CONSONANT_S * 48000 / hop),
                             lo in (0, after_silence), c - lo - int(CONSONANT_S * 3 * 48000 / hop))
        if k is not None:
            k += lo
        elif fixed and fixed[len(out)]:
            k = c
        else:
            # Below a clear change, small wiggles are no consonant: keep the peak.
            level = FIRST_CHANGE * w.max() if w.max() >= 0.5 else w.max()
            k = lo + int(np.flatnonzero(w[: peak - lo + 1] >= level)[0])
            while k < peak and s[k + 1] > s[k]:  # climb to the top of that first change
                k += 1
        out.append(int(min(k * hop, len(x) - 1)))
        prev_peak = max(peak, k)
    return out


def _consonant_start(kind: str | None, low: np.ndarray, mid: np.ndarray, high: np.ndarray,
                     shortest: int, starts_clean: bool, reaching: int) -> int | None:
    """Index in a window (band levels, `consonant_bands`) where the last stretch of
    a fricative's noise (FRICATION_DB over the window's vowel, its least noisy
    tenth) or of a nasal's murmur (MURMUR_DB under its loudest 1-3 kHz) starts,
    lasting `shortest` frames or more; None if there is none. Only the last: an
    earlier one is the mora before's (ち before は). A stretch already there when
    the window opens belongs to the mora before too (a held ん before な), unless
    the window opens on the voice's start (`starts_clean`); one ending before
    index `reaching` is no consonant of the vowel placed (a held vowel's wobble)."""
    if kind is None or len(low) < shortest:
        return None
    if kind == "fricative":
        tilt = high - low
        found = tilt >= float(np.percentile(tilt, 10)) + FRICATION_DB
    else:
        found = mid <= float(mid.max()) - MURMUR_DB
    stretches = [(a, b) for a, b in runs(found) if b - a >= shortest and b >= reaching]
    if not stretches or (stretches[-1][0] == 0 and not starts_clean):
        return None
    return stretches[-1][0]


def clipped_samples(x: np.ndarray) -> int:
    """Neighbouring pairs of samples at full scale: the signature of clipping."""
    hot = np.abs(x) >= 0.99
    return int(np.count_nonzero(hot[1:] & hot[:-1]))


# --- the deciding mora: its consonant's own onset (issue 23) ---------------------------

CUE_NEAR_S = 0.04   # a mark this close to its consonant's onset is supported by it
CLOSURE_DB = 15.0   # a stop's closure: the level this far under the verse's speech
CLOSURE_S = 0.015   # ... for at least this long, then its release
CLOSURE_MAX_S = 0.12  # ... and at most this long (a slow reading's, HTS's)
CUE_HOP = 120       # 2.5 ms
FRICATION_S = 0.025  # a fricative's noise lasts at least this
# The consonants whose onset is found surely enough to move a mark to it. Not a nasal:
# its murmur is often no weaker at 1-3 kHz than the vowel (the legato fixture's is 7 dB
# quieter in all), and the murmur found was another mora's on 5 cards of 100.
CHECKED_KINDS = frozenset({"fricative", "stop"})


def consonant_kind(kana: str) -> str | None:
    """"fricative", "stop" or "nasal" by the mora's consonant; None for a vowel,
    a glide or a tap (nothing of its own to find)."""
    k = kana[:1]
    return ("fricative" if k in FRICATIVES else "stop" if k in STOPS
            else "nasal" if k in NASALS and k != "ん" else None)


def consonant_cues(x: np.ndarray, kind: str) -> list[int]:
    """Sample offsets in verse `x` where a consonant of `kind` is heard to start: a
    fricative's noise (3-10 kHz FRICATION_DB over 100-1000 Hz, against the verse's
    median vowel), a nasal's murmur (1-3 kHz MURMUR_DB under the loudest near it), a
    stop's release after a closure (CLOSURE_DB under the speech, CLOSURE_S or
    longer). Only where the voice is: silence before and after is no consonant."""
    from scipy.ndimage import maximum_filter1d
    db = frame_db(x, CUE_HOP, 2 * CUE_HOP)   # 5 ms: a closure of 25 ms shows
    speech = float(np.percentile(db, 90))
    # a fricative's noise lasts 50 ms or more; a stop's burst (10 ms) is not one
    shortest = max(1, int((FRICATION_S if kind == "fricative" else CONSONANT_S) * 48000 / CUE_HOP))
    inside = np.zeros(len(db), bool)
    heard = np.flatnonzero(db > speech - 35.0)
    if len(heard) == 0:
        return []
    inside[heard[0]:heard[-1] + 1] = True
    if kind == "stop":
        closed = inside & (db < speech - CLOSURE_DB)
        gaps = [(a, b) for a, b in runs(closed) if b - a >= int(CLOSURE_S * 48000 / CUE_HOP) and b < heard[-1]]
        return [b * CUE_HOP for _, b in gaps]
    low, mid, high = consonant_bands(x, CUE_HOP, 512, inside & (db > speech - 35.0))
    loud = inside & (db > speech - 20.0)
    if kind == "fricative":
        tilt = high - low
        # against the verse's typical vowel: its least tilted ones (い, う) lie 15 dB under あ
        ref = float(np.median(tilt[loud])) if loud.any() else 0.0
        found = inside & (db > speech - 35.0) & (tilt >= ref + FRICATION_DB)
    else:
        near = maximum_filter1d(np.where(inside, mid, -np.inf), int(0.15 * 48000 / CUE_HOP))
        found = loud & (mid <= near - MURMUR_DB)
    return [a * CUE_HOP for a, b in runs(found) if b - a >= shortest]


def deciding_onset(x: np.ndarray, mora: list[int], kana: list[str], k: int,
                   found: dict[str, list[int]] | None = None) -> tuple[int | None, str | None]:
    """Check the deciding mora `k`'s mark against its consonant's own onset
    (`consonant_cues`; a fricative or a stop, CHECKED_KINDS). Returns (where to
    place it, why): (None, None) if the mark sits on its consonant (or the mora has
    none to find); (None, why) if no such consonant is heard near it; (onset, why) if
    the first one after the mark lies half a mora to two morae later: the alignment
    put the mora early (issue 23: 0.21-0.31 s, the mark catching up a mora later).
    `found`: `consonant_cues` of `x` by kind, kept between calls on one verse."""
    kind = consonant_kind(kana[k]) if 0 < k < len(kana) else None
    if kind not in CHECKED_KINDS or k >= len(mora):
        return None, None
    near = int(CUE_NEAR_S * 48000)
    mark = mora[k]
    what = {"fricative": "noise", "stop": "closure and release", "nasal": "murmur"}[kind]
    # a stop's mark may sit at its closure, up to CLOSURE_MAX_S before the release found
    reach = near + (int(CLOSURE_MAX_S * 48000) if kind == "stop" else 0)
    # a consonant heard within MIN_MORA_S of the mora before is that mora's (ち's hiss before は)
    if found is None:
        found = {}
    if kind not in found:
        found[kind] = consonant_cues(x, kind)
    cues = np.array(found[kind], dtype=np.int64)
    cues = cues[cues > mora[k - 1] + MIN_MORA]
    if len(cues) and ((cues >= mark - near) & (cues <= mark + reach)).any():
        return None, None
    pace = float(np.median(np.diff(mora))) if len(mora) > 2 else 0.25 * 48000
    # moved only by a good part of a mora (issue 23: a mora, 0.21-0.31 s, early)
    later = cues[(cues > mark + max(reach, 0.5 * pace)) & (cues <= mark + 2 * pace)]
    if len(later):
        c = int(later[0])
        return c, (f"the {kana[k]}'s {what} starts {1000 * (c - mark) / 48000:.0f} ms after where the "
                   "alignment put it")
    return None, f"no {what} of its {kana[k]} is heard at it"


def crowded(mora: list[int]) -> list[int]:
    """Morae (index >= 1) placed closer than MIN_MORA_S after the one before."""
    return [i for i in range(1, len(mora)) if mora[i] - mora[i - 1] < MIN_MORA]
