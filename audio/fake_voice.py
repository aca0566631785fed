"""A tone voice for tests and development: every mora is a tone burst with a sharp onset.

It reads nothing aloud, but its clips have the shape of a reading and marks that
are exact by construction, so the programme, the player, the renderer and the
real-audio test can check timing to the sample:

- one burst per sound mora of the poem (``poems``' own mora split), ``MORA_S``
  long, followed by ``GAP_S`` of silence; an extra ``PHRASE_GAP_S`` between
  phrases; the last mora of a shimo-no-ku is held for ``YOIN_S`` (the yoin, 余韻);
- every burst starts at full amplitude on its first sample (a cosine starting at
  phase 0), so an energy detector finds each ``mora:K`` onset exactly;
- ``kimariji`` is the onset of the last decisive mora (``Poem.kimariji_mora_count``),
  ``end`` the sample after the last burst; there is no leading or trailing silence.

Poem ``n`` sings at its own pitch, so a listener can still tell cards apart.
"""
from __future__ import annotations

import numpy as np

from audio.clip import Clip
from audio.voice import RATE, VoiceError

MORA_S = 0.100
GAP_S = 0.020
PHRASE_GAP_S = 0.150
YOIN_S = 0.900
AMPLITUDE = 0.5


class ToneVoice:
    """A `Voice` whose clips are tone bursts at known places (see the module docstring)."""

    name = "test-tones"

    def __init__(self, rate: int = RATE, mora_s: float = MORA_S, yoin_s: float = YOIN_S):
        self.rate = rate
        self._mora = round(mora_s * rate)
        self._gap = round(GAP_S * rate)
        self._phrase_gap = round(PHRASE_GAP_S * rate)
        self._yoin = round(yoin_s * rate)
        self._cache: dict[tuple[int, str], Clip] = {}

    def available(self) -> frozenset[int]:
        return frozenset(range(0, 101))

    def kami(self, no: int) -> Clip:
        return self._clip(no, "kami")

    def shimo(self, no: int) -> Clip:
        return self._clip(no, "shimo")

    # -- building clips -------------------------------------------------------

    def _clip(self, no: int, part: str) -> Clip:
        key = (no, part)
        if key not in self._cache:
            self._cache[key] = self._build(no, part)
        return self._cache[key]

    def _build(self, no: int, part: str) -> Clip:
        import poems
        if not 0 <= no <= 100:
            raise VoiceError(f"no poem number {no} (0 is the joka, 1..100 the poems)")
        poem = poems.JOKA if no == 0 else poems.get(no)
        if part == "kami":
            phrases = [list(p) for p in poem.kami_phrase_morae()]
        else:
            phrases = [poems.morae(p) for p in poem.shimo_sound]
        freq = 330.0 * 2 ** ((no % 24) / 24)  # a quarter-tone apart per poem
        bursts: list[int] = []  # onset of every mora
        marks: dict[str, int] = {}
        pos = 0
        n_morae = sum(len(p) for p in phrases)
        k = 0
        for i, phrase in enumerate(phrases):
            if i:
                pos += self._phrase_gap
            marks[f"phrase:{i}"] = pos
            for _ in phrase:
                marks[f"mora:{k}"] = pos
                bursts.append(pos)
                held = part == "shimo" and k == n_morae - 1
                pos += self._mora + (self._yoin if held else 0)
                if k < n_morae - 1:
                    pos += self._gap
                k += 1
        marks["end"] = pos
        if part == "kami":
            count = _kimariji_morae(poem, n_morae)
            marks["kimariji"] = marks[f"mora:{count - 1}"]
        samples = np.zeros(pos, dtype=np.float32)
        for j, onset in enumerate(bursts):
            stop = bursts[j + 1] - self._gap if j + 1 < len(bursts) else pos
            if j + 1 < len(bursts) and bursts[j + 1] - onset > self._mora + self._gap:
                stop = onset + self._mora  # before a phrase gap
            t = np.arange(stop - onset, dtype=np.float32) / self.rate
            samples[onset:stop] = AMPLITUDE * np.cos(2 * np.pi * freq * t)
        return Clip(samples, self.rate, marks)


def _kimariji_morae(poem, n_morae: int) -> int:
    """Morae up to the kimariji; the joka has none, so its whole first phrase stands in."""
    if poem.no == 0:
        return len(poem.kami_phrase_morae()[0])
    return max(1, min(n_morae, poem.kimariji_mora_count()))
