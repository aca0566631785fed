"""Poem numbers as people type them: the one parser behind every command and dialog.

A list is poem numbers separated by spaces, commas or the Japanese 、 and ，; with
``ranges``, ``22-30`` (also ``22–30``, ``22〜30``, ``22~30``) stands for every number
between. Digits are ASCII or full-width (１２, as a Japanese keyboard types them);
any other digit (²,  ٣, ①) is not a number here, and a number is at most a few
digits: ``int()`` of a 5,000-digit string is a ValueError of its own, and
``str.isdigit`` accepts ``²`` that ``int`` refuses. Standard library only.
"""
from __future__ import annotations

import re

SEPARATORS = re.compile(r"[\s,、，]+")
_FULL_WIDTH = str.maketrans("０１２３４５６７８９", "0123456789")
_NUMBER = re.compile(r"[0-9]{1,6}")
_RANGE = re.compile(r"([0-9]{1,6})[-–〜~～]([0-9]{1,6})")
FIRST, LAST = 1, 100


class PoemListError(ValueError):
    """A list that is not poem numbers; ``part`` is the piece at fault, the message says why."""

    def __init__(self, message: str, part: str):
        super().__init__(message)
        self.part = part


def whole_number(text: str) -> int | None:
    """The whole number `text` spells in ASCII or full-width digits (up to 6), else None."""
    text = text.strip().translate(_FULL_WIDTH)
    return int(text) if _NUMBER.fullmatch(text) else None


def poem_number(text: str, lo: int = FIRST, hi: int = LAST) -> int:
    """One poem number lo..hi; PoemListError saying why not."""
    n = whole_number(text)
    if n is None:
        raise PoemListError(f"{_shown(text)} is not a poem number ({lo} to {hi})", text)
    if not lo <= n <= hi:
        raise PoemListError(f"there is no poem {n}: poems are numbered {lo} to {hi}", text)
    return n


def poem_list(text: str, *, ranges: bool = False, unique: bool = False,
              lo: int = FIRST, hi: int = LAST) -> list[int]:
    """The poem numbers of `text` in the order given; PoemListError on the first bad part.

    `unique`: a number given twice is an error (a reading order); else repeats stay."""
    out: list[int] = []
    seen: set[int] = set()
    for part in SEPARATORS.split(text.strip()):
        if not part:
            continue
        m = _RANGE.fullmatch(part.translate(_FULL_WIDTH)) if ranges else None
        if m:
            try:
                a, b = (poem_number(x, lo, hi) for x in m.groups())
            except PoemListError as exc:   # the part at fault is the whole range
                raise PoemListError(str(exc), part) from None
            if a > b:
                raise PoemListError(f"the range {part} runs backwards", part)
            numbers = list(range(a, b + 1))
        else:
            numbers = [poem_number(part, lo, hi)]
        for n in numbers:
            if unique and n in seen:
                raise PoemListError(f"poem {n} is given twice", part)
            seen.add(n)
            out.append(n)
    return out


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 20 else repr(text[:17] + "...")
