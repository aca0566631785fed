"""An online Mubeyama table in the app: each released card read here, the owner's flip timed here.

``docs/online-races.md`` ("Mubeyama") is the protocol. The reading and the timing
of a press are the kyōgi table's (`trainer.ui.online_race.RaceReading`: the same
driver, the same kimariji mark, the same check of the sound); the table is the
local game's drawing (`trainer.ui.mubeyama_table.TableWidget`) of the seat's own
view as the server sends it (``race.view``). A click on one's own card while it
is being read is sent as a flip (``race.flip``) with its reaction from the
kimariji as it sounded here; a click on one's own face-up card while a yaku asks
for one is a pass (``race.pass``). The server decides everything else.
"""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QSplitter, QVBoxLayout, \
    QWidget

from audio.clock import SYSTEM, Clock
from trainer.online.race import MubeyamaRaceState, RaceRead
from trainer.text.messages import MESSAGES
from trainer.text.mubeyama import kami_words, seat_name
from trainer.text.online_race import who
from trainer.ui.i18n import LANG, tr
from trainer.ui.match_panel import wrap_whole_lines
from trainer.ui.mubeyama_play import flip_time
from trainer.ui.mubeyama_table import TableWidget
from trainer.ui import settings as S
from trainer.ui.online_race import RaceReading
from trainer.ui.stats_store import UsesStatsStore


class OnlineMubeyamaPanel(RaceReading, UsesStatsStore, QWidget):
    """One Mubeyama race table (see the module docstring). `send(type, **fields)` sends to the server."""

    race: MubeyamaRaceState

    def __init__(self, table: str, send: Callable[..., Any], settings: Any, voices: Any, *,
                 driver: Any = None, clock: Clock = SYSTEM, parent: QWidget | None = None):
        super().__init__(parent)
        self.send, self.settings, self.voices = send, settings, voices
        self.race = MubeyamaRaceState(table)
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self, name=tr("race.mubeyama.game"))
            driver.name_msg = "race.mubeyama.game"
        self.flips_sent: list[dict[str, Any]] = []     # what this client sent (tests read it)
        self._kimariji: dict[int, str] = {}
        self._build()
        self._setup_reading(driver, clock, self)
        self.table_view.slot_clicked.connect(self.click)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def _build(self) -> None:
        self.table_view = TableWidget()
        self.banner = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.banner.setStyleSheet("font-size: 16px; color: #333;")
        self.reaction = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        font = QFont()
        font.setPixelSize(26)
        font.setBold(True)
        self.reaction.setFont(font)
        self.scores = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.flags = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.flags.setStyleSheet("color: #c0392b;")
        self.log = QListWidget()
        self.log.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        wrap_whole_lines(self.log)
        self.resign_button = QPushButton()
        self.resign_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.resign_button.clicked.connect(self.resign)
        bar = QHBoxLayout()
        bar.addWidget(self.banner, 1)
        bar.addWidget(self.resign_button)
        side = QWidget()
        side.setMinimumWidth(160)
        sv = QVBoxLayout(side)
        for w in (self.reaction, self.flags, self.scores):
            sv.addWidget(w)
        sv.addWidget(self.log, 1)
        split = QSplitter()
        split.addWidget(self.table_view)
        split.addWidget(side)
        split.setStretchFactor(0, 6)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        split.setSizes([5000, 800])          # the cards' corner numbers need the room
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addLayout(bar)
        v.addWidget(split, 1)

    def title_text(self) -> str:
        variant = f"mubeyama.variant.{self.race.variant}"
        return tr("race.mubeyama.title", table=self.race.table,
                  variant=tr(variant) if variant in MESSAGES else self.race.variant)

    def retranslate(self, *_: Any) -> None:
        self.resign_button.setText(tr("race.online.resign"))
        self.log.clear()
        for frame in self.race.judged:
            self.log.addItem(self._line(frame))
        self.log.scrollToBottom()
        self._seats()
        self._show_state()

    def _name(self, seat: int) -> str:
        return who(seat, self.race.seat, self.race.names)

    def _seats(self) -> None:
        n = len(self.race.names)
        if n >= 2:
            scores = self.race.scores or [0] * n
            self.table_view.set_seats([self._name(s) for s in range(n)],
                                      [tr("race.mubeyama.score", n=scores[s]) if s < len(scores) else ""
                                       for s in range(n)], me=self.race.seat)

    def _line(self, frame: dict[str, Any]) -> str:
        kana = self._kimariji.get(frame["read"], "")
        flips = "　".join(f"{self._name(f['seat'])} {flip_time(f['reaction_ms'], signed=True)}"
                         for f in frame.get("flips") or [])
        line = f"{frame['read']:>3}. {kana}（{frame['poem']}）"
        if flips:
            line += f" → {flips}"
        if frame.get("timed_out"):
            line += f" ⚠ {tr('race.online.timed_out')}"
        return f"{line}　⚠ {tr('race.disturbed')}" if frame["read"] in self.disturbed else line

    # -- frames ---------------------------------------------------------------------------------------
    def apply(self, frame: dict[str, Any]) -> None:
        if not self.race.apply(frame):
            return
        kind = frame["type"]
        if kind in ("race.start", "race.watching"):
            self.retranslate()
        elif kind == "race.view" and self.race.view is not None:
            if len(self.race.names) < self.race.view.players:
                self.race.names = (self.race.names + [None] * self.race.view.players)[:self.race.view.players]
                self._seats()
            self.table_view.set_view(self.race.view)
        elif kind == "race.read":
            self._read(self.race.read)
        elif kind == "race.judged":
            self.log.addItem(self._line(frame))
            self.log.scrollToBottom()
            self._seats()
        elif kind == "race.over":
            self._stop_reading()
        self._show_state()

    def _released(self, read: RaceRead) -> None:
        self._kimariji[read.number] = read.kimariji
        self.table_view.highlights.clear()

    def _show_state(self) -> None:
        race = self.race
        over = race.over
        if over is not None:
            winners = "、".join(self._name(s) for s in over.get("winners") or [])
            by = f"race.online.by.{over.get('by')}"
            self.banner.setText(tr("race.mubeyama.over", winners=winners or "—",
                                   by=tr(by) if by in MESSAGES else str(over.get("by", ""))))
        elif not race.started:
            self.banner.setText(tr("race.online.waiting_opponent" if race.seat is not None else
                                   "race.online.syncing"))
        elif race.owes_flip():
            self.banner.setText(tr("race.mubeyama.flip", kami=kami_words(race.view.pending.no)))
        elif race.owes_pass():
            p = race.view.pending
            self.banner.setText(tr("race.mubeyama.pass", count=p.count, to=self._name(p.to)))
        elif race.read is not None:
            self.banner.setText(tr("race.online.read", number=race.read.number))
        else:
            self.banner.setText("")
        self.resign_button.setEnabled(race.seat is not None and over is None and race.started)

    # -- the person's clicks --------------------------------------------------------------------------
    def click(self, seat: int, no: int, stamp: float) -> None:
        """A click on the table, stamped when Qt delivered it: one's own card being read is
        flipped (timed here), one's own face-up card a yaku asks for is passed."""
        race = self.race
        if race.seat is None or seat != race.seat or race.over is not None:
            return
        if race.owes_pass() and no:
            self.send("race.pass", table=race.table, card=no)
            return
        read = race.open_read
        if read is None or not race.owes_flip():
            return
        kimariji_t, reaction_ms, part = self.measure(read, stamp)
        card = no or None                        # 0: the face-down hidden card
        self.reaction.setText(flip_time(reaction_ms, signed=True))

        def send(reason: str | None) -> None:
            if reason is not None:
                self.disturbed[read.number] = reason
            msg = {"table": race.table, "read": read.number, "card": card, "reaction_ms": round(reaction_ms, 3),
                   "stamp": stamp, "part": part, "stall": reason is not None}
            self.flips_sent.append(msg)
            self.send("race.flip", **msg)
            self._record(read.poem, reaction_ms, reason)
        self.race_checks.add(kimariji_t, stamp, send)

    def _record(self, poem: int, reaction_ms: float, disturbed: str | None) -> None:
        """The person's flip time in the statistics as a local game keeps it (kind "mubeyama"),
        measured here on this client's audio clock; marked when its sound stuttered."""
        from trainer.stats.store import Trial
        try:
            self.store.record(Trial(kind="mubeyama", card=poem, correct=True, reaction_ms=float(reaction_ms),
                                    answer=seat_name(self.race.seat or 0), voice=self.settings.get(S.VOICE),
                                    disturbed=disturbed))
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a game
            self.banner.setText(tr("mubeyama.stats_failed", error=str(exc)))



__all__ = ["OnlineMubeyamaPanel"]
