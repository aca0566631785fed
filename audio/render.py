"""Offline render: a whole reading session written to a WAV or FLAC file, no sound device.

The file is mono, 48 kHz, 16-bit, sample for sample what the player would play
(`Programme.fill`), written in one-second blocks so a 20-minute session never
sits in memory twice. `open_voice` resolves the names ``--voice`` accepts.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from audio.programme import Programme
from audio.voice import RATE, Voice, VoiceError

FORMATS = {".wav": ("WAV", "PCM_16"), ".flac": ("FLAC", "PCM_16")}
TONES = "test-tones"  # the tone voice of audio.fake_voice: exact marks, no speech

Progress = Callable[[int, int], None]


def synth_voice(pitch_hz: float | None = None):
    """The synthesised reader, reciting on `pitch_hz` (None: the style's default tone)."""
    from audio.synth import SynthVoice
    from audio.synth_chant import ChantStyle
    return SynthVoice(ChantStyle() if pitch_hz is None else ChantStyle(tone_hz=float(pitch_hz)))


def open_voice(name: str, pitch_hz: float | None = None) -> Voice:
    """``synth`` (offline synthesis), ``test-tones`` (tone bursts), or an imported voice's name.
    `pitch_hz`: the synthesised reader's reciting tone (None: its default).

    Raises `VoiceError` with a sentence for the user when the voice cannot be had.
    """
    if name == "synth":
        try:
            from audio.synth import SynthVoice
        except ImportError as exc:
            raise VoiceError(f"the synthesised voice is not available here ({exc}); "
                             "import recordings and use --voice NAME") from exc
        reason = SynthVoice.unavailable()
        if reason:
            raise VoiceError(f"the synthesised voice is not available here ({reason}); "
                             "import recordings and use --voice NAME")
        return synth_voice(pitch_hz)
    if name == TONES:
        from audio.fake_voice import ToneVoice
        return ToneVoice()
    from audio.recorded_voice import RecordedVoice
    voice = RecordedVoice(name)
    if voice.problem and (voice.dir is None or voice.dir.is_dir()):   # a bad name, a bad index
        raise VoiceError(f"no usable imported voice called {name!r}: {voice.problem}")
    if not voice.available():
        try:
            from audio.recorded_voice import list_voices
            names = ", ".join(list_voices()) or "none yet"
        except OSError:
            names = "unknown"
        raise VoiceError(f"no usable imported voice called {name!r} (imported voices: {names}); "
                         "`karuta import-readings FOLDER` imports one")
    return voice


def file_format(path: Path) -> tuple[str, str]:
    try:
        return FORMATS[path.suffix.lower()]
    except KeyError:
        raise ValueError(f"cannot write {path.name!r}: the file name must end in .wav or .flac") from None


def render_to_file(programme: Programme, path: str | Path, progress: Progress | None = None,
                   block: int = RATE) -> Path:
    """Write `programme` to `path` (.wav or .flac); `progress(done, total)` after each block.

    Writes to a temporary name first and renames at the end, so an interrupted
    render never leaves a truncated file under the requested name.
    """
    import os
    import tempfile

    import soundfile as sf

    from audio.safe_files import umask
    path = Path(path)
    fmt, subtype = file_format(path)
    # mkstemp, not a fixed ".NAME.part": a link planted there would be written through
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    tmp = Path(tmp_name)
    total = programme.total_samples
    buf = np.empty(block, dtype=np.float32)
    hint = -1
    try:
        with os.fdopen(fd, "w+b") as raw, sf.SoundFile(raw, "w", samplerate=programme.rate, channels=1,
                                                      format=fmt, subtype=subtype) as f:
            os.fchmod(raw.fileno(), 0o666 & ~umask())   # mkstemp makes 0600
            for pos in range(0, total, block):
                n = min(block, total - pos)
                hint = programme.fill(buf[:n], pos, hint)
                f.write(buf[:n])
                if progress:
                    progress(pos + n, total)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


class ProgressBar:
    """A one-line progress bar on a terminal stream (stderr), redrawn at most 10 times a second."""

    def __init__(self, label: str, stream=None, width: int = 30):
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self._last = 0.0
        self._started = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        frac = done / total if total else 1.0
        fill = int(frac * self.width)
        bar = "#" * fill + "-" * (self.width - fill)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r{self.label} [{bar}] {frac * 100:5.1f}% "
                          f"({now - self._started:.1f} s){end}")
        self.stream.flush()
