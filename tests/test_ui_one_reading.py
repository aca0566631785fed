"""One reading at a time (issue 10, point 11): the real reading drivers on one silent player.

Every mode has its own `ReadingDriver` on the shared player; a second one starting
used to steal the first one's programme and events, freezing both. Now the one
that starts settles with the busy one first: stopped with a notice, or, in the
main window, after asking the person; leaving a mode pauses its reading.
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from audio.fake_voice import ToneVoice  # noqa: E402
from audio.player import Player  # noqa: E402
from trainer.ui import reading  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.reader.session import ReadingTiming  # noqa: E402
from trainer.ui.reading import ReadingDriver, busy_drivers, set_arbiter  # noqa: E402
from trainer.ui.voices import VoiceBook  # noqa: E402

FAST = ReadingTiming(ma=0.1, pause=0.1, speed=1.0, voice="synth", joka=False)


@pytest.fixture
def book(tmp_path):
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    player = Player(backend="silent").open()
    voices = VoiceBook(settings, player=player)
    voices._voices["synth"] = ToneVoice(mora_s=0.02, yoin_s=0.05)
    set_arbiter(None)
    yield voices
    for d in busy_drivers():
        d.stop()
    set_arbiter(None)
    player.close()


def _reading(qtbot, driver, order):
    started = []
    driver.card_started.connect(started.append)
    driver.start(order, FAST, joka=False)
    qtbot.waitUntil(lambda: bool(started), timeout=10_000)
    return started


def test_a_second_reading_stops_the_first_with_a_notice_and_reads_to_the_end(qtbot, book):
    match, drill = ReadingDriver(book), ReadingDriver(book, name="Drills")
    errors, notices = [], []
    match.error.connect(errors.append)

    class Bar:      # the status bar's part
        def show(self, text):
            notices.append(text)
    bar = Bar()
    reading.on_sound_notice(bar.show)
    _reading(qtbot, match, [7, 3, 99])
    match.pause()
    finished = []
    drill.card_finished.connect(finished.append)
    with qtbot.waitSignal(drill.finished, timeout=30_000):
        drill.start([12, 44], FAST, joka=False)
        assert match.state == "idle" and errors and "Drills" in errors[0]
        assert busy_drivers() == [drill]                 # never both
    assert finished == [12, 44]                          # the drill is not frozen
    assert notices == errors
    # and the first one can read again afterwards: nothing is left stuck
    with qtbot.waitSignal(match.finished, timeout=30_000):
        match.start([5], FAST, joka=False)


def test_an_arbiter_that_says_no_keeps_the_paused_reading_and_refuses_the_new_one(qtbot, book):
    class Window:
        def __init__(self):
            self.asked = []
            self.answer = False

        def may_stop(self, others, starting):
            self.asked.append((list(others), starting))
            return self.answer
    window = Window()
    set_arbiter(window.may_stop)
    match, drill = ReadingDriver(book), ReadingDriver(book)
    refused = []
    drill.error.connect(refused.append)
    _reading(qtbot, match, [7, 3])
    match.pause()
    # (the player drops a resume queued in the same block as the pause: let the pause land)
    qtbot.waitUntil(lambda: book.player().state == "paused", timeout=5_000)
    drill.start([12], FAST, joka=False)
    assert window.asked == [([match], drill)]
    assert refused and drill.state == "idle" and match.state == "paused"
    assert book.player().programme is match.programme            # the match's reading is intact
    match.resume()
    with qtbot.waitSignal(match.finished, timeout=30_000):
        pass
    window.answer = True
    _reading(qtbot, match, [7, 3])
    _reading(qtbot, drill, [12])
    assert match.state == "idle" and busy_drivers() == [drill]


@pytest.fixture
def window(qtbot, book, monkeypatch):
    from trainer.ui.main_window import MainWindow
    LANG.set("en")
    book.settings.set(S.JOKA, False)
    book.settings.set(S.MA, 0.3)
    book.settings.set(S.PAUSE, 0.3)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: None)   # the reader's error box
    w = MainWindow(book.settings, voices=book)
    qtbot.addWidget(w)
    w.asked = []
    w.answer = True

    def ask(mode):
        w.asked.append(mode)
        return w.answer
    w.ask_stop_reading = ask
    yield w
    w.close()


def _match_reading(qtbot, w):
    index = [m for m, _ in w.modes].index("mode.kyogi")
    w.set_mode(index)
    w.match.new_match(5)
    w.match.begin_match()
    qtbot.waitUntil(lambda: w.match.session.race is not None, timeout=10_000)
    return index


def test_leaving_the_match_pauses_its_reading_and_space_goes_on_there(qtbot, window):
    w = window
    index = _match_reading(qtbot, w)
    w.set_mode(0)                                        # the Reader tab
    assert w.match.driver.state == "paused"
    assert "Match" in w.statusBar().currentMessage()
    w.set_mode(index)
    assert w.match.driver.state == "paused"              # a match waits for Space
    w.command("pause")
    assert w.match.driver.state == "playing"


def test_the_reader_starting_while_the_match_is_paused_asks_and_ends_the_match_with_its_result(qtbot, window):
    w = window
    _match_reading(qtbot, w)
    w.set_mode(0)
    w.answer = False
    w.reader.command("start")
    assert w.asked == ["Match"]
    assert w.driver.state == "idle" and w.match.driver.state == "paused"
    assert w.match.phase == "play"                       # kept, as asked
    w.answer = True
    w.reader.command("start")
    assert w.asked == ["Match", "Match"]
    assert w.match.driver.state == "idle" and busy_drivers() == [w.driver]
    assert w.match.phase == "over" and w.match.pages.currentIndex() == 1
    assert "Reader" in w.match.result.why.text()          # why the match ended
    assert w.match.result.verdict.text().startswith("Abandoned")
    qtbot.waitUntil(lambda: w.reader.current not in (None, 0), timeout=10_000)   # the reader reads


def test_a_mode_without_a_pause_goes_on_by_itself_when_the_person_comes_back(qtbot, window):
    w = window
    drills = [m for m, _ in w.modes].index("mode.drills")
    w.set_mode(drills)
    driver = ReadingDriver(w.voices, parent=w.mode("mode.drills"))   # as the drills panel builds it
    assert w.mode_of_driver(driver) == drills
    _reading(qtbot, driver, [12, 44, 7])
    w.set_mode(0)
    assert driver.state == "paused"
    w.set_mode(drills)
    assert driver.state == "playing"


def test_a_drill_read_aloud_while_the_match_is_paused_asks_then_both_keep_working(qtbot, window):
    """The report of issue 10: starting a drill while a match read froze both for good."""
    from trainer.ui.drills_panel import DRILLS, SETS
    w = window
    _match_reading(qtbot, w)
    drills = w.mode("mode.drills")
    w.set_mode([m for m, _ in w.modes].index("mode.drills"))
    assert w.match.driver.state == "paused"
    drills.drill_box.setCurrentIndex(DRILLS.index("listening_reflex"))
    drills.set_box.setCurrentIndex(SETS.index("all"))
    drills.spins["territory"].setValue(3)
    drills.spins["karafuda"].setValue(0)
    drills.audio_box.setChecked(True)
    assert drills.start()
    assert w.asked == ["Match"]
    assert w.match.phase == "over" and w.match.driver.state == "idle"     # its result is shown
    screen, taken = drills.drill_screen, set()

    def take_when_read():
        r = screen.model.reading
        if r is not None and not r.karafuda and screen.model.kimariji_at is not None and r.card not in taken:
            taken.add(r.card)
            screen.floor.touched.emit(r.card, screen.model.kimariji_at + 0.25)
        return screen.finished
    qtbot.waitUntil(take_when_read, timeout=60_000)          # the drill reads to its end
    assert len(screen.model.results) == len(screen.model.territory) >= 3
    assert all(r.correct for r in screen.model.results)
    w.set_mode([m for m, _ in w.modes].index("mode.kyogi"))
    w.match.new_match(6)
    w.match.begin_match()                                     # and the match can read again
    qtbot.waitUntil(lambda: w.match.session.race is not None, timeout=10_000)
