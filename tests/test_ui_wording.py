"""Issue 28's wrong or stale words, each in the real window on the silent player."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from audio.player import Player  # noqa: E402
from trainer.text.messages import tr  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from ui_fakes import main_window_on  # noqa: E402


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    LANG.set("en")
    player = Player(backend="silent").open()
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.set(S.JOKA, False)
    settings.set(S.MA, 0.3)
    settings.set(S.PAUSE, 0.3)
    yield from main_window_on(qtbot, monkeypatch, settings, player)


def _tab(w, msg):
    w.set_mode([m for m, _ in w.modes].index(msg))
    return w.mode(msg)


def test_the_wait_menu_and_banners_say_where_the_reader_holds(qtbot, window):
    w = window
    assert "shimo-no-ku" in w.actions_by_name["wait"].text().split("(")[1]
    reader = _tab(w, "mode.reader")
    started = []
    w.driver.card_started.connect(started.append)
    reader.command("start")
    qtbot.waitUntil(lambda: bool(started), timeout=10_000)
    reader.command("wait")                       # during the kami-no-ku
    qtbot.waitUntil(lambda: reader.held, timeout=5_000)
    assert reader.status.text() == "Waiting — held before this card's shimo-no-ku"
    LANG.set("ja")
    assert reader.status.text() == tr("reader.held.shimo") and "下の句" in reader.status.text()


def test_the_match_banner_says_where_the_reader_holds(qtbot, window):
    w = window
    _tab(w, "mode.kyogi")
    w.match.new_match(5)
    w.match.begin_match()
    qtbot.waitUntil(lambda: w.match.session.race is not None, timeout=10_000)
    w.command("wait")
    qtbot.waitUntil(lambda: w.match.banner.text() != "", timeout=10_000)
    assert w.match.banner.text() in (tr("match.waiting.shimo"), tr("match.waiting.kami"))
    assert w.match.banner.text() == tr(f"match.waiting.{w.match.driver.held_before}")


def test_a_drill_refused_the_player_stops_with_the_reason_instead_of_reading_for_ever(qtbot, window):
    """Answering No to "Stop the reading in Match?" left the drill on "Reading…", deaf to clicks."""
    from trainer.ui.drills_panel import DRILLS, SETS
    w = window
    w.ask_stop_reading = lambda mode: False
    _tab(w, "mode.kyogi")
    w.match.new_match(5)
    w.match.begin_match()
    qtbot.waitUntil(lambda: w.match.session.race is not None, timeout=10_000)
    drills = _tab(w, "mode.drills")
    assert w.match.driver.state == "paused"
    drills.drill_box.setCurrentIndex(DRILLS.index("kami_to_torifuda"))
    drills.set_box.setCurrentIndex(SETS.index("all"))
    drills.audio_box.setChecked(True)
    drills.start()
    screen = drills.drill_screen
    assert screen.finished and not drills.running
    assert screen.kami.text() != tr("drill.reading")
    assert screen.status.text() == tr("reading.kept_other")
    assert drills.start_button.isEnabled()
    assert w.match.driver.state == "paused"                  # the match's reading is kept, as chosen


def test_quitting_with_a_match_in_play_asks_first_as_esc_does(qtbot, window):
    w = window
    _tab(w, "mode.kyogi")
    w.match.new_match(5)
    w.match.begin_match()
    qtbot.waitUntil(lambda: w.match.session.race is not None, timeout=10_000)
    asked = []

    def answer(yes):
        def ask():
            asked.append(w.match.driver.state)      # the reading waits while the person decides
            return yes
        return ask
    w.match.confirm_quit = answer(False)
    w.show()
    w.quit_action.trigger()                          # Ctrl+Q
    assert asked == ["paused"] and w.isVisible()
    assert w.match.phase == "play" and w.match.driver.state == "playing"
    w.match.confirm_quit = answer(True)
    w.quit_action.trigger()
    assert len(asked) == 2 and not w.isVisible()
