"""Statistics mode: the dashboard on a small store, card page, CSV export, the recovery message."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import csv  # noqa: E402
import shutil  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402

from trainer.stats.aggregates import card_history  # noqa: E402
from trainer.stats.store import StatsStore, Trial  # noqa: E402
from stats_fakes import damaged_store  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.stats.demo import simulate  # noqa: E402
from trainer.ui.stats_panel import StatsPanel  # noqa: E402


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """Twelve simulated days of practice, built once and copied for each test."""
    path = tmp_path_factory.mktemp("sim") / "stats.sqlite3"
    with StatsStore.open(path) as s:
        simulate(s, days=12, seed=3)
    return path


@pytest.fixture
def store(simulated, tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))
    shutil.copy(simulated, tmp_path / "stats.sqlite3")
    s = StatsStore.open(tmp_path / "stats.sqlite3")
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, store):
    LANG.set("en")
    p = StatsPanel(store=store)
    qtbot.addWidget(p)
    p.resize(1400, 860)
    p.show()
    return p


def test_dashboard_draws_the_store(qtbot, panel, store):
    d = panel.data
    assert d is not None and d.total_trials == store.count() > 0
    assert f"{store.count():,} trials" in panel.summary.text()
    assert len(panel.heat.cards) == 100
    weakest = d.weakest_by_family[panel.weak_family.currentData()]   # the table: one family
    assert panel.weak_table.rowCount() == len(weakest) > 0
    assert panel.weak_table.item(0, 0).text() == str(weakest[0].card)
    assert all(p.listDataItems() for p in panel.trend.plots.values())   # lines drawn
    assert panel.faults.getPlotItem().items                   # bars drawn
    assert panel.selected == d.weakest[0]                     # weakest card shown first
    assert not panel.grab().isNull()


def test_kind_filter_redraws_one_kind(qtbot, panel, store):
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("fuda_nagashi"))
    n = store.query("SELECT count(*) FROM trials WHERE kind = 'fuda_nagashi'")[0][0]
    assert panel.data.kind == "fuda_nagashi" and panel.data.total_trials == n


def test_click_a_card_then_open_its_page(qtbot, panel, store):
    card = 17
    qtbot.mouseClick(panel.heat, Qt.MouseButton.LeftButton,
                     pos=panel.heat.cell_rect(card).center().toPoint())
    assert panel.selected == card and panel.heat.selected == card
    assert "Card 17" in panel.dist.title.text()
    qtbot.mouseClick(panel.card_button, Qt.MouseButton.LeftButton)
    page = panel.card_page
    assert panel.stack.currentWidget() is page and page.card == card
    assert page.model.rowCount() == len(card_history(store, card))
    if page.model.rowCount():
        newest = card_history(store, card)[-1]
        assert page.model.index(0, 3).data() == ("○" if newest.correct else "×")
    qtbot.mouseClick(page.back, Qt.MouseButton.LeftButton)
    assert panel.stack.currentWidget() is panel.dashboard


def test_weakest_list_opens_the_card_page(qtbot, panel):
    first = panel.data.weakest_by_family[panel.weak_family.currentData()][0].card
    panel.weak_table.cellDoubleClicked.emit(0, 0)
    assert panel.card_page.card == first


def test_export_csv_from_the_button(qtbot, panel, store, tmp_path, monkeypatch):
    dest = tmp_path / "out" / "trials.csv"
    dest.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(dest), "CSV (*.csv)"))
    qtbot.mouseClick(panel.export_button, Qt.MouseButton.LeftButton)
    with open(dest, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0][:3] == ["id", "time", "kind"]
    assert len(rows) - 1 == store.count()
    assert "Wrote" in panel.status.text()


def test_export_to_an_unwritable_place_says_so(qtbot, panel, tmp_path):
    assert panel.export_csv(str(tmp_path / "missing-dir" / "x.csv")) is None
    assert "Export failed" in panel.status.text()


def test_new_trials_appear_when_the_panel_is_shown_again(qtbot, panel, store):
    before = panel.data.total_trials
    panel.hide()
    store.record(Trial("fuda_nagashi", 5, True, "ki", 1234.0))
    panel.show()
    assert panel.data.total_trials == before + 1


def test_empty_store_says_there_is_nothing_yet(qtbot, tmp_path):
    LANG.set("en")
    with StatsStore.open(tmp_path / "empty.sqlite3") as empty:
        p = StatsPanel(store=empty)
        qtbot.addWidget(p)
        p.show()
        assert p.data.total_trials == 0
        assert p.empty.isVisible() and "No trials yet" in p.empty.text()
        assert not p.grab().isNull()


def test_recovery_message_is_shown_once(qtbot, tmp_path):
    LANG.set("en")
    damaged = damaged_store()
    assert damaged.recovery_message
    try:
        first = StatsPanel(store=damaged)
        qtbot.addWidget(first)
        first.show()
        assert first.banner.isVisible()
        assert "set aside" in first.banner_text.text()
        qtbot.mouseClick(first.dismiss_button, Qt.MouseButton.LeftButton)
        assert not first.banner.isVisible()
        second = StatsPanel(store=damaged)
        qtbot.addWidget(second)
        second.show()
        assert not second.banner.isVisible()
    finally:
        damaged.close()


def test_japanese_labels(qtbot, panel):
    LANG.set("ja")
    try:
        assert panel.export_button.text() == "CSV に書き出す…"
        assert "試行" in panel.summary.text()
    finally:
        LANG.set("en")


# -- timing families, axes and language (issue 10, points 14-15) -------------------------------

def _one_day_store(path):
    """One evening: match touches (ms), fuda-nagashi answers (s), Mubeyama flips (s)."""
    import time as _time
    at = _time.time() - 3600
    s = StatsStore.open(path)
    trials = [Trial("match", 1 + k % 5, True, reaction_ms=280.0 + k, at=at + k) for k in range(15)]
    trials += [Trial("fuda_nagashi", 1 + k % 5, True, reaction_ms=12_000.0, at=at + 20 + k)
               for k in range(15)]
    trials += [Trial("mubeyama", 1 + k % 3, True, reaction_ms=70_000.0 if k == 0 else 9_000.0,
                     at=at + 40 + k) for k in range(9)]
    s.record_many(trials)
    return s


@pytest.fixture
def one_day(qtbot, tmp_path):
    LANG.set("en")
    s = _one_day_store(tmp_path / "one-day.sqlite3")
    p = StatsPanel(store=s)
    qtbot.addWidget(p)
    p.resize(1400, 860)
    p.show()
    yield p
    s.close()


def _kinds_drawn(plot):
    from trainer.ui.stats_charts import KIND_COLOURS
    colours = {v: k for k, v in KIND_COLOURS.items()}
    kinds = set()
    for item in plot.listDataItems():
        brush = item.opts.get("symbolBrush")
        pen = item.opts.get("pen")
        for c in (getattr(brush, "color", lambda: None)(), getattr(pen, "color", lambda: None)()):
            if c is not None and c.name() in colours:
                kinds.add(colours[c.name()])
    return kinds


def test_no_chart_mixes_reaction_answer_and_flip_times(one_day):
    from trainer.stats.aggregates import family_of
    plots = one_day.trend.plots
    assert list(plots) == ["reaction", "answer", "flip"]
    for family, plot in plots.items():
        assert {family_of(k) for k in _kinds_drawn(plot)} == {family}
        unit = "ms" if family == "reaction" else "s"
        assert plot.getAxis("left").labelText == unit
        assert plot.titleLabel.text.endswith(f"({unit})")       # says what it measures
    # Mubeyama in seconds: the day's mean of a 70 s flip and eight 9 s ones is 15.8 s,
    # not 15,778 on a ms axis beside 285 ms touches
    lo, hi = plots["flip"].viewRange()[1]
    assert lo == 0 and 15.8 < hi < 20
    one_day.select_card(1)
    assert set(one_day.dist.plots) == {"reaction", "answer", "flip"}


def test_one_day_of_data_has_a_date_axis_and_a_readable_height(one_day):
    from datetime import date
    plot = one_day.trend.plots["reaction"]
    axis = plot.getAxis("bottom")
    lo, hi = plot.viewRange()[0]
    assert hi - lo >= 2 * 86400                                 # not a second around one point
    ticks = axis.tickValues(lo, hi, 800)
    labels = axis.tickStrings(ticks[0][1], 1.0, ticks[0][0])
    assert date.today().isoformat() in labels
    assert all(len(s) == 10 and s[4] == "-" for s in labels)   # 2026-11-23, not 59.600
    ylo, yhi = plot.viewRange()[1]
    assert ylo == 0 and yhi >= 294                             # the whole bar from zero


def test_the_weakest_table_ranks_within_the_family_shown(one_day, qtbot):
    families = [one_day.weak_family.itemData(k) for k in range(one_day.weak_family.count())]
    assert families == ["reaction", "answer", "flip"]
    one_day.weak_family.setCurrentIndex(families.index("flip"))
    header = one_day.weak_table.horizontalHeaderItem(3).text()
    assert header == "Median s"
    rows = [one_day.weak_table.item(r, 0).text() for r in range(one_day.weak_table.rowCount())]
    medians = [one_day.weak_table.item(r, 3).text() for r in range(one_day.weak_table.rowCount())]
    assert rows and all(m == "9.0" for m in medians)           # a 70 s flip moves no median
    one_day.weak_family.setCurrentIndex(families.index("reaction"))
    assert one_day.weak_table.horizontalHeaderItem(3).text() == "Median ms"


def test_the_card_page_follows_a_language_switch(one_day):
    one_day.open_card(1)
    page = one_day.card_page
    assert "Card 1" in page.title.text() and "median" in page.totals.text()
    assert "12.0 s" in page.totals.text() and " ms" in page.totals.text()   # each in its unit
    try:
        LANG.set("ja")
        assert "1番" in page.title.text() and "ダッシュボード" in page.back.text()
        assert "中央値" in page.totals.text()
        assert page.model.headerData(4, Qt.Orientation.Horizontal) == "時間"
        assert one_day.weak_family.itemText(0).startswith("決まり字からの反応")
        assert "日ごとの平均" in one_day.trend.plots["reaction"].titleLabel.text
    finally:
        LANG.set("en")
    assert "Card 1" in page.title.text()


def test_a_short_plots_value_labels_never_overlap_and_one_always_shows(qtbot):
    """At 1024×700 the stacked trends have ~23 px of value axis: pyqtgraph printed "600" over
    "400" there (issue 28). Labels are now a label's height apart at least, each fits whole
    (pyqtgraph drops one past an end), and at least one shows."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from trainer.ui.stats_charts import ValueAxis
    axis = ValueAxis("left")
    label = QFontMetricsF(axis.style.get("tickFont") or QFont()).height()
    for low, high, size in [(0, 977, 23), (0, 1.1, 23), (0, 982, 78), (250, 950, 45), (0, 980, 300)]:
        ticks = sorted({t for _, level in axis.tickValues(low, high, size) for t in level})
        px = [(t - low) * size / (high - low) for t in ticks]
        assert px, (low, high, size)
        assert all(b - a >= label for a, b in zip(px, px[1:])), (low, high, size, ticks)
        assert all(label / 2 <= p <= size - label / 2 for p in px), (low, high, size, ticks)
    assert len(axis.tickValues(0, 980, 300)[0][1]) >= 4          # a tall plot keeps its scale
