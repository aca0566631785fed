"""Work around PySide6 6.12.0 dropping references to None, True and False on Python 3.11.

Measured here: every PySide6 call that returns nothing (``QTimer.setInterval``,
``QPainter.save``, ``QWidget.update`` ...) decrements None's reference count
without having incremented it (the abi3 wheel seems to assume an immortal
None, which only Python >= 3.12 has).  None starts with a few thousand
references, so any window dies after a few seconds of painting with "Fatal
Python error: none_dealloc".  Emitting a signal with a bool argument does the
same to True or False ("bool_dealloc").  On Python < 3.12 we give None, True and
False 2**40 extra references each, which is what immortality amounts to; on
3.12+ (where they are immortal) this does nothing.
Remove it once PySide6 is fixed or the project requires Python 3.12.
"""
from __future__ import annotations

import sys

_EXTRA = 1 << 40
_applied = False


def make_none_immortal() -> None:
    global _applied
    if _applied or sys.version_info >= (3, 12):
        return
    import ctypes
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _EXTRA
    _applied = True
