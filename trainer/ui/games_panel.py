"""The Games mode (遊び): every card game of the registry but kyōgi, one inner tab each.

Mubeyama karuta, Unsun karuta, Yomi, Ume Botan … each game's table is built
from the registry (`trainer.ui.modes.game_tables`) when the window opens, so a
broken table stops the window (`ModeBuildError`) instead of vanishing. The
reading commands (Start, Pause, Stop …) go to the game on screen.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStackedWidget, QTabBar, QVBoxLayout, QWidget

from trainer.ui.i18n import LANG, MESSAGES, add_messages, tr
from trainer.ui.modes import MATCH_GAME, Mode, build_table, game_tables, settings_changed

add_messages({"mode.games": ("遊び", "Games")})


def game_name(game: str) -> str:
    """The game's tab text in the interface language (message ``mode.<game>``, which each
    game's table registers), or its registry id when it has none."""
    msg = f"mode.{game}"
    return tr(msg) if msg in MESSAGES else game


class GamesPanel(QWidget):
    def __init__(self, settings, voices, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.games: list[tuple[str, QWidget]] = [
            (game, build_table(game, module, cls, settings, voices))
            for game, module, cls in game_tables() if game != MATCH_GAME]
        self.tabs = QTabBar()
        self.tabs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.tabs.setExpanding(False)
        self.stack = QStackedWidget()
        for _, panel in self.games:
            self.tabs.addTab("")
            self.stack.addWidget(panel)
        self.tabs.currentChanged.connect(self.stack.setCurrentIndex)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        layout.addWidget(self.stack, 1)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def current(self) -> QWidget | None:
        return self.stack.currentWidget()

    def show_game(self, game: str) -> QWidget:
        index = [g for g, _ in self.games].index(game)
        self.tabs.setCurrentIndex(index)
        return self.games[index][1]

    # -- the mode protocol: the game on screen answers --------------------------------------
    def available(self, name: str) -> bool:
        panel = self.current()
        return isinstance(panel, Mode) and bool(panel.available(name))

    def command(self, name: str) -> None:
        panel = self.current()
        if isinstance(panel, Mode):
            panel.command(name)

    def retranslate(self, *_) -> None:
        for k, (game, _panel) in enumerate(self.games):
            self.tabs.setTabText(k, game_name(game))

    def settings_changed(self) -> None:
        settings_changed(panel for _, panel in self.games)

    def shutdown(self) -> None:
        for _, panel in self.games:
            if hasattr(panel, "shutdown"):
                panel.shutdown()
