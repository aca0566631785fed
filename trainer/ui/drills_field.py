"""Small fields of torifuda for the drills: a grid of places, and one card shown large.

``CardField`` lays cards on a grid of places (row, column) on tatami, with
gaps where a place is empty, as in the positional-memory drill; cards can be
shown face down (伏せ札) and revealed one by one. A press is stamped with the
field's clock when Qt delivers it (``time.perf_counter`` unless a test gives
a fake clock) and reported as ``slot_touched(row, column, t)`` and, on a card,
``touched(card, t)``. It judges nothing.

``TorifudaView`` shows one torifuda as large as the widget allows, upright or
upside down (as half the cards on a real floor face the other way).
Both draw with ``trainer.ui.torifuda.paint_torifuda``.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from audio.clock import SYSTEM
from trainer.ui.territory import TATAMI, TATAMI_LINE
from trainer.ui.kimariji_text import static_text
from trainer.ui.torifuda import ASPECT, GREEN, paint_torifuda, torifuda_columns

Slot = tuple[int, int]
RIGHT_COLOUR = QColor("#1a73e8")   # blue: a green band would vanish in the green border
WRONG_COLOUR = QColor("#c5221f")
CUE_COLOUR = QColor("#f9ab00")
BACK = QColor("#7a3b1d")          # the back of a card: plain, as on real karuta


def _poem(no: int):
    import poems
    return poems.get(no)


class CardField(QWidget):
    slot_touched = Signal(int, int, float)   # row, column, clock time at delivery
    touched = Signal(int, float)             # card at that place (if any), same time

    def __init__(self, clock=SYSTEM, parent=None):
        super().__init__(parent)
        self.clock = clock
        self.rows, self.columns = 1, 1
        self.cards: dict[Slot, int | None] = {}
        self.face_down = False
        self.revealed: set[Slot] = set()     # face up even while the field is face down
        self.highlights: dict[Slot, QColor] = {}
        self.upside_down: set[Slot] = set()
        self.show_kimariji = False
        self.dakuten = False
        self.interactive = True
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(360, 200)

    # -- model -------------------------------------------------------------------------------
    def set_grid(self, rows: int, columns: int, cards: dict[Slot, int | None]) -> None:
        self.rows, self.columns = max(1, rows), max(1, columns)
        self.cards = dict(cards)
        self.revealed.clear()
        self.highlights.clear()
        self.upside_down.clear()
        self.update()

    def set_row(self, cards, per_row: int | None = None) -> None:
        """Lay a list of cards in reading order over as few rows as fit ``per_row``."""
        cards = list(cards)
        per_row = per_row or len(cards) or 1
        rows = (len(cards) + per_row - 1) // per_row
        self.set_grid(rows, min(per_row, max(1, len(cards))),
                      {(k // per_row, k % per_row): c for k, c in enumerate(cards)})

    def slot_of(self, card: int) -> Slot | None:
        return next((s for s, c in self.cards.items() if c == card), None)

    def highlight(self, slot: Slot | None, colour: QColor | None) -> None:
        if slot is None:
            return
        if colour is None:
            self.highlights.pop(slot, None)
        else:
            self.highlights[slot] = colour
        self.update()

    def remove(self, slot: Slot) -> None:
        self.cards.pop(slot, None)
        self.revealed.discard(slot)
        self.highlights.pop(slot, None)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(900, 500)

    # -- geometry ----------------------------------------------------------------------------
    def _card_size(self) -> tuple[float, float, float]:
        """Card width, height and the gap between places, fitting the widget."""
        gap_ratio = 0.18
        w_by_width = self.width() / (self.columns + (self.columns + 1) * gap_ratio)
        h_by_height = self.height() / (self.rows + (self.rows + 1) * gap_ratio)
        w = min(w_by_width, h_by_height * ASPECT)
        return w, w / ASPECT, w * gap_ratio

    def slot_rect(self, slot: Slot) -> QRectF:
        w, h, gap = self._card_size()
        total_w = self.columns * w + (self.columns - 1) * gap
        total_h = self.rows * h + (self.rows - 1) * gap
        x0 = (self.width() - total_w) / 2
        y0 = (self.height() - total_h) / 2
        row, col = slot
        return QRectF(x0 + col * (w + gap), y0 + row * (h + gap), w, h)

    def slot_at(self, pos: QPointF) -> Slot | None:
        for slot in self.cards:
            if self.slot_rect(slot).contains(pos):
                return slot
        return None

    def slot_centre(self, slot: Slot) -> QPointF:
        return self.slot_rect(slot).center()

    # -- input -------------------------------------------------------------------------------
    def mousePressEvent(self, event):
        stamp = self.clock()   # when Qt delivers the press: event timestamps are synthetic in tests
        if event.button() != Qt.MouseButton.LeftButton or not self.interactive:
            return
        slot = self.slot_at(event.position())
        if slot is None:
            return
        self.slot_touched.emit(slot[0], slot[1], stamp)
        card = self.cards.get(slot)
        if card is not None:
            self.touched.emit(card, stamp)

    # -- painting ----------------------------------------------------------------------------
    def paintEvent(self, event):
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), TATAMI)
        p.setPen(QPen(TATAMI_LINE, 1))
        for y in range(0, self.height(), 7):     # the weave of the tatami
            p.drawLine(0, y, self.width(), y)
        for slot, card in self.cards.items():
            rect = self.slot_rect(slot)
            if card is None:
                continue
            if slot in self.highlights:
                _paint_halo(p, rect, self.highlights[slot])
            if self.face_down and slot not in self.revealed:
                _paint_back(p, rect)
                continue
            poem = _poem(card)
            paint_torifuda(p, rect, torifuda_columns(poem.shimo_kana, dakuten=self.dakuten),
                           kimariji=static_text(poem.no) if self.show_kimariji else None,
                           upside_down=slot in self.upside_down)
        p.end()


def _paint_halo(p: QPainter, rect: QRectF, colour: QColor) -> None:
    """A thick band around the card: a green outline alone vanishes in the green border."""
    p.save()
    pad = max(4.0, rect.width() * 0.07)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(colour)
    outer = rect.adjusted(-pad, -pad, pad, pad)
    p.drawRoundedRect(outer, pad * 1.5, pad * 1.5)
    p.restore()


def _paint_back(p: QPainter, rect: QRectF) -> None:
    p.save()
    radius = rect.width() * 0.05
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(GREEN)
    p.drawRoundedRect(rect, radius, radius)
    inner = rect.adjusted(rect.width() * 0.07, rect.width() * 0.07,
                          -rect.width() * 0.07, -rect.width() * 0.07)
    p.setBrush(BACK)
    p.drawRoundedRect(inner, radius * 0.5, radius * 0.5)
    p.restore()


class TorifudaView(QWidget):
    """One torifuda, as large as fits, upright or upside down."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.card: int | None = None
        self.upside_down = False
        self.dakuten = False
        self.highlight: QColor | None = None
        self.setMinimumSize(160, 220)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def show_card(self, card: int | None, upside_down: bool = False) -> None:
        self.card, self.upside_down, self.highlight = card, upside_down, None
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(300, 420)

    def paintEvent(self, event):
        p = QPainter(self)
        p.fillRect(self.rect(), TATAMI)
        if self.card is not None:
            h = self.height() * 0.92
            w = min(self.width() * 0.92, h * ASPECT)
            h = w / ASPECT
            rect = QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h)
            poem = _poem(self.card)
            paint_torifuda(p, rect, torifuda_columns(poem.shimo_kana, dakuten=self.dakuten),
                           upside_down=self.upside_down, highlight=self.highlight)
        p.end()
