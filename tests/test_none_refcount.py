"""The None/True/False reference workaround is applied where PySide6 has the bug, and only there."""
import sys

import pytest

from trainer.ui import _none_refcount as nr


@pytest.mark.parametrize("pyside, python, present", [
    ((6, 12, 0), (3, 11, 7), True),
    ((6, 12, 3), (3, 11, 0), True),
    ((6, 11, 2), (3, 11, 7), False),
    ((6, 13, 0), (3, 11, 7), False),
    ((6, 12, 0), (3, 12, 1), False),   # immortal None: nothing to drop
])
def test_the_bug_is_known_by_pyside_series_and_python(pyside, python, present):
    assert nr.bug_present(pyside, python) is present


def _none_refs_dropped_by_void_calls(calls: int) -> int:
    from PySide6.QtCore import QTimer
    timer = QTimer()
    before = sys.getrefcount(None)
    for _ in range(calls):
        timer.setInterval(5)
    return before - sys.getrefcount(None)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal on Python 3.12+")
def test_the_installed_pyside_drops_references_exactly_when_the_gate_says(qapp):
    """Measured, not assumed: a PySide6 of another series that had the bug would fail here."""
    installed = nr.installed_pyside_version()
    dropped = _none_refs_dropped_by_void_calls(2000)
    assert (dropped >= 1000) is nr.bug_present(installed, sys.version_info), (installed, dropped)
    assert nr.applied() is nr.bug_present(installed, sys.version_info)
    if nr.applied():
        for singleton in (None, True, False):
            assert sys.getrefcount(singleton) > 2**39
