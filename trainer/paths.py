"""Where user data lives: statistics, imported readings, synthesis cache, sessions.

Under the platform's user data directory (platformdirs). ``KARUTA_DATA_DIR``
overrides it, which is how tests keep away from a user's real data.
"""
from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "karuta-trainer"


def data_dir() -> Path:
    override = os.environ.get("KARUTA_DATA_DIR")
    if override:
        path = Path(override)
    else:
        from platformdirs import user_data_dir
        path = Path(user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    override = os.environ.get("KARUTA_CACHE_DIR")
    if override:
        path = Path(override)
    elif os.environ.get("KARUTA_DATA_DIR"):
        path = data_dir() / "cache"
    else:
        from platformdirs import user_cache_dir
        path = Path(user_cache_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def sub_dir(name: str) -> Path:
    path = data_dir() / name
    path.mkdir(parents=True, exist_ok=True)
    return path
