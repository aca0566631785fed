"""A voice made of imported recordings (see `audio.importer`).

Stored as ``<data>/voices/<NAME>/index.json`` plus one FLAC file per verse.
Damage stays local: a broken index entry or a missing or unreadable file
makes that poem's `kami`/`shimo` raise `VoiceError` naming the poem and the
problem; the other poems still read. A damaged or missing index as a whole
makes every poem raise the same clear error, and `available()` is empty.
Opening a voice deletes the clips an interrupted import left
(`audio.importer.tidy_voice`), never anything when the index is missing or
damaged. The name is checked as `import-readings --name` checks it: an
absolute path, ``..`` or an empty name never opens (or tidies) another folder.
"""
from __future__ import annotations

from pathlib import Path

from audio.clip import Clip
from audio.loudness import levelled
from audio.importer import INDEX_NAME, read_index, tidy_voice, valid_voice_name, voices_root
from audio.voice import RATE, VoiceError


def list_voices() -> list[str]:
    """Names of the imported voices (folders holding an index), sorted."""
    root = voices_root()
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and (p / INDEX_NAME).is_file())


class RecordedVoice:
    """Implements `audio.voice.Voice` over a stored import."""

    rate = RATE

    def __init__(self, name: str, root: Path | None = None):
        self.name = name
        self.dir: Path | None
        self._index: dict | None = None
        self._index_error: str | None = None
        try:
            stored_name = valid_voice_name(name)
        except ValueError as exc:   # never a path: it would open (and tidy) any folder
            self.dir = None
            self._index_error = f"{exc}; it is not the name of an imported voice"
            return
        self.dir = (root or voices_root()) / stored_name
        self._load_index()

    def _load_index(self) -> None:
        assert self.dir is not None
        if not self.dir.is_dir():
            self._index_error = f"no imported voice called {self.name!r} (looked in {self.dir})"
            return
        tidy_voice(self.dir)   # clips an interrupted import left behind
        try:
            self._index = read_index(self.dir)
        except ValueError as exc:
            self._index_error = (f"the index of voice {self.name!r} cannot be used: {exc}; "
                                 "import the recordings again to rebuild it")

    @property
    def problem(self) -> str | None:
        """Why no poem of this voice can be read (a bad name, no folder, a damaged or
        missing index), or None."""
        return self._index_error

    def __repr__(self) -> str:
        return f"RecordedVoice({self.name!r})"

    def available(self) -> frozenset[int]:
        """Poems with an index entry whose two files are present."""
        if self._index is None or self.dir is None:
            return frozenset()
        out = set()
        for key, entry in self._index["poems"].items():
            try:
                no = int(key)
                if all((self.dir / entry[part]["file"]).is_file() for part in ("kami", "shimo")):
                    out.add(no)
            except (ValueError, TypeError, KeyError):
                continue
        return frozenset(out)

    def own_pause(self, no: int) -> float | None:
        """Seconds the reader left between poem `no`'s kami-no-ku (its end) and its
        shimo-no-ku (its first sound), where both came from one recording; None
        where the index does not tell (two files, an older index, damage)."""
        try:
            source = (self._index or {})["poems"][str(no)]["source"]
            files = source.get("files") or [source["file"]]
            if len(set(files)) != 1:
                return None
            pause = float(source["shimo_start_s"]) - float(source["kami_end_s"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return pause if 0.0 <= pause <= 60.0 else None

    def kami(self, no: int) -> Clip:
        return self._clip(no, "kami")

    def shimo(self, no: int) -> Clip:
        return self._clip(no, "shimo")

    def _clip(self, no: int, part: str) -> Clip:
        import numpy as np
        import soundfile as sf

        label = "the joka" if no == 0 else f"poem {no}"
        what = f"voice {self.name!r}, {label}, {part}-no-ku"
        if self._index is None or self.dir is None:
            raise VoiceError(f"{what}: {self._index_error}")
        entry = self._index["poems"].get(str(no))
        if entry is None:
            raise VoiceError(f"{what}: not recorded in this voice")
        try:
            file = self.dir / str(entry[part]["file"])
            marks = {str(k): int(v) for k, v in entry[part]["marks"].items()}
        except (KeyError, TypeError, ValueError, AttributeError):
            raise VoiceError(f"{what}: its entry in {INDEX_NAME} is damaged; import it again") from None
        if not file.is_file():
            raise VoiceError(f"{what}: the file {file} is missing; import the recording again")
        try:
            samples, rate = sf.read(str(file), dtype="float32", always_2d=True)
        except Exception as exc:  # libsndfile's own errors are plain RuntimeErrors
            raise VoiceError(f"{what}: the file {file} cannot be read ({exc})") from None
        if rate != RATE:
            raise VoiceError(f"{what}: the file {file} is at {rate} Hz, not {RATE}; import it again")
        # played at the level of every other voice (the stored file keeps the recording's own)
        samples = levelled(np.ascontiguousarray(samples.mean(axis=1), dtype=np.float32), RATE)
        try:
            return Clip(samples, RATE, marks)
        except ValueError as exc:
            raise VoiceError(f"{what}: the marks do not fit the file ({exc}); import it again") from None
