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
    _desktop_identity(app)
    window = MainWindow(Settings())
    window.show()
    window.after_show()
    return app.exec()


def _desktop_identity(app) -> None:
    """Version, icon and desktop entry (packaging/linux/), and the bundled CJK fonts if needed."""
    from PySide6.QtGui import QIcon

    from trainer import __version__
    from trainer.ui.about import app_icon_path
    from trainer.ui.fonts import register_bundled_fonts
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("io.github.karutatrainer.KarutaTrainer")
    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256):
        icon.addFile(str(app_icon_path(size)))
    app.setWindowIcon(icon)
    register_bundled_fonts(app)
