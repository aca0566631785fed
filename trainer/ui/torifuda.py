"""Drawing a torifuda (取り札): the shimo-no-ku in kana, as printed on the card.

A real torifuda carries only the shimo-no-ku, in hiragana, written vertically
in three columns read right to left, in the block layout of the official cards:
for the usual 14 kana, 5 / 5 / 4 (わかころも / てはつゆに / ぬれつつ).  A poem
that runs over (ji-amari: 15 or 16 kana) fills the columns as evenly as
possible, longest first (5/5/5, 6/5/5).  Official cards omit dakuten
(わかころもては); that is the default here, with dakuten as an option.

The card is cream with a green border, 73 × 52 mm. The kimariji, a beginner's
aid, has a strip of its own down the left edge (`torifuda_layout`): it never
covers the card's text.  The opponent's cards are
drawn upside down, as they lie across a real floor.
"""
from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPainter, QPen

CARD_W_MM = 52.0
CARD_H_MM = 73.0
ASPECT = CARD_W_MM / CARD_H_MM

CREAM = QColor("#f6efd9")
GREEN = QColor("#2f6b3a")
INK = QColor("#1c1a17")
KIMARIJI_RED = QColor("#b3261e")

_VOICING_MARKS = ("\u3099", "\u309a")  # combining dakuten, handakuten


def strip_dakuten(text: str) -> str:
    """がぎぐ → かきく, ぱ → は: the torifuda spelling."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if c not in _VOICING_MARKS))


def torifuda_columns(shimo_kana, dakuten: bool = False) -> list[str]:
    """The three columns of a torifuda, rightmost first.

    >>> torifuda_columns(('わがころもでは', 'つゆにぬれつつ'))
    ['わかころも', 'てはつゆに', 'ぬれつつ']
    """
    text = "".join(shimo_kana)
    if not dakuten:
        text = strip_dakuten(text)
    base, extra = divmod(len(text), 3)
    sizes = [base + (1 if k < extra else 0) for k in range(3)]
    columns, start = [], 0
    for size in sizes:
        columns.append(text[start:start + size])
        start += size
    return columns


@lru_cache(maxsize=1)
def card_font_family() -> str:
    """Noto Serif CJK JP (brush-like mincho) if installed, else Noto Sans CJK JP, else the default."""
    families = set(QFontDatabase.families())
    for name in ("Noto Serif CJK JP", "Noto Sans CJK JP", "IPAexMincho", "IPAMincho"):
        if name in families:
            return name
    return QFont().family()


def paint_torifuda(painter: QPainter, rect: QRectF, columns: list[str], *,
                   kimariji: str | None = None, upside_down: bool = False,
                   highlight: QColor | None = None, dimmed: bool = False,
                   legible_px: int | None = None, tilt: float = 0.0) -> None:
    """Draw one torifuda filling ``rect`` (its aspect is the caller's business).

    With *legible_px*, a card too small for its whole shimo-no-ku at that size shows its
    beginning instead, as many kana as fit at a readable size (see `torifuda_layout`).
    *tilt* is the angle (degrees) the caller has turned the painter by: a kana turned with its
    card stands `upright_px` tall on the screen, and *legible_px* is asked of that height."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.translate(rect.center())
    if upside_down:
        painter.rotate(180)
    w, h = rect.width(), rect.height()
    card = QRectF(-w / 2, -h / 2, w, h)
    radius = w * 0.05

    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(GREEN)
    painter.drawRoundedRect(card, radius, radius)
    face = card_face(card)
    painter.setBrush(CREAM)
    painter.drawRoundedRect(face, radius * 0.5, radius * 0.5)

    layout = torifuda_layout(face, columns, kimariji, legible_px=legible_px, tilt=tilt)
    paint_kana(painter, layout)
    if layout.kimariji_cells and kimariji:
        _paint_kimariji(painter, layout, kimariji)

    if dimmed:
        painter.setBrush(QColor(40, 40, 40, 110))
        painter.drawRoundedRect(card, radius, radius)
    if highlight is not None:
        pen = QPen(highlight, max(2.0, w * 0.06))
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(card, radius, radius)
    painter.restore()


@dataclass(frozen=True)
class TorifudaLayout:
    """Where a card's kana go: one cell per kana of the columns (rightmost column first),
    and, when the kimariji is shown, a strip of its own down the left edge, so the aid
    never covers the card's text."""
    cells: list[list[QRectF]]
    kana_px: int
    kimariji_cells: list[QRectF]
    kimariji_px: int
    columns: list[str] = field(default_factory=list)   # the kana shown, column by column


SMALL_KANA_PX = 10
"""Under this the kana take every pixel of their cells (larger cards keep a margin)."""


def card_face(card: QRectF) -> QRectF:
    """The cream face inside a card's green border."""
    border = max(1.5, card.width() * 0.06)
    return card.adjusted(border, border, -border, -border)


def kana_px_on(w: float, columns: list[str], tilt: float = 0.0) -> float:
    """How tall the kana of a card `w` pixels wide with these columns stand on the screen when
    it lies at `tilt` degrees (all of its text; 0 kimariji)."""
    face = card_face(QRectF(0, 0, w, w / ASPECT))
    return upright_px(_full_layout(face, columns, None).kana_px, tilt)


def upright_px(px: float, tilt: float) -> float:
    """How tall a kana of `px` pixels turned by `tilt` degrees stands on the screen (its
    vertical extent along the card's own axis, as the legibility walk measures it)."""
    return px * math.cos(math.radians(tilt))


def torifuda_layout(face: QRectF, columns: list[str], kimariji: str | None = None,
                    legible_px: int | None = None, tilt: float = 0.0) -> TorifudaLayout:
    """The layout of the kana on the face of a card (see `TorifudaLayout`).

    With *legible_px*, when the whole text would be smaller than that, the card shows the
    beginning of its shimo-no-ku (where a player's eye starts) in as many columns and rows as
    fit at that size, and no kimariji strip: fewer kana a player can read rather than all of
    them as specks (Mubeyama's 100 cards on a 1024×700 screen)."""
    full = _full_layout(face, columns, kimariji)
    if legible_px is None or upright_px(full.kana_px, tilt) >= legible_px:
        return full
    return _lead_layout(face, "".join(columns), legible_px, tilt)


def _lead_layout(face: QRectF, text: str, px: int, tilt: float = 0.0) -> TorifudaLayout:
    pad_x, pad_y = face.width() * 0.04, face.height() * 0.04
    area = face.adjusted(pad_x, pad_y, -pad_x, -pad_y)
    # turned, a kana of em `em` stands em·cos(tilt) tall upright: the em grows to keep `px`. The kana
    # turn with their card, so neighbours in its columns stay a cell apart at any angle.
    em = math.ceil(px / math.cos(math.radians(tilt)) - 1e-9) if tilt else px
    pitch = em
    n_cols = max(1, min(3, int(area.width() * 0.92 // pitch)))
    n_rows = max(1, int(area.height() // pitch))
    text = text[:n_cols * n_rows]
    shown = [text[k * n_rows:(k + 1) * n_rows] for k in range(n_cols)]
    shown = [c for c in shown if c]
    col_w, cell_h = area.width() / n_cols, area.height() / n_rows
    size = max(4, round(min(col_w * 0.92, cell_h))) if not tilt else em
    right = area.center().x() + len(shown) * col_w / 2       # fewer columns sit in the middle
    cells = [[QRectF(right - (k + 1) * col_w, area.top() + r * cell_h, col_w, cell_h) for r in range(len(c))]
             for k, c in enumerate(shown)]
    return TorifudaLayout(cells, size, [], 0, shown)


def _full_layout(face: QRectF, columns: list[str], kimariji: str | None) -> TorifudaLayout:
    rows = max(max((len(c) for c in columns), default=5), 5)
    pad_x, pad_y = face.width() * 0.04, face.height() * 0.04
    area = face.adjusted(pad_x, pad_y, -pad_x, -pad_y)
    strip = QRectF()
    k_cells: list[QRectF] = []
    k_px = 0
    if kimariji:
        # Wide enough for its kana (a 6-kana kimariji still reads), never more than a column.
        strip_w = min(area.width() * 0.24, area.height() / max(4, len(kimariji)) * 1.15)
        strip = QRectF(area.left(), area.top(), strip_w, area.height())
        area = area.adjusted(strip_w, 0, 0, 0)
        k_h = strip.height() / max(4, len(kimariji))
        k_px = max(4, int(min(strip_w * 0.92, k_h * 0.95)))
        k_cells = [QRectF(strip.left(), strip.top() + r * k_h, strip_w, k_h) for r in range(len(kimariji))]
    col_w = area.width() / 3
    cell_h = area.height() / rows
    size = max(4, int(min(col_w * 0.92, cell_h * 0.96)))
    if size < SMALL_KANA_PX:
        # on a small card a kana's em may fill its cell's height (its ink is shorter: neighbours
        # do not touch), so a six-row column still reads (9 px, not 8, on the match floor at 1024×700)
        size = max(size, round(min(col_w * 0.92, cell_h)))
    cells = []
    for k, column in enumerate(columns):          # k = 0 is the rightmost column
        x = area.right() - (k + 1) * col_w
        cells.append([QRectF(x, area.top() + r * cell_h, col_w, cell_h) for r in range(len(column))])
    return TorifudaLayout(cells, size, k_cells, k_px, list(columns))


def paint_kana(painter: QPainter, layout: TorifudaLayout) -> None:
    """The kana of a layout, each in its cell (the card's face is the caller's)."""
    font = QFont(card_font_family())
    font.setPixelSize(layout.kana_px)
    font.setWeight(QFont.Weight.DemiBold)
    painter.setFont(font)
    painter.setPen(INK)
    for column, cells in zip(layout.columns, layout.cells):
        for kana, cell in zip(column, cells):
            painter.drawText(cell, Qt.AlignmentFlag.AlignCenter, kana)


def _paint_kimariji(painter: QPainter, layout: TorifudaLayout, kimariji: str) -> None:
    """The kimariji in red down its own strip at the left edge: a beginner's aid."""
    font = QFont(card_font_family())
    font.setPixelSize(layout.kimariji_px)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(KIMARIJI_RED)
    for kana, cell in zip(kimariji, layout.kimariji_cells):
        painter.drawText(cell, Qt.AlignmentFlag.AlignCenter, kana)


def torifuda_pixmap(columns: list[str], width: int, **kw):
    """A QPixmap of one card, for drag images and tests."""
    from PySide6.QtGui import QPixmap
    height = round(width / ASPECT)
    pix = QPixmap(width, height)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    paint_torifuda(painter, QRectF(0, 0, width, height), columns, **kw)
    painter.end()
    return pix


__all__ = ["torifuda_columns", "strip_dakuten", "paint_torifuda", "torifuda_pixmap", "torifuda_layout",
           "upright_px", "kana_px_on", "card_face", "paint_kana",
           "card_font_family", "ASPECT", "CARD_W_MM", "CARD_H_MM"]
