"""A territory (陣): one player's torifuda laid out in three rows on the floor.

Layout rules of kyōgi karuta (seed 001 and the AJKA rules): each territory is
87 cm wide, about 16 card widths, with three rows 1 cm apart; in every row the
cards stand at the left end and at the right end, any number at each. Rows
are counted from the centre line: 0 = 上段 (jōdan, next to the opponent),
1 = 中段 (chūdan), 2 = 下段 (gedan, nearest the player's knees). Left and right
are the owner's.

A row is two groups, each listed from its edge inwards, so a card's column
slot (0..15 from the owner's left) follows from its place: the k-th card of
the left group stands in column k, the k-th of the right group in column
15 - k. When a card leaves, its group closes up, as players push the cards
together. The JSON form ``{"rows": [{"left": [...], "right": [...]}, ...]}``
is the one the floor widget saves arrangements in.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Iterator

ROWS = 3
JODAN, CHUDAN, GEDAN = 0, 1, 2          # 上段, 中段, 下段
ROW_NAMES = ("上段", "中段", "下段")
COLUMNS = 16                            # 87 cm hold 16 cards of 52.5 mm with small gaps
LEFT, RIGHT = "left", "right"
ENDS = (LEFT, RIGHT)


class LayoutError(ValueError):
    """A territory or a move that breaks the layout rules (said to the user as is)."""


@dataclass(frozen=True)
class Place:
    """Where a card stands in its owner's territory: row, end, index from that end's edge."""
    row: int
    end: str
    index: int

    @property
    def column(self) -> int:
        """Column slot 0..15 from the owner's left."""
        return self.index if self.end == LEFT else COLUMNS - 1 - self.index


class Territory:
    """The cards of one side, mutable; the rules engine owns it and validates every change."""

    __slots__ = ("_rows",)

    def __init__(self, rows: Iterable[tuple[Iterable[int], Iterable[int]]] | None = None):
        self._rows: list[tuple[list[int], list[int]]] = (
            [([], []) for _ in range(ROWS)] if rows is None
            else [(list(left), list(right)) for left, right in rows])
        self.validate()

    # -- reading ---------------------------------------------------------------------------
    def cards(self) -> list[int]:
        """Every card, row by row, left to right as the owner sees them."""
        return [c for left, right in self._rows for c in left + right[::-1]]

    def __len__(self) -> int:
        return sum(len(left) + len(right) for left, right in self._rows)

    def __contains__(self, card: object) -> bool:
        return any(card in left or card in right for left, right in self._rows)

    def __iter__(self) -> Iterator[int]:
        return iter(self.cards())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Territory) and self._rows == other._rows

    def __repr__(self) -> str:
        return f"Territory({self.rows()!r})"

    def rows(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """Immutable snapshot: per row, (left group, right group), each from the edge inwards."""
        return tuple((tuple(left), tuple(right)) for left, right in self._rows)

    def group(self, row: int, end: str) -> list[int]:
        return self._rows[row][ENDS.index(end)]

    def locate(self, card: int) -> Place | None:
        for r, (left, right) in enumerate(self._rows):
            if card in left:
                return Place(r, LEFT, left.index(card))
            if card in right:
                return Place(r, RIGHT, right.index(card))
        return None

    def slots(self) -> list[tuple[int, int, int]]:
        """(card, row, column) for every card: what a view needs to draw the side."""
        out = []
        for r, (left, right) in enumerate(self._rows):
            out += [(c, r, k) for k, c in enumerate(left)]
            out += [(c, r, COLUMNS - 1 - k) for k, c in enumerate(right)]
        return out

    # -- changing ----------------------------------------------------------------------------
    def remove(self, card: int) -> Place:
        place = self.locate(card)
        if place is None:
            raise LayoutError(f"card {card} is not in this territory")
        del self.group(place.row, place.end)[place.index]
        return place

    def insert(self, card: int, place: Place) -> None:
        """Put `card` at `place`; an index past the group's end means "innermost"."""
        self._check_place(place)
        if card in self:
            raise LayoutError(f"card {card} is already in this territory")
        left, right = self._rows[place.row]
        if len(left) + len(right) >= COLUMNS:
            raise LayoutError(f"{ROW_NAMES[place.row]} is full: 87 cm hold at most {COLUMNS} cards")
        group = self.group(place.row, place.end)
        group.insert(min(place.index, len(group)), card)

    def move(self, card: int, place: Place) -> Place:
        """Rearrange: take `card` out and put it at `place`; returns where it was."""
        self._check_place(place)
        old = self.remove(card)
        try:
            self.insert(card, place)
        except LayoutError:
            self.insert(card, old)
            raise
        return old

    def add(self, card: int) -> Place:
        """Default place of an arriving card (okurifuda, fault penalty): innermost in the
        shortest row, nearer rows first on ties, on its shorter end."""
        r = min(range(ROWS), key=lambda k: (len(self._rows[k][0]) + len(self._rows[k][1]), -k))
        left, right = self._rows[r]
        place = Place(r, LEFT if len(left) <= len(right) else RIGHT, COLUMNS)
        self.insert(card, place)
        return self.locate(card)  # type: ignore[return-value]

    def copy(self) -> "Territory":
        twin = Territory.__new__(Territory)       # already valid: skip the checks
        twin._rows = [(list(left), list(right)) for left, right in self._rows]
        return twin

    # -- checks and JSON ---------------------------------------------------------------------
    def _check_place(self, place: Place) -> None:
        if not (isinstance(place.row, int) and 0 <= place.row < ROWS):
            raise LayoutError(f"row must be 0 (上段), 1 (中段) or 2 (下段), not {place.row!r}")
        if place.end not in ENDS:
            raise LayoutError(f"end must be 'left' or 'right', not {place.end!r}")
        if not (isinstance(place.index, int) and place.index >= 0):
            raise LayoutError(f"index must be a non-negative integer, not {place.index!r}")

    def validate(self) -> None:
        if len(self._rows) != ROWS:
            raise LayoutError(f"a territory has {ROWS} rows, not {len(self._rows)}")
        cards = self.cards()
        if len(set(cards)) != len(cards):
            raise LayoutError("a card appears twice in the territory")
        for c in cards:
            if not (isinstance(c, int) and 1 <= c <= 100):
                raise LayoutError(f"torifuda are numbered 1 to 100, not {c!r}")
        for r, (left, right) in enumerate(self._rows):
            if len(left) + len(right) > COLUMNS:
                raise LayoutError(f"{ROW_NAMES[r]} holds {len(left) + len(right)} cards; "
                                  f"87 cm hold at most {COLUMNS}")

    def to_json(self) -> dict:
        return {"rows": [{"left": list(left), "right": list(right)} for left, right in self._rows]}

    @classmethod
    def from_json(cls, data: dict) -> "Territory":
        try:
            rows = [([int(c) for c in r["left"]], [int(c) for c in r["right"]]) for r in data["rows"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise LayoutError(f"not an arrangement ({exc})") from exc
        return cls(rows)

    @classmethod
    def arranged(cls, cards: Iterable[int], rng: random.Random | None = None) -> "Territory":
        """Spread cards over the three rows, the extra ones in the 下段, half at each end.

        With `rng` the order is shuffled (a random but tidy arrangement)."""
        cards = list(cards)
        if rng is not None:
            rng.shuffle(cards)
        n = len(cards)
        if n > ROWS * COLUMNS:
            raise LayoutError(f"{n} cards do not fit in one territory")
        sizes = [n // ROWS + (1 if k < n % ROWS else 0) for k in range(ROWS)][::-1]
        rows, start = [], 0
        for size in sizes:
            group = cards[start:start + size]
            start += size
            cut = (size + 1) // 2
            rows.append((group[:cut], group[cut:]))
        return cls(rows)


def floor_cell(viewer: int, owner: int, row: int, column: int) -> tuple[int, int]:
    """(y, x) on a 6 x 16 grid of the whole floor as `viewer` sees it, y = 0 at the far edge.

    The viewer's own 上段 is y = 3 and 下段 y = 5; the opponent's side is seen
    rotated by 180°: their 下段 at y = 0, their left at the viewer's right."""
    if owner == viewer:
        return ROWS + row, column
    return ROWS - 1 - row, COLUMNS - 1 - column
