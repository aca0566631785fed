"""Entry point of the window: ``karuta`` (or ``karuta gui``) calls ``run(args)``."""
from __future__ import annotations

import sys


def run(args=None) -> int:
    from PySide6.QtWidgets import QApplication

    from trainer.paths import APP_NAME
    from trainer.ui.main_window import MainWindow
    from trainer.ui.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    window = MainWindow(Settings())
    window.show()
    window.after_show()
    return app.exec()
