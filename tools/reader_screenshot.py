"""Offscreen screenshot of Reader mode a few cards into a session (docs/screenshots/reader.png).

    PYTHONPATH=$PWD .venv/bin/python tools/reader_screenshot.py 1600 1000 ja docs/screenshots/reader.png

The reading is driven by hand (the UI tests' fake driver): the joka and three cards are
read, the fourth card's kimariji has sounded, so the poem is shown and the live kimariji
list is the one after those three reads. Nothing is read aloud.
"""
import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["KARUTA_DATA_DIR"] = tempfile.mkdtemp()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import trainer.ui  # noqa: E402,F401  (the PySide6 workaround first)


def main(width: int, height: int, lang: str, out: str) -> None:
    from audio.clock import SYSTEM
    from trainer.ui import settings as S
    from trainer.ui.i18n import LANG
    from trainer.ui.main_window import MainWindow
    from ui_fakes import FakeDriver

    class Voices:
        def imported_names(self):
            return []

        def needs_synthesis(self):
            return False

        def ensure_ready(self, parent, then=None):
            if then:
                then()

    app = QApplication.instance() or QApplication([])
    LANG.set(lang)
    settings = S.Settings(QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat))
    settings.set(S.SHOW_KIMARIJI, True)        # the live kimariji panel, for beginners
    driver = FakeDriver()
    w = MainWindow(settings, driver=driver, voices=Voices())
    w.resize(width, height)
    w.show()
    w.set_mode(0)
    w.reader.command("start")
    order = driver.calls[-1][1]
    driver.card_started.emit(0)
    driver.card_finished.emit(0)
    for no in order[:3]:
        driver.card_started.emit(no)
        driver.card_finished.emit(no)
    driver.card_started.emit(order[3])
    driver.kimariji.emit(3, order[3], SYSTEM.now() - 1.0)
    for _ in range(20):
        app.processEvents()
    w.grab().save(out)
    print(f"{out}: {width}x{height} {lang}, cards read {order[:3]}, reading {order[3]}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
