"""Games → Unsun karuta: the person at one seat of 八人メリ, seven CPUs at the others.

A `CardGamePanel` (the shared turn-game tab) with Unsun's hooks: a setup row
(CPU level, the person's seat, the turn timer), the ロバイ choice as two
buttons beside the status line, one score column per team, and a pause after
each trick so the person sees it turned up. The table (`UnsunTable`) draws
only ``session.view(me)`` and the log shows only ``session.log_for(me)``
worded by `trainer.text.unsun`, so nothing another seat holds face-down
reaches this screen. Every rule is the engine's: a refused click shows the
engine's reason (`why_illegal`), worded in the interface language.
"""
from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from audio.clock import SYSTEM, Clock
from trainer.games import registry
from trainer.games.protocol import GameEvent
from trainer.games.turn_session import TurnSession
from trainer.games.unsun_session import TURN_SECONDS, new_session
from trainer.players.unsun_cpu import LEVELS
from trainer.rules.unsun import (DISCARDING, PLAYERS, ROBAI_CHOICE, Card, DealScored, Discard, HideRobai,
                                 Play, Robau, UnsunView, team_of)
from trainer.text.unsun import describe_unsun, seat_name
from trainer.ui.card_game_panel import CardGamePanel
from trainer.ui.i18n import add_messages, tr
from trainer.ui.unsun_table import UnsunTable

ROBAU, HIDE = "robau", "hide"     # the two items of the ロバイ choice (buttons, not cards)
TRICK_PAUSE_S = 1.6               # the trick just won stays on the table this long before the next lead

PAUSE_AFTER = ("unsun.trick", "unsun.yaku", "unsun.yaku_void", "unsun.monchi", "unsun.deal_scored")
"""The kinds that can end a trick's events: the next CPU lead (or deal) waits `TRICK_PAUSE_S`."""

add_messages({
    "mode.unsun": ("うんすん", "Unsun"),       # its tab inside Games (遊び)
    "unsun.ui.level": ("CPU", "CPU"),
    "unsun.ui.level.random": ("ランダム", "Random"),
    "unsun.ui.level.medium": ("普通", "Medium"),
    "unsun.ui.seat": ("あなたの席", "Your seat"),
    "unsun.ui.seat_item": ("{seat}（{team}組）", "{seat} (team {team})"),
    "unsun.ui.timer": ("持ち時間 5分", "Turn timer (5 min)"),
    "unsun.ui.seed": ("シード {seed}", "Seed {seed}"),
    "unsun.ui.you": ("あなた", "You"),
    "unsun.ui.cpu": ("CPU", "CPU"),
    "unsun.ui.cards": ("{n}枚", "{n} cards"),
    "unsun.ui.dealer": ("親", "dealer"),
    "unsun.ui.seat_tricks": ("{n}手取った", "tricks: {n}"),
    "unsun.ui.your_turn": ("あなたの番: 緑の枠の札を出せます", "Your turn: play a card outlined in green"),
    "unsun.ui.discard_now": ("オキエを取りました: 1枚選んで伏せて捨てます",
                              "You took the Okié: click a card to discard it face-down"),
    "unsun.ui.your_robai": ("切り札のロバイを持っています: ロバうか、隠すか",
                            "You hold the trump Robai: take the Okié (robau) or hide it"),
    "unsun.ui.waiting": ("{seat}の番", "{seat} to play"),
    "unsun.ui.waiting_someone": ("ロバイを持つ人が考えています", "The Robai holder is deciding"),
    "unsun.ui.robau": ("ロバう（オキエを取る）", "Robau (take the Okié)"),
    "unsun.ui.hide": ("隠しロバイ（役5点）", "Hide the Robai (yaku 5)"),
    "unsun.ui.scores": ("点数（局ごと）", "Scores by deal"),
    "unsun.ui.col": ("{team}組: {seats}", "Team {team}: {seats}"),
    "unsun.ui.row": ("第{deal}局 {a}–{b}手", "Deal {deal} ({a}–{b})"),
    "unsun.ui.result.win": ("終局: {team}組の勝ち（A {a} ・ B {b}）{you}",
                            "Game over: team {team} wins (A {a} · B {b}){you}"),
    "unsun.ui.result.tie": ("終局: 引き分け（A {a} ・ B {b}）", "Game over: a tie (A {a} · B {b})"),
    "unsun.ui.result.you_won": ("　あなたの組の勝ち！", " — your team won!"),
    "unsun.ui.result.you_lost": ("　あなたの組の負け", " — your team lost"),
})


class UnsunPanel(CardGamePanel):
    """Games → Unsun karuta (see the module docstring)."""

    pause_after = {kind: TRICK_PAUSE_S for kind in PAUSE_AFTER}
    side_width = 360

    def __init__(self, settings: Any, voices: Any = None, *, clock: Clock = SYSTEM,
                 cpu_delay_s: float = 0.7, parent: QWidget | None = None):
        super().__init__(settings, voices, clock=clock, cpu_delay_s=cpu_delay_s, parent=parent)
        self.table.set_seats(self.seat_names(), me=self.person_seat())

    # -- the table and the setup row -------------------------------------------------------------
    table: UnsunTable

    def make_table(self) -> UnsunTable:
        table = UnsunTable(clock=self.clock)
        table.seat_name = seat_name
        return table

    def make_side(self) -> QWidget | None:
        self.result = QLabel(wordWrap=True)
        self.result.setStyleSheet("font-size: 16px; font-weight: bold; color: #8e2c1b;")
        self.result.hide()
        return self.result

    def build_setup(self, row: QHBoxLayout) -> None:
        self.level_label, self.level = QLabel(), QComboBox()
        self.seat_label, self.seat = QLabel(), QComboBox()
        self.seat.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)   # texts come later
        self.seat.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.timer_box = QCheckBox()          # off by default: the seed's 5 minutes when on
        self.seed_label = QLabel()
        self.seed_label.setStyleSheet("color: #777;")
        for w in (self.level_label, self.level, self.seat_label, self.seat, self.timer_box, self.seed_label):
            row.addWidget(w)

    def extra_buttons(self) -> list[QPushButton]:
        self.robau_button = QPushButton()
        self.robau_button.clicked.connect(lambda: self._choose(ROBAU))
        self.hide_button = QPushButton()
        self.hide_button.clicked.connect(lambda: self._choose(HIDE))
        self._show_choice(False)
        return [self.robau_button, self.hide_button]

    def person_seat(self) -> int:
        return max(0, self.seat.currentIndex())

    # -- a game ----------------------------------------------------------------------------------
    def new_game(self, seed: int | None = None, me: int | None = None) -> None:
        """Deal a new game of 8 deals: the person at the chosen seat, CPUs at the other seven."""
        if me is not None:
            self.seat.setCurrentIndex(me)
        self.result.hide()
        self.start_game(seed)
        self.seed_label.setText(tr("unsun.ui.seed", seed=self.seed))

    def new_session(self, seed: int | str) -> TurnSession:
        options: dict[str, Any] = {"level": self.level.currentData() or "medium", "clock": self.clock}
        if self.timer_box.isChecked():
            options["turn_seconds"] = TURN_SECONDS
        session = new_session(registry.find("unsun"), seed, self.seats(PLAYERS), options)
        self.table.turn_seconds = session.turn_seconds
        return session

    def action_for(self, seat: int, item: Any, legal: Sequence[Any]) -> Any:
        """What a click means: a ロバイ button, or a card to play (to discard after taking the
        Okié). A card the rules refuse goes to the session all the same, which says why."""
        if item in (ROBAU, HIDE):
            return (Robau if item == ROBAU else HideRobai)(seat)
        if not isinstance(item, Card):
            return None
        found = next((a for a in legal if isinstance(a, (Play, Discard)) and a.card == item), None)
        if found is not None:
            return found
        discarding = self.session is not None and self.session.view(seat).phase == DISCARDING
        return Discard(seat, item) if discarding else Play(seat, item)

    def _choose(self, item: str) -> None:
        """A ロバイ button: through the table's click signal, so the TurnTable acts on it."""
        self.table.clicked.emit(self.me, item, self.clock.now())

    def playable(self) -> list[Card]:
        """The cards the person may play or discard now (what the hand outlines)."""
        if self.session is None:
            return []
        return [a.card for a in self.session.legal(self.me) if isinstance(a, (Play, Discard))]

    def words(self, event: GameEvent) -> str | None:
        return describe_unsun(event)

    # -- what the panel draws --------------------------------------------------------------------
    def _view(self) -> UnsunView:
        assert self.session is not None
        return self.session.view(self.me)

    def show_view(self) -> None:
        assert isinstance(self.table, UnsunTable)
        self.table.show_view(self._view(), self.playable())
        self._show_choice(self._my_robai_choice())

    def _my_robai_choice(self) -> bool:
        s = self.session
        return s is not None and bool(s.waiting_for()) and self._view().phase == ROBAI_CHOICE

    def seat_names(self, in_log: bool = False) -> list[str]:
        names = []
        for s in range(PLAYERS):
            who = tr("unsun.ui.you") if s == self.me else tr("unsun.ui.cpu")
            names.append(f"{seat_name(s)}　{who}　{tr('unsun.ui.team', team='AB'[team_of(s)])}")
        return names

    def seat_line(self, seat: int) -> str:
        view = self._view()
        if view.deal < 0:
            return ""
        parts = [tr("unsun.ui.cards", n=view.hand_sizes[seat]),
                 tr("unsun.ui.seat_tricks", n=view.winners.count(seat))]
        if seat == view.dealer:
            parts.append(tr("unsun.ui.dealer"))
        return " · ".join(parts)

    def status_text(self) -> str:
        s = self.session
        if s is None:
            return tr("cards.press_new")
        view = self._view()
        mine = bool(s.waiting_for())
        if s.is_over():
            return self._result_text()
        if self._my_robai_choice():
            return tr("unsun.ui.your_robai")
        if mine and view.phase == DISCARDING:
            return tr("unsun.ui.discard_now")
        if mine:
            return tr("unsun.ui.your_turn")
        if view.to_act is None and view.phase == ROBAI_CHOICE:
            return tr("unsun.ui.waiting_someone")
        if view.to_act is not None:
            return tr("unsun.ui.waiting", seat=seat_name(view.to_act))
        return ""

    def _show_choice(self, on: bool) -> None:
        self.robau_button.setVisible(on)
        self.hide_button.setVisible(on)

    def score_columns(self) -> list[str]:
        return [tr("unsun.ui.team", team="AB"[t]) for t in (0, 1)]

    def score_tooltips(self) -> list[str]:      # the seats: the header stays short on a small screen
        return [tr("unsun.ui.col", team="AB"[t], seats=", ".join(seat_name(s) for s in range(t, PLAYERS, 2)))
                for t in (0, 1)]

    def score_row(self, event: GameEvent) -> tuple[str, list[int]] | None:
        if not isinstance(event, DealScored):
            return None
        return (tr("unsun.ui.row", deal=event.deal + 1, a=event.tricks_a, b=event.tricks_b),
                [event.points_a, event.points_b])

    def game_over(self) -> None:
        self.result.setText(self._result_text())
        self.result.show()

    def _result_text(self) -> str:
        a, b = self._view().totals
        if a == b:
            return tr("unsun.ui.result.tie", a=a, b=b)
        team = 0 if a > b else 1
        you = tr("unsun.ui.result.you_won") if team == team_of(self.me) else tr("unsun.ui.result.you_lost")
        return tr("unsun.ui.result.win", team="AB"[team], a=a, b=b, you=you)

    # -- language --------------------------------------------------------------------------------
    def retranslate_setup(self) -> None:
        self.level_label.setText(tr("unsun.ui.level"))
        self.seat_label.setText(tr("unsun.ui.seat"))
        self.timer_box.setText(tr("unsun.ui.timer"))
        self.robau_button.setText(tr("unsun.ui.robau"))
        self.hide_button.setText(tr("unsun.ui.hide"))
        self._fill_choices()
        if self.seed is not None:
            self.seed_label.setText(tr("unsun.ui.seed", seed=self.seed))
        self.notice.clear()

    def retranslate(self, *_) -> None:
        super().retranslate()
        self.shell.scores_title.setText(tr("unsun.ui.scores"))
        if self.session is None:
            self.table.set_seats(self.seat_names(), me=self.person_seat())

    def _fill_choices(self) -> None:
        level = self.level.currentData() or "medium"
        seat = max(0, self.seat.currentIndex())
        for box in (self.level, self.seat):
            box.blockSignals(True)
            box.clear()
        for name in LEVELS:
            self.level.addItem(tr(f"unsun.ui.level.{name}"), name)
        for s in range(PLAYERS):
            self.seat.addItem(tr("unsun.ui.seat_item", seat=seat_name(s), team="AB"[team_of(s)]), s)
        self.level.setCurrentIndex(max(0, self.level.findData(level)))
        self.seat.setCurrentIndex(seat)
        for box in (self.level, self.seat):
            box.blockSignals(False)


__all__ = ["UnsunPanel", "ROBAU", "HIDE", "PAUSE_AFTER"]
