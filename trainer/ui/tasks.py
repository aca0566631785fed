"""Long work off the GUI thread, with progress and cancel.

``BackgroundTask(work)`` runs ``work(progress, cancel)`` in a QThread, where
``progress(done, total)`` reports and ``cancel`` is a ``threading.Event`` set
when the user cancels (the signature of ``audio.synth.synthesize_all``).
Results and errors come back to the GUI thread as queued signals; the worker
never touches a widget.
"""
from __future__ import annotations

import threading
import traceback

from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget


class TaskCancelled(Exception):
    """Raised by work that noticed ``cancelled()``; reported through ``cancelled``, not ``failed``."""


class _Worker(QThread):
    def __init__(self, body):
        super().__init__()
        self._body = body

    def run(self):
        self._body()


class BackgroundTask(QObject):
    progressed = Signal(int, int)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, work, parent=None):
        super().__init__(parent)
        self._work = work
        self._cancel = threading.Event()
        self._thread = _Worker(self._run)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, ms: int = 30_000) -> bool:
        return self._thread.wait(ms)

    def _run(self) -> None:
        try:
            result = self._work(lambda done, total: self.progressed.emit(int(done), int(total)),
                                self._cancel)
        except TaskCancelled:
            self.cancelled.emit()
            return
        except Exception as exc:       # reported to the user, never lost in the thread
            traceback.print_exc()
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        if self._cancel.is_set():
            self.cancelled.emit()
        else:
            self.succeeded.emit(result)


def run_with_progress(parent: QWidget, title: str, label: str, work, on_done, on_error, on_cancel=None):
    """Run ``work`` with a modal, cancellable progress dialog; returns the task."""
    dialog = QProgressDialog(parent)       # its cancel button is set below, in the interface language
    dialog.setLabelText(label)
    dialog.setRange(0, 0)
    dialog.setWindowTitle(title)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    task = BackgroundTask(work, parent)

    def progressed(done, total):
        dialog.setMaximum(max(total, 1))
        dialog.setValue(done)

    def finish(callback, *args):
        dialog.close()
        if callback is not None:
            callback(*args)

    task.progressed.connect(progressed)
    task.succeeded.connect(lambda result: finish(on_done, result))
    task.failed.connect(lambda err: finish(on_error, err))
    task.cancelled.connect(lambda: finish(on_cancel))
    dialog.canceled.connect(task.cancel)
    from PySide6.QtWidgets import QPushButton
    from trainer.ui.i18n import tr
    dialog.setCancelButton(QPushButton(tr("common.cancel")))
    dialog.show()
    task.start()
    return task
