"""The main window: modes (Reader, Match), menus with shortcuts, settings, first run.

Every frequent action has a key, shown in its menu entry and tooltip:
Space pause/resume, W wait (待った), R repeat the shimo-no-ku, N or → skip,
Esc stop, Return start, K kimariji on the torifuda, Ctrl+, settings.
Actions go to the mode on screen, which says which ones it can do now.

One reading at a time (`trainer.ui.reading`): leaving a mode pauses its reading
(a match never reads on behind another tab; back there, Space goes on, and a
mode with no pause of its own, a drill, goes on by itself); a mode that starts
a reading while another mode's is paused asks "Stop the reading in Match?".
"""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QLabel, QMainWindow, QMessageBox, QStackedWidget, QTabBar, QVBoxLayout,
                               QWidget)

from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr
from trainer.ui.kimariji_text import SPELLING
from trainer.ui.modes import MATCH_GAME, ModeBuildError, build_mode, game_tables, settings_changed  # noqa: F401

# command name → (message id, shortcuts)
ACTIONS = {
    "start": ("action.start", ["Return", "Enter"]),
    "pause": ("action.pause", ["Space"]),
    "wait": ("action.wait", ["W"]),
    "repeat": ("action.repeat", ["R"]),
    "skip": ("action.skip", ["N", "Right"]),
    "stop": ("action.stop", ["Esc"]),
}


def _with_settings_and_voices(cls, settings, voices):
    return cls(settings, voices)


# Modes besides the reader and Match: (message id, module, class, how to build it). Match
# mode is kyōgi's table from the game registry; the Games mode holds every other game's table;
# Online plays the turn games on a game server (`karuta serve`).
MODES = (
    ("mode.drills", "trainer.ui.drills_panel", "DrillsPanel", _with_settings_and_voices),
    ("mode.games", "trainer.ui.games_panel", "GamesPanel", _with_settings_and_voices),
    ("mode.online", "trainer.ui.online_panel", "OnlinePanel", _with_settings_and_voices),
    ("mode.stats", "trainer.ui.stats_panel", "StatsPanel", lambda cls, s, v: cls(s)),
)


def all_modes() -> list[tuple[str, str, str, Callable[..., Any]]]:
    """Every mode after the reader, in tab order: Match (kyōgi's table), then MODES."""
    match = next((g, m, c) for g, m, c in game_tables() if g == MATCH_GAME)
    return [("mode.kyogi", match[1], match[2], _with_settings_and_voices), *MODES]


class MainWindow(QMainWindow):
    def __init__(self, settings: S.Settings, driver=None, voices=None):
        super().__init__()
        self.settings = settings
        LANG.set(settings.get(S.LANGUAGE) or LANG.code)     # Qt's own words follow it too
        SPELLING.load(settings)               # how every screen writes kimariji
        from trainer.ui import voices as voices_mod
        self.voices = voices or voices_mod.VoiceBook(settings)
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(self.voices, parent=self)
        self.driver = driver
        self._build_modes()
        self._build_actions()
        self._build_status_bar()
        self._paused_away: dict[int, list] = {}    # mode index → its readings paused when it was left
        from trainer.ui.reading import set_arbiter
        set_arbiter(self.may_stop_readings)
        LANG.changed.connect(self.retranslate)
        SPELLING.changed.connect(self._settings_changed)
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
        for msg, module, cls, build in all_modes():
            panel = build_mode(msg, module, cls, build, self.settings, self.voices)
            self.modes.append((msg, panel))
        self.match = self.mode("mode.kyogi")
        self.games = self.mode("mode.games")
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

    def mode(self, msg: str) -> QWidget:
        return next(panel for m, panel in self.modes if m == msg)

    def set_mode(self, index: int) -> None:
        index = max(0, min(int(index), len(self.modes) - 1))
        previous = self.stack.currentIndex()
        self.stack.setCurrentIndex(index)       # first: the tab bar's echo below changes nothing
        if self.tabs.currentIndex() != index:
            self.tabs.setCurrentIndex(index)
        if hasattr(self, "_paused_away") and index != previous:
            self._leave_mode(previous)
            self._return_to_mode(index)
        self.settings.set(S.MODE, index)
        self._update_actions()

    def current_mode(self):
        return self.stack.currentWidget()

    # -- one reading at a time ---------------------------------------------------------------
    def mode_of_driver(self, driver) -> int | None:
        """The index of the mode a reading driver belongs to (its parent's mode)."""
        if driver is self.driver:
            return 0
        owner = driver.parent()
        for k, (_, widget) in enumerate(self.modes):
            if owner is widget or (owner is not None and widget.isAncestorOf(owner)):
                return k
        return None

    def _mode_name(self, driver) -> str:
        k = self.mode_of_driver(driver)
        return tr(self.modes[k][0]) if k is not None else ""

    def _leave_mode(self, index: int) -> None:
        """The person leaves mode `index`: its sounding reading pauses (said in the status bar)."""
        from trainer.ui.reading import pause_all
        mine = pause_all(lambda d: self.mode_of_driver(d) == index)
        if mine:
            self._paused_away[index] = mine
            self.statusBar().showMessage(tr("reading.paused_away", mode=tr(self.modes[index][0])), 20_000)

    def _return_to_mode(self, index: int) -> None:
        """Back in a mode whose reading was paused when it was left: a mode with a pause of its
        own (Reader, Match) waits for Space; one without (a drill) goes on by itself."""
        mode = self.modes[index][1]
        for d in self._paused_away.pop(index, []):
            if d.state == "paused" and not getattr(mode, "available", lambda n: False)("pause"):
                d.resume()

    def may_stop_readings(self, others, starting) -> bool:
        """The arbiter of `trainer.ui.reading`: a reading is to start while others are busy."""
        for d in (starting, *others):
            d.name = self._mode_name(d)
            k = self.mode_of_driver(d)
            d.name_msg = self.modes[k][0] if k is not None else ""     # to word it again later
        names = "・".join(dict.fromkeys(d.name for d in others if d.name)) or tr("reading.stopped")
        return self.ask_stop_reading(names)

    def ask_stop_reading(self, mode: str) -> bool:
        """Yes/No: stop the reading in `mode`? (tests replace this)"""
        box = QMessageBox(QMessageBox.Icon.Question, tr("reading.ask_title"), tr("reading.ask", mode=mode),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setInformativeText(tr("reading.ask_detail", mode=mode))
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        return box.exec() == QMessageBox.StandardButton.Yes

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
        from trainer.ui import onboarding
        onboarding.add_menu_entries(self)      # File → Import recordings…, Help → Guide, About

        # Cycles are collected on this thread only: Qt aborts when a widget dies on a worker's.
        from trainer.ui.collector import GuiThreadCollector
        self._collector = GuiThreadCollector(self)

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
        self._show_sound_status()

    # -- the status bar: the sound device, always in view ------------------------------------
    def _build_status_bar(self) -> None:
        from trainer.ui.reading import on_sound_notice
        self.sound_status = QLabel()
        self.statusBar().addPermanentWidget(self.sound_status)
        on_sound_notice(self._show_sound_notice)
        # What start-up had to ignore (a damaged saved session, a foreign setting): said where
        # the person looks, not only on stderr. Every setting is read once so none waits to
        # be found wrong in the middle of a match.
        for key in S.all_keys():
            self.settings.get(key)
        notices = [*getattr(self.settings, "ignored", []), getattr(self.reader, "startup_notice", None)]
        told = "; ".join(n for n in notices if n)
        if told:
            self.statusBar().showMessage(told[0].upper() + told[1:], 60_000)

    def _show_sound_notice(self, text: str) -> None:
        self.statusBar().showMessage(text, 20_000)

    def _show_sound_status(self) -> None:
        """'No sound device: running silently' while the player has no device (never opening
        the device just to ask: that happens when a reading first needs it)."""
        voices = self.voices
        has = getattr(voices, "has_player", None)
        silent = bool(has and has() and getattr(voices.player(), "silent", False))
        text = tr("reader.no_sound") if silent else ""
        if self.sound_status.text() != text:
            self.sound_status.setText(text)
            self.sound_status.setToolTip(getattr(voices.player(), "status_message", "") if silent else "")

    def _toggle_kimariji(self, on: bool) -> None:
        self.settings.set(S.SHOW_KIMARIJI, on)
        self._settings_changed()

    def _toggle_poem(self, on: bool) -> None:
        self.settings.set(S.SHOW_POEM, on)
        self._settings_changed()

    def _settings_changed(self) -> None:
        settings_changed(widget for _, widget in self.modes)

    def set_language(self, code: str) -> None:
        self.settings.set(S.LANGUAGE, code)
        LANG.set(code)

    def open_settings(self) -> None:
        from trainer.ui.settings_dialog import SettingsDialog
        dialog = SettingsDialog(self.settings, self.voices.imported_names(), self, voice_book=self.voices)
        if dialog.exec():
            dialog.apply()
            self.kimariji_action.setChecked(self.settings.get(S.SHOW_KIMARIJI))
            self._settings_changed()

    def retranslate(self, *_) -> None:
        self.setWindowTitle(tr("app.title"))
        for k, (msg, _panel) in enumerate(self.modes):
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
        self._show_sound_status()           # "no sound device" in the new language too
        from trainer.ui.reading import notice_reworded
        again = notice_reworded(self.statusBar().currentMessage())
        if again is not None:
            self.statusBar().showMessage(again, 20_000)

    # -- first run and closing ---------------------------------------------------------------
    def after_show(self) -> None:
        """Once the window is up: the first-run welcome, then a voice (synthesised the first time)."""
        from trainer.ui import onboarding
        QTimer.singleShot(0, lambda: onboarding.first_run(self))
        QTimer.singleShot(1500, self._preload_charts)

    def _preload_charts(self) -> None:
        """Import the chart library (~0.8 s) while nobody waits, not when the
        Statistics tab is first opened: the dashboard then draws in well under 1 s."""
        if any(msg == "mode.stats" for msg, _ in self.modes):
            import trainer.ui.stats_charts  # noqa: F401

    def closeEvent(self, event) -> None:
        from trainer.ui import reading
        # A match in play asks first (Ctrl+Q as Esc does); a window never shown has nobody to ask.
        for _, widget in self.modes if self.isVisible() else ():
            if hasattr(widget, "may_close") and not widget.may_close():
                event.ignore()
                return
        if reading._arbiter is not None and reading._arbiter() == self.may_stop_readings:
            reading.set_arbiter(None)       # nobody left to ask
        for _, widget in self.modes:
            if hasattr(widget, "shutdown"):
                widget.shutdown()
        self.driver.stop()
        if hasattr(self.voices, "close"):
            self.voices.close()             # the output stream and its clock thread
        self.settings.set(S.GEOMETRY, bytes(self.saveGeometry().data()))
        self.settings.sync()
        self._collector.stop()
        super().closeEvent(event)


def show_error(parent, text: str) -> None:
    QMessageBox.warning(parent, tr("error.title"), text)
