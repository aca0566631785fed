"""The spoken notices of the memorisation period (暗記時間), for `audio.programme`.

The synthesised voice speaks them (pyopenjtalk's own voice, read plainly, not
chanted: they are announcements, not poems), cached on disk like the poems'
clips. A voice that cannot synthesise (an imported recording set, or no
engine here) gets tones instead (`audio.programme.notice_tone`); the Reader
panel shows the words on screen either way.
"""
from __future__ import annotations

from audio.cache import ClipCache, cache_key
from audio.clip import Clip
from audio.loudness import levelled
from audio.voice import RATE

# In kana, as the poems are fed: the standalone build leaves out the dictionary that reads
# kanji, and kana read the same everywhere. (暗記時間、残り二分です。/ 競技を始めます。)
TEXTS = {
    "two_minutes": "あんきじかん、のこり、にふんです。",
    "start": "きょうぎを、はじめます。",
}
NOTICE_VERSION = 3
SILENCE_DB = 45.0   # a clip's sound starts/ends where it rises above loudest - this


def notices_for(voice_name: str, cache: ClipCache | None = None) -> dict[str, Clip] | None:
    """Spoken notices for the voice called `voice_name`, or None (tones will stand in)."""
    if voice_name != "synth":
        return None
    try:
        return {name: spoken(name, cache) for name in TEXTS}
    except Exception:   # no engine on this platform: the tones stand in, the reading goes on
        return None


def spoken(name: str, cache: ClipCache | None = None) -> Clip:
    """Notice `name` (a key of TEXTS) spoken by pyopenjtalk, from the cache when it is there."""
    from audio.synth_hts import openjtalk
    pyopenjtalk = openjtalk()          # without the notice it prints to stdout on import
    text = TEXTS[name]
    cache = cache or ClipCache()
    key = cache_key(notice=text, engine=getattr(pyopenjtalk, "__version__", "?"),
                    version=NOTICE_VERSION, rate=RATE)
    clip = cache.get(key)
    if clip is None:
        clip = _render(text)
        try:
            cache.put(key, clip)
        except OSError:
            pass   # a full or read-only disk costs time, not the notice
    return clip


def _render(text: str) -> Clip:
    import numpy as np

    from audio.synth_hts import openjtalk
    wave, rate = openjtalk().tts(text)
    x = np.asarray(wave, dtype=np.float64) / 32768.0
    if rate != RATE:
        import soxr
        x = soxr.resample(x, rate, RATE)
    x = levelled(x.astype(np.float32), RATE)
    loud = np.flatnonzero(np.abs(x) > 10 ** (-SILENCE_DB / 20) * float(np.max(np.abs(x))))
    first, end = (int(loud[0]), int(loud[-1]) + 1) if len(loud) else (0, len(x))
    return Clip(np.ascontiguousarray(x), RATE, {"phrase:0": first, "end": end})
