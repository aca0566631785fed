"""Mubeyama karuta yaku (役) tags: which poems do something when flipped.

Numbers are exactly those the seed page lists
(seed 000, "Mubeyama Karuta"; docs/references.md). Its editor doubts the counts
("supposedly only 28 torifuda"), so every ruleset takes a `YakuSets` value and
may replace any set with `YakuSets.override(...)`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

# Set 1, "pass to the right": torifuda whose verse holds one of these words.
KEYWORDS: Mapping[str, frozenset[int]] = MappingProxyType({
    "hito": frozenset({8, 11, 18, 25, 28, 38, 39, 40, 41, 44, 47, 58, 63, 66, 92}),  # 人 ひと
    "kohi": frozenset({13, 27, 39, 46, 65, 68, 84, 88}),  # 戀 こひ
    "seki": frozenset({10, 62, 78}),  # 關 せき
    "yuki": frozenset({4, 15, 31, 96}),  # 雪 ゆき
    "tsuki": frozenset({7, 21, 36, 57, 59, 68, 79, 81}),  # 月 つき
    "hana": frozenset({29, 33, 35, 66}),  # 花 はな
})
KEYWORD_KANJI: Mapping[str, str] = MappingProxyType(
    {"hito": "人", "kohi": "戀", "seki": "關", "yuki": "雪", "tsuki": "月", "hana": "花"})
# Set 1 also holds #1 (あきのたの) and #100 (ももしきや), which carry no keyword.
SET1_EXTRA: frozenset[int] = frozenset({1, 100})
# Set 2, "pass to everyone": mountains. #22 (むべやまかぜを) counts double.
MOUNTAINS: frozenset[int] = frozenset({4, 7, 12, 73})
MOUNTAINS_DOUBLE: frozenset[int] = frozenset({22})
# Set 3, "receive from everyone": sadness, batsu (罰). なく 14 34 83, かなし 5 93, なみだ 82 86.
SADNESS: frozenset[int] = frozenset({5, 14, 34, 82, 83, 86, 93})
# The Kansei-era 4-player gambling game pays for "tsuki, yuki or hana" cards.
TSUKI_YUKI_HANA: frozenset[int] = KEYWORDS["tsuki"] | KEYWORDS["yuki"] | KEYWORDS["hana"]
# The most valuable card of every Mubeyama ruleset: 吹くからに … むべ山風を.
MUBEYAMA_CARD = 22


@dataclass(frozen=True)
class YakuSets:
    """The yaku sets one ruleset plays with. Defaults are the seed's lists."""

    keywords: Mapping[str, frozenset[int]] = field(default_factory=lambda: dict(KEYWORDS))
    set1_extra: frozenset[int] = SET1_EXTRA
    mountains: frozenset[int] = MOUNTAINS
    mountains_double: frozenset[int] = MOUNTAINS_DOUBLE
    sadness: frozenset[int] = SADNESS
    tsuki_yuki_hana: frozenset[int] = TSUKI_YUKI_HANA

    def override(self, **sets) -> "YakuSets":
        """A copy with some sets replaced, e.g. ``override(sadness={5, 82, 86})``."""
        # keywords is a mapping, every other set a frozenset: the values differ per field
        fixed: dict[str, Any] = {k: (dict(v) if k == "keywords" else frozenset(v)) for k, v in sets.items()}
        return replace(self, **fixed)

    def keywords_of(self, no: int) -> tuple[str, ...]:
        return tuple(k for k, nos in self.keywords.items() if no in nos)

    def pass_right(self, no: int) -> int:
        """Set 1: how many face-up torifuda go to the player on the right.

        One per keyword the card holds (so #39, #66, #68 pass two), one for #1 and #100.
        """
        return len(self.keywords_of(no)) + (1 if no in self.set1_extra else 0)

    def pass_each(self, no: int) -> int:
        """Set 2: how many face-up torifuda go to each other player."""
        return 2 if no in self.mountains_double else 1 if no in self.mountains else 0

    def receive_each(self, no: int) -> int:
        """Set 3: how many face-up torifuda each other player gives the flipper."""
        return 1 if no in self.sadness else 0

    @property
    def set1(self) -> frozenset[int]:
        return frozenset().union(*self.keywords.values()) | self.set1_extra


SEED = YakuSets()
