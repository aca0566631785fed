"""Match mode: a kyōgi match against the CPU, on the clickable floor: a view of `KyogiSession`.

The match itself (the deal and reading order from the seed, the CPU, the
phases, the race of each read, early touches in the ma, when a race closes,
judging, the okurifuda loop, the reaction and the statistics record of each
read) is ``trainer.games.kyogi_session.KyogiSession``, pure and clock-driven,
the very session ``karuta simulate kyogi`` plays CPU against CPU. This panel
only feeds it and draws what it reports:

- the reading is a `Programme` of the session's yomifuda order, played by the
  shared reading driver; when a kami-no-ku starts to sound the panel hands the
  session the driver's own times for that card's marks (`driver.mark_time`),
  and when the card finishes, that the ma begins;
- the player's presses come from the floor widget, stamped on the panel's
  `clock` when Qt delivered them (`audio.clock.SYSTEM`, perf_counter, the clock
  the player maps its sample clock onto; tests give a `FakeClock`);
- a press on the floor goes to the session as it is (`Press`): the session
  decides whether it is a touch or the okurifuda chosen; a refusal is shown
  worded from its reason id (`describe_refusal`);
- a timer calls `session.tick()` (10 ms in play, 250 ms while memorising): the
  session keeps the memorisation period and its notices, shows the CPU's hand
  as it lands and closes races whose time has come;
- the session's events (`kyogi.…`) become the reaction ("+312 ms", "−40 ms
  anticipated", "fault +85 ms"), the log line (`ReadSummary`, worded by
  `trainer.text.kyogi`), the banner (okurifuda, 待った), the reader's holds and
  releases, the statistics trial; the result screen draws `session.result()`;
- each of the person's races is asked, a little after its touch, whether the sound left
  on time around it (`trainer.ui.race_checks`): a disturbed one is recorded with its
  reason, marked in the reaction, the log and the review, and left out of the mean.
"""
from __future__ import annotations

import random

from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QInputDialog,
                               QLabel, QListWidget, QMessageBox, QPushButton, QSplitter, QStackedWidget,
                               QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from audio.clock import SYSTEM, Clock
from trainer.games import kyogi_session as K
from trainer.games.kyogi_session import ARRANGE, MEMORISE, OVER, PLAY, KyogiSession
from trainer.games.protocol import GameEvent, IllegalAction
from trainer.players.karuta_cpu import LEVELS
from trainer.rules.kyogi import KyogiState, Rules
from trainer.rules.territory import LayoutError, Territory
from trainer.ui import settings as S
from trainer.text.events import describe
from trainer.text.kyogi import late_text, reaction_text, seat_label, signed_ms, summary_line
from trainer.text.refusals import describe_refusal
from trainer.ui.i18n import LANG, MESSAGES, tr
from trainer.ui.kimariji_text import changed_note
from trainer.ui.race_checks import RaceChecks
from trainer.ui.stats_store import UsesStatsStore
from trainer.reader.session import ReadingTiming
from trainer.ui.territory import (Floor, TerritoryWidget, list_arrangements, load_arrangement,
                                  reuse_arrangement, save_arrangement)

HUMAN, CPU = 0, 1
__all__ = ["MatchPanel", "reaction_text", "signed_ms"]

BLUE = QColor("#1f5fbf")
RED = QColor("#c0392b")
GOLD = QColor("#d4a017")

def kimariji_note(no: int, now: str) -> str:
    """'kimariji あさぼ (was あさぼらけう)' when it has changed, else 'kimariji あさぼらけう'.
    `now` is in historical kana (as the session's events carry it); shown in the spelling set."""
    now, was = changed_note(no, now)
    if was is None:
        return tr("match.kimariji_now", now=now)
    return tr("match.kimariji_was", now=now, was=was)


def kimariji_short(no: int, now: str) -> str:
    """The log line's kimariji in the spelling set: 'あさぼ (was あさぼらけう)'."""
    now, was = changed_note(no, now)
    return now if was is None else tr("match.kimariji_short", now=now, was=was)


class WrappedLines(QStyledItemDelegate):
    """List items as whole paragraphs: each one as tall as its text wrapped to the list's
    width now (Qt's own word wrap measures once and then cuts the line with "…")."""

    PAD = 4

    def __init__(self, view: QListWidget):
        super().__init__(view)
        self.view = view

    def sizeHint(self, option, index) -> QSize:
        width = max(40, self.view.viewport().width() - 2 * self.PAD - 2)
        text = index.data(Qt.ItemDataRole.DisplayRole) or ""
        rect = QFontMetrics(option.font).boundingRect(QRect(0, 0, width, 100_000),
                                                      int(Qt.TextFlag.TextWordWrap), text)
        return QSize(width, rect.height() + 2 * self.PAD)

    def paint(self, painter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        style = self.view.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, self.view)
        painter.save()
        painter.setFont(opt.font)
        painter.setPen(opt.palette.color(QPalette.ColorRole.HighlightedText if
                                         opt.state & QStyle.StateFlag.State_Selected else QPalette.ColorRole.Text))
        painter.drawText(opt.rect.adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD),
                         int(Qt.TextFlag.TextWordWrap), text)
        painter.restore()


def wrap_whole_lines(view: QListWidget) -> None:
    """Log lines are never cut: wrapped to the width, re-wrapped when it changes."""
    view.setWordWrap(True)
    view.setItemDelegate(WrappedLines(view))
    view.setResizeMode(QListWidget.ResizeMode.Adjust)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)


class MatchPanel(UsesStatsStore, QWidget):
    """Match mode: arrange, memorise, play, result; the match is `self.session`."""

    def __init__(self, settings: S.Settings, voices, driver=None, clock: Clock = SYSTEM,
                 parent=None, store=None):
        """`clock` stamps presses, times the match and the memorisation period (perf_counter,
        the clock the player maps the sound onto): tests give a `FakeClock`."""
        super().__init__(parent)
        self.settings = settings
        self.voices = voices
        self._store = store                  # statistics store; the shared one on first use
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self)
        self.driver = driver
        self.clock = clock
        self.session: KyogiSession | None = None
        self.race_checks = RaceChecks(self.driver, clock)
        self.disturbed: dict[int, str] = {}      # read number -> why its race is not counted
        self._race_at: tuple[int, float | None] = (0, None)   # the open race: number, kimariji time
        self._build()
        self._memorise_timer = QTimer(self, interval=250)
        self._memorise_timer.timeout.connect(self.tick)
        self.driver.card_started.connect(self._on_card_started)
        self.driver.finished.connect(self._on_reading_finished)
        self.driver.error.connect(self._on_error)
        if hasattr(self.driver, "preparing"):     # a test double may not say it
            self.driver.preparing.connect(self._on_preparing)
        self.floor.clock = clock
        self.floor.touched.connect(self.route_touch)
        self.driver.card_finished.connect(self._on_card_finished)
        self.floor.arranged.connect(self._on_arranged)
        self._race_timer = QTimer(self, interval=10)
        self._race_timer.timeout.connect(self.tick)
        LANG.changed.connect(self.retranslate)
        self.new_match()
        self.retranslate()

    # -- what the session holds, for drawing (and tests) ---------------------------------------
    @property
    def phase(self) -> str:
        return self.session.phase if self.session is not None else ARRANGE

    @property
    def dealt(self) -> KyogiSession:
        """The match on the floor: there is one from construction on (`new_match`)."""
        assert self.session is not None, "no match dealt"
        return self.session

    @property
    def state(self) -> KyogiState:
        return self.dealt.state

    @property
    def order(self) -> list[int]:
        return self.dealt.order

    @property
    def epoch(self) -> float:
        return self.dealt.epoch

    @property
    def seed(self) -> int:
        return self.dealt.seed

    @property
    def cpu(self):
        return self.dealt.cpus[CPU]

    @property
    def own(self) -> Territory:
        """The player's side as drawn (their layout before the match, then the judge's)."""
        return self.dealt.side(HUMAN)

    # -- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.floor = TerritoryWidget()
        self.banner = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet("font-size: 18px; color: #333;")
        self.reaction = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(30)
        f.setBold(True)
        self.reaction.setFont(f)
        self.reaction.setWordWrap(True)
        self.kimariji_label = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.kimariji_label.setStyleSheet("font-size: 18px; color: #333;")
        self.scores = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.scores.setStyleSheet("font-size: 16px;")
        self.scores.setWordWrap(True)
        self.kimariji_label.setWordWrap(True)

        self.level = QComboBox()
        for name, lv in LEVELS.items():
            self.level.addItem(lv.label, name)    # relabelled in the interface language by retranslate
        k = self.level.findData(self.settings.get(S.CPU_LEVEL))
        self.level.setCurrentIndex(max(0, k))
        self.level.currentIndexChanged.connect(self._level_chosen)
        self.deal_button = QPushButton()
        self.save_button = QPushButton()
        self.load_button = QPushButton()
        self.memorise_button = QPushButton()
        self.begin_button = QPushButton()
        self.abandon_button = QPushButton()
        # clicked passes `checked`: new_match would take it for the seed (False, the same deal
        # every time) and load_saved_arrangement for a name, so these two are called bare.
        self.deal_button.clicked.connect(lambda: self.new_match())
        self.save_button.clicked.connect(self.save_current_arrangement)
        self.load_button.clicked.connect(lambda: self.load_saved_arrangement())
        self.memorise_button.clicked.connect(self.start_memorisation)
        self.begin_button.clicked.connect(self.begin_match)
        self.abandon_button.clicked.connect(self.abandon)
        bar = QHBoxLayout()
        for w in (self.level, self.deal_button, self.save_button, self.load_button,
                  self.memorise_button, self.begin_button, self.abandon_button):
            if isinstance(w, QPushButton):
                w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            bar.addWidget(w)
        bar.addStretch(1)

        self.log_title = QLabel()
        self.log = QListWidget()
        self.log.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.log.setWordWrap(True)          # long lines (faults of both) wrap rather than hide
        wrap_whole_lines(self.log)
        side = QWidget()
        side.setMinimumWidth(220)
        sv = QVBoxLayout(side)
        sv.addWidget(self.reaction)
        sv.addWidget(self.kimariji_label)
        sv.addWidget(self.scores)
        sv.addWidget(self.log_title)
        sv.addWidget(self.log, 1)

        play = QWidget()
        pv = QVBoxLayout(play)
        pv.setContentsMargins(0, 0, 0, 0)
        pv.addLayout(bar)
        pv.addWidget(self.banner)
        split = QSplitter()
        split.addWidget(self.floor)
        split.addWidget(side)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        split.setSizes([3000, 1000])        # the floor takes three quarters: its cards grow with it
        self.split = split
        pv.addWidget(split, 1)

        self.result = ResultView(self)
        self.pages = QStackedWidget()
        self.pages.addWidget(play)
        self.pages.addWidget(self.result)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)

    def retranslate(self, *_) -> None:
        self.deal_button.setText(tr("match.deal"))
        self.save_button.setText(tr("match.arrange_save"))
        self.load_button.setText(tr("match.arrange_load"))
        self.memorise_button.setText(tr("match.memorise"))
        self.begin_button.setText(tr("match.skip_memorise") if self.phase == MEMORISE else tr("match.begin"))
        self.abandon_button.setText(tr("match.abandon"))
        self.log_title.setText(tr("match.log"))
        self._reword_log()
        for k in range(self.level.count()):
            msg = f"level.{self.level.itemData(k)}"
            if msg in MESSAGES:
                self.level.setItemText(k, tr(msg))
        self.result.retranslate()
        self._update_controls()

    def settings_changed(self) -> None:
        self.floor.set_options(show_kimariji=self.settings.get(S.SHOW_KIMARIJI),
                               dakuten=self.settings.get(S.DAKUTEN))
        if self.kimariji_label.text() and getattr(self, "_kimariji_shown", None):
            self.kimariji_label.setText(kimariji_note(*self._kimariji_shown))
        self.retranslate()

    def _update_controls(self) -> None:
        setup = self.phase in (ARRANGE, MEMORISE)
        for w in (self.deal_button, self.save_button, self.load_button, self.level):
            w.setEnabled(setup)
        self.deal_button.setEnabled(self.phase == ARRANGE)
        self.level.setEnabled(self.phase == ARRANGE)
        self.memorise_button.setEnabled(self.phase == ARRANGE)
        self.begin_button.setEnabled(setup)
        self.abandon_button.setEnabled(self.phase == PLAY)
        waiting = self.session is not None and self.session.waiting
        self.floor.arranging = setup or (waiting and self.floor.arranging)
        if self.phase == ARRANGE:
            self.banner.setText(tr("match.arrange_hint"))
        self._show_scores()

    # -- setting up --------------------------------------------------------------------------
    def new_match(self, seed: int | None = None, *, sides=None, yomifuda=None, cpu=None) -> None:
        """Deal 25 + 25 from the seed (the session's deal); the CPU arranges its side, the
        player gets a tidy layout.

        `sides` (two Territory, the player's first) sets up the floor as given, any
        number of cards each (an endgame, a short test match); `yomifuda` the reading
        order (all 100); `cpu` an opponent in place of the level's KarutaCPU (anything
        with ``touches(view, heard)`` and ``choose_send(view)``).
        """
        self.driver.stop()
        self._memorise_timer.stop()
        self._race_timer.stop()
        self.race_checks.flush()             # the last match's races are recorded, not dropped
        self.disturbed = {}
        seed = random.SystemRandom().randrange(2**31) if not isinstance(seed, int) else seed
        self.session = KyogiSession(seed, clock=self.clock, cpu_level=self._level(), sides=sides,
                                    yomifuda=yomifuda, cpus=None if cpu is None else {CPU: cpu},
                                    rules=self.settings_rules(),
                                    cards_per_side=self.settings.get(S.CARDS_PER_SIDE))
        self.log.clear()
        self._summaries: list[K.ReadSummary] = []   # the log's reads, worded again on a language change
        self.reaction.setText("")
        self._reaction_shown = (0, "")
        self.kimariji_label.setText("")
        self.floor.highlights.clear()
        self.floor.dimmed.clear()
        self.floor.caption = ""
        self.pages.setCurrentIndex(0)
        self._show_floor()
        self.settings_changed()

    def _level(self) -> str:
        return self.level.currentData() or "club"

    def settings_rules(self) -> Rules:
        """The judge's rules from the settings (the window for same-time touches)."""
        return Rules.for_match(self.settings.get(S.JUDGE_WINDOW_MS))

    def _level_chosen(self, _index: int) -> None:
        """A level chosen before the match takes effect for the match about to start."""
        self.settings.set(S.CPU_LEVEL, self._level())
        if self.session is not None and self.session.set_cpu_level(self._level()):
            self._show_floor()

    def _show_floor(self) -> None:
        self.floor.set_floor(Floor(own=self.dealt.side(HUMAN), opp=self.dealt.side(CPU)))

    def act(self, action) -> bool:
        """The person's action to the session; a refusal is shown in the banner, worded."""
        try:
            self._show(self.dealt.act(HUMAN, action))
        except IllegalAction as exc:
            self.banner.setText(describe_refusal(exc))
            return False
        return True

    def _on_arranged(self) -> None:
        if not self.act(K.LayOut(self.floor.floor.own)):   # between reads only, during the match
            self._show_floor()

    def toggle_wait(self) -> None:
        """待った: hold the reader; once the read is settled, the player may rearrange their side.

        As on a real floor, cards are moved only between reads while the reader
        waits; a press while rearranging moves a card, it is no touch.
        """
        self.act(K.ToggleWait())
        if not self.dealt.waiting:
            self.floor.arranging = False
            self.banner.setText("")

    def save_current_arrangement(self) -> None:
        name, ok = QInputDialog.getText(self, tr("match.arrange_save"), tr("match.arrange_name"))
        if not ok:
            return
        try:
            save_arrangement(name, self.own)
        except (LayoutError, OSError) as exc:
            QMessageBox.warning(self, tr("error.title"), tr("match.arrange_save_failed", error=exc))

    def load_saved_arrangement(self, name: str | None = None) -> None:
        if not name:
            names = list_arrangements()
            if not names:
                QMessageBox.information(self, tr("match.arrange_load"), "—")
                return
            name, ok = QInputDialog.getItem(self, tr("match.arrange_load"), tr("match.arrange_name"),
                                            names, 0, False)
            if not ok:
                return
        try:
            saved = load_arrangement(name)
            self.dealt.set_arrangement(HUMAN, reuse_arrangement(saved, self.state.side(HUMAN).cards()))
        except IllegalAction as exc:
            QMessageBox.warning(self, tr("error.title"), describe_refusal(exc))
            return
        except (LayoutError, OSError) as exc:
            QMessageBox.warning(self, tr("error.title"), tr("match.arrange_load_failed", error=exc))
            return
        self._show_floor()

    def start_memorisation(self) -> None:
        if self.settings.get(S.MEMORISE_MIN) == 0:     # no memorisation: straight to the match
            self.begin_match()
            return
        if self.phase == ARRANGE and self.act(K.Memorise(60.0 * self.settings.get(S.MEMORISE_MIN))):
            self._memorise_timer.start()
            self._show_memorise()
            self.retranslate()

    def _show_memorise(self) -> None:
        """The countdown; the session says when swings are allowed (`SwingsAllowed`)."""
        left = self.dealt.memorise_left()
        if left is None:
            return
        mm, ss = divmod(int(round(left)), 60)
        text = tr("match.memorise_left", mm=f"{mm:02d}", ss=f"{ss:02d}")
        if self.dealt.swings_allowed:
            text += "　—　" + tr("match.swing")
        self.banner.setText(text)

    # -- playing: feed the session -------------------------------------------------------------------
    def begin_match(self) -> None:
        if self.phase not in (ARRANGE, MEMORISE):
            return
        # From an empty cache the synthesised voice is made while the match reads (issue 25):
        # the reading begins once the joka is made; a card is placed only with its marks.
        self._memorise_timer.stop()
        self._show(self.dealt.begin())
        self.banner.setText("")
        self._show_floor()
        self.retranslate()
        g = self.settings.get
        timing = ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=g(S.JOKA),
                               joka_gap=g(S.JOKA_GAP), own_pauses=g(S.OWN_PAUSES))
        self.driver.start(self.order, timing=timing, joka=timing.joka)
        self._race_timer.start()

    def _on_card_started(self, poem: int) -> None:
        """A kami-no-ku (or the joka) began: the session gets the driver's times of its marks."""
        index = self.order.index(poem) if poem in self.order else None
        marks = {} if index is None else {name: self.driver.mark_time(index, name)
                                          for name in K.mark_names(poem)}
        self._show(self.dealt.kami_started(poem, marks))

    def _on_card_finished(self, poem: int) -> None:
        self._show(self.dealt.card_finished(poem))

    def _on_preparing(self, waiting: bool) -> None:
        """The reading waits for the voice (its first clips, or it caught up with synthesis):
        said in the banner when nothing else is."""
        text = tr("match.preparing")
        if waiting and not self.banner.text():
            self.banner.setText(text)
        elif not waiting and self.banner.text() == text:
            self.banner.setText("")

    def _on_reading_finished(self) -> None:
        self._show(self.dealt.reading_finished())

    def tick(self) -> None:
        """The timer: whatever is due by the session's clock (memorisation notices, CPU hands
        landing, races closing; not while the reading is paused)."""
        self._show(self.dealt.tick(paused=self.driver.state == "paused"))
        self.race_checks.poll()
        if self.phase == MEMORISE:
            self._show_memorise()

    def judge(self) -> None:
        """Close the open race now (the reading ran out; tests)."""
        self._show(self.dealt.judge())

    # -- draw what happened ---------------------------------------------------------------------------
    def _show(self, events: list[GameEvent]) -> None:
        moved = over = False
        for e in events:
            if isinstance(e, K.RaceOpened):
                self._race_at = (e.number, None if e.kimariji_ms is None
                                 else self.dealt.epoch + e.kimariji_ms / 1000)
                self.floor.highlights.clear()
                self.floor.update()
            elif isinstance(e, K.TouchLanded):
                self.floor.highlights[e.card] = BLUE if e.seat == HUMAN else RED
                self.floor.update()
            elif e.kind == "kyogi.judged":
                moved = True
            elif isinstance(e, K.Reaction) and e.seat == HUMAN:
                self._show_reaction(e)
            elif isinstance(e, K.ReadSummary):
                self._log_read(e)
            elif isinstance(e, K.ReadRecorded) and e.seat == HUMAN:
                self._check_then_record(e.record)
            elif isinstance(e, K.OkurifudaNeeded) and e.seat == HUMAN:
                self.banner.setText(describe(e))
            elif isinstance(e, K.ReaderHeld):
                if e.reason == "okuri":
                    self.driver.hold_before_next_card()
                else:
                    where = self.driver.hold()     # the point depends on when it is pressed
                    self.banner.setText(tr(f"match.waiting.{where or 'kami'}"))
            elif isinstance(e, K.ReaderReleased):
                self.driver.release()
            elif isinstance(e, K.SwingsAllowed):
                self.banner.setText(describe(e))
            elif isinstance(e, K.MemorisationOver):
                self.begin_match()
            elif isinstance(e, K.RearrangeAllowed):
                self.floor.arranging = True
                self.banner.setText(describe(e))
            elif e.kind in ("kyogi.send", "kyogi.arrange", "kyogi.move"):
                moved = True
                if e.kind == "kyogi.send" and self.state.owing is None:
                    self.banner.setText("")         # the okurifuda are sent
            elif isinstance(e, K.PhaseChanged) and e.phase == OVER:
                over = True
        if moved:
            self._show_floor()
            self._show_scores()
        if over:
            self.finish()

    def _show_reaction(self, r: K.Reaction) -> None:
        self._reaction_shown = (self._race_at[0], reaction_text(r.ms, r.fault))
        self.reaction.setText(self._reaction_line())
        self._kimariji_shown = (r.poem, r.kimariji)     # redrawn if the spelling changes
        self.kimariji_label.setText(kimariji_note(r.poem, r.kimariji))
        colour = "#c0392b" if r.fault else ("#1f5fbf" if r.taken else "#555")
        self.reaction.setStyleSheet(f"color: {colour};")

    def _reaction_line(self) -> str:
        number, text = getattr(self, "_reaction_shown", (0, ""))
        return f"{text}　{tr('race.disturbed')}" if number in self.disturbed else text

    def _log_line(self, e: K.ReadSummary) -> str:
        line = summary_line(e, HUMAN, kimariji_short(e.poem, e.kimariji))
        return f"{line}　⚠ {tr('race.disturbed')}" if e.number in self.disturbed else line

    def _log_read(self, e: K.ReadSummary) -> None:
        self._summaries.append(e)
        self.log.addItem(self._log_line(e))
        self.log.scrollToBottom()
        if e.poem in self.floor.highlights or e.taker is not None:
            self.floor.highlights[e.poem] = GOLD

    def log_lines(self) -> list[str]:
        """The log's lines in the language and spelling in use now."""
        return [self._log_line(e) for e in getattr(self, "_summaries", [])]

    def _reword_log(self) -> None:
        lines = self.log_lines()
        if lines and self.log.count() == len(lines):
            for k, line in enumerate(lines):
                self.log.item(k).setText(line)

    def _check_then_record(self, record: K.ReadRecord) -> None:
        """Record the read once the player can say whether the sound left on time between
        its kimariji and the person's touch (the judging time when they did not touch)."""
        number, kimariji_t = self._race_at
        touch_t = None if kimariji_t is None or record.reaction_ms is None \
            else kimariji_t + record.reaction_ms / 1000
        self.race_checks.add(kimariji_t, touch_t,
                             lambda reason: self._record(record, reason, number))

    def _record(self, record: K.ReadRecord, disturbed: str | None = None, number: int = 0) -> None:
        """One statistics trial (kind 'match') per read that concerned the player; a
        disturbed one is marked where it is shown and kept with its reason."""
        from trainer.stats.store import Trial
        if disturbed is not None:
            self.disturbed[number] = disturbed
            self.reaction.setText(self._reaction_line())
            self._reword_log()
        try:
            self.store.record(Trial(
                kind="match", card=record.card, correct=record.correct, answer=record.answer,
                reaction_ms=record.reaction_ms, fault=record.fault, voice=self.settings.get(S.VOICE),
                disturbed=disturbed))
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a match
            self.banner.setText(tr("match.stats_failed", error=str(exc)))

    def _on_error(self, message: str) -> None:
        """The reading stopped (a voice could not be read, another mode took the reader): the
        match ends there and its result is shown with the reason, never thrown away."""
        if self.phase != PLAY:
            return
        self.dealt.abandon()
        self.finish(why=message, words=getattr(self.driver, "error_words", None))

    def confirm_abandon(self) -> bool:
        """Ask before a match in progress is thrown away (tests replace this)."""
        box = QMessageBox(QMessageBox.Icon.Question, tr("match.abandon"), tr("match.abandon_ask"),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setInformativeText(tr("match.abandon_detail"))
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def confirm_quit(self) -> bool:
        """Ask before quitting the app throws a match in progress away (tests replace this)."""
        box = QMessageBox(QMessageBox.Icon.Question, tr("match.abandon"), tr("match.quit_ask"),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setInformativeText(tr("match.quit_detail"))
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def may_close(self) -> bool:
        """Quitting (Ctrl+Q, the window's close button) with a match in play asks first, as Esc
        and Abandon do; the reading waits meanwhile and goes on if the person stays."""
        if self.phase != PLAY:
            return True
        paused_here = self.driver.state == "playing"
        if paused_here:
            self.driver.pause()
        if self.confirm_quit():
            return True
        if paused_here:
            self.driver.resume()
        return False

    def abandon(self) -> None:
        """Esc / Abandon: asked first; the result so far is shown."""
        if self.phase != PLAY:
            self.new_match()
            return
        paused_here = self.driver.state == "playing"
        if paused_here:
            self.driver.pause()                 # nothing is missed while the person decides
        if not self.confirm_abandon():
            if paused_here:
                self.driver.resume()
            return
        self.dealt.abandon()
        self.finish()

    def finish(self, why: str = "", words: tuple[str, str] | None = None) -> None:
        self.driver.stop()
        self._race_timer.stop()
        self.race_checks.flush()
        self.result.show_result(self, why=why, words=words)
        self.pages.setCurrentIndex(1)
        self._update_controls()

    def _show_scores(self) -> None:
        if self.session is None:
            return
        mine, theirs = self.state.scores()
        self.scores.setText(f"{tr('match.you')}: {tr('match.left', n=mine)}\n"
                            f"{tr('match.cpu')}: {tr('match.left', n=theirs)}")

    # -- the territory reports presses; during okurifuda choice they pick a card -----------------
    def route_touch(self, card: int, stamp: float) -> None:
        """A press, stamped when Qt delivered it: the session decides touch or okurifuda."""
        if self.session is not None:
            self.act(K.Press(card, stamp))

    # -- commands from the main window -------------------------------------------------------------
    def available(self, name: str) -> bool:
        if name == "start":
            return self.phase in (ARRANGE, MEMORISE)
        if name in ("pause", "stop", "wait"):
            return self.phase == PLAY
        return False

    def command(self, name: str) -> None:
        if not self.available(name):
            return
        if name == "start":
            self.begin_match()
        elif name == "pause":
            if self.driver.state == "paused":
                self.driver.resume()
            else:
                self.driver.pause()
        elif name == "wait":
            self.toggle_wait()
        elif name == "stop":
            self.abandon()

    def shutdown(self) -> None:
        self._memorise_timer.stop()
        self._race_timer.stop()
        self.driver.stop()


class ResultView(QWidget):
    """The match result: who won, by how many, reaction times, faults, the log, and the
    review card by card (both seats' times, who took it, faults, cards lost and sent)."""

    COLUMNS = ("review.no", "review.card", "review.side", "review.taker", "review.you_ms",
               "review.cpu_ms", "review.faults", "review.lost", "review.sent")

    def __init__(self, panel: MatchPanel):
        super().__init__(panel)
        self.panel = panel
        self.title = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(36)
        f.setBold(True)
        self.title.setFont(f)
        self.verdict = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.verdict.setStyleSheet("font-size: 28px;")
        self.why = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.why.setWordWrap(True)
        self.why.setStyleSheet("font-size: 16px; color: #8a3b12;")
        self.details = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.details.setWordWrap(True)
        self.details.setStyleSheet("font-size: 18px; color: #333;")
        self.taken = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.taken.setWordWrap(True)
        self.taken.setStyleSheet("font-size: 18px;")
        self.review_title = QLabel()
        self.review = QTableWidget(0, len(self.COLUMNS))
        self.review.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.review.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.review.verticalHeader().setVisible(False)
        self.review.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.review.horizontalHeader().setStretchLastSection(True)
        self.log = QListWidget()
        wrap_whole_lines(self.log)
        self.again = QPushButton()
        self.again.clicked.connect(lambda: panel.new_match())
        self.again.setMinimumHeight(44)
        lists = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tv = QVBoxLayout(top)
        tv.setContentsMargins(0, 0, 0, 0)
        tv.addWidget(self.review_title)
        tv.addWidget(self.review, 1)
        lists.addWidget(top)
        lists.addWidget(self.log)
        lists.setStretchFactor(0, 3)
        lists.setStretchFactor(1, 1)
        v = QVBoxLayout(self)
        v.addWidget(self.title)
        v.addWidget(self.verdict)
        v.addWidget(self.why)
        v.addWidget(self.details)
        v.addWidget(self.taken)
        v.addWidget(lists, 1)
        v.addWidget(self.again, 0, Qt.AlignmentFlag.AlignCenter)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(tr("match.result"))
        self.again.setText(tr("match.again"))
        self.review_title.setText(tr("match.review"))
        self.review.setHorizontalHeaderLabels([tr(c) for c in self.COLUMNS])
        shown = getattr(self, "_shown", None)
        if shown is not None and shown[0].session is not None and shown[0].phase == OVER:
            self.show_result(*shown)     # the result lines, log and review in the new language

    def show_result(self, panel: MatchPanel, why: str = "", words: tuple[str, str] | None = None) -> None:
        # `why` was worded when the match stopped; with its `words` it is worded again in the
        # language shown now (a failed voice's own text has none and stays as it was)
        self._shown = (panel, why, words)
        if words is not None:
            from trainer.ui.reading import reword
            why = reword(words)
        r = panel.dealt.result(HUMAN)
        if r.finished:
            self.verdict.setText(tr("match.won" if r.won else "match.lost", n=r.margin))
            colour = "#1f5fbf" if r.won else "#c0392b"
        else:                                   # abandoned, or the reading stopped
            self.verdict.setText(tr("match.abandoned", mine=r.left[0], theirs=r.left[1]))
            colour = "#555"
        self.verdict.setStyleSheet(f"font-size: 28px; color: {colour};")
        self.why.setText(tr("match.stopped", why=why) if why else "")
        self.why.setVisible(bool(why))
        mean_ms = trusted_mean(panel.dealt.review, panel.disturbed) if panel.disturbed \
            else r.mean_reaction_ms
        mean = "—" if mean_ms is None else str(mean_ms)
        self.details.setText(f"{tr('match.mean_rt', ms=mean)}　　{tr('match.faults', n=r.faults)}　　"
                             + tr("match.taken", you=r.taken[0], cpu=r.taken[1]))
        self.log.clear()
        self.log.addItems(panel.log_lines())
        self.show_review(panel.dealt.review, panel.disturbed)

    def show_review(self, rows, disturbed: dict[int, str] | None = None) -> None:
        """One table row per judged read, from the person's seat (`ReviewRow`); the
        person's time of a disturbed race is marked, the reason in its tooltip."""
        disturbed = disturbed or {}
        self.review.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(review_cells(row)):
                item = QTableWidgetItem(text)
                if c == 4 and row.number in disturbed:
                    item.setText(f"⚠ {text}")
                    item.setToolTip(tr("race.disturbed"))
                if c in (4, 5):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if row.lost(HUMAN):
                    item.setForeground(RED)
                self.review.setItem(r, c, item)
        self.review.resizeRowsToContents()


def trusted_mean(rows, disturbed: dict[int, str]) -> int | None:
    """The person's mean reaction over their takes, leaving out disturbed races (as
    `KyogiSession.mean_reaction`, which knows nothing of the sound)."""
    rts = [row.reaction_ms[HUMAN] for row in rows if row.taker == HUMAN
           and row.reaction_ms[HUMAN] is not None and row.number not in disturbed]
    return round(sum(rts) / len(rts)) if rts else None


def review_cells(row: K.ReviewRow) -> list[str]:
    """The review's cells for one read, seen from the person's seat (seat 0)."""
    def who(seat):
        return seat_label(seat, HUMAN)

    def ms(v, late=None):
        return late_text(late) if v is None else f"{signed_ms(v)} ms"

    side = tr("review.karafuda") if row.karafuda else tr("review.own") if row.owner == HUMAN else tr("review.opp")
    faults = "　".join(f"{who(s)}: {tr('fault.' + k)}" for s in (HUMAN, CPU) for k in row.faults[s])
    sent = ""
    if row.giver is not None and row.cards_owed:
        sent = tr("review.sent_by", who=who(row.giver), n=row.cards_owed)
    # The kimariji as the log writes it (the spelling chosen, "(was …)" when it got shorter).
    return [str(row.number), f"{kimariji_short(row.poem, row.kimariji)}（{row.poem}）", side, who(row.taker),
            ms(row.reaction_ms[HUMAN], row.late_ms[HUMAN]), ms(row.reaction_ms[CPU], row.late_ms[CPU]), faults,
            "✗" if row.lost(HUMAN) else "", sent]
