"""Work around PySide6 6.12.0 dropping a reference to None on Python 3.11.

Measured here: every PySide6 call that returns nothing (``QTimer.setInterval``,
``QPainter.save``, ``QWidget.update`` ...) decrements None's reference count
without having incremented it (the abi3 wheel seems to assume an immortal
None, which only Python >= 3.12 has).  None starts with a few thousand
references, so any window dies after a few seconds of painting with "Fatal
Python error: none_dealloc".  On Python < 3.12 we give None 2**40 extra
references, which is what immortality amounts to; on 3.12+ this does nothing.
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
    ctypes.c_ssize_t.from_address(id(None)).value += _EXTRA
    _applied = True
