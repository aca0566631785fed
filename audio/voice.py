"""A voice: where the clips of a reading come from.

Two kinds exist: the offline synthesised voice (audio.synth) and a set of
imported recordings (audio.importer). The programme and the player only see
this protocol. Poem number 0 is the joka (序歌).
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from audio.clip import Clip

RATE = 48_000  # every clip in the project is at this rate (the null sink's too)


class VoiceError(Exception):
    """A voice cannot give a clip (missing recording, failed synthesis): said to the user as is."""


@runtime_checkable
class Voice(Protocol):
    name: str
    rate: int

    def kami(self, no: int) -> Clip:
        """Kami-no-ku of poem `no`: marks phrase:0..2, mora:K, kimariji, end."""

    def shimo(self, no: int) -> Clip:
        """Shimo-no-ku of poem `no`: marks phrase:0..1, mora:K where known, end."""

    def available(self) -> frozenset[int]:
        """Poem numbers this voice can read (0 = joka)."""
