"""An online kyōgi race in the app: the server releases each card, this window reads it and sends touches.

``docs/online-races.md`` is the protocol. What this panel does with it:

- each released card (``race.read``) is read here, with the person's own voice
  and reading settings, by the same `ReadingDriver` and player a local match
  uses: a programme of that one card, started at the moment the server set on
  this client's clock (`start_at`; the connection answers the clock pings in its
  worker thread, on the player's clock);
- the floor is the local match's `TerritoryWidget`, both sides as the server
  says them (`race.start`, `race.judged`, `race.sides`); a press is stamped by the
  widget when Qt delivered it, as in a local match;
- a press is sent as a touch (`trainer.online.race.RaceRead.touch`): the reaction
  from the kimariji as it sounded *here* (the player's mark of the mora that
  completes the kimariji now), the press's stamp, the part of this reading it fell
  in, and whether the sound stalled around it (`trainer.ui.race_checks`, asked a
  little after the press as a local match asks). The panel never judges;
- when the card has been read and its ma is over, the panel says ``race.done``;
- the server's judgement (``race.judged``) is shown: who took, both times, faults,
  a stalled or too-fast take; the person's own read becomes a statistics trial of
  kind "online" (disturbed races marked), as a local match records one;
- okurifuda owed (``race.okuri``): a press on one's own card sends it; 待った and
  resigning are buttons; the result and a rated match's new rating are shown.
"""
from __future__ import annotations

from typing import Any, Callable, cast

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QMessageBox, QPushButton, QSplitter,
                               QVBoxLayout, QWidget)

from audio.clock import SYSTEM, Clock
from trainer.online.race import JOKA, KAMI, MA, SHIMO, RaceRead, RaceState
from trainer.rules.territory import LayoutError, Territory
from trainer.text.kyogi import reaction_text
from trainer.text.online_race import flag_lines, judged_line, rating_text, result_text, who
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr
from trainer.ui.match_panel import wrap_whole_lines
from trainer.ui.race_checks import RaceChecks
from trainer.ui.stats_store import UsesStatsStore
from trainer.ui.territory import Floor, TerritoryWidget

BLUE = QColor("#1f5fbf")
RED = QColor("#c0392b")
GOLD = QColor("#d4a017")
KIND = "online"
"""The statistics kind of an online race's reads."""


def kept_layout(old: Territory, cards: list[int]) -> Territory:
    """`old` with the cards no longer there taken out and the new ones added where an arriving
    card goes (`Territory.add`): a side as the person has been looking at it."""
    side = old.copy()
    for card in [c for c in side.cards() if c not in cards]:
        side.remove(card)
    for card in [c for c in cards if c not in side]:
        try:
            side.add(card)
        except LayoutError:               # a full side: lay it out afresh
            return Territory.arranged(sorted(cards))
    return side


class RaceReading:
    """Reading each released card here and timing presses on it: what a kyōgi and a Mubeyama
    table share (`race`: a `RaceState`; the panel gives `send`, `settings`, `banner`)."""

    race: RaceState
    send: Callable[..., Any]
    settings: Any
    banner: QLabel
    flags: QLabel

    @property
    def table(self) -> str:
        return self.race.table

    def _setup_reading(self, driver: Any, clock: Clock, owner: QWidget) -> None:
        self.driver = driver
        self.clock = clock
        self.race_checks = RaceChecks(driver, clock)
        self.disturbed: dict[int, str] = {}       # read number -> why its race is not counted
        self._sounded: set[int] = set()           # reads whose card this client has finished reading
        self.driver.card_finished.connect(self._card_read)
        self.driver.error.connect(self._reading_failed)
        self._ma = QTimer(owner, singleShot=True)
        self._ma.timeout.connect(self._say_done)
        self._poll = QTimer(owner, interval=20)
        self._poll.timeout.connect(self.race_checks.poll)
        self._poll.start()

    def _released(self, read: RaceRead) -> None:
        """A card was released (the panel clears what the last one left on the table)."""

    def measure(self, read: RaceRead, stamp: float) -> tuple[float, float, str]:
        """A press at `stamp` on `read`: (the kimariji's time here, the reaction ms, the part)."""
        kimariji_t = self.kimariji_time(read)
        return kimariji_t, (stamp - kimariji_t) * 1000, self.part_of(read, stamp)

    def _read(self, read: RaceRead | None) -> None:
        if read is None:
            return
        from trainer.reader.session import ReadingTiming
        self._ma.stop()
        self._released(read)
        g = self.settings.get
        if read.joka_s and g(S.JOKA):
            # kyōgi's first card: the joka before it, this voice's joka and ma ending as the card's
            # kami-no-ku begins at the moment the server set (the server released it joka_s early)
            timing = ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=True,
                                   joka_gap=g(S.JOKA_GAP))
            self.driver.start([read.poem], timing=timing, joka=True, start_at=read.start_at, first_card_at=True)
            return
        # the card alone, its kami-no-ku at once (no ma before it: the server set the moment)
        timing = ReadingTiming(ma=0.0, pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=False,
                               shimo_only=read.verse == "shimo")   # sakasama, shimonoku: the shimo-no-ku alone
        self.driver.start([read.poem], timing=timing, joka=False, start_at=read.start_at)

    def _mark(self, read: RaceRead, name: str) -> float | None:
        """The player's time of `name` in this read's card, if this reading has it."""
        if self.driver.programme is None or list(self.driver.order) != [read.poem]:
            return None                   # this card's reading is not on the player yet
        try:
            return self.driver.mark_time(0, name)
        except KeyError:
            return None

    def kimariji_time(self, read: RaceRead) -> float:
        """When the kimariji (the mora that completes it now) sounded here; the programme's
        layout from the start moment while this reading has not placed it yet."""
        start = self._mark(read, f"{read.verse}_start")
        mora = self._mark(read, f"{read.verse}:mora:{read.mora}")
        if start is None or mora is None:
            return read.kimariji_at
        return max(start, mora)

    def part_of(self, read: RaceRead, stamp: float) -> str:
        """The part of this reading a press at `stamp` fell in: before read 1's kami-no-ku
        (whether the joka was heard or not) it is the joka, a fault the server charges with read 1."""
        if read.joka_s and stamp < (self._mark(read, "kami_start") or read.start_at):
            return JOKA
        if read.verse == "shimo":          # the read verse is "kami" on the wire, the yoin after it "shimo"
            verse_end = self._mark(read, "shimo_end")
            if verse_end is None:
                return read.programme_part((stamp - read.start_at) * read.speed)
            yoin_s = (read.card_s - read.kami_s) / read.speed
            return KAMI if stamp < verse_end else SHIMO if stamp < verse_end + yoin_s else MA
        kami_end, shimo_end = self._mark(read, "kami_end"), self._mark(read, "shimo_end")
        if kami_end is None or shimo_end is None:
            return read.programme_part((stamp - read.start_at) * read.speed)
        return KAMI if stamp < kami_end else SHIMO if stamp < shimo_end else MA

    def _card_read(self, poem: int) -> None:
        """The card's shimo-no-ku ended here: its ma, then ``race.done``."""
        read = self.race.open_read
        if read is None or read.poem != poem:
            return
        self._sounded.add(read.number)
        self._ma.start(max(0, round(read.ma_s / read.speed * 1000)))

    def _reading_failed(self, message: str) -> None:
        """The card could not be read here (another reading took the player, a voice failed):
        said, and the card is over on this side so the match goes on."""
        read = self.race.open_read
        self.banner.setText(tr("race.online.reading_failed", error=message))
        if read is not None:
            self._sounded.add(read.number)
            self._say_done()

    def _say_done(self) -> None:
        read = self.race.open_read
        if read is None:
            return
        self.race_checks.flush()               # every touch goes before the read is said done
        self.race.done.add(read.number)
        self.send("race.done", table=self.race.table, read=read.number)

    def _stop_reading(self) -> None:
        self._poll.stop()
        self._ma.stop()
        self.race_checks.flush()
        self.driver.stop()

    def toggle_wait(self) -> None:
        """待った: ask the server to hold the next card (again: go on)."""
        race = self.race
        if race.seat is not None and race.over is None:
            self.send("race.wait", table=race.table, hold=race.seat not in race.holds)

    stats_kind = KIND
    """The statistics kind of the person's reads here (a floor race: the game's own)."""

    def _record_read(self, frame: dict[str, Any]) -> None:
        """The person's read as a statistics trial (`race.record_of`), marked when its race was
        disturbed (the panel's `store`: `UsesStatsStore`)."""
        from trainer.stats.store import Trial
        record = self.race.record_of(frame)
        if record is None:
            return
        try:
            self.store.record(Trial(kind=self.stats_kind, card=record.card, correct=record.correct,  # type: ignore[attr-defined]
                                    answer=record.answer, reaction_ms=record.reaction_ms, fault=record.fault,
                                    voice=self.settings.get(S.VOICE), disturbed=self.disturbed.get(frame["read"])))
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a match
            self.flags.setText(tr("match.stats_failed", error=str(exc)))

    def confirm_resign(self) -> bool:
        """Ask before resigning (tests replace this)."""
        box = QMessageBox(QMessageBox.Icon.Question, tr("race.online.resign"), tr("race.online.resign_ask"),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                          cast(QWidget, self))
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def resign(self) -> None:
        race = self.race
        if race.seat is not None and race.over is None and self.confirm_resign():
            self.send("race.resign", table=race.table)

    def shutdown(self) -> None:
        self._stop_reading()


class OnlineRacePanel(RaceReading, UsesStatsStore, QWidget):
    """One race table (see the module docstring). `send(type, **fields)` sends to the server."""

    def __init__(self, table: str, send: Callable[..., Any], settings: Any, voices: Any, *,
                 driver: Any = None, clock: Clock = SYSTEM, store: Any = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.send, self.settings, self.voices, self.clock = send, settings, voices, clock
        self._store = store
        self.race = RaceState(table)
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self, name=tr("race.online.game"))
            driver.name_msg = "race.online.game"
        self.lines: list[tuple[dict[str, Any], str]] = []   # judged frames and their kimariji, for the log
        self.shown: list[dict[str, Any]] = []     # what the panel showed of each judgement (tests read it)
        self._kimariji: dict[int, str] = {}
        self._build()
        self._setup_reading(driver, clock, self)
        self.floor.clock = clock
        self.floor.touched.connect(self.press)
        self.floor.arranged.connect(self.arranged)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    # -- layout -------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.floor = TerritoryWidget()
        self.floor.interactive = False
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
        self.scores = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.clock_label = QLabel(wordWrap=True)
        self.clock_label.setStyleSheet("color: #555;")
        self.rating = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.rating.setStyleSheet("font-weight: bold;")
        self.log = QListWidget()
        self.log.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        wrap_whole_lines(self.log)      # a judgement wraps, it is never cut
        self.wait_button, self.resign_button = QPushButton(), QPushButton()
        for b in (self.wait_button, self.resign_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.wait_button.clicked.connect(self.toggle_wait)
        self.resign_button.clicked.connect(self.resign)
        bar = QHBoxLayout()
        bar.addWidget(self.banner, 1)
        bar.addWidget(self.wait_button)
        bar.addWidget(self.resign_button)
        side = QWidget()
        side.setMinimumWidth(220)
        sv = QVBoxLayout(side)
        for w in (self.reaction, self.judgement, self.flags, self.scores, self.rating):
            sv.addWidget(w)
        sv.addWidget(self.log, 1)
        sv.addWidget(self.clock_label)
        # a spectator's floor: seat 0 below, each side named (a player's is "you" below, as locally)
        self.top_name, self.bottom_name = QLabel(), QLabel()
        for label in (self.top_name, self.bottom_name):
            label.setStyleSheet("font-weight: bold; color: #333;")
            label.hide()
        floor_box = QWidget()
        fv = QVBoxLayout(floor_box)
        fv.setContentsMargins(0, 0, 0, 0)
        fv.addWidget(self.top_name)
        fv.addWidget(self.floor, 1)
        fv.addWidget(self.bottom_name)
        split = QSplitter()
        split.addWidget(floor_box)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        split.setSizes([3000, 1100])
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addLayout(bar)
        v.addWidget(split, 1)

    def retranslate(self, *_: Any) -> None:
        race = self.race
        self.wait_button.setText(tr("race.online.go_on" if race.seat in race.holds else "race.online.wait"))
        self.resign_button.setText(tr("race.online.resign"))
        self.log.clear()
        for frame, kana in self.lines:
            self.log.addItem(self._log_line(frame, kana))
        self.log.scrollToBottom()
        if self.lines:
            frame, kana = self.lines[-1]
            self.judgement.setText(judged_line(frame, race.seat, race.names, kana).split(" ", 1)[-1])
            self.flags.setText("\n".join(flag_lines(frame, race.seat, race.names, race.floor_ms)))
        if race.offset_ms is not None:
            self.clock_label.setText(tr("race.online.clock", offset=f"{race.offset_ms:.0f}",
                                        error=f"{race.error_ms or 0:.1f}"))
        if race.rating is not None:
            self.rating.setText(rating_text(race.rating))
        self._show_state()

    def title_text(self) -> str:
        """The table's title (the Online tab's table row shows it)."""
        race = self.race
        return tr("race.online.title", table=race.table,
                  rated=tr("race.online.rated" if race.rated else "race.online.unrated"))

    def _log_line(self, frame: dict[str, Any], kana: str) -> str:
        line = judged_line(frame, self.race.seat, self.race.names, kana)
        return f"{line}　⚠ {tr('race.disturbed')}" if frame["read"] in self.disturbed else line

    # -- frames from the server ----------------------------------------------------------------------
    def apply(self, frame: dict[str, Any]) -> None:
        """One frame about this table (the Online tab hands on ``race.*`` and ``rating``)."""
        if not self.race.apply(frame):
            return
        kind = frame["type"]
        if kind == "race.start":
            self._floor_from_sides(fresh=True)
            self.floor.interactive = self.race.seat is not None
            self.retranslate()
        elif kind == "race.watching":              # a spectator: the floor and the reads so far
            self._floor_from_sides(fresh=True)
            self.lines = [(j, self.race.kimariji_of(j["read"])) for j in self.race.judged]
            self.retranslate()
        elif kind == "race.layout":
            self._layout(frame)
        elif kind == "race.read":
            self._read(self.race.read)
        elif kind == "race.judged":
            self._judged(frame)
        elif kind in ("race.sides", "race.okuri"):
            self._floor_from_sides()
        elif kind == "race.over":
            self._over()
        elif kind == "rating":
            self.rating.setText(rating_text(frame))
        self.floor.arranging = self.race.may_rearrange
        self._show_state()

    def _show_state(self) -> None:
        race = self.race
        if race.over is not None:
            self.banner.setText(result_text(race.over, race.seat, race.names))
        elif not race.started:
            self.banner.setText(tr("race.online.waiting_opponent" if race.seat is not None else
                                   "race.online.syncing"))
        elif race.okuri is not None:
            self.banner.setText(tr("race.online.okuri", cards=race.okuri.get("cards", 1)))
        elif race.owing is not None and race.owing[0] != race.seat:
            self.banner.setText(tr("race.online.okuri_other"))
        elif race.waiting is not None:
            self.banner.setText(tr("race.online.dropped", who=who(race.waiting.get("seat"), race.seat, race.names),
                                   seconds=f"{race.waiting.get('seconds', 0):g}"))
        elif race.may_rearrange:
            self.banner.setText(tr("race.online.rearrange"))
        elif race.holds:
            self.banner.setText(tr("race.online.held", who="、".join(who(s, race.seat, race.names)
                                                                      for s in race.holds)))
        elif race.read is not None:
            self.banner.setText(tr("race.online.read", number=race.read.number))
        else:
            self.banner.setText("")
        me = race.seat if race.seat is not None else 0
        watching = race.seat is None and race.started
        self.top_name.setVisible(watching)
        self.bottom_name.setVisible(watching)
        if watching:
            self.top_name.setText(who(1, None, race.names))
            self.bottom_name.setText(who(0, None, race.names))
        if len(race.left) == 2:
            self.scores.setText("\n".join(tr("race.online.left", who=who(s, race.seat, race.names), n=race.left[s])
                                          for s in (me, 1 - me)))
        self.wait_button.setEnabled(race.seat is not None and race.over is None and race.started)
        self.resign_button.setEnabled(race.seat is not None and race.over is None and race.started)
        self.wait_button.setText(tr("race.online.go_on" if race.seat in race.holds else "race.online.wait"))

    def _layout(self, frame: dict[str, Any]) -> None:
        """A seat's side laid out anew (``race.layout``, after 待った): drawn as the server took it."""
        race = self.race
        me = race.seat if race.seat is not None else 0
        try:
            side = Territory([(left, right) for left, right in frame["rows"]])
        except (LayoutError, TypeError, ValueError):
            return
        old = self.floor.floor
        own = frame["seat"] == me
        self.floor.set_floor(Floor(own=side if own else old.own, opp=old.opp if own else side))

    def arranged(self) -> None:
        """The person dragged a card of their side while holding the reader: the new layout to the server."""
        if self.race.may_rearrange:
            rows = [[list(left), list(right)] for left, right in self.floor.floor.own.rows()]
            self.send("race.arrange", table=self.race.table, rows=rows)

    def _floor_from_sides(self, fresh: bool = False) -> None:
        race = self.race
        me = race.seat if race.seat is not None else 0
        own_cards, opp_cards = race.sides[me], race.sides[1 - me]
        old = self.floor.floor
        own = Territory.arranged(sorted(own_cards)) if fresh else kept_layout(old.own, own_cards)
        opp = Territory.arranged(sorted(opp_cards)) if fresh else kept_layout(old.opp, opp_cards)
        self.floor.set_floor(Floor(own=own, opp=opp))

    # -- the person's presses -------------------------------------------------------------------------
    def press(self, card: int, stamp: float) -> None:
        """A press on the floor, stamped when Qt delivered it: the okurifuda owed, or a touch."""
        race = self.race
        if race.okuri is not None:
            me = race.seat if race.seat is not None else 0
            if card in race.sides[me]:
                self.send("race.send", table=race.table, card=card)
            return
        read = race.open_read
        if read is None or race.seat is None:
            return
        kimariji_t, reaction_ms, part = self.measure(read, stamp)
        race.touched(read.number, card, reaction_ms)
        self.floor.highlights[card] = BLUE
        self.floor.update()
        if not any(self.shown_for(read.number)):
            self.reaction.setText(reaction_text(round(reaction_ms), False))
            self.reaction.setStyleSheet("color: #1f5fbf;")
        self.race_checks.add(kimariji_t, stamp, lambda reason: self._send_touch(read, card, reaction_ms, stamp,
                                                                               part, reason))

    def shown_for(self, number: int) -> list[dict[str, Any]]:
        return [s for s in self.shown if s["read"] == number]

    def _send_touch(self, read: RaceRead, card: int, reaction_ms: float, stamp: float, part: str,
                    reason: str | None) -> None:
        if reason is not None:
            self.disturbed[read.number] = reason
        self.send("race.touch", **read.touch(card, reaction_ms, stamp, part, stall=reason is not None))

    # -- the server's judgement -----------------------------------------------------------------------
    def _judged(self, frame: dict[str, Any]) -> None:
        race = self.race
        kana = self._kimariji.get(frame["read"]) or race.kimariji_of(frame["read"])   # a spectator's: no race.read
        self.lines.append((frame, kana))
        self.log.addItem(self._log_line(frame, kana))
        self.log.scrollToBottom()
        me = race.seat
        times = frame.get("reaction_ms") or [None, None]
        faulted = {seat for seat, _ in frame.get("faults") or []}
        self.shown.append({"read": frame["read"], "poem": frame["poem"], "taker": frame.get("taker"),
                           "reaction_ms": list(times), "faults": frame.get("faults") or []})
        if me is not None and "taker" in frame:
            text = reaction_text(times[me], me in faulted)
            self.reaction.setText(text)
            colour = "#c0392b" if me in faulted else "#1f5fbf" if frame.get("taker") == me else "#555"
            self.reaction.setStyleSheet(f"color: {colour};")
        self.judgement.setText(judged_line(frame, me, race.names, kana).split(" ", 1)[-1])
        self.flags.setText("\n".join(flag_lines(frame, me, race.names, race.floor_ms)))
        if frame.get("poem") in self.floor.highlights or frame.get("taker") is not None:
            self.floor.highlights[frame["poem"]] = GOLD
        self._floor_from_sides()
        self._record_read(frame)

    def _over(self) -> None:
        self.driver.stop()
        self._ma.stop()
        self.race_checks.flush()
        self.floor.interactive = False

    # -- the person's buttons -------------------------------------------------------------------------
    def _released(self, read: RaceRead) -> None:
        self.floor.highlights.clear()
        self.floor.update()
        self._kimariji[read.number] = read.kimariji

__all__ = ["OnlineRacePanel", "kept_layout", "KIND"]
