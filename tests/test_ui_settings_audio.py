"""The settings' sound output (issue 10, point 12): device, volume, test tone; cards per side."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from audio.fake_voice import ToneVoice  # noqa: E402
from audio.player import Player  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.reader.session import ReadingTiming  # noqa: E402
from trainer.ui.reading import ReadingDriver, busy_drivers, set_arbiter  # noqa: E402
from trainer.ui.settings_dialog import SettingsDialog, output_devices  # noqa: E402
from trainer.ui.voices import VoiceBook, tone_programme  # noqa: E402


@pytest.fixture
def book(qtbot, tmp_path):
    LANG.set("en")
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    player = Player(backend="silent").open()
    voices = VoiceBook(settings, player=player)
    voices._voices["synth"] = ToneVoice(mora_s=0.02, yoin_s=0.05)
    set_arbiter(None)
    yield voices
    for d in busy_drivers():
        d.stop()
    player.close()


def test_the_devices_listed_are_offered_with_the_system_default_first(qtbot, book):
    assert isinstance(output_devices(), list)            # never raises, PortAudio or not
    book.settings.set(S.OUTPUT_DEVICE, "Old USB headset")
    d = SettingsDialog(book.settings, [], voice_book=book, devices=["Speakers", "HDMI"])
    qtbot.addWidget(d)
    items = [d.device.itemText(k) for k in range(d.device.count())]
    assert items == ["System default", "Speakers", "HDMI", "Old USB headset"]   # unplugged: kept
    assert d.device.currentData() == "Old USB headset"
    d.device.setCurrentIndex(1)
    d.volume.setValue(40)
    d.cards_per_side.setValue(4)
    d.apply()
    assert book.settings.get(S.OUTPUT_DEVICE) == "Speakers"
    assert book.settings.get(S.VOLUME) == 40 and book.player().volume == pytest.approx(0.4)
    assert book.settings.get(S.CARDS_PER_SIDE) == 4


def test_the_test_tone_plays_through_the_shared_player_at_the_chosen_volume(qtbot, book):
    d = SettingsDialog(book.settings, [], voice_book=book, devices=[])
    qtbot.addWidget(d)
    d.volume.setValue(25)
    assert d.test_tone()
    player = book.player()
    assert player.volume == pytest.approx(0.25)
    qtbot.waitUntil(lambda: player.state == "finished", timeout=5_000)
    assert player.position == tone_programme(player.rate).total_samples
    assert "silent" in d.tone_status.text()              # no device here: said, not hidden
    d.reject()                                           # Cancel: the saved volume again
    assert player.volume == pytest.approx(1.0)


def test_no_test_tone_over_a_reading(qtbot, book):
    driver = ReadingDriver(book)
    driver.start([7, 3], ReadingTiming(ma=0.1, pause=0.1, speed=1.0, voice="synth", joka=False), joka=False)
    qtbot.waitUntil(lambda: book.player().programme is not None, timeout=10_000)
    programme = book.player().programme
    d = SettingsDialog(book.settings, [], voice_book=book, devices=[])
    qtbot.addWidget(d)
    assert not d.test_tone()
    assert "reading is under way" in d.tone_status.text()
    assert book.player().programme is programme


def test_another_device_stops_the_reading_and_reopens_the_player_there(qtbot, book, monkeypatch):
    opened = []

    class Recording(Player):
        def __init__(self, **kw):
            opened.append(kw.get("device"))
            super().__init__(backend="silent")

    book._player = Player(backend="silent").open()
    book._player.backend = "auto"                      # as the app's player
    old = book._player
    driver = ReadingDriver(book)
    stopped = []
    driver.error.connect(stopped.append)
    driver.start([7], ReadingTiming(ma=0.1, pause=0.1, speed=1.0, voice="synth", joka=False), joka=False)
    monkeypatch.setattr("audio.player.Player", Recording)
    book.settings.set(S.OUTPUT_DEVICE, "HDMI")
    book.settings.set(S.VOLUME, 70)
    book.apply_audio_settings()
    assert stopped and driver.state == "idle"           # said, not frozen
    assert book._player is None
    player = book.player()
    assert opened == ["HDMI"] and player is not old and player.volume == pytest.approx(0.7)
    player.close()
    old.close()


def test_the_reciting_pitch_is_a_setting_and_reopens_the_synthesised_voice(qtbot, book):
    # issue 25: a reciting pitch the user can set (the measured reader: 344 Hz; the default 215)
    d = SettingsDialog(book.settings, [], voice_book=book, devices=[])
    qtbot.addWidget(d)
    assert d.pitch.value() == pytest.approx(S.PITCH.default)
    stand_in = book.voice("synth")
    d.apply()                                     # unchanged: the open voice is kept
    assert book.voice("synth") is stand_in
    d.pitch.setValue(300)
    d.apply()
    assert book.settings.get(S.PITCH) == pytest.approx(300)
    reopened = book.voice("synth")                # opened again, on the new tone
    assert reopened is not stand_in
    assert reopened.style.tone_hz == pytest.approx(300)
