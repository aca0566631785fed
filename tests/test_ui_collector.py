"""Cycles are collected on the GUI thread while the window is open (trainer.ui.collector):
Qt aborts when a widget is destroyed on a worker thread, and Python's automatic collector
runs on whichever thread allocates."""
from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QSettings

from tests.test_ui_app import FakeVoices
from tests.ui_fakes import FakeDriver
from trainer.ui import settings as S
from trainer.ui.main_window import MainWindow


class _Cyclic:
    died_on: list[str] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cyclic.died_on.append(threading.current_thread().name)


def test_a_cycle_dropped_on_a_worker_thread_is_collected_on_the_gui_thread(qtbot, tmp_path):
    assert gc.isenabled()
    w = MainWindow(S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)),
                   driver=FakeDriver(), voices=FakeVoices())
    qtbot.addWidget(w)
    try:
        assert not gc.isenabled()
        _Cyclic.died_on.clear()

        def worker() -> None:
            for _ in range(3 * gc.get_threshold()[0]):   # far past the point Python would collect
                _Cyclic()

        thread = threading.Thread(target=worker, name="reading-build")
        thread.start()
        thread.join()
        assert _Cyclic.died_on == []                      # nothing collected on the worker
        made = 3 * gc.get_threshold()[0]

        def collected() -> bool:
            # the GUI thread goes on allocating, as the app does (the counter Python goes by
            # is allocations minus frees, so a burst of frees, as of a window an earlier test
            # dropped, can put the collection off, for Python's own collector too)
            _more = [[] for _ in range(gc.get_threshold()[0] // 10)]
            for each in _more:
                each.append(each)
            return len(_Cyclic.died_on) == made

        qtbot.waitUntil(collected, timeout=10_000)
        assert set(_Cyclic.died_on) == {threading.main_thread().name}
    finally:
        w.close()
    assert gc.isenabled()            # given back when the window closes
    gc.collect()
