"""On-disk cache of rendered clips (the synthesised voice's, under cache_dir()/synth/).

One file per clip, named by a hash of everything that made it (text, voice,
settings, engine version), so a change to any of them simply misses. A file
holds a small JSON header (rate, length, marks, checksum) and the samples as
24-bit FLAC. A file that cannot be read back whole and intact is deleted and
reported as a miss: the caller renders again, nothing crashes.

Writes go to a temporary file and are renamed into place, so a reader (or a
second worker process) never sees half a file.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from audio.clip import Clip

log = logging.getLogger(__name__)

MAGIC = b"KRTC1\n"
SUFFIX = ".clip"


def cache_key(**parts: Any) -> str:
    """A stable hash of the JSON form of `parts` (sorted keys)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class ClipCache:
    def __init__(self, root: Path | None = None):
        if root is None:
            from audio.data_dirs import cache_dir
            root = cache_dir() / "synth"
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / f"{key}{SUFFIX}"

    def __contains__(self, key: str) -> bool:
        return self.path(key).is_file()

    def get(self, key: str) -> Clip | None:
        """The cached clip, or None if absent or damaged (a damaged file is removed)."""
        path = self.path(key)
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("synth cache: cannot read %s (%s)", path.name, exc)
            return None
        try:
            return _decode(blob)
        except Exception as exc:  # any damage at all: discard and render again
            log.warning("synth cache: discarding damaged %s (%s)", path.name, exc)
            try:
                path.unlink()
            except OSError:
                pass
            return None

    def put(self, key: str, clip: Clip) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        blob = _encode(clip)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=SUFFIX)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(blob)
            os.replace(tmp, self.path(key))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def clear(self) -> int:
        """Delete every cached clip; returns how many."""
        n = 0
        if self.root.is_dir():
            for path in self.root.glob(f"*{SUFFIX}"):
                path.unlink(missing_ok=True)
                n += 1
        return n


def _encode(clip: Clip) -> bytes:
    import soundfile
    audio = io.BytesIO()
    soundfile.write(audio, np.clip(clip.samples, -1.0, 1.0), clip.rate, format="FLAC", subtype="PCM_24")
    data = audio.getvalue()
    header = json.dumps({
        "rate": clip.rate, "n": len(clip.samples), "marks": dict(clip.marks),
        "sha256": hashlib.sha256(data).hexdigest(),
    }).encode()
    return MAGIC + struct.pack("<I", len(header)) + header + data


def _decode(blob: bytes) -> Clip:
    import soundfile
    if not blob.startswith(MAGIC):
        raise ValueError("not a clip file")
    (size,) = struct.unpack_from("<I", blob, len(MAGIC))
    start = len(MAGIC) + 4
    header = json.loads(blob[start:start + size])
    data = blob[start + size:]
    if hashlib.sha256(data).hexdigest() != header["sha256"]:
        raise ValueError("checksum mismatch")
    samples, rate = soundfile.read(io.BytesIO(data), dtype="float32")
    if rate != header["rate"] or samples.ndim != 1 or len(samples) != header["n"]:
        raise ValueError("audio does not match its header")
    return Clip(samples, rate, {str(k): int(v) for k, v in header["marks"].items()})
