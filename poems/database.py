"""Loading and checking the poem data shipped in poems/data/poems.json.

The file is built by tools/build_poems.py. A damaged or hand-edited file is
caught here, with an error that names the poem and the field.
"""
from __future__ import annotations

import json
import random
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import NoReturn

from poems.kana import is_hiragana
from poems.model import Poem

PHRASES = {"kami": 3, "shimo": 2}


class PoemDataError(ValueError):
    """The poem data file is damaged: the message names the poem and the field."""


def _fail(no, field: str, why: str) -> NoReturn:
    where = "the joka" if no == 0 else f"poem {no}"
    raise PoemDataError(f"poem data: {where}, field {field!r}: {why}")


def _phrases(raw: dict, no, field: str, count: int, kana: bool) -> tuple[str, ...]:
    value = raw.get(field)
    if value is None:
        _fail(no, field, "missing")
    if not isinstance(value, list) or len(value) != count or not all(isinstance(x, str) and x for x in value):
        _fail(no, field, f"must be a list of {count} non-empty phrases")
    if kana:
        for phrase in value:
            if not is_hiragana(phrase):
                bad = "".join(sorted({c for c in phrase if not is_hiragana(c)}))
                _fail(no, field, f"non-kana characters {bad!r} in {phrase!r}")
    return tuple(value)


def _units(raw: dict, no, part: str, kana: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    field = part + "_units"
    value = raw.get(field)
    if value is None:
        _fail(no, field, "missing")
    if not isinstance(value, list) or len(value) != len(kana):
        _fail(no, field, f"must have one list per phrase ({len(kana)})")
    for phrase, units in zip(kana, value):
        if not isinstance(units, list) or len(units) != len(phrase):
            _fail(no, field, f"needs one sound unit per kana of {phrase!r}")
        for u in units:
            if not isinstance(u, str) or not is_hiragana(u):
                _fail(no, field, f"sound unit {u!r} is not kana")
    return tuple(tuple(u) for u in value)


def _part(raw: dict, no: int, part: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """One half of a poem ("kami" or "shimo"): its phrases, their kana and their sound units."""
    count = PHRASES[part]
    phrases = _phrases(raw, no, part, count, kana=False)
    kana = _phrases(raw, no, part + "_kana", count, kana=True)
    return phrases, kana, _units(raw, no, part, kana)


def parse_poem(raw: dict, expect_no: int | None = None) -> Poem:
    if not isinstance(raw, dict):
        _fail(expect_no if expect_no is not None else "?", "(entry)", "not an object")
    no = raw.get("no")
    if not isinstance(no, int) or not 0 <= no <= 100:
        _fail(expect_no if expect_no is not None else "?", "no", f"must be 0..100, got {no!r}")
    kami, kami_kana, kami_units = _part(raw, no, "kami")
    shimo, shimo_kana, shimo_units = _part(raw, no, "shimo")
    poet = raw.get("poet", "")
    if no and (not isinstance(poet, str) or not poet):
        _fail(no, "poet", "missing")
    kimariji = raw.get("kimariji", "") if no else ""
    if no:
        if not isinstance(kimariji, str) or not kimariji:
            _fail(no, "kimariji", "missing")
        if not "".join(kami_kana).startswith(kimariji):
            _fail(no, "kimariji", f"{kimariji!r} is not the opening of the kami-no-ku")
    return Poem(no=no, poet=poet, kimariji=kimariji, kami=kami, shimo=shimo, kami_kana=kami_kana,
                shimo_kana=shimo_kana, kami_units=kami_units, shimo_units=shimo_units)


def parse(data: dict) -> tuple[Poem, tuple[Poem, ...]]:
    """(joka, the 100 poems in order) from the decoded JSON, fully checked."""
    if not isinstance(data, dict) or not isinstance(data.get("poems"), list):
        raise PoemDataError("poem data: the file has no list of poems")
    joka = parse_poem(data.get("joka") or {}, 0)
    poems = [parse_poem(raw) for raw in data["poems"]]
    seen: dict[int, int] = {}
    for index, poem in enumerate(poems):
        if poem.no in seen or poem.no == 0:
            _fail(poem.no, "no", f"duplicate number (entries {seen.get(poem.no, '?')} and {index})")
        seen[poem.no] = index
    if len(poems) != 100:
        missing = sorted(set(range(1, 101)) - set(seen))
        raise PoemDataError(f"poem data: {len(poems)} poems instead of 100"
                            + (f"; missing numbers {missing}" if missing else ""))
    return joka, tuple(sorted(poems, key=lambda p: p.no))


def load(path: str | Path | None = None) -> tuple[Poem, tuple[Poem, ...]]:
    if path is None:
        text = resources.files("poems").joinpath("data/poems.json").read_text(encoding="utf-8")
        where = "poems/data/poems.json"
    else:
        text = Path(path).read_text(encoding="utf-8")
        where = str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PoemDataError(f"poem data: {where} is not valid JSON ({exc})") from None
    return parse(data)


@lru_cache(maxsize=1)
def _shipped() -> tuple[Poem, tuple[Poem, ...]]:
    return load()


JOKA, ALL = _shipped()


def check_no(no) -> int:
    """A valid poem number 1..100, or ValueError with a message for the user."""
    if isinstance(no, bool) or not isinstance(no, int):
        try:
            no = int(str(no).strip())
        except ValueError:
            raise ValueError(f"{no!r} is not a poem number (1 to 100)") from None
    if not 1 <= no <= 100:
        raise ValueError(f"there is no poem {no}: poems are numbered 1 to 100")
    return no


def get(no: int) -> Poem:
    """Poem `no` (1..100); 0 gives the joka."""
    if no == 0:
        return JOKA
    return ALL[check_no(no) - 1]


def by_first_sound(sound: str) -> list[Poem]:
    """Poems whose kami-no-ku starts with `sound`, as heard or as written ('お' also finds を)."""
    if not sound.strip():
        return []
    return [p for p in ALL if "".join(p.kami_sound).startswith(sound)
            or "".join(p.kami_kana).startswith(sound)]


def by_kimariji(kana: str) -> Poem | None:
    """The poem whose static kimariji is `kana` (historical kana), if any."""
    return next((p for p in ALL if p.kimariji == kana), None)


def by_poet(text: str) -> list[Poem]:
    return [p for p in ALL if text in p.poet]


def shuffled(seed: int | None, nos=None) -> list[int]:
    """A seeded shuffle of all 100 poem numbers (or of `nos`)."""
    order = list(range(1, 101) if nos is None else nos)
    random.Random(seed).shuffle(order)
    return order
