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
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.stats_demo import simulate  # noqa: E402
from trainer.ui.stats_panel import StatsPanel  # noqa: E402

def _damaged_store():
    """Our own database in the data folder, with two b-tree pages scribbled over."""
    from trainer.stats.store import Trial, default_path
    path = default_path()
    with StatsStore.open(path) as s:
        s.record_many(Trial("match", 1 + i % 100, True, at=1_700_000_000.0 + i)
                      for i in range(200))
        s.query("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[4096 * 2: 4096 * 4] = os.urandom(8192)
    path.write_bytes(bytes(data))
    return StatsStore.open(path)



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
    assert "Card 17" in panel.dist.title.text
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
    damaged = _damaged_store()
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
