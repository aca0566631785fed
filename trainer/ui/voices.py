"""Which voice reads, and the one player every mode shares.

The player opens on the output device the settings name (the system default
when none is named) at the settings' volume; choosing another device in the
settings stops any reading and reopens the player there (`apply_audio_settings`).

The first run has no recordings: the synthesised voice is made on the user's
machine, once, with a progress bar, off the GUI thread, and can be cancelled
(the next start offers it again).  Imported recording sets appear by name.
"""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from trainer.ui import settings as S
from trainer.ui.i18n import tr
from trainer.ui.tasks import run_with_progress

SYNTH = "synth"


class VoiceBook:
    def __init__(self, settings: S.Settings, player=None):
        self.settings = settings
        self._player = player
        self._voices: dict[str, object] = {}
        self.task = None
        self._device: str | None = None     # tried in the settings dialog, not saved yet
        self._volume: int | None = None

    # -- the player ----------------------------------------------------------------------------
    def has_player(self) -> bool:
        return self._player is not None

    def player(self):
        if self._player is None:
            from audio.player import Player
            device = self._device if self._device is not None else self.settings.get(S.OUTPUT_DEVICE)
            volume = self._volume if self._volume is not None else self.settings.get(S.VOLUME)
            self._player = Player(device=device or None).open()
            self._player.volume = volume / 100
        return self._player

    def apply_audio_settings(self) -> None:
        """The volume at once; another output device by reopening the player (any reading
        stops first: it cannot move to a new stream in the middle)."""
        self.use_audio(self.settings.get(S.OUTPUT_DEVICE), self.settings.get(S.VOLUME))

    def use_audio(self, device: str, volume: int) -> None:
        """Play on `device` ('' = the system default) at `volume` percent from now on
        (the settings dialog tries a choice before it is saved)."""
        self._device = device
        self._volume = volume
        if self._player is None:
            return
        self._player.volume = volume / 100
        wanted = device or None
        if getattr(self._player, "device", None) != wanted and getattr(self._player, "backend", "auto") == "auto":
            from trainer.ui.reading import stop_all
            stop_all()
            self.close()
            self._player = None

    def test_tone(self) -> bool:
        """A short tone through the shared player (False, and nothing played, while a
        reading is under way: the tone would replace its programme)."""
        from trainer.ui.reading import busy_drivers
        if busy_drivers():
            return False
        player = self.player()
        player.poll_events()
        player.load(tone_programme(player.rate))
        player.start()
        return True

    def close(self) -> None:
        if self._player is not None and hasattr(self._player, "close"):
            self._player.close()

    # -- voices ----------------------------------------------------------------------------------
    def imported_names(self) -> list[str]:
        from audio.recorded_voice import list_voices
        try:
            return list_voices()
        except OSError:
            return []

    def voice(self, name: str | None = None):
        name = name or self.settings.get(S.VOICE)
        if name not in self._voices:
            self._voices[name] = self._open(name)
        return self._voices[name]

    def forget(self, name: str) -> None:
        """Reopen voice `name` when next asked for (its clips were imported again)."""
        self._voices.pop(name, None)

    def _open(self, name: str):
        if name == SYNTH:
            from audio.render import synth_voice
            return synth_voice(self.settings.get(S.PITCH))
        from audio.recorded_voice import RecordedVoice
        return RecordedVoice(name)

    def needs_synthesis(self) -> bool:
        """True while the synthesised voice is chosen and some verse is not in the cache yet."""
        if self.settings.get(S.VOICE) != SYNTH:
            return False
        voice = self.voice(SYNTH)
        if not hasattr(voice, "key"):        # a stand-in voice (tests, development)
            return False
        if not voice.available():
            return False                     # no engine here: the reading will say so
        return not all(voice.key(no, part) in voice.cache for no in range(0, 101)
                       for part in ("kami", "shimo"))

    def ensure_ready(self, parent, then=None) -> None:
        """Synthesise the 100 poems the first time (progress bar, cancellable), then ``then()``."""
        if not self.needs_synthesis():
            if then:
                then()
            return
        voice = self.voice(SYNTH)

        def failed(err: str):
            QMessageBox.warning(parent, tr("error.title"), tr("synth.failed", err=err))

        def cancelled():
            parent.statusBar().showMessage(tr("synth.cancelled"), 8000) if hasattr(parent, "statusBar") else None

        from audio.synth import synthesize_all
        self.task = run_with_progress(parent, tr("synth.title"), tr("synth.label"),
                                      lambda progress, cancel: synthesize_all(progress, cancel, voice=voice),
                                      lambda _result: then and then(), failed, cancelled)


def tone_programme(rate: int, seconds: float = 0.6, hz: float = 660.0):
    """A programme of one soft sine tone with short fades (the settings' test tone)."""
    import numpy as np

    from audio.clip import Clip
    from audio.programme import Programme, ReadingSettings, Segment
    n = round(seconds * rate)
    t = np.arange(n) / rate
    ramp = np.minimum(1.0, np.minimum(t, seconds - t) / 0.02)
    samples = (0.3 * ramp * np.sin(2 * np.pi * hz * t)).astype(np.float32)
    return Programme([Segment("tone", -1, 0, 0, n, Clip(samples, rate))], [], ReadingSettings(joka=False), rate)
