"""The Mubeyama table: every seat's torifuda as its ruleset lays them out, clickable.

Draws only a `MubeyamaView` (what one seat, or an onlooker, may see): a
gambling game's hidden peak card comes as a slot without a number and is
drawn as a card back, except in its owner's own view. Layouts:

- Okayama: the 5×5 or 4×4 grid;
- Izumoji ("arranged by the player"): the engine keeps one row; drawn wrapped
  into rows of 5 (20 cards) or 4 (16), received cards at the end, more per row
  when passes have made a layout grow;
- gambling: the pyramid 1 (hidden) / 4 / 5 / 7 / 8, or 4 / 6 / 7 / 8, or the
  truncated 3 / 4 / 6 / 7, rows centred; a finished row gets a check mark.

Face-up torifuda show the shimo-no-ku as printed (`trainer.ui.torifuda`);
face-down ones are card backs with the poem number small in a corner (it was
read aloud, everyone heard it). A passed card flies from giver to receiver
and stays outlined until the next reading.

It is a `trainer.ui.table_shell.TableView` (seat boxes, headers, the active
seat, card backs, clicks stamped on the clock come from the shell) that draws
only the layouts. ``slot_clicked(seat, no, time)`` reports a press (*no* 0 for
a face-down hidden card whose number this view does not know). It judges nothing.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt, QVariantAnimation, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPixmap

import poems
from trainer.games.protocol import GameEvent
from trainer.rules.mubeyama import MubeyamaView, Passed, SlotView
from trainer.ui.kimariji_text import SPELLING, static_text
from trainer.ui.table_shell import ROWS, TableView, paint_card_back, paint_outline, paint_seal
from trainer.ui.torifuda import ASPECT, paint_torifuda, torifuda_columns

HIDDEN = QColor("#6a3d9a")
PASS_COLOUR = QColor("#e67e22")
HINT_COLOUR = QColor("#f1c40f")
LINE_COLOUR = QColor("#d4a017")
DONE_COLOUR = QColor("#2e8b57")
FLY_MS = 650

UNKNOWN = 0   # slot number reported for a face-down card this view cannot name


GAP = 0.06      # between cards, of a card's width: wider gaps cost 1-2 px of kana at 1600×1000


LEGIBLE_KANA_PX = 10
"""A card too small for its whole shimo-no-ku at this size shows its beginning (four seats of
25 cards on a 1024×700 screen): a player reads two kana rather than guessing at fourteen specks."""


def wrapped_rows(rows, wrap: int | None):
    """Izumoji's single row, wrapped for the screen; other layouts as they are."""
    if not wrap or len(rows) != 1:
        return [list(r) for r in rows]
    row = list(rows[0])
    return [row[i:i + wrap] for i in range(0, len(row), wrap)] or [[]]


class TableWidget(TableView):
    """Mubeyama's drawing inside the shared table: every seat's layout in its box."""

    slot_clicked = Signal(int, int, float)   # seat, poem (0: unknown hidden card), clock time

    def __init__(self, parent=None):
        super().__init__(arrangement=ROWS, parent=parent)
        self.view: MubeyamaView | None = None
        self.wrap: int | None = None
        self.row_marks = False           # gambling: tick finished rows
        self.grid_side: int | None = None  # Okayama
        self.has_peak = False            # the 4-player gambling game's hidden card
        self.highlights: dict[tuple[int, int], QColor] = {}
        self.hint: tuple[int, int] | None = None
        self.dakuten = False
        self.show_kimariji = False
        self._rects: dict[tuple[int, int], QRectF] = {}
        self._faces: dict[tuple, QPixmap] = {}
        self._hits: list[tuple[QRectF, int, int]] = []
        self._layouts: list[list[list[SlotView]]] = []
        self._flying: list[tuple[int, QRectF, QRectF]] = []
        self._fly_t = 1.0
        self._anim = QVariantAnimation(self, startValue=0.0, endValue=1.0, duration=FLY_MS)
        self._anim.valueChanged.connect(self._fly_step)
        self.clicked.connect(lambda seat, no, at: self.slot_clicked.emit(seat, no, at))
        self.setMinimumSize(640, 420)

    # -- what to draw ---------------------------------------------------------------------------
    def set_view(self, view: MubeyamaView, events: Sequence[GameEvent] = ()) -> None:
        """Show *view*; pass events among *events* fly from giver to receiver."""
        before = dict(self._rects)
        self.view = view
        layout = view.layout
        self.wrap, self.grid_side = layout.wrap, layout.grid_side
        self.row_marks, self.has_peak = layout.pays_rows, layout.has_peak
        self.seat_count = view.players
        self._relayout()
        flights = []
        for e in events:
            if isinstance(e, Passed) and (e.seat, e.no) in before and (e.to, e.no) in self._rects:
                flights.append((e.no, before[(e.seat, e.no)], self._rects[(e.to, e.no)]))
                self.highlights[(e.to, e.no)] = PASS_COLOUR
        if flights:
            self._flying = flights
            self._fly_t = 0.0
            self._anim.stop()
            self._anim.start()
        self.update()

    def _fly_step(self, value) -> None:
        self._fly_t = float(value)
        if self._fly_t >= 1.0:
            self._flying = []
        self.update()

    def flying(self) -> bool:
        return bool(self._flying)

    # -- geometry (the shell's `place` hook) ------------------------------------------------------
    def place(self, seats: list[QRectF], centre: QRectF, hand: QRectF) -> None:
        """Place every slot: one card size for all seats, rows centred in each box."""
        self._rects.clear()
        self._hits = []
        if self.view is None:
            return
        layouts = [wrapped_rows(t.rows, self._wrap_for(box, t.rows)) for box, t in zip(seats, self.view.tables)]
        card_w = min(self._card_width(box, rows) for box, rows in zip(seats, layouts))
        card_h = card_w / ASPECT
        gap = card_w * GAP
        for seat, (area, rows) in enumerate(zip(seats, layouts)):
            total_h = len(rows) * card_h + (len(rows) - 1) * gap
            y = area.top() + max(0.0, (area.height() - total_h) / 2)
            for row in rows:
                row_w = len(row) * card_w + max(0, len(row) - 1) * gap
                x = area.left() + (area.width() - row_w) / 2
                for slot in row:
                    rect = QRectF(x, y, card_w, card_h)
                    key = slot.no if slot.no is not None else UNKNOWN
                    self._rects[(seat, key)] = rect
                    self._hits.append((rect, seat, key))
                    x += card_w + gap
                y += card_h + gap
        self._layouts = layouts

    def _wrap_for(self, box: QRectF, rows) -> int | None:
        """Cards per row of a free layout: at least `wrap`, more when passes have made it
        grow, whichever gives the largest cards in this seat's box."""
        if not self.wrap or len(rows) != 1:
            return self.wrap
        n = len(rows[0])
        best = max(range(self.wrap, max(self.wrap, n) + 1),
                   key=lambda c: (self._card_width(box, [[None] * c] * -(-n // c)), -c))
        return best

    @staticmethod
    def _card_width(box: QRectF, rows) -> float:
        cols = max((len(r) for r in rows), default=1) or 1
        area_w = box.width() - 26      # room for a row's check mark
        area_h = box.height()
        by_w = area_w / (cols + (cols - 1) * GAP)
        by_h = area_h / (len(rows) + (len(rows) - 1) * GAP) * ASPECT
        return max(12.0, min(by_w, by_h, 120.0))

    def slot_rect(self, seat: int, no: int) -> QRectF | None:
        return self._rects.get((seat, no))

    def slot_centre(self, seat: int, no: int) -> QPointF:
        """Where to click for *seat*'s card *no* (tests, demos)."""
        return self._rects[(seat, no)].center()

    def slot_at(self, pos: QPointF) -> tuple[int, int] | None:
        for rect, seat, no in self._hits:
            if rect.contains(pos):
                return seat, no
        return None

    item_at = slot_at   # the shell's hit-test hook

    # -- painting (the shell's hooks) ---------------------------------------------------------------
    def paint_seat(self, p: QPainter, seat: int, rect: QRectF) -> None:
        if self.view is None or seat >= len(self._layouts):
            return
        moving = {no for no, _, _ in self._flying}
        lines = self._finished_lines()
        table = self.view.tables[seat]
        for r, row in enumerate(self._layouts[seat]):
            for slot in row:
                key = slot.no if slot.no is not None else UNKNOWN
                at = self._rects.get((seat, key))
                if at is None or (slot.no in moving and slot.face_up):
                    continue
                self._paint_slot(p, seat, slot, at, (seat, key) in lines)
            if self.row_marks and r < len(table.rows_done) and table.rows_done[r] and \
                    not (self.has_peak and r == 0):
                self._paint_check(p, seat, row)

    def paint_over(self, p: QPainter) -> None:
        """Passed cards in flight from giver to receiver."""
        for no, a, b in self._flying:
            ease = 1 - (1 - self._fly_t) ** 3
            rect = QRectF(a.x() + (b.x() - a.x()) * ease, a.y() + (b.y() - a.y()) * ease,
                          a.width() + (b.width() - a.width()) * ease,
                          a.height() + (b.height() - a.height()) * ease)
            self._paint_face(p, no, rect.adjusted(-3, -3, 3, 3), highlight=PASS_COLOUR)

    def _paint_slot(self, p: QPainter, seat: int, slot: SlotView, rect: QRectF, on_line: bool) -> None:
        key = slot.no if slot.no is not None else UNKNOWN
        highlight = self.highlights.get((seat, key))
        if self.hint == (seat, key):
            highlight = HINT_COLOUR
        if on_line:
            highlight = LINE_COLOUR
        if slot.face_up and slot.no is not None:       # face up: its number is known to all
            self._paint_face(p, slot.no, rect, highlight=highlight)
        elif slot.hidden and slot.no is not None:
            # The owner's own view of its hidden card: the face, marked as still hidden.
            self._paint_face(p, slot.no, rect, highlight=highlight or HIDDEN, dimmed=True)
            paint_seal(p, rect, "伏", HIDDEN)
        elif slot.hidden:
            paint_card_back(p, rect, None, highlight)
            paint_seal(p, rect, "伏", HIDDEN)
        elif slot.no is not None and not slot.face_up and self._revealed(seat, slot):
            self._paint_face(p, slot.no, rect, highlight=highlight or HIDDEN)
        else:
            paint_card_back(p, rect, slot.no, highlight)   # read aloud: everyone knows its number

    def _revealed(self, seat: int, slot: SlotView) -> bool:
        """A hidden card whose poem was read and which its owner has shown: the peak, named."""
        return self.has_peak and self.view is not None and self.view.tables[seat].rows[0][0] == slot

    def _paint_face(self, p: QPainter, no: int, rect: QRectF, highlight=None, dimmed=False) -> None:
        p.drawPixmap(rect.topLeft(), self._face_pixmap(no, rect.width(), rect.height(), dimmed))
        if highlight is not None:
            paint_outline(p, rect, highlight)

    def _face_pixmap(self, no: int, w: float, h: float, dimmed: bool) -> QPixmap:
        """One card's face, drawn once per size: a table repaints 100 cards per animation frame."""
        ratio = self.devicePixelRatioF()
        key = (no, round(w * ratio), round(h * ratio), dimmed, self.show_kimariji and SPELLING.code,
               self.dakuten)
        pix = self._faces.get(key)
        if pix is None:
            if len(self._faces) > 600:
                self._faces.clear()
            poem = poems.get(no)
            pix = QPixmap(key[1], key[2])
            pix.setDevicePixelRatio(ratio)
            pix.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pix)
            paint_torifuda(painter, QRectF(0, 0, w, h),
                           torifuda_columns(poem.shimo_kana, dakuten=self.dakuten),
                           kimariji=static_text(no) if self.show_kimariji else None, dimmed=dimmed,
                           legible_px=LEGIBLE_KANA_PX)
            painter.end()
            self._faces[key] = pix
        return pix

    def _paint_check(self, p: QPainter, seat: int, row) -> None:
        first = next((s for s in row), None)
        if first is None:
            return
        key = first.no if first.no is not None else UNKNOWN
        rect = self._rects.get((seat, key))
        if rect is None:
            return
        p.save()
        f = QFont()
        f.setPixelSize(int(min(22, rect.height() * 0.4)))
        f.setBold(True)
        p.setFont(f)
        p.setPen(DONE_COLOUR)
        p.drawText(QRectF(rect.left() - 26, rect.top(), 24, rect.height()), Qt.AlignmentFlag.AlignCenter, "✓")
        p.restore()

    def _finished_lines(self) -> set[tuple[int, int]]:
        """Okayama: the slots of the face-down line that won (the engine names it in the view)."""
        if self.view is None:
            return set()
        return {(seat, no) for seat, cards in self.view.lines for no in cards}


__all__ = ["TableWidget", "wrapped_rows", "UNKNOWN"]
