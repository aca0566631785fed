"""Mubeyama yaku tags: exactly the poem numbers the seed page lists."""
from poems import yaku


def test_keyword_sets_number_for_number():
    assert yaku.KEYWORDS["hito"] == {8, 11, 18, 25, 28, 38, 39, 40, 41, 44, 47, 58, 63, 66, 92}
    assert yaku.KEYWORDS["kohi"] == {13, 27, 39, 46, 65, 68, 84, 88}
    assert yaku.KEYWORDS["seki"] == {10, 62, 78}
    assert yaku.KEYWORDS["yuki"] == {4, 15, 31, 96}
    assert yaku.KEYWORDS["tsuki"] == {7, 21, 36, 57, 59, 68, 79, 81}
    assert yaku.KEYWORDS["hana"] == {29, 33, 35, 66}


def test_set1_extras_and_doubles():
    assert yaku.SET1_EXTRA == {1, 100}
    s = yaku.SEED
    assert {n for n in range(1, 101) if s.pass_right(n) == 2} == {39, 66, 68}
    assert s.pass_right(1) == s.pass_right(100) == 1 and s.pass_right(8) == 1 and s.pass_right(2) == 0
    # The editor counts 39 torifuda with a keyword.
    assert len(set().union(*yaku.KEYWORDS.values())) == 39


def test_mountains_and_sadness():
    assert yaku.MOUNTAINS == {4, 7, 12, 73} and yaku.MOUNTAINS_DOUBLE == {22}
    assert [yaku.SEED.pass_each(n) for n in (4, 7, 12, 73, 22, 1)] == [1, 1, 1, 1, 2, 0]
    assert yaku.SADNESS == {5, 14, 34, 82, 83, 86, 93}
    assert all(yaku.SEED.receive_each(n) == 1 for n in yaku.SADNESS)


def test_gambling_tsuki_yuki_hana_is_its_own_tag():
    assert yaku.TSUKI_YUKI_HANA == {7, 21, 36, 57, 59, 68, 79, 81, 4, 15, 31, 96, 29, 33, 35, 66}
    assert yaku.MUBEYAMA_CARD == 22


def test_a_ruleset_can_override_a_set():
    fewer = yaku.SEED.override(sadness={5, 82, 86}, keywords={"tsuki": {7, 21}})
    assert fewer.sadness == {5, 82, 86} and fewer.receive_each(14) == 0
    assert fewer.pass_right(7) == 1 and fewer.pass_right(8) == 0
    assert yaku.SEED.receive_each(14) == 1  # the seed's sets are untouched
