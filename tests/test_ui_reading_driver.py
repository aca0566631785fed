"""The reading driver against the real player on its silent clock, with the tone voice."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from audio.fake_voice import ToneVoice  # noqa: E402
from audio.player import Player  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.reader.session import ReadingTiming  # noqa: E402
from trainer.ui.reading import ReadingDriver  # noqa: E402
from trainer.ui.voices import VoiceBook  # noqa: E402

FAST = ReadingTiming(ma=0.1, pause=0.1, speed=1.0, voice="synth", joka=True)


@pytest.fixture
def driver(qtbot, tmp_path):
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    player = Player(backend="silent").open()
    book = VoiceBook(settings, player=player)
    book._voices["synth"] = ToneVoice(mora_s=0.02, yoin_s=0.05)
    d = ReadingDriver(book)
    yield d
    d.stop()
    player.close()


def test_cards_start_and_finish_in_order_joka_first(qtbot, driver):
    started, finished, kimariji = [], [], []
    driver.card_started.connect(started.append)
    driver.card_finished.connect(finished.append)
    driver.kimariji.connect(lambda i, no, t: kimariji.append((i, no)))
    with qtbot.waitSignal(driver.finished, timeout=30_000):
        driver.start([7, 3, 99], FAST, joka=True)
    assert started == [0, 7, 3, 99]
    assert finished == [0, 7, 3, 99]
    assert kimariji == [(0, 7), (1, 3), (2, 99)]
    assert driver.state == "idle"


def test_skipped_cards_count_as_read(qtbot, driver):
    finished = []
    driver.card_finished.connect(finished.append)
    driver.start([7, 3, 99], FAST, joka=False)
    qtbot.waitUntil(lambda: driver.programme is not None, timeout=10_000)
    with qtbot.waitSignal(driver.card_started, timeout=10_000, check_params_cb=lambda no: no == 7):
        pass
    driver.skip()
    qtbot.waitUntil(lambda: 7 in finished, timeout=10_000)
    with qtbot.waitSignal(driver.finished, timeout=30_000):
        pass
    assert finished == [7, 3, 99]


def test_wait_holds_until_released(qtbot, driver):
    started = []
    driver.card_started.connect(started.append)
    driver.start([7, 3], FAST, joka=False)
    qtbot.waitUntil(lambda: started == [7], timeout=10_000)
    driver.hold()
    qtbot.waitUntil(lambda: driver.voices.player().state == "held", timeout=10_000)
    assert driver.state == "held"
    assert started == [7]                     # held: card 3 has not begun
    with qtbot.waitSignal(driver.card_started, timeout=10_000):
        driver.release()
    assert started == [7, 3]


def test_a_missing_voice_is_reported_not_raised(qtbot, driver):
    class Broken:
        name, rate = "broken", 48000

        def kami(self, no):
            from audio.voice import VoiceError
            raise VoiceError(f"no recording of poem {no}")

        shimo = kami

        def available(self):
            return frozenset()

    driver.voices._voices["synth"] = Broken()
    with qtbot.waitSignal(driver.error, timeout=10_000) as sig:
        driver.start([5], FAST, joka=False)
    assert "poem" in sig.args[0]
    assert driver.state == "idle"


def test_a_lost_sound_device_pauses_the_reading_where_it_is_and_says_why(qtbot, driver):
    """The player queues DEVICE_LOST when its stream dies (tests/test_realaudio_device_loss.py
    kills a real server); here the event is queued by hand on the silent player."""
    import time

    from audio.player import DEVICE_LOST, Event
    started, errors = [], []
    driver.card_started.connect(started.append)
    driver.device_problem.connect(errors.append)
    driver.start([7, 3], FAST, joka=False)
    qtbot.waitUntil(lambda: started == [7], timeout=10_000)
    player = driver.voices.player()
    player.device_problem = "the sound device stopped ('default')"
    player._events.append(Event(DEVICE_LOST, -1, -1, player.position, time.perf_counter()))
    with qtbot.waitSignal(driver.device_problem, timeout=2_000):
        pass
    assert errors == ["The sound device was lost (the sound device stopped ('default')). The "
                      "reading is paused where it was and goes on by itself when the device comes back"]
    assert driver.state == "paused"
    qtbot.waitUntil(lambda: player.state == "paused", timeout=2_000)
    at = player.position
    qtbot.wait(200)
    assert player.position == at               # kept where it was
    with qtbot.waitSignal(driver.card_started, timeout=10_000):
        driver.resume()                        # and goes on from there
    assert started == [7, 3]


def test_the_reading_goes_on_by_itself_when_the_device_comes_back(qtbot, driver):
    """Issue 24: the notice says the sound comes back by itself; the reading stayed paused."""
    import time

    from audio.player import DEVICE_BACK, DEVICE_LOST, Event
    started = []
    driver.card_started.connect(started.append)
    driver.start([7, 3], FAST, joka=False)
    qtbot.waitUntil(lambda: started == [7], timeout=10_000)
    player = driver.voices.player()
    player.device_problem = "the sound device stopped ('default')"
    player._events.append(Event(DEVICE_LOST, -1, -1, player.position, time.perf_counter()))
    qtbot.waitUntil(lambda: driver.state == "paused", timeout=2_000)
    player._events.append(Event(DEVICE_BACK, -1, -1, player.position, time.perf_counter()))
    qtbot.waitUntil(lambda: driver.state == "playing", timeout=2_000)
    with qtbot.waitSignal(driver.card_started, timeout=10_000):
        pass
    assert started == [7, 3]


def test_a_reading_the_person_paused_stays_paused_when_the_device_comes_back(qtbot, driver):
    import time

    from audio.player import DEVICE_BACK, DEVICE_LOST, Event
    started = []
    driver.card_started.connect(started.append)
    driver.start([7, 3], FAST, joka=False)
    qtbot.waitUntil(lambda: started == [7], timeout=10_000)
    player = driver.voices.player()
    player._events.append(Event(DEVICE_LOST, -1, -1, player.position, time.perf_counter()))
    qtbot.waitUntil(lambda: driver.state == "paused", timeout=2_000)
    driver.pause()                                         # the person's own pause
    player._events.append(Event(DEVICE_BACK, -1, -1, player.position, time.perf_counter()))
    qtbot.wait(200)
    assert driver.state == "paused"


def test_wait_says_where_it_holds_and_holds_there(qtbot, driver):
    """Issue 28: the menu and banners said "before the next kami-no-ku" while a wait pressed
    during a kami-no-ku holds before that card's shimo-no-ku (as docs/DESIGN.md says)."""
    from audio.programme import KAMI, SHIMO
    started = []
    driver.card_started.connect(started.append)
    driver.start([7, 3], FAST, joka=False)
    qtbot.waitUntil(lambda: started == [7], timeout=10_000)
    player = driver.voices.player()
    prog = player.programme
    assert driver.hold() == "shimo" and driver.held_before == "shimo"
    qtbot.waitUntil(lambda: player.state == "held", timeout=10_000)
    assert player.position == prog.hold_points(SHIMO)[0]       # before card 7's shimo-no-ku
    assert prog.segments[prog.segment_at(player.position + 1)].kind != KAMI
    driver.release()

    def in_shimo():
        return prog.segments[prog.segment_at(player.position)].kind == SHIMO
    qtbot.waitUntil(in_shimo, timeout=10_000)
    assert driver.hold() == "kami"
    qtbot.waitUntil(lambda: player.state == "held", timeout=10_000)
    assert started == [7]
    kami_3 = prog.segments_of(KAMI)[1].start
    assert player.position <= kami_3 and player.position in prog.hold_points(KAMI)
    driver.release()


def test_wait_in_a_shimo_no_ku_only_reading_holds_before_the_next_card(qtbot, driver):
    from dataclasses import replace
    started = []
    driver.card_started.connect(started.append)
    driver.start([7, 3], replace(FAST, shimo_only=True), joka=False)
    qtbot.waitUntil(lambda: started == [7], timeout=10_000)
    assert driver.hold() == "card"
    qtbot.waitUntil(lambda: driver.voices.player().state == "held", timeout=10_000)
    assert started == [7]
