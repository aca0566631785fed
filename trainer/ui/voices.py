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
        try:
            from audio import recorded_voice
        except ImportError:
            return []
        lister = getattr(recorded_voice, "list_sets", None) or getattr(recorded_voice, "available_sets", None)
        try:
            return sorted(lister()) if lister else []
        except OSError:
            return []

    def voice(self, name: str | None = None):
        name = name or self.settings.get(S.VOICE)
        if name not in self._voices:
            self._voices[name] = self._open(name)
        return self._voices[name]

    def _open(self, name: str):
        if name == SYNTH:
            from audio.synth import SynthVoice
            return SynthVoice()
        from audio.recorded_voice import RecordedVoice
        return RecordedVoice.open(name)

    def needs_synthesis(self) -> bool:
        if self.settings.get(S.VOICE) != SYNTH:
            return False
        try:
            voice = self.voice(SYNTH)
        except ImportError:
            return False
        ready = getattr(voice, "is_ready", None) or getattr(voice, "ready", None)
        return not ready() if callable(ready) else False

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

        self.task = run_with_progress(parent, tr("synth.title"), tr("synth.label"),
                                      lambda progress, cancel: voice.synthesize_all(progress, cancel),
                                      lambda _result: then and then(), failed, cancelled)
