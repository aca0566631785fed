"""The dashboard's charts: reaction trend, per-card box and strip, faults, card history, heat grid.

Drawn with pyqtgraph (light, fast with many points), except the 100-card heat
grid, which is a plain QPainter widget: 100 rectangles are easier to click and
label by hand. Every chart takes the already computed figures of
``trainer.stats.aggregates`` and draws summaries only: a million trials never
reach a chart (the trend reads one point per day and kind, the strip at most
``DIST_WINDOW`` reactions per kind).
"""
from __future__ import annotations

from datetime import date, datetime, time as dtime

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

import trainer.ui.stats_text  # noqa: F401  (registers the strings)
from trainer.ui.i18n import tr
from trainer.ui.kimariji_text import static_text

KIND_COLOURS = {
    "fuda_nagashi": "#1a73e8", "kami_to_torifuda": "#e37400", "listening_reflex": "#188038",
    "kimariji_henka": "#9334e6", "positional": "#d01884", "match": "#5f6368",
}
ROLLING_DAYS = 7
DAILY_SPAN_DAYS = 120   # longer trends are drawn by week
GRID_SIDE = 10


def kind_colour(kind: str) -> str:
    return KIND_COLOURS.get(kind, "#80868b")


def _plot(title: str, left: str | None = None) -> pg.PlotWidget:
    w = pg.PlotWidget(background="w")
    item = w.getPlotItem()
    item.setTitle(title, color="#202124", size="11pt")
    item.showGrid(x=True, y=True, alpha=0.15)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen("#5f6368"))
        axis.setTextPen(pg.mkPen("#3c4043"))
    if left:
        item.setLabel("left", left)
    item.setMenuEnabled(False)
    w.setMinimumSize(260, 180)
    return w


def _day_seconds(day) -> float:
    return datetime.combine(day, dtime(12)).timestamp()


class TrendChart(pg.PlotWidget):
    """Mean reaction time by day, one colour per kind: daily dots, a 7-day rolling line."""

    def __init__(self):
        super().__init__(background="w", axisItems={"bottom": pg.DateAxisItem()})
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setMenuEnabled(False)
        item.setLabel("left", "ms")
        self.legend = item.addLegend(offset=(-10, 10), labelTextColor="#202124",
                                     brush=pg.mkBrush(255, 255, 255, 200))
        self.setMinimumSize(320, 200)

    def set_data(self, trend) -> None:
        """Daily dots and a 7-day rolling line; over a long span, weekly means as a line only
        (two years of six kinds would be 4,000 dots nobody can read, and slow to draw)."""
        item = self.getPlotItem()
        item.setTitle(tr("stats.trend"), color="#202124", size="11pt")
        item.clear()
        self.legend.clear()
        by_kind: dict[str, list] = {}
        for p in trend:
            if p.mean_reaction_ms is not None:
                by_kind.setdefault(p.kind, []).append((p.day.toordinal(), p.mean_reaction_ms, p.n))
        days = {d for pts in by_kind.values() for d, _, _ in pts}
        weekly = bool(days) and max(days) - min(days) > DAILY_SPAN_DAYS
        for kind, points in sorted(by_kind.items()):
            colour = QColor(kind_colour(kind))
            day, mean, n = (np.array(col, dtype=float) for col in zip(*points))
            if weekly:
                x, y = _weekly(day, mean, n)
                item.plot(x, y, pen=pg.mkPen(colour, width=2), name=tr(f"kind.{kind}"))
                continue
            x = np.array([_day_seconds(date.fromordinal(int(d))) for d in day])
            faint = QColor(colour)
            faint.setAlpha(70)
            item.plot(x, mean, pen=None, symbol="o", symbolSize=4, symbolPen=None,
                      symbolBrush=faint)
            item.plot(x, _rolling(mean, ROLLING_DAYS), pen=pg.mkPen(colour, width=2),
                      name=tr(f"kind.{kind}"))


def _weekly(day: np.ndarray, mean: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean reaction per week (weighted by trials), x at the week's middle (unix seconds)."""
    week = (day // 7).astype(int)
    weeks, inverse = np.unique(week, return_inverse=True)
    w_sum = np.bincount(inverse, weights=n)
    y = np.bincount(inverse, weights=mean * n) / np.maximum(w_sum, 1e-9)
    x = np.array([_day_seconds(date.fromordinal(int(k * 7 + 3))) for k in weeks])
    return x, y


def _rolling(y: np.ndarray, n: int) -> np.ndarray:
    """Trailing mean over up to n points (the first points use what there is)."""
    c = np.cumsum(np.insert(y, 0, 0.0))
    k = np.arange(1, len(y) + 1)
    lo = np.maximum(0, k - n)
    return (c[k] - c[lo]) / (k - lo)


class DistributionChart(pg.PlotWidget):
    """One card's recent reactions: per kind, a strip of dots over a box (quartiles, median)."""

    def __init__(self):
        super().__init__(background="w")
        item = self.getPlotItem()
        item.showGrid(y=True, alpha=0.15)
        item.setMenuEnabled(False)
        item.setLabel("left", "ms")
        self.setMinimumSize(260, 200)

    def set_data(self, card: int | None, kimariji: str, recent: list[tuple]) -> None:
        """recent: (kind, correct, reaction_ms) rows, newest first."""
        item = self.getPlotItem()
        item.clear()
        if card is None:
            item.setTitle(tr("stats.dist_none"), color="#5f6368", size="10pt")
            return
        by_kind: dict[str, list[float]] = {}
        for kind, ok, rt in recent:
            if ok and rt is not None:
                by_kind.setdefault(kind, []).append(rt)
        n = sum(len(v) for v in by_kind.values())
        item.setTitle(tr("stats.dist", card=card, kimariji=kimariji, n=n), color="#202124",
                      size="11pt")
        kinds = sorted(by_kind)
        rng = np.random.default_rng(card)
        for x, kind in enumerate(kinds):
            y = np.array(by_kind[kind])
            colour = QColor(kind_colour(kind))
            if len(y) >= 2:
                q1, med, q3 = np.percentile(y, [25, 50, 75])
                box = QColor(colour)
                box.setAlpha(45)
                item.addItem(pg.BarGraphItem(x0=[x - 0.3], x1=[x + 0.3], y0=[q1], y1=[q3],
                                             brush=box, pen=pg.mkPen(colour, width=1)))
                item.plot([x - 0.3, x + 0.3], [med, med], pen=pg.mkPen(colour, width=3))
            jitter = rng.uniform(-0.22, 0.22, len(y))
            item.plot(x + jitter, y, pen=None, symbol="o", symbolSize=6,
                      symbolBrush=colour, symbolPen=pg.mkPen("w", width=0.5))
        axis = item.getAxis("bottom")
        axis.setTicks([[(x, tr(f"kind.{k}")) for x, k in enumerate(kinds)]])
        item.setXRange(-0.6, max(0.6, len(kinds) - 0.4), padding=0)


class FaultsChart(pg.PlotWidget):
    """How many faults of each kind (otetsuki, karafuda, wrong card, wrong place...)."""

    def __init__(self):
        super().__init__(background="w")
        item = self.getPlotItem()
        item.setMenuEnabled(False)
        item.showGrid(x=True, alpha=0.15)
        self.setMinimumSize(220, 180)

    def set_data(self, faults: dict[str, int]) -> None:
        item = self.getPlotItem()
        item.clear()
        item.setTitle(tr("stats.faults") if faults else tr("stats.no_faults"), color="#202124",
                      size="11pt")
        names = list(faults)[::-1]          # largest at the top
        if not names:
            return
        item.addItem(pg.BarGraphItem(x0=0, y=np.arange(len(names)), width=[faults[n] for n in names],
                                     height=0.6, brush=QColor("#d93025"), pen=None))
        labels = [tr(f"fault.{n}") if f"fault.{n}" in _fault_ids() else n for n in names]
        item.getAxis("left").setTicks([list(enumerate(labels))])
        item.setYRange(-0.6, len(names) - 0.4, padding=0)


def _fault_ids() -> set[str]:
    from trainer.ui.i18n import MESSAGES
    return {k for k in MESSAGES if k.startswith("fault.")}


class HistoryChart(pg.PlotWidget):
    """Every timed trial of one card over time: dots right, crosses wrong, coloured by kind."""

    def __init__(self):
        super().__init__(background="w", axisItems={"bottom": pg.DateAxisItem()})
        item = self.getPlotItem()
        item.setMenuEnabled(False)
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setLabel("left", "ms")
        self.setMinimumSize(320, 200)

    def set_data(self, rows) -> None:
        item = self.getPlotItem()
        item.clear()
        item.setTitle(tr("stats.history_plot"), color="#202124", size="11pt")
        groups: dict[tuple[str, bool], tuple[list, list]] = {}
        for r in rows:
            if r.reaction_ms is not None:
                xs, ys = groups.setdefault((r.kind, r.correct), ([], []))
                xs.append(r.at)
                ys.append(r.reaction_ms)
        for (kind, ok), (xs, ys) in sorted(groups.items()):
            colour = QColor(kind_colour(kind))
            item.plot(np.array(xs), np.array(ys), pen=None, symbol="o" if ok else "x",
                      symbolSize=6 if ok else 9, symbolBrush=colour,
                      symbolPen=None if ok else pg.mkPen(colour, width=1.5))


def weakness_colour(weakness: float | None) -> QColor:
    """Green (strong) through yellow to red (weak); grey when there are too few trials."""
    if weakness is None:
        return QColor("#dadce0")
    t = max(0.0, min(1.0, weakness / 0.6))
    hue = (1.0 - t) * 120.0 / 360.0
    return QColor.fromHsvF(hue, 0.55, 0.93)


class HeatGrid(QWidget):
    """The 100 cards on a 10 x 10 grid, coloured by weakness; a click selects a card."""

    card_clicked = Signal(int)
    card_activated = Signal(int)     # double click: open its page

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cards: dict[int, object] = {}
        self.selected: int | None = None
        self.setMinimumSize(300, 300)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)

    def set_data(self, cards) -> None:
        self.cards = {c.card: c for c in cards}
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(420, 420)

    def cell_rect(self, card: int) -> QRectF:
        side = min(self.width(), self.height()) / GRID_SIDE
        x0 = (self.width() - side * GRID_SIDE) / 2
        k = card - 1
        return QRectF(x0 + (k % GRID_SIDE) * side, (k // GRID_SIDE) * side, side, side)

    def card_at(self, pos) -> int | None:
        for card in range(1, 101):
            if self.cell_rect(card).contains(pos):
                return card
        return None

    def mousePressEvent(self, event):
        card = self.card_at(event.position())
        if card is not None:
            self.selected = card
            self.update()
            self.card_clicked.emit(card)

    def mouseDoubleClickEvent(self, event):
        card = self.card_at(event.position())
        if card is not None:
            self.card_activated.emit(card)

    def mouseMoveEvent(self, event):
        card = self.card_at(event.position())
        c = self.cards.get(card) if card else None
        if c is None:
            self.setToolTip("")
            return
        acc = "—" if c.accuracy is None else f"{c.accuracy:.0%}"
        mean = "—" if c.mean_reaction_ms is None else f"{c.mean_reaction_ms:.0f} ms"
        weak = "—" if c.weakness is None else f"{c.weakness:.2f}"
        self.setToolTip(f"{card} {static_text(card)}\n{c.n} · {acc} · {mean} · {weak}")

    def paintEvent(self, event):
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        side = min(self.width(), self.height()) / GRID_SIDE
        small, big = QFont(), QFont()
        small.setPixelSize(max(7, int(side * 0.22)))
        big.setPixelSize(max(8, int(side * 0.30)))
        for card in range(1, 101):
            r = self.cell_rect(card).adjusted(1, 1, -1, -1)
            c = self.cards.get(card)
            p.fillRect(r, weakness_colour(c.weakness if c else None))
            p.setPen(QColor("#3c4043"))
            p.setFont(small)
            p.drawText(r.adjusted(3, 1, -2, -2), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                       str(card))
            text = static_text(card)      # in the spelling set, read at each paint
            big.setPixelSize(max(7, int(min(side * 0.30, side * 0.86 / max(1, len(text))))))
            p.setFont(big)
            p.setPen(QColor("#202124"))
            p.drawText(r.adjusted(1, side * 0.25, -1, -1), Qt.AlignmentFlag.AlignCenter,
                       text)
            if card == self.selected:
                p.setPen(QPen(QColor("#1a73e8"), 3))
                p.drawRect(r.adjusted(1, 1, -1, -1))
        p.end()
