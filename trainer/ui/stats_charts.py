"""The dashboard's charts: time trend, per-card box and strip, faults, card history, heat grid.

Times are drawn per timing family (``trainer.stats.aggregates.FAMILIES``): a
reaction from the kimariji in ms, an answer or a Mubeyama flip in s, each on
its own plot, titled with what it measures; no axis ever mixes two families.

Drawn with pyqtgraph (light, fast with many points), except the 100-card heat
grid, which is a plain QPainter widget: 100 rectangles are easier to click and
label by hand. Every chart takes the already computed figures of
``trainer.stats.aggregates`` and draws summaries only: a million trials never
reach a chart (the trend reads one point per day and kind, the strip at most
``DIST_WINDOW`` reactions per kind).
"""
from __future__ import annotations

import math
from datetime import date, datetime, time as dtime

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from trainer.text.stats import kind_name
from trainer.stats.aggregates import FAMILIES, UNIT, family_of
from trainer.ui.i18n import MESSAGES, tr
from trainer.ui.kimariji_text import static_text

KIND_COLOURS = {
    "fuda_nagashi": "#1a73e8", "kami_to_torifuda": "#e37400", "listening_reflex": "#188038",
    "kimariji_henka": "#9334e6", "positional": "#d01884", "match": "#5f6368",
    "mubeyama": "#b06000",
    "chirashi": "#12b5cb", "sakasama": "#7cb342", "genpei": "#c5221f", "relay": "#3949ab",
    "shimonoku": "#795548",
}
ROLLING_DAYS = 7
DAILY_SPAN_DAYS = 120   # longer trends are drawn by week
GRID_SIDE = 10
DAY_S = 86400.0


def kind_colour(kind: str) -> str:
    return KIND_COLOURS.get(kind, "#80868b")


def _day_seconds(day) -> float:
    return datetime.combine(day, dtime(12)).timestamp()


class DayAxis(pg.DateAxisItem):
    """pyqtgraph's date axis, except over a short span (one day of data, a week): one tick
    per day at its noon, labelled as a date (pyqtgraph would zoom into seconds and print
    ``59.600 … 00.399`` around a single day's point)."""

    SHORT_DAYS = 14
    _short = False

    def tickValues(self, minVal, maxVal, size):
        self._short = maxVal - minVal < self.SHORT_DAYS * DAY_S
        if not self._short:
            return super().tickValues(minVal, maxVal, size)
        first = date.fromtimestamp(minVal - DAY_S / 2)
        days = [first.fromordinal(first.toordinal() + k) for k in range(self.SHORT_DAYS + 2)]
        ticks = [t for t in (_day_seconds(d) for d in days) if minVal <= t <= maxVal]
        step = max(1, int(len(ticks) * 80 / max(1.0, size)) + 1)   # ~80 px per label
        return [(DAY_S * step, ticks[::step])]

    def tickStrings(self, values, scale, spacing):
        if self._short:
            return [datetime.fromtimestamp(v).strftime("%Y-%m-%d") for v in values]
        return super().tickStrings(values, scale, spacing)


class ValueAxis(pg.AxisItem):
    """pyqtgraph's value axis, except on a short plot (the stacked trends at 1024×700 have
    ~23 px of axis): its ticks stay at least `LINES` label heights apart, so labels never
    print over each other ("600" on "400"), and a tick too near an end for its label
    (pyqtgraph drops such a label) gives way to one round value in the middle, so the
    scale always shows."""

    LINES = 1.15

    def _label_span(self, minVal, maxVal, size) -> float:
        """One label's height in axis units."""
        font = self.style.get("tickFont") or QFont()
        return (maxVal - minVal) * QFontMetricsF(font).height() / size

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        if size <= 0 or maxVal <= minVal:
            return levels
        least = self._label_span(minVal, maxVal, size) * self.LINES
        sparse = [(step, offset) for step, offset in levels if step >= least]
        return sparse or [(nice_step(least), 0)]

    def tickValues(self, minVal, maxVal, size):
        if size <= 0 or maxVal <= minVal:
            return super().tickValues(minVal, maxVal, size)
        half = self._label_span(minVal, maxVal, size) / 2
        low, high = minVal + half, maxVal - half          # where a label fits whole
        levels = [(step, [t for t in ticks if low <= t <= high])
                  for step, ticks in super().tickValues(minVal, maxVal, size)]
        if any(ticks for _, ticks in levels) or high < low:
            return levels
        power = 10.0 ** math.floor(math.log10(maxVal - minVal))
        for p in (power, power / 10, power / 100):
            middle = round(round((minVal + maxVal) / 2 / p) * p, 9)
            if low <= middle <= high:
                return [(maxVal - minVal, [middle])]
        return levels


def nice_step(least: float) -> float:
    """The smallest of 1, 2 and 5 × 10ⁿ that is at least `least`."""
    power = 10.0 ** math.floor(math.log10(least))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= least)


def _style(item: pg.PlotItem, title: str, unit: str) -> None:
    item.setTitle(title, color="#202124", size="10pt")
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setMenuEnabled(False)
    item.setLabel("left", unit)
    item.getAxis("left").setWidth(52)          # stacked plots: their dates line up
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen("#5f6368"))
        axis.setTextPen(pg.mkPen("#3c4043"))


def scaled(ms, unit: str) -> np.ndarray:
    """Times in ms, as the family's unit shows them (ms or s)."""
    y = np.asarray(ms, dtype=float)
    return y / 1000.0 if unit == "s" else y


def fit_y(item: pg.PlotItem, values, unit: str) -> None:
    """From 0 (or the lowest anticipation) to the highest value, with room above; one point
    or equal values still get an axis of a readable height (100 ms, 1 s)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return
    lo, hi = min(0.0, float(v.min())), float(v.max())
    least = 100.0 if unit == "ms" else 1.0
    hi = max(hi, lo + least)
    item.setYRange(lo, hi + 0.1 * (hi - lo), padding=0)


def fit_x(item: pg.PlotItem, xs, least_s: float) -> None:
    """Dates: at least `least_s` seconds wide, centred on the data (one day, one point)."""
    x = np.asarray(xs, dtype=float)
    if not len(x):
        return
    lo, hi = float(x.min()), float(x.max())
    if hi - lo < least_s:
        mid = (lo + hi) / 2
        lo, hi = mid - least_s / 2, mid + least_s / 2
    pad = 0.03 * (hi - lo)
    item.setXRange(lo - pad, hi + pad, padding=0)


def family_title(family: str, what: str) -> str:
    """'Reaction from the kimariji — mean by day (ms)': each chart says what it measures."""
    return tr("stats.family_title", family=tr(f"family.{family}"), what=tr(what), unit=UNIT[family])


class FamilyPlots(QWidget):
    """One plot per timing family with data, side by side or stacked: reaction times in ms,
    answer and flip times in s never share an axis. Each plot may have a legend beside it
    (a label: it never covers the lines). Plain PlotWidgets in a Qt layout, made once:
    a pyqtgraph GraphicsLayoutWidget holding plots crashes PySide6 6.12 at exit (measured,
    exit code -11)."""

    def __init__(self, stacked: bool, axis=None):
        super().__init__()
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(self.backgroundRole(), QColor("white"))
        self.setPalette(palette)
        self.title = QLabel(wordWrap=True)     # long in Japanese: it must not widen the page
        self.title.setMinimumWidth(120)        # (a wrapping label asks for a wide line by default)
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setStyleSheet("color: #202124;")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 2, 2, 2)
        outer.setSpacing(0)
        outer.addWidget(self.title)
        body = QVBoxLayout() if stacked else QHBoxLayout()
        outer.addLayout(body, 1)
        self.widgets: dict[str, pg.PlotWidget] = {}
        self.legends: dict[str, QLabel] = {}
        self._holders: dict[str, QWidget] = {}
        for family in FAMILIES:
            axes = {"left": ValueAxis("left"), **({"bottom": axis()} if axis else {})}
            w = pg.PlotWidget(background="w", axisItems=axes)
            w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
            w.setMinimumHeight(60)              # the page's layout shares the height out (700-px screens)
            legend = QLabel()
            legend.setStyleSheet("color: #202124;")
            legend.setFixedWidth(150)           # the stacked plots' date axes line up
            holder = QWidget()              # hidden whole: an unused family takes no room
            row = QHBoxLayout(holder)
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(w, 1)
            row.addWidget(legend)
            body.addWidget(holder, 1)
            self.widgets[family], self.legends[family] = w, legend
            self._holders[family] = holder
        self.plots: dict[str, pg.PlotItem] = {}

    def reset(self, families, title: str | None = None) -> dict[str, pg.PlotItem]:
        """Empty every plot; show one per family given (in FAMILIES order), hide the rest."""
        self.title.setText(title or "")
        self.title.setVisible(bool(title))
        self.plots = {}
        for family, w in self.widgets.items():
            item = w.getPlotItem()
            item.clear()
            self.legends[family].clear()
            self.legends[family].hide()
            self._holders[family].setVisible(family in families)
            if family in families:
                self.plots[family] = item
        return self.plots

    def set_legend(self, family: str, entries) -> None:
        """entries: (name, colour) pairs, shown beside the family's plot."""
        label = self.legends[family]
        label.setText("<br>".join(f'<span style="color:{c}">━━</span> {name}' for name, c in entries))
        label.show()


class TrendChart(FamilyPlots):
    """Mean time by day, one plot per timing family, one colour per kind: daily dots and a
    7-day rolling line; over a long span, weekly means as a line only (two years of six
    kinds would be 4,000 dots nobody can read, and slow to draw)."""

    def __init__(self):
        super().__init__(stacked=True, axis=DayAxis)
        self.setMinimumSize(320, 150)

    def set_data(self, trend) -> None:
        by_family: dict[str, dict[str, list]] = {}
        for p in trend:
            if p.mean_reaction_ms is not None:
                by_family.setdefault(family_of(p.kind), {}).setdefault(p.kind, []).append(
                    (p.day.toordinal(), p.mean_reaction_ms, p.n))
        plots = self.reset(by_family)
        days = {d for kinds in by_family.values() for pts in kinds.values() for d, _, _ in pts}
        weekly = bool(days) and max(days) - min(days) > DAILY_SPAN_DAYS
        xs_all = [_day_seconds(date.fromordinal(d)) for d in days]
        for family, item in plots.items():
            unit = UNIT[family]
            _style(item, family_title(family, "stats.by_day"), unit)
            self.set_legend(family, [(kind_name(k), kind_colour(k)) for k in sorted(by_family[family])])
            ys = []
            for kind, points in sorted(by_family[family].items()):
                colour = QColor(kind_colour(kind))
                day, mean, n = (np.array(col, dtype=float) for col in zip(*points))
                mean = scaled(mean, unit)
                if weekly:
                    x, y = _weekly(day, mean, n)
                    item.plot(x, y, pen=pg.mkPen(colour, width=2))
                    ys.append(y)
                    continue
                x = np.array([_day_seconds(date.fromordinal(int(d))) for d in day])
                faint = QColor(colour)
                faint.setAlpha(110 if len(x) < 3 else 70)
                item.plot(x, mean, pen=None, symbol="o", symbolSize=7 if len(x) < 3 else 4,
                          symbolPen=None, symbolBrush=faint)
                item.plot(x, _rolling(mean, ROLLING_DAYS), pen=pg.mkPen(colour, width=2))
                ys.append(mean)
            fit_y(item, np.concatenate(ys), unit)
            fit_x(item, xs_all, 3 * DAY_S)        # every family on the same dates


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


class DistributionChart(FamilyPlots):
    """One card's recent times: per timing family a plot, per kind a strip of dots over a
    box (quartiles, median)."""

    def __init__(self):
        super().__init__(stacked=False)
        self.setMinimumSize(260, 150)

    def set_data(self, card: int | None, kimariji: str, recent: list[tuple]) -> None:
        """recent: (kind, correct, reaction_ms) rows, newest first."""
        if card is None:
            self.reset((), tr("stats.dist_none"))
            return
        by_family: dict[str, dict[str, list[float]]] = {}
        for kind, ok, rt in recent:
            if ok and rt is not None:
                by_family.setdefault(family_of(kind), {}).setdefault(kind, []).append(rt)
        n = sum(len(v) for kinds in by_family.values() for v in kinds.values())
        plots = self.reset(by_family, tr("stats.dist", card=card, kimariji=kimariji, n=n))
        rng = np.random.default_rng(card)
        for family, item in plots.items():
            unit = UNIT[family]
            _style(item, tr(f"family_short.{family}") + f" ({unit})", unit)
            item.showGrid(x=False, y=True, alpha=0.15)
            kinds = sorted(by_family[family])
            for x, kind in enumerate(kinds):
                y = scaled(by_family[family][kind], unit)
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
            item.getAxis("bottom").setTicks([[(x, kind_short(k)) for x, k in enumerate(kinds)]])
            item.setXRange(-0.6, max(0.6, len(kinds) - 0.4), padding=0)
            fit_y(item, scaled([v for k in kinds for v in by_family[family][k]], unit), unit)


class FaultsChart(pg.PlotWidget):
    """How many faults of each kind (otetsuki, karafuda, wrong card, wrong place...)."""

    def __init__(self):
        super().__init__(background="w")
        item = self.getPlotItem()
        item.setMenuEnabled(False)
        item.showGrid(x=True, alpha=0.15)
        self.setMinimumSize(220, 140)

    def set_data(self, faults: dict[str, int]) -> None:
        item = self.getPlotItem()
        item.clear()
        item.setTitle(tr("stats.faults") if faults else tr("stats.no_faults"), color="#202124",
                      size="11pt")
        names = list(faults)[::-1]          # largest at the top
        for side in ("left", "bottom"):
            item.showAxis(side, bool(names))   # no faults: no empty 0..1 axes
        if not names:
            return
        item.addItem(pg.BarGraphItem(x0=0, y=np.arange(len(names)), width=[faults[n] for n in names],
                                     height=0.6, brush=QColor("#d93025"), pen=None))
        labels = [tr(f"fault.{n}") if f"fault.{n}" in _fault_ids() else n for n in names]
        item.getAxis("left").setTicks([list(enumerate(labels))])
        item.setYRange(-0.6, len(names) - 0.4, padding=0)
        item.setXRange(0, max(faults.values()) * 1.08 + 0.5, padding=0)


def _fault_ids() -> set[str]:
    from trainer.ui.i18n import MESSAGES
    return {k for k in MESSAGES if k.startswith("fault.")}


class HistoryChart(FamilyPlots):
    """Every timed trial of one card over time, a plot per timing family: dots right,
    crosses wrong, coloured by kind."""

    def __init__(self):
        super().__init__(stacked=True, axis=pg.DateAxisItem)
        self.setMinimumSize(320, 150)

    def set_data(self, rows) -> None:
        groups: dict[str, dict[tuple[str, bool], tuple[list, list]]] = {}
        for r in rows:
            if r.reaction_ms is not None:
                xs, ys = groups.setdefault(family_of(r.kind), {}).setdefault(
                    (r.kind, r.correct), ([], []))
                xs.append(r.at)
                ys.append(r.reaction_ms)
        plots = self.reset(groups, tr("stats.history_plot") if not groups else None)
        xs_all = [x for g in groups.values() for xs, _ in g.values() for x in xs]
        for family, item in plots.items():
            unit = UNIT[family]
            _style(item, family_title(family, "stats.each_trial"), unit)
            ys_all = []
            for (kind, ok), (xs, ys) in sorted(groups[family].items()):
                colour = QColor(kind_colour(kind))
                y = scaled(ys, unit)
                ys_all.append(y)
                item.plot(np.array(xs), y, pen=None, symbol="o" if ok else "x",
                          symbolSize=6 if ok else 9, symbolBrush=colour,
                          symbolPen=None if ok else pg.mkPen(colour, width=1.5))
            fit_y(item, np.concatenate(ys_all), unit)
            fit_x(item, xs_all, 6 * 3600.0)


def weakness_colour(weakness: float | None) -> QColor:
    """Green (strong) through yellow to red (weak); grey when there are too few trials."""
    if weakness is None:
        return QColor("#dadce0")
    t = max(0.0, min(1.0, weakness / 0.6))
    hue = (1.0 - t) * 120.0 / 360.0
    return QColor.fromHsvF(hue, 0.55, 0.93)


MIN_TEXT_PX = 9          # smaller text on a small screen cannot be read


def _kimariji_lines(text: str, side: float) -> str:
    """A kimariji on one line, or on two when one line would be under 9 px or two lines give
    clearly larger type (あさぼらけ/あ in a 33-px cell of a 1024-px screen was 7 px on one)."""
    if len(text) < 4:
        return text
    half = (len(text) + 1) // 2
    one = side * 0.86 / len(text)
    two = min(side * 0.86 / half, (side * 0.78 - 5) / 3.0)      # two lines under the number
    if one >= MIN_TEXT_PX and one * 1.15 >= two:
        return text
    return f"{text[:half]}\n{text[half:]}"


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
        weak = "—" if c.weakness is None else f"{c.weakness:.2f}"
        # no mean time: over all kinds it would average 300 ms touches with 70 s flips
        self.setToolTip(f"{card} {static_text(card)}\n{c.n} · {acc} · {weak}")

    def paintEvent(self, event):
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        side = min(self.width(), self.height()) / GRID_SIDE
        small, big = QFont(), QFont()
        small.setPixelSize(max(MIN_TEXT_PX, int(side * 0.22)))
        for card in range(1, 101):
            r = self.cell_rect(card).adjusted(1, 1, -1, -1)
            c = self.cards.get(card)
            p.fillRect(r, weakness_colour(c.weakness if c else None))
            p.setPen(QColor("#3c4043"))
            p.setFont(small)
            p.drawText(r.adjusted(3, 1, -2, -2), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                       str(card))
            text = _kimariji_lines(static_text(card), side)      # in the spelling set, read at each paint
            longest = max(len(line) for line in text.split("\n"))
            # two lines take about 3 em with CJK line spacing, under the number
            room = side * 0.30 if "\n" not in text else (side - small.pixelSize() - 5) / 3.0
            big.setPixelSize(max(MIN_TEXT_PX, int(min(room, side * 0.86 / longest))))
            p.setFont(big)
            p.setPen(QColor("#202124"))
            if "\n" in text:           # two lines: from under the number down, not over it
                p.drawText(r.adjusted(1, small.pixelSize() + 4, -1, -1),
                           Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, text)
            else:
                p.drawText(r.adjusted(1, side * 0.25, -1, -1), Qt.AlignmentFlag.AlignCenter, text)
            if card == self.selected:
                p.setPen(QPen(QColor("#1a73e8"), 3))
                p.drawRect(r.adjusted(1, 1, -1, -1))
        p.end()


def kind_short(kind: str) -> str:
    """A kind's name under a narrow strip: its short name, else its name, else the raw kind
    (a kind this version does not know)."""
    for key in (f"kind_short.{kind}", f"kind.{kind}"):
        if key in MESSAGES:
            return tr(key)
    return kind
