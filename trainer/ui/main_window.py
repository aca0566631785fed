"""The main window: modes (Reader, Match), menus with shortcuts, settings, first run.

Every frequent action has a key, shown in its menu entry and tooltip:
Space pause/resume, W wait (待った), R repeat the shimo-no-ku, N or → skip,
Esc stop, Return start, K kimariji on the torifuda, Ctrl+, settings.
Actions go to the mode on screen, which says which ones it can do now.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMessageBox, QStackedWidget, QTabBar, QVBoxLayout, QWidget

from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr

# command name → (message id, shortcuts)
ACTIONS = {
    "start": ("action.start", ["Return", "Enter"]),
    "pause": ("action.pause", ["Space"]),
    "wait": ("action.wait", ["W"]),
    "repeat": ("action.repeat", ["R"]),
    "skip": ("action.skip", ["N", "Right"]),
    "stop": ("action.stop", ["Esc"]),
}


class ModeBuildError(RuntimeError):
    """A mode could not be built: the window refuses to open without it (a tab that silently
    vanished would hide a broken build from everyone, tests included)."""


# Modes that are not games: (message id, module, class, how to build it). The games'
# tabs come from the game registry (`trainer.games.registry`), between Drills and Statistics.
TRAINING_MODES = (
    ("mode.drills", "trainer.ui.drills_panel", "DrillsPanel", lambda cls, s, v: cls(s, v)),
)
LAST_MODES = (
    ("mode.stats", "trainer.ui.stats_panel", "StatsPanel", lambda cls, s, v: cls(s)),
)


def game_modes() -> list[tuple[str, str, str]]:
    """(message id, module, class) of each registered game's table view, once per view.
    A game's table takes ``(settings, voices)``; its tab is message ``mode.<game>``."""
    from trainer.games import registry
    seen: dict[str, tuple[str, str, str]] = {}
    for v in registry.games():
        if v.table and v.table not in seen:
            module, _, cls = v.table.partition(":")
            seen[v.table] = (f"mode.{v.game}", module, cls)
    return list(seen.values())


class MainWindow(QMainWindow):
    def __init__(self, settings: S.Settings, driver=None, voices=None):
        super().__init__()
        self.settings = settings
        code = settings.get(S.LANGUAGE)
        if code:
            LANG.set(code)
        from trainer.ui import voices as voices_mod
        self.voices = voices or voices_mod.VoiceBook(settings)
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(self.voices, parent=self)
        self.driver = driver
        self._build_modes()
        self._build_actions()
        LANG.changed.connect(self.retranslate)
        self.retranslate()
        geometry = settings.get(S.GEOMETRY)
        if not geometry or not self.restoreGeometry(geometry):
            self.resize(1500, 950)
        self.set_mode(settings.get(S.MODE))

    # -- modes -------------------------------------------------------------------------------
    def _build_modes(self) -> None:
        from trainer.ui.reader_panel import ReaderPanel
        self.reader = ReaderPanel(self.settings, self.driver)
        self.modes: list[tuple[str, QWidget]] = [("mode.reader", self.reader)]
        games = game_modes()
        kyogi = [g for g in games if g[0] == "mode.kyogi"]
        others = [(msg, module, cls, lambda c, s, v: c(s, v)) for msg, module, cls in games
                  if msg != "mode.kyogi"]
        modes = [(msg, module, cls, lambda c, s, v: c(s, v)) for msg, module, cls in kyogi]
        for msg, module, cls, build in (*modes, *TRAINING_MODES, *others, *LAST_MODES):
            panel = self._build_mode(msg, module, cls, build)
            if msg == "mode.kyogi":
                self.match = panel
            self.modes.append((msg, panel))
        self.tabs = QTabBar()
        self.tabs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.stack = QStackedWidget()
        for _, widget in self.modes:
            self.tabs.addTab("")
            self.stack.addWidget(widget)
        self.tabs.currentChanged.connect(self.set_mode)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)

    def _build_mode(self, msg: str, module: str, cls: str, build) -> QWidget:
        import importlib
        try:
            panel_class = getattr(importlib.import_module(module), cls)
            return build(panel_class, self.settings, self.voices)
        except Exception as exc:
            raise ModeBuildError(f"the {msg.removeprefix('mode.')} mode ({module}.{cls}) could not be "
                                 f"built: {type(exc).__name__}: {exc}") from exc

    def set_mode(self, index: int) -> None:
        index = max(0, min(int(index), len(self.modes) - 1))
        if self.tabs.currentIndex() != index:
            self.tabs.setCurrentIndex(index)
        self.stack.setCurrentIndex(index)
        self.settings.set(S.MODE, index)
        self._update_actions()

    def current_mode(self):
        return self.stack.currentWidget()

    # -- actions -----------------------------------------------------------------------------
    def _build_actions(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.reading_menu = bar.addMenu("")
        self.view_menu = bar.addMenu("")
        self.settings_menu = bar.addMenu("")
        self.actions_by_name: dict[str, QAction] = {}
        for name, (_, keys) in ACTIONS.items():
            act = QAction(self)
            act.setShortcuts([QKeySequence(k) for k in keys])
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.triggered.connect(lambda _=False, n=name: self.command(n))
            self.reading_menu.addAction(act)
            self.actions_by_name[name] = act

        self.kimariji_action = QAction(self, checkable=True)
        self.kimariji_action.setShortcut(QKeySequence("K"))
        self.kimariji_action.setChecked(self.settings.get(S.SHOW_KIMARIJI))
        self.kimariji_action.toggled.connect(self._toggle_kimariji)
        self.view_menu.addAction(self.kimariji_action)
        self.poem_action = QAction(self, checkable=True)
        self.poem_action.setShortcut(QKeySequence("P"))
        self.poem_action.setChecked(self.settings.get(S.SHOW_POEM))
        self.poem_action.toggled.connect(self._toggle_poem)
        self.view_menu.addAction(self.poem_action)

        self.settings_action = QAction(self)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.triggered.connect(self.open_settings)
        self.settings_menu.addAction(self.settings_action)
        self.language_menu = self.settings_menu.addMenu("")
        self.language_actions = {}
        for code, label in (("ja", "日本語"), ("en", "English")):
            act = QAction(label, self, checkable=True)
            act.triggered.connect(lambda _=False, c=code: self.set_language(c))
            self.language_menu.addAction(act)
            self.language_actions[code] = act

        self.quit_action = QAction(self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.file_menu.addAction(self.quit_action)

        # The reader panel tells us when what it can do changes.
        self._refresh_timer = QTimer(self, interval=200)
        self._refresh_timer.timeout.connect(self._update_actions)
        self._refresh_timer.start()

    def command(self, name: str) -> None:
        mode = self.current_mode()
        if hasattr(mode, "command"):
            mode.command(name)
        self._update_actions()

    def _update_actions(self) -> None:
        mode = self.current_mode()
        for name, act in self.actions_by_name.items():
            act.setEnabled(bool(getattr(mode, "available", lambda n: False)(name)))

    def _toggle_kimariji(self, on: bool) -> None:
        self.settings.set(S.SHOW_KIMARIJI, on)
        self._settings_changed()

    def _toggle_poem(self, on: bool) -> None:
        self.settings.set(S.SHOW_POEM, on)
        self._settings_changed()

    def _settings_changed(self) -> None:
        for _, widget in self.modes:
            if hasattr(widget, "settings_changed"):
                widget.settings_changed()
            else:
                widget.retranslate()

    def set_language(self, code: str) -> None:
        self.settings.set(S.LANGUAGE, code)
        LANG.set(code)

    def open_settings(self) -> None:
        from trainer.ui.settings_dialog import SettingsDialog
        dialog = SettingsDialog(self.settings, self.voices.imported_names(), self)
        if dialog.exec():
            dialog.apply()
            self.kimariji_action.setChecked(self.settings.get(S.SHOW_KIMARIJI))
            self._settings_changed()

    def retranslate(self, *_) -> None:
        self.setWindowTitle(tr("app.title"))
        for k, (msg, _) in enumerate(self.modes):
            self.tabs.setTabText(k, tr(msg))
        self.file_menu.setTitle(tr("menu.file"))
        self.reading_menu.setTitle(tr("menu.reading"))
        self.view_menu.setTitle(tr("menu.view"))
        self.settings_menu.setTitle(tr("menu.settings"))
        self.language_menu.setTitle(tr("menu.language"))
        for name, act in self.actions_by_name.items():
            msg, keys = ACTIONS[name]
            act.setText(tr(msg))
            act.setToolTip(f"{tr(msg)} [{' / '.join(keys)}]")
        self.kimariji_action.setText(tr("action.kimariji"))
        self.poem_action.setText(tr("action.show_poem"))
        self.settings_action.setText(tr("action.settings"))
        self.quit_action.setText(tr("action.quit"))
        for code, act in self.language_actions.items():
            act.setChecked(code == LANG.code)

    # -- first run and closing ---------------------------------------------------------------
    def after_show(self) -> None:
        """Once the window is up: make sure a voice exists (synthesised the first time)."""
        QTimer.singleShot(0, lambda: self.voices.ensure_ready(self))
        QTimer.singleShot(1500, self._preload_charts)

    def _preload_charts(self) -> None:
        """Import the chart library (~0.8 s) while nobody waits, not when the
        Statistics tab is first opened: the dashboard then draws in well under 1 s."""
        if any(msg == "mode.stats" for msg, _ in self.modes):
            import trainer.ui.stats_charts  # noqa: F401

    def closeEvent(self, event) -> None:
        for _, widget in self.modes:
            if hasattr(widget, "shutdown"):
                widget.shutdown()
        self.driver.stop()
        if hasattr(self.voices, "close"):
            self.voices.close()             # the output stream and its clock thread
        self.settings.set(S.GEOMETRY, bytes(self.saveGeometry().data()))
        self.settings.sync()
        super().closeEvent(event)


def show_error(parent, text: str) -> None:
    QMessageBox.warning(parent, tr("error.title"), text)
