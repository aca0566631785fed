"""Which voice reads, and the one player every mode shares.

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

    # -- the player ----------------------------------------------------------------------------
    def has_player(self) -> bool:
        return self._player is not None

    def player(self):
        if self._player is None:
            from audio.player import Player
            self._player = Player().open()
        return self._player

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
            from audio.synth import SynthVoice
            return SynthVoice()
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
