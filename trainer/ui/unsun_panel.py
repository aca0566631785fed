"""Games → Unsun karuta: the person at one seat of 八人メリ, seven CPUs at the others.

A setup row (CPU level, the person's seat, the turn timer, new game), a
status line (whose turn, why a click did nothing, the ロバイ choice), then
the shared `TableShell` with an `UnsunTable` played by a `TurnTable` over the
session `trainer.games.unsun_session.new_session` (the simulator plays the
same session). The table draws only ``session.view(me)`` and the log shows
only ``session.log_for(me)`` worded by `trainer.text.unsun`, so nothing
another seat holds face-down reaches this screen. The score sheet gets one
row per deal, a column per team; the result is shown at the end.
"""
from __future__ import annotations

import random
from typing import Any

from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout,
                               QWidget)

from audio.clock import SYSTEM, Clock
from trainer.games import registry
from trainer.games.turn_session import CPU, HUMAN, TurnSession
from trainer.games.unsun_session import TURN_SECONDS, new_session
from trainer.players.unsun_cpu import LEVELS
from trainer.rules.unsun import (DISCARDING, MEIRAF, MERI, MONCHI, PLAYERS, RANKINGS, ROBAI_CHOICE,
                                 Card, Discard, HideRobai, Play, Robau, UnsunView, team_of)
from trainer.ui.i18n import LANG, add_messages, tr
from trainer.ui.table_shell import TableShell, TurnTable
from trainer.ui.unsun_table import UnsunTable
from trainer.text.unsun import card_name, describe_unsun, seat_name, suit_name

ROBAU, HIDE = "robau", "hide"     # the two items of the ロバイ choice (buttons, not cards)
TRICK_PAUSE_S = 1.6               # the trick just won stays on the table this long before the next lead

add_messages({
    "mode.unsun": ("うんすん", "Unsun"),       # its tab inside Games (遊び)
    "unsun.ui.level": ("CPU", "CPU"),
    "unsun.ui.level.random": ("ランダム", "Random"),
    "unsun.ui.level.medium": ("普通", "Medium"),
    "unsun.ui.seat": ("あなたの席", "Your seat"),
    "unsun.ui.seat_item": ("{seat}（{team}組）", "{seat} (team {team})"),
    "unsun.ui.timer": ("持ち時間 5分", "Turn timer (5 min)"),
    "unsun.ui.new": ("新しいゲーム", "New game"),
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
    "unsun.ui.log": ("記録", "Log"),
    "unsun.ui.col": ("{team}組: {seats}", "Team {team}: {seats}"),
    "unsun.ui.row": ("第{deal}局 {a}–{b}手", "Deal {deal} ({a}–{b})"),
    "unsun.ui.result.win": ("終局: {team}組の勝ち（A {a} ・ B {b}）{you}",
                            "Game over: team {team} wins (A {a} · B {b}){you}"),
    "unsun.ui.result.tie": ("終局: 引き分け（A {a} ・ B {b}）", "Game over: a tie (A {a} · B {b})"),
    "unsun.ui.result.you_won": ("　あなたの組の勝ち！", " — your team won!"),
    "unsun.ui.result.you_lost": ("　あなたの組の負け", " — your team lost"),
    "unsun.ui.why.not_now": ("まだあなたの番ではありません", "It is not your turn yet"),
    "unsun.ui.why.choose_robai": ("先にロバうか隠すかを選んでください", "First choose: robau or hide the Robai"),
    "unsun.ui.why.first_lead": ("最初の手は切り札で打ち出せません（手札がすべて切り札なら別）",
                                "The first trick may not be led with a trump (unless every card you hold is trump)"),
    "unsun.ui.why.meri": ("メリの手: 切り札を持っていれば切り札を出します",
                          "Meri trick: while you hold trump you must play trump"),
    "unsun.ui.why.trump_led": ("切り札が打ち出されました: 切り札を持っていれば切り札を出します",
                               "Trump was led: while you hold trump you must play trump"),
    "unsun.ui.why.follow": ("モンチ: {suit}を持っていれば{suit}か切り札を出します",
                            "Monchi: you hold {suit}, so play {suit} or a trump"),
    "unsun.ui.why.other": ("{card}は今は出せません", "{card} cannot be played now"),
})


def why_not(view: UnsunView, me: int, card: Card) -> str:
    """Why *card* may not be played now by *me* (the rule, in words)."""
    if view.phase == ROBAI_CHOICE and view.to_act == me:
        return tr("unsun.ui.why.choose_robai")
    if view.to_act != me or view.phase not in (MEIRAF, MERI, MONCHI, DISCARDING):
        return tr("unsun.ui.why.not_now")
    ranking = RANKINGS[view.trump] if view.trump else None
    if ranking is None:
        return tr("unsun.ui.why.other", card=card_name(card))
    if not view.trick and view.phase == MEIRAF and view.trick_no == 0 and ranking.is_trump(card):
        return tr("unsun.ui.why.first_lead")
    if view.phase == MERI:
        return tr("unsun.ui.why.meri")
    if view.phase == MONCHI and view.trick:
        led = view.trick[0].card
        if led is not None and ranking.is_trump(led):
            return tr("unsun.ui.why.trump_led")
        if led is not None:
            return tr("unsun.ui.why.follow", suit=suit_name(led.suit))
    return tr("unsun.ui.why.other", card=card_name(card))


PAUSE_AFTER = ("unsun.trick", "unsun.yaku", "unsun.yaku_void", "unsun.monchi", "unsun.deal_scored")
"""The kinds that can end a trick's events: the next CPU lead (or deal) waits `TRICK_PAUSE_S`."""


class UnsunTurnTable(TurnTable):
    """The shell's `TurnTable`, with a pause after each trick so the person sees it turned up."""

    trick_pause_s = TRICK_PAUSE_S

    def _changed(self) -> None:
        base = self.cpu_delay_s
        log = self.session.log
        if base > 0 and log and log[-1].kind in PAUSE_AFTER:
            self.cpu_delay_s = max(base, self.trick_pause_s)
        try:
            super()._changed()
        finally:
            self.cpu_delay_s = base


class UnsunPanel(QWidget):
    """Games → Unsun karuta (see the module docstring)."""

    def __init__(self, settings: Any, voices: Any = None, *, clock: Clock = SYSTEM,
                 cpu_delay_s: float = 0.7, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings, self.voices, self.clock = settings, voices, clock
        self.cpu_delay_s = cpu_delay_s
        self.session: TurnSession | None = None
        self.game: UnsunTurnTable | None = None
        self.me = 0
        self.seed: int | None = None
        self._rows = 0            # deals written to the score sheet
        self._build()
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    # -- building ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.level_label = QLabel()
        self.level = QComboBox()
        self.seat_label = QLabel()
        self.seat = QComboBox()
        self.timer_box = QCheckBox()          # off by default: the seed's 5 minutes when on
        self.new_button = QPushButton(clicked=lambda: self.new_game())
        self.seed_label = QLabel()
        self.seed_label.setStyleSheet("color: #777;")
        row = QHBoxLayout()
        for w in (self.level_label, self.level, self.seat_label, self.seat, self.timer_box,
                  self.new_button, self.seed_label):
            row.addWidget(w)
        row.addStretch(1)
        self.status = QLabel()
        self.status.setStyleSheet("font-size: 15px; color: #222; padding: 2px;")
        self.notice = QLabel()
        self.notice.setStyleSheet("font-size: 14px; color: #c0392b; padding: 2px;")
        self.notice.setWordWrap(True)
        self.robau_button = QPushButton(clicked=lambda: self._choose(ROBAU))
        self.hide_button = QPushButton(clicked=lambda: self._choose(HIDE))
        status_row = QHBoxLayout()
        status_row.addWidget(self.status)
        status_row.addWidget(self.robau_button)
        status_row.addWidget(self.hide_button)
        status_row.addWidget(self.notice, 1)
        self.table = UnsunTable(clock=self.clock)
        self.table.seat_name = seat_name
        self.result = QLabel(wordWrap=True)
        self.result.setStyleSheet("font-size: 16px; font-weight: bold; color: #8e2c1b;")
        self.shell = TableShell(self.table, side=self.result, clock=self.clock, side_width=360)
        self.shell.show_scores(True)
        v = QVBoxLayout(self)
        v.setContentsMargins(4, 4, 4, 4)
        v.addLayout(row)
        v.addLayout(status_row)
        v.addWidget(self.shell, 1)
        self._show_choice(False)
        self.result.hide()

    # -- a game ----------------------------------------------------------------------------------
    def new_game(self, seed: int | None = None, me: int | None = None) -> None:
        """Deal a new game of 8 deals: the person at the chosen seat, CPUs at the other seven."""
        self._stop()
        self.me = self.seat.currentIndex() if me is None else me
        if me is not None:
            self.seat.setCurrentIndex(me)
        self.seed = random.randrange(1_000_000) if seed is None else seed
        options: dict[str, Any] = {"cpu_level": self.level.currentData() or "medium", "clock": self.clock}
        if self.timer_box.isChecked():
            options["turn_seconds"] = TURN_SECONDS
        seats = tuple(HUMAN if s == self.me else CPU for s in range(PLAYERS))
        self.session = new_session(registry.find("unsun"), self.seed, seats, options)
        self.table.turn_seconds = options.get("turn_seconds")
        self.shell.log.clear()
        self._rows = 0
        self._columns()
        self.result.hide()
        self.notice.clear()
        self.game = UnsunTurnTable(self.shell, self.session, self.me, self._action_for,
                                   words=describe_unsun, cpu_delay_s=self.cpu_delay_s, parent=self)
        self.game.changed.connect(self._changed)
        self.game.refused.connect(self.notice.setText)
        self.game.finished.connect(self._finished)
        self.seed_label.setText(tr("unsun.ui.seed", seed=self.seed))
        self.game.start()

    def _stop(self) -> None:
        if self.game is not None:
            self.game.stop()
            self.shell.table.clicked.disconnect(self.game._clicked)
            self.game.deleteLater()
            self.game = None

    def _action_for(self, seat: int, item: Any, legal: Any) -> Any:
        """The action a click means, or None — and then the status line says why."""
        if item in (ROBAU, HIDE):
            kind = Robau if item == ROBAU else HideRobai
            return next((a for a in legal if isinstance(a, kind)), None)
        if not isinstance(item, Card):
            return None
        found = next((a for a in legal if isinstance(a, (Play, Discard)) and a.card == item), None)
        if found is None and self.session is not None:
            self.notice.setText(why_not(self.session.view(self.me), self.me, item))
        elif found is not None:
            self.notice.clear()
        return found

    def _choose(self, item: str) -> None:
        """A ロバイ button: through the table's click signal, so the TurnTable acts on it."""
        self.table.clicked.emit(self.me, item, self.clock.now())

    def playable(self) -> list[Card]:
        """The cards the person may play or discard now (what the hand outlines)."""
        if self.session is None:
            return []
        return [a.card for a in self.session.legal(self.me) if isinstance(a, (Play, Discard))]

    def _changed(self) -> None:
        assert self.session is not None
        view = self.session.view(self.me)
        self.table.show_view(view, self.playable())
        self.table.active_seat = view.to_act     # not the state's: a hidden ロバイ holder stays hidden
        self._seat_titles(view)
        self._status(view)
        self._fill_scores(view)

    def _seat_titles(self, view: UnsunView) -> None:
        titles, lines = [], []
        for s in range(PLAYERS):
            who = tr("unsun.ui.you") if s == self.me else tr("unsun.ui.cpu")
            titles.append(f"{seat_name(s)}　{who}　{tr('unsun.ui.team', team='AB'[team_of(s)])}")
            parts = [tr("unsun.ui.cards", n=view.hand_sizes[s])] if view.deal >= 0 else []
            if view.deal >= 0:
                parts.append(tr("unsun.ui.seat_tricks", n=view.winners.count(s)))
            if view.deal >= 0 and s == view.dealer:
                parts.append(tr("unsun.ui.dealer"))
            lines.append(" · ".join(parts))
        self.table.titles, self.table.lines = titles, lines
        if self.table.me != self.me or self.table.seat_count != PLAYERS:
            self.table.set_seats(titles, lines, me=self.me)

    def _status(self, view: UnsunView) -> None:
        mine = self.session is not None and bool(self.session.waiting_for())
        choosing = mine and view.phase == ROBAI_CHOICE
        self._show_choice(choosing)
        if self.session is not None and self.session.is_over():
            self.status.setText("")
        elif choosing:
            self.status.setText(tr("unsun.ui.your_robai"))
        elif mine and view.phase == DISCARDING:
            self.status.setText(tr("unsun.ui.discard_now"))
        elif mine:
            self.status.setText(tr("unsun.ui.your_turn"))
        elif view.to_act is None and view.phase == ROBAI_CHOICE:
            self.status.setText(tr("unsun.ui.waiting_someone"))
        elif view.to_act is not None:
            self.status.setText(tr("unsun.ui.waiting", seat=seat_name(view.to_act)))
        else:
            self.status.setText("")

    def _show_choice(self, on: bool) -> None:
        self.robau_button.setVisible(on)
        self.hide_button.setVisible(on)

    def _columns(self) -> None:
        scores = self.shell.scores
        scores.set_columns([tr("unsun.ui.team", team="AB"[t]) for t in (0, 1)])
        for t in (0, 1):         # the seats in a tooltip: the header stays short on a small screen
            scores.horizontalHeaderItem(t).setToolTip(
                tr("unsun.ui.col", team="AB"[t], seats=", ".join(seat_name(s) for s in range(t, PLAYERS, 2))))

    def _fill_scores(self, view: UnsunView) -> None:
        for k in range(self._rows, len(view.results)):
            r = view.results[k]
            self.shell.scores.add_row(tr("unsun.ui.row", deal=k + 1, a=r.tricks[0], b=r.tricks[1]),
                                      list(r.points))
        self._rows = len(view.results)

    def _finished(self) -> None:
        assert self.session is not None
        self.result.setText(self._result_text())
        self.result.show()
        self.status.setText(self._result_text())

    def _result_text(self) -> str:
        assert self.session is not None
        view = self.session.view(self.me)
        a, b = view.totals
        if a == b:
            return tr("unsun.ui.result.tie", a=a, b=b)
        team = 0 if a > b else 1
        you = tr("unsun.ui.result.you_won") if team == team_of(self.me) else tr("unsun.ui.result.you_lost")
        return tr("unsun.ui.result.win", team="AB"[team], a=a, b=b, you=you)

    # -- the mode protocol the main window calls ------------------------------------------------------
    def available(self, name: str) -> bool:
        return False              # the reader's commands (start, pause, repeat …) do not apply here

    def command(self, name: str) -> bool:
        return False

    def settings_changed(self) -> None:
        self.retranslate()

    def retranslate(self, *_) -> None:
        self.level_label.setText(tr("unsun.ui.level"))
        self.seat_label.setText(tr("unsun.ui.seat"))
        self.timer_box.setText(tr("unsun.ui.timer"))
        self.new_button.setText(tr("unsun.ui.new"))
        self.robau_button.setText(tr("unsun.ui.robau"))
        self.hide_button.setText(tr("unsun.ui.hide"))
        self.shell.scores_title.setText(tr("unsun.ui.scores"))
        self.shell.log_title.setText(tr("unsun.ui.log"))
        self._fill_choices()
        if self.seed is not None:
            self.seed_label.setText(tr("unsun.ui.seed", seed=self.seed))
        self.notice.clear()
        if self.session is None:
            self.table.set_seats([f"{seat_name(s)}　{tr('unsun.ui.team', team='AB'[team_of(s)])}"
                                  for s in range(PLAYERS)], me=self.seat.currentIndex())
            return
        # the log and the score sheet again, in the new language, from the session
        self.shell.log.clear()
        self.shell.log.add_lines([describe_unsun(e) for e in self.session.log_for(self.me)])
        self._rows = 0
        self._columns()
        self._changed()
        if self.session.is_over():
            self._finished()

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

    def shutdown(self) -> None:
        self._stop()


__all__ = ["UnsunPanel", "UnsunTurnTable", "why_not", "ROBAU", "HIDE"]
