"""File → Import recordings…: a folder of a reader's recordings becomes a voice, from the window.

The same import as `karuta import-readings DIR` (audio.importer.import_readings),
run off the GUI thread with a progress bar and Cancel, and the same per-file
report the command prints, worded in the interface language (`trainer.text.import_report`).
Cancelling keeps what was imported (the importer leaves out the poems not yet
analysed), so the report is shown either way.
"""
from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QApplication, QCheckBox, QDialog, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QProgressBar, QPushButton, QVBoxLayout)

import trainer.text.help  # noqa: F401  (its messages)
from trainer.text.import_report import report_text
from trainer.ui import settings as S
from trainer.ui.i18n import tr
from trainer.ui.tasks import BackgroundTask


class ImportDialog(QDialog):
    imported = Signal(str)          # the voice's name, once poems were imported into it

    def __init__(self, settings: S.Settings, voices=None, parent=None, folder: str | None = None):
        super().__init__(parent)
        self.settings = settings
        self.voices = voices
        self.task: BackgroundTask | None = None
        self.report = None
        self._stop = threading.Event()
        self.setWindowTitle(tr("import.title"))
        self.setMinimumSize(760, 520)
        self._build()
        # Quitting mid-import: stop after the poems being analysed, and let the thread end.
        app = QApplication.instance()         # there is one: this is a widget
        if app is not None:
            app.aboutToQuit.connect(self._stop_for_quit)
        if folder:
            self.set_folder(folder)

    # -- layout ----------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        intro = QLabel(tr("import.intro"))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.folder_edit = QLineEdit()
        self.folder_edit.textChanged.connect(self._folder_typed)
        browse = QPushButton(tr("import.browse"))
        browse.clicked.connect(self.browse)
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        row.addWidget(browse)
        form.addRow(tr("import.folder"), row)
        self.name_edit = QLineEdit()
        form.addRow(tr("import.name"), self.name_edit)
        layout.addLayout(form)
        self.use_check = QCheckBox(tr("import.use"))
        self.use_check.setChecked(True)
        layout.addWidget(self.use_check)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        layout.addWidget(self.progress)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.report_view = QPlainTextEdit()
        self.report_view.setReadOnly(True)
        self.report_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # wrapped at the view's width: a Japanese line (a failure's reason, the command to run
        # again) ran past 760 px and hid its end behind a sideways scroll
        self.report_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        layout.addWidget(self.report_view, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.start_button = QPushButton(tr("import.start"))
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton(tr("common.cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button = QPushButton(tr("common.close"))
        self.close_button.clicked.connect(self.reject)
        for b in (self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)
        layout.addLayout(buttons)

    def browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, tr("import.choose"), self.folder_edit.text())
        if folder:
            self.set_folder(folder)

    def set_folder(self, folder: str) -> None:
        self.folder_edit.setText(str(folder))

    def _folder_typed(self, text: str) -> None:
        # The voice is named after the folder unless the user typed a name.
        self.name_edit.setPlaceholderText(Path(text).name if text else "")

    def voice_name(self) -> str:
        return self.name_edit.text().strip() or self.name_edit.placeholderText()

    # -- the import ------------------------------------------------------------------------------
    def running(self) -> bool:
        return self.task is not None

    def start(self) -> None:
        folder = Path(self.folder_edit.text().strip())
        if not self.folder_edit.text().strip() or not folder.is_dir():
            self.status.setText(tr("import.not_folder"))
            return
        name = self.voice_name() or None
        self._stop.clear()
        self.report = None
        self.report_view.clear()
        self._set_running(True)
        self.status.setText(tr("import.running", done=0, total="…"))

        def work(progress, _cancel):
            from audio.importer import import_readings
            try:
                return import_readings(folder, name, progress=progress, cancelled=self._stop.is_set,
                                       keep_clips=False)   # memory bounded by the largest file
            except ValueError as exc:          # a folder or name that cannot be used at all
                return str(exc)

        self.task = BackgroundTask(work, self)
        self.task.progressed.connect(self._progressed)
        self.task.succeeded.connect(self._finished)
        self.task.failed.connect(self._failed)
        self.task.cancelled.connect(lambda: self._failed(tr("import.cancelled")))
        self.task.start()

    def cancel(self) -> None:
        """Stop after the poems being analysed; they and everything before stay imported."""
        self._stop.set()
        self.cancel_button.setEnabled(False)

    def _set_running(self, on: bool) -> None:
        self.progress.setVisible(True)
        self.start_button.setEnabled(not on)
        self.cancel_button.setEnabled(on)
        self.close_button.setEnabled(not on)
        self.folder_edit.setEnabled(not on)
        self.name_edit.setEnabled(not on)

    def _progressed(self, done: int, total: int) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        self.status.setText(tr("import.running", done=done, total=total))

    def _finished(self, result) -> None:
        self._end_task()
        if isinstance(result, str):
            self.status.setText(tr("import.failed", err=result))
            return
        self.report = result
        self.report_view.setPlainText(report_text(result))
        if result.cancelled:
            self.status.setText(tr("import.cancelled"))
        elif result.poems:
            self.status.setText(tr("import.done", n=len(result.poems), name=result.name,
                                   stored=len(result.stored)))
        else:
            self.status.setText(tr("import.none"))
        if result.poems:
            self._adopt(result.name)

    def _failed(self, err: str) -> None:
        self._end_task()
        self.status.setText(tr("import.failed", err=err))

    def _end_task(self) -> None:
        if self.task is not None:
            self.task.wait()
            self.task.deleteLater()
        self.task = None
        self._set_running(False)

    def _adopt(self, name: str) -> None:
        """The voice book reopens the voice (its clips changed); read with it if asked."""
        if self.voices is not None and hasattr(self.voices, "forget"):
            self.voices.forget(name)
        if self.use_check.isChecked():
            self.settings.set(S.VOICE, name)
        self.imported.emit(name)

    def _stop_for_quit(self) -> None:
        if self.task is not None:
            self._stop.set()
            self.task.wait()

    def reject(self) -> None:
        if self.running():          # closing waits for the import to stop, losing nothing
            self.cancel()
            return
        super().reject()

    def closeEvent(self, event) -> None:
        if self.running():
            self.cancel()
            event.ignore()
            return
        super().closeEvent(event)
