"""audio.loudness: one playing level for every voice (issue 25)."""
from __future__ import annotations

import numpy as np
import pytest

from audio import loudness

RATE = 48_000


def _tone(seconds: float, amplitude: float, hz: float = 1000.0) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return (amplitude * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def test_a_full_scale_1khz_sine_measures_as_the_standard_says():
    # BS.1770: a 0 dBFS 997 Hz sine on one channel reads -3.01 LUFS
    assert loudness.loudness(_tone(3.0, 1.0, 997.0), RATE) == pytest.approx(-3.01, abs=0.1)


@pytest.mark.parametrize("amplitude", [0.01, 0.05, 0.2])
def test_quiet_and_loud_clips_come_out_at_the_target(amplitude):
    x = loudness.levelled(_tone(3.0, amplitude), RATE)
    assert loudness.loudness(x, RATE) == pytest.approx(loudness.TARGET_LUFS, abs=0.05)
    assert x.dtype == np.float32


def test_peaks_stay_under_the_ceiling_even_below_the_target():
    # a click train: high peaks, little loudness; the ceiling wins over the target
    x = np.zeros(3 * RATE, np.float32)
    x[:: RATE // 10] = 0.9
    out = loudness.levelled(x, RATE)
    assert 20 * np.log10(np.max(np.abs(out))) == pytest.approx(loudness.PEAK_DBFS, abs=0.01)
    assert loudness.loudness(out, RATE) < loudness.TARGET_LUFS


def test_silence_and_very_short_clips_are_left_as_they_are_or_only_peak_limited():
    assert not np.any(loudness.levelled(np.zeros(RATE, np.float32), RATE))
    short = _tone(0.1, 1.0)
    assert np.max(np.abs(loudness.levelled(short, RATE))) == pytest.approx(10 ** (loudness.PEAK_DBFS / 20), rel=1e-4)
