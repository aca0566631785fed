"""Python's cycle collector run on the GUI thread only.

Python collects reference cycles whenever allocations pass a threshold, on whatever
thread allocates: a reading being built in a worker thread (`trainer.ui.tasks`), the
audio player's threads. A cycle that holds a Qt wrapper (a panel replaced by a new
game, a dialog closed) is then destroyed on that thread, and Qt aborts the process
when a widget dies off its own thread. Seen once in the legibility walk under load: a
collection on the reading-build thread while the GUI thread was resizing a table.

So, as pyqtgraph and other Qt applications do, the automatic collector is off while
the window is open and `GuiThreadCollector` runs the same generational collections
from a timer on the GUI thread, at the thresholds Python would have used. Reference
counting still frees everything that is not in a cycle at once, on any thread.
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 1000


class GuiThreadCollector(QObject):
    """Turns automatic collection off until `stop()` (or the parent's destruction)."""

    def __init__(self, parent: QObject, interval_ms: int = INTERVAL_MS):
        super().__init__(parent)
        self._threshold = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()
        # a window deleted without closing (tests, a crash in a dialog) still gives the collector back
        parent.destroyed.connect(_enable_gc)

    def collect_due(self) -> int:
        """The generations past their thresholds, youngest first, as Python would; the count found."""
        young, middle, old = gc.get_count()
        found = 0
        if young > self._threshold[0]:
            found += gc.collect(0)
            if middle > self._threshold[1]:
                found += gc.collect(1)
                if old > self._threshold[2]:
                    found += gc.collect(2)
        return found

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


def _enable_gc(*_: object) -> None:
    gc.enable()
