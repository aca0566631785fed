"""The interface language for the Qt layer: the pure message table
(`trainer.text.messages`) plus a signal when the language changes.

Widgets call ``tr(id)`` when they (re)build their text and listen to
``Language.changed`` to re-run it.
"""
from __future__ import annotations

from PySide6.QtCore import QLocale, QObject, Signal

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
        if code != messages.current():
            messages.set_language(code)
            self.changed.emit(code)


# One language per process: the main window and every widget share it.
LANG = Language()
