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
    window = open_window(lambda: MainWindow(Settings()))
    if window is None:
        return 1
    window.show()
    window.after_show()
    return app.exec()


def open_window(make):
    """``make()``'s window, or None after saying which mode is broken (a dialog and stderr):
    a broken build is told where the person looks rather than hidden as a missing tab."""
    from PySide6.QtWidgets import QMessageBox

    from trainer.paths import APP_NAME
    from trainer.ui.main_window import ModeBuildError
    try:
        return make()
    except ModeBuildError as exc:
        print(f"karuta: {exc}", file=sys.stderr)
        QMessageBox.critical(None, APP_NAME, f"{exc}\n\nPlease report this; reinstalling may help.")
        return None
