"""The shared table for card games: seats around a table, a hand, a log, a score sheet, a timer bar.

Every card game's screen (Mubeyama now; Yomi, Ume Botan, Unsun karuta next)
is the same shell around a game's own drawing:

- `TableView`, a QWidget drawing the felt and the seats around it (2 to 8;
  the person's seat `me` at the bottom, the others in the order of play
  going round to its right), each seat a box with a name and a second line
  (counts, score), the seat whose turn it is highlighted, an optional
  per-turn timer bar in that box, the person's hand in a strip along the
  bottom, and a centre. A game subclasses it and draws only its own things
  through four hooks (below). Clicks come out as one signal.
- `TableShell`, the whole screen: the table on the left; on the right an
  optional game widget (a game's own panel), the score sheet and the log.
- `ScoreSheet`: rows per round / deal, columns per seat or team, a total row.
- `LogPanel`: one line per event (the game words them with
  `trainer.text.events.describe`, never by hand).
- `paint_card_back`, `paint_outline`, `paint_seal`: hidden cards are drawn
  face-down by the shell's back, the same in every game.
- `TurnTable`: plays a `trainer.games.turn_session.TurnSession` at the shell
  (CPU seats paced, clicks turned into actions, the log, the active seat and
  the session's turn timer shown): a turn game writes no glue of its own.

So a new card game writes its `TableView` subclass (the drawing, ~100-150
lines), an ``action_for(seat, item, legal)`` function, its event texts (one
line per kind per language, `event_text.add_event_messages`), and a few lines
creating the shell and the `TurnTable`.

A game writes (the hooks of `TableView`; all optional but `paint_seat`):

``place(seats, centre, hand)``
    Lay things out: *seats* are the boxes' content rects (below the header), in
    seat order; *centre* the middle of the table (empty for ``rows``); *hand*
    the person's strip (empty when `hand_height` is 0). Called on every resize
    and `refresh()`; keep the rects you hit-test.
``paint_seat(p, seat, rect)``, ``paint_centre(p, rect)``, ``paint_hand(p, rect)``
    Draw that part; ``paint_over(p)`` last (animations above everything).
``item_at(pos) -> (seat, item) | None``
    What a press at *pos* hits; the shell then emits
    ``clicked(seat, item, clock time of the press)``.

Minimal example (a game showing each seat's hand size as backs, the discard
pile in the centre, the person's cards in the hand strip)::

    class MyTable(TableView):
        def __init__(self):
            super().__init__(arrangement="ring", hand_height=120)
            self.view = None                      # the engine's view for the person
            self._hand: list[tuple[QRectF, int]] = []

        def place(self, seats, centre, hand):
            n = len(self.view.hand) if self.view else 0
            w = min(70.0, hand.width() / max(n, 1))
            self._hand = [(QRectF(hand.left() + k * w, hand.top() + 6, w - 6, hand.height() - 12), no)
                          for k, no in enumerate(self.view.hand if self.view else ())]

        def paint_seat(self, p, seat, rect):
            for k in range(self.view.counts[seat]):   # other seats' cards are hidden: backs
                paint_card_back(p, QRectF(rect.left() + k * 12, rect.top(), 40, 60))

        def paint_centre(self, p, rect):
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, str(self.view.discard))

        def paint_hand(self, p, rect):
            for r, no in self._hand:
                p.drawText(r, Qt.AlignmentFlag.AlignCenter, str(no))

        def item_at(self, pos):
            return next(((self.me, no) for r, no in self._hand if r.contains(pos)), None)

    table = MyTable()
    shell = TableShell(table)                       # + side=your_widget, clock=...
    table.set_seats(["You", "CPU 1", "CPU 2", "CPU 3"], me=0)
    game = TurnTable(shell, session, me=0,          # session: a TurnSession (CPUs, log, timer)
                     action_for=lambda seat, no, legal: next((a for a in legal if a.no == no), None))
    game.changed.connect(lambda: setattr(table, "view", session.view(0)))
    game.start()                                    # CPUs play, clicks act, the log fills
    shell.scores.set_columns(["Seat 1", "Seat 2", "Seat 3", "Seat 4"]); shell.show_scores(True)
    shell.scores.add_row("Deal 1", [12, -4, 0, -8]) # rows per deal, a total row kept below

Without a `TurnSession` (Mubeyama's reading game) the game drives the shell
itself: ``table.active_seat = seat``, ``shell.log.add_lines([...])``,
``table.refresh()``, and ``table.timer_fraction`` for a timer bar.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from PySide6.QtCore import QObject, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (QHeaderView, QLabel, QListWidget, QSizePolicy, QSplitter,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from audio.clock import SYSTEM, Clock

FELT = QColor("#e9e1cc")
BOX = QColor("#f7f3e8")
BOX_ACTIVE = QColor("#fff4c2")
BOX_EDGE = QColor("#cfc4a8")
BOX_EDGE_ACTIVE = QColor("#b08d57")
BACK = QColor("#6b2a1a")
BACK_EDGE = QColor("#3d160c")
BACK_PATTERN = QColor(255, 220, 160, 60)
TIMER_COLOUR = QColor("#1f5fbf")
TIMER_LATE = QColor("#c0392b")
HEADER_H = 40.0
MIN_SEATS, MAX_SEATS = 2, 8
SIDE_MIN_WIDTH = 280

RING, ROWS = "ring", "rows"


# --------------------------------------------------------------------------- where seats sit

def seat_boxes(n: int, area: QRectF, me: int | None = None, arrangement: str = RING) -> list[QRectF]:
    """The seat boxes in seat order.

    ``ring``: round an oval, seat *me* (default 0) at the bottom centre and the
    order of play going to its right (seat ``me + 1`` on the right, as the
    Japanese order of play has it), up and round. ``rows``: two rows in reading
    order, seat 1 top left (5 seats: 3 over 2) — for games whose every seat has
    a large layout (Mubeyama).
    """
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise ValueError(f"a table seats {MIN_SEATS} to {MAX_SEATS}, not {n}")
    if arrangement == ROWS:
        return _rows(n, area)
    w = area.width() * (0.30 if n <= 4 else 0.24)
    h = area.height() * (0.26 if n <= 4 else 0.22)
    rx, ry = (area.width() - w) / 2, (area.height() - h) / 2
    cx, cy = area.center().x(), area.center().y()
    bottom = me or 0
    boxes: list[QRectF] = [QRectF()] * n
    for k in range(n):
        angle = math.pi / 2 - 2 * math.pi * k / n     # y grows downwards: pi/2 is the bottom
        x, y = cx + rx * math.cos(angle), cy + ry * math.sin(angle)
        boxes[(bottom + k) % n] = QRectF(x - w / 2, y - h / 2, w, h)
    return boxes


def _rows(n: int, area: QRectF) -> list[QRectF]:
    top = (n + 1) // 2
    bottom = n - top
    gap = 8.0
    h = (area.height() - gap) / 2
    w = (area.width() - gap * (top - 1)) / top
    boxes = [QRectF(area.left() + k * (w + gap), area.top(), w, h) for k in range(top)]
    offset = (area.width() - (bottom * w + (bottom - 1) * gap)) / 2
    boxes += [QRectF(area.left() + offset + k * (w + gap), area.top() + h + gap, w, h)
              for k in range(bottom)]
    return boxes


def centre_of(area: QRectF, boxes: Sequence[QRectF], arrangement: str) -> QRectF:
    """The free middle of a ring (nothing for rows)."""
    if arrangement == ROWS or not boxes:
        return QRectF()
    w, h = boxes[0].width(), boxes[0].height()
    return area.adjusted(w * 0.75, h * 0.9, -w * 0.75, -h * 0.9)


# --------------------------------------------------------------------------- shared drawing

_BACKS: dict[tuple[int, int], QPixmap] = {}


def paint_card_back(p: QPainter, rect: QRectF, number: int | None = None,
                    highlight: QColor | None = None) -> None:
    """A card lying face-down: the plain back; *number* small in a corner when everyone
    knows it (a torifuda read aloud), never for a hidden card."""
    p.drawPixmap(rect.topLeft(), _back_pixmap(rect.width(), rect.height(), p.device()))
    p.save()
    if number is not None:
        f = QFont()
        f.setPixelSize(max(9, int(rect.width() * 0.22)))   # 9 px: the smallest the walk reads
        p.setFont(f)
        p.setPen(QColor(255, 235, 200, 200))
        p.drawText(rect.adjusted(2, 2, -3, -2), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom,
                   str(number))
    p.restore()
    if highlight is not None:
        paint_outline(p, rect, highlight)


def paint_label(p: QPainter, rect: QRectF, text: str, px: int, bold: bool = False,
           colour: QColor = QColor("#333"), align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter) -> None:
    """`text` word-wrapped in `rect` at `px` pixels (the card tables' labels)."""
    p.save()
    f = QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    p.setFont(f)
    p.setPen(colour)
    p.drawText(rect, align | Qt.TextFlag.TextWordWrap, text)
    p.restore()


MIN_TEXT_PX = 10
"""The smallest text a table paints: under 9 px a player cannot read it (issue 28)."""


def fitted_font(rect: QRectF, text: str, px: float, *, min_px: float = MIN_TEXT_PX, bold: bool = False,
                align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter, wrap: bool = False) -> tuple[QFont, QRectF]:
    """The font from `px` down to `min_px` at which `text` fits `rect` (word-wrapped if `wrap`),
    and where it lies; at `min_px` the text may still overflow (the caller elides or makes room)."""
    f = QFont()
    f.setBold(bold)
    flags = int(align) | (int(Qt.TextFlag.TextWordWrap) if wrap else 0)
    size = max(float(px), min_px)
    while True:
        f.setPixelSize(max(1, round(size)))
        laid = QFontMetricsF(f).boundingRect(rect, flags, text)
        if (laid.width() <= rect.width() + 0.5 and laid.height() <= rect.height() + 0.5) or size <= min_px:
            return f, laid
        size = max(min_px, size - 1)


def paint_fitted(p: QPainter, rect: QRectF, text: str, px: float, *, min_px: float = MIN_TEXT_PX,
                 bold: bool = False, colour: QColor = QColor("#333"),
                 align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter, wrap: bool = False) -> QRectF:
    """`text` in `rect` at the largest size from `px` down to `min_px` at which it fits (word-wrapped
    if `wrap`); at `min_px` a line still too long is elided (never smaller type). Returns where
    the text went, so the caller can put the next thing under it."""
    f, laid = fitted_font(rect, text, px, min_px=min_px, bold=bold, align=align, wrap=wrap)
    flags = int(align) | (int(Qt.TextFlag.TextWordWrap) if wrap else 0)
    if laid.width() > rect.width() + 0.5 and not wrap:
        fm = QFontMetricsF(f)
        text = fm.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        laid = fm.boundingRect(rect, flags, text)
    p.save()
    p.setFont(f)
    p.setPen(colour)
    p.drawText(rect, flags, text)
    p.restore()
    return laid


def paint_outline(p: QPainter, rect: QRectF, colour: QColor) -> None:
    """A coloured frame round a card (hint, last move, winning line)."""
    p.save()
    p.setPen(QPen(colour, max(2.0, rect.width() * 0.06)))
    p.setBrush(Qt.BrushStyle.NoBrush)
    radius = rect.width() * 0.06
    p.drawRoundedRect(rect, radius, radius)
    p.restore()


def paint_seal(p: QPainter, rect: QRectF, text: str, colour: QColor) -> None:
    """A small round seal in a card's top-left corner (伏: a hidden card)."""
    p.save()
    s = max(10.0, rect.width() * 0.34)
    tag = QRectF(rect.left() + 2, rect.top() + 2, s, s)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(colour)
    p.drawEllipse(tag)
    f = QFont()
    f.setPixelSize(int(s * 0.7))
    f.setBold(True)
    p.setFont(f)
    p.setPen(QColor("white"))
    p.drawText(tag, Qt.AlignmentFlag.AlignCenter, text)
    p.restore()


def _back_pixmap(w: float, h: float, device: Any) -> QPixmap:
    ratio = device.devicePixelRatioF() if hasattr(device, "devicePixelRatioF") else 1.0
    key = (round(w * ratio), round(h * ratio))
    pix = _BACKS.get(key)
    if pix is not None:
        return pix
    if len(_BACKS) > 200:
        _BACKS.clear()
    pix = QPixmap(max(1, key[0]), max(1, key[1]))
    pix.setDevicePixelRatio(ratio)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    rect = QRectF(0.5, 0.5, w - 1, h - 1)
    radius = w * 0.06
    p.setPen(QPen(BACK_EDGE, 1.2))
    p.setBrush(BACK)
    p.drawRoundedRect(rect, radius, radius)
    m = w * 0.12
    inner = rect.adjusted(m, m, -m, -m)
    p.setPen(QPen(BACK_PATTERN, 1))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(inner)
    step = max(6.0, inner.width() / 4)
    p.setClipRect(inner)
    k = -inner.height()
    while k < inner.width():
        p.drawLine(QPointF(inner.left() + k, inner.top()),
                   QPointF(inner.left() + k + inner.height(), inner.bottom()))
        k += step
    p.end()
    _BACKS[key] = pix
    return pix


# --------------------------------------------------------------------------- the table

@dataclass
class _Geometry:
    seats: list[QRectF]
    contents: list[QRectF]
    centre: QRectF
    hand: QRectF


class TableView(QWidget):
    """The felt with the seats round it; subclass and draw your game through the hooks."""

    clicked = Signal(int, object, float)   # seat, what was hit (the game's item), clock time

    def __init__(self, arrangement: str = RING, hand_height: float = 0.0, clock: Clock = SYSTEM,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.arrangement = arrangement
        self.hand_height = hand_height
        self.clock = clock
        self.titles: list[str] = []     # per seat: the name (席1 CPU)
        self.lines: list[str] = []      # per seat: a second line (cards, score, reaction time)
        self.me: int | None = None      # the person's seat, drawn at the bottom of a ring
        self.active_seat: int | None = None
        self.timer_fraction: float | None = None   # of the turn left, drawn in the active box
        self.seat_count = 4
        self._geometry = _Geometry([], [], QRectF(), QRectF())
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # -- the hooks a game overrides --------------------------------------------------------------
    def place(self, seats: list[QRectF], centre: QRectF, hand: QRectF) -> None:
        """Lay out the game's things in these rects (boxes' contents, centre, hand)."""

    def paint_seat(self, p: QPainter, seat: int, rect: QRectF) -> None:
        """Draw *seat*'s own cards inside *rect* (below its header)."""

    def paint_centre(self, p: QPainter, rect: QRectF) -> None:
        """Draw the middle of the table (a ring only)."""

    def paint_hand(self, p: QPainter, rect: QRectF) -> None:
        """Draw the person's hand in the strip along the bottom."""

    def paint_over(self, p: QPainter) -> None:
        """Draw above everything (cards in flight)."""

    def item_at(self, pos: QPointF) -> tuple[int, Any] | None:
        """(seat, item) under *pos*, or None."""
        return None

    # -- what the shell offers --------------------------------------------------------------------
    def set_seats(self, titles: Sequence[str], lines: Sequence[str] = (), me: int | None = None) -> None:
        """Name the seats (2-8): their titles, second lines, and the person's seat."""
        if not MIN_SEATS <= len(titles) <= MAX_SEATS:
            raise ValueError(f"a table seats {MIN_SEATS} to {MAX_SEATS}, not {len(titles)}")
        self.titles, self.lines, self.me = list(titles), list(lines), me
        self.seat_count = len(titles)
        self.refresh()

    def refresh(self) -> None:
        """Lay out again (the game's state changed) and repaint."""
        self._relayout()
        self.update()

    def seat_rects(self) -> list[QRectF]:
        return list(self._geometry.seats)

    def centre_rect(self) -> QRectF:
        return QRectF(self._geometry.centre)

    def hand_rect(self) -> QRectF:
        return QRectF(self._geometry.hand)

    def sizeHint(self) -> QSize:
        return QSize(1150, 860)

    # -- Qt -----------------------------------------------------------------------------------------
    def _relayout(self) -> None:
        area = QRectF(self.rect()).adjusted(6, 6, -6, -6)
        hand = QRectF()
        if self.hand_height > 0:
            hand = QRectF(area.left(), area.bottom() - self.hand_height, area.width(), self.hand_height)
            area.setBottom(hand.top() - 6)
        boxes = seat_boxes(self.seat_count, area, self.me, self.arrangement)
        contents = [b.adjusted(8, HEADER_H, -8, -6) for b in boxes]
        self._geometry = _Geometry(boxes, contents, centre_of(area, boxes, self.arrangement), hand)
        self.place(contents, self._geometry.centre, hand)

    def resizeEvent(self, event) -> None:
        self._relayout()
        super().resizeEvent(event)

    def mousePressEvent(self, event) -> None:
        stamp = self.clock.now()   # at delivery: test events carry synthetic timestamps
        hit = self.item_at(event.position())
        if hit is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(hit[0], hit[1], stamp)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), FELT)
        g = self._geometry
        if g.centre.isValid() and not g.centre.isEmpty():
            self.paint_centre(p, g.centre)
        for seat, box in enumerate(g.seats):
            self._paint_box(p, seat, box)
            self.paint_seat(p, seat, g.contents[seat])
        if not g.hand.isEmpty():
            p.save()
            p.setPen(QPen(BOX_EDGE, 1))
            p.setBrush(BOX)
            p.drawRoundedRect(g.hand, 8, 8)
            p.restore()
            self.paint_hand(p, g.hand)
        self.paint_over(p)
        p.end()

    def _paint_box(self, p: QPainter, seat: int, box: QRectF) -> None:
        active = seat == self.active_seat
        p.save()
        p.setPen(QPen(BOX_EDGE_ACTIVE if active else BOX_EDGE, 3 if active else 1))
        p.setBrush(BOX_ACTIVE if active else BOX)
        p.drawRoundedRect(box, 8, 8)
        title = self.titles[seat] if seat < len(self.titles) else f"{seat + 1}"
        line = self.lines[seat] if seat < len(self.lines) else ""
        p.setPen(QColor("#222"))
        _fitted_text(p, QRectF(box.left() + 10, box.top() + 2, box.width() - 20, 20), title, 16, bold=True)
        p.setPen(QColor("#444"))
        _fitted_text(p, QRectF(box.left() + 10, box.top() + 20, box.width() - 20, 18), line, 13)
        if active and self.timer_fraction is not None:
            left = max(0.0, min(1.0, self.timer_fraction))
            bar = QRectF(box.left() + 10, box.top() + HEADER_H - 4, (box.width() - 20) * left, 3)
            p.fillRect(bar, TIMER_LATE if left < 0.25 else TIMER_COLOUR)
        p.restore()


def _fitted_text(p: QPainter, rect: QRectF, text: str, size: int, bold: bool = False) -> None:
    """One line of header text: smaller type when the box is narrow, elided if still too long."""
    f = QFont()
    f.setBold(bold)
    for px in range(size, 9, -1):
        f.setPixelSize(px)
        if QFontMetricsF(f).horizontalAdvance(text) <= rect.width():
            break
    p.setFont(f)
    text = QFontMetricsF(f).elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    p.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)


# --------------------------------------------------------------------------- around the table

class LogPanel(QListWidget):
    """The game's log, one line per event, newest at the bottom."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def add_lines(self, lines: Sequence[str | None]) -> None:
        for line in lines:
            if line:
                self.addItem(line)
        self.scrollToBottom()


SHEET_ROWS = 9      # Unsun's 8 deals and the total


class ScoreSheet(QTableWidget):
    """Rows per round or deal, columns per seat or team, a total row at the bottom."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, 0, parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        # compact rows, and room asked for up to SHEET_ROWS of them: Unsun's 8 deals and the
        # total show without scrolling (the log below gives up the height)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self._rows: list[tuple[str, list[int]]] = []

    def set_columns(self, names: Sequence[str]) -> None:
        self._rows = []
        self.setColumnCount(len(names))
        self.setHorizontalHeaderLabels(list(names))
        self._fill()

    def add_row(self, label: str, values: Sequence[int]) -> None:
        if len(values) != self.columnCount():
            raise ValueError(f"{self.columnCount()} columns, got {len(values)} values")
        self._rows.append((label, list(values)))
        self._fill()

    def totals(self) -> list[int]:
        return [sum(v[c] for _, v in self._rows) for c in range(self.columnCount())]

    def minimumSizeHint(self) -> QSize:
        """Room for up to SHEET_ROWS rows, measured now (the rows' height follows the font)."""
        hint = super().minimumSizeHint()
        rows = sum(self.rowHeight(r) for r in range(min(self.rowCount(), SHEET_ROWS)))
        header = self.horizontalHeader()
        header_h = header.height() if header.isVisible() else header.sizeHint().height()
        return QSize(hint.width(), max(hint.height(), header_h + 2 * self.frameWidth() + rows + 2))

    def _fill(self) -> None:
        rows = self._rows + ([("Σ", self.totals())] if self._rows else [])
        self.setRowCount(len(rows))
        self.updateGeometry()               # the room it asks for grows with its rows
        self.setVerticalHeaderLabels([label for label, _ in rows])
        for r, (_, values) in enumerate(rows):
            for c, v in enumerate(values):
                item = QTableWidgetItem(f"{v:+d}" if r == len(self._rows) else str(v))
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(r, c, item)


class TableShell(QWidget):
    """The table on the left; the game's own widget, the score sheet and the log on the right.

    The score sheet is hidden until `show_scores(True)` (a one-deal game needs
    none); the game's widget takes its natural height unless `set_side_stretch`
    gives it more; titles are set by the game in its language (`log_title`,
    `scores_title`).
    """

    def __init__(self, table: TableView, side: QWidget | None = None, clock: Clock = SYSTEM,
                 side_width: int = 420, parent: QWidget | None = None):
        super().__init__(parent)
        self.table = table
        self.scores_title = QLabel()
        self.scores = ScoreSheet()
        self.log_title = QLabel()
        self.log = LogPanel()
        self.side = side
        self.side_width = side_width
        column = self._column_widget = QWidget()
        # The floor only: a wide minimum here would stop the window shrinking to a small
        # screen at all; resizeEvent widens the column when there is room.
        column.setMinimumWidth(SIDE_MIN_WIDTH)
        v = self._column = QVBoxLayout(column)
        v.setContentsMargins(4, 0, 0, 0)
        if side is not None:
            v.addWidget(side, 0)
        v.addWidget(self.scores_title)
        v.addWidget(self.scores, 1)
        v.addWidget(self.log_title)
        v.addWidget(self.log, 2)
        self.show_scores(False)
        split = QSplitter()
        split.addWidget(table)
        split.addWidget(column)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(split)

    def resizeEvent(self, event) -> None:
        # On a small screen the table needs the room more than the side column does.
        self._column_widget.setMinimumWidth(max(SIDE_MIN_WIDTH, min(self.side_width, int(self.width() * 0.3))))
        super().resizeEvent(event)

    def set_side_stretch(self, stretch: int) -> None:
        """How much of the column's height the game's widget takes (0: its natural
        height; the log takes 2 parts, a shown score sheet 1)."""
        if self.side is not None:
            self._column.setStretchFactor(self.side, stretch)

    def show_scores(self, on: bool) -> None:
        self.scores_title.setVisible(on)
        self.scores.setVisible(on)


# --------------------------------------------------------------------------- a turn game, wired up

class TurnTable(QObject):
    """Plays a turn-based session at a `TableShell`: the glue every turn game would repeat.

    *session* is a `trainer.games.turn_session.TurnSession` (a protocol `Session`
    with ``legal(seat)``, ``waiting_for()``, ``to_act(seat)``, ``turn_left()``).
    The session decides everything, and when: the table calls ``tick()`` when
    ``next_due()`` comes (the CPUs' paced moves, a turn's time-out) and draws.
    *me* is the person's seat (its log and view are shown). What the game still says:

    - *action_for(seat, item, legal)*: the action a click on *item* (from the
      table's ``item_at``) means (usually one of *legal*; another action is sent
      to the session, whose refusal is shown), or None (the click does nothing);
    - *words(event)*: an event's log line (default `event_text.describe`;
      None leaves it out).

    *cpu_delay_s* and *pause_after* ({event kind: seconds}) set the session's
    pace, so a person can follow the CPUs. ``changed`` fires after every change
    (redraw from ``session.view(me)``), ``refused(message)`` when the session
    refuses a person's action (worded by `describe_refusal` in the interface
    language), ``finished`` once the game is over.
    """

    changed = Signal()
    refused = Signal(str)
    finished = Signal()

    def __init__(self, shell: "TableShell", session: Any, me: int | None,
                 action_for: Any, words: Any = None, cpu_delay_s: float = 0.6,
                 pause_after: dict[str, float] | None = None, parent: QObject | None = None):
        super().__init__(parent or shell)
        if words is None:
            from trainer.text.events import describe
            words = describe
        self.shell, self.session, self.me = shell, session, me
        self.action_for, self.words = action_for, words
        session.set_pace(cpu_delay_s, pause_after)
        self._logged = 0
        self._due = QTimer(self, singleShot=True)       # the session's next_due()
        self._due.timeout.connect(self._tick)
        self._bar = QTimer(self, interval=100)          # a running turn timer: its bar, its end
        self._bar.timeout.connect(self._poll)
        shell.table.clicked.connect(self._clicked)

    @property
    def cpu_delay_s(self) -> float:
        return self.session.cpu_delay

    @cpu_delay_s.setter
    def cpu_delay_s(self, seconds: float) -> None:
        self.session.set_pace(seconds)
        self._schedule()

    def start(self) -> None:
        self._changed()

    def stop(self) -> None:
        self._due.stop()
        self._bar.stop()

    def _clicked(self, seat: int, item: Any, at: float) -> None:
        if self.session.is_over():
            return
        action = self.action_for(seat, item, self.session.legal(seat))
        if action is None:
            return
        refusal = self.session.why_illegal(seat, action)
        if refusal is not None:
            from trainer.text.refusals import describe_refusal
            self.refused.emit(describe_refusal(refusal))
            return
        self.session.act(seat, action)
        self._changed()

    def _step(self) -> None:
        """The next CPU (or reader) move now, whatever the pace (tests step the table by hand)."""
        if self.session.step():
            self._changed()

    def _tick(self) -> None:
        if self.session.tick():
            self._changed()
        else:
            self._schedule()

    def _poll(self) -> None:
        due = self.session.next_due()
        if due is not None and due <= self.session.clock.now():
            self._tick()
        else:
            self._show_timer()

    def _show_timer(self) -> None:
        left, total = self.session.turn_left(), self.session.turn_seconds
        self.shell.table.timer_fraction = None if left is None or not total else left / total
        self.shell.table.update()

    def _schedule(self) -> None:
        """Wake up when the session next needs the clock (a CPU's move, a turn running out)."""
        due = self.session.next_due()
        if due is None or self.session.is_over():
            self._due.stop()
        else:
            self._due.start(max(0, round((due - self.session.clock.now()) * 1000)))
        if self.session.turn_left() is not None:
            self._bar.start()
        else:
            self._bar.stop()

    def _changed(self) -> None:
        seat = self.me if self.me is not None else 0
        log = self.session.log_for(seat)
        self.shell.log.add_lines([self.words(e) for e in log[self._logged:]])
        self._logged = len(log)
        self.shell.table.active_seat = self.session.to_act(seat)   # as the person may know it
        self._show_timer()
        self.changed.emit()
        self.shell.table.refresh()
        if self.session.is_over():
            self.stop()
            self.finished.emit()
        else:
            self._schedule()


__all__ = ["RING", "ROWS", "HEADER_H", "TableView", "TableShell", "TurnTable", "LogPanel",
           "ScoreSheet", "seat_boxes", "centre_of", "paint_card_back", "paint_outline", "paint_seal"]
