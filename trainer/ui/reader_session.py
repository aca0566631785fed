"""Moved to `trainer.reader.session` (the reader's model is Qt-free and the command line uses it).

This alias keeps other branches' imports working while they merge; nothing in
this branch imports it. Delete it once ``grep -rn ui.reader_session`` is empty.
"""
from trainer.reader.session import *  # noqa: F401,F403
from trainer.reader.session import ORDERS, ReaderSession, ReadingTiming  # noqa: F401
