"""How the user can call this program again, for the commands a message suggests.

After `packaging/run.sh` only `.venv/bin/karuta` exists, and `python -m trainer.cli` works
from a checkout: a message that says `karuta read` there names a command the shell cannot find.
"""
from __future__ import annotations

import os
import shutil
import sys


def command_name(argv0: str | None = None) -> str:
    """'karuta' when the PATH finds this very program under that name, else the path it was
    called by (shortened to be relative to the working folder when it lies under it), else
    `PYTHON -m trainer.cli` when it runs as a module."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    name = os.path.basename(argv0)
    if not argv0 or name in ("cli.py", "__main__.py", "-c") or name.endswith(".py"):
        return f"{_short(sys.executable)} -m trainer.cli"
    found = shutil.which(name)
    if found and os.path.realpath(found) == os.path.realpath(argv0):
        return name
    return _short(argv0)


def _short(path: str) -> str:
    if not os.path.isabs(path):
        return path if os.sep in path else os.path.join(".", path)
    try:
        relative = os.path.relpath(path)
    except ValueError:          # another drive (Windows)
        return path
    return path if relative.startswith("..") else relative
