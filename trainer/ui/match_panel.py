"""Match mode: a kyōgi match against the CPU, on the clickable floor.

The panel is the reader and the judge's clerk, not the judge: the rules are
``trainer.rules.kyogi.KyogiState``; the opponent is ``trainer.players.karuta_cpu``.
What the panel does is time-keeping and wiring:

- the reading is a `Programme` of the engine's yomifuda order, played by the
  shared player; when a kami-no-ku starts to sound the panel applies
  ``Read(start_ms, kimariji_ms)`` with the player's own times for the marks;
- the player's touches come from the floor widget, stamped with
  ``time.perf_counter()`` when Qt delivered the press; the CPU's from its
  model, given what it hears (the morae and their onsets);
- all times are ms since the match began, on the perf_counter clock the
  player maps its sample clock onto (``now``, replaceable by a fake clock in
  tests), so reaction = touch − kimariji mark;
- the kimariji mark of a read is the onset of the mora that completes the
  card's *current* kimariji, given every yomifuda read so far, karafuda too
  (after あさぼらけあ is read, あさぼらけう is decided at あさぼ): the moment
  a player can know the card.  The CPU hears the same mark;
- the race for a card closes 250 ms after its first take, or 1 s after its
  kami-no-ku ends if nobody takes it; then the engine judges, the reaction
  time is shown ("+312 ms", "−40 ms anticipated", "fault +85 ms") and any
  card owed is sent (the player picks the okurifuda by clicking it).
"""
from __future__ import annotations

import random
import time

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QInputDialog, QLabel, QListWidget,
                               QMessageBox, QPushButton, QSplitter, QStackedWidget, QVBoxLayout,
                               QWidget)

import poems
import poems.kimariji
from trainer.players.karuta_cpu import LEVELS, Heard, KarutaCPU
from trainer.rules.kyogi import (Arrange, IllegalAction, KyogiState, Phase, Read, Send, Touch,
                                 Touches)
from trainer.rules.territory import LayoutError, Territory
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, MESSAGES, add_messages, tr
from trainer.ui.stats_store import UsesStatsStore
from trainer.ui.reader_session import ReadingTiming
from trainer.ui.territory import (Floor, TerritoryWidget, list_arrangements, load_arrangement,
                                  reuse_arrangement, save_arrangement)

HUMAN, CPU = 0, 1
TAKE_GRACE_S = 0.25        # the race stays open this long after the first take
NO_TAKE_GRACE_S = 1.0      # ... or this long after the kami-no-ku if nobody takes
SWING_NOTICE_S = 120       # practice swings are allowed in the last 2 minutes

BLUE = QColor("#1f5fbf")
RED = QColor("#c0392b")
GOLD = QColor("#d4a017")

ARRANGE, MEMORISE, PLAY, OVER = "arrange", "memorise", "play", "over"

# id: (日本語, English); merged into the shared table below
MATCH_MESSAGES: dict[str, tuple[str, str]] = {
    "match.kimariji_now": ("決まり字 {now}", "kimariji {now}"),
    "match.kimariji_was": ("決まり字 {now}（元は {was}）", "kimariji {now} (was {was})"),
    "match.kimariji_short": ("{now}（元 {was}）", "{now} (was {was})"),
    "match.waiting": ("待った：読みを止めます（W で再開）", "Wait: the reader holds (W to go on)"),
    "match.rearrange": ("待った：自陣の札をドラッグして並べ替えられます（W で再開）",
                        "Wait: drag your own cards to rearrange them (W to go on)"),
    "match.stats_failed": ("統計に記録できませんでした（試合は続きます）: {error}",
                           "Could not save to the statistics (the match goes on): {error}"),
}
add_messages(MATCH_MESSAGES)


def current_kimariji(no: int, read) -> tuple[str, int]:
    """The kimariji of poem `no` now that the poems in `read` (every yomifuda, karafuda too)
    have been read, as historical kana, and the index of the kami-no-ku mora whose onset
    completes it (the programme's ``kami:mora:K`` mark): the same arithmetic as the
    simulator's `heard_for`, through the CPU's shared tables."""
    now = poems.kimariji.current(no, read)
    return now.kana, now.mora


def kimariji_note(no: int, now: str) -> str:
    """'kimariji あさぼ (was あさぼらけう)' when it has changed, else 'kimariji あさぼらけう'."""
    was = poems.get(no).kimariji
    if now == was:
        return tr("match.kimariji_now", now=now)
    return tr("match.kimariji_was", now=now, was=was)


class MemorisationTimer(QObject):
    """The memorisation period (暗記時間) on a clock that tests can replace."""

    ticked = Signal(float)         # seconds left
    swings_allowed = Signal()      # the last 2 minutes began
    done = Signal()

    def __init__(self, seconds: float, clock=time.monotonic, parent=None):
        super().__init__(parent)
        self.seconds = seconds
        self.clock = clock
        self._end: float | None = None
        self._swing_sent = False
        self._timer = QTimer(self, interval=250)
        self._timer.timeout.connect(self.tick)

    def start(self) -> None:
        self._end = self.clock() + self.seconds
        self._swing_sent = False
        self._timer.start()
        self.tick()

    def stop(self) -> None:
        self._timer.stop()
        self._end = None

    @property
    def running(self) -> bool:
        return self._end is not None

    def left(self) -> float:
        return 0.0 if self._end is None else max(0.0, self._end - self.clock())

    def tick(self) -> None:
        if self._end is None:
            return
        left = self.left()
        self.ticked.emit(left)
        if left <= SWING_NOTICE_S and not self._swing_sent:
            self._swing_sent = True
            self.swings_allowed.emit()
        if left <= 0:
            self.stop()
            self.done.emit()


def signed_ms(ms: int) -> str:
    """+312 / −40 (a real minus sign)."""
    return f"+{ms}" if ms >= 0 else f"\u2212{-ms}"


def reaction_text(ms: int | None, fault: bool) -> str:
    """'+312 ms', '−40 ms anticipated', 'fault +85 ms' (in the interface language)."""
    if ms is None:
        return ""
    if fault:
        return tr("match.fault", ms=signed_ms(ms))
    if ms < 0:
        return tr("match.anticipated", ms=-ms)
    return tr("match.reaction", ms=ms)


class MatchPanel(UsesStatsStore, QWidget):
    """Match mode: arrange, memorise, play, result."""

    def __init__(self, settings: S.Settings, voices, driver=None, clock=time.monotonic,
                 now=time.perf_counter, parent=None, store=None):
        """`clock` times the memorisation period; `now` is the session clock (perf_counter,
        the clock the player maps the sound onto): tests give both fake clocks."""
        super().__init__(parent)
        self.settings = settings
        self.voices = voices
        self._store = store                  # statistics store; the shared one on first use
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self)
        self.driver = driver
        self.clock = clock
        self.now = now
        self.phase = ARRANGE
        self.state: KyogiState | None = None
        self.cpu: KarutaCPU | None = None
        self.own = Territory()
        self.seed = 0
        self.epoch = 0.0
        self._race: dict | None = None       # the read being raced for
        self._early: list[Touch] = []        # touches in the ma, before the next kami-no-ku
        self._in_ma = False                  # between a shimo-no-ku's end and the next kami-no-ku
        self._waiting = False                # 待った: the player asked the reader to hold
        self.rt_log: list[int] = []
        self._build()
        self.memorise = MemorisationTimer(60.0 * settings.get(S.MEMORISE_MIN), clock, self)
        self.memorise.ticked.connect(self._show_memorise)
        self.memorise.swings_allowed.connect(lambda: self.banner.setText(tr("match.swing")))
        self.memorise.done.connect(self.begin_match)
        self.driver.card_started.connect(self._on_card_started)
        self.driver.finished.connect(self._on_reading_finished)
        self.driver.error.connect(self._on_error)
        self.floor.clock = now
        self.floor.touched.connect(self.route_touch)
        self.driver.card_finished.connect(self._on_card_finished)
        self.floor.arranged.connect(self._on_arranged)
        self._race_timer = QTimer(self, interval=10)
        self._race_timer.timeout.connect(self._check_race)
        LANG.changed.connect(self.retranslate)
        self.new_match()
        self.retranslate()

    # -- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.floor = TerritoryWidget()
        self.banner = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet("font-size: 18px; color: #333;")
        self.reaction = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(40)
        f.setBold(True)
        self.reaction.setFont(f)
        self.reaction.setMinimumWidth(320)
        self.kimariji_label = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.kimariji_label.setStyleSheet("font-size: 18px; color: #333;")
        self.scores = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.scores.setStyleSheet("font-size: 16px;")

        self.level = QComboBox()
        for name, lv in LEVELS.items():
            self.level.addItem(lv.label, name)    # relabelled in the interface language by retranslate
        k = self.level.findData(self.settings.get(S.CPU_LEVEL))
        self.level.setCurrentIndex(max(0, k))
        self.level.currentIndexChanged.connect(
            lambda _: self.settings.set(S.CPU_LEVEL, self.level.currentData()))
        self.deal_button = QPushButton(clicked=self.new_match)
        self.save_button = QPushButton(clicked=self.save_current_arrangement)
        self.load_button = QPushButton(clicked=self.load_saved_arrangement)
        self.memorise_button = QPushButton(clicked=self.start_memorisation)
        self.begin_button = QPushButton(clicked=self.begin_match)
        self.abandon_button = QPushButton(clicked=self.abandon)
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
        side = QWidget()
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
        for k in range(self.level.count()):
            msg = f"level.{self.level.itemData(k)}"
            if msg in MESSAGES:
                self.level.setItemText(k, tr(msg))
        self.result.retranslate()
        self._update_controls()

    def settings_changed(self) -> None:
        self.floor.set_options(show_kimariji=self.settings.get(S.SHOW_KIMARIJI),
                               dakuten=self.settings.get(S.DAKUTEN))
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
        if self.phase != PLAY:
            self._waiting = False
        self.floor.arranging = setup or (self._waiting and self.floor.arranging)
        if self.phase == ARRANGE:
            self.banner.setText(tr("match.arrange_hint"))
        self._show_scores()

    # -- setting up --------------------------------------------------------------------------
    def new_match(self, seed: int | None = None, *, sides=None, yomifuda=None, cpu=None) -> None:
        """Deal 25 + 25 at random; the CPU arranges its side, the player gets a tidy layout.

        `sides` (two Territory, the player's first) sets up the floor as given, any
        number of cards each (an endgame, a short test match); `yomifuda` the reading
        order (all 100); `cpu` an opponent in place of the level's KarutaCPU (anything
        with ``touches(view, heard)`` and ``choose_send(view)``).
        """
        self.driver.stop()
        self.memorise.stop()
        self._race_timer.stop()
        self.seed = random.SystemRandom().randrange(2**31) if not isinstance(seed, int) else seed
        order = list(yomifuda) if yomifuda is not None else poems.shuffled(self.seed)
        self.state = KyogiState.new(self.seed, sides=sides, yomifuda=order)
        self.order = order
        self.cpu = cpu if cpu is not None else KarutaCPU(self.level.currentData() or "club", CPU, self.seed)
        if sides is None:
            self.state.apply(Arrange(CPU, self.cpu.arrange(self.state.side(CPU).cards()).rows()))
            rng = random.Random(f"ui-arrange:{self.seed}")
            self.own = Territory.arranged(self.state.side(HUMAN).cards(), rng)
        else:
            self.own = self.state.side(HUMAN)
        self.phase = ARRANGE
        self.rt_log = []
        self._race = None
        self._early = []
        self.log.clear()
        self.reaction.setText("")
        self.kimariji_label.setText("")
        self.floor.highlights.clear()
        self.floor.dimmed.clear()
        self.floor.caption = ""
        self.pages.setCurrentIndex(0)
        self._show_floor()
        self.settings_changed()

    def _show_floor(self) -> None:
        opp = self.state.side(CPU)
        own = self.own if self.phase in (ARRANGE, MEMORISE) else self.state.side(HUMAN)
        self.floor.set_floor(Floor(own=own, opp=opp))

    def _on_arranged(self) -> None:
        if self.phase in (ARRANGE, MEMORISE):
            self.own = self.floor.floor.own
        elif self.phase == PLAY and self.state is not None:
            try:   # the engine judges: only between reads, only one's own cards
                self.state.apply(Arrange(HUMAN, self.floor.floor.own.rows()))
            except IllegalAction as exc:
                self.banner.setText(str(exc))
                self._show_floor()

    def toggle_wait(self) -> None:
        """待った: hold the reader; once the read is settled, the player may rearrange their side.

        As on a real floor, cards are moved only between reads while the reader
        waits; a press while rearranging moves a card, it is no touch.
        """
        if self._waiting:
            self._waiting = False
            self.floor.arranging = False
            self.banner.setText("")
            if self.state.phase is not Phase.OKURI:   # the okurifuda choice keeps its own hold
                self.driver.release()
            return
        self._waiting = True
        self.driver.hold()
        self.banner.setText(tr("match.waiting"))
        self._allow_rearranging()

    def _allow_rearranging(self) -> None:
        if self._waiting and self.phase == PLAY and self.state.phase is Phase.AWAIT_READ:
            self.floor.arranging = True
            self.banner.setText(tr("match.rearrange"))

    def save_current_arrangement(self) -> None:
        name, ok = QInputDialog.getText(self, tr("match.arrange_save"), tr("match.arrange_name"))
        if not ok:
            return
        try:
            save_arrangement(name, self.own)
        except (LayoutError, OSError) as exc:
            QMessageBox.warning(self, tr("error.title"), str(exc))

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
            self.own = reuse_arrangement(saved, self.state.side(HUMAN).cards())
        except (LayoutError, OSError) as exc:
            QMessageBox.warning(self, tr("error.title"), str(exc))
            return
        self._show_floor()

    def start_memorisation(self) -> None:
        self.phase = MEMORISE
        self.memorise.seconds = 60.0 * self.settings.get(S.MEMORISE_MIN)
        self.memorise.start()
        self.retranslate()

    def _show_memorise(self, left: float) -> None:
        mm, ss = divmod(int(round(left)), 60)
        text = tr("match.memorise_left", mm=f"{mm:02d}", ss=f"{ss:02d}")
        if left <= SWING_NOTICE_S:
            text += "　—　" + tr("match.swing")
        self.banner.setText(text)

    # -- playing ----------------------------------------------------------------------------------
    def begin_match(self) -> None:
        if self.phase not in (ARRANGE, MEMORISE):
            return
        if self.voices is not None and self.voices.needs_synthesis():
            self.voices.ensure_ready(self.window(), then=self.begin_match)
            return
        self.memorise.stop()
        self.state.apply(Arrange(HUMAN, self.own.rows()))
        self.phase = PLAY
        self.epoch = self.now()
        self._in_ma = False
        self.banner.setText("")
        self._show_floor()
        self.retranslate()
        g = self.settings.get
        timing = ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=g(S.JOKA))
        self.driver.start(self.order, timing=timing, joka=timing.joka)
        self._race_timer.start()

    def ms(self, perf: float) -> int:
        return round((perf - self.epoch) * 1000)

    def _on_card_finished(self, poem: int) -> None:
        if self.phase == PLAY:
            self._in_ma = True

    def _on_card_started(self, poem: int) -> None:
        self._in_ma = False
        if self.phase != PLAY or poem == 0 or self.state.phase is not Phase.AWAIT_READ:
            return
        index = self.order.index(poem)
        now = self.now()
        kana, mora = current_kimariji(poem, self.state.read)
        start = self.driver.mark_time(index, "kami_start") or now   # when it sounded, not when we heard of it
        kima = max(start, self.driver.mark_time(index, f"kami:mora:{mora}") or now)
        kami_end = self.driver.mark_time(index, "kami_end") or now + 3.0
        self.state.apply(Read(self.ms(start), self.ms(kima)))
        heard = self._heard(index, poem, kima)
        cpu_touches = self.cpu.touches(self.state.view(CPU), heard).touches
        take_times = [t.time_ms for t in cpu_touches if t.card == poem]
        self._race = {
            "poem": poem, "index": index, "start": start, "kimariji": kima, "kimariji_kana": kana,
            "close": kami_end + NO_TAKE_GRACE_S, "human": list(self._early), "cpu": list(cpu_touches),
            "shown_cpu": set(),
        }
        self._early = []
        if take_times:
            self._race["close"] = min(self._race["close"], self.epoch + min(take_times) / 1000 + TAKE_GRACE_S)
        self.floor.highlights.clear()
        self.floor.update()

    def _heard(self, index: int, poem: int, kima: float) -> Heard:
        p = poems.get(poem)
        morae = tuple(p.kami_morae())
        times = []
        for k in range(len(morae)):
            t = self.driver.mark_time(index, f"kami:mora:{k}")
            times.append(self.ms(t) if t is not None else self.ms(kima))
        return Heard(morae, tuple(times), self.ms(kima))

    def on_touch(self, card: int, stamp: float) -> None:
        """A press on a card, stamped when Qt delivered it."""
        if self.phase != PLAY:
            return
        touch = Touch(card, self.ms(stamp))
        self.floor.highlights[card] = BLUE
        self.floor.update()
        race = self._race
        if race is None:
            if self._in_ma:               # before the next reading starts: a fault (AJKA)
                self._early.append(touch)
            return                        # during the shimo-no-ku after a judged read: nothing
        race["human"].append(touch)
        if card == race["poem"]:
            race["close"] = min(race["close"], stamp + TAKE_GRACE_S)

    def _check_race(self) -> None:
        race = self._race
        if race is None:
            return
        now = self.now()
        for t in race["cpu"]:             # show the CPU's hand as it lands
            if t not in race["shown_cpu"] and self.epoch + t.time_ms / 1000 <= now:
                race["shown_cpu"].add(t)
                self.floor.highlights[t.card] = RED
                self.floor.update()
        if self.driver.state == "paused" or now < race["close"]:
            return
        self.judge()

    def judge(self) -> None:
        """Close the race: both seats' touches go to the engine, which judges."""
        race, self._race = self._race, None
        if race is None:
            return
        close_ms = self.ms(race["close"])
        human = tuple(t for t in race["human"] if t.time_ms <= close_ms)
        cpu = tuple(t for t in race["cpu"] if t.time_ms <= close_ms)
        self.state.apply(Touches(CPU, cpu))
        outcome = self.state.apply(Touches(HUMAN, human))
        self._show_outcome(outcome, race)
        self._settle_owing()

    def _show_outcome(self, outcome, race) -> None:
        rt = outcome.reaction_ms[HUMAN]
        my_faults = [f for f in outcome.faults if f.seat == HUMAN]
        if my_faults and rt is None and race["human"]:
            rt = race["human"][0].time_ms - self.ms(race["kimariji"])
        text = reaction_text(rt, bool(my_faults))
        if outcome.taker == HUMAN and rt is not None:
            self.rt_log.append(rt)
        self.reaction.setText(text)
        self.kimariji_label.setText(kimariji_note(outcome.poem, race["kimariji_kana"]))
        colour = "#c0392b" if my_faults else ("#1f5fbf" if outcome.taker == HUMAN else "#555")
        self.reaction.setStyleSheet(f"color: {colour};")
        self.log.addItem(self._log_line(outcome, text, race["kimariji_kana"]))
        self.log.scrollToBottom()
        if outcome.poem in self.floor.highlights or outcome.taker is not None:
            self.floor.highlights[outcome.poem] = GOLD
        self._record(outcome, rt, my_faults, bool(race["human"]))

    def _record(self, outcome, rt, my_faults, touched: bool) -> None:
        """One trial per read that concerned the player: a card on the floor, or a fault.

        Kept for the statistics (kind 'match'): taken or not, the reaction from
        the current kimariji, the fault kind. A karafuda nobody touched is no trial.
        """
        if outcome.karafuda and not my_faults:
            return
        from trainer.stats.store import Trial
        answer = "take" if outcome.taker == HUMAN else "fault" if my_faults else \
            "late" if touched else "missed"
        try:
            self.store.record(Trial(
                kind="match", card=outcome.poem, correct=outcome.taker == HUMAN, answer=answer,
                reaction_ms=None if rt is None else float(rt),
                fault=my_faults[0].kind.value if my_faults else None,
                voice=self.settings.get(S.VOICE)))
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a match
            self.banner.setText(tr("match.stats_failed", error=str(exc)))

    def _log_line(self, outcome, text: str, kimariji: str) -> str:
        p = poems.get(outcome.poem)
        n = len(self.state.read)
        if kimariji != p.kimariji:
            kimariji = tr("match.kimariji_short", now=kimariji, was=p.kimariji)
        head = f"{n:>3}. {kimariji}（{p.no}）"
        you, cpu = tr("match.you"), tr("match.cpu")
        cpu_rt = outcome.reaction_ms[CPU]
        cpu_text = f"{cpu} {signed_ms(cpu_rt)} ms" if cpu_rt is not None else ""
        you_text = f"{you} {text}" if text else ""
        # The taker and their time first, the other seat's time after it in brackets.
        if outcome.karafuda:
            what, others = tr("match.karafuda"), [you_text, cpu_text]
        elif outcome.taker == HUMAN:
            what, others = f"→ {you_text}", [cpu_text]
        elif outcome.taker == CPU:
            what, others = f"→ {cpu_text}", [you_text]
        else:
            what, others = "→ —", [you_text, cpu_text]
        others = "　".join(t for t in others if t)
        faults = " ".join(f"[{you if f.seat == HUMAN else cpu}: {tr('fault.' + f.kind.value)}]"
                          for f in outcome.faults)
        parts = [head, what, f"（{others}）" if others else "", faults]
        return " ".join(t for t in parts if t)

    def _settle_owing(self) -> None:
        """Send owed cards: the CPU chooses at once; the player clicks the okurifuda."""
        while self.state.phase is Phase.OKURI:
            giver, _, _ = self.state.owing
            if giver == CPU:
                self.state.apply(self.cpu.choose_send(self.state.view(CPU)))
                continue
            self.banner.setText(tr("match.okuri"))
            self.driver.hold_before_next_card()
            break
        self._after_read()

    def choose_okurifuda(self, card: int) -> bool:
        if self.state.phase is not Phase.OKURI or self.state.owing[0] != HUMAN:
            return False
        if card not in self.state.side(HUMAN):
            return False
        self.state.apply(Send(HUMAN, card))
        if self.state.phase is not Phase.OKURI:
            self.banner.setText("")
            if not self._waiting:        # the player's own wait outlasts the okurifuda
                self.driver.release()
        self._settle_owing()
        return True

    def _after_read(self) -> None:
        self._show_floor()
        self._show_scores()
        if self.state.is_over():
            self.finish()
        else:
            self._allow_rearranging()

    def _on_reading_finished(self) -> None:
        if self.phase == PLAY and not self.state.is_over():
            if self._race is not None:
                self.judge()

    def _on_error(self, message: str) -> None:
        QMessageBox.warning(self, tr("error.title"), message)
        self.abandon()

    def abandon(self) -> None:
        self.driver.stop()
        self._race_timer.stop()
        self.new_match()

    def finish(self) -> None:
        self.phase = OVER
        self.driver.stop()
        self._race_timer.stop()
        self.result.show_result(self)
        self.pages.setCurrentIndex(1)
        self._update_controls()

    def _show_scores(self) -> None:
        if self.state is None:
            return
        mine, theirs = self.state.scores()
        self.scores.setText(f"{tr('match.you')}: {tr('match.left', n=mine)}　　"
                            f"{tr('match.cpu')}: {tr('match.left', n=theirs)}")

    # -- the territory reports presses; during okurifuda choice they pick a card -----------------
    def route_touch(self, card: int, stamp: float) -> None:
        if self.state is not None and self.state.phase is Phase.OKURI:
            self.choose_okurifuda(card)
        else:
            self.on_touch(card, stamp)

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
        self.memorise.stop()
        self._race_timer.stop()
        self.driver.stop()


class ResultView(QWidget):
    """The match result: who won, by how many, reaction times, faults, the log."""

    def __init__(self, panel: MatchPanel):
        super().__init__(panel)
        self.panel = panel
        self.title = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(44)
        f.setBold(True)
        self.title.setFont(f)
        self.verdict = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.verdict.setStyleSheet("font-size: 32px;")
        self.details = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.details.setStyleSheet("font-size: 20px; color: #333;")
        self.taken = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.taken.setWordWrap(True)
        self.taken.setStyleSheet("font-size: 18px;")
        self.log = QListWidget()
        self.again = QPushButton(clicked=lambda: panel.new_match())
        self.again.setMinimumHeight(44)
        v = QVBoxLayout(self)
        v.addWidget(self.title)
        v.addWidget(self.verdict)
        v.addWidget(self.details)
        v.addWidget(self.taken)
        v.addWidget(self.log, 1)
        v.addWidget(self.again, 0, Qt.AlignmentFlag.AlignCenter)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(tr("match.result"))
        self.again.setText(tr("match.again"))

    def show_result(self, panel: MatchPanel) -> None:
        state = panel.state
        mine, theirs = state.scores()
        margin = abs(mine - theirs)
        won = state.winner() == HUMAN
        self.verdict.setText(tr("match.won" if won else "match.lost", n=margin))
        self.verdict.setStyleSheet(f"font-size: 32px; color: {'#1f5fbf' if won else '#c0392b'};")
        rts = panel.rt_log
        faults = sum(1 for o in state.outcomes for f in o.faults if f.seat == HUMAN)
        mean = f"{round(sum(rts) / len(rts))}" if rts else "—"
        self.details.setText(f"{tr('match.mean_rt', ms=mean)}　　{tr('match.faults', n=faults)}　　"
                             + tr("match.taken", you=len(state.taken(HUMAN)), cpu=len(state.taken(CPU))))
        self.log.clear()
        for k in range(panel.log.count()):
            self.log.addItem(panel.log.item(k).text())
