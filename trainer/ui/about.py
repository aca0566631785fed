"""Help → About: the version, where the user's data lives, and the licences of what ships with it."""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QPixmap
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QGridLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QPushButton, QTableWidget, QTableWidgetItem,
                               QVBoxLayout)

import trainer.text.help  # noqa: F401  (its messages)
from trainer import __version__
from trainer.ui.i18n import tr

FRAME_PX = 40      # what a window manager's title bar and frame take from the screen's height

# (component, licence, message id of what it does here). The font and the system libraries ship
# only in the standalone build. Every folder of the build's licenses/ is named in a row here
# (tests/test_packaging.py compares them when a build exists).
COMPONENTS: tuple[tuple[str, str, str], ...] = (
    ("Qt 6 / PySide6", "LGPL-3.0-only", "about.use.window"),
    ("shiboken6 (PySide6's runtime)", "LGPL-3.0-only", "about.use.window"),
    ("ICU (Unicode text support inside Qt; licenses/icu)", "ICU / Unicode licence", "about.use.window"),
    ("Python 3.11, typing_extensions", "PSF-2.0", "about.use.runtime"),
    ("NumPy, SciPy", "BSD-3-Clause", "about.use.analysis"),
    ("pyloudnorm (ITU-R BS.1770 loudness)", "MIT", "about.use.analysis"),
    ("pyopenjtalk-plus (Open JTalk, HTS Engine)", "MIT, BSD-3-Clause", "about.use.voice"),
    ("Open JTalk dictionary (NAIST-jdic)", "BSD-3-Clause", "about.use.voice"),
    ("HTS voice \u201cMei\u201d (MMDAgent)", "CC-BY-3.0", "about.use.voice"),
    ("SudachiPy (imported by pyopenjtalk-plus; its dictionary is left out)", "Apache-2.0", "about.use.voice"),
    ("pydantic, pydantic_core, annotated-types, typing-inspection (imported by pyopenjtalk-plus)",
     "MIT", "about.use.voice"),
    ("PortAudio, python-sounddevice", "MIT", "about.use.output"),
    ("libsndfile, python-soundfile", "LGPL-2.1-or-later, BSD-3-Clause", "about.use.files"),
    ("cffi, pycparser (used by python-sounddevice and python-soundfile)", "MIT-0, BSD-3-Clause",
     "about.use.output"),
    ("libsoxr, python-soxr", "LGPL-2.1-or-later", "about.use.resampling"),
    ("pyqtgraph, colorama", "MIT, BSD-3-Clause", "about.use.charts"),
    ("Starlette, uvicorn, websockets, h11, anyio, idna, click", "BSD-3-Clause, MIT", "about.use.server"),
    ("SQLAlchemy, Alembic, Mako, MarkupSafe", "MIT, BSD-3-Clause", "about.use.server"),
    ("argon2-cffi, argon2-cffi-bindings (password hashes)", "MIT", "about.use.server"),
    ("openskill (kyōgi ratings: Weng-Lin)", "MIT", "about.use.server"),
    ("psycopg (PostgreSQL: the optional 'postgresql' extra, not in the standalone build)", "LGPL-3.0-only",
     "about.use.server"),
    ("fsrs", "MIT", "about.use.srs"),
    ("platformdirs", "MIT", "about.use.data_dirs"),
    ("Noto Sans CJK, Noto Serif CJK (fonts-noto-cjk)", "OFL-1.1", "about.use.fonts"),
    ("System libraries from Debian (licenses/debian, licenses/SOURCES.txt)",
     "each its own (GPL, LGPL, MIT, BSD ...)", "about.use.system"),
)

# Rows that say more than a name: worded in the interface language (trainer/text/help.py)
NAME_IDS = {
    "shiboken6 (PySide6's runtime)": "about.name.shiboken6",
    "ICU (Unicode text support inside Qt; licenses/icu)": "about.name.icu",
    "pyloudnorm (ITU-R BS.1770 loudness)": "about.name.pyloudnorm",
    "Open JTalk dictionary (NAIST-jdic)": "about.name.jtalk_dic",
    "HTS voice \u201cMei\u201d (MMDAgent)": "about.name.mei",
    "SudachiPy (imported by pyopenjtalk-plus; its dictionary is left out)": "about.name.sudachi",
    "pydantic, pydantic_core, annotated-types, typing-inspection (imported by pyopenjtalk-plus)":
        "about.name.pydantic",
    "cffi, pycparser (used by python-sounddevice and python-soundfile)": "about.name.cffi",
    "argon2-cffi, argon2-cffi-bindings (password hashes)": "about.name.argon2",
    "openskill (kyōgi ratings: Weng-Lin)": "about.name.openskill",
    "psycopg (PostgreSQL: the optional 'postgresql' extra, not in the standalone build)": "about.name.psycopg",
    "System libraries from Debian (licenses/debian, licenses/SOURCES.txt)": "about.name.debian",
}
LICENCE_IDS = {"ICU / Unicode licence": "about.licence.icu",
               "each its own (GPL, LGPL, MIT, BSD ...)": "about.licence.each"}


def data_locations(settings=None) -> list[tuple[str, Path]]:
    """(message id, path) of everything the app keeps about its user."""
    from trainer.paths import cache_dir, data_dir
    rows = [("about.data_dir", data_dir()), ("about.cache_dir", cache_dir())]
    if settings is not None and hasattr(settings, "store"):
        rows.append(("about.settings_file", Path(settings.store.fileName())))
    return rows


def licence_dir() -> Path | None:
    """The folder of full licence texts in the standalone build (None when run from Python)."""
    base = getattr(sys, "_MEIPASS", None)
    if base is None:
        return None
    path = Path(base) / "licenses"
    return path if path.is_dir() else None


def app_icon_path(size: int = 128) -> Path:
    return Path(__file__).resolve().parent.parent / "resources" / "icons" / f"karuta-trainer-{size}.png"


class AboutDialog(QDialog):
    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle(tr("about.title"))
        self.setMinimumWidth(760)
        # the whole licence table without scrolling where the screen has the room; on a 1024×700
        # screen 680 px (with the window's frame) ran off its bottom, the Close button with it
        room = self.screen().availableGeometry()
        self.resize(min(900, room.width()), min(680, room.height() - FRAME_PX))
        layout = QVBoxLayout(self)
        layout.addLayout(self._heading())
        layout.addWidget(self._data_box(settings))
        layout.addWidget(self._components_box(), 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setText(tr("common.close"))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _heading(self) -> QHBoxLayout:
        row = QHBoxLayout()
        icon = QLabel()
        icon.setPixmap(QPixmap(str(app_icon_path(64))))
        row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        text = QVBoxLayout()
        title = QLabel(f"<h2>{tr('app.title')}</h2>")
        self.version_label = QLabel(tr("about.version", version=__version__))
        summary = QLabel(tr("about.summary"))
        summary.setWordWrap(True)
        for w in (title, self.version_label, summary):
            text.addWidget(w)
        row.addLayout(text, 1)
        return row

    def _data_box(self, settings) -> QGroupBox:
        box = QGroupBox(tr("about.data"))
        grid = QGridLayout(box)
        self.paths: dict[str, Path] = {}
        for row, (msg, path) in enumerate(data_locations(settings)):
            self.paths[msg] = path
            grid.addWidget(QLabel(tr(msg)), row, 0)
            shown = QLabel(str(path))
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(shown, row, 1)
        grid.setColumnStretch(1, 1)
        opener = QPushButton(tr("about.open_data"))
        opener.clicked.connect(self.open_data_folder)
        grid.addWidget(opener, 0, 2)
        return box

    @staticmethod
    def _shown(text: str, ids: dict[str, str]) -> str:
        """A component's name or licence in the interface language where it says more than a name."""
        return tr(ids[text]) if text in ids else text

    def _components_box(self) -> QGroupBox:
        box = QGroupBox(tr("about.components"))
        layout = QVBoxLayout(box)
        self.table = QTableWidget(len(COMPONENTS), 3)
        self.table.setHorizontalHeaderLabels([tr("about.component"), tr("about.licence"), tr("about.use")])
        for row, (name, licence, use) in enumerate(COMPONENTS):
            for col, value in enumerate((self._shown(name, NAME_IDS), self._shown(licence, LICENCE_IDS),
                                         tr(use))):
                self.table.setItem(row, col, QTableWidgetItem(value))
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()     # long names wrap: no sideways scrolling at 1024 px
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self.table)
        folder = licence_dir()
        if folder is not None:
            note = QLabel(tr("about.licence_files", path=folder))
            note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(note)
        return box

    def open_data_folder(self) -> None:
        from trainer.paths import data_dir
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(data_dir())))
