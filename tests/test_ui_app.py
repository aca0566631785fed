"""The main window: settings remembered in a temporary QSettings, translation, shortcuts."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QKeySequence  # noqa: E402

from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG, MESSAGES, tr  # noqa: E402
from trainer.ui.main_window import MainWindow  # noqa: E402
from ui_fakes import FakeDriver  # noqa: E402


class FakeVoices:
    def imported_names(self):
        return ["my teacher"]

    def needs_synthesis(self):
        return False

    def ensure_ready(self, parent, then=None):
        if then:
            then()


@pytest.fixture
def ini(tmp_path):
    return str(tmp_path / "settings.ini")


@pytest.fixture
def window(qtbot, ini):
    LANG.set("en")
    w = MainWindow(S.Settings(QSettings(ini, QSettings.Format.IniFormat)), driver=FakeDriver(),
                   voices=FakeVoices())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    LANG.set("en")


def test_pyside_refcount_workaround_is_in_place():
    """PySide6 6.12 on Python 3.11 drops references to None/True/False (see trainer.ui._none_refcount)."""
    import sys
    from trainer.ui._none_refcount import bug_present, installed_pyside_version
    if bug_present(installed_pyside_version(), sys.version_info):
        for singleton in (None, True, False):
            assert sys.getrefcount(singleton) > 2**39


def test_every_message_has_both_languages():
    for msg_id, (ja, en) in MESSAGES.items():
        assert ja and en, msg_id


def test_settings_survive_a_restart_in_their_own_file(ini):
    first = S.Settings(QSettings(ini, QSettings.Format.IniFormat))
    first.set(S.MA, 1.6)
    first.set(S.SHOW_KIMARIJI, True)
    first.set(S.LANGUAGE, "ja")
    first.sync()
    again = S.Settings(QSettings(ini, QSettings.Format.IniFormat))
    assert again.get(S.MA) == pytest.approx(1.6)
    assert again.get(S.SHOW_KIMARIJI) is True
    assert again.get(S.LANGUAGE) == "ja"
    assert again.get(S.MEMORISE_MIN) == 15          # never set: the default


def test_bad_stored_values_fall_back_to_defaults(ini):
    store = QSettings(ini, QSettings.Format.IniFormat)
    store.setValue(S.MA.name, "lots")
    store.setValue(S.SPEED.name, 9.0)               # outside 0.7..1.4
    store.setValue(S.JOKA.name, "perhaps")
    settings = S.Settings(store)
    assert settings.get(S.MA) == S.MA.default
    assert settings.get(S.SPEED) == S.SPEED.default
    assert settings.get(S.JOKA) is True


def test_switching_language_retranslates_the_window(window):
    assert window.windowTitle() == MESSAGES["app.title"][1]
    window.set_language("ja")
    assert window.windowTitle() == MESSAGES["app.title"][0]
    assert window.tabs.tabText(0) == "読手"
    assert window.reader.buttons["stop"].text() == "読みをやめる"
    assert window.settings.get(S.LANGUAGE) == "ja"
    window.set_language("en")
    assert window.reader.buttons["stop"].text() == "Stop"


def test_language_is_restored_from_settings(qtbot, ini):
    s = S.Settings(QSettings(ini, QSettings.Format.IniFormat))
    s.set(S.LANGUAGE, "ja")
    w = MainWindow(s, driver=FakeDriver(), voices=FakeVoices())
    qtbot.addWidget(w)
    assert LANG.code == "ja" and tr("mode.match") == "対戦"
    LANG.set("en")


def test_every_mode_is_there(window):
    """Reader, Match, Drills, Games (every registered game's table but kyōgi's), Online, Statistics."""
    from trainer.ui.modes import game_tables
    assert [m for m, _ in window.modes] == ["mode.reader", "mode.kyogi", "mode.drills", "mode.games",
                                            "mode.online", "mode.stats"]
    names = [window.tabs.tabText(k) for k in range(window.tabs.count())]
    assert names == ["Reader", "Match", "Drills", "Games", "Online", "Statistics"]
    assert len(names) == len(window.modes) == window.stack.count()
    for msg, panel in window.modes:             # every mode speaks the commands protocol
        assert callable(panel.available) and callable(panel.command), msg
        assert msg in MESSAGES, msg
    tables = [g for g, _, _ in game_tables() if g != "kyogi"]
    assert "mubeyama" in tables
    assert [g for g, _ in window.games.games] == tables
    for game, panel in window.games.games:
        assert callable(panel.available) and callable(panel.command), game
    assert window.games.tabs.tabText(0) == "Mubeyama"


def test_a_mode_that_fails_to_build_stops_the_window_loudly(qtbot, ini, monkeypatch):
    """A tab that silently disappears hides a broken build; the window refuses to open instead."""
    import trainer.ui.main_window as mw
    monkeypatch.setattr(mw, "MODES", (("mode.drills", "trainer.ui.no_such_panel", "X",
                                       lambda cls, s, v: cls()),))
    with pytest.raises(mw.ModeBuildError, match="drills mode .*no_such_panel.* could not be built"):
        mw.MainWindow(S.Settings(QSettings(ini, QSettings.Format.IniFormat)), driver=FakeDriver(),
                      voices=FakeVoices())


def test_a_game_table_that_fails_to_build_stops_the_window_loudly(qtbot, ini, monkeypatch):
    import trainer.ui.modes as modes
    monkeypatch.setattr(modes, "game_tables", lambda: [("kyogi", "trainer.ui.match_panel", "MatchPanel"),
                                                       ("mubeyama", "trainer.ui.gone", "Table")])
    import trainer.ui.games_panel as gp
    monkeypatch.setattr(gp, "game_tables", modes.game_tables)
    import trainer.ui.main_window as mw
    with pytest.raises(mw.ModeBuildError, match="mubeyama mode .*trainer.ui.gone"):
        mw.MainWindow(S.Settings(QSettings(ini, QSettings.Format.IniFormat)), driver=FakeDriver(),
                      voices=FakeVoices())


def test_the_app_says_which_mode_is_broken(qtbot, monkeypatch, capsys):
    import trainer.ui.app as app
    import trainer.ui.main_window as mw
    from PySide6.QtWidgets import QMessageBox

    def broken():
        raise mw.ModeBuildError("the drills mode (x.Y) could not be built: ImportError: gone")
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a: shown.append(a[2]))
    assert app.open_window(broken) is None
    assert "drills mode" in capsys.readouterr().err and "drills mode" in shown[0]


def test_shortcuts_are_bound_and_shown(window):
    acts = window.actions_by_name
    assert QKeySequence("Space") in acts["pause"].shortcuts()
    assert QKeySequence("W") in acts["wait"].shortcuts()
    assert QKeySequence("R") in acts["repeat"].shortcuts()
    assert {QKeySequence("N"), QKeySequence("Right")} <= set(acts["skip"].shortcuts())
    assert QKeySequence("Esc") in acts["stop"].shortcuts()
    assert "[Space]" in acts["pause"].toolTip()
    assert "[W]" in window.reader.buttons["wait"].toolTip()


def test_keys_drive_the_reader(qtbot, window):
    driver = window.driver
    window.set_mode(0)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert driver.calls[0][0] == "start" and len(driver.calls[0][1]) == 100
    window._update_actions()
    for key, call in ((Qt.Key.Key_Space, "pause"), (Qt.Key.Key_W, "hold"), (Qt.Key.Key_R, "repeat_shimo"),
                      (Qt.Key.Key_N, "skip"), (Qt.Key.Key_Right, "skip"), (Qt.Key.Key_Escape, "stop")):
        qtbot.keyClick(window, key)
        assert driver.calls[-1] == (call,), key


def test_mode_and_geometry_are_remembered(qtbot, ini, window):
    window.set_mode(1)
    window.resize(1234, 800)
    window.close()
    again = S.Settings(QSettings(ini, QSettings.Format.IniFormat))
    assert again.get(S.MODE) == 1
    assert again.get(S.GEOMETRY)


def test_silent_mode_and_a_lost_device_are_shown_in_the_status_bar(window, qtbot):
    """Issue 10.12: the person is never left guessing whether sound comes out."""
    from trainer.ui.reading import notify_sound

    class SilentPlayer:
        silent = True
        status_message = "no sound output device (test). Playing silently"

    window.voices.has_player = lambda: True
    window.voices.player = lambda: SilentPlayer()
    window._update_actions()
    assert window.sound_status.text() == tr("reader.no_sound")
    assert "no sound output device" in window.sound_status.toolTip()
    notify_sound("The sound device stopped ('default'). The reading is paused")
    assert "paused" in window.statusBar().currentMessage()
    SilentPlayer.silent = False
    window._update_actions()
    assert window.sound_status.text() == ""


def test_a_letter_typed_in_the_readers_set_field_still_works_the_window(window, qtbot):
    """K (show kimariji) with the focus in the card-set field: the field takes no letters."""
    window.set_mode(0)
    field = window.reader.set_text
    field.setEnabled(True)
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    before = window.kimariji_action.isChecked()
    qtbot.keyClick(field, Qt.Key.Key_K)
    assert window.kimariji_action.isChecked() != before and field.text() == ""
    qtbot.keyClick(field, Qt.Key.Key_5)
    assert field.text() == "5"
    window.kimariji_action.setChecked(before)
