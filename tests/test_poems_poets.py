"""Who is drawn on each yomifuda (poems/data/poets.json), checked against a second source's counts."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from poems.database import ALL
from poems.poets import PoetDataError, parse_poets, poets, with_mark


def test_the_second_sources_counts_men_67_women_21_monks_12():
    """honda-n2.com (bōzu-mekuri): men 67 with Semimaru among them, women 21, monks 12."""
    kinds = Counter(p.kind for p in poets().values())
    assert kinds["man"] + kinds["emperor"] == 67
    assert kinds["woman"] + kinds["empress"] == 21
    assert kinds["monk"] == 12
    assert poets()[10].kind == "man"


def test_the_common_count_79_men_and_21_women():
    """The poets are commonly counted as 79 men (monks included) and 21 women."""
    assert sum(p.is_male for p in poets().values()) == 79


def test_every_monk_bears_a_clerical_title_and_every_such_title_is_a_monk():
    """法師, 僧正 and 大僧正 are titles of the clergy; 入道 (#76, #96) is not counted (drawn in court dress)."""
    titled = {no for no, p in poets().items() if "法師" in p.name or "僧正" in p.name}
    assert titled == {no for no, p in poets().items() if p.kind == "monk"}
    assert with_mark("nyudo") == {76, 96} and all("入道" in poets()[n].name for n in (76, 96))


def test_the_dais_holds_the_emperors_and_the_empress():
    """天皇 and 院 (a retired emperor) sit on the dais; 持統天皇 (#2) is the one empress."""
    dais = {no for no, p in poets().items() if p.on_dais}
    assert dais == {1, 2, 13, 15, 68, 77, 99, 100}
    assert all(p.name.endswith(("天皇", "院")) for no, p in poets().items() if no in dais)
    assert poets()[2].kind == "empress"


def test_semimaru_is_singled_out():
    assert with_mark("semimaru") == {10} and poets()[10].name == "蝉丸"


def test_names_are_the_poem_databases():
    assert {p.no: p.poet for p in ALL} == {no: p.name for no, p in poets().items()}


@pytest.mark.parametrize("damage, field", [
    (lambda d: d["poets"][4].update(kind="ghost"), "'kind'"),
    (lambda d: d["poets"].pop(), "1..100"),
    (lambda d: d["poets"][9].update(marks=["joker"]), "'marks'"),
])
def test_a_damaged_file_names_the_poem_and_field(damage, field):
    from importlib import resources
    raw = json.loads(resources.files("poems").joinpath("data/poets.json").read_text(encoding="utf-8"))
    damage(raw)
    with pytest.raises(PoetDataError, match=field):
        parse_poets(raw)
