"""The four Mubeyama rulesets of seed 000, as hooks on the shared state machine.

- `Okayama`: 4 players × 25 in a 5×5 grid or 6 × 16 in 4×4; a face-down line
  (row, column, diagonal) wins. No yaku.
- `Izumoji` ("Mubeyama asobi", 1952): 5 × 20 or 6 × 16 arranged freely; the
  first to have every torifuda face-down wins; yaku pass face-up torifuda.
- `Gambling4` (Kansei-era report): 4 × 25 in a pyramid 1 (hidden) / 4 / 5 / 7 / 8,
  or without the hidden card 4 / 6 / 7 / 8; payments in Mon from every other
  player; ends when a player has finished every row; most Mon wins.
- `Gambling5`: 5 × 20 in a truncated pyramid 3 / 4 / 6 / 7, no hidden card.

Choices the seed leaves open are marked "Decision" and collected in
docs/mubeyama.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Sequence

from poems.yaku import MUBEYAMA_CARD, SEED, YakuSets

from .core import ALL_CARDS, Layout, LayoutError, MubeyamaError, MubeyamaState, Table, deal_order
from .events import (ALL_FACE_DOWN, ALL_ROWS, LINE, PAY_HIDDEN, PAY_MUBEYAMA, PAY_ROW,
                     PAY_TSUKI_YUKI_HANA, CardNo, RowCompleted)


class Ruleset:
    """Base ruleset: deal and layout facts plus hooks the state calls."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    player_counts: ClassVar[tuple[int, ...]] = ()

    # ----------------------------------------------------------------- deal facts

    def check_players(self, players: int) -> None:
        if players not in self.player_counts:
            counts = " or ".join(str(n) for n in self.player_counts)
            raise LayoutError(f"{self.name} is played by {counts} players, not {players}", "players",
                              ruleset=self.name, players=players, counts=self.player_counts)

    def cards_per_seat(self, players: int) -> int:
        raise NotImplementedError

    def row_sizes(self, players: int) -> tuple[int, ...]:
        """Slot rows of one seat's layout, top to bottom (hidden peak included)."""
        return (self.cards_per_seat(players),)

    def has_hidden(self, players: int) -> bool:
        return False

    def layout(self, players: int) -> Layout:
        """How one seat's torifuda lie, for the table (the default: one free row)."""
        return Layout("free", self.row_sizes(players))

    # ----------------------------------------------------------------- hooks

    def on_flip(self, state: MubeyamaState, seat: int, no: CardNo) -> None:
        """A face-up torifuda was turned face-down."""

    def on_reveal(self, state: MubeyamaState, seat: int, no: CardNo) -> None:
        """A hidden peak card's poem was read and its owner showed it."""

    def after_resolution(self, state: MubeyamaState) -> None:
        """A reading and everything it caused is over: end the game if it is won."""

    def scores(self, state: MubeyamaState) -> list[int]:
        won = set(state.winners())
        return [1 if s in won else 0 for s in range(state.players)]

    # ----------------------------------------------------------------- building games

    def deal(self, players: int, seed: int | str) -> list[list[CardNo]]:
        """A seeded shuffle dealt in seat order; leftovers stay unused."""
        self.check_players(players)
        deck = deal_order(seed)
        n = self.cards_per_seat(players)
        return [list(deck[s * n:(s + 1) * n]) for s in range(players)]

    def tables_from(self, players: int, layouts: Sequence[Sequence[CardNo]]) -> tuple[list[Table], list[CardNo]]:
        """Validate entered layouts (slot order, row by row, peak first) and build tables."""
        self.check_players(players)
        if len(layouts) != players:
            raise LayoutError(f"{players} players need {players} layouts, got {len(layouts)}",
                              "layouts", players=players, got=len(layouts))
        n, sizes = self.cards_per_seat(players), self.row_sizes(players)
        seen: dict[int, int] = {}
        tables = []
        for seat, cards in enumerate(layouts):
            cards = list(cards)
            if len(cards) != n:
                raise LayoutError(f"seat {seat} needs {n} torifuda, got {len(cards)}", "count",
                                  seat=seat, need=n, got=len(cards))
            for no in cards:
                if not isinstance(no, int) or not 1 <= no <= 100:
                    raise LayoutError(f"seat {seat}: {no!r} is not a poem number 1..100",
                                      "not_a_card", seat=seat, value=no)
                if no in seen:
                    raise LayoutError(f"#{no} is laid out twice (seats {seen[no]} and {seat})",
                                      "twice", no=no, seats=(seen[no], seat))
                seen[no] = seat
            rows, at = [], 0
            for size in sizes:
                rows.append(cards[at:at + size])
                at += size
            hidden = cards[0] if self.has_hidden(players) else None
            tables.append(Table(rows, set(cards) - {hidden}, hidden))
        unused = [no for no in ALL_CARDS if no not in seen]
        return tables, unused


def new_game(ruleset: Ruleset, players: int, seed: int | str = 0,
             layouts: Sequence[Sequence[CardNo]] | None = None) -> MubeyamaState:
    """A new game: dealt from *seed*, or from *layouts* entered for real cards.

    *layouts* (scorekeeper mode) gives each seat's torifuda in slot order: rows
    top to bottom, left to right, the gambling game's hidden peak first. The
    reading order always comes from *seed*.
    """
    if layouts is None:
        layouts = ruleset.deal(players, seed)
    tables, unused = ruleset.tables_from(players, layouts)
    return MubeyamaState(ruleset, players, tables, unused, seed)


# =========================================================================== Okayama

def grid_lines(side: int) -> list[tuple[int, ...]]:
    """Slot indices of every bingo line of a side×side grid: rows, columns, 2 diagonals."""
    rows = [tuple(r * side + c for c in range(side)) for r in range(side)]
    cols = [tuple(r * side + c for r in range(side)) for c in range(side)]
    diagonals = [tuple(i * side + i for i in range(side)),
                 tuple(i * side + side - 1 - i for i in range(side))]
    return rows + cols + diagonals


@dataclass(frozen=True)
class Okayama(Ruleset):
    """Okayama prefecture: bingo. 4 × 25 in 5×5, or 6 × 16 in 4×4 (4 unused)."""

    name: ClassVar[str] = "okayama"
    title: ClassVar[str] = "Okayama"
    player_counts: ClassVar[tuple[int, ...]] = (4, 6)

    @staticmethod
    def side(players: int) -> int:
        return 5 if players == 4 else 4

    def cards_per_seat(self, players: int) -> int:
        return self.side(players) ** 2

    def row_sizes(self, players: int) -> tuple[int, ...]:
        return (self.side(players),) * self.side(players)

    def layout(self, players: int) -> Layout:
        return Layout("grid", self.row_sizes(players), grid_side=self.side(players))

    def on_flip(self, state: MubeyamaState, seat: int, no: CardNo) -> None:
        table = state.tables[seat]
        slots = table.cards()
        side = self.side(state.players)
        for line in grid_lines(side):
            if not any(slots[i] in table.face_up for i in line):
                kind, index = line_name(line, side)
                state.won_by_line(seat, kind, index, tuple(slots[i] for i in line))
                state.end([seat], LINE)
                return


def line_name(line: tuple[int, ...], side: int) -> tuple[str, int]:
    """("row" | "column" | "diagonal", its number from 1) of a `grid_lines` line."""
    if line[1] - line[0] == 1:
        return "row", line[0] // side + 1
    if line[1] - line[0] == side:
        return "column", line[0] + 1
    return "diagonal", 1 if line[0] == 0 else 2


# =========================================================================== Izumoji

@dataclass(frozen=True)
class Izumoji(Ruleset):
    """Izumoji family "Mubeyama asobi" (1952): all face-down wins; yaku pass torifuda.

    Decisions (docs/mubeyama.md): a card in several sets does all of them, set 1,
    then set 2, then set 3; "every other player" goes round from the flipper's
    right; a giver short of face-up torifuda gives what it has and the rest is
    forgiven; the game is judged when a reading's passes are all done, and every
    seat then with no face-up torifuda wins (shared wins are possible).
    """

    yaku: YakuSets = SEED
    name: ClassVar[str] = "izumoji"
    title: ClassVar[str] = "Izumoji family \"Mubeyama asobi\""
    player_counts: ClassVar[tuple[int, ...]] = (5, 6)

    def cards_per_seat(self, players: int) -> int:
        return 20 if players == 5 else 16

    def layout(self, players: int) -> Layout:
        # "Arranged by the player": drawn in rows of 5 (20 cards) or 4 (16).
        return Layout("free", self.row_sizes(players), wrap=self.cards_per_seat(players) // 4)

    def on_flip(self, state: MubeyamaState, seat: int, no: CardNo) -> None:
        state.order_pass(seat, state.right_of(seat), self.yaku.pass_right(no), no, 1)
        for other in state.others(seat):
            state.order_pass(seat, other, self.yaku.pass_each(no), no, 2)
        for other in state.others(seat):
            state.order_pass(other, seat, self.yaku.receive_each(no), no, 3)

    def after_resolution(self, state: MubeyamaState) -> None:
        done = [s for s, t in enumerate(state.tables) if not t.face_up]
        if done:
            state.end(done, ALL_FACE_DOWN)


# =========================================================================== gambling

@dataclass(frozen=True)
class Stakes:
    """Payments in Mon agreed before play; each is paid by every other player.

    *rows* pays the face-up rows top to bottom (4-player: rows 2-5; 5-player:
    rows 1-4). The book gives only the hidden card (200 Mon); the other
    defaults are 10 Mon per torifuda in the row, 20 Mon for tsuki/yuki/hana and
    300 for #22, which the seed says must be the highest.
    """

    hidden_card: int = 200
    rows: tuple[int, int, int, int] = (40, 50, 70, 80)
    tsuki_yuki_hana: int = 20
    mubeyama: int = 300

    def __post_init__(self) -> None:
        amounts = {"hidden_card": self.hidden_card, "tsuki_yuki_hana": self.tsuki_yuki_hana,
                   "mubeyama": self.mubeyama}
        amounts.update({f"row {i + 1}": v for i, v in enumerate(self.rows)})
        if len(self.rows) != 4:
            raise MubeyamaError(f"stakes need 4 row payments, got {len(self.rows)}", "stake_rows",
                                got=len(self.rows))
        for what, v in amounts.items():
            if not isinstance(v, int) or v < 0:
                raise MubeyamaError(f"stake {what} must be a whole number of Mon >= 0, got {v!r}",
                                    "stake_amount", what=what, value=v)
        top = max(v for k, v in amounts.items() if k != "mubeyama")
        if self.mubeyama <= top:
            raise MubeyamaError(f"the #22 (mubeyama) payment must be the highest: "
                                f"{self.mubeyama} Mon is not above {top}",
                                "stake_not_highest", amount=self.mubeyama, top=top)


@dataclass(frozen=True)
class Gambling(Ruleset):
    """The Kansei-era gambling game and its 5-player form.

    *hidden_card* False: the 4-player peak card goes face-up into the third
    row, which then holds 6. *hidden_card_pays_yaku*: whether a hidden card
    that is #22 or a tsuki/yuki/hana card also earns that payment when shown
    (default no: those pay for *flipping*, and the hidden card is never flipped).
    """

    stakes: Stakes = field(default_factory=Stakes)
    yaku: YakuSets = SEED
    hidden_card: bool = True
    hidden_card_pays_yaku: bool = False

    def cards_per_seat(self, players: int) -> int:
        return sum(self.row_sizes(players))

    def face_up_rows(self, players: int) -> range:
        """Indices (into the slot rows) of the rows that pay when completed."""
        return range(1 if self.has_hidden(players) else 0, len(self.row_sizes(players)))

    def row_number(self, players: int, r: int) -> int:
        """The book's number of slot row *r* (the payments and the log name rows by it)."""
        raise NotImplementedError

    def layout(self, players: int) -> Layout:
        sizes = self.row_sizes(players)
        return Layout("pyramid", sizes, has_peak=self.has_hidden(players), pays_rows=True,
                      row_numbers=tuple(self.row_number(players, r) for r in range(len(sizes))))

    def on_reveal(self, state: MubeyamaState, seat: int, no: CardNo) -> None:
        state.pay_from_all(seat, self.stakes.hidden_card, PAY_HIDDEN, no)
        if self.hidden_card_pays_yaku:
            self._card_payments(state, seat, no)

    def on_flip(self, state: MubeyamaState, seat: int, no: CardNo) -> None:
        self._card_payments(state, seat, no)
        table = state.tables[seat]
        for k, r in enumerate(self.face_up_rows(state.players)):
            if no in table.rows[r] and table.row_done(r):
                number = self.row_number(state.players, r)
                state.record(RowCompleted(seat, no, number))
                state.pay_from_all(seat, self.stakes.rows[k], PAY_ROW, no, number)
        if all(table.row_done(r) for r in range(len(table.rows))):
            best = max(state.balances)
            state.end([s for s, m in enumerate(state.balances) if m == best], ALL_ROWS, by=seat)

    def _card_payments(self, state: MubeyamaState, seat: int, no: CardNo) -> None:
        if no in self.yaku.tsuki_yuki_hana:
            state.pay_from_all(seat, self.stakes.tsuki_yuki_hana, PAY_TSUKI_YUKI_HANA, no)
        if no == MUBEYAMA_CARD:
            state.pay_from_all(seat, self.stakes.mubeyama, PAY_MUBEYAMA, no)

    def scores(self, state: MubeyamaState) -> list[int]:
        return list(state.balances)


@dataclass(frozen=True)
class Gambling4(Gambling):
    """4 × 25: hidden peak, then 4 / 5 / 7 / 8 face-up (or 4 / 6 / 7 / 8, no peak)."""

    name: ClassVar[str] = "gambling4"
    title: ClassVar[str] = "Four-player gambling game (Kansei era)"
    player_counts: ClassVar[tuple[int, ...]] = (4,)

    def row_sizes(self, players: int) -> tuple[int, ...]:
        return (1, 4, 5, 7, 8) if self.hidden_card else (4, 6, 7, 8)

    def has_hidden(self, players: int) -> bool:
        return self.hidden_card

    def row_number(self, players: int, r: int) -> int:
        # The book numbers the peak as row 1 either way, so the face-up rows are 2-5.
        return r + 1 if self.hidden_card else r + 2


@dataclass(frozen=True)
class Gambling5(Gambling):
    """5 × 20 in a truncated pyramid 3 / 4 / 6 / 7; no hidden card."""

    name: ClassVar[str] = "gambling5"
    title: ClassVar[str] = "Five-player gambling game"
    player_counts: ClassVar[tuple[int, ...]] = (5,)
    hidden_card: bool = False

    def __post_init__(self) -> None:
        if self.hidden_card:
            raise ValueError("the five-player game has no hidden card")

    def row_sizes(self, players: int) -> tuple[int, ...]:
        return (3, 4, 6, 7)

    def row_number(self, players: int, r: int) -> int:
        return r + 1


RULESETS: dict[str, type[Ruleset]] = {
    cls.name: cls for cls in (Okayama, Izumoji, Gambling4, Gambling5)}
DEFAULT_PLAYERS = {name: cls.player_counts[0] for name, cls in RULESETS.items()}


# =========================================================================== variants

@dataclass(frozen=True)
class VariantSpec:
    """One playable table: a ruleset, a player count and the hidden card's choice.

    The one list of Mubeyama variants (`VARIANTS`): the registry, the session,
    the setup page and the simulator all read it.
    """
    id: str
    ruleset: str
    players: int
    hidden_card: bool
    title: str

    def make_ruleset(self, yaku: YakuSets = SEED, stakes: Stakes | None = None) -> Ruleset:
        """The ruleset object for this variant (*stakes*: the gambling payments)."""
        return make_ruleset(self.ruleset, hidden_card=self.hidden_card, yaku=yaku, stakes=stakes)

    @property
    def gambling(self) -> bool:
        return issubclass(RULESETS[self.ruleset], Gambling)


def make_ruleset(name: str, hidden_card: bool = False, yaku: YakuSets = SEED,
                 stakes: Stakes | None = None) -> Ruleset:
    """A ruleset by name with the choices that apply to it (others are ignored)."""
    cls = RULESETS[name]
    if cls is Okayama:
        return Okayama()
    if cls is Izumoji:
        return Izumoji(yaku=yaku)
    if cls is Gambling4:
        return Gambling4(stakes=stakes or Stakes(), yaku=yaku, hidden_card=hidden_card)
    return Gambling5(stakes=stakes or Stakes(), yaku=yaku)


VARIANTS: dict[str, VariantSpec] = {v.id: v for v in (
    VariantSpec("okayama4", "okayama", 4, False, "Mubeyama, Okayama (bingo lines), 4 players"),
    VariantSpec("okayama6", "okayama", 6, False, "Mubeyama, Okayama (bingo lines), 6 players"),
    VariantSpec("izumoji5", "izumoji", 5, False, "Mubeyama, Izumoji (passes), 5 players"),
    VariantSpec("izumoji6", "izumoji", 6, False, "Mubeyama, Izumoji (passes), 6 players"),
    VariantSpec("gambling4", "gambling4", 4, True, "Mubeyama, four-player gambling game (hidden card)"),
    VariantSpec("gambling4open", "gambling4", 4, False,
                "Mubeyama, four-player gambling game (no hidden card)"),
    VariantSpec("gambling5", "gambling5", 5, False, "Mubeyama, five-player gambling game"),
)}
