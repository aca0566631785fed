"""Where user data lives: statistics, imported readings, synthesis cache, sessions, settings.

Under the platform's user data directory (platformdirs). ``KARUTA_DATA_DIR``
overrides it -- for everything the app keeps, the Qt settings file included --
which is how tests keep away from a user's real data.

It lives in `audio`, the lowest package that stores files (imported voices,
the synthesis cache), because `audio` imports nothing from `trainer`; the
trainer reads it as `trainer.paths`.
"""
from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "karuta-trainer"


class DataDirError(Exception):
    """The data (or cache) folder cannot be used; the message says which and why."""


def data_dir() -> Path:
    override = os.environ.get("KARUTA_DATA_DIR")
    if override:
        return _usable(Path(override), "KARUTA_DATA_DIR")
    from platformdirs import user_data_dir
    return _usable(Path(user_data_dir(APP_NAME, appauthor=False)), "the data folder")


def cache_dir() -> Path:
    override = os.environ.get("KARUTA_CACHE_DIR")
    if override:
        return _usable(Path(override), "KARUTA_CACHE_DIR")
    if os.environ.get("KARUTA_DATA_DIR"):
        return _usable(data_dir() / "cache", "the cache folder")
    from platformdirs import user_cache_dir
    return _usable(Path(user_cache_dir(APP_NAME, appauthor=False)), "the cache folder")


def sub_dir(name: str) -> Path:
    return _usable(data_dir() / name, f"the {name} folder")


def _usable(path: Path, what: str) -> Path:
    """The folder, created if need be; DataDirError (one sentence) if it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DataDirError(f"{what} {path} is a file, not a folder") from None
    except OSError as exc:
        raise DataDirError(f"{what} {path} cannot be created: {exc.strerror or exc}") from None
    if not path.is_dir():
        raise DataDirError(f"{what} {path} is not a folder")
    return path
