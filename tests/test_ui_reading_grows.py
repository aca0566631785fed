"""Issue 25: the GUI's Reader starts as soon as the joka is made and grows its programme
while it plays (`ReadingDriver` on `Programme.grow`), with the silent player and a voice
whose clips come one by one, as the synthesised voice's do from an empty cache."""
import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from audio.fake_voice import ToneVoice  # noqa: E402
from audio.player import Player  # noqa: E402
from trainer.reader.session import ReaderSession  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG, tr  # noqa: E402
from trainer.ui.reader_panel import ReaderPanel  # noqa: E402
from trainer.ui.reading import ReadingDriver  # noqa: E402
from trainer.ui.voices import VoiceBook  # noqa: E402

ORDER = [7, 3, 99, 42]
GATED = 99          # this card's clips are made only when the test says so


class MadeVoice(ToneVoice):
    """The tone voice (exact marks), noting which clips the reading has taken."""

    def __init__(self):
        super().__init__(mora_s=0.02, yoin_s=0.05)
        self.made: list[tuple[int, str]] = []
        self.gate = threading.Event()     # set: poem GATED is made (`Ahead.wait`)

    def _clip(self, no, part):
        self.made.append((no, part))
        return super()._clip(no, part)


class Ahead:
    """Stands in for `audio.synth.SynthesisAhead` (which needs the HTS engine): every poem
    is made at once but GATED, made when the test opens `voice.gate`; `stop` ends the
    waits, as the real one's does."""

    def __init__(self, voice):
        self.voice = voice
        self.stopped = threading.Event()

    def start(self):
        return self

    def wait(self, no):
        while no == GATED and not self.voice.gate.is_set() and not self.stopped.is_set():
            self.stopped.wait(0.01)

    def stop(self):
        self.stopped.set()


@pytest.fixture
def reader(qtbot, tmp_path, monkeypatch):
    LANG.set("en")
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    for key, value in ((S.MA, 0.3), (S.PAUSE, 0.3), (S.JOKA_GAP, 0.3), (S.JOKA, True)):
        settings.set(key, value)
    player = Player(backend="silent").open()
    book = VoiceBook(settings, player=player)
    voice = MadeVoice()
    book._voices[settings.get(S.VOICE)] = voice
    monkeypatch.setattr("trainer.ui.reading._synthesis_ahead", lambda v, poems: Ahead(voice))
    driver = ReadingDriver(book)
    panel = ReaderPanel(settings, driver)
    qtbot.addWidget(panel)
    panel.session = ReaderSession.new(ORDER, seed=1)
    yield panel, driver, voice
    voice.gate.set()
    driver.stop()
    player.close()


def test_the_reading_starts_before_every_clip_exists_and_reads_every_card_in_order(qtbot, reader):
    panel, driver, voice = reader
    order = panel.session.order
    started, finished, kimariji, preparing = [], [], [], []
    driver.card_started.connect(started.append)
    driver.card_finished.connect(finished.append)
    driver.kimariji.connect(lambda i, no, t: kimariji.append((i, no)))
    driver.preparing.connect(preparing.append)
    made_when_ready = []
    driver.ready.connect(lambda: made_when_ready.append(list(voice.made)))
    assert panel.status.text() != tr("reader.preparing")
    panel.command("start")
    assert panel.status.text() == tr("reader.preparing")       # nothing to hear yet
    with qtbot.waitSignal(driver.ready, timeout=10_000):
        pass
    # it began with the joka made and the gated card (and those after it) not yet
    assert made_when_ready and (GATED, "kami") not in made_when_ready[0]
    assert (0, "kami") in made_when_ready[0]
    # the cards before the gated one are read; then the player waits, silent, and says so
    before = order[:order.index(GATED)]
    qtbot.waitUntil(lambda: driver.is_preparing and started == [0] + before, timeout=20_000)
    assert panel.status.text() == tr("reader.preparing")
    assert driver.voices.player().starved
    assert driver.state == "playing" and panel.reading
    voice.gate.set()                                           # its clips are made now
    with qtbot.waitSignal(driver.finished, timeout=30_000):
        pass
    assert started == [0] + order
    assert finished == [0] + order
    assert kimariji == list(enumerate(order))
    assert preparing[0] is True and preparing[-1] is False and preparing.count(True) >= 2
    assert panel.status.text() != tr("reader.preparing")
    assert panel.session.read == len(order) and panel.session.finished


def test_stopping_while_it_prepares_starts_nothing_later(qtbot, reader):
    panel, driver, voice = reader
    order = panel.session.order
    driver.start([GATED] + [no for no in order if no != GATED], panel.timing(), joka=False)
    assert driver.is_preparing
    driver.stop()                   # its worker, waiting for the first card, leaves at once
    assert driver._task is not None and driver._task.wait(0)
    voice.gate.set()
    qtbot.wait(300)
    assert driver.state == "idle" and not driver.is_preparing
    assert driver.voices.player().programme is None
    assert (GATED, "kami") not in voice.made           # nor was the clip taken afterwards


def test_a_match_begins_without_a_progress_dialog_and_its_banner_says_it_prepares(qtbot, tmp_path):
    from PySide6.QtCore import Signal

    from audio.clock import FakeClock
    from trainer.ui.match_panel import MatchPanel
    from ui_fakes import FakeDriver, UnmadeVoice

    class GrowingDriver(FakeDriver):
        preparing = Signal(bool)

    LANG.set("en")
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    voices, driver = UnmadeVoice(), GrowingDriver()
    panel = MatchPanel(settings, voices, driver=driver, clock=FakeClock(1000.0))
    qtbot.addWidget(panel)
    panel.new_match(11)
    panel.begin_match()
    assert voices.asked == 0 and driver.count("start") == 1     # reads while the voice is made
    driver.preparing.emit(True)
    assert panel.banner.text() == tr("match.preparing")
    driver.preparing.emit(False)
    assert panel.banner.text() == ""
    panel.banner.setText("something else the match says")
    driver.preparing.emit(True)
    assert panel.banner.text() == "something else the match says"   # not written over
