"""A clip: mono float32 samples, their rate, and named marks (sample offsets).

Marks are what reaction times are measured from, so every producer of clips
(synthesis, imported recordings) must place them where a listener hears them.

Mark names used across the project:
  ``phrase:K``   start of phrase K (0-based; kami-no-ku has 3, shimo-no-ku 2)
  ``mora:K``     onset of mora K (0-based, counted over the whole clip's text)
  ``kimariji``   onset of the last decisive mora: the first moment a listener
                 can tell the poem from every other (static kimariji)
  ``end``        end of the voiced sound (before trailing silence, if any)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class Clip:
    samples: np.ndarray  # shape (n,), float32 in [-1, 1]
    rate: int
    marks: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self):
        if self.samples.ndim != 1:
            raise ValueError("a clip is mono: samples must be 1-D")
        for name, pos in self.marks.items():
            if not 0 <= pos <= len(self.samples):
                raise ValueError(f"mark {name!r} at {pos} lies outside the clip (0..{len(self.samples)})")

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate

    def mark_seconds(self, name: str) -> float:
        return self.marks[name] / self.rate

    def mora_marks(self) -> list[int]:
        """Mora onsets in order."""
        out, k = [], 0
        while f"mora:{k}" in self.marks:
            out.append(self.marks[f"mora:{k}"])
            k += 1
        return out
