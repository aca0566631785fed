"""Reader mode: controls call the player's driver; the session is saved and resumed."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG, tr  # noqa: E402
from trainer.ui.reader_panel import ReaderPanel  # noqa: E402
from trainer.reader.session import (ReaderSession, load_session, parse_card_set,  # noqa: E402
                                       session_path)

from test_ui_app import FakeDriver  # noqa: E402


@pytest.fixture
def settings(tmp_path):
    LANG.set("en")
    return S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def panel(qtbot, settings):
    p = ReaderPanel(settings, FakeDriver())
    qtbot.addWidget(p)
    return p


def test_start_reads_all_100_with_the_joka(panel):
    panel.command("start")
    name, order, joka = panel.driver.calls[0]
    assert name == "start" and joka is True
    assert sorted(order) == list(range(1, 101))
    assert panel.count.text() == "0 / 100"


def test_the_reader_controls_call_the_driver(panel):
    panel.command("start")
    for cmd, call in (("pause", "pause"), ("wait", "hold"), ("repeat", "repeat_shimo"), ("skip", "skip")):
        panel.command(cmd)
        assert panel.driver.calls[-1] == (call,)
    panel.driver.state_changed.emit("paused")
    panel.command("pause")
    assert panel.driver.calls[-1] == ("resume",)
    panel.driver.state_changed.emit("held")
    assert panel.buttons["wait"].text() == "Release the wait"
    panel.command("wait")
    assert panel.driver.calls[-1] == ("release",)
    panel.command("stop")
    assert panel.driver.calls[-1] == ("stop",)
    assert panel.available("start") and not panel.available("pause")


def test_progress_is_counted_listed_and_saved_after_every_card(panel):
    panel.command("start")
    order = panel.session.order
    d = panel.driver
    d.card_started.emit(0)
    d.card_finished.emit(0)
    for no in order[:3]:
        d.card_started.emit(no)
        assert panel.count.text().startswith(f"{order.index(no) + 1} / 100")
        d.card_finished.emit(no)
    assert panel.read_list.count() == 3
    saved = load_session()
    assert saved.read == 3 and saved.joka_done and saved.order == order


def test_a_session_survives_closing_the_app(qtbot, settings, panel):
    panel.command("start")
    order = panel.session.order
    for no in order[:5]:
        panel.driver.card_started.emit(no)
        panel.driver.card_finished.emit(no)
    panel.command("stop")
    again = ReaderPanel(settings, FakeDriver())
    qtbot.addWidget(again)
    assert again.session.read == 5
    assert "card 6" in again.status.text()
    again.command("start")
    name, rest, joka = again.driver.calls[0]
    assert rest == order[5:] and joka is False      # the joka is read once per session


def test_the_poem_is_shown_only_once_its_kimariji_has_sounded(qtbot, panel):
    import time
    panel.command("start")
    no = panel.session.order[0]
    panel.driver.card_started.emit(no)
    assert panel.poem_view.text() == ""
    panel.driver.kimariji.emit(0, no, time.perf_counter())
    qtbot.waitUntil(lambda: panel.poem_view.text() != "", timeout=2000)
    import poems
    assert poems.get(no).kami[0] in panel.poem_view.text()


def test_only_a_given_set_of_cards(panel):
    panel.set_given.setChecked(True)
    panel.set_text.setText("1 5, 22-24")
    assert panel.new_session()
    assert sorted(panel.session.order) == [1, 5, 22, 23, 24]
    panel.command("start")
    assert sorted(panel.driver.calls[0][1]) == [1, 5, 22, 23, 24]
    assert panel.count.text() == "0 / 5"


def test_bad_card_numbers_are_refused_and_the_old_session_kept(panel, monkeypatch):
    from PySide6.QtWidgets import QMessageBox
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: shown.append(a[2]))
    panel.new_session()
    before = panel.session.order
    panel.set_given.setChecked(True)
    panel.set_text.setText("3 101")
    assert not panel.new_session()
    assert panel.session.order == before
    assert "101" in shown[0]


def test_dynamic_kimariji_panel_follows_the_reading(panel, settings):
    settings.set(S.SHOW_KIMARIJI, True)
    # ちぎりきな (42) is read: ちぎりおきし (75) is decided by ちぎ from now on.
    panel.session = ReaderSession(seed=0, order=[42] + [n for n in range(1, 101) if n != 42])
    panel._refresh()
    assert "ちぎりお</span>" in panel.dynamic.toHtml()
    panel.session.read = 1
    panel._refresh()
    html = panel.dynamic.toHtml()
    assert "ちぎりお</span>" not in html
    assert "ちぎ</span>" in html
    assert "42</span>" not in html          # a read card leaves the panel
    settings.set(S.SHOW_KIMARIJI, False)
    panel._refresh()
    assert not panel.dynamic.isVisibleTo(panel)


def test_parse_card_set():
    assert parse_card_set("1, 3 5-7") == [1, 3, 5, 6, 7]
    assert parse_card_set("10〜12、2") == [2, 10, 11, 12]
    for bad in ("", "0", "5-3", "x", "99-101"):
        with pytest.raises(ValueError):
            parse_card_set(bad)


def test_a_damaged_session_file_is_ignored_not_fatal():
    session_path().write_text("{not json")
    assert load_session() is None
    session_path().write_text('{"seed": 1, "order": [1, 1], "read": 0}')
    assert load_session() is None


def test_session_order_is_seeded():
    a = ReaderSession.new(seed=42)
    b = ReaderSession.new(seed=42)
    assert a.order == b.order and sorted(a.order) == list(range(1, 101))
    with pytest.raises(ValueError):
        a.mark_read(a.order[1])


def test_letters_typed_in_the_set_field_reach_the_window_shortcuts(qtbot):
    """Issue 10.15: a focused text field swallowed the single-key shortcuts (W, R, N …)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent

    from trainer.ui.reader_panel import LettersToWindow
    from PySide6.QtWidgets import QLineEdit
    field = QLineEdit()
    qtbot.addWidget(field)
    letters = LettersToWindow(field)
    w = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_W, Qt.KeyboardModifier.NoModifier, "w")
    assert letters.eventFilter(field, w) and not w.isAccepted()
    for key, text in ((Qt.Key.Key_5, "5"), (Qt.Key.Key_Space, " "), (Qt.Key.Key_Minus, "-")):
        e = QKeyEvent(QEvent.Type.ShortcutOverride, key, Qt.KeyboardModifier.NoModifier, text)
        assert not letters.eventFilter(field, e)       # the field's own
    ctrl_a = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier, "")
    assert not letters.eventFilter(field, ctrl_a)      # select-all stays the field's


def test_a_reading_another_mode_stopped_is_no_error_box(qtbot, monkeypatch, tmp_path):
    """The person said yes to stopping the Reader for another mode: the status bar tells it;
    a warning box on top would be a second, alarming message. Real errors still get the box."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from trainer.ui import settings as S
    from trainer.ui.reader_panel import ReaderPanel
    from ui_fakes import FakeDriver
    driver = FakeDriver()
    panel = ReaderPanel(S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), driver)
    qtbot.addWidget(panel)
    boxes = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: boxes.append(a[2]))
    driver.interrupted_by = "Stopped: Match started reading"
    panel._on_error("Stopped: Match started reading")
    assert boxes == [] and not panel.reading
    panel._on_error("the voice could not be read")
    assert boxes == ["the voice could not be read"]


class _PartVoice:
    """A voice holding only some poems (a partly imported one)."""

    def __init__(self, poems):
        self.poems = frozenset(poems)

    def available(self):
        return self.poems


class _PartVoices:
    def __init__(self, poems):
        self._voice = _PartVoice(poems)

    def voice(self, name=None):
        return self._voice

    def needs_synthesis(self):
        return False


def test_a_partly_imported_voice_reads_the_poems_it_has(panel, qtbot):
    """Issue 24: the GUI reader raised 'VoiceError ... not recorded in this voice' where
    `karuta read` reads the poems the voice has."""
    panel.driver.voices = _PartVoices(range(1, 31))         # no joka, poems 1-30
    with qtbot.waitSignal(panel.status_message) as said:
        panel.command("start")
    name, order, joka = panel.driver.calls[0]
    assert sorted(order) == list(range(1, 31)) and joka is False
    assert "has no reading of poem(s) 31, 32" in said.args[0]
    assert panel.session.order == order and load_session().order == order


# --- issue 28: wrong or stale words, controls after a restart -------------------------------

def test_a_shimo_no_ku_only_reading_shows_the_shimo_no_ku_kimariji_in_the_poem_header(qtbot, settings, panel):
    import poems
    from audio.programme import shimo_kimariji
    from trainer.ui.kimariji_text import current_text
    settings.set(S.SHOW_KIMARIJI, True)
    settings.set(S.SHOW_POEM, True)
    panel.shimo_only.setChecked(True)
    panel.command("start")
    order = panel.session.order
    no = order[0]
    panel.driver.card_started.emit(no)
    panel.driver.kimariji.emit(0, no, 0.0)
    qtbot.waitUntil(lambda: panel.revealed, timeout=2_000)
    header = panel.poem_view.text().split("<br>")[0]
    shimo = "".join(shimo_kimariji(no, order))
    assert f"【{shimo}】" in header
    kami = current_text(poems.kimariji.current(no, [], in_play=order))
    assert f"【{kami}】" not in header                          # what it showed before


def test_ticking_shimo_no_ku_only_does_not_turn_a_resumed_reading_into_a_mix(panel):
    told = []
    panel.status_message.connect(told.append)
    panel.command("start")
    for no in panel.session.order[:3]:
        panel.driver.card_started.emit(no)
        panel.driver.card_finished.emit(no)
    panel.command("stop")
    panel.shimo_only.setChecked(True)
    panel.command("start")
    assert panel.session.timing.shimo_only is False          # still both verses, as it began
    assert not panel.shimo_only.isChecked()
    assert told == [tr("reader.shimo_only_kept", kind=tr("reader.kind.both"))]
    assert "new reading" in told[0]


def test_a_restart_shows_the_controls_the_session_was_made_with(qtbot, settings, panel):
    panel.set_given.setChecked(True)
    panel.set_text.setText("1-10 22")
    panel.karafuda.setValue(2)
    panel.order.setCurrentIndex(panel.order.findData("musumefusahose"))
    panel.shimo_only.setChecked(True)
    panel.memorise.setChecked(True)
    panel.memorise_min.setValue(5)
    panel.command("start")
    panel.command("stop")
    again = ReaderPanel(settings, FakeDriver())
    qtbot.addWidget(again)
    assert again.set_given.isChecked() and parse_card_set(again.set_text.text()) == [*range(1, 11), 22]
    assert again.karafuda.value() == 2 and again.karafuda.isEnabled()
    assert again.order.currentData() == "musumefusahose"
    assert again.shimo_only.isChecked()
    assert again.memorise.isChecked() and again.memorise_min.value() == 5


def test_the_karafuda_mark_in_the_list_follows_the_language(panel):
    panel.set_given.setChecked(True)
    panel.set_text.setText("1-10")
    panel.karafuda.setValue(3)
    panel.command("start")
    s = panel.session
    for no in s.order:
        panel.driver.card_started.emit(no)
        panel.driver.card_finished.emit(no)
    items = lambda: [panel.read_list.item(k).text() for k in range(panel.read_list.count())]  # noqa: E731
    assert sum("〔karafuda〕" in t for t in items()) == 3
    LANG.set("ja")
    try:
        assert sum("〔空札〕" in t for t in items()) == 3 and not any("karafuda" in t for t in items())
    finally:
        LANG.set("en")
