"""Settings remembered between runs: typed accessors over QSettings.

Every key has a default and a type, so a missing, old or hand-edited value
never breaks the app: it falls back to the default.  Tests pass their own
QSettings (an ini file in a temporary directory).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from trainer.paths import APP_NAME


@dataclass(frozen=True)
class Key:
    name: str
    default: Any
    lo: float | None = None
    hi: float | None = None


LANGUAGE = Key("ui/language", "")            # '' = follow the system locale
SHOW_KIMARIJI = Key("ui/show_kimariji", False)
SHOW_POEM = Key("reader/show_poem", True)
DAKUTEN = Key("ui/torifuda_dakuten", False)  # real torifuda are printed without them
MA = Key("reading/ma", 1.0, 0.3, 5.0)        # silence after the shimo-no-ku (yoin) before the next kami
PAUSE = Key("reading/pause", 1.0, 0.3, 5.0)  # between kami- and shimo-no-ku
SPEED = Key("reading/speed", 1.0, 0.7, 1.4)
VOICE = Key("reading/voice", "synth")        # 'synth' or the name of an imported set
JOKA = Key("reading/joka", True)
MEMORISE_MIN = Key("match/memorise_minutes", 15, 1, 15)
CPU_LEVEL = Key("match/cpu_level", "club")
JUDGE_WINDOW_MS = Key("match/judge_window_ms", 30, 0, 100)   # same-time touches: see kyogi.JUDGE_WINDOW_MS
GEOMETRY = Key("window/geometry", b"")
MODE = Key("window/mode", 0)


def default_qsettings() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, APP_NAME, APP_NAME)


class Settings:
    """The app's settings.  ``get(KEY)`` always returns a value of KEY's type."""

    def __init__(self, store: QSettings | None = None):
        self.store = store if store is not None else default_qsettings()

    def get(self, key: Key):
        raw = self.store.value(key.name, None)
        if raw is None:
            return key.default
        try:
            value = _coerce(raw, key.default)
        except (TypeError, ValueError):
            return key.default
        if key.lo is not None and not key.lo <= value <= key.hi:
            return key.default
        return value

    def set(self, key: Key, value) -> None:
        if isinstance(key.default, bytes):
            value = QByteArray(bytes(value))
        self.store.setValue(key.name, value)

    def sync(self) -> None:
        self.store.sync()


def _coerce(raw, default):
    # QSettings' ini backend gives strings back for everything.
    if isinstance(default, bool):
        if isinstance(raw, str):
            if raw.lower() not in ("true", "false", "1", "0"):
                raise ValueError(raw)
            return raw.lower() in ("true", "1")
        return bool(raw)
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, bytes):
        return bytes(raw.data() if isinstance(raw, QByteArray) else raw)
    return str(raw)
