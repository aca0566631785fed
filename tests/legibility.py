"""What a player cannot read on a screen, found by looking at the widgets and at what they paint.

`problems(window)` grabs the window (so every widget paints) while recording the text each
`QPainter.drawText` call draws and at what size, and returns one line per problem:

- ``small``: text drawn, or a widget's own text shown, under `MIN_PX` pixels high;
- ``cut``: a label, button or box narrower than its own text (its minimum size hint), or a
  widget the window (or a parent that does not scroll) cuts off;
- ``elided``: text painted shortened to less than half of itself ("Brigh…" for "Bright");
- ``forced``: the window asks for more room than it was given (its minimum size is larger).

Used by the walk over every screen (`tests/test_ui_legible.py`) and by the screenshot tools.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QFontMetrics, QFontMetricsF, QPainter, QPolygonF, QTransform
from PySide6.QtWidgets import (QAbstractButton, QAbstractScrollArea, QComboBox, QLabel, QLayout, QLineEdit, QListWidget,
                               QMainWindow,
                               QSpinBox, QTableWidget, QStyle, QStyleOptionComboBox, QTabBar, QWidget)

MIN_PX = 9
ELLIPSIS = "…"
OVERLAP_PX = 1     # ems of two lines may touch by a pixel
SLACK_PX = 4       # a full-width bracket's own blank side may overhang a box's text room unseen


class _Drawn:
    """Text painted while recording: (widget class, text, pixel height, shortened from)."""

    def __init__(self) -> None:
        self.small: list[tuple[str, str, float]] = []
        self.elided: list[tuple[str, str]] = []
        self.overflow: list[tuple[str, float, float, float, float]] = []
        self.boxes: dict[int, list[tuple[str, QRectF, QRectF, QTransform]]] = {}
        """Per paint device: each text, the upright box its ink covers on the device, and the
        ink's own box with the painter's transform (a card lying askew turns its kana)."""


def _painter_px(p: QPainter) -> float:
    """The height of the painter's font on the screen: its pixel size times the painter's scale."""
    info = p.fontInfo()
    px = info.pixelSize()
    scale = abs(p.worldTransform().m22()) or 1.0
    return px * scale


def _ink(p: QPainter, box: QRectF, flags: int, text: str) -> QRectF:
    """Where the text's glyphs are: its laid-out box, less the line spacing above and below
    the em of each line (a kana in a small cell has a line box taller than the cell, the glyph not)."""
    fm = QFontMetricsF(p.font())
    laid = fm.boundingRect(box, flags, text)
    em = float(p.fontInfo().pixelSize())
    # lines as laid out (a kana's fallback font spaces its lines wider than the font's own metrics)
    lines = text.count("\n") + 1 if not flags & int(Qt.TextFlag.TextWordWrap) else \
        max(1, round(laid.height() / fm.lineSpacing()))
    ink_h = max(0.0, (lines - 1) * laid.height() / lines + em)
    return QRectF(laid.left(), laid.center().y() - ink_h / 2, laid.width(), ink_h)


@contextmanager
def recording() -> Iterator[_Drawn]:
    """Record the size of every text drawn through `QPainter.drawText` and every elision."""
    drawn = _Drawn()
    original = QPainter.drawText
    originals = {cls: cls.elidedText for cls in (QFontMetrics, QFontMetricsF)}

    def draw_text(p, *args):
        text = next((a for a in args if isinstance(a, str)), "")
        if text.strip():
            px = _painter_px(p)
            if px < MIN_PX:
                drawn.small.append((type(p.device()).__name__, text.replace("\n", " "), px))
            box = args[0] if isinstance(args[0], (QRect, QRectF)) else None
            if box is not None and isinstance(args[1], (int, Qt.AlignmentFlag)):
                ink = _ink(p, QRectF(box), int(args[1]), text)
                drawn.boxes.setdefault(id(p.device()), []).append(
                    (text.replace("\n", " / "), p.worldTransform().mapRect(ink), ink, p.worldTransform()))
            else:                               # at a point: its words only, no box to compare
                drawn.boxes.setdefault(id(p.device()), []).append((text, QRectF(), QRectF(), QTransform()))
            flags = args[1] if box is not None and isinstance(args[1], (int, Qt.AlignmentFlag)) else 0
            if box is not None and not int(flags) & int(Qt.TextFlag.TextWordWrap):
                fm = QFontMetricsF(p.font())
                lines = text.split("\n")
                wide = max(fm.horizontalAdvance(line) for line in lines)
                tall = fm.lineSpacing() * len(lines)        # one line's height: a glyph's ink, not checked
                if wide > box.width() + 2 or (len(lines) > 1 and tall > box.height() * 1.1 + 2):
                    drawn.overflow.append((text.replace("\n", " / "), wide, tall, box.width(), box.height()))
        return original(p, *args)

    def elide(cls):
        def elided(fm, text, mode, width, *rest):
            out = originals[cls](fm, text, mode, width, *rest)
            if out != text and len(out.rstrip(ELLIPSIS)) * 2 < len(text):
                drawn.elided.append((text, out))
            return out
        return elided

    QPainter.drawText = draw_text  # type: ignore[method-assign]
    for cls in originals:
        cls.elidedText = elide(cls)  # type: ignore[method-assign]
    try:
        yield drawn
    finally:
        QPainter.drawText = original  # type: ignore[method-assign]
        for cls, fn in originals.items():
            cls.elidedText = fn  # type: ignore[method-assign]


def _text_of(w: QWidget) -> str:
    if isinstance(w, (QLabel, QAbstractButton)):
        return w.text()
    if isinstance(w, QComboBox):
        return w.currentText()
    return ""


def _name(w: QWidget) -> str:
    text = _text_of(w).replace("\n", " ")
    name = w.objectName() or type(w).__name__
    return f"{name} {text[:40]!r}" if text else name


def _needs(w: QWidget) -> int:
    """The width a widget needs to show its whole text (a box: its current choice and arrow)."""
    if isinstance(w, QComboBox):       # the room its style leaves for the text, against the text
        option = QStyleOptionComboBox()
        w.initStyleOption(option)
        field = w.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, w)
        return w.width() - field.width() + w.fontMetrics().horizontalAdvance(w.currentText())
    return w.minimumSizeHint().width()


def _scrolls(w: QWidget) -> bool:
    """Inside a scroll area's viewport: being partly out of sight there is what scrolling is for."""
    parent = w.parentWidget()
    while parent is not None:
        grand = parent.parentWidget()
        if isinstance(grand, QAbstractScrollArea) and grand.viewport() is parent:
            return True
        parent = grand
    return False


def _visible_part(w: QWidget, window: QWidget) -> QRect:
    """The widget's rectangle in window coordinates, clipped by every parent."""
    rect = QRect(w.mapTo(window, QPoint(0, 0)), w.size())
    parent = w.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect.intersected(window.rect())


def _shown(w: QWidget) -> bool:
    return w.isVisible() and w.width() > 0 and w.height() > 0


def widget_problems(window: QWidget) -> list[str]:
    out: list[str] = []
    for w in window.findChildren(QWidget):
        if not _shown(w) or w.window() is not window:
            continue
        text = _text_of(w)
        if text.strip() or isinstance(w, (QLineEdit, QSpinBox, QTabBar)):
            px = w.fontInfo().pixelSize()
            if px < MIN_PX:
                out.append(f"small: {_name(w)} {px} px")
        if isinstance(w, (QLabel, QAbstractButton, QComboBox)) and text.strip() and not _scrolls(w):
            if isinstance(w, QLabel) and (w.wordWrap() or not w.pixmap().isNull()):
                pass
            elif _needs(w) > w.width() + SLACK_PX:
                out.append(f"cut: {_name(w)} needs {_needs(w)} px, has {w.width()}")
        if isinstance(w, QTabBar):
            for k in range(w.count()):
                if w.tabRect(k).width() < w.tabSizeHint(k).width() - 1 or not \
                        QRect(QPoint(0, 0), w.size()).contains(w.tabRect(k)):
                    out.append(f"cut: tab {w.tabText(k)!r}")
        if not _scrolls(w):
            full = QRect(w.mapTo(window, QPoint(0, 0)), w.size())
            seen = _visible_part(w, window)
            if seen.width() < full.width() - 1 or seen.height() < full.height() - 1:
                out.append(f"cut: {_name(w)} shows {seen.width()}×{seen.height()} of "
                           f"{full.width()}×{full.height()}")
    return out


def overlap_problems(window: QWidget) -> list[str]:
    """Widgets of one layout drawn over each other: a layout given less room than its widgets'
    minimum lets them overlap (a chart over the button below it) instead of growing the window."""
    out = []
    for parent in [window, *window.findChildren(QWidget)]:
        layout = parent.layout()
        if layout is None or not _shown(parent):
            continue
        laid = [c for c in parent.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                if _shown(c) and not c.isWindow() and _in_layout(layout, c)]
        for k, a in enumerate(laid):
            for b in laid[k + 1:]:
                both = a.geometry().intersected(b.geometry())
                if both.width() > 2 and both.height() > 2:
                    out.append(f"overlap: {_name(a)} and {_name(b)} share {both.width()}×{both.height()} px")
    return out


def _in_layout(layout: QLayout, w: QWidget) -> bool:
    # Nested layouts are found as QObject children: wrapping their items (itemAt) would leave
    # Python wrappers of spacer items, which are no QObjects, for PySide to hand out again
    # once their memory is reused (a later window's menu bar came back as a QSpacerItem).
    return any(inner.indexOf(w) >= 0 for inner in (layout, *layout.findChildren(QLayout)))


def window_problems(window: QWidget, size: tuple[int, int]) -> list[str]:
    want_w, want_h = size
    hint = window.minimumSizeHint()
    out = []
    if window.width() > want_w or window.height() > want_h:
        out.append(f"forced: the window is {window.width()}×{window.height()}, given {want_w}×{want_h}")
    if hint.width() > want_w or hint.height() > want_h:
        out.append(f"forced: the window needs {hint.width()}×{hint.height()}, given {want_w}×{want_h}")
    return out


def _drop_drawn_faces(window: QWidget) -> None:
    """Forget the card faces the tables drew once and keep as pixmaps, so their text is drawn
    again while recording (a face cached before the walk would hide its kana's size)."""
    from trainer.ui import cards_faces
    cards_faces._CACHE.clear()
    for w in window.findChildren(QWidget):
        for cache in ("_faces", "_card_cache"):
            if isinstance(getattr(w, cache, None), dict):
                getattr(w, cache).clear()


def _overlapping_text(boxes: dict[int, list[tuple[str, QRectF, QRectF, QTransform]]]) -> list[str]:
    """Lines of text painted over each other on one surface (a status card whose lines
    were spaced for smaller type than they were drawn in)."""
    out = []
    for texts in boxes.values():
        texts = sorted(texts, key=lambda t: t[1].top())
        for k, (a, ra, ink_a, ta) in enumerate(texts):
            for b, rb, ink_b, tb in texts[k + 1:]:
                if rb.top() >= ra.bottom():
                    break                   # sorted by top: nothing further down reaches this line
                if a == b or not ra.intersects(rb):
                    continue
                w, h = _shared(ink_a, ta, ink_b, tb)
                if h > OVERLAP_PX and w > OVERLAP_PX:
                    out.append(f"overlap: painted {a[:30]!r} over {b[:30]!r}")
    return out


def _shared(ink_a: QRectF, ta: QTransform, ink_b: QRectF, tb: QTransform) -> tuple[float, float]:
    """The device pixels two inks share, across and down the first one's own lines: measured in
    its own frame, so two kana of one card turned askew, side by side in their column, share
    nothing (their upright boxes on the screen overlap at the corners, the glyphs do not). Upright
    text is measured as before: the two boxes' common rectangle."""
    inverse, ok = ta.inverted()
    if not ok:
        return 0.0, 0.0
    b_in_a = inverse.map(tb.map(QPolygonF(ink_b)))
    both = QPolygonF(ink_a).intersected(b_in_a).boundingRect()
    sx, sy = (ta.m11() ** 2 + ta.m12() ** 2) ** 0.5, (ta.m21() ** 2 + ta.m22() ** 2) ** 0.5
    return both.width() * sx, both.height() * sy


def painted_problems(window: QWidget) -> list[str]:
    _drop_drawn_faces(window)
    with recording() as drawn:
        window.grab()
    by_size: dict[float, list[str]] = {}
    for _, text, px in drawn.small:
        by_size.setdefault(round(px, 1), []).append(text[:30])
    out = [f"small: painted at {px} px: {len(texts)} texts, e.g. {sorted(set(texts))[:4]}"
           for px, texts in sorted(by_size.items())]
    out += [f"elided: painted {full[:40]!r} as {short!r}" for full, short in drawn.elided]
    out += [f"cut: painted {text[:40]!r} needs {w:.0f}×{h:.0f} px, has {bw:.0f}×{bh:.0f}"
            for text, w, h, bw, bh in drawn.overflow]
    out += _overlapping_text(drawn.boxes)
    return sorted(set(out))


def problems(window: QWidget, size: tuple[int, int]) -> list[str]:
    """Every problem above on the window as it is now (one line each, duplicates removed)."""
    return sorted(set(window_problems(window, size) + widget_problems(window) + overlap_problems(window)
                      + painted_problems(window)))


def rect_text_fits(p: QPainter, rect: QRectF, text: str) -> bool:
    """Whether one line of text fits the rectangle in the painter's font (for table views' own checks)."""
    return QFontMetricsF(p.font()).horizontalAdvance(text) <= rect.width() + 0.5


# --------------------------------------------------------------------------- language

LATIN_WORD = re.compile(r"[A-Za-z]{4,}")
NOT_ENGLISH = {"Okié", "Monchi", "Guru", "Meiraf", "Meri", "Robai", "Unsun",   # the seeds' own words
               "Enter",                           # a key, named as its keycap reads on a Japanese keyboard too
               "English"}                         # the language picker names each language in itself


@lru_cache(maxsize=1)
def _romaji() -> frozenset[str]:
    """The poems' romaji words: shown beside the kana in both languages."""
    import poems
    words: set[str] = set()
    for no in range(1, 101):
        poem = poems.get(no)
        for line in (*poem.kami_romaji, *poem.shimo_romaji):
            words.update(w.lower() for w in LATIN_WORD.findall(line))
    return frozenset(words)


def shown_texts(window: QWidget) -> list[str]:
    """Every text on screen: widgets' own (labels, buttons, boxes, tabs, list and table items,
    headers, tooltips left out) and what the tables paint."""
    texts: list[str] = []
    for w in window.findChildren(QWidget):
        if not _shown(w) or w.window() is not window:
            continue
        if isinstance(w, QLabel) and w.pixmap().isNull():
            texts.append(w.text())
        elif isinstance(w, (QAbstractButton, QComboBox)):
            texts.append(_text_of(w))
        elif isinstance(w, QTabBar):
            texts += [w.tabText(k) for k in range(w.count())]
        elif isinstance(w, QListWidget):
            texts += [w.item(k).text() for k in range(w.count())]
        elif isinstance(w, QTableWidget):
            for c in range(w.columnCount()):
                item = w.horizontalHeaderItem(c)
                texts.append(item.text() if item else "")
                texts += [w.item(r, c).text() for r in range(w.rowCount()) if w.item(r, c)]
    if isinstance(window, QMainWindow):               # the status bar paints its message itself
        texts.append(window.statusBar().currentMessage())
    texts += painted_texts(window)
    return [t for t in texts if t]


def painted_texts(window: QWidget) -> list[str]:
    _drop_drawn_faces(window)
    with recording() as drawn:
        window.grab()
    return [box[0] for boxes in drawn.boxes.values() for box in boxes]


def english_left(window: QWidget) -> list[str]:
    """Texts on a Japanese screen that still hold English words (4 Latin letters or more)."""
    out = []
    for text in shown_texts(window):
        plain = re.sub(r"<[^>]+>", " ", text)            # rich text's tags are not words
        words = [w for w in LATIN_WORD.findall(plain) if w not in NOT_ENGLISH and w.lower() not in _romaji()]
        if words:
            out.append(text[:60])
    return sorted(set(out))
