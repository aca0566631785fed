"""The first five minutes: the welcome (language, voice), the guide, and the menu entries
File → Import recordings…, Help → Guide, Help → About.

The main window calls ``add_menu_entries(window)`` once its menus exist and
``first_run(window)`` once it is shown. The first start asks for the language
and the voice (the synthesised one, or import a folder of recordings), then shows
the guide once. Nothing is synthesised up front (issue 25): the Reader and a match
make the synthesised voice while they read (playing within 2 s of Start), and the
modes that must have every clip first (drills read aloud, Mubeyama) prepare it
with a progress bar when they start.
"""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QButtonGroup, QDialog, QDialogButtonBox, QGroupBox, QHBoxLayout,
                               QLabel, QRadioButton, QVBoxLayout)

import trainer.text.help  # noqa: F401  (its messages)
from trainer.ui import settings as S
from trainer.ui.guide import GUIDE_SEEN, GuideDialog
from trainer.ui.i18n import LANG, tr

WELCOMED = S.Key("ui/welcomed", False)


class WelcomeDialog(QDialog):
    """Language and voice, asked once. Choosing a language retranslates at once."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        layout.addWidget(self.heading)

        self.language_box = QGroupBox()
        row = QHBoxLayout(self.language_box)
        self.language_group = QButtonGroup(self)
        self.language_buttons: dict[str, QRadioButton] = {}
        for code, label in (("ja", "日本語"), ("en", "English")):
            button = QRadioButton(label)
            button.setChecked(code == LANG.code)
            button.toggled.connect(lambda on, c=code: on and LANG.set(c))
            self.language_group.addButton(button)
            self.language_buttons[code] = button
            row.addWidget(button)
        layout.addWidget(self.language_box)

        self.voice_box = QGroupBox()
        col = QVBoxLayout(self.voice_box)
        self.synth_button = QRadioButton()
        self.synth_button.setChecked(True)
        self.import_button = QRadioButton()
        col.addWidget(self.synth_button)
        col.addWidget(self.import_button)
        layout.addWidget(self.voice_box)

        self.later = QLabel()
        self.later.setWordWrap(True)
        layout.addWidget(self.later)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self.accept)
        layout.addWidget(self.buttons)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def retranslate(self, *_) -> None:
        self.setWindowTitle(tr("welcome.title"))
        self.heading.setText(f"<h3>{tr('welcome.heading')}</h3>")
        self.language_box.setTitle(tr("welcome.language"))
        self.voice_box.setTitle(tr("welcome.voice"))
        self.synth_button.setText(tr("welcome.voice_synth"))
        self.import_button.setText(tr("welcome.voice_import"))
        self.later.setText(tr("welcome.later"))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(tr("welcome.start"))

    def wants_import(self) -> bool:
        return self.import_button.isChecked()


# -- menus ---------------------------------------------------------------------------------------
def add_menu_entries(window) -> None:
    """File → Import recordings… (before Quit), and a Help menu with the guide and About."""
    window.import_action = QAction(window)
    window.import_action.triggered.connect(lambda: open_import(window))
    window.file_menu.insertAction(window.quit_action, window.import_action)
    window.file_menu.insertSeparator(window.quit_action)
    window.help_menu = window.menuBar().addMenu("")
    window.guide_action = QAction(window)
    window.guide_action.setShortcut("F1")
    window.guide_action.triggered.connect(lambda: open_guide(window))
    window.about_action = QAction(window)
    window.about_action.triggered.connect(lambda: open_about(window))
    window.help_menu.addAction(window.guide_action)
    window.help_menu.addAction(window.about_action)

    window.help_texts = _MenuTexts(window)


class _MenuTexts(QObject):
    """Retitles the entries above when the language changes. A QObject child of the
    window, so the connection to the app-wide LANG ends with the window."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def retranslate(self, *_) -> None:
        w = self.window
        w.import_action.setText(tr("action.import"))
        w.help_menu.setTitle(tr("menu.help"))
        w.guide_action.setText(tr("action.guide"))
        w.about_action.setText(tr("action.about"))


def open_about(window):
    from trainer.ui.about import AboutDialog
    dialog = AboutDialog(window.settings, window)
    dialog.open()
    return dialog


def open_guide(window):
    dialog = GuideDialog(window.settings, window)
    dialog.open()
    return dialog


def open_import(window, then=None):
    from trainer.ui.import_dialog import ImportDialog
    dialog = ImportDialog(window.settings, window.voices, window)
    # The modes read the voice setting again (the new voice may now be the one chosen).
    dialog.imported.connect(lambda _name: _settings_changed(window))
    if then is not None:
        dialog.finished.connect(lambda _result: then())
    dialog.open()
    return dialog


def _settings_changed(window) -> None:
    if hasattr(window, "_settings_changed"):
        window._settings_changed()


# -- first run -----------------------------------------------------------------------------------
def first_run(window):
    """Welcome (once) → the voice (synthesised with a progress bar, or imported) → guide (once).

    Returns the welcome dialog when it is shown, else None.
    """
    settings = window.settings
    # Someone who already chose a language used the app before the welcome existed.
    if settings.get(WELCOMED) or settings.get(S.LANGUAGE):
        _guide_once(window)
        return None
    welcome = WelcomeDialog(window)

    def chosen(result):
        # Closed without choosing (Esc, or the app quitting): ask again next time. The
        # modes still prepare the voice when a reading starts.
        if result != QDialog.DialogCode.Accepted:
            return
        settings.set(WELCOMED, True)
        window.set_language(LANG.code)
        if welcome.wants_import():
            open_import(window, then=lambda: _guide_once(window))
        else:
            settings.set(S.VOICE, "synth")
            _guide_once(window)
    welcome.finished.connect(chosen)
    welcome.open()
    return welcome


def _guide_once(window):
    if window.settings.get(GUIDE_SEEN):
        return None
    return open_guide(window)
