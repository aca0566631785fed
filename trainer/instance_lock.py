"""One trainer at a time on one data folder.

Two windows on one data folder would both write the statistics, the settings and
the reader's session. The window (and `karuta stats install`, which replaces the
statistics database) holds an flock on ``<data>/.karuta.lock``: a crashed trainer
leaves no lock behind, and a second one is refused with one line naming the first.
"""
from __future__ import annotations

import contextlib
import os
from datetime import datetime
from pathlib import Path
from typing import Iterator

from trainer.safe_files import open_no_follow

LOCK_NAME = ".karuta.lock"


class AlreadyRunning(Exception):
    """Another trainer holds the data folder; the message says which and what to do."""


@contextlib.contextmanager
def data_folder_lock(what: str = "the trainer", folder: Path | None = None) -> Iterator[None]:
    """Hold the data folder for `what`; AlreadyRunning at once if another trainer has it."""
    try:
        import fcntl
    except ImportError:   # no flock here: instances are not guarded
        yield
        return
    if folder is None:
        from trainer.paths import data_dir
        folder = data_dir()
    path = folder / LOCK_NAME
    try:
        fd = open_no_follow(path, os.O_RDWR | os.O_CREAT)
    except OSError as exc:   # a read-only data folder: nothing will be written there anyway
        if exc.errno in (30, 13):   # EROFS, EACCES
            yield
            return
        raise AlreadyRunning(f"cannot use the lock file {path}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            raise AlreadyRunning(
                f"another Karuta Trainer is using the data folder {folder}"
                f"{f' ({holder})' if holder else ''}; close it before starting {what} "
                "(or give this one its own folder with KARUTA_DATA_DIR)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"process {os.getpid()}, started {datetime.now():%H:%M:%S}".encode(), 0)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)   # releases the flock
