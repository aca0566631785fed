"""What happens in a Mubeyama game, as structured events (fields, never prose).

Every event is a `trainer.games.protocol.GameEvent` with a kind
``"mubeyama.<what>"``; the UI has one text per kind per language
(`trainer.text.mubeyama`), tests and the simulator read the fields.
Seats count from 0 here; people count from 1 on the screen.

An event that only one seat may see (the hidden card dealt to it) says so in
`private_to`; views drop it for everyone else.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from trainer.rules.protocol import GameEvent, event_kinds

CardNo = int
"""A poem / torifuda number, 1..100."""

# Why a game ended (`Won.reason`, `GameOutcome.reason`).
LINE = "line"                   # Okayama: a face-down row, column or diagonal
ALL_FACE_DOWN = "all_face_down"  # Izumoji: every torifuda face-down
ALL_ROWS = "all_rows"           # gambling: a seat (`by`) finished every row; most Mon wins
ALL_READ = "all_read"           # guard: every card read, the best scores win

# Why Mon was paid (`Payment.why`, `Paid.why`).
PAY_HIDDEN = "hidden_card"
PAY_ROW = "row"
PAY_TSUKI_YUKI_HANA = "tsuki_yuki_hana"
PAY_MUBEYAMA = "mubeyama"


@dataclass(frozen=True)
class MubeyamaEvent(GameEvent):
    """Base of the Mubeyama events."""

    kind: ClassVar[str] = "mubeyama.event"

    @property
    def private_to(self) -> int | None:
        """The only seat that may see this event (None: everyone)."""
        return None

    def cards(self) -> tuple[CardNo, ...]:
        """Every card number the event names (for hidden-information checks)."""
        no = getattr(self, "no", None)
        return (no,) if no is not None else ()


@dataclass(frozen=True)
class Dealt(MubeyamaEvent):
    """*seat* was dealt *count* torifuda."""
    kind: ClassVar[str] = "mubeyama.deal"
    seat: int
    count: int


@dataclass(frozen=True)
class HiddenDealt(MubeyamaEvent):
    """The gambling game's peak card *no*, face-down: only *seat* knows it."""
    kind: ClassVar[str] = "mubeyama.deal_hidden"
    seat: int
    no: CardNo

    @property
    def private_to(self) -> int | None:
        return self.seat


@dataclass(frozen=True)
class CardRead(MubeyamaEvent):
    """The reader read yomifuda *no*."""
    kind: ClassVar[str] = "mubeyama.read"
    no: CardNo
    seat: None = None


@dataclass(frozen=True)
class NotInPlay(MubeyamaEvent):
    """*no* was read but nobody holds it (6-player deals): the reader reads on."""
    kind: ClassVar[str] = "mubeyama.not_in_play"
    no: CardNo
    seat: None = None


@dataclass(frozen=True)
class Flipped(MubeyamaEvent):
    """*seat* turned its torifuda *no* face-down."""
    kind: ClassVar[str] = "mubeyama.flip"
    seat: int
    no: CardNo


@dataclass(frozen=True)
class Revealed(MubeyamaEvent):
    """*seat*'s hidden peak card *no* was read and shown."""
    kind: ClassVar[str] = "mubeyama.reveal"
    seat: int
    no: CardNo


@dataclass(frozen=True)
class Passed(MubeyamaEvent):
    """*seat* gave its face-up torifuda *no* to *to* (a yaku of set *yaku_set*)."""
    kind: ClassVar[str] = "mubeyama.pass"
    seat: int
    no: CardNo
    to: int
    yaku_set: int


@dataclass(frozen=True)
class ShortOfCards(MubeyamaEvent):
    """*seat* owed *to* *owed* torifuda for card *no* but had only *has* face-up; the rest is forgiven."""
    kind: ClassVar[str] = "mubeyama.short"
    seat: int
    no: CardNo
    to: int
    owed: int
    has: int


@dataclass(frozen=True)
class Paid(MubeyamaEvent):
    """Every other seat paid *seat* *each* Mon (*amount* in all) for *why* (card *no*, *row*)."""
    kind: ClassVar[str] = "mubeyama.pay"
    seat: int
    no: CardNo | None
    each: int
    amount: int
    why: str
    row: int | None = None


@dataclass(frozen=True)
class RowCompleted(MubeyamaEvent):
    """*seat* turned the last card *no* of its *row* face-down (the book's row number)."""
    kind: ClassVar[str] = "mubeyama.row"
    seat: int
    no: CardNo
    row: int


@dataclass(frozen=True)
class LineCompleted(MubeyamaEvent):
    """Okayama: *seat* has a whole line face-down.

    *line* is ``"row"``, ``"column"`` or ``"diagonal"``; *index* counts from 1
    (rows top to bottom, columns left to right; diagonal 1 from the top left,
    2 from the top right). *line_cards* are the line's torifuda, for drawing.
    """
    kind: ClassVar[str] = "mubeyama.line"
    seat: int
    line: str
    index: int
    line_cards: tuple[CardNo, ...]

    def cards(self) -> tuple[CardNo, ...]:
        return self.line_cards


@dataclass(frozen=True)
class Won(MubeyamaEvent):
    """*seat* won, for *reason* (`LINE`, `ALL_FACE_DOWN`, `ALL_ROWS`, `ALL_READ`);
    *by*: the seat that finished every row (`ALL_ROWS`)."""
    kind: ClassVar[str] = "mubeyama.win"
    seat: int
    reason: str
    by: int | None = None


EVENT_TYPES = event_kinds(Dealt, HiddenDealt, CardRead, NotInPlay, Flipped, Revealed, Passed,
                          ShortOfCards, Paid, RowCompleted, LineCompleted, Won)

# Why the game waits, when an action is refused (`IllegalAction.waiting`): data, not prose.
WAIT_READ, WAIT_FLIP, WAIT_PASS, WAIT_OVER = "read", "flip", "pass", "over"
