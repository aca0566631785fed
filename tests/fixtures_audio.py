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
