"""Stand-ins the UI tests share: a reading driver that records commands, and a
voice book that reads the tone voice through a real player."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class FakeDriver(QObject):
    """Stands in for trainer.ui.reading.ReadingDriver: the test says when a card
    sounds (emit the signals); commands are recorded in `calls`."""
    card_started = Signal(int)
    kimariji = Signal(int, int, float)
    card_finished = Signal(int)
    finished = Signal()
    state_changed = Signal(str)
    error = Signal(str)

    def __init__(self):
        super().__init__()
        self.calls = []
        self.state = "idle"
        self.marks: dict[str, float] = {}
        self.stalls: list = []          # the player's stalls, for `disturbance`

    def start(self, order, timing, joka):
        self.calls.append(("start", list(order), joka))
        self.state = "playing"

    def __getattr__(self, name):
        if name in ("pause", "resume", "hold", "release", "repeat_shimo", "skip", "stop",
                    "hold_before_next_card"):
            return lambda: self.calls.append((name,))
        raise AttributeError(name)

    def count(self, name):
        return sum(1 for c in self.calls if c[0] == name)

    def mark_time(self, index, name):
        return self.marks.get(name)

    def disturbance(self, kimariji_t, touch_t):
        """`stalls` (audio.player.Stall) as the player judges a race: not re-derived, begun
        by the touch, their doubt reaching the kimariji."""
        from audio.player import SETTLE_S
        return [s for s in self.stalls
                if not s.rederived and s.at <= touch_t and s.end + SETTLE_S >= kimariji_t]


class UnmadeVoice:
    """A voice book whose synthesised voice is not made yet; counts the progress dialogs asked."""
    asked = 0

    def needs_synthesis(self):
        return True

    def ensure_ready(self, parent, then=None):
        self.asked += 1


class ToneVoices:
    """The voice book: the tone voice (exact marks) read by one real player."""

    def __init__(self, backend: str = "manual", voice=None):
        from audio.fake_voice import ToneVoice
        from audio.player import Player
        self._player = Player(backend=backend).open()   # "manual": the test feeds the blocks
        self._voice = voice or ToneVoice()

    def voice(self, name=None):
        return self._voice

    def player(self):
        return self._player

    def has_player(self):
        return True

    def needs_synthesis(self):
        return False

    def ensure_ready(self, parent, then=None):
        if then:
            then()


def main_window_on(qtbot, monkeypatch, settings, player):
    """The real main window reading the tone voice through `player` (silent or a fake sound
    device); a generator for a fixture to ``yield from``: every reading stopped, the window
    and the player closed, the language back to English afterwards."""
    from PySide6.QtWidgets import QMessageBox

    from audio.fake_voice import ToneVoice
    from trainer.ui.i18n import LANG
    from trainer.ui.main_window import MainWindow
    from trainer.ui.reading import busy_drivers, set_arbiter
    from trainer.ui.voices import VoiceBook
    book = VoiceBook(settings, player=player)
    book._voices["synth"] = ToneVoice(mora_s=0.02, yoin_s=0.05)
    set_arbiter(None)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: None)
    w = MainWindow(settings, voices=book)
    qtbot.addWidget(w)
    try:
        yield w
    finally:
        for d in busy_drivers():
            d.stop()
        set_arbiter(None)
        w.close()
        player.close()
        LANG.set("en")
