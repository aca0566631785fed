"""Files written whole or not at all, never through a link someone planted, and
read without blocking on a pipe.

Every file the program writes under a fixed name (an index, a session, a lock, a
log) goes through here: the bytes go to a new file of an unguessable name
(``mkstemp``: exclusive create, so a link planted there is never followed), which
is then renamed over the target. A rename replaces a link planted at the target
itself, it never writes into what the link points at. Reading checks first that
the path is a regular file, opening with ``O_NONBLOCK`` so that a FIFO put where
a file belongs answers at once instead of blocking for ever. Standard library only.

It lives in `audio`, the lowest package that stores files (imported voices,
renders), because `audio` imports nothing from `trainer`; the trainer reads it
as `trainer.safe_files`.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

#: Larger than any file the program writes for itself (an index, a session): a file
#: past this is not one of ours, and reading it whole would only cost memory.
MAX_OWN_FILE_BYTES = 32 * 2**20


def umask() -> int:
    """The process umask, read without setting it (os.umask would race other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomic(target: Path | str, data: bytes, *, mode: int | None = None) -> None:
    """Write `target` whole or not at all (mkstemp beside it, fsync, rename over it).

    The new file gets `mode`, or else that of the regular file it replaces, or else
    the umask's default; OSError is raised with nothing left behind."""
    target = Path(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode if mode is not None else _mode_of(target))
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _mode_of(target: Path) -> int:
    try:
        st = target.lstat()
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    return 0o666 & ~umask()


def open_no_follow(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """os.open that refuses a symbolic link at `path` (ELOOP) and anything that is not a
    regular file (EINVAL), without blocking on a FIFO."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a device or a pipe?)", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path | str, limit: int = MAX_OWN_FILE_BYTES) -> bytes:
    """The bytes of the regular file `path`. OSError if it is not one (a FIFO, a device:
    answered at once, never blocking), cannot be read, or is larger than `limit`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "it is a folder", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a device or a pipe?)", str(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"too large ({st.st_size / 2**20:.0f} MB) to be "
                          "one of the trainer's own files", str(path))
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
        if len(data) > limit:
            raise OSError(errno.EFBIG, "it grew past the size of the trainer's own files", str(path))
        return data
    finally:
        os.close(fd)


def read_text_regular(path: Path | str, limit: int = MAX_OWN_FILE_BYTES) -> str:
    """`read_regular` decoded as UTF-8 (UnicodeDecodeError, a ValueError, if it is not)."""
    return read_regular(path, limit).decode("utf-8")
