"""One playing level for every voice: loudness to a target, peaks under a ceiling.

Every clip a voice hands out (the synthesised chant, an imported recording, a
spoken notice) is brought to TARGET_LUFS of integrated loudness as ITU-R
BS.1770 measures it (K-weighted, gated; the method of EBU R128), so that cards
and voices play at one level, and its peak is then kept at or under
PEAK_DBFS: a clip too loud in its peaks for the target plays a little quieter
rather than clipped (no limiter: nothing changes its shape).

The measurement is pyloudnorm's (MIT, pure Python over numpy and scipy, both
already needed here): a maintained, tested implementation of the standard, not
one of our own.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

# Integrated loudness of every clip. The chant's peak-to-loudness ratio is 15-21 dB
# (median 18, 30 half-verses), so at -22 LUFS nearly every clip reaches the target
# under the peak ceiling; a louder target would leave the peakiest ones quieter.
TARGET_LUFS = -22.0
PEAK_DBFS = -1.0     # sample-peak ceiling (issue 25: the real reader peaks at -3.75 dBFS)
MIN_S = 0.4          # BS.1770 gates 400 ms blocks: a shorter clip is only peak-limited


@lru_cache(maxsize=4)
def _meter(rate: int):
    """A BS.1770 meter for `rate` (its K-weighting filters designed once)."""
    import pyloudnorm
    return pyloudnorm.Meter(rate)


def warm(rate: int) -> None:
    """Import the meter on a thread of its own now (pyloudnorm imports scipy.signal:
    about 1.2 s), so that the first clip levelled does not wait for all of it."""
    import threading
    threading.Thread(target=_meter, args=(rate,), name="loudness-import", daemon=True).start()


def loudness(samples: np.ndarray, rate: int) -> float:
    """Integrated loudness in LUFS (-inf for silence or a clip under MIN_S)."""
    if len(samples) < MIN_S * rate or not np.any(samples):
        return -math.inf
    return float(_meter(rate).integrated_loudness(np.asarray(samples, dtype=np.float64)))


def gain_for(samples: np.ndarray, rate: int, target_lufs: float = TARGET_LUFS,
             peak_dbfs: float = PEAK_DBFS) -> float:
    """The linear gain that brings `samples` to the target, peaks at most `peak_dbfs`."""
    peak = float(np.max(np.abs(samples))) if len(samples) else 0.0
    if peak == 0.0:
        return 1.0
    level = loudness(samples, rate)
    gain = 10 ** ((target_lufs - level) / 20) if math.isfinite(level) else 1.0
    return min(gain, 10 ** (peak_dbfs / 20) / peak)


def levelled(samples: np.ndarray, rate: int, target_lufs: float = TARGET_LUFS,
             peak_dbfs: float = PEAK_DBFS) -> np.ndarray:
    """`samples` (float32) at the target loudness with peaks under the ceiling."""
    return (np.asarray(samples, dtype=np.float32) * np.float32(gain_for(samples, rate, target_lufs, peak_dbfs)))
