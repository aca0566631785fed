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
    def from_json(cls, data: dict) -> "ReaderSession":
        timing = ReadingTiming(**data.get("timing", {}))
        order = [int(c) for c in data["order"]]
        if len(set(order)) != len(order) or any(not 1 <= c <= 100 for c in order):
            raise ValueError("the saved order is not a set of poem numbers")
        read = int(data["read"])
        if not 0 <= read <= len(order):
            raise ValueError("the saved position lies outside the order")
        return cls(seed=int(data["seed"]), order=order, read=read,
                   joka_done=bool(data.get("joka_done", False)), timing=timing)

    def save(self, path: Path | None = None) -> Path:
        path = path or session_path()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
        os.replace(tmp, path)        # atomic: a crash leaves the old session, never half a file
        return path


def session_path() -> Path:
    from trainer.paths import data_dir
    return data_dir() / SESSION_FILE


def load_session(path: Path | None = None) -> ReaderSession | None:
    """The saved session, or None if there is none or it is unreadable (it is then left alone)."""
    path = path or session_path()
    try:
        return ReaderSession.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None


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
