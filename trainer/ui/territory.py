"""The floor: both territories (陣) drawn to scale, clickable, and arrangeable.

Geometry follows the kyōgi layout: each side's territory is 87 cm wide and
holds its cards in three rows 1 cm apart (上段 next to the centre line, 中段,
下段 nearest the player); the two territories are 3 cm apart; in every row
cards stand at the left or right end.  The opponent's side is drawn rotated
by 180°, so their left is our right and their cards read upside down.

The widget shows a ``Floor`` (two `trainer.rules.territory.Territory`) and reports what the
user does: ``touched(card, perf_counter_time)`` on a press (``clock``, replaceable), ``arranged()``
after a drag-and-drop moved one of the player's own cards.  It judges nothing.

When a press is stamped: when Qt delivers it, unless the GUI thread was busy
(a repaint, a garbage collection, another program on the CPU) and the window
system's own timestamp shows the press is older.  On X11 and Wayland that
timestamp is CLOCK_MONOTONIC in whole ms, the clock perf_counter reads on
Linux, so the press happened before its timestamp + 1 ms: the stamp is the
earlier of that and the delivery time (see `press_delay`).  Measured on Xvfb
under load (tests/test_xvfb_match.py): one press of six was delivered 52 ms
late; stamped this way every one is within ~2 ms of the real click.
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from trainer.rules.territory import COLUMNS, ROWS, LayoutError, Place, Territory
from trainer.ui.torifuda import CARD_H_MM, CARD_W_MM, paint_torifuda, torifuda_columns
from trainer.ui.kimariji_text import SPELLING, static_text

TERRITORY_W_MM = 870.0
ROW_GAP_MM = 10.0
CENTRE_GAP_MM = 30.0
MARGIN_MM = 8.0     # tatami around the territories: enough to frame them, no more (space goes to the cards)
COLUMN_STEP_MM = (TERRITORY_W_MM - CARD_W_MM) / (COLUMNS - 1)   # 16 slots, the outer ones at the edges
SIDE_H_MM = ROWS * CARD_H_MM + (ROWS - 1) * ROW_GAP_MM
FLOOR_W_MM = TERRITORY_W_MM + 2 * MARGIN_MM
FLOOR_H_MM = 2 * SIDE_H_MM + CENTRE_GAP_MM + 2 * MARGIN_MM

TATAMI = QColor("#c9b77c")
TATAMI_LINE = QColor("#b3a166")
LINE = QColor(90, 70, 40, 120)


ArrangementError = LayoutError


# -- saved arrangements -------------------------------------------------------------------------

def _arrangements_dir() -> Path:
    from trainer.paths import sub_dir
    return sub_dir("arrangements")


def _safe_name(name: str) -> str:
    name = re.sub(r"[^\w\- ]", "_", name.strip())[:60]
    if not name:
        raise ArrangementError("give the arrangement a name")
    return name


def save_arrangement(name: str, side: Territory) -> Path:
    """Save an arrangement: which cards in which row and end, in order."""
    side.validate()
    from trainer.safe_files import write_atomic
    path = _arrangements_dir() / f"{_safe_name(name)}.json"
    write_atomic(path, json.dumps({"name": name, **side.to_json()}, ensure_ascii=False,
                                  indent=1).encode("utf-8"))
    return path


def list_arrangements() -> list[str]:
    return sorted(p.stem for p in _arrangements_dir().glob("*.json"))


def load_arrangement(name: str) -> Territory:
    path = _arrangements_dir() / f"{_safe_name(name)}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ArrangementError(f"cannot read arrangement {name!r}: {exc}") from exc
    return Territory.from_json(data)


def reuse_arrangement(saved: Territory, dealt) -> Territory:
    """Apply a saved arrangement to a new deal.

    Cards of the saved layout that were dealt again keep their place; the slots
    of the others are filled, in order, by the newly dealt cards, so the shape
    of the layout (how many cards in which row and end) is kept.
    """
    dealt = list(dealt)
    dealt_set = set(dealt)
    newcomers = [c for c in dealt if c not in set(saved.cards())]

    def refill(group) -> list[int]:
        out = []
        for c in group:
            if c in dealt_set:
                out.append(c)
            elif newcomers:
                out.append(newcomers.pop(0))
        return out

    rows = [(refill(left), refill(right)) for left, right in saved.rows()]   # left first, as laid
    side = Territory(rows)
    for c in newcomers:
        side.add(c)
    return side


# -- the widget -----------------------------------------------------------------------------------

@dataclass
class Floor:
    """What the floor shows: the player's side ("own") and the opponent's ("opp")."""
    own: Territory = field(default_factory=Territory)
    opp: Territory = field(default_factory=Territory)


class TerritoryWidget(QWidget):
    """Both territories to scale.  Emits touches with a perf_counter stamp."""

    touched = Signal(int, float)      # card number, time.perf_counter() of the press
    floor_touched = Signal(float)     # a press on no card (a swing at empty floor)
    arranged = Signal()

    def __init__(self, poem_lookup=None, parent=None):
        super().__init__(parent)
        self.floor = Floor()
        self._poem = poem_lookup or _default_poem_lookup
        self.show_kimariji = False
        self.dakuten = False
        self.arranging = False            # drag-and-drop of own cards allowed
        self.interactive = True           # presses emit touched
        self.clock = time.perf_counter    # stamps presses; the session clock (fake in tests)
        self.highlights: dict[int, QColor] = {}
        self.dimmed: set[int] = set()
        self.caption = ""                 # large text drawn over the centre line
        self._drag: tuple[int, QPointF] | None = None
        self._rects: dict[int, tuple[bool, QRectF]] = {}
        self._rects_key = None
        self._card_cache: dict[tuple, QPixmap] = {}   # drawn torifuda: text layout is the slow part
        self._background: QPixmap | None = None
        self._drag_pos = QPointF()
        self.setMouseTracking(False)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(480, 300)

    # -- model -------------------------------------------------------------------------------
    def set_floor(self, floor: Floor) -> None:
        self.floor = floor
        self.update()

    def set_options(self, *, show_kimariji: bool | None = None, dakuten: bool | None = None) -> None:
        if show_kimariji is not None:
            self.show_kimariji = show_kimariji
        if dakuten is not None:
            self.dakuten = dakuten
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(1200, round(1200 * FLOOR_H_MM / FLOOR_W_MM))

    # -- geometry (mm on the floor → pixels) -------------------------------------------------
    def _scale(self) -> float:
        """Pixels per mm: the whole floor as large as the widget allows, to scale (the
        cards keep the torifuda's 52 × 73 aspect, and their kana grow with them)."""
        return min(self.width() / FLOOR_W_MM, self.height() / FLOOR_H_MM)

    def _origin(self) -> QPointF:
        s = self._scale()
        return QPointF((self.width() - FLOOR_W_MM * s) / 2, (self.height() - FLOOR_H_MM * s) / 2)

    def _slot_mm(self, own: bool, row: int, column: int) -> QRectF:
        """Rectangle (mm, floor coordinates, y down) of a card slot; column from the owner's left."""
        centre_y = MARGIN_MM + SIDE_H_MM + CENTRE_GAP_MM / 2
        row_off = CENTRE_GAP_MM / 2 + row * (CARD_H_MM + ROW_GAP_MM)
        x_owner = column * COLUMN_STEP_MM
        if own:
            return QRectF(MARGIN_MM + x_owner, centre_y + row_off, CARD_W_MM, CARD_H_MM)
        # Rotated by 180°: the owner's left is at our right, their 上段 by the centre line.
        x = MARGIN_MM + TERRITORY_W_MM - x_owner - CARD_W_MM
        return QRectF(x, centre_y - row_off - CARD_H_MM, CARD_W_MM, CARD_H_MM)

    def _to_px(self, r: QRectF) -> QRectF:
        s, o = self._scale(), self._origin()
        return QRectF(o.x() + r.x() * s, o.y() + r.y() * s, r.width() * s, r.height() * s)

    def card_rects(self) -> dict[int, tuple[bool, QRectF]]:
        """Every card on the floor → (is own, pixel rectangle).  Cached: a press is hit-tested
        before it is answered, so this must be cheap."""
        key = (self.width(), self.height(), self.floor.own.rows(), self.floor.opp.rows())
        if self._rects_key != key:
            out = {}
            for own, side in ((True, self.floor.own), (False, self.floor.opp)):
                for card, row, column in side.slots():
                    out[card] = (own, self._to_px(self._slot_mm(own, row, column)))
            self._rects, self._rects_key = out, key
        return {card: (own, QRectF(rect)) for card, (own, rect) in self._rects.items()}

    def card_at(self, pos: QPointF) -> int | None:
        self.card_rects()
        for card, (_, rect) in self._rects.items():
            if rect.contains(pos):
                return card
        return None

    def card_centre(self, card: int) -> QPointF:
        return self.card_rects()[card][1].center()

    def _drop_target(self, pos: QPointF) -> Place | None:
        """Where in the player's own side a card dropped at ``pos`` goes."""
        s, o = self._scale(), self._origin()
        x_mm = (pos.x() - o.x()) / s - MARGIN_MM
        y_mm = (pos.y() - o.y()) / s
        centre_y = MARGIN_MM + SIDE_H_MM + CENTRE_GAP_MM / 2
        dy = y_mm - centre_y - CENTRE_GAP_MM / 2
        if dy < -CENTRE_GAP_MM / 2 or x_mm < -MARGIN_MM or x_mm > TERRITORY_W_MM + MARGIN_MM:
            return None
        row = max(0, min(ROWS - 1, int(dy // (CARD_H_MM + ROW_GAP_MM))))
        column = max(0, min(COLUMNS - 1, round((x_mm - CARD_W_MM / 2) / COLUMN_STEP_MM)))
        if column < COLUMNS / 2:
            return Place(row, "left", column)
        return Place(row, "right", COLUMNS - 1 - column)

    # -- input -------------------------------------------------------------------------------
    def mousePressEvent(self, event):
        stamp = self.clock() - press_delay(event)
        if event.button() != Qt.MouseButton.LeftButton:
            return
        pos = event.position()
        card = self.card_at(pos)
        if self.arranging:
            if card is not None and card in self.floor.own.cards():
                self._drag = (card, pos)
                self._drag_pos = pos
            return
        if not self.interactive:
            return
        if card is None:
            self.floor_touched.emit(stamp)
        else:
            self.touched.emit(card, stamp)

    def mouseMoveEvent(self, event):
        if self._drag is not None:
            self._drag_pos = event.position()
            self.update()

    def mouseReleaseEvent(self, event):
        if self._drag is None:
            return
        card, _ = self._drag
        self._drag = None
        target = self._drop_target(event.position())
        if target is not None:
            self.move_card(card, target)
        self.update()

    def move_card(self, card: int, place: Place) -> bool:
        """Move one of the player's own cards; refuses (returns False) if the row is full."""
        try:
            self.floor.own.move(card, place)
        except LayoutError:
            return False
        self.update()
        self.arranged.emit()
        return True

    # -- painting ----------------------------------------------------------------------------
    def paintEvent(self, event):
        p = QPainter(self)
        p.drawPixmap(0, 0, self._floor_background())
        s = self._scale()
        floor_rect = self._to_px(QRectF(0, 0, FLOOR_W_MM, FLOOR_H_MM))
        centre = self._to_px(QRectF(MARGIN_MM, MARGIN_MM + SIDE_H_MM + CENTRE_GAP_MM / 2, TERRITORY_W_MM, 0))
        dragging = self._drag[0] if self._drag else None
        rects = self.card_rects()
        for card, (own, rect) in rects.items():
            if card != dragging:
                self._paint_card(p, card, rect, upside_down=not own)
        if dragging is not None:
            rect = rects[dragging][1]
            rect.moveCenter(self._drag_pos)
            p.setOpacity(0.85)
            self._paint_card(p, dragging, rect, upside_down=False)
            p.setOpacity(1.0)
        if self.caption:
            font = QFont()
            font.setPixelSize(max(14, int(26 * s)))
            font.setBold(True)
            p.setFont(font)
            band = QRectF(floor_rect.left(), centre.top() - 22 * s, floor_rect.width(), 44 * s)
            p.fillRect(band, QColor(255, 255, 255, 170))
            p.setPen(QColor("#222"))
            p.drawText(band, Qt.AlignmentFlag.AlignCenter, self.caption)
        p.end()

    def _floor_background(self) -> QPixmap:
        """Tatami and the centre line, drawn once per size."""
        ratio = self.devicePixelRatioF()
        size = self.size()
        bg = self._background
        if bg is not None and bg.size() == size * ratio:
            return bg
        bg = QPixmap(size * ratio)
        bg.setDevicePixelRatio(ratio)
        p = QPainter(bg)
        p.fillRect(QRectF(0, 0, size.width(), size.height()), TATAMI.darker(115))
        floor_rect = self._to_px(QRectF(0, 0, FLOOR_W_MM, FLOOR_H_MM))
        p.fillRect(floor_rect, TATAMI)
        p.setPen(QPen(TATAMI_LINE, 1))
        s = self._scale()
        y = floor_rect.top()
        while y < floor_rect.bottom():     # the weave of the tatami
            p.drawLine(QPointF(floor_rect.left(), y), QPointF(floor_rect.right(), y))
            y += max(3.0, 6 * s)
        centre = self._to_px(QRectF(MARGIN_MM, MARGIN_MM + SIDE_H_MM + CENTRE_GAP_MM / 2, TERRITORY_W_MM, 0))
        p.setPen(QPen(LINE, 1, Qt.PenStyle.DashLine))
        p.drawLine(centre.topLeft(), centre.topRight())
        p.end()
        self._background = bg
        return bg

    def _card_pixmap(self, card: int, w: int, h: int, upside_down: bool) -> QPixmap:
        ratio = self.devicePixelRatioF()
        key = (card, w, h, upside_down, self.show_kimariji and SPELLING.code, self.dakuten, ratio)
        pix = self._card_cache.get(key)
        if pix is None:
            if len(self._card_cache) > 400:      # sizes change on resize: drop the old ones
                self._card_cache.clear()
            poem = self._poem(card)
            pix = QPixmap(round(w * ratio), round(h * ratio))
            pix.setDevicePixelRatio(ratio)
            pix.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pix)
            paint_torifuda(painter, QRectF(0, 0, w, h), torifuda_columns(poem.shimo_kana, dakuten=self.dakuten),
                           kimariji=static_text(poem.no) if self.show_kimariji else None,
                           upside_down=upside_down)
            painter.end()
            self._card_cache[key] = pix
        return pix

    def _paint_card(self, p: QPainter, card: int, rect: QRectF, upside_down: bool) -> None:
        w, h = max(1, round(rect.width())), max(1, round(rect.height()))
        p.drawPixmap(round(rect.x()), round(rect.y()), self._card_pixmap(card, w, h, upside_down))
        highlight = self.highlights.get(card)
        if card in self.dimmed or highlight is not None:
            p.save()
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            radius = rect.width() * 0.05
            if card in self.dimmed:
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(QColor(40, 40, 40, 110))
                p.drawRoundedRect(rect, radius, radius)
            if highlight is not None:
                p.setPen(QPen(highlight, max(2.0, rect.width() * 0.06)))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(rect, radius, radius)
            p.restore()


# Window systems whose input timestamps are CLOCK_MONOTONIC milliseconds (32 bits on X11).
MONOTONIC_MS_PLATFORMS = ("xcb", "wayland")
_TS_WRAP = 1 << 32
_TS_RESOLUTION_MS = 1.0      # the timestamp is the ms the press happened in, truncated
_TS_PLAUSIBLE_MS = 2000.0    # a larger gap means another epoch (synthetic or foreign timestamps)


def press_delay(event) -> float:
    """Seconds between an input event and now, beyond the delivery a free GUI thread gives.

    0 unless the platform's timestamps are CLOCK_MONOTONIC ms (perf_counter's clock on
    Linux) and say the event is more than a timestamp's resolution old. Synthetic
    events (tests, offscreen) have other timestamps: 0.
    """
    from PySide6.QtGui import QGuiApplication
    if QGuiApplication.instance() is None or QGuiApplication.platformName() not in MONOTONIC_MS_PLATFORMS:
        return 0.0
    age_ms = (time.perf_counter() * 1000.0 - event.timestamp()) % _TS_WRAP
    if age_ms > _TS_PLAUSIBLE_MS:
        return 0.0
    return max(0.0, age_ms - _TS_RESOLUTION_MS) / 1000.0


def _default_poem_lookup(no: int):
    import poems
    return poems.get(no)
