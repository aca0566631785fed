"""Who is drawn on each yomifuda: the poet's kind (man, monk, woman, emperor, empress) and the
cards local rules single out, for bozu-mekuri (坊主めくり). Pure stdlib.

The data is poems/data/poets.json; its ``sources`` say where the classification comes
from and where the sources differ (whether the two 入道 count as monks, Semimaru).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

KINDS = ("man", "monk", "woman", "emperor", "empress")
MARKS = ("semimaru", "nyudo", "prince", "princess")
SEMIMARU = 10


class PoetDataError(ValueError):
    """poets.json is damaged: the message names the poem and the field."""


@dataclass(frozen=True)
class Poet:
    no: int
    name: str
    kind: str
    marks: tuple[str, ...] = ()

    @property
    def is_male(self) -> bool:
        """Men, monks and emperors (the common count's 79)."""
        return self.kind in ("man", "monk", "emperor")

    @property
    def on_dais(self) -> bool:
        """Drawn seated on the imperial dais (an emperor or the empress)."""
        return self.kind in ("emperor", "empress")


def parse_poets(raw: object) -> dict[int, Poet]:
    if not isinstance(raw, dict) or not isinstance(raw.get("poets"), list):
        raise PoetDataError("poet data: no 'poets' list")
    out: dict[int, Poet] = {}
    for entry in raw["poets"]:
        no = entry.get("no") if isinstance(entry, dict) else None
        if not isinstance(no, int) or not 1 <= no <= 100 or no in out:
            raise PoetDataError(f"poet data: bad or repeated 'no' {no!r}")
        kind, marks, name = entry.get("kind"), entry.get("marks", []), entry.get("poet")
        if kind not in KINDS:
            raise PoetDataError(f"poet data: poem {no}, field 'kind': {kind!r} is not one of {KINDS}")
        if not isinstance(marks, list) or any(m not in MARKS for m in marks):
            raise PoetDataError(f"poet data: poem {no}, field 'marks': {marks!r}")
        if not isinstance(name, str) or not name:
            raise PoetDataError(f"poet data: poem {no}, field 'poet': missing")
        out[no] = Poet(no, name, kind, tuple(marks))
    if sorted(out) != list(range(1, 101)):
        raise PoetDataError("poet data: poems 1..100 each once")
    return out


@lru_cache(maxsize=1)
def poets() -> dict[int, Poet]:
    """Every poet by poem number, 1..100."""
    text = resources.files("poems").joinpath("data/poets.json").read_text(encoding="utf-8")
    return parse_poets(json.loads(text))


def poet(no: int) -> Poet:
    return poets()[no]


def kind_of(no: int) -> str:
    return poets()[no].kind


def with_mark(mark: str) -> frozenset[int]:
    return frozenset(no for no, p in poets().items() if mark in p.marks)
