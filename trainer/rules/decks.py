"""The playing-card decks of the card games: mekurifuda (めくり札) and hanafuda (花札).

Mekurifuda (reference rules/mekurifuda-deck.md): "there are 4 suits in a
Mekurifuda deck - clubs, swords, cups, and coins. There are 12 ranks of
cards: Dragon, 2, 3, 4, 5, 6, 7, 8, 9, Maid, Horse, and King. In some decks,
a joker card is used, called Onifuda". A card is a `MekuriCard(suit, rank)`;
the Onifuda and the blank Shirofuda are the extra cards ``ONIFUDA`` and
``SHIROFUDA`` (suit "oni" / "shiro", rank 0).

Hanafuda (reference rules/hanafuda-deck.md and hanafuda-suits/): a card is the
number of its picture on the reference pages, month × 10 + k, so the
numbers a player reads off the pages are the numbers the program uses:
10 Pine crane, 11 Pine poetry ribbon, 12 and 13 Pine chaff, …, 110 Rain Man,
111 Swallow, 112 Willow ribbon, 113 Lightning, 120 Phoenix, 121–123
Paulownia chaff (121 the yellow-bottom one).
"""
from __future__ import annotations

from typing import NamedTuple

# -- mekurifuda ---------------------------------------------------------------------------

SUITS = ("clubs", "swords", "cups", "coins")
"""English names; Japanese: hau (棍), isu (剣), koppu (杯), oru (貨)."""
RANK_NAMES = {1: "Dragon", 10: "Maid", 11: "Horse", 12: "King"}
WESTERN_SUITS = {"clubs": "clubs", "swords": "spades", "cups": "hearts", "coins": "diamonds"}
"""Yomi's seed: "you may use western playing cards by removing all courts (and all
cards of the Spade suit, if playing with only 3 players)": swords are spades."""


class MekuriCard(NamedTuple):
    """One mekurifuda card: a suit of `SUITS` and a rank 1–12 (or an extra card, rank 0)."""

    suit: str
    rank: int

    def __str__(self) -> str:
        if self.rank == 0:
            return self.suit.capitalize() + "fuda"
        return f"{RANK_NAMES.get(self.rank, str(self.rank))} of {self.suit.capitalize()}"


ONIFUDA = MekuriCard("oni", 0)
"""The "demon" joker card (鬼札)."""
SHIROFUDA = MekuriCard("shiro", 0)
"""The blank card (白札)."""


def mekurifuda(ranks: range = range(1, 13), suits: tuple[str, ...] = SUITS) -> list[MekuriCard]:
    """The mekurifuda cards of the given ranks and suits, suit by suit."""
    return [MekuriCard(s, r) for s in suits for r in ranks]


def western_face(card: MekuriCard) -> str:
    """The western card standing for a mekurifuda card in Yomi ("removing all courts ... and
    using the Joker as the wild card"): "7 of hearts", "Joker"."""
    if card.rank == 0:
        return "Joker"
    rank = {1: "Ace", 10: "10", 11: "Jack", 12: "King"}.get(card.rank, str(card.rank))
    return f"{rank} of {WESTERN_SUITS[card.suit]}"


def hanafuda_month_of_rank(rank: int) -> int:
    """The hanafuda month standing for a mekurifuda number in the standard month sequence
    (Yomi's seed: "You may also use hanafuda, but you must be familiar with the month
    sequence"; the deck page: "The standard month sequence can be used in games where the
    type of cards rarely matter, such as Yomi-type")."""
    return rank


# -- hanafuda -----------------------------------------------------------------------------

Hana = int
"""A hanafuda card: the number of its picture, month × 10 + k (k = 0..3)."""

MONTHS = ("Pine", "Plum Blossom", "Cherry Blossom", "Wisteria", "Iris", "Peony", "Bush Clover",
          "Susuki Grass", "Chrysanthemum", "Maple", "Willow", "Paulownia")
MONTHS_JA = ("松", "梅", "桜", "藤", "菖蒲", "牡丹", "萩", "芒", "菊", "紅葉", "柳", "桐")

BRIGHT, ANIMAL, RIBBON, CHAFF = "bright", "animal", "ribbon", "chaff"
KIND_POINTS = {BRIGHT: 20, ANIMAL: 10, RIBBON: 5, CHAFF: 1}
"""Ume Botan's seed: "The values of the cards are completely standard": 20/10/5/1."""

_NAMES: dict[Hana, tuple[str, str]] = {
    10: ("Pine with Crane", BRIGHT), 11: ("Pine with Poetry Ribbon", RIBBON),
    20: ("Plum Blossom with Bush Warbler", ANIMAL), 21: ("Plum Blossom with Poetry Ribbon", RIBBON),
    30: ("Cherry Blossom with Curtain", BRIGHT), 31: ("Cherry Blossom with Poetry Ribbon", RIBBON),
    40: ("Wisteria with Cuckoo", ANIMAL), 41: ("Wisteria with Ribbon", RIBBON),
    50: ("Iris with Eight-Plank Bridge", ANIMAL), 51: ("Iris with Ribbon", RIBBON),
    60: ("Peony with Butterflies", ANIMAL), 61: ("Peony with Blue Ribbon", RIBBON),
    70: ("Bush Clover with Boar", ANIMAL), 71: ("Bush Clover with Ribbon", RIBBON),
    80: ("Susuki Grass with Moon", BRIGHT), 81: ("Susuki Grass with Geese", ANIMAL),
    90: ("Chrysanthemum with Sake Cup", ANIMAL), 91: ("Chrysanthemum with Blue Ribbon", RIBBON),
    100: ("Maple with Deer", ANIMAL), 101: ("Maple with Blue Ribbon", RIBBON),
    110: ("Willow with Rain Man", BRIGHT), 111: ("Willow with Swallow", ANIMAL),
    112: ("Willow with Ribbon", RIBBON), 113: ("Willow with Lightning", CHAFF),
    120: ("Paulownia with Phoenix", BRIGHT), 121: ("Paulownia yellow-bottom chaff", CHAFF),
}

HANAFUDA: tuple[Hana, ...] = tuple(m * 10 + k for m in range(1, 13) for k in range(4))
"""The 48 cards, month by month."""
_HANA_SET = frozenset(HANAFUDA)

PINE, WILLOW = 1, 11
RAIN_MAN, SWALLOW, WILLOW_RIBBON, LIGHTNING = 110, 111, 112, 113
CRANE, CURTAIN, MOON, PHOENIX, BUSH_WARBLER, SAKE_CUP = 10, 30, 80, 120, 20, 90


def is_hana(card: object) -> bool:
    return isinstance(card, int) and not isinstance(card, bool) and card in _HANA_SET


def month(card: Hana) -> int:
    """The card's month, 1 (Pine) to 12 (Paulownia)."""
    return card // 10


def kind(card: Hana) -> str:
    """Bright, animal, ribbon or chaff."""
    return _NAMES.get(card, ("", CHAFF))[1]


def points(card: Hana) -> int:
    """The card's value: 20 / 10 / 5 / 1."""
    return KIND_POINTS[kind(card)]


def hana_name(card: Hana) -> str:
    """English name as on the reference pages ("Pine chaff" for the plain cards)."""
    if card in _NAMES:
        return _NAMES[card][0]
    return f"{MONTHS[month(card) - 1]} chaff"


assert sum(points(c) for c in HANAFUDA) == 264
assert [sum(kind(c) == k for c in HANAFUDA) for k in (BRIGHT, ANIMAL, RIBBON, CHAFF)] == [5, 9, 10, 24]
