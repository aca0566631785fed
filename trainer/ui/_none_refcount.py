"""Work around PySide6 6.12 dropping references to None, True and False on Python 3.11.

Measured here with 6.12.0: every PySide6 call that returns nothing
(``QTimer.setInterval``, ``QPainter.save``, ``QWidget.update`` ...) decrements
None's reference count without having incremented it (the abi3 wheel seems to
assume an immortal None, which only Python >= 3.12 has).  None starts with a
few thousand references, so any window dies after a few seconds of painting
with "Fatal Python error: none_dealloc".  Emitting a signal with a bool
argument does the same to True or False ("bool_dealloc").  Where the bug is
(PySide6 6.12.x on Python < 3.12) we give None, True and False 2**40 extra
references each, which is what immortality amounts to; on any other PySide6,
and on 3.12+ (where they are immortal), this does nothing: a count patched on
a correct binding would only hide its own refcount errors.
tests/test_none_refcount.py measures the installed PySide6 to keep the version
range honest. Remove it once the project requires Python 3.12.
"""
from __future__ import annotations

import sys

_EXTRA = 1 << 40
AFFECTED_SERIES = ((6, 12),)   # (major, minor) of the PySide6 releases that drop the references
_applied = False


def bug_present(pyside_version: tuple[int, ...], python_version: tuple[int, ...]) -> bool:
    """Whether this PySide6 on this Python drops references to None, True and False."""
    return tuple(python_version[:2]) < (3, 12) and tuple(pyside_version[:2]) in AFFECTED_SERIES


def installed_pyside_version() -> tuple[int, ...]:
    import PySide6     # the package alone: no Qt library is loaded by this
    return tuple(int(part) for part in PySide6.__version_info__[:3])


def make_none_immortal() -> None:
    global _applied
    if _applied or not bug_present(installed_pyside_version(), tuple(sys.version_info[:2])):
        return
    import ctypes
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _EXTRA
    _applied = True


def applied() -> bool:
    return _applied
