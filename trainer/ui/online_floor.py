"""An online floor race in the app (chirashi-dori, sakasama, Genpei, relay, shimonoku): each released
card read here, a click on a floor card sent as a touch timed here.

``docs/online-races.md`` ("The floor races") is the protocol. The reading and the
timing of a press are the kyōgi table's (`trainer.ui.online_race.RaceReading`: the
same driver, the same kimariji mark, the same check of the sound; sakasama and
shimonoku read the shimo-no-ku alone); the floor is the Games tab's drawing
(`trainer.ui.chirashi_panel.FloorView`) of the seat's own view as the server sends
it (``race.view``). A click on a floor card while a card is read is a touch
(``race.touch``) with its reaction from the kimariji as it sounded here; while
this seat owes a Genpei send (``race.owe``) a click on its side sends that card
(``race.send``). 待った (``race.wait``) holds the next card until the seat goes on. The
server judges: the panel shows each judgement (taker, times, faults), the scores and
the result; each card the person's seat raced becomes a statistics trial of the
game's own kind. The host may fill the empty seats with CPUs and begin (``race.begin``).
"""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QSplitter, QVBoxLayout, \
    QWidget

from audio.clock import SYSTEM, Clock
from trainer.online.race import FloorRaceState, RaceRead
from trainer.text.kyogi import reaction_text
from trainer.rules.shimonoku import AREA_ROWS, NANAE_ROWS
from trainer.text.online_race import floor_game_name, floor_judged_line, floor_result_text, flag_lines, who
from trainer.ui.chirashi_panel import FloorView
from trainer.ui.i18n import LANG, tr
from trainer.ui.match_panel import wrap_whole_lines
from trainer.ui.online_race import RaceReading
from trainer.ui.stats_store import UsesStatsStore

TEAM_GAMES = ("genpei", "relay")


class OnlineFloorPanel(RaceReading, UsesStatsStore, QWidget):
    """One floor race table (see the module docstring). `send(type, **fields)` sends to the server."""

    race: FloorRaceState

    def __init__(self, table: str, send: Callable[..., Any], settings: Any, voices: Any, *,
                 driver: Any = None, clock: Clock = SYSTEM, store: Any = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.send, self.settings, self.voices = send, settings, voices
        self._store = store
        self.race = FloorRaceState(table)
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self, name=tr("race.floor.name.chirashi"))
        self.touches_sent: list[dict[str, Any]] = []     # what this client sent (tests read it)
        self._kimariji: dict[int, str] = {}
        self._build()
        self._setup_reading(driver, clock, self)
        self.floor.clock = clock
        self.floor.touched.connect(self.press)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def _build(self) -> None:
        self.floor = FloorView()
        self.banner = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.banner.setStyleSheet("font-size: 16px; color: #333;")
        self.reaction = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        font = QFont()
        font.setPixelSize(26)
        font.setBold(True)
        self.reaction.setFont(font)
        self.judgement = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.flags = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.flags.setStyleSheet("color: #c0392b;")
        self.scores = QLabel(alignment=Qt.AlignmentFlag.AlignLeft, wordWrap=True)
        self.log = QListWidget()
        self.log.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        wrap_whole_lines(self.log)      # a judgement wraps, it is never cut
        self.begin_button, self.wait_button, self.resign_button = QPushButton(), QPushButton(), QPushButton()
        for b in (self.begin_button, self.wait_button, self.resign_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.begin_button.clicked.connect(self.begin)
        self.wait_button.clicked.connect(self.toggle_wait)
        self.resign_button.clicked.connect(self.resign)
        bar = QHBoxLayout()
        bar.addWidget(self.banner, 1)
        bar.addWidget(self.begin_button)
        bar.addWidget(self.wait_button)
        bar.addWidget(self.resign_button)
        side = QWidget()
        side.setMinimumWidth(200)
        sv = QVBoxLayout(side)
        for w in (self.reaction, self.judgement, self.flags, self.scores):
            sv.addWidget(w)
        sv.addWidget(self.log, 1)
        split = QSplitter()
        split.addWidget(self.floor)
        split.addWidget(side)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        split.setSizes([4000, 1000])
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addLayout(bar)
        v.addWidget(split, 1)

    @property
    def stats_kind(self) -> str:  # type: ignore[override]
        """The person's reads are trials of the game's own kind, as the Games tab keeps them:
        the Statistics tab's filter shows a game's online and local races together."""
        return self.race.game

    def game_name(self) -> str:
        return tr("race.floor.game", game=floor_game_name(self.race.game, self.race.variant))

    def title_text(self) -> str:
        return tr("race.floor.title", table=self.race.table, game=self.game_name())

    def names(self) -> list[str | None]:
        """The seats' names as shown: a CPU seat (the table's, or a stand-in) worded here, in the
        interface language, not as the server names it."""
        race = self.race
        cpus = set(race.cpus) | set(race.stand_ins)
        return [tr("race.floor.cpu_seat", n=s + 1) if s in cpus else name for s, name in enumerate(race.names)]

    def _name(self, seat: int | None) -> str:
        return who(seat, self.race.seat, self.names())

    def retranslate(self, *_: Any) -> None:
        self.begin_button.setText(tr("race.floor.begin"))
        self.resign_button.setText(tr("race.online.resign"))
        self.log.clear()
        for frame in self.race.judged:
            self.log.addItem(self._line(frame))
        self.log.scrollToBottom()
        if self.race.judged:
            self._show_judgement(self.race.judged[-1])
        self._draw()
        self._show_state()

    def _line(self, frame: dict[str, Any]) -> str:
        line = floor_judged_line(frame, self.race.seat, self.names(), self._kimariji.get(frame["read"], ""))
        return f"{line}　⚠ {tr('race.disturbed')}" if frame["read"] in self.disturbed else line

    # -- frames from the server ----------------------------------------------------------------------
    def apply(self, frame: dict[str, Any]) -> None:
        """One frame about this table (the Online tab hands on ``race.*``)."""
        if not self.race.apply(frame):
            return
        kind = frame["type"]
        if kind in ("race.start", "race.watching"):
            self.retranslate()
        elif kind == "race.view":
            self._draw()
        elif kind == "race.read":
            self._read(self.race.read)
        elif kind == "race.judged":
            self.log.addItem(self._line(frame))
            self.log.scrollToBottom()
            self._show_judgement(frame)
            self._record_read(frame)
        elif kind == "race.stand_in":
            self.flags.setText(tr("race.floor.stand_in", who=self._name(frame.get("seat"))))
        elif kind == "race.over":
            self._stop_reading()
        self._show_state()

    def _draw(self) -> None:
        race, view = self.race, self.race.view
        floor = self.floor
        floor.view = view
        if view is not None:
            n = len(view.taken)
            floor.players = n
            floor.teams = race.game in TEAM_GAMES
            floor.areas = race.game == "shimonoku"
            floor.area_rows = NANAE_ROWS if race.variant == "nanae" else AREA_ROWS    # Nanae: three rows an area
            floor.sakasama = race.game == "sakasama"
            floor.turn_toward(race.seat if race.seat is not None else 0)   # the person's seat at the bottom
            floor.names = [self._name(s) for s in range(n)]
            floor.sending = race.owe is not None
            floor.own_side = view.owing[1] if view.owing is not None else 0
            self.scores.setText(self._scores_text())
        floor.refresh()

    def _scores_text(self) -> str:
        race = self.race
        head = tr("race.floor.taken" if race.game in ("chirashi", "sakasama") else "race.floor.side_left")
        rows = [tr("race.floor.score", who=self._name(s), n=n) for s, n in enumerate(race.scores)]
        return "\n".join([head, *rows])

    def _show_judgement(self, frame: dict[str, Any]) -> None:
        me = self.race.seat
        if me is not None:
            times = frame.get("reaction_ms") or []
            mine = times[me] if me < len(times) else None
            faulted = me in (frame.get("faulted") or [])
            self.reaction.setText(reaction_text(None if mine is None else round(mine), faulted) or "—")
            colour = "#c0392b" if faulted else "#1f5fbf" if frame.get("taker") == me else "#555"
            self.reaction.setStyleSheet(f"color: {colour};")
        self.judgement.setText(self._line(frame).split(" ", 1)[-1])
        self.flags.setText("\n".join(flag_lines(frame, me, self.names(), self.race.floor_ms)))

    def _show_state(self) -> None:
        race = self.race
        view = race.view
        if race.over is not None:
            self.banner.setText(floor_result_text(race.over, race.seat, self.names()))
        elif view is None:
            self.banner.setText(tr("race.floor.waiting"))
        elif race.owe is not None:
            self.banner.setText(tr("race.floor.send", cards=race.owe.get("cards", 1)))
        elif view.owing is not None:
            self.banner.setText(tr("race.floor.sending_other", who=self._name(view.owing[0])))
        elif race.holds and race.open_read is None:
            self.banner.setText(tr("race.online.held", who="、".join(self._name(s) for s in race.holds)))
        elif race.read is not None and race.seat is not None and not race.races_now:
            key = "race.floor.not_turn" if race.game == "relay" else "race.floor.resting"
            self.banner.setText(tr(key, number=race.read.number))
        elif race.read is not None:
            self.banner.setText(tr("race.online.read", number=race.read.number))
        else:
            self.banner.setText("")
        self.begin_button.setVisible(view is None and race.over is None and race.seat is not None)
        playing = race.seat is not None and race.over is None and view is not None
        self.wait_button.setText(tr("race.online.go_on" if race.seat in race.holds else "race.online.wait"))
        self.wait_button.setVisible(race.seat is not None)
        self.wait_button.setEnabled(playing)
        self.resign_button.setEnabled(playing)

    def _released(self, read: RaceRead) -> None:
        self._kimariji[read.number] = read.kimariji
        self.reaction.setText("")

    # -- the person's clicks --------------------------------------------------------------------------
    def press(self, card: int, stamp: float) -> None:
        """A click on a floor card, stamped when Qt delivered it: the send owed, or a touch timed here."""
        race = self.race
        if race.seat is None or race.over is not None:
            return
        if race.owe is not None:
            self.send("race.send", table=race.table, card=card)
            return
        read = race.open_read
        if read is None:
            return
        kimariji_t, reaction_ms, part = self.measure(read, stamp)
        race.touched(read.number, card, reaction_ms)
        self.reaction.setText(reaction_text(round(reaction_ms), False))
        self.reaction.setStyleSheet("color: #1f5fbf;")

        def send(reason: str | None) -> None:
            if reason is not None:
                self.disturbed[read.number] = reason
            msg = read.touch(card, reaction_ms, stamp, part, stall=reason is not None)
            self.touches_sent.append(msg)
            self.send("race.touch", **msg)
        self.race_checks.add(kimariji_t, stamp, send)

    def begin(self) -> None:
        """The host fills the empty seats with CPUs and begins (the server refuses anyone else)."""
        if self.race.view is None and self.race.over is None:
            self.send("race.begin", table=self.race.table)



__all__ = ["OnlineFloorPanel"]
