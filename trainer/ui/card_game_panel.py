"""What the turn-based card games' tabs (Yomi, Ume Botan, Unsun) share: a setup row, the shared
table shell with a `TurnTable`, the log, the score sheet, and the main window's mode protocol.

A game's panel subclasses `CardGamePanel` and writes: its table view (a
`table_shell.TableView`), its setup widgets, how a session is made from them,
its log line per event (`words`), the score-sheet row an event adds, the
status line, and what a click means (`action_for`). Optional hooks: the
person's seat (`person_seat`, seat 0 unless the game lets them choose), the
score sheet's columns (`score_columns`, one per seat unless e.g. per team),
buttons beside the status line (`extra_buttons`), the pause after given event
kinds (`pause_after`) and the end of the game (`game_over`). Every other seat
is a CPU; the session is the same pure `TurnSession` the simulator plays
(`trainer.games.*_session.new_session`), and it decides every rule and every
time: the panel draws the person's view and shows the session's refusals.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from audio.clock import SYSTEM, Clock
from trainer.games.protocol import GameEvent
from trainer.games.turn_session import CPU, HUMAN, TurnSession
from trainer.ui.i18n import LANG, add_messages, tr
from trainer.ui.table_shell import TableShell, TableView, TurnTable

add_messages({
    "cards.new_game": ("新しいゲーム", "New game"),
    "cards.players": ("人数", "Players"),
    "cards.level": ("CPU の強さ", "CPU level"),
    "cards.you": ("あなた", "You"),
    "cards.you_in_log": ("席{n}（あなた）", "Seat {n} (you)"),
    "cards.cpu": ("CPU {n}", "CPU {n}"),
    "cards.log": ("記録", "Log"),
    "cards.scores": ("得点表", "Score sheet"),
    "cards.your_turn": ("あなたの番です", "Your turn"),
    "cards.thinking": ("{name} の番", "{name}'s turn"),
    "cards.over": ("終局。勝ち: {names}", "Game over. Winner: {names}"),
    "cards.press_new": ("設定を選んで「新しいゲーム」を押してください",
                        "Choose the settings and press New game"),
})

ME = 0


def free_centre(centre: QRectF, boxes: Sequence[QRectF], gap: float = 10.0) -> QRectF:
    """The part of the shell's centre no seat box covers (the ring's centre reaches under the
    boxes): each box that still overlaps it cuts it on the side that keeps the most room."""
    free = QRectF(centre)
    for _ in range(2 * len(boxes)):
        # a cut flush with a box touches it by a rounding error (240.2000…1 against 240.2):
        # that is no overlap, or the box cuts again and leaves a sliver
        hit = next((b.adjusted(-gap, -gap, gap, gap) for b in boxes
                    if _area(b.adjusted(-gap, -gap, gap, gap).intersected(free)) >= 1.0), None)
        if hit is None:
            break
        cuts = [QRectF(free).adjusted(max(0.0, hit.right() - free.left()), 0, 0, 0),     # right of it
                QRectF(free).adjusted(0, 0, min(0.0, hit.left() - free.right()), 0),     # left of it
                QRectF(free).adjusted(0, max(0.0, hit.bottom() - free.top()), 0, 0),     # below it
                QRectF(free).adjusted(0, 0, 0, min(0.0, hit.top() - free.bottom()))]     # above it
        cuts = [c for c in cuts if c.width() > 0 and c.height() > 0 and _area(c.intersected(hit)) < 1.0]
        if not cuts:
            return QRectF()
        free = max(cuts, key=lambda c: c.width() * c.height())
    return free


def _area(r: QRectF) -> float:
    return max(0.0, r.width()) * max(0.0, r.height())


class CardGamePanel(QWidget):
    """One card game's tab (see the module docstring)."""

    pause_after: dict[str, float] = {}
    """Event kind -> seconds the next CPU move waits after it (the session paces, the panel asks)."""
    side_width = 420

    def __init__(self, settings: Any, voices: Any, *, clock: Clock = SYSTEM,
                 cpu_delay_s: float = 0.6, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings, self.voices, self.clock = settings, voices, clock
        self.cpu_delay_s = cpu_delay_s
        self.me = ME
        self.session: TurnSession | None = None
        self.game: TurnTable | None = None
        self.seed: int | str | None = None
        self._scored = 0              # events already looked at for score-sheet rows
        self.table: TableView = self.make_table()
        self.side = self.make_side()
        self.shell = TableShell(self.table, side=self.side, clock=clock, side_width=self.side_width)
        self.shell.show_scores(True)
        self.setup_row = QHBoxLayout()
        self.build_setup(self.setup_row)
        self.new_button = QPushButton()
        self.new_button.clicked.connect(lambda: self.start_game())
        self.new_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setup_row.addWidget(self.new_button)
        self.setup_row.addStretch(1)
        self.status = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.status.setStyleSheet("font-size: 17px; color: #222; padding: 2px;")
        self.notice = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.notice.setStyleSheet("color: #c0392b;")
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        for button in self.extra_buttons():
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            status_row.addWidget(button)
        v = QVBoxLayout(self)
        v.setContentsMargins(4, 4, 4, 4)
        v.addLayout(self.setup_row)
        v.addLayout(status_row)
        v.addWidget(self.notice)
        v.addWidget(self.shell, 1)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    # -- what a game writes ----------------------------------------------------------------------
    def make_table(self) -> TableView:
        raise NotImplementedError

    def make_side(self) -> QWidget | None:
        return None

    def build_setup(self, row: QHBoxLayout) -> None:
        """Add the game's setup widgets to the row (the New game button follows)."""

    def new_session(self, seed: int | str) -> TurnSession:
        raise NotImplementedError

    def action_for(self, seat: int, item: Any, legal: Sequence[Any]) -> Any:
        raise NotImplementedError

    def words(self, event: GameEvent) -> str | None:
        raise NotImplementedError

    def score_row(self, event: GameEvent) -> tuple[str, list[int]] | None:
        return None

    def show_view(self) -> None:
        """Hand the person's view (and what they may do) to the table."""

    def retranslate_setup(self) -> None:
        """Texts of the game's own setup widgets."""

    def seat_line(self, seat: int) -> str:
        return ""

    def person_seat(self) -> int:
        """The seat the person plays at in the next game."""
        return ME

    def score_columns(self) -> list[str]:
        """The score sheet's column titles (one per seat unless the game scores teams)."""
        return self.seat_names()

    def score_tooltips(self) -> list[str]:
        return []

    def extra_buttons(self) -> list[QPushButton]:
        """Buttons beside the status line (a choice that is not a card); shown as the game says."""
        return []

    def game_over(self) -> None:
        """The game just ended (the status line already says who won)."""

    @property
    def playing(self) -> TurnSession:
        """The game in progress (for what runs only once `start_game` made one)."""
        assert self.session is not None, "no game started"
        return self.session

    # -- names -------------------------------------------------------------------------------------
    def seat_names(self, in_log: bool = False) -> list[str]:
        """The seats' names: "You" (in the log "Seat 1 (you)", so sentences read well), "CPU n"."""
        n = self.session.state.players if self.session is not None else 4
        you = tr("cards.you_in_log", n=self.me + 1) if in_log else tr("cards.you")
        return [you if s == self.me else tr("cards.cpu", n=s) for s in range(n)]

    # -- a game --------------------------------------------------------------------------------------
    def start_game(self, seed: int | str | None = None) -> None:
        """A new game from the setup row (a fresh random seed unless given)."""
        self._stop_game()
        self.seed = random.randrange(1_000_000) if seed is None else seed
        self.me = self.person_seat()
        self.session = self.new_session(self.seed)
        self._scored = 0
        self.shell.log.clear()
        self._score_columns()
        self.table.set_seats(self.seat_names(), me=self.me)
        self.notice.setText("")
        self.game = TurnTable(self.shell, self.session, self.me, self.action_for, words=self.words,
                              cpu_delay_s=self.cpu_delay_s, pause_after=self.pause_after, parent=self)
        self.game.changed.connect(self._changed)
        self.game.refused.connect(self.notice.setText)
        self.game.finished.connect(self.game_over)
        self.game.start()

    def _score_columns(self) -> None:
        self.shell.scores.set_columns(self.score_columns())
        for k, tip in enumerate(self.score_tooltips()):
            header = self.shell.scores.horizontalHeaderItem(k)     # set_columns made one per column
            if header is not None:
                header.setToolTip(tip)

    def seats(self, players: int) -> tuple[str, ...]:
        return tuple(HUMAN if s == self.me else CPU for s in range(players))

    def _stop_game(self) -> None:
        if self.game is not None:
            self.game.stop()
            self.table.clicked.disconnect(self.game._clicked)
            self.game.changed.disconnect(self._changed)
            self.game.deleteLater()
            self.game = None

    def _changed(self) -> None:
        s = self.session
        if s is None:
            return
        self.notice.setText("")
        for event in s.log_for(self.me)[self._scored:]:
            row = self.score_row(event)
            if row is not None:
                self.shell.scores.add_row(*row)
        self._scored = len(s.log_for(self.me))
        self.show_view()
        self.table.lines = [self.seat_line(k) for k in range(s.state.players)]
        self.status.setText(self.status_text())
        self.table.refresh()

    def status_text(self) -> str:
        s = self.session
        if s is None:
            return tr("cards.press_new")
        if s.is_over():
            out = s.outcome()
            names = self.seat_names()
            return tr("cards.over", names=", ".join(names[w] for w in (out.winners if out else ())))
        if s.waiting_for():
            return tr("cards.your_turn")
        seat = s.to_act(self.me)          # as the person may know it
        return tr("cards.thinking", name=self.seat_names()[seat]) if seat is not None else ""

    # -- the main window's mode protocol ---------------------------------------------------------------
    def available(self, name: str) -> bool:
        return False                 # the reader's commands (pause, repeat ...) do not apply here

    def command(self, name: str) -> bool:
        """Reader commands do not apply to a card table: ignored (not handled)."""
        return False

    def settings_changed(self) -> None:
        self.retranslate()

    def shutdown(self) -> None:
        self._stop_game()

    def retranslate(self, *_) -> None:
        self.new_button.setText(tr("cards.new_game"))
        self.shell.log_title.setText(tr("cards.log"))
        self.shell.scores_title.setText(tr("cards.scores"))
        self.retranslate_setup()
        s = self.session
        if s is None:
            self.status.setText(tr("cards.press_new"))
            return
        names = self.seat_names()
        self.table.titles = names
        rows = [r for r in (self.score_row(e) for e in s.log_for(self.me)[:self._scored]) if r is not None]
        self._score_columns()
        for label, values in rows:
            self.shell.scores.add_row(label, values)
        self.shell.log.clear()
        self.shell.log.add_lines([self.words(e) for e in s.log_for(self.me)])
        self._changed()
        if s.is_over():
            self.game_over()


def fill_choices(box: QComboBox, items: list[tuple[str, Any]], default: Any = None,
                 announce: bool = False) -> None:
    """(Re)fill a setup combo box in the current language, keeping its choice; `announce`
    emits ``currentIndexChanged`` once afterwards (for a box whose choice rebuilds the table)."""
    keep = box.currentData() if box.count() else default
    box.blockSignals(True)
    box.clear()
    for text, data in items:
        box.addItem(text, data)
    k = box.findData(keep)
    box.setCurrentIndex(k if k >= 0 else 0)
    box.blockSignals(False)
    if announce:
        box.currentIndexChanged.emit(box.currentIndex())
