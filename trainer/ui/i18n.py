"""The interface language for the Qt layer: the pure message table
(`trainer.text.messages`) plus a signal when the language changes.

Widgets call ``tr(id)`` when they (re)build their text and listen to
``Language.changed`` to re-run it.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator, Signal

from trainer.text import messages
from trainer.text.messages import LANGUAGES, MESSAGES, add_messages, tr

__all__ = ["LANGUAGES", "MESSAGES", "add_messages", "tr", "LANG", "Language", "system_language"]


def system_language() -> str:
    """'ja' when the system locale is Japanese, else 'en'."""
    return "ja" if QLocale.system().language() == QLocale.Language.Japanese else "en"


class Language(QObject):
    """The current interface language; ``changed`` fires on a real change.

    The language itself lives in `trainer.text.messages` (so text is worded
    without Qt); this object only tells the widgets."""

    changed = Signal(str)

    def __init__(self, code: str | None = None):
        super().__init__()
        messages.set_language(code if code in LANGUAGES else system_language())

    @property
    def code(self) -> str:
        return messages.current()

    def set(self, code: str) -> None:
        if code not in LANGUAGES:
            raise ValueError(f"unknown language {code!r}; known: {', '.join(LANGUAGES)}")
        qt_words(code)
        if code != messages.current():
            messages.set_language(code)
            self.changed.emit(code)


_qt_catalogue: tuple[str, QTranslator] | None = None


def qt_words(code: str) -> None:
    """Qt's own words in the language: the standard buttons (Yes, No, OK, Cancel) of every
    message box and dialog, a text field's menu. Without Qt's qtbase catalogue a Japanese
    window asked "&Yes / &No" (the 1024×700 walk, issue 28). Where the catalogue is not
    installed, Qt stays English."""
    global _qt_catalogue
    app = QCoreApplication.instance()
    if app is None or (_qt_catalogue is not None and _qt_catalogue[0] == code):
        return
    if _qt_catalogue is not None:
        app.removeTranslator(_qt_catalogue[1])
        _qt_catalogue = None
    if code == "en":
        return
    catalogue = QTranslator(app)
    if catalogue.load(f"qtbase_{code}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(catalogue)
        _qt_catalogue = (code, catalogue)


# One language per process: the main window and every widget share it.
LANG = Language()
