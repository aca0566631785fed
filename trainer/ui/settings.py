"""Settings remembered between runs: typed accessors over QSettings.

Every key has a default and a type (and, for some, the values allowed), so a
missing, old or hand-edited value never breaks the app: it falls back to the
default, and the first time it is met a line on stderr says so.  Tests pass
their own QSettings (an ini file in a temporary directory).

The file lives in the platform's settings location, or under
``KARUTA_DATA_DIR`` when that is set (everything the app keeps moves with it).
"""
from __future__ import annotations

import math
import os
import sys
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
    choices: tuple | None = None   # the only values allowed, if given


LANGUAGE = Key("ui/language", "", choices=("", "ja", "en"))  # '' = follow the system locale
SHOW_KIMARIJI = Key("ui/show_kimariji", False)
# How kimariji are written everywhere: as read aloud (おうこ) or in historical kana (あふこ)
KIMARIJI_SPELLING = Key("ui/kimariji_spelling", "sound", choices=("sound", "historical"))
SHOW_POEM = Key("reader/show_poem", True)
DAKUTEN = Key("ui/torifuda_dakuten", False)  # real torifuda are printed without them
MA = Key("reading/ma", 1.0, 0.3, 5.0)        # silence after the shimo-no-ku (yoin) before the next kami
PAUSE = Key("reading/pause", 0.66, 0.3, 5.0)  # between kami- and shimo-no-ku (the measured reader's)
JOKA_GAP = Key("reading/joka_gap", 0.80, 0.3, 5.0)  # before the joka's shimo-no-ku is read again
OWN_PAUSES = Key("reading/own_pauses", False)  # an imported voice keeps its reader's own PAUSE
SPEED = Key("reading/speed", 1.0, 0.7, 1.4)
# The synthesised reader's reciting tone (Hz): mei's own range is comfortable
# from about 150 to 400 Hz (a measured female reader: 344, issue 25)
PITCH = Key("reading/pitch_hz", 215.0, 150.0, 400.0)
VOICE = Key("reading/voice", "synth")        # 'synth' or the name of an imported set
JOKA = Key("reading/joka", True)
MEMORISE_MIN = Key("match/memorise_minutes", 15, 0, 15)     # 0: the match begins at once
CARDS_PER_SIDE = Key("match/cards_per_side", 25, 1, 25)     # fewer: end-game practice (4 v 4)
CPU_LEVEL = Key("match/cpu_level", "club")
JUDGE_WINDOW_MS = Key("match/judge_window_ms", 30, 0, 100)   # same-time touches: see kyogi.JUDGE_WINDOW_MS
OUTPUT_DEVICE = Key("audio/output_device", "")  # '' = the system's default output
VOLUME = Key("audio/volume", 100, 0, 100)       # percent, the player's gain
GEOMETRY = Key("window/geometry", b"")
MODE = Key("window/mode", 0)


SETTINGS_FILE = "settings.ini"


def all_keys() -> list[Key]:
    """Every setting of this module (the main window checks them all at start-up)."""
    return [v for v in globals().values() if isinstance(v, Key)]


def default_qsettings() -> QSettings:
    if os.environ.get("KARUTA_DATA_DIR"):
        from trainer.paths import data_dir
        path = str(data_dir() / SETTINGS_FILE)
    elif sys.platform.startswith("linux"):   # where Qt keeps it (QSettings.UserScope)
        config = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
        path = os.path.join(config, APP_NAME, f"{APP_NAME}.ini")
    else:
        return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, APP_NAME, APP_NAME)
    return QSettings(_usable_settings_file(path), QSettings.Format.IniFormat)


def _usable_settings_file(path: str) -> str:
    """`path`, unless it is not a regular file: QSettings blocks for ever reading a FIFO and
    writes through a symbolic link. Then the settings live in a temporary file for this
    run (not saved), said in one line."""
    import stat
    import tempfile
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return path   # not there yet: QSettings makes it
    if stat.S_ISREG(mode):
        _keep_damaged_copy(path)
        return path
    what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file (a pipe or a device?)"
    print(f"karuta: the settings file {path} is {what}; it was left as it is and the settings "
          "of this run will not be saved", file=sys.stderr)
    import atexit
    import shutil
    folder = tempfile.mkdtemp(prefix="karuta-settings-")
    atexit.register(shutil.rmtree, folder, True)
    return os.path.join(folder, SETTINGS_FILE)


def _damage(data: bytes) -> str | None:
    """Why `data` is not a settings file the app wrote, or None. QSettings reads what it
    can of a damaged file and rewrites it at the next save without a word, so the
    app looks first."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "it is not text"
    if any(ch in text for ch in "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f"):
        return "it holds control characters"
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith((";", "#", "[")) and "=" not in line:
            return f"a line is neither a [section] nor key=value: {line[:40]!r}"
    return None


def _keep_damaged_copy(path: str) -> None:
    """Before Qt rewrites a damaged settings file, keep its bytes beside it under a new
    name (never replacing anything) and say so in one line; the defaults fill in."""
    from trainer.safe_files import open_no_follow, read_regular
    try:
        data = read_regular(path)
    except OSError:
        return   # unreadable: QSettings will fail on it too and the defaults apply
    why = _damage(data)
    if why is None:
        return
    for n in range(1, 100):
        copy = f"{path}.damaged" + (f"-{n}" if n > 1 else "")
        try:
            fd = open_no_follow(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        except OSError:
            break
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        print(f"karuta: the settings file {path} is damaged ({why}); a copy was kept as "
              f"{copy} and what could not be read is back to its default", file=sys.stderr)
        return
    print(f"karuta: the settings file {path} is damaged ({why}) and no copy could be kept "
          "beside it; what could not be read is back to its default", file=sys.stderr)


class Settings:
    """The app's settings.  ``get(KEY)`` always returns a value of KEY's type."""

    def __init__(self, store: QSettings | None = None):
        self.store = store if store is not None else default_qsettings()
        self._told: set[str] = set()
        #: Sentences about values that were ignored (also printed once to stderr).
        self.ignored: list[str] = []

    def get(self, key: Key):
        raw = self.store.value(key.name, None)
        if raw is None:
            return key.default
        try:
            value = _coerce(raw, key.default)
        except (TypeError, ValueError, OverflowError):
            return self._ignore(key, raw)
        if isinstance(value, float) and not math.isfinite(value):
            return self._ignore(key, raw)
        if key.lo is not None and not key.lo <= value <= key.hi:
            return self._ignore(key, raw)
        if key.choices is not None and value not in key.choices:
            return self._ignore(key, raw)
        return value

    def _ignore(self, key: Key, raw):
        """A damaged or foreign value: the default, said once."""
        if key.name not in self._told:
            self._told.add(key.name)
            shown = repr(raw) if len(repr(raw)) <= 60 else repr(raw)[:57] + "..."
            message = (f"the setting {key.name} = {shown} is not valid here; "
                       f"using {key.default!r} instead")
            self.ignored.append(message)
            print(f"karuta: {message}", file=sys.stderr)
        return key.default

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
