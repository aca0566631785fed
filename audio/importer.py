"""Import of recorded readings: a folder of audio files becomes a voice.

A reader (or a recording bought on CD) gives one file per poem holding the
kami-no-ku (上の句), a pause and the shimo-no-ku (下の句), or two files per poem
(``kami_017.flac`` / ``shimo_017.flac``, ``017a`` / ``017b``, ``017_1`` /
``017_2``). The poem number comes from the file name; 0 or ``joka`` is the
joka (序歌). Every file is decoded (anything soundfile reads), mixed to mono,
resampled to 48 kHz, split at its pause, trimmed, and marked: ``mora:K``,
``phrase:K``, ``kimariji`` and ``end`` (see `audio.onsets` for how).

The joka read kami · shimo · shimo keeps its kami and first shimo (the
programme reads the shimo twice). Every poem reports its phrase starts in file
seconds, and marks resting on the pace alone (no breath, no pitch drop at a
phrase join) as uncertain; a card is flagged doubtful only when its kimariji mark
is among them (`_doubts`). `write_labels` gives Audacity label files to check
them by ear and `read_labels` takes the corrected marks back.

One bad file never stops the import: each file gets a line saying what was
found and what looks wrong, and the summary says which numbers are missing.
The result is stored under ``<data>/voices/<NAME>/`` (FLAC clips plus
``index.json``) and read back by `audio.recorded_voice.RecordedVoice`.
Importing again under the same name keeps the poems not found this time; a
poem found again is replaced only by a take that passes every check. A take
with warnings is kept beside the stored one as a *candidate*, for the user to
accept after listening (`accept_candidates`). Names that could mean two
poems ("017 take 2") are refused with the rename to make.

Safety: one import per voice at a time (`voice_lock`); clips no index names
(an interrupted import's) are deleted at the next import or when the voice
is opened, and only files of the importer's own naming in its own folder.
A file longer than `MAX_FILE_S` is refused before it is decoded, and the
analysis works in bounded slices, so memory stays bounded.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import re
import secrets
import shlex
import shutil
import sys
import tempfile
import threading
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from audio import onsets
from audio.clip import Clip
from audio.voice import RATE
from audio.safe_files import open_no_follow, read_text_regular, umask, write_atomic

AUDIO_SUFFIXES = frozenset({
    ".wav", ".wave", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aif", ".aiff",
    ".aifc", ".au", ".caf", ".w64", ".rf64",
})
# AAC in an MP4 box (what phones record): libsndfile, the only decoder here, cannot read it,
# and a decoder for it would be a heavy dependency. Such files are refused with a line
# saying how to convert them, instead of being skipped as "not audio".
CONVERT_FIRST = frozenset({".m4a", ".aac", ".mp4"})
INDEX_NAME = "index.json"
INDEX_FORMAT = "karuta-recorded-voice"
INDEX_VERSION = 1

PAD_BEFORE_S = 0.02   # kept before the first sound: the attack must not be cut
PAD_AFTER_S = 0.10    # kept after the kami-no-ku's last sound
YOIN_TAIL_S = 0.40    # kept after the shimo-no-ku: the held vowel dies away
FADE_S = 0.005        # fades at cut edges, inside the padding, against clicks
MIN_VOICED_S = 0.5    # less than this is not a reading at all
SHORT_VERSE_S = 2.0   # a kami- or shimo-no-ku shorter than this is suspicious
LONG_FILE_S = 90.0    # longer than this is probably not one poem
MAX_FILE_S = 300.0    # longer than this is refused: not one poem, and memory stays bounded
SHORT_PAUSE_S = 0.4   # a kami/shimo pause shorter than this may be a breath between phrases
MIN_RANGE_DB = 15.0   # speech must stand this far above the noise floor
PIN_ROUNDS = 3        # morae up to the kimariji placed again at their consonants, at most
MORA_S = (0.1, 0.9)   # plausible mean mora duration of a reading (karuta reading: ~0.2-0.35 s)


class ImportProblem(Exception):
    """This file cannot be imported; the message says why, for the user."""


class ImportFailure(Exception):
    """The import as a whole could not be done or stored; the message says why. Nothing
    stored before it is lost."""


class VoiceBusy(ImportFailure):
    """Another import into the same voice is running."""


# --- file names ----------------------------------------------------------------

@dataclass(frozen=True)
class NamedFile:
    path: Path
    no: int
    part: str            # "whole", "kami" or "shimo"
    note: str | None = None  # something doubtful about the name


_PAIR_SUFFIX = (
    (re.compile(r"(?<!\d)(\d{1,3})\s*[-_ ]?([ab])$"), {"a": "kami", "b": "shimo"}),
    (re.compile(r"(?<!\d)(\d{1,3})\s*[-_]\s*([12])$"), {"1": "kami", "2": "shimo"}),
)
# Words count only as words of their own: "shimo" in a reader's name ("Shimomura")
# or "kami" in "Kamijo" says nothing about the part.
_JOKA = re.compile(r"(?<![a-z])(?:joka|jyoka)(?![a-z])|序歌")
_KAMI = re.compile(r"(?<![a-z])kami(?![a-z])|上の句|上句")
_SHIMO = re.compile(r"(?<![a-z])shimo(?![a-z])|下の句|下句")


def parse_name(path: Path) -> NamedFile:
    """Poem number and part from a file name; ImportProblem if there is none.

    >>> parse_name(Path("Hyakunin_Isshu (17).MP3")).no
    17
    """
    stem = unicodedata.normalize("NFKC", path.stem).lower().strip()
    part = "whole"
    if _KAMI.search(stem) and not _SHIMO.search(stem):
        part = "kami"
    elif _SHIMO.search(stem) and not _KAMI.search(stem):
        part = "shimo"
    for pattern, parts in _PAIR_SUFFIX:
        m = pattern.search(stem)
        if m and part == "whole" and int(m.group(1)) <= 100:
            return NamedFile(path, int(m.group(1)), parts[m.group(2)])
    joka = _JOKA.search(stem)
    numbers = [int(n) for n in re.findall(r"\d+", stem)]
    in_range = [n for n in numbers if n <= 100]
    if joka:
        if part == "whole":
            m = re.search(r"(?:(?<![a-z])joka|(?<![a-z])jyoka|序歌)\s*[-_ ]?([ab12])$", stem)
            if m:
                part = {"a": "kami", "1": "kami", "b": "shimo", "2": "shimo"}[m.group(1)]
        return NamedFile(path, 0, part)
    if not in_range:
        if numbers:
            raise ImportProblem(f"the number{'s' if len(numbers) > 1 else ''} in the name "
                                f"({', '.join(map(str, numbers))}) is not a poem number 0-100")
        raise ImportProblem("no poem number in the name (expected e.g. 017.wav, kami_017.flac, joka.mp3)")
    if len(set(in_range)) > 1:  # "017 take 2": which is the poem? guessing replaced good clips
        raise ImportProblem(_ambiguous(path, sorted(set(in_range), key=in_range.index), part))
    return NamedFile(path, in_range[-1], part)


def _ambiguous(path: Path, numbers: list[int], part: str) -> str:
    prefix = "" if part == "whole" else f"{part}_"
    names = [f"{prefix}{n:03d}{path.suffix.lower()}" for n in numbers]
    renames = " or ".join(f"mv {shlex.quote(path.name)} {shlex.quote(n)}" for n in names)
    return (f"ambiguous: several poem numbers in the name ({', '.join(map(str, numbers))}); "
            f"rename it to the poem it holds: {renames}")


# --- results -------------------------------------------------------------------

@dataclass
class PoemResult:
    """One imported poem: where things are in the source file(s), the clips, the doubts."""
    no: int
    files: list[str]
    kami_start_s: float
    kami_end_s: float
    shimo_start_s: float
    shimo_end_s: float
    kimariji_mark_s: float | None
    kami: Clip
    shimo: Clip
    warnings: list[str] = field(default_factory=list)
    candidate: bool = False   # kept beside the stored take, not replacing it (it has warnings)
    token: str = ""           # the name part of its stored clips
    phrase_starts_s: dict[str, list[float]] = field(default_factory=dict)  # per part, file seconds
    clip_start_s: dict[str, float] = field(default_factory=dict)  # per part: clip sample 0 in its file
    uncertain: list[str] = field(default_factory=list)  # marks resting on the pace alone: check them
    kimariji_uncertain: list[str] = field(default_factory=list)  # ... of them, those on the kimariji mark
    samples_released: bool = False  # the clips are stored and their samples let go (release_samples)

    def release_samples(self) -> None:
        """Let the clips' samples go once they are stored: what stays is their length,
        rate and marks (the samples become a zero-strided view of zeros, 4 bytes)."""
        self.kami, self.shimo = (Clip(np.broadcast_to(np.float32(0.0), c.samples.shape), c.rate, c.marks)
                                 for c in (self.kami, self.shimo))
        self.samples_released = True

    # From a worker process: a released clip's samples travel as their length (pickle
    # copies a zero-strided view out to its full size, ~3 MB a poem).
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if self.samples_released:
            for part in ("kami", "shimo"):
                clip = state[part]
                state[part] = (len(clip.samples), clip.rate, clip.marks)
        return state

    def __setstate__(self, state: dict) -> None:
        if state.get("samples_released"):
            for part in ("kami", "shimo"):
                length, rate, marks = state[part]
                state[part] = Clip(np.broadcast_to(np.float32(0.0), (length,)), rate, marks)
        self.__dict__.update(state)

    @property
    def part_files(self) -> dict[str, str]:
        """The source file of each part (one file for both, or a kami/shimo pair)."""
        return {"kami": self.files[0], "shimo": self.files[-1]}

    def summary(self) -> dict:
        return {
            "no": self.no,
            "file": self.files[0],
            "files": self.files,
            "kami_start_s": round(self.kami_start_s, 3),
            "kami_end_s": round(self.kami_end_s, 3),
            "shimo_start_s": round(self.shimo_start_s, 3),
            "shimo_end_s": round(self.shimo_end_s, 3),
            "kimariji_mark_s": None if self.kimariji_mark_s is None else round(self.kimariji_mark_s, 3),
            "phrase_starts_s": {part: [round(t, 3) for t in ts] for part, ts in self.phrase_starts_s.items()},
            "clip_start_s": {part: round(t, 6) for part, t in self.clip_start_s.items()},
            "marks_uncertain": list(self.uncertain),
            "kimariji_uncertain": list(self.kimariji_uncertain),
            "warnings": list(self.warnings),
            "candidate": self.candidate,
        }


@dataclass
class FailedFile:
    file: str
    error: str


@dataclass
class ImportReport:
    name: str
    folder: str
    voice_dir: str
    poems: list[PoemResult]
    failed: list[FailedFile]
    skipped: list[str]            # files that are not audio by their name
    missing: list[int]            # of 1..100, no poem imported this time
    stored: list[int]             # every poem the voice holds after this import
    joka: bool
    cancelled: bool = False

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "folder": self.folder,
            "voice_dir": self.voice_dir,
            "poems": [p.summary() for p in self.poems],
            "summary": {
                "imported": len(self.poems),
                "joka": self.joka,
                "missing": self.missing,
                "failed": [{"file": f.file, "error": f.error} for f in self.failed],
                "skipped": self.skipped,
                "with_warnings": sum(1 for p in self.poems if p.warnings),
                "voice_holds": len(self.stored),
                "candidates": [p.no for p in self.poems if p.candidate],
                "cancelled": self.cancelled,
            },
        }


# --- decoding ------------------------------------------------------------------

def load_audio(path: Path) -> tuple[np.ndarray, list[str]]:
    """Mono float32 at RATE, and warnings about the file itself (clipping, length)."""
    import soundfile as sf
    import soxr

    try:
        size = path.stat().st_size
        with open(path, "rb"):  # libsndfile says only "System error." when it may not read
            pass
    except OSError as exc:
        raise ImportProblem(f"cannot be read: {exc.strerror or exc}") from None
    if size == 0:
        raise ImportProblem("unreadable: the file is empty (0 bytes)")
    try:
        with sf.SoundFile(str(path)) as f:
            rate, declared, info = f.samplerate, f.frames, f.extra_info
            # Never more than MAX_FILE_S of it: a long file must not exhaust memory.
            limit = int(MAX_FILE_S * rate) + 1
            if declared > limit:
                raise ImportProblem(_too_long(declared / rate))
            data = f.read(frames=limit, dtype="float32", always_2d=True)
    except ImportProblem:
        raise
    except Exception as exc:  # libsndfile raises plain errors with its own wording
        raise ImportProblem(_unreadable(exc)) from None
    if data.shape[0] >= limit:  # its header did not say how long it is
        raise ImportProblem(_too_long(None))
    if data.shape[0] == 0:
        raise ImportProblem("unreadable: the file holds no audio frames")
    # A cut-off copy: libsndfile notes header sizes that "should be" smaller
    # (WAV, AIFF), or an MP3's header promises more frames than it holds.
    truncated = "(should be" in info or data.shape[0] < 0.98 * declared
    if data.shape[0] < MIN_VOICED_S * rate:  # not "silent": there is hardly anything there
        raise ImportProblem(f"damaged or cut off: only {data.shape[0] / rate:.2f} s of audio in "
                            f"{size / 1024:.0f} KB" + (" (its header promises more)" if truncated else ""))
    warnings = []
    if truncated:
        warnings.append("truncated: the file is shorter than its header says (an interrupted copy?)")
    if not np.isfinite(data).all():  # a damaged float file
        data = np.nan_to_num(data, nan=0.0, posinf=0.0, neginf=0.0)
    clipped = max(onsets.clipped_samples(data[:, c]) for c in range(data.shape[1]))
    if clipped >= 20:
        warnings.append(f"clipped: {clipped} samples at full scale; the loudest sounds are distorted")
    mono = data[:, 0].copy()
    for c in range(1, data.shape[1]):  # column sums: 10x faster than data.mean(axis=1)
        mono += data[:, c]
    if data.shape[1] > 1:
        mono *= 1.0 / data.shape[1]
    if rate != RATE:
        mono = soxr.resample(mono, rate, RATE, quality="HQ")
    mono = np.ascontiguousarray(mono, dtype=np.float32)
    if len(mono) / RATE > LONG_FILE_S:
        warnings.append(f"long: {len(mono) / RATE:.0f} s; one poem is usually 15-30 s")
    return mono, warnings


def _too_long(seconds: float | None) -> str:
    length = "" if seconds is None else f" ({seconds / 60:.0f} min)"
    return (f"too long{length}: over {MAX_FILE_S / 60:.0f} minutes is not one poem; "
            "cut it into one file per poem (or per kami-/shimo-no-ku)")


def _unreadable(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    # libsndfile's wording for a file it cannot identify blames the path
    # ("does not exist or is not a regular file"): say what it means.
    if any(s in text for s in ("not a regular file", "Format not recognised", "unknown format")):
        return "unreadable: not audio in a format soundfile can decode, or damaged"
    text = text.split(": ", 1)[-1] if text.startswith("Error opening") else text
    return f"unreadable: damaged or not audio ({text or type(exc).__name__})"


# --- analysis --------------------------------------------------------------------

@dataclass
class _Verse:
    clip: Clip
    start_s: float     # voiced start in the source file
    end_s: float       # voiced end in the source file
    mark_s: dict[str, float]  # marks in source-file seconds
    clip_start_s: float = 0.0  # where the clip's sample 0 lies in the source file
    uncertain: list[int] = field(default_factory=list)  # phrases whose start mark has no cue
    unmarked: list[int] = field(default_factory=list)   # the kimariji's mora, if nothing in the sound marks it
    deciding: str | None = None   # why the kimariji mark is in doubt (`onsets.deciding_onset`), if it is
    crowded: list[int] = field(default_factory=list)    # morae closer than onsets.MIN_MORA_S to the one before


def _check_voice(x: np.ndarray) -> tuple[onsets.Levels, np.ndarray, tuple[int, int]]:
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    if peak < 1e-4:
        raise ImportProblem("silent: nothing louder than -80 dBFS")
    lv = onsets.levels(x)
    if lv.dynamic_range_db < MIN_RANGE_DB:
        raise ImportProblem(f"no reading found: the level varies only {lv.dynamic_range_db:.0f} dB "
                            "(noise or a steady tone, not a voice)")
    mask = onsets.voiced_mask(lv)
    span = onsets.voiced_span(mask)
    if span is None or (span[1] - span[0]) * onsets.HOP / RATE < MIN_VOICED_S:
        raise ImportProblem("too short: less than half a second of sound")
    return lv, mask, span


def _run_on(phrase_morae: list[list[str]], kimariji_index: int | None) -> frozenset[int]:
    """Phrases a reader may join to the one before, reading the kimariji in one
    breath: the one whose first mora ends the kimariji."""
    counts = [len(p) for p in phrase_morae]
    return frozenset(k for k in range(1, len(counts))
                     if kimariji_index is not None and kimariji_index == sum(counts[:k]))


def _low_starts(x: np.ndarray, verses: list[tuple[int, int, list[list[str]], int | None]]
                ) -> tuple[list[np.ndarray], float]:
    """The pitch-drop cue of each verse (frames [start_f, end_f), its phrases, its
    kimariji mora) and how surely this reader starts phrases low, judged on all of
    them: one reader reads the whole poem alike."""
    drops = [onsets.phrase_drop_cue(x[a * onsets.HOP:min(b * onsets.HOP, len(x))]) for a, b, _, _ in verses]
    joins = [len(p) - 1 - len(_run_on(p, k)) for _, _, p, k in verses]
    return drops, onsets.low_start_evidence(list(zip(drops, joins)))


def _verse(x: np.ndarray, mask: np.ndarray, start_f: int, end_f: int, lo: int, hi: int,
           phrase_morae: list[list[str]], tail_s: float, held_last: bool,
           kimariji_index: int | None, drops: np.ndarray, low_starts: float) -> _Verse:
    """Cut one verse (voiced frames [start_f, end_f)) out of `x`, no wider than [lo, hi), and
    mark it; `drops` and `low_starts` as `_low_starts` gives them."""
    start, end = start_f * onsets.HOP, min(end_f * onsets.HOP, len(x))
    a = max(lo, start - int(PAD_BEFORE_S * RATE))
    b = min(hi, end + int(tail_s * RATE))
    samples = x[a:b].copy()
    fade = int(FADE_S * RATE)
    if start - a >= fade:
        samples[:fade] *= np.linspace(0.0, 1.0, fade, dtype=np.float32)
    if b - end >= fade:
        samples[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
    counts = [len(p) for p in phrase_morae]
    kana = [m for p in phrase_morae for m in p]
    mora, deciding = _place(x[start:end], mask[start_f:end_f], counts, kana, held_last, drops,
                            _run_on(phrase_morae, kimariji_index), low_starts, kimariji_index)
    marks = {f"mora:{k}": start - a + o for k, o in enumerate(mora)}
    first = 0
    for k, n in enumerate(counts):
        if first < len(mora):
            marks[f"phrase:{k}"] = start - a + mora[first]
        first += n
    if kimariji_index is not None and 0 <= kimariji_index < len(mora):
        marks["kimariji"] = marks[f"mora:{kimariji_index}"]
    marks["end"] = end - a
    clip = Clip(samples, RATE, marks)
    uncertain = onsets.unsupported_phrase_starts(x[start:end], mask[start_f:end_f], mora, counts, drops)
    unmarked = onsets.unmarked_onsets(x[start:end], mora, kana, counts,
                                      [] if kimariji_index is None else [kimariji_index])
    return _Verse(clip, start / RATE, end / RATE, {k: (v + a) / RATE for k, v in marks.items()},
                  a / RATE, uncertain, unmarked, deciding, onsets.crowded(mora))


def _place(x: np.ndarray, voiced: np.ndarray, counts: list[int], kana: list[str], held_last: bool,
           drops: np.ndarray, run_on: frozenset[int], low_starts: float,
           kimariji_index: int | None) -> tuple[list[int], str | None]:
    """The verse's mora onsets, and why its kimariji mark is in doubt (None if it is not).

    The morae up to the deciding one are checked against their consonants' own onsets
    (frication, closure and release: `onsets.deciding_onset`): where one is heard
    clearly later, the morae are placed again around it (issue 23: the alignment had
    put such marks a mora early), and the card is still flagged, for a person to
    listen. A deciding mora whose consonant is not heard at its mark is flagged."""
    def place(pinned: dict[int, int] | None = None) -> list[int]:
        return onsets.place_morae(x, voiced, counts, held_last=held_last, drops=drops, kana=kana,
                                  run_on=run_on, low_starts=low_starts, pinned=pinned)
    mora = place()
    if kimariji_index is None:
        return mora, None
    # The morae up to the deciding one, in order: one placed early drags the next along.
    pins: dict[int, int] = {}
    moves: list[str] = []
    cues: dict[str, list[int]] = {}   # the verse's consonants by kind, found once
    for _ in range(PIN_ROUNDS):
        found = next(((j, c, why) for j in range(1, kimariji_index + 1) if j not in pins
                      for c, why in [onsets.deciding_onset(x, mora, kana, j, cues)] if c is not None), None)
        if found is None:
            break
        j, c, why = found
        was = mora[j]
        pins[j] = c
        mora = place(pins)
        moves.append(f"{'its' if j == kimariji_index else f'mora {j + 1}'} {kana[j]} moved "
                      f"{1000 * (mora[j] - was) / RATE:+.0f} ms: {why}")
    _, why = onsets.deciding_onset(x, mora, kana, kimariji_index, cues)
    doubts = moves + ([why] if why else [])
    return mora, ("; ".join(doubts) + ("; listen to check" if moves else "")) if doubts else None


def _poem_text(no: int):
    import poems
    poem = poems.JOKA if no == 0 else poems.get(no)
    from poems.kana import morae
    shimo = [morae(p) for p in poem.shimo_sound]
    kimariji = poem.kimariji_mora_count() - 1 if no != 0 else None
    return poem.kami_phrase_morae(), shimo, kimariji


def _pace_warnings(verse: _Verse, n_morae: int, label: str, held_last: bool) -> list[str]:
    out = []
    dur = verse.end_s - verse.start_s
    if dur < SHORT_VERSE_S:
        out.append(f"too short: the {label} lasts only {dur:.1f} s")
    per = dur / (n_morae + (3 if held_last else 0))
    if not MORA_S[0] <= per <= MORA_S[1]:
        out.append(f"{label}: {dur:.1f} s for {n_morae} morae is not a plausible pace; "
                   "is this the right poem, read whole?")
    return out


def analyse_whole(no: int, x: np.ndarray) -> tuple[_Verse, _Verse, list[str]]:
    """Kami and shimo of a single-file reading: split at the pause, trim, mark."""
    kami_morae, shimo_morae, kimariji = _poem_text(no)
    lv, mask, span = _check_voice(x)
    split = (onsets.split_three(mask, lv) if no == 0 else None) or onsets.split_reading(mask, lv)
    assert split is not None, "_check_voice raised if there were no voice to split"
    warnings = _edge_warnings(mask, span)
    if not split.pause_found:
        warnings.append("no pause found between kami-no-ku and shimo-no-ku; split at the quietest "
                        f"point ({split.kami[1] * onsets.HOP / RATE:.2f} s) - listen to check")
    elif (split.shimo[0] - split.kami[1]) * onsets.HOP / RATE < SHORT_PAUSE_S:
        warnings.append(f"short pause: the longest silence in the middle lasts only "
                        f"{(split.shimo[0] - split.kami[1]) * onsets.HOP / RATE:.2f} s (at "
                        f"{split.kami[1] * onsets.HOP / RATE:.2f} s); it may be a breath between "
                        "phrases - listen to check the split")
    elif split.rival_pause is not None:
        warnings.append(f"two pauses of similar length (at {split.kami[1] * onsets.HOP / RATE:.2f} s "
                        f"and {split.rival_pause * onsets.HOP / RATE:.2f} s); split at the first "
                        "named - listen to check")
    middle = (split.kami[1] + split.shimo[0]) // 2 * onsets.HOP
    # the joka's repeated shimo-no-ku is not kept: the programme reads the shimo twice
    limit = len(x) if split.shimo_limit is None else min(len(x), split.shimo_limit * onsets.HOP)
    (kami_drops, shimo_drops), low = _low_starts(x, [(*split.kami, kami_morae, kimariji),
                                                      (*split.shimo, shimo_morae, None)])
    kami = _verse(x, mask, *split.kami, 0, middle, kami_morae, PAD_AFTER_S, False, kimariji, kami_drops, low)
    shimo = _verse(x, mask, *split.shimo, middle, limit, shimo_morae, YOIN_TAIL_S, True, None, shimo_drops, low)
    warnings += _pace_warnings(kami, sum(map(len, kami_morae)), "kami-no-ku", False)
    warnings += _pace_warnings(shimo, sum(map(len, shimo_morae)), "shimo-no-ku", True)
    return kami, shimo, warnings


def analyse_part(no: int, x: np.ndarray, part: str) -> tuple[_Verse, list[str]]:
    """One verse recorded alone (kami_017 / shimo_017): trim and mark."""
    kami_morae, shimo_morae, kimariji = _poem_text(no)
    lv, mask, (on, off) = _check_voice(x)
    on, off = onsets.widen(lv, on, off, 0, len(mask))
    edges = _edge_warnings(mask, (on, off))
    if part == "kami":
        (drops,), low = _low_starts(x, [(on, off, kami_morae, kimariji)])
        verse = _verse(x, mask, on, off, 0, len(x), kami_morae, PAD_AFTER_S, False, kimariji, drops, low)
        return verse, edges + _pace_warnings(verse, sum(map(len, kami_morae)), "kami-no-ku", False)
    (drops,), low = _low_starts(x, [(on, off, shimo_morae, None)])
    verse = _verse(x, mask, on, off, 0, len(x), shimo_morae, YOIN_TAIL_S, True, None, drops, low)
    return verse, edges + _pace_warnings(verse, sum(map(len, shimo_morae)), "shimo-no-ku", True)


def _edge_warnings(mask: np.ndarray, span: tuple[int, int]) -> list[str]:
    """A voice sounding at the very first or last moment was probably cut."""
    out = []
    if span[0] == 0:
        out.append("cut at the start? the voice is already sounding when the file begins")
    if span[1] >= len(mask) - 1:
        out.append("cut at the end? the voice is still sounding when the file ends")
    return out


def _joka_kimariji(kami: _Verse) -> _Verse:
    """The joka decides nothing; its kimariji mark is its end, so clip consumers find one."""
    marks = dict(kami.clip.marks)
    marks["kimariji"] = marks["end"]
    clip = Clip(kami.clip.samples, kami.clip.rate, marks)
    mark_s = dict(kami.mark_s, kimariji=kami.mark_s["end"])
    return _Verse(clip, kami.start_s, kami.end_s, mark_s, kami.clip_start_s, kami.uncertain, kami.unmarked,
                  None, kami.crowded)


# --- one poem, from its file(s) ------------------------------------------------

@dataclass(frozen=True)
class _Job:
    """The files of one poem: `whole`, or else both `kami` and `shimo` (see `plan`)."""
    no: int
    whole: Path | None = None
    kami: Path | None = None
    shimo: Path | None = None
    notes: tuple[str, ...] = ()


# Files over LONG_FILE_S are analysed one at a time, so that several workers on
# long files cannot add up to more memory than one.
_LONG_FILES = threading.Semaphore(1)


def _is_long(job: _Job) -> bool:
    import soundfile as sf
    for path in (job.whole, job.kami, job.shimo):
        try:
            if path is not None and sf.info(str(path)).duration > LONG_FILE_S:
                return True
        except Exception:  # unreadable: load_audio says why
            pass
    return False


def _run_job(job: _Job) -> PoemResult | list[FailedFile]:
    """Decode and analyse the files of one poem. Failures are returned, not raised."""
    with _LONG_FILES if _is_long(job) else contextlib.nullcontext():
        return _analyse_job(job)


def _analyse_job(job: _Job) -> PoemResult | list[FailedFile]:
    if job.whole is not None:
        try:
            x, warnings = load_audio(job.whole)
            kami, shimo, more = analyse_whole(job.no, x)
        except ImportProblem as exc:
            return [FailedFile(job.whole.name, str(exc))]
        files, warnings = [job.whole.name], list(job.notes) + warnings + more
    else:
        assert job.kami is not None and job.shimo is not None, "plan gives a job a whole file or both verses"
        parts, warnings, failed = {}, list(job.notes), []
        for part, path in (("kami", job.kami), ("shimo", job.shimo)):
            try:
                x, w = load_audio(path)
                parts[part], more = analyse_part(job.no, x, part)
                warnings += [f"{path.name}: {m}" for m in w + more]
            except ImportProblem as exc:
                failed.append(FailedFile(path.name, str(exc)))
        if failed:
            for part, path in (("kami", job.kami), ("shimo", job.shimo)):
                if part in parts:
                    failed.append(FailedFile(path.name, f"not imported: its {'shimo' if part == 'kami' else 'kami'}"
                                             f"-no-ku file for poem {job.no} failed"))
            return failed
        kami, shimo = parts["kami"], parts["shimo"]
        files = [job.kami.name, job.shimo.name]
    if job.no == 0:
        kami = _joka_kimariji(kami)
    on_kimariji, on_others = _doubts(job.no, kami, shimo)
    return PoemResult(
        no=job.no, files=files,
        kami_start_s=kami.start_s, kami_end_s=kami.end_s,
        shimo_start_s=shimo.start_s, shimo_end_s=shimo.end_s,
        kimariji_mark_s=kami.mark_s.get("kimariji"),
        kami=kami.clip, shimo=shimo.clip, warnings=warnings,
        phrase_starts_s={part: _phrase_starts(v) for part, v in (("kami", kami), ("shimo", shimo))},
        clip_start_s={"kami": kami.clip_start_s, "shimo": shimo.clip_start_s},
        uncertain=on_kimariji + on_others, kimariji_uncertain=on_kimariji,
    )


def convert_first(name: str) -> str:
    """The one line for a file this importer cannot decode (AAC / .m4a)."""
    stem = Path(name).stem
    return (f"not read: {Path(name).suffix.lower()} (AAC) cannot be decoded here; convert it first, "
            f"e.g. `ffmpeg -i '{name}' '{stem}.flac'`, and import the .flac")


def _phrase_starts(verse: _Verse) -> list[float]:
    return [verse.mark_s[f"phrase:{k}"] for k in range(len(verse.mark_s)) if f"phrase:{k}" in verse.mark_s]


def _uncertain(no: int, kami: _Verse, shimo: _Verse) -> list[str]:
    """Every line of `_doubts`: the kimariji's first, then the other marks'."""
    kimariji, others = _doubts(no, kami, shimo)
    return kimariji + others


def _doubts(no: int, kami: _Verse, shimo: _Verse) -> tuple[list[str], list[str]]:
    """The lines on marks resting on the pace alone, as (those that put the card's kimariji
    mark in doubt, the others). A card is flagged doubtful for the first only: a phrase
    start after its kimariji, or in its shimo-no-ku, does not move the mark a reaction
    time is taken from (the chant of issue 25, whose joins have no breath or pitch drop,
    had 73 of 101 cards flagged by such lines, with no kimariji mark over 80 ms off).

    Lines: one per phrase start with no breath or pitch drop; the kimariji's if its mark
    follows it. The kimariji's if its mora is a bare vowel after a vowel with nothing in
    the sound to mark its start (`onsets.unmarked_onsets`), if its consonant is not heard
    at its mark (`_place`). One for two morae closer than `onsets.MIN_MORA_S`; the
    kimariji's if the later of them is at or before it."""
    kami_morae, _, kimariji_index = _poem_text(no)
    counts = [len(p) for p in kami_morae]
    kimariji = -1 if no == 0 or kimariji_index is None else kimariji_index   # the joka has none
    ours: list[str] = []
    others: list[str] = []
    for part, verse in (("kami", kami), ("shimo", shimo)):
        for k in verse.uncertain:
            line = (f"{part}-no-ku phrase {k + 1} start at {verse.mark_s[f'phrase:{k}']:.2f} s: "
                    "no breath or pitch drop there")
            if part == "kami" and kimariji >= sum(counts[:k]):
                ours.append(line + "; the kimariji mark may be off")
            else:
                others.append(line)
    if kimariji >= 0 and kami.deciding:
        ours.append(f"kimariji mark at {kami.mark_s['kimariji']:.2f} s: {kami.deciding}")
    for part, verse in (("kami", kami), ("shimo", shimo)):
        for i in verse.crowded:
            gap = verse.mark_s[f"mora:{i}"] - verse.mark_s[f"mora:{i - 1}"]
            line = (f"{part}-no-ku morae {i} and {i + 1} only {1000 * gap:.0f} ms apart (under "
                    f"{1000 * onsets.MIN_MORA_S:.0f} ms): one of them is misplaced")
            if part == "kami" and kimariji >= max(i - 1, 0):
                ours.append(line + "; the kimariji mark may be off")
            else:
                others.append(line)
    if kimariji >= 0 and kimariji in kami.unmarked:
        kana = [m for p in kami_morae for m in p]
        ours.append(f"kimariji mark at {kami.mark_s['kimariji']:.2f} s: its mora {kana[kimariji]} follows "
                    f"{kana[kimariji - 1]} with no consonant and no clear change there; it rests on the pace")
    return ours, others


def plan(folder: Path) -> tuple[list[_Job], list[FailedFile], list[str]]:
    """Which files make which poem: jobs, files refused by name, files skipped as not audio."""
    failed, skipped = [], []
    named: dict[tuple[int, str], list[NamedFile]] = {}
    for path in sorted(folder.iterdir(), key=lambda p: p.name):
        if path.name.startswith("."):
            continue
        audio_name = path.suffix.lower() in AUDIO_SUFFIXES
        odd = _not_a_file(path)
        if odd is not None:
            if audio_name or odd != "a folder":  # an ordinary subfolder needs no line
                failed.append(FailedFile(path.name, f"not read: {odd}, not an audio file"))
            continue
        if not audio_name and path.suffix.lower() in CONVERT_FIRST and odd is None:
            failed.append(FailedFile(path.name, convert_first(path.name)))
            continue
        if not audio_name:
            skipped.append(path.name)
            continue
        try:
            f = parse_name(path)
        except ImportProblem as exc:
            failed.append(FailedFile(path.name, str(exc)))
            continue
        named.setdefault((f.no, f.part), []).append(f)
    jobs = []
    for no in sorted({no for no, _ in named}):
        whole = named.get((no, "whole"), [])
        kami, shimo = named.get((no, "kami"), []), named.get((no, "shimo"), [])
        label = "the joka" if no == 0 else f"poem {no}"
        if whole:
            keep = whole[0]
            for dup in whole[1:] + kami + shimo:
                failed.append(FailedFile(dup.path.name, f"duplicate: {label} is already taken from {keep.path.name}"))
            jobs.append(_Job(no, whole=keep.path, notes=_notes(keep)))
            continue
        for group in (kami, shimo):
            for dup in group[1:]:
                failed.append(FailedFile(dup.path.name,
                                         f"duplicate: {label} is already taken from {group[0].path.name}"))
        if kami and shimo:
            jobs.append(_Job(no, kami=kami[0].path, shimo=shimo[0].path, notes=_notes(kami[0], shimo[0])))
        else:
            lone, other = (kami[0], "shimo") if kami else (shimo[0], "kami")
            failed.append(FailedFile(lone.path.name, f"no {other}-no-ku file for {label} "
                                     f"(expected a name like {other}_{no:03d}{lone.path.suffix.lower()})"))
    return jobs, failed, skipped


def _not_a_file(path: Path) -> str | None:
    """What `path` is if it is not a regular file (never opened: a pipe would block)."""
    import stat
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if path.is_symlink():
            return ("a symbolic link that loops back on itself" if exc.errno == errno.ELOOP
                    else "a symbolic link to nothing (its target is gone)")
        return f"cannot be looked at ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    return "a device or socket"


def _notes(*files: NamedFile) -> tuple[str, ...]:
    return tuple(f"{f.path.name}: {f.note}" for f in files if f.note)


# --- the import --------------------------------------------------------------------

def valid_voice_name(name: str) -> str:
    """The name as stored, or ValueError with a reason the user can act on."""
    name = unicodedata.normalize("NFC", name.strip())
    if not name:
        raise ValueError("the voice name is empty")
    if name.startswith(".") or any(c in name for c in '/\\:*?"<>|') or any(ord(c) < 32 for c in name):
        raise ValueError(f"the voice name {name!r} cannot be a folder name "
                         "(no / \\ : * ? \" < > |, not starting with a dot)")
    if len(name) > 80:
        raise ValueError("the voice name is longer than 80 characters")
    return name


def voices_root() -> Path:
    from audio.data_dirs import sub_dir
    return sub_dir("voices")


def import_readings(folder: Path | str, name: str | None = None, *,
                    workers: int | None = None,
                    progress: Callable[[int, int], None] | None = None,
                    cancelled: Callable[[], bool] | None = None,
                    keep_clips: bool = True) -> ImportReport:
    """Import every recording in `folder` as voice `name` (default: the folder's name).

    `progress(done, total)` is called after each poem; when `cancelled()` turns
    true, poems not yet analysed are left out and nothing already stored is lost.
    A poem already stored is replaced only by a take without warnings; one with
    warnings is kept beside it as a candidate (`accept_candidates`).
    `keep_clips`: the report's poems hold their clips' samples (for analysis and
    tests). The command line and the app pass False: each poem's samples are let go
    as soon as its clips are stored (`PoemResult.release_samples`), so the memory of
    an import is bounded by its largest file, not by the number of its files.
    Raises ValueError for a folder or name that cannot be used at all,
    VoiceBusy while another import into the voice runs, ImportFailure if the
    result cannot be stored (the voice is then as it was).
    """
    if isinstance(folder, str) and not folder.strip():
        raise ValueError("the folder name is empty")  # Path("") would be the current folder
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder")
    name = valid_voice_name(name if name is not None else folder.resolve().name)
    try:
        jobs, failed, skipped = plan(folder)
    except OSError as exc:
        raise ValueError(f"the folder {folder} cannot be read: {exc.strerror or exc}") from None
    voice_dir = _voice_dir(name)
    token = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + secrets.token_hex(2)
    with voice_lock(voice_dir):
        started = not (voice_dir / INDEX_NAME).exists()
        indexed = _start_voice(voice_dir, name)
        started = started and indexed     # this import wrote the voice's first (empty) index
        _remove_unused_clips(voice_dir)   # left by an import that was interrupted
        results: list[PoemResult] = []
        try:
            results, more = _run_jobs(jobs, voice_dir, workers, progress, cancelled, token, keep_clips)
            failed += more
            stored = _write_index(voice_dir, name, folder, results) if results else _stored(voice_dir)
        finally:  # replaced clips, or this import's own if its index could not be written;
            # with no index at the start, the clips already there are not ours to judge
            _remove_unused_clips(voice_dir, None if indexed else token)
            if started and not results:   # nothing imported: no empty voice left in the list
                _unlink_empty_index(voice_dir)
    imported = {p.no for p in results}
    failed.sort(key=lambda f: f.file)
    return ImportReport(
        name=name, folder=str(folder), voice_dir=str(voice_dir), poems=results, failed=failed,
        skipped=skipped, missing=[n for n in range(1, 101) if n not in imported],
        stored=stored, joka=0 in imported, cancelled=bool(cancelled is not None and cancelled()),
    )


def _unlink_empty_index(voice_dir: Path) -> None:
    with contextlib.suppress(ValueError, OSError):
        index = read_index(voice_dir)
        if not index["poems"] and not index.get("candidates") and \
                not any(_CLIP_NAME.match(p.name) for p in voice_dir.iterdir()):
            (voice_dir / INDEX_NAME).unlink()


def _start_voice(voice_dir: Path, name: str) -> bool:
    """Whether the voice has an index its clips can be judged by. A new voice (no index,
    no clips) gets an empty one first, so that a killed first import leaves clips an
    index disowns; a folder holding clips but no index is left as it is."""
    if (voice_dir / INDEX_NAME).exists():
        return True
    try:
        if any(_CLIP_NAME.match(p.name) for p in voice_dir.iterdir()):
            return False
    except OSError:
        return False
    _save_index(voice_dir, name, {}, {})
    return True


def _voice_dir(name: str) -> Path:
    try:
        voice_dir = voices_root() / name
        voice_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ImportFailure(f"cannot make the voice folder for {name!r}: "
                            f"{exc.strerror or exc} ({getattr(exc, 'filename', '')})") from None
    return voice_dir


def _run_jobs(jobs: list[_Job], voice_dir: Path, workers: int | None,
              progress: Callable[[int, int], None] | None,
              cancelled: Callable[[], bool] | None, token: str,
              keep_clips: bool = True) -> tuple[list[PoemResult], list[FailedFile]]:
    """Analyse every poem and write its clips under new names (until the index names
    them the voice keeps reading its old ones, so a crash mid-import loses nothing).

    One lane per core (`workers` lanes if given): each takes the next poem when it is
    free. The first analyses in this process; with enough poems the others hand theirs
    to worker processes (`_Remote`). Most of the analysis holds the interpreter lock,
    so threads alone kept two cores only ~1.5 times busy (bench/bench_import.py).
    Progress is reported from the calling thread, in the order poems finish."""
    lanes = max(1, workers or min(MAX_LANES, os.cpu_count() or 1))
    remote = _Remote.start(lanes - 1) if lanes > 1 and len(jobs) >= REMOTE_FROM_JOBS else None
    pending: queue.SimpleQueue = queue.SimpleQueue()
    for k in range(len(jobs)):
        pending.put(k)
    finished: queue.SimpleQueue = queue.SimpleQueue()   # (job index, its outcome); None: a lane ended
    outcomes: dict[int, PoemResult | list[FailedFile]] = {}

    def lane(number: int) -> None:
        try:
            while not (cancelled is not None and cancelled()):
                try:
                    k = pending.get_nowait()
                except queue.Empty:
                    return
                job = jobs[k]
                if remote is not None and number > 0:
                    finished.put((k, remote.work(job, voice_dir, token, keep_clips)))
                else:
                    finished.put((k, _work(job, voice_dir, token, keep_clips)))
        finally:
            finished.put(None)

    try:
        with ThreadPoolExecutor(max_workers=lanes) as pool:
            for number in range(lanes):
                pool.submit(lane, number)
            ended = 0
            try:
                while ended < lanes:
                    item = finished.get()
                    if item is None:
                        ended += 1
                        continue
                    outcomes[item[0]] = item[1]
                    if progress is not None:
                        progress(len(outcomes), len(jobs))
            except BaseException:   # Ctrl-C, or progress raised: the lanes take no more poems
                while True:
                    try:
                        pending.get_nowait()
                    except queue.Empty:
                        break
                raise
    finally:
        if remote is not None:
            remote.close()
    results: list[PoemResult] = []
    failed: list[FailedFile] = []
    for k in sorted(outcomes):
        out = outcomes[k]
        if isinstance(out, PoemResult):
            results.append(out)
        else:
            failed.extend(out)
    return results, failed


def _work(job: _Job, voice_dir: Path, token: str, keep_clips: bool,
          guard: bool = True) -> PoemResult | list[FailedFile]:
    """Analyse one poem and store its clips (in this process or a worker's). `guard`:
    hold `_LONG_FILES` over a long file (its caller holds it for a worker process)."""
    try:
        out = _run_job(job) if guard else _analyse_job(job)
    except Exception as exc:  # a bug must cost one poem, not the import
        files = [p.name for p in (job.whole, job.kami, job.shimo) if p is not None]
        return [FailedFile(f, f"internal error while analysing ({type(exc).__name__}: {exc}); "
                           "please report it") for f in files]
    if isinstance(out, PoemResult):
        try:
            _write_clips(voice_dir, out, token)
        except Exception as exc:  # disk full, permissions
            why = _storage_problem(exc, voice_dir)
            return [FailedFile(f, f"not stored: {why}") for f in out.files]
        if not keep_clips:
            out.release_samples()
    return out


MAX_LANES = 8   # each worker process holds ~85 MB (its interpreter, numpy, scipy, one poem)
# An import of fewer poems stays in this process: starting a worker process costs
# about 0.35 s of CPU (its imports), the analysis of one ~16 s poem about 60 ms.
REMOTE_FROM_JOBS = 12


class _Remote:
    """Worker processes for the import's other lanes. Spawned, never forked: the app
    has threads (Qt's, the sound's) that a fork would copy mid-step. In a frozen
    bundle there are none (a spawned child would start the whole app again): every
    lane then works in this process, as threads. If a worker process cannot start or
    dies, its lane goes on in this process."""

    def __init__(self, pool) -> None:
        self.pool = pool
        self.broken = False

    @classmethod
    def start(cls, count: int) -> _Remote | None:
        if getattr(sys, "frozen", False) or count < 1:
            return None
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        try:
            return cls(ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn")))
        except (OSError, ValueError):   # no processes to be had: threads only
            return None

    def work(self, job: _Job, voice_dir: Path, token: str, keep_clips: bool) -> PoemResult | list[FailedFile]:
        # a long file's memory counts once across processes as within one
        with _LONG_FILES if _is_long(job) else contextlib.nullcontext():
            if not self.broken:
                try:
                    return self.pool.submit(_work, job, voice_dir, token, keep_clips, False).result()
                except Exception:   # BrokenProcessPool, a result that would not pickle
                    self.broken = True
            return _work(job, voice_dir, token, keep_clips, guard=False)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _storage_problem(exc: Exception, where: Path) -> str:
    """Why writing under `where` failed, in words: libsndfile's own are misleading
    ("problem with initialization of the flac decoder" for a full disk)."""
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        free = None
    if getattr(exc, "errno", None) == errno.ENOSPC or (free is not None and free < 4 * 2**20):
        left = f" ({free / 2**20:.1f} MB free)" if free is not None and free < 100 * 2**20 else ""
        return f"the disk holding {where} is full{left}; free some space and import again"
    if isinstance(exc, OSError):
        return f"cannot write in {where}: {exc.strerror or exc}"
    return f"cannot write in {where} ({' '.join(str(exc).split()) or type(exc).__name__})"


# --- one import per voice at a time ------------------------------------------------

def _lock_path(voice_dir: Path) -> Path:
    return voice_dir.parent / f".{voice_dir.name}.import-lock"


@contextlib.contextmanager
def voice_lock(voice_dir: Path, wait: bool = False):
    """Hold the voice's import lock (an flock, so a crashed import leaves none behind).

    Raises VoiceBusy at once if another import holds it.
    """
    try:
        import fcntl
    except ImportError:  # no flock on this system: imports are not guarded
        yield
        return
    path = _lock_path(voice_dir)
    try:   # never through a link planted at the lock's name: its target would be truncated
        fd = open_no_follow(path, os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        why = ("it is a symbolic link; remove it" if exc.errno == errno.ELOOP
               else exc.strerror or str(exc))
        raise ImportFailure(f"cannot make the import lock {path}: {why}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            raise VoiceBusy(f"another import into voice {voice_dir.name!r} is running"
                            f"{f' ({holder})' if holder else ''}; wait until it has finished, "
                            "then run this one again") from None
        os.ftruncate(fd, 0)
        started = datetime.now().strftime("%H:%M:%S")
        os.pwrite(fd, f"process {os.getpid()}, started {started}".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)   # releases the flock


def tidy_voice(voice_dir: Path) -> None:
    """Delete clip files of `voice_dir` that its index does not list (an interrupted
    import's), unless an import into it is running. Only names the importer makes are
    touched, and nothing when the index is missing or damaged."""
    if not voice_dir.is_dir() or not (voice_dir / INDEX_NAME).is_file() or not _unused_clips(voice_dir):
        return   # nothing to tidy: reading a voice writes nothing, not even the lock
    try:
        with voice_lock(voice_dir):
            _remove_unused_clips(voice_dir)
    except ImportFailure:  # busy (that import tidies at its end), or no lock possible
        pass


def clip_file(no: int, part: str, token: str) -> str:
    return f"{part}_{no:03d}_{token}.flac"


# A clip, or the temporary file it is written to (mkstemp's random part before ".part").
_CLIP_NAME = re.compile(r"^(kami|shimo)_\d{3}(_\w+)?\.flac(\.(\w+\.)?part)?$")


def _write_clips(voice_dir: Path, result: PoemResult, token: str) -> None:
    import soundfile as sf
    for part, clip in (("kami", result.kami), ("shimo", result.shimo)):
        target = voice_dir / clip_file(result.no, part, token)
        # mkstemp, not a fixed ".part" name: a link planted there would be written through
        fd, tmp = tempfile.mkstemp(dir=voice_dir, prefix=target.name + ".", suffix=".part")
        try:
            with os.fdopen(fd, "w+b") as f:
                os.fchmod(f.fileno(), 0o666 & ~umask())   # mkstemp makes 0600
                sf.write(f, clip.samples, clip.rate, format="FLAC", subtype="PCM_16")
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    result.token = token


def read_index(voice_dir: Path) -> dict:
    """The index of a stored voice; ValueError if it is missing or damaged."""
    path = voice_dir / INDEX_NAME
    try:
        data = json.loads(read_text_regular(path))
    except FileNotFoundError:
        raise ValueError(f"{path} is missing") from None
    except RecursionError:   # nested deeper than the parser goes: not an index we wrote
        raise ValueError(f"{path} is damaged (nested too deeply)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is damaged ({getattr(exc, 'strerror', None) or exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("poems"), dict):
        raise ValueError(f"{path} is damaged (no poem table)")
    return data


def _stored(voice_dir: Path) -> list[int]:
    try:
        return sorted(int(k) for k in read_index(voice_dir)["poems"] if k.isdigit())
    except ValueError:
        return []


def _remove_unused_clips(voice_dir: Path, only_token: str | None = None) -> None:
    """Delete clip files the index does not name (replaced by an import, or left by a
    crash). Call only under `voice_lock`: an import's new clips are not indexed yet.

    A missing index is treated as a damaged one: it cannot tell what is in use (a voice
    copied back before its index), so nothing is deleted, except, with `only_token`,
    the clips this very import wrote and did not index. A new voice gets an empty index
    before its first clip (`_start_voice`), so a killed first import is tidied too."""
    for path in _unused_clips(voice_dir, only_token):
        try:
            path.unlink()
        except OSError:
            pass  # left for the next import to tidy


def _unused_clips(voice_dir: Path, only_token: str | None = None) -> list[Path]:
    """The clip files `_remove_unused_clips` would delete (see there)."""
    try:
        index = read_index(voice_dir)
        entries = list(index["poems"].values()) + list(index.get("candidates", {}).values())
        used = {e[part]["file"] for e in entries for part in ("kami", "shimo")}
    except (ValueError, KeyError, TypeError, AttributeError):
        if only_token is None:
            return []  # cannot tell what is in use: delete nothing
        used = set()
    try:
        paths = list(voice_dir.iterdir())
    except OSError:
        return []
    return [path for path in paths
            if (m := _CLIP_NAME.match(path.name)) and path.name not in used
            and (only_token is None or m.group(2) == f"_{only_token}")]


def _entry(r: PoemResult, folder: Path, now: str) -> dict:
    return {
        "kami": {"file": clip_file(r.no, "kami", r.token), "marks": dict(r.kami.marks)},
        "shimo": {"file": clip_file(r.no, "shimo", r.token), "marks": dict(r.shimo.marks)},
        "source": {"folder": str(folder.resolve()), **r.summary()},
        "imported": now,
    }


def _has_clips(voice_dir: Path, entry) -> bool:
    try:
        return all((voice_dir / entry[part]["file"]).is_file() for part in ("kami", "shimo"))
    except (KeyError, TypeError):
        return False


def _write_index(voice_dir: Path, name: str, folder: Path, results: list[PoemResult]) -> list[int]:
    """Store the new takes: a take with warnings does not replace a good stored one,
    it becomes that poem's candidate (`accept_candidates`)."""
    try:
        old = read_index(voice_dir)
        poems_table = {k: v for k, v in old["poems"].items() if isinstance(k, str) and k.isdigit()}
        candidates = {k: v for k, v in old.get("candidates", {}).items() if isinstance(k, str) and k.isdigit()}
    except (ValueError, AttributeError):
        poems_table, candidates = {}, {}  # a new voice, or a damaged index the new one replaces
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for r in results:
        key = str(r.no)
        r.candidate = bool(r.warnings) and _has_clips(voice_dir, poems_table.get(key))
        if r.candidate:
            candidates[key] = _entry(r, folder, now)
        else:
            poems_table[key] = _entry(r, folder, now)
            candidates.pop(key, None)   # a good take settles the question
    _save_index(voice_dir, name, poems_table, candidates)
    return sorted(int(k) for k in poems_table)


def _save_index(voice_dir: Path, name: str, poems_table: dict, candidates: dict) -> None:
    index = {
        "format": INDEX_FORMAT, "version": INDEX_VERSION, "name": name, "rate": RATE,
        "poems": dict(sorted(poems_table.items(), key=lambda kv: int(kv[0]))),
    }
    if candidates:
        index["candidates"] = dict(sorted(candidates.items(), key=lambda kv: int(kv[0])))
    try:
        write_atomic(voice_dir / INDEX_NAME, json.dumps(index, ensure_ascii=False, indent=1).encode())
    except OSError as exc:
        raise ImportFailure(f"the voice's index could not be written: {_storage_problem(exc, voice_dir)}; "
                            f"voice {name!r} is as it was before this import") from None


def candidates_of(name: str) -> dict[int, dict]:
    """The takes of voice `name` kept beside a stored one, by poem number."""
    try:
        table = read_index(voices_root() / name).get("candidates", {})
    except (ValueError, OSError):
        return {}
    return {int(k): v for k, v in table.items() if isinstance(k, str) and k.isdigit()}


def accept_candidates(name: str, numbers: list[int]) -> list[int]:
    """Make the candidate takes of `numbers` the stored ones (their old clips are deleted).

    ValueError if the voice or a candidate does not exist; VoiceBusy during an import.
    """
    name = valid_voice_name(name)
    voice_dir = voices_root() / name
    if not voice_dir.is_dir():
        raise ValueError(f"there is no imported voice called {name!r}")
    with voice_lock(voice_dir):
        index = read_index(voice_dir)
        poems_table = dict(index["poems"])
        candidates = dict(index.get("candidates", {}))
        missing = [n for n in numbers if str(n) not in candidates]
        if missing:
            have = ", ".join(sorted(candidates, key=int)) or "none"
            raise ValueError(f"voice {name!r} has no candidate take of poem(s) "
                             f"{', '.join(map(str, missing))} (candidates: {have})")
        for n in numbers:
            poems_table[str(n)] = candidates.pop(str(n))
        _save_index(voice_dir, name, poems_table, candidates)
        _remove_unused_clips(voice_dir)
    return sorted(numbers)


# --- marks a person checks: Audacity label files ------------------------------------
#
# One file per poem part, ``017_kami.txt`` / ``017_shimo.txt``, in the seconds of
# the part's source file (open it in Audacity, File > Import > Labels). Every line
# is ``start<TAB>end<TAB>label``; a mark is a point (start == end) labelled
# ``mora:K <kana>``, with `` phrase N`` and `` kimariji`` where those fall. After
# moving labels, `read_labels` puts the moved marks into the voice.

MAX_LABEL_PROBLEMS = 20   # lines about one label file, at most
_LABEL_NAME = re.compile(r"^(\d{3})_(kami|shimo)\.txt$")


def label_file(no: int, part: str) -> str:
    return f"{no:03d}_{part}.txt"


def label_lines(no: int, part: str, mark_s: dict[str, float]) -> list[str]:
    """The label lines of one part from its marks in file seconds."""
    kami_morae, shimo_morae, kimariji = _poem_text(no)
    phrases = kami_morae if part == "kami" else shimo_morae
    kana = [m for p in phrases for m in p]
    starts = {sum(map(len, phrases[:k])): k for k in range(len(phrases))}
    lines = []
    for i, m in enumerate(kana):
        t = mark_s[f"mora:{i}"]
        label = f"mora:{i} {m}"
        if i in starts:
            label += f" phrase {starts[i] + 1}"
        if part == "kami" and kimariji == i:
            label += " kimariji"
        lines.append(f"{t:.6f}\t{t:.6f}\t{label}")
    return lines


def write_labels(report: ImportReport, folder: Path | str) -> tuple[list[str], list[str]]:
    """Label files for every imported poem into `folder` (made if need be).

    Returns (written, kept): a label file already there is kept, never replaced
    (it may hold a person's corrections)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written, kept = [], []
    for p in report.poems:
        for part, clip in (("kami", p.kami), ("shimo", p.shimo)):
            start = p.clip_start_s[part]
            mark_s = {k: start + v / clip.rate for k, v in clip.marks.items()}
            path = folder / label_file(p.no, part)
            try:
                with open(path, "x", encoding="utf-8") as f:
                    f.write("\n".join(label_lines(p.no, part, mark_s)) + "\n")
                written.append(path.name)
            except FileExistsError:
                kept.append(path.name)
    return written, kept


def _parse_labels(path: Path, n: int, lo_s: float, hi_s: float) -> tuple[list[float] | None, list[str]]:
    """Mora times (file seconds) from an edited label file, or None and one line per problem."""
    problems: list[str] = []
    times: dict[int, float] = {}
    try:   # a label file of one part is a few kB: 1 MB is not one (and a FIFO never blocks)
        text = read_text_regular(path, limit=2**20)
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path.name}: cannot be read ({getattr(exc, 'strerror', None) or exc})"]
    for ln, line in enumerate(text.splitlines(), start=1):
        if len(problems) >= MAX_LABEL_PROBLEMS:   # not a label file of one part: say so, stop
            problems.append(f"{path.name}: more problems from line {ln} on; fix these first")
            return None, problems
        if not line.strip():
            continue
        fields = line.split("\t")
        try:
            t = float(fields[0])
            label = fields[2].split()[0] if len(fields) >= 3 and fields[2].split() else ""
        except ValueError:
            problems.append(f"{path.name}: line {ln}: {fields[0]!r} is not a time in seconds")
            continue
        m = re.fullmatch(r"mora:(\d+)", label)
        if not m:
            problems.append(f"{path.name}: line {ln}: label {label or '(none)'!r} is not mora:K")
            continue
        k = int(m.group(1))
        if k >= n:
            problems.append(f"{path.name}: line {ln}: mora:{k}, but this part has {n} morae (0-{n - 1})")
        elif k in times:
            problems.append(f"{path.name}: line {ln}: mora:{k} appears twice")
        elif not lo_s <= t < hi_s:
            problems.append(f"{path.name}: line {ln}: mora:{k} at {t:.3f} s is outside the clip "
                            f"({lo_s:.3f}-{hi_s:.3f} s)")
        else:
            times[k] = t
    missing = [k for k in range(n) if k not in times]
    if missing and not problems:
        problems.append(f"{path.name}: mora {', '.join(f'mora:{k}' for k in missing)} missing")
    ordered = [times[k] for k in sorted(times)]
    for k in range(1, n):
        if k in times and k - 1 in times and times[k] <= times[k - 1]:
            problems.append(f"{path.name}: mora:{k} at {times[k]:.3f} s is not after "
                            f"mora:{k - 1} at {times[k - 1]:.3f} s")
    return (None if problems else ordered), problems


def read_labels(name: str, folder: Path | str) -> tuple[list[str], list[str]]:
    """Put the marks of edited label files in `folder` into voice `name`.

    A file is applied whole or not at all: every mora present, in order, inside
    its clip (before its ``end``). Returns (applied file names, problems, one line
    each). ValueError if the voice or folder does not exist; VoiceBusy during an import.
    """
    import soundfile as sf
    name = valid_voice_name(name)
    voice_dir, folder = voices_root() / name, Path(folder)
    if not voice_dir.is_dir():
        raise ValueError(f"there is no imported voice called {name!r}")
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder")
    files = sorted((p, m) for p in folder.iterdir() if (m := _LABEL_NAME.match(p.name)))
    if not files:
        raise ValueError(f"no label files (like 017_kami.txt) in {folder}")
    applied, problems = [], []
    with voice_lock(voice_dir):
        index = read_index(voice_dir)
        table = index["poems"]
        for path, match in files:
            no, part = int(path.name[:3]), match.group(2)
            entry = table.get(str(no))
            start = (entry or {}).get("source", {}).get("clip_start_s", {}).get(part)
            if entry is None or start is None:
                problems.append(f"{path.name}: voice {name!r} has no poem {no} imported with "
                                "label support; import it again first")
                continue
            marks = dict(entry[part]["marks"])
            try:
                frames = sf.info(str(voice_dir / entry[part]["file"])).frames
            except Exception:
                problems.append(f"{path.name}: the clip of poem {no} is missing from the voice")
                continue
            rate = index.get("rate", RATE)
            hi = start + min(frames, marks.get("end", frames)) / rate
            n = sum(1 for k in marks if k.startswith("mora:"))
            times, bad = _parse_labels(path, n, start, hi)
            problems += bad
            if times is None:
                continue
            entry[part]["marks"] = _with_morae(no, part, marks, [round((t - start) * rate) for t in times])
            applied.append(path.name)
        if applied:
            _save_index(voice_dir, index.get("name", name), table, index.get("candidates", {}))
    return applied, problems


def _with_morae(no: int, part: str, marks: dict, mora: list[int]) -> dict:
    """`marks` with new mora positions, and the phrase and kimariji marks that follow them."""
    kami_morae, shimo_morae, kimariji = _poem_text(no)
    phrases = kami_morae if part == "kami" else shimo_morae
    out = dict(marks)
    for k, o in enumerate(mora):
        out[f"mora:{k}"] = o
    for k in range(len(phrases)):
        out[f"phrase:{k}"] = mora[sum(map(len, phrases[:k]))]
    if part == "kami" and no != 0 and kimariji is not None:
        out["kimariji"] = mora[kimariji]
    return out
