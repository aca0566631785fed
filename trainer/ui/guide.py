"""The short guide to the modes: shown once after the first run, skippable, and in Help.

A few pages (Reader, Match, Drills, Games, Statistics, the voice), each a title,
the mode as it looks in the interface language and a paragraph with the keys that
matter; Back / Next / Skip.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (QDialog, QHBoxLayout, QLabel, QPushButton, QStackedWidget,
                               QVBoxLayout, QWidget)

import trainer.text.help  # noqa: F401  (its messages)
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr

# Set once the guide has been seen to the end or skipped: it is not shown again by itself.
GUIDE_SEEN = S.Key("ui/guide_seen", False)

PAGES = ("reader", "match", "drills", "games", "stats", "voice")
GUIDE_IMAGES = Path(__file__).resolve().parent.parent / "resources" / "guide"


def guide_image(page: str, lang: str | None = None) -> Path:
    """The page's picture in the interface language (``reader-en.jpg``), or the one picture
    a page has for both (``voice.jpg``)."""
    own = GUIDE_IMAGES / f"{page}-{lang or LANG.code}.jpg"
    return own if own.exists() else GUIDE_IMAGES / f"{page}.jpg"


class GuideDialog(QDialog):
    def __init__(self, settings: S.Settings | None = None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle(tr("guide.title"))
        self.setMinimumSize(720, 640)
        layout = QVBoxLayout(self)
        self.stack = QStackedWidget()
        for page in PAGES:
            self.stack.addWidget(self._page(page))
        layout.addWidget(self.stack, 1)
        row = QHBoxLayout()
        self.skip_button = QPushButton(tr("guide.skip"))
        self.skip_button.clicked.connect(self.reject)
        self.counter = QLabel()
        self.back_button = QPushButton(tr("guide.back"))
        self.back_button.clicked.connect(lambda: self.show_page(self.stack.currentIndex() - 1))
        self.next_button = QPushButton()
        self.next_button.setDefault(True)
        self.next_button.clicked.connect(self.next_page)
        row.addWidget(self.skip_button)
        row.addStretch(1)
        row.addWidget(self.counter)
        row.addStretch(1)
        row.addWidget(self.back_button)
        row.addWidget(self.next_button)
        layout.addLayout(row)
        self.finished.connect(self._remember)
        self.show_page(0)

    @staticmethod
    def _page(name: str) -> QWidget:
        """A title, the mode as it looks (a screenshot, tools/guide_images.py), what to do."""
        page = QWidget()
        layout = QVBoxLayout(page)
        title = QLabel(f"<h2>{tr(f'guide.{name}.title')}</h2>")
        layout.addWidget(title)
        picture = QLabel()
        picture.setPixmap(QPixmap(str(guide_image(name))))
        picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(picture)
        body = QLabel(tr(f"guide.{name}.body"))
        body.setWordWrap(True)
        body.setTextFormat(Qt.TextFormat.RichText)
        body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        font = body.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        body.setFont(font)
        layout.addWidget(body, 1)
        return page

    def show_page(self, index: int) -> None:
        index = max(0, min(index, len(PAGES) - 1))
        self.stack.setCurrentIndex(index)
        last = index == len(PAGES) - 1
        self.back_button.setEnabled(index > 0)
        self.next_button.setText(tr("guide.done" if last else "guide.next"))
        self.skip_button.setVisible(not last)
        self.counter.setText(tr("guide.page", n=index + 1, total=len(PAGES)))

    def next_page(self) -> None:
        if self.stack.currentIndex() == len(PAGES) - 1:
            self.accept()
        else:
            self.show_page(self.stack.currentIndex() + 1)

    def _remember(self, _result: int) -> None:
        if self.settings is not None:
            self.settings.set(GUIDE_SEEN, True)
