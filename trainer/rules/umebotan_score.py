"""Ume Botan (梅牡丹ルール) scoring: card points, yaku, the zero-sum formula.

Used by the engine at the end of each round and by `karuta score umebotan`
(people playing with real cards). Sources: seed 003 and the reference page
rules/ume-botan.md, whose yaku table gives each composition by the numbers of
the card pictures (see `trainer.rules.decks`). Koi-koi's tables differ (its
Akatan is the poetry ribbons, its Rain Man rules other): do not test against them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from trainer.rules.protocol import IllegalAction
from trainer.rules.decks import HANAFUDA, RAIN_MAN, WILLOW, Hana, month, points

TOTAL_POINTS = 264
"""Seed: "The total point value of the entire deck is 264." """

DRY_BRIGHTS = frozenset({10, 30, 80, 120})
"""Crane, Curtain, Moon, Phoenix: the Brights other than the Rain Man."""


@dataclass(frozen=True)
class Yaku:
    name: str
    """English name as on the reference page."""
    ja: str
    value: int


# The reference page's table, by the pictures' numbers.
FIVE_BRIGHTS = Yaku("Five Brights", "五光", 50)
FOUR_BRIGHTS = Yaku("Four Brights", "四光", 40)
RAINY_FOUR_BRIGHTS = Yaku("Rainy Four Brights", "雨四光", 30)
THREE_BRIGHTS = Yaku("Three Brights", "三光", 20)
SPRING = Yaku("Spring", "松竹梅", 20)
POETRY_RIBBONS = Yaku("Poetry Ribbons", "裏だんこ", 20)
BLUE_RIBBONS = Yaku("Blue Ribbons", "青短", 20)
PLAIN_RIBBONS = Yaku("Plain Ribbons", "赤短", 20)
BOAR_DEER_BUTTERFLIES = Yaku("Boar, Deer, Butterflies", "猪鹿蝶", 20)
FLOWER_VIEWING = Yaku("Flower Viewing", "花見", 20)
MOON_VIEWING = Yaku("Moon Viewing", "月見", 20)
WISTERIA_ROW = Yaku("Wisteria Row", "藤島", 20)
PAULOWNIA_ROW = Yaku("Paulownia Row", "桐島", 20)
CARDS_OF_THE_MONTH = Yaku("Cards of the Month", "月役", 20)


def dandruff(players: int) -> Yaku:
    """"50 (in a 3-player game), 40 (in a 4-player game)"."""
    return Yaku("Dandruff", "頭垢", 50 if players == 3 else 40)


SETS: tuple[tuple[Yaku, frozenset[int]], ...] = (
    (SPRING, frozenset({10, 20, 30})),            # the Bush Warbler as a pseudo-Bright
    (POETRY_RIBBONS, frozenset({11, 21, 31})),
    (BLUE_RIBBONS, frozenset({61, 91, 101})),
    (PLAIN_RIBBONS, frozenset({41, 51, 71})),     # "excluding the Willow Ribbon"
    (BOAR_DEER_BUTTERFLIES, frozenset({70, 100, 60})),
    (WISTERIA_ROW, frozenset({40, 41, 42, 43})),
    (PAULOWNIA_ROW, frozenset({120, 121, 122, 123})),
)
VIEWING: tuple[tuple[Yaku, frozenset[int]], ...] = (
    (FLOWER_VIEWING, frozenset({90, 30})),
    (MOON_VIEWING, frozenset({90, 80})),
)
ALL_YAKU = (FIVE_BRIGHTS, FOUR_BRIGHTS, RAINY_FOUR_BRIGHTS, THREE_BRIGHTS, SPRING, POETRY_RIBBONS,
            BLUE_RIBBONS, PLAIN_RIBBONS, BOAR_DEER_BUTTERFLIES, FLOWER_VIEWING, MOON_VIEWING,
            WISTERIA_ROW, PAULOWNIA_ROW, CARDS_OF_THE_MONTH, dandruff(3), dandruff(4))


def par(players: int) -> int:
    """"the par value is equal to 264 divided by the number of players - 66 for four players,
    88 for three"."""
    return TOTAL_POINTS // players


def card_points(pile: Sequence[Hana]) -> int:
    return sum(points(c) for c in pile)


def round_month(round_no: int) -> int:
    """The month of "Cards of the Month": "all four January cards in the first round, all
    four February cards in the second round, etc." (round 13 of a longer game is January again)."""
    return (round_no - 1) % 12 + 1


def bright_yaku(pile: frozenset[int]) -> Yaku | None:
    """The best of the Bright yaku: "All Yaku with Brights in their name are mutually exclusive
    ... the player claims the most valuable"."""
    dry = len(pile & DRY_BRIGHTS)
    rain = RAIN_MAN in pile
    if dry == 4 and rain:
        return FIVE_BRIGHTS
    if dry == 4:
        return FOUR_BRIGHTS
    if dry == 3 and rain:
        return RAINY_FOUR_BRIGHTS          # 30 beats Three Brights' 20
    if dry == 3:
        return THREE_BRIGHTS
    return None


def is_dandruff(pile: Sequence[Hana], players: int) -> bool:
    """"Ignoring all Willow cards, the score pile should be worth 20 points or lower in a
    3-player game, or 15 points or lower in a 4-player game." """
    limit = 20 if players == 3 else 15
    return sum(points(c) for c in pile if month(c) != WILLOW) <= limit


def yaku_of(pile: Sequence[Hana], *, round_no: int | None = None,
            spring_exclusive: bool = False) -> list[Yaku]:
    """The yaku of one score pile, Dandruff aside (see `score_round`).

    *round_no*: the round, for Cards of the Month (None: that yaku is not played;
    "This yaku is typically only used in full 12 round games").
    *spring_exclusive*: the page puts Spring under the heading "Bright Yaku", but its
    exclusion rule names only "Yaku with Brights in their name"; by default Spring stacks
    with them, as the rule's words say; True makes it one more exclusive Bright yaku.
    """
    have = frozenset(pile)
    out: list[Yaku] = []
    best = bright_yaku(have)
    spring = SETS[0][1] <= have
    if spring_exclusive and spring and best is None:
        best = SPRING      # exclusive: it counts only without a better (or equal) Bright yaku
    if best is not None:
        out.append(best)
    for yaku, cards in SETS:
        if yaku is SPRING and spring_exclusive:
            continue
        if cards <= have:
            out.append(yaku)
    if RAIN_MAN not in have:   # "not counted if the Rainman is present in your scoring pile"
        out += [yaku for yaku, cards in VIEWING if cards <= have]
    if round_no is not None:
        m = round_month(round_no)
        if all(m * 10 + k in have for k in range(4)):
            out.append(CARDS_OF_THE_MONTH)
    return out


@dataclass(frozen=True)
class RoundScore:
    """A round's result: per player in seat order."""

    scores: tuple[int, ...]
    yaku: tuple[tuple[Yaku, ...], ...]
    card_points: tuple[int, ...]
    multiplier: int
    dandruff: bool
    """True when someone's Dandruff cancelled every other score and yaku."""


def score_round(piles: Sequence[Sequence[Hana]], *, round_no: int | None = None,
                doubled: bool = False, spring_exclusive: bool = False) -> RoundScore:
    """The seed's formula for every player:

    ``Player's Score = (Player's Total Card Points - Par Value) + (Total Value of Player's
    Yaku x (Number of Players - 1)) - Total Value of All Opponents' Yaku``,
    doubled when a field multiplier is present ("this calculation will be doubled").
    Dandruff: "ALL PLAYERS' SCORES AND ALL OTHER YAKU DURING THE ROUND ARE CANCELLED", so
    only the Dandruff yaku are exchanged (two players with Dandruff both get theirs).
    """
    n = len(piles)
    if n not in (3, 4):
        raise ValueError(f"Ume Botan is played by 3 or 4 players, not {n}")
    pts = tuple(card_points(p) for p in piles)
    fuke = [is_dandruff(p, n) for p in piles]
    yaku: tuple[tuple[Yaku, ...], ...]
    if any(fuke):
        yaku = tuple((dandruff(n),) if f else () for f in fuke)
        base = [0] * n
    else:
        yaku = tuple(tuple(yaku_of(p, round_no=round_no, spring_exclusive=spring_exclusive))
                     for p in piles)
        base = [p - par(n) for p in pts]
    values = [sum(y.value for y in ys) for ys in yaku]
    total = sum(values)
    mult = 2 if doubled else 1
    scores = tuple(mult * (base[i] + values[i] * (n - 1) - (total - values[i])) for i in range(n))
    return RoundScore(scores, yaku, pts, mult, any(fuke))


class PileError(IllegalAction):
    """Piles that are not a partition of the 48 cards: a reason id (``umebotan.pile_*``) and
    its fields, worded by `trainer.text.umebotan`; ``str()`` is one English line."""


def check_partition(piles: Sequence[Sequence[object]]) -> None:
    """Raise `PileError` unless the piles hold each of the 48 cards exactly once."""
    where: dict[object, list[int]] = {}
    for i, pile in enumerate(piles, 1):
        for card in pile:
            if not (isinstance(card, int) and not isinstance(card, bool) and card in HANAFUDA):
                raise PileError("umebotan.pile_not_card",
                                f"pile {i}: {card!r} is not a card number "
                                "(month × 10 + 0..3, e.g. 10 Pine crane, 113 Lightning)",
                                pile=i, card=card)
            where.setdefault(card, []).append(i)
    for card, found in where.items():
        if len(found) > 1:
            raise PileError("umebotan.pile_twice", f"pile {found[1]}: card {card} is in more than one place",
                            card=card, piles=", ".join(map(str, found)))
    missing = [c for c in sorted(HANAFUDA) if c not in where]
    if missing:
        shown = ", ".join(map(str, missing[:8])) + (" …" if len(missing) > 8 else "")
        raise PileError("umebotan.pile_missing", f"the piles do not cover the 48 cards: missing {shown}",
                        n=len(missing), missing=tuple(missing), cards=shown)


def check_piles(piles: Sequence[Sequence[object]], players: int) -> None:
    """`check_partition` for a table of `players` whose sheet has room for more piles: a card in a
    pile beyond the players' is refused first (``umebotan.pile_extra``)."""
    for k in range(players, len(piles)):
        if piles[k]:
            raise PileError("umebotan.pile_extra", f"pile {k + 1} is not used by {players} players",
                            n=k + 1, players=players)
    check_partition(piles[:players])
