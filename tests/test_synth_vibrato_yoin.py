"""The chant's vibrato and yoin fade (issue 25), on plain signals: no engine needed."""
from __future__ import annotations

import numpy as np
import pytest

from audio import synth
from audio.synth_chant import ChantStyle

RATE = synth.RATE


def _swing_hz(x: np.ndarray) -> np.ndarray:
    """Instantaneous frequency of a sine (Hz), from the phase of its analytic signal."""
    from scipy.signal import hilbert
    phase = np.unwrap(np.angle(hilbert(x.astype(np.float64))))
    return np.diff(phase) * RATE / (2 * np.pi)


def _vibrato_of(n: int, at: int, yoin: bool = False) -> np.ndarray:
    """A 220 Hz sine of n samples given the chant's vibrato as if it lay at sample `at`."""
    x = np.zeros(at + n, np.float32)
    x[at:] = np.sin(2 * np.pi * 220.0 * np.arange(n) / RATE)
    synth._vibrato(x, at, at + n, ChantStyle(), yoin=yoin)
    return x[at:]


def _rate_and_depth(x: np.ndarray) -> tuple[float, float]:
    """As audio.synth_prosody measures a held vowel: F0 every 5 ms, its swing's rate and depth."""
    from audio.synth_prosody import STEP_S, vibrato
    hop = int(STEP_S * RATE)
    f = _swing_hz(x)
    f0 = f[: len(f) // hop * hop].reshape(-1, hop).mean(axis=1)
    t = np.arange(len(f0)) * STEP_S
    got = vibrato(t, f0, 0.2, t[-1] - 0.1)
    assert got is not None
    return got


def test_the_vibrato_varies_from_vowel_to_vowel_and_renders_the_same_each_time():
    rates, depths = zip(*[_rate_and_depth(_vibrato_of(RATE, at)) for at in (1000, 50_000, 90_000, 130_000)])
    assert max(rates) - min(rates) > 0.1, rates        # not one sinusoid on every vowel
    assert max(depths) - min(depths) > 2.0, depths
    assert 5.0 < np.median(rates) < 6.4 and 22 < np.median(depths) < 46, (rates, depths)
    assert np.array_equal(_vibrato_of(RATE, 1000), _vibrato_of(RATE, 1000))   # seeded by place and length


def test_the_yoin_vibrato_is_slower_and_shallower():
    held = [_rate_and_depth(_vibrato_of(2 * RATE, at)) for at in (1000, 7000, 23_000)]
    yoin = [_rate_and_depth(_vibrato_of(2 * RATE, at, yoin=True)) for at in (1000, 7000, 23_000)]
    assert np.median([r for r, _ in yoin]) < np.median([r for r, _ in held])
    assert np.median([d for _, d in yoin]) < np.median([d for _, d in held])


def test_the_vibrato_leaves_the_vowels_ends_in_place():
    x = _vibrato_of(RATE // 2, 3000)
    plain = np.sin(2 * np.pi * 220.0 * np.arange(RATE // 2) / RATE)
    assert np.allclose(x[:10], plain[:10], atol=1e-3) and np.allclose(x[-10:], plain[-10:], atol=1e-3)


@pytest.mark.parametrize("left,db", [(1.0, -2.9), (0.5, -6.8), (0.25, -10.7)])
def test_the_yoin_fades_as_the_measured_reader(left, db):
    # issue 25's reader: -2.9, -6.6 and -10.8 dB at 1.0, 0.5 and 0.25 s before the end
    assert synth.yoin_gain_db(np.array([left]), 40.0)[0] == pytest.approx(db, abs=0.25)


def test_the_yoin_fade_starts_level_and_stops_at_its_depth():
    gain = synth.yoin_gain_db(np.array([2.5, 1.7, 0.01]), 12.0)
    assert gain[0] == 0.0 and gain[1] == pytest.approx(0.0, abs=0.1) and gain[2] == -12.0
