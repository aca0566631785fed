"""A reading session for a real floor, kept on disk so it survives anything.

Players may break for lunch or the laptop may be closed between two cards: the
session (the order of the yomifuda, how many have been read, the timing and
voice settings) is written to the user data directory after every card, and
the next start of the app offers to continue it.  No Qt here.
"""
from __future__ import annotations

import json
import os
import random
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

SESSION_FILE = "reader_session.json"


@dataclass
class ReadingTiming:
    ma: float = 1.0         # silence after the shimo-no-ku before the next kami-no-ku
    pause: float = 1.0      # between kami- and shimo-no-ku
    speed: float = 1.0
    voice: str = "synth"
    joka: bool = True       # official start: joka, its shimo-no-ku read twice


@dataclass
class ReaderSession:
    seed: int
    order: list[int]                 # yomifuda in reading order (poem numbers)
    read: int = 0                    # cards whose reading has finished
    joka_done: bool = False
    timing: ReadingTiming = field(default_factory=ReadingTiming)

    @classmethod
    def new(cls, cards=None, seed: int | None = None, timing: ReadingTiming | None = None) -> "ReaderSession":
        """All 100 (the karafuda are read too) or only ``cards``, in a seeded random order."""
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        order = sorted(set(cards)) if cards else list(range(1, 101))
        random.Random(seed).shuffle(order)
        return cls(seed=seed, order=order, timing=timing or ReadingTiming())

    @property
    def total(self) -> int:
        return len(self.order)

    @property
    def finished(self) -> bool:
        return self.read >= self.total

    @property
    def read_cards(self) -> list[int]:
        return self.order[:self.read]

    @property
    def next_card(self) -> int | None:
        return None if self.finished else self.order[self.read]

    def mark_read(self, no: int) -> None:
        """The reading of ``no`` (the next card in the order) has finished."""
        if self.next_card != no:
            raise ValueError(f"card {no} is not the next in this session (next: {self.next_card})")
        self.read += 1

    # -- on disk -----------------------------------------------------------------------------
    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data) -> "ReaderSession":
        """ValueError (saying what is wrong) unless ``data`` is a session as ``to_json`` writes it."""
        if not isinstance(data, dict):
            raise ValueError(f"it holds {type(data).__name__}, not a session")
        timing = _timing_from_json(data.get("timing", {}))
        raw_order = data.get("order")
        if not isinstance(raw_order, list) or not all(_is_int(c) for c in raw_order):
            raise ValueError("the saved order is not a list of poem numbers")
        order = [int(c) for c in raw_order]
        if len(set(order)) != len(order) or any(not 1 <= c <= 100 for c in order):
            raise ValueError("the saved order is not a set of poem numbers")
        read, seed = data.get("read"), data.get("seed")
        if not _is_int(read) or not 0 <= read <= len(order):
            raise ValueError("the saved position lies outside the order")
        if not _is_int(seed):
            raise ValueError("the saved seed is not a whole number")
        joka_done = data.get("joka_done", False)
        if not isinstance(joka_done, bool):
            raise ValueError("joka_done is not true or false")
        return cls(seed=seed, order=order, read=read, joka_done=joka_done, timing=timing)

    def save(self, path: Path | None = None) -> Path:
        path = path or session_path()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
        os.replace(tmp, path)        # atomic: a crash leaves the old session, never half a file
        return path


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(data: dict, name: str, default: float, lo: float, hi: float) -> float:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise ValueError(f"timing {name} = {value!r} is not a number from {lo} to {hi}")
    return float(value)


def _timing_from_json(data) -> ReadingTiming:
    """Only finite numbers in a sane range, a name, a flag: anything else is a damaged file."""
    if not isinstance(data, dict):
        raise ValueError("the saved timing is not a set of values")
    unknown = set(data) - {"ma", "pause", "speed", "voice", "joka"}
    if unknown:
        raise ValueError(f"unknown timing values {sorted(unknown)}")
    d = ReadingTiming()
    voice, joka = data.get("voice", d.voice), data.get("joka", d.joka)
    if not isinstance(voice, str) or not voice:
        raise ValueError("the saved voice is not a name")
    if not isinstance(joka, bool):
        raise ValueError("the saved joka flag is not true or false")
    return ReadingTiming(ma=_number(data, "ma", d.ma, 0.0, 60.0),
                         pause=_number(data, "pause", d.pause, 0.0, 60.0),
                         speed=_number(data, "speed", d.speed, 0.25, 4.0),
                         voice=voice, joka=joka)


def session_path() -> Path:
    from trainer.paths import data_dir
    return data_dir() / SESSION_FILE


def load_session(path: Path | None = None) -> ReaderSession | None:
    """The saved session, or None if there is none or it is unreadable.

    An unreadable file is left alone (never deleted: the next save replaces
    it) and the reason goes to stderr: start-up never depends on it.
    """
    session, problem = read_session(path)
    if problem:
        print(f"karuta: {problem}", file=sys.stderr)
    return session


def read_session(path: Path | None = None) -> tuple[ReaderSession | None, str | None]:
    """(session, None), (None, None) when there is none, or (None, why it was ignored)."""
    path = path or session_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"the saved reading session {path} cannot be read ({exc}); a new one starts"
    try:
        return ReaderSession.from_json(json.loads(text)), None
    except (ValueError, RecursionError) as exc:   # RecursionError: absurdly deep nesting
        reason = "it is nested too deeply" if isinstance(exc, RecursionError) else exc
        return None, (f"the saved reading session {path} was ignored ({reason}); "
                      "it was left as it is and a new one starts")


def clear_session(path: Path | None = None) -> None:
    (path or session_path()).unlink(missing_ok=True)


def parse_card_set(text: str) -> list[int]:
    """'1 5, 22-30' → [1, 5, 22, ..., 30].  ValueError with the bad part on bad input."""
    cards: set[int] = set()
    for part in re.split(r"[\s,、，]+", text.strip()):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:[-–〜~](\d+))?", part)
        if not m:
            raise ValueError(part)
        lo = int(m.group(1))
        hi = int(m.group(2) or lo)
        if not 1 <= lo <= hi <= 100:
            raise ValueError(part)
        cards.update(range(lo, hi + 1))
    if not cards:
        raise ValueError(text)
    return sorted(cards)
