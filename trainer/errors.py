"""The command line's two kinds of error, in a module of their own.

Commands and simulators raise them; `trainer.cli` turns them into one line on
stderr and an exit status. They live apart from `trainer.cli` so that a
command module never imports the command line that imports it (a cycle), and
so that `python -m trainer.cli` (which runs that file as ``__main__``) and the
commands agree on one class.
"""
from __future__ import annotations


class UsageError(Exception):
    """A bad argument: one line on stderr, exit status 2."""


class Failure(Exception):
    """A failure while working (not the user's input): one line on stderr, exit status 1."""
