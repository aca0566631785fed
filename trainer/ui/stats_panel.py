"""Statistics mode: the dashboard of every trial, and one page per card.

The dashboard shows, for all kinds of trial or one: the mean reaction time by
day (trend), the 100 cards as a heat grid by weakness, the recent reactions of
the selected card (box and strip per kind), the weakest cards, and the faults
by kind. A click on a card selects it; a double click (or the weakest list,
or the button under the strip) opens its page: the poem, its totals, and its
whole history as a chart and a table. Export writes every trial to CSV.

Figures come from ``trainer.stats.aggregates.dashboard_data`` (summary
tables and index-backed queries, never a scan of the trials); the panel
refreshes when it is shown and the store has new trials. A damaged database
that the store set aside at open is announced once, in a banner.
"""
from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QFrame, QGridLayout,
                               QHBoxLayout, QHeaderView, QLabel, QPushButton, QStackedWidget,
                               QTableView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from trainer.text.stats import kind_name
from trainer.stats.aggregates import UNIT, WEAK_MIN_TRIALS, card_totals, family_of, time_text
from trainer.stats.store import KINDS
from trainer.ui.i18n import LANG, tr
from trainer.ui.kimariji_text import static_text
from trainer.ui.stats_store import UsesStatsStore

WEAKEST_N = 10


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


class StatsPanel(UsesStatsStore, QWidget):
    def __init__(self, settings=None, store=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self._store = store
        self.data = None
        self.selected: int | None = None
        self._seen_max_id = -1
        self._charts_built = False
        self._build()
        LANG.changed.connect(self.retranslate)
        self.retranslate()


    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.kind_box = QComboBox()
        self.kind_box.addItem("", None)
        for kind in KINDS:
            self.kind_box.addItem("", kind)
        self.kind_box.currentIndexChanged.connect(lambda *_: self.refresh())
        self.kind_label = QLabel()
        self.refresh_button = QPushButton()
        self.refresh_button.clicked.connect(self.refresh)
        self.export_button = QPushButton()
        self.export_button.clicked.connect(lambda: self.export_csv())
        self.summary = QLabel()
        bar = QHBoxLayout()
        bar.addWidget(self.kind_label)
        bar.addWidget(self.kind_box)
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.refresh_button)
        bar.addWidget(self.export_button)

        self.banner = QFrame()
        self.banner.setStyleSheet("QFrame { background: #fef7e0; border: 1px solid #f9ab00; }")
        self.banner_text = QLabel()
        self.banner_text.setWordWrap(True)
        self.dismiss_button = QPushButton()
        self.dismiss_button.clicked.connect(self.banner.hide)
        b = QHBoxLayout(self.banner)
        b.addWidget(self.banner_text, 1)
        b.addWidget(self.dismiss_button)
        self.banner.hide()

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.stack = QStackedWidget()
        self.dashboard = QWidget()
        self.grid = QGridLayout(self.dashboard)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.dashboard)
        self.card_page: CardPage | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.banner)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.status)

    def _build_charts(self) -> None:
        """The charts (pyqtgraph is imported here: the first refresh, not the app's start)."""
        if self._charts_built:
            return
        from trainer.ui import stats_charts as C
        self.trend = C.TrendChart()
        self.heat = C.HeatGrid()
        self.heat.card_clicked.connect(self.select_card)
        self.heat.card_activated.connect(self.open_card)
        self.heat_title = QLabel(wordWrap=True)      # a long title wraps, not widens the page
        self.heat_legend = QLabel(wordWrap=True)      # a long title wraps, not widens the page
        self.heat_legend.setStyleSheet("color: #5f6368;")
        heat_box = QVBoxLayout()
        heat_box.addWidget(self.heat_title)
        heat_box.addWidget(self.heat, 1)
        heat_box.addWidget(self.heat_legend)
        self.dist = C.DistributionChart()
        self.card_button = QPushButton()
        self.card_button.setEnabled(False)
        self.card_button.clicked.connect(self._open_selected)
        dist_box = QVBoxLayout()
        dist_box.addWidget(self.dist, 1)
        dist_box.addWidget(self.card_button)
        self.weak_title = QLabel(wordWrap=True)      # a long title wraps, not widens the page
        for label in (self.heat_title, self.heat_legend, self.weak_title):
            label.setMinimumWidth(120)      # a wrapping label still asks for a wide line by default
        self.weak_family_label = QLabel()
        self.weak_family = QComboBox()      # the table ranks within one timing family
        self.weak_family.currentIndexChanged.connect(self._family_chosen)
        self.weak_table = QTableWidget(0, 5)
        self.weak_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.weak_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.weak_table.verticalHeader().hide()
        self.weak_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.weak_table.cellClicked.connect(lambda row, _c: self.select_card(self._weak_card(row)))
        self.weak_table.cellDoubleClicked.connect(lambda row, _c: self.open_card(self._weak_card(row)))
        weak_head = QHBoxLayout()
        weak_head.addWidget(self.weak_title, 1)
        weak_head.addWidget(self.weak_family_label)
        weak_head.addWidget(self.weak_family)
        weak_box = QVBoxLayout()
        weak_box.addLayout(weak_head)
        weak_box.addWidget(self.weak_table, 1)
        self.faults = C.FaultsChart()
        self.grid.addWidget(self.trend, 0, 0, 1, 2)
        heat_box.addWidget(self.empty)          # (shown only with no trials at all)
        # the card grid takes the whole height: 100 cells need 40 px each for two-line kimariji
        self.grid.addLayout(heat_box, 0, 2, 3, 1)
        self.grid.addLayout(dist_box, 1, 0)
        self.grid.addWidget(self.faults, 1, 1)
        self.grid.addLayout(weak_box, 2, 0, 1, 2)
        self.grid.setColumnStretch(0, 3)
        self.grid.setColumnStretch(1, 2)
        self.grid.setColumnStretch(2, 4)
        self.grid.setRowStretch(0, 4)        # two stacked plots: their axis labels need the height
        self.grid.setRowStretch(1, 3)
        self.grid.setRowStretch(2, 2)
        self._charts_built = True
        self._retranslate_charts()

    def retranslate(self, *_) -> None:
        self.kind_label.setText(tr("stats.kind"))
        self.kind_box.setItemText(0, tr("stats.kind_all"))
        for k, kind in enumerate(KINDS, start=1):
            self.kind_box.setItemText(k, tr(f"kind.{kind}"))
        self.refresh_button.setText(tr("stats.refresh"))
        self.export_button.setText(tr("stats.export"))
        self.dismiss_button.setText(tr("stats.dismiss"))
        self.empty.setText(tr("stats.empty"))
        if self._charts_built:
            self._retranslate_charts()
            if self.data is not None and self.isVisible():
                self._draw()
            else:
                self.data = None       # redrawn in the new language when next shown
        if self.card_page is not None:
            self.card_page.retranslate()

    def _retranslate_charts(self) -> None:
        self.heat_title.setText(tr("stats.heat"))
        self.heat_legend.setText(tr("stats.heat_legend"))
        self.weak_title.setText(tr("stats.weakest"))
        self.weak_family_label.setText(tr("stats.weak_family"))
        for k in range(self.weak_family.count()):
            family = self.weak_family.itemData(k)
            self.weak_family.setItemText(k, f"{tr(f'family.{family}')} ({UNIT[family]})")
        self._weak_headers()

    def _weak_headers(self) -> None:
        family = self.weak_family.currentData()
        unit = UNIT[family] if family else "ms"
        self.weak_table.setHorizontalHeaderLabels(
            [tr("col.card"), "", tr("col.accuracy"), tr("col.median", unit=unit), tr("col.trials")])

    # -- data ----------------------------------------------------------------------------------
    @property
    def kind(self) -> str | None:
        return self.kind_box.currentData()

    def showEvent(self, event):
        super().showEvent(event)
        self.announce_recovery()
        if self._max_id() != self._seen_max_id or self.data is None:
            self.refresh()

    def _max_id(self) -> int:
        try:
            return int(self.store.query("SELECT coalesce(max(id), 0) FROM trials")[0][0])
        except Exception:      # reported by refresh()
            return -2

    def announce_recovery(self) -> None:
        """The store's damaged-database message, once per run, whichever mode shows it first."""
        from trainer.ui.stats_store import take_recovery_message
        try:
            store = self.store
        except Exception:
            return
        message = take_recovery_message(store)
        if message:
            self.banner_text.setText(f"<b>{tr('stats.recovery_title')}</b>: {message}")
            self.banner.show()

    def refresh(self) -> None:
        """Recompute the figures and redraw; a store error is shown, not raised."""
        from trainer.stats.aggregates import dashboard_data
        from trainer.stats.store import StatsError
        try:
            self._seen_max_id = self._max_id()
            self.data = dashboard_data(self.store, self.kind, weakest_n=WEAKEST_N)
        except (StatsError, OSError) as exc:
            self.status.setText(str(exc))
            return
        self._build_charts()
        self._draw()

    def _draw(self) -> None:
        d = self.data
        self.summary.setText(tr("stats.summary", n=f"{d.total_trials:,}", acc=_pct(d.accuracy),
                                due=d.srs_due, new=d.srs_new))
        self.empty.setVisible(d.total_trials == 0)
        self.trend.set_data(d.trend)
        self.heat.set_data(d.cards)
        self.faults.set_data(d.faults)
        self._fill_families()
        self._fill_weakest()
        if self.selected is None and d.weakest:
            self.selected = d.weakest[0]
        self.select_card(self.selected)

    def _fill_families(self) -> None:
        """The timing families with rated cards; the one shown stays if it still has some."""
        shown = self.weak_family.currentData()
        families = list(self.data.weakest_by_family)
        self.weak_family.blockSignals(True)
        self.weak_family.clear()
        for family in families:
            self.weak_family.addItem(f"{tr(f'family.{family}')} ({UNIT[family]})", family)
        if shown in families:
            self.weak_family.setCurrentIndex(families.index(shown))
        self.weak_family.blockSignals(False)
        self.weak_family.setEnabled(len(families) > 1)

    def _fill_weakest(self) -> None:
        """The weakest cards of the family chosen: fewest right, then slowest (median)."""
        family = self.weak_family.currentData()
        rows = self.data.weakest_by_family.get(family, ())
        self._weak_headers()
        self.weak_title.setText(tr("stats.weakest") if rows or not self.data.total_trials
                                else tr("stats.weak_none", n=WEAK_MIN_TRIALS))
        self.weak_table.setRowCount(len(rows))
        for row, c in enumerate(rows):
            no = c.card
            values = [str(no), static_text(no), _pct(c.accuracy),
                      time_text(c.median_ms, UNIT[family]), str(c.n)]
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, no)
                self.weak_table.setItem(row, col, item)

    def _family_chosen(self, *_) -> None:
        if self.data:
            self._fill_weakest()

    def _weak_card(self, row: int) -> int:
        item = self.weak_table.item(row, 0)
        assert item is not None, "a clicked row has its cells"
        return int(item.data(Qt.ItemDataRole.UserRole))

    def select_card(self, card: int | None) -> None:
        from trainer.stats.aggregates import DIST_WINDOW, recent_trials
        self.selected = card
        if not self._charts_built:
            return
        self.heat.selected = card
        self.heat.update()
        if card is None:
            self.dist.set_data(None, "", [])
            self.card_button.setEnabled(False)
            return
        self.dist.set_data(card, static_text(card), recent_trials(self.store, card, DIST_WINDOW, self.kind))
        self.card_button.setText(tr("stats.card_title", card=card, poet=static_text(card)) + " →")
        self.card_button.setEnabled(True)

    def _open_selected(self) -> None:
        if self.selected:
            self.open_card(self.selected)

    # -- the card page ---------------------------------------------------------------------------
    def open_card(self, card: int) -> None:
        from trainer.stats.aggregates import card_history
        if self.card_page is None:
            self.card_page = CardPage()
            self.card_page.back.clicked.connect(self.show_dashboard)
            self.stack.addWidget(self.card_page)
        self.card_page.show_card(card, card_history(self.store, card, self.kind))
        self.stack.setCurrentWidget(self.card_page)

    def show_dashboard(self) -> None:
        self.stack.setCurrentWidget(self.dashboard)

    # -- export ----------------------------------------------------------------------------------
    def export_csv(self, path: str | None = None) -> int | None:
        """Every trial to a CSV file (asked for if not given); the count, or None."""
        from trainer.stats.store import StatsError
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, tr("stats.export"),
                                                  f"karuta-trials-{datetime.now():%Y%m%d}.csv",
                                                  "CSV (*.csv)")
            if not path:
                return None
        try:
            n = self.store.export_csv(path)
        except (StatsError, OSError) as exc:
            self.status.setText(tr("stats.export_failed", err=exc))
            return None
        self.status.setText(tr("stats.exported", n=f"{n:,}", path=path))
        return n

    # -- the main window -------------------------------------------------------------------------
    def available(self, name: str) -> bool:
        return False

    def command(self, name: str) -> None:
        pass

    def settings_changed(self) -> None:
        self.retranslate()


class HistoryModel(QAbstractTableModel):
    """A card's trials, newest first, without a widget per cell (a card may have thousands)."""

    COLUMNS = ("col.time", "col.kind", "col.answer", "col.correct", "col.reaction",
               "col.fault", "col.voice")

    def __init__(self, rows=()):
        super().__init__()
        self.rows = list(rows)

    def set_rows(self, rows) -> None:
        self.beginResetModel()
        self.rows = list(reversed(rows))
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.COLUMNS[section])
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole or not index.isValid():
            return None
        r = self.rows[index.row()]
        col = index.column()
        if col == 0:
            return datetime.fromtimestamp(r.at).strftime("%Y-%m-%d %H:%M:%S")
        if col == 1:
            return kind_name(r.kind)
        if col == 2:
            return r.answer or ""
        if col == 3:
            return "○" if r.correct else "×"
        if col == 4:
            unit = UNIT[family_of(r.kind)] if r.kind in KINDS else "ms"
            return "" if r.reaction_ms is None else f"{time_text(r.reaction_ms, unit)} {unit}"
        if col == 5:
            return "" if r.fault is None else (tr(f"fault.{r.fault}") if f"fault.{r.fault}" in _messages()
                                               else r.fault)
        return r.voice or ""


def _messages():
    from trainer.ui.i18n import MESSAGES
    return MESSAGES


def card_totals_text(history) -> str:
    """Trials and right answers, then a median time per timing family in its unit
    (`trainer.stats.aggregates.card_totals`)."""
    totals = card_totals(history)
    medians = [tr("stats.family_median", family=tr(f"family.{f}"), t=time_text(ms, UNIT[f]), unit=UNIT[f])
               for f, ms in totals.medians.items()]
    return " ・ ".join([tr("stats.card_totals", n=f"{totals.trials:,}", acc=_pct(totals.accuracy)), *medians])


class CardPage(QWidget):
    """One card: the torifuda, the poem, its totals, and every trial (chart and table)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        from trainer.ui.drills_field import TorifudaView
        from trainer.ui.stats_charts import HistoryChart
        self.card: int | None = None
        self.history = []
        self.back = QPushButton(tr("stats.back"))
        self.title = QLabel()
        font = self.title.font()
        font.setPixelSize(22)
        self.title.setFont(font)
        self.poem = QLabel()
        self.poem.setWordWrap(True)
        self.totals = QLabel()
        self.view = TorifudaView()
        self.view.setFixedSize(170, 230)
        self.chart = HistoryChart()
        self.model = HistoryModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        head = QVBoxLayout()
        head.addWidget(self.back, 0, Qt.AlignmentFlag.AlignLeft)
        head.addWidget(self.title)
        head.addWidget(self.poem)
        head.addWidget(self.totals)
        head.addStretch(1)
        top = QHBoxLayout()
        top.addWidget(self.view)
        top.addLayout(head, 1)
        top.addWidget(self.chart, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top, 2)
        layout.addWidget(self.table, 3)

    def retranslate(self) -> None:
        """The language changed: the same card, its words in the new language."""
        self.model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(HistoryModel.COLUMNS) - 1)
        if self.card is not None:
            self.model.layoutChanged.emit()     # kinds and faults are words too
            self.show_card(self.card, self.history)

    def show_card(self, card: int, history) -> None:
        import poems
        self.card = card
        self.history = history
        p = poems.get(card)
        self.view.show_card(card)
        self.back.setText(tr("stats.back"))
        self.title.setText(f"{tr('stats.card_title', card=card, poet=p.poet)}　【{static_text(card)}】")
        self.poem.setText(f"{'　'.join(p.kami)}<br>{'　'.join(p.shimo)}")
        self.totals.setText(card_totals_text(history))
        self.model.set_rows(history)
        self.chart.set_data(history)
