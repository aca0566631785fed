"""Synthetic readings with exactly known timings, for the importer's tests and bench.

Not speech, but shaped like a karuta reading: every mora is a consonant-like
sound (stop burst, fricative noise or nasal hum, by the kana's row) followed
by a harmonic vowel, with the right number of morae per phrase, breath gaps
between phrases, a long pause between kami-no-ku and shimo-no-ku, and the last
mora of the shimo-no-ku held (yoin). Durations are drawn from a seeded RNG so
no two readings share a rhythm. The truth returned is where a listener first
hears each mora (the burst of a stop, the start of a fricative or nasal, the
attack of a bare vowel; for っ the start of its silence, for ー where the
held vowel's time begins).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

RATE = 48_000
STOPS = set("かきくけこがぎぐげごたちつてとだぢづでどぱぴぷぺぽばびぶべぼ")
FRICATIVES = set("さしすせそざじずぜぞはひふへほ")
SONORANTS = set("なにぬねのまみむめもやゆよらりるれろわをゐゑ")


@dataclass
class Reading:
    samples: np.ndarray
    rate: int
    kami_start: float
    kami_end: float
    shimo_start: float
    shimo_end: float
    kami_onsets: list[float] = field(default_factory=list)
    shimo_onsets: list[float] = field(default_factory=list)


class _Voice:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.f0 = rng.uniform(120, 200)
        self.phase = 0.0

    def vowel(self, n: int, start_gain: float = 0.35) -> np.ndarray:
        t = np.arange(n) / RATE
        f0 = self.f0 * (1 + 0.03 * np.sin(2 * np.pi * 0.7 * t + self.rng.uniform(0, 6)))
        ph = self.phase + 2 * np.pi * np.cumsum(f0) / RATE
        self.phase = float(ph[-1]) if n else self.phase
        wave = sum(np.sin(k * ph) / k for k in range(1, 16))
        env = np.linspace(1.0, 0.6, n)
        attack = min(n, int(0.025 * RATE))
        env[:attack] *= np.linspace(start_gain, 1.0, attack)
        return 0.25 * wave * env

    def noise(self, n: int, gain: float) -> np.ndarray:
        w = self.rng.standard_normal(n)
        w = np.diff(w, prepend=0.0)  # tilt towards high frequencies, like frication
        return gain * w * np.hanning(n) ** 0.3 if n else w

    def hum(self, n: int) -> np.ndarray:
        t = np.arange(n) / RATE
        ph = 2 * np.pi * self.f0 * t + self.phase
        # Nasal murmur: strong fundamental, weak upper harmonics, ~8 dB under a vowel.
        return 0.3 * (np.sin(ph) + 0.3 * np.sin(2 * ph) + 0.1 * np.sin(3 * ph)) * np.linspace(0.8, 1.0, n)


def _mora(voice: _Voice, mora: str, dur: int) -> tuple[np.ndarray, int]:
    """Samples of one mora lasting `dur` samples and the offset where it is first heard."""
    k = mora[0]
    out = np.zeros(dur)
    if k == "っ":
        return out, 0
    if k == "ー":
        out[:] = voice.vowel(dur, start_gain=0.9) * 0.8
        return out, 0
    if k == "ん":
        out[:] = voice.hum(dur)
        return out, 0
    if k in STOPS:
        closure = min(int(voice.rng.uniform(0.02, 0.045) * RATE), dur // 3)
        burst = min(int(0.012 * RATE), dur // 6)
        out[closure:closure + burst] = voice.noise(burst, 0.3)
        out[closure + burst:] = voice.vowel(dur - closure - burst)
        return out, closure
    if k in FRICATIVES:
        fric = min(int(voice.rng.uniform(0.05, 0.09) * RATE), dur // 2)
        out[:fric] = voice.noise(fric, 0.12)
        out[fric:] = voice.vowel(dur - fric)
        return out, 0
    if k in SONORANTS:
        nas = min(int(voice.rng.uniform(0.025, 0.05) * RATE), dur // 2)
        out[:nas] = voice.hum(nas) * 0.7
        out[nas:] = voice.vowel(dur - nas, start_gain=0.5)
        return out, 0
    out[:] = voice.vowel(dur, start_gain=0.1)
    return out, 0


def synth_verse(voice: _Voice, phrases: list[list[str]], mora_s: float,
                held_last_s: float = 0.0, gap_s: tuple[float, float] = (0.12, 0.35),
                ) -> tuple[np.ndarray, list[float], float]:
    """One verse: (samples, onset seconds of every mora, seconds of voiced end)."""
    rng = voice.rng
    parts, onsets, pos = [], [], 0
    for p, morae in enumerate(phrases):
        if p:
            gap = int(rng.uniform(*gap_s) * RATE)
            parts.append(np.zeros(gap))
            pos += gap
        for i, m in enumerate(morae):
            scale = rng.uniform(0.75, 1.3)
            if i == len(morae) - 1:
                scale *= rng.uniform(1.4, 2.0)
            dur = int(mora_s * scale * RATE)
            last = p == len(phrases) - 1 and i == len(morae) - 1
            if last and held_last_s:
                dur += int(held_last_s * RATE)
            samples, heard = _mora(voice, m, dur)
            if last and held_last_s:
                samples[-int(0.3 * RATE):] *= np.linspace(1, 0, int(0.3 * RATE))
            parts.append(samples)
            onsets.append((pos + heard) / RATE)
            pos += dur
    x = np.concatenate(parts)
    end = (np.flatnonzero(np.abs(x) > 1e-3)[-1] + 1) / RATE
    return x, onsets, end


def synth_reading(kami: list[list[str]], shimo: list[list[str]], seed: int,
                  pause_s: float | None = None, noise_db: float = -60.0,
                  mora_s: tuple[float, float] = (0.17, 0.28),
                  gap_s: tuple[float, float] = (0.12, 0.35)) -> Reading:
    """A whole reading: lead silence, kami-no-ku, pause, shimo-no-ku with yoin, tail.

    `mora_s`: range of the reading's mean mora duration (its pace); `gap_s`:
    range of the breath gaps between phrases.
    """
    rng = np.random.default_rng(seed)
    voice = _Voice(rng)
    mora_s = rng.uniform(*mora_s)
    lead = int(rng.uniform(0.2, 1.0) * RATE)
    pause = int((pause_s if pause_s is not None else rng.uniform(0.8, 1.6)) * RATE)
    k, k_on, k_end = synth_verse(voice, kami, mora_s, gap_s=gap_s)
    s, s_on, s_end = synth_verse(voice, shimo, mora_s, held_last_s=rng.uniform(1.2, 2.2), gap_s=gap_s)
    tail = int(0.5 * RATE)
    x = np.concatenate((np.zeros(lead), k, np.zeros(pause), s, np.zeros(tail)))
    x += 10 ** (noise_db / 20) * rng.standard_normal(len(x))
    k0 = lead / RATE
    s0 = (lead + len(k) + pause) / RATE
    return Reading(
        samples=x.astype(np.float32), rate=RATE,
        kami_start=k0 + k_on[0], kami_end=k0 + k_end,
        shimo_start=s0 + s_on[0], shimo_end=s0 + s_end,
        kami_onsets=[k0 + t for t in k_on], shimo_onsets=[s0 + t for t in s_on],
    )


def poem_reading(no: int, seed: int | None = None, **kw) -> Reading:
    """Synthetic reading of poem `no` (0 = joka) with its real mora structure."""
    import poems
    from poems.kana import morae
    poem = poems.JOKA if no == 0 else poems.get(no)
    shimo = [morae(p) for p in poem.shimo_sound]
    return synth_reading(poem.kami_phrase_morae(), shimo, seed if seed is not None else no, **kw)


# --- readings like a real reader's -------------------------------------------------
#
# Measured on 101 real recordings of a karuta reader (issue 12): legato through a
# half-verse (0.01 s of silence between phrases), every phrase starting about 13
# semitones under the reciting tone and rising to it in 0.30 s, phrase ends held
# (0.77 s; the kami-no-ku's last mora 1.22 s), voiced 93-99 % of the time, a vibrato
# of 5.7 Hz +-42 cents, breath noise. The joka's file is kami, shimo, shimo again
# (pauses 0.73 s and 0.77 s). The source here is a glottal-like sawtooth filtered
# through formant resonators per vowel (and per consonant: nasal murmur, glides),
# with crossfaded transitions, so a mora begins with a change of spectrum rather
# than a click or a silence, as in real speech.

import unicodedata  # noqa: E402

from scipy.signal import lfilter  # noqa: E402

# Formants (Hz) and bandwidths of a female voice; N is a nasal murmur.
_FORMANTS = {
    "A": ((850, 90), (1300, 110), (2800, 160)),
    "I": ((330, 60), (2500, 150), (3200, 200)),
    "U": ((380, 70), (1400, 110), (2600, 160)),
    "E": ((500, 70), (2100, 130), (2900, 180)),
    "O": ((500, 70), (900, 90), (2800, 160)),
    "N": ((260, 60), (1100, 300), (2600, 400)),
}
_VOICED_STOPS = set("がぎぐげごだぢづでどばびぶべぼ")
_VOICED_FRICATIVES = set("ざじずぜぞ")
_NASALS = set("なにぬねのまみむめも")
REAL_READER = {
    "semitones_low": 13.0,  # phrase-initial mora under the reciting tone
    "rise_s": 0.30,         # ... rising to it in this time
    "phrase_gap_s": 0.01,   # silence between phrases inside a verse
    "held_phrase_s": 0.77,  # held last mora of phrases 1-2 (and of shimo phrase 1)
    "held_kami_s": 1.22,    # held last mora of the kami-no-ku
    "vibrato_hz": 5.7, "vibrato_cents": 42.0,
    "joka_pauses_s": (0.73, 0.77),
}


def _vowel(mora: str) -> str:
    if mora[-1] in "んン":
        return "N"
    if mora[-1] in "ーっ":
        return ""
    name = unicodedata.name(mora[-1], "")
    return name[-1] if name and name[-1] in "AIUEO" else "A"


def _resonator(freq: float, bw: float) -> tuple[np.ndarray, np.ndarray]:
    r = np.exp(-np.pi * bw / RATE)
    a = np.array([1.0, -2 * r * np.cos(2 * np.pi * freq / RATE), r * r])
    return np.array([a.sum()]), a  # unity gain at 0 Hz keeps levels comparable


def _formant_filter(x: np.ndarray, kind: str) -> np.ndarray:
    y = x
    for f, bw in _FORMANTS[kind]:
        b, a = _resonator(f, bw)
        y = lfilter(b, a, y)
    return y


_NORM: dict[str, float] = {}


def _norm(kind: str) -> float:
    """RMS of the filter's answer to a 220 Hz sawtooth: every vowel equally loud."""
    if kind not in _NORM:
        t = np.arange(RATE // 4) / RATE
        saw = 2 * ((220 * t) % 1.0) - 1
        _NORM[kind] = float(np.sqrt(np.mean(_formant_filter(saw, kind)[RATE // 20:] ** 2)))
    return _NORM[kind]


@dataclass
class _Plan:
    """Per-sample instructions for one verse, filled mora by mora."""
    n: int
    kind: list = field(default_factory=list)   # (start, end, formant kind)
    voice: np.ndarray = None                    # gain of the voiced source
    noise: np.ndarray = None                    # gain of frication / burst noise
    f0: np.ndarray = None                       # Hz

    def __post_init__(self):
        self.voice = np.zeros(self.n)
        self.noise = np.zeros(self.n)
        self.f0 = np.zeros(self.n)


# Issue 23: on the real reader's recordings the importer put two morae 5-100 ms
# apart and its kimariji mark caught up a mora later (poems 17 ちは, 25 なにし,
# 33 ひさ, 36 なつ). What misleads it is a verse's long first mora that changes
# twice (an affricate's burst then its hiss, a nasal's murmur then its vowel, a
# long ひ then its vowel) before a faint consonant (a breathy, half-voiced h).
# `manner="crowding"` reads so; "plain" is the reading of issue 12.
_AFFRICATES = set("ちつぢづ")


def _legato_mora(plan: _Plan, rng, mora: str, a: int, b: int, prev_vowel: str,
                 manner: str = "plain") -> int:
    """Fill samples [a, b) with one mora; return where it is first heard."""
    k, vowel = mora[0], _vowel(mora) or prev_vowel or "A"
    n = b - a
    plan.voice[a:b] = 1.0
    plan.kind.append((a, b, vowel))
    heard = a
    if manner == "crowding" and k in _AFFRICATES:  # burst, then a long hiss
        closure = min(int(rng.uniform(0.025, 0.04) * RATE), n // 4)
        hiss = min(int(rng.uniform(0.06, 0.09) * RATE), n // 3)
        plan.voice[a:a + closure] = 0.0
        plan.voice[a + closure:a + closure + hiss] = 0.0
        plan.noise[a + closure:a + closure + hiss] = 0.45 * np.hanning(hiss) ** 0.2
        plan.kind.append((a, a + closure, "N"))
        heard = a + closure
    elif manner == "crowding" and k in "はへほ":  # a breathy h, the voice going on under it
        h = min(int(rng.uniform(0.05, 0.08) * RATE), n // 2)
        plan.voice[a:a + h] = 0.55
        plan.noise[a:a + h] = 0.07 * np.hanning(h) ** 0.3
    elif manner == "crowding" and k in "ひ":  # a long palatal hiss
        fric = min(int(rng.uniform(0.10, 0.14) * RATE), n // 2)
        plan.voice[a:a + fric] = 0.0
        plan.noise[a:a + fric] = 0.35 * np.hanning(fric) ** 0.3
    elif k in STOPS:   # closure (a voice bar for voiced stops), burst, then the vowel
        closure = min(int(rng.uniform(0.025, 0.045) * RATE), n // 3)
        burst = int(0.010 * RATE)
        plan.voice[a:a + closure] = 0.08 if k in _VOICED_STOPS else 0.0
        plan.voice[a + closure:a + closure + burst] = 0.3
        plan.noise[a + closure:a + closure + burst] = 0.5
        # the closure belongs to this mora, but a listener hears the burst
        heard = a + closure
        plan.kind.append((a, a + closure, "N"))
    elif k in FRICATIVES:
        fric = min(int(rng.uniform(0.05, 0.09) * RATE), n // 2)
        plan.voice[a:a + fric] = 0.25 if k in _VOICED_FRICATIVES else 0.0
        plan.noise[a:a + fric] = 0.35 * np.hanning(fric) ** 0.3
    elif k in _NASALS or k in "ん":
        nas = n if k == "ん" else min(int(rng.uniform(0.035, 0.06) * RATE), n // 2)
        plan.voice[a:a + nas] = 0.45
        plan.kind.append((a, a + nas, "N"))
    elif k in "やゆよ":
        plan.voice[a:a + int(0.03 * RATE)] = 0.75
        plan.kind.append((a, a + int(0.04 * RATE), "I"))
    elif k in "わを":
        plan.voice[a:a + int(0.03 * RATE)] = 0.7
        plan.kind.append((a, a + int(0.04 * RATE), "U"))
    elif k in "らりるれろ":  # a tap: a short dip
        plan.voice[a + int(0.005 * RATE):a + int(0.03 * RATE)] = 0.35
    elif k == "っ":
        plan.voice[a:b] = 0.0
    else:  # a bare vowel after a vowel: a slight re-articulation dip
        dip = int(0.03 * RATE)
        plan.voice[a:a + dip] = np.minimum(plan.voice[a:a + dip], np.linspace(0.55, 1.0, dip))
    return heard


def _moving_average(x: np.ndarray, k: int) -> np.ndarray:
    """np.convolve(x, np.ones(k) / k, mode="same"), by running sums (a long verse's
    convolution was a quarter of the time a reading took to make)."""
    c = np.concatenate(([0.0], np.cumsum(x)))
    j = np.arange(len(x)) + (k - 1) // 2
    return (c[np.minimum(j, len(x) - 1) + 1] - c[np.maximum(j - k + 1, 0)]) / k


def legato_verse(rng, phrases: list[list[str]], mora_s: float, tone_hz: float,
                 held_s: list[float], fade_s: float, manner: str = "plain",
                 ) -> tuple[np.ndarray, list[float], list[float]]:
    """One verse sung through: (samples, mora onsets s, phrase-start onsets s).

    `held_s[p]`: how long the last mora of phrase p lasts; `fade_s`: the fade
    at the verse's end (the yoin of the shimo-no-ku dies away slowly).
    """
    R = REAL_READER
    gap = int(R["phrase_gap_s"] * RATE)
    durs = []
    for p, morae_ in enumerate(phrases):
        row = []
        for i in range(len(morae_)):
            if i == len(morae_) - 1:
                row.append(held_s[p] * rng.uniform(0.85, 1.15))
            elif i == 0 and p == 0 and manner == "crowding":  # a long first mora
                row.append(mora_s * rng.uniform(1.5, 1.8))
            elif i == 0:
                row.append(max(mora_s * rng.uniform(1.0, 1.3), 0.22))
            else:
                row.append(mora_s * rng.uniform(0.8, 1.2))
        durs.append(row)
    total = int(sum(map(sum, durs)) * RATE) + gap * (len(phrases) - 1) + 1
    plan = _Plan(total)
    env = np.ones(total)
    onsets, phrase_starts, pos, prev = [], [], 0, ""
    for p, (morae_, row) in enumerate(zip(phrases, durs)):
        if p:
            plan.voice[pos:pos + gap] = 0.0
            plan.f0[pos:pos + gap] = tone_hz
            pos += gap
        phrase_at = pos
        for i, (m, d) in enumerate(zip(morae_, row)):
            n = int(d * RATE)
            heard = _legato_mora(plan, rng, m, pos, pos + n, prev, manner)
            onsets.append(heard / RATE)
            if i == 0:
                phrase_starts.append(heard / RATE)
            if i == len(morae_) - 1:  # held: the voice weakens slowly
                env[pos:pos + n] *= np.linspace(1.0, 0.65, n)
            prev = _vowel(m) or prev
            pos += n
        # Pitch: 13 st low at the phrase start, rising to the reciting tone in 0.3 s.
        low = R["semitones_low"] + rng.uniform(-1.5, 1.5)
        rise = int(R["rise_s"] * rng.uniform(0.85, 1.15) * RATE)
        span = pos - phrase_at
        st = np.zeros(span)
        r = min(rise, span)
        st[:r] = -low * (1 - np.arange(r) / rise) ** 2
        plan.f0[phrase_at:pos] = tone_hz * 2 ** (st / 12) * rng.uniform(0.99, 1.01)
        env[phrase_at:phrase_at + r] *= np.linspace(0.4, 1.0, r)  # a low voice is softer
    plan.f0[pos:] = tone_hz
    t = np.arange(total) / RATE
    f0 = plan.f0 * 2 ** (R["vibrato_cents"] / 1200 * np.sin(2 * np.pi * R["vibrato_hz"] * t
                                                          + rng.uniform(0, 6)))
    # Vibrato moves the harmonics through the formants: the level swings with it
    # (+-3 dB here), and a real voice shimmers; inside a held vowel both make
    # changes that an onset detector may take for a new mora.
    vib = np.sin(2 * np.pi * R["vibrato_hz"] * t + rng.uniform(0, 6))
    shimmer = _moving_average(rng.standard_normal(total), 480) * 4.0
    env *= 10 ** ((3.0 * vib + shimmer) / 20)
    phase = np.cumsum(f0) / RATE
    source = 2 * (phase % 1.0) - 1                      # a glottal-like buzz, all harmonics
    voiced = np.zeros(total)
    weight = np.zeros(total)
    xf = int(0.025 * RATE)                              # formant transitions take 25 ms
    for a, b, kind in plan.kind:
        lo = max(0, a - int(0.03 * RATE))
        y = _formant_filter(source[lo:min(total, b + xf)], kind)[a - lo:] / _norm(kind)
        w = np.ones(len(y))
        w[:min(xf, len(w))] = np.linspace(0, 1, min(xf, len(w)))
        if len(w) > b - a:
            w[b - a:] = np.linspace(1, 0, len(w) - (b - a))
        # later entries (consonant parts) override the vowel where they lie
        stop = a + len(y)
        weight[a:stop] += w
        voiced[a:stop] += w * y
    voiced /= np.maximum(weight, 1e-6)
    # the voice gain is smoothed a little: a glottis does not switch in one sample
    k = int(0.004 * RATE)
    gain = _moving_average(plan.voice, k)
    noise = np.diff(rng.standard_normal(total + 1))
    breath = 0.05 * noise * gain                          # breathy voice
    x = 0.25 * env * (gain * voiced + breath) + 0.25 * plan.noise * noise
    f = int(fade_s * RATE)
    x[-f:] *= np.linspace(1, 0, f) ** 2
    return x.astype(np.float64), onsets, phrase_starts


def real_reader_reading(no: int, seed: int | None = None, noise_db: float = -60.0,
                        manner: str = "plain") -> Reading:
    """Poem `no` (0 = the joka: kami, shimo, shimo again) read like the real reader
    (`manner`: "plain", or "crowding" as on the cards of issue 23, `_legato_mora`).

    The truth: `kami_onsets`/`shimo_onsets` (first take of the shimo-no-ku for the
    joka) and `kami_phrase_starts`/`shimo_phrase_starts`, in file seconds.
    """
    import poems
    from poems.kana import morae
    poem = poems.JOKA if no == 0 else poems.get(no)
    kami = poem.kami_phrase_morae()
    shimo = [morae(p) for p in poem.shimo_sound]
    rng = np.random.default_rng(seed if seed is not None else 5000 + no)
    R = REAL_READER
    tone = rng.uniform(200, 240)
    mora_s = rng.uniform(0.24, 0.29)
    held = R["held_phrase_s"]
    k, k_on, k_ph = legato_verse(rng, kami, mora_s, tone, [held, held, R["held_kami_s"]], 0.25, manner)
    takes = [legato_verse(rng, shimo, mora_s, tone, [held, rng.uniform(1.6, 2.2)], 0.6, manner)
             for _ in range(2 if no == 0 else 1)]
    pauses = list(R["joka_pauses_s"]) if no == 0 else [rng.uniform(0.8, 1.4)]
    lead = int(rng.uniform(0.3, 0.8) * RATE)
    parts, pos = [np.zeros(lead), k], lead + len(k)
    s0 = None
    for (s, _, _), pause in zip(takes, pauses):
        parts += [np.zeros(int(pause * RATE)), s]
        pos += int(pause * RATE)
        s0 = pos if s0 is None else s0
        pos += len(s)
    parts.append(np.zeros(int(0.5 * RATE)))
    x = np.concatenate(parts)
    x += 10 ** (noise_db / 20) * rng.standard_normal(len(x))
    s, s_on, s_ph = takes[0]
    k0, s0 = lead / RATE, s0 / RATE

    def end(v):
        return (np.flatnonzero(np.abs(v) > 1e-3)[-1] + 1) / RATE

    r = Reading(samples=x.astype(np.float32), rate=RATE,
                kami_start=k0 + k_on[0], kami_end=k0 + end(k),
                shimo_start=s0 + s_on[0], shimo_end=s0 + end(s),
                kami_onsets=[k0 + t for t in k_on], shimo_onsets=[s0 + t for t in s_on])
    r.kami_phrase_starts = [k0 + t for t in k_ph]
    r.shimo_phrase_starts = [s0 + t for t in s_ph]
    return r
