"""Games → Mubeyama: a table of Mubeyama karuta (むべ山かるた) with the app as the reader.

Pages: setup (`mubeyama_setup`), the scorekeeper's layouts, the table
(`mubeyama_play.PlayPage`), the result (`mubeyama_result`). The game is a
`trainer.games.mubeyama_session.MubeyamaSession`, which decides everything:
when the reader holds and reads on, when a CPU seat acts and the hint shows,
what a click means, the reaction times, the result. This panel only connects
it to the world:

- the shared `ReadingDriver` reads the yomifuda (the same programme and player
  as Reader mode); its signals go to the session (`card_started`,
  `kimariji_sounded`, `card_finished`), and the session's `ReaderHeld` /
  `ReaderReleased` events go back to the driver (seed 000: the reader waits
  for the flip; a quick flip releases the wait before it is reached);
- clicks on the table go to `session.act` as a `Click` stamped on the clock
  (the driver's, or one injected), a refusal is shown in the interface
  language (`error_text`); the scorer's 返した (F) is a `MarkFlip`;
- one QTimer calls `session.tick()` at `session.next_due()` (CPU moves, hint);
- a person's timed flip goes to the statistics (kind 'mubeyama'), once the player has
  said whether the sound left on time between its kimariji and the flip
  (`trainer.ui.race_checks`): a disturbed flip is kept with its reason, marked, not counted.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import QMessageBox, QStackedWidget, QVBoxLayout, QWidget

from audio.clock import SYSTEM, Clock
from trainer.games.mubeyama_session import (Click, FlipTimed, GameConfig, HintGiven, MarkFlip,
                                            MubeyamaSession, ReaderHeld, ReaderReleased)
from trainer.games.protocol import GameEvent
from trainer.rules.mubeyama import Flipped, IllegalAction, LayoutError, Revealed
from trainer.text.mubeyama import error_text, seat_name
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr
from trainer.ui.mubeyama_play import PlayPage, mark
from trainer.ui.mubeyama_result import ResultPage
from trainer.ui.mubeyama_setup import LayoutPage, SetupError, SetupPage
from trainer.ui.race_checks import RaceChecks
from trainer.reader.session import ReadingTiming
from trainer.ui.mubeyama_table import UNKNOWN
from trainer.ui.stats_store import UsesStatsStore

FLIP_COLOUR = QColor("#1f5fbf")
SETUP, LAYOUTS, PLAY, RESULT = range(4)


class MubeyamaPanel(UsesStatsStore, QWidget):
    """Games → Mubeyama. *clock*: the scale of the driver's marks and of the presses
    (default: the driver's own ``clock``, else the system's ``perf_counter``)."""

    def __init__(self, settings: S.Settings, voices, driver=None, cpu_delay_s: float | None = None,
                 parent=None, store=None, clock: Clock | None = None):
        super().__init__(parent)
        self.settings = settings
        self._store = store            # statistics store; the shared one on first use
        self.voices = voices
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self)
        self.driver = driver
        self.clock = clock or getattr(driver, "clock", None) or SYSTEM
        self.session: MubeyamaSession | None = None
        self.config: GameConfig | None = None
        self._cpu_delay_override = cpu_delay_s
        self.viewer: int | None = None
        self.race_checks = RaceChecks(self.driver, self.clock)
        self._build()
        self.driver.card_started.connect(lambda no: self._feed(lambda s: s.card_started(no)))
        self.driver.kimariji.connect(self._on_kimariji)
        self.driver.card_finished.connect(lambda no: self._feed(lambda s: s.card_finished(no)))
        self.driver.error.connect(self._on_error)
        self.table.slot_clicked.connect(self.on_slot_clicked)
        self._tick_timer = QTimer(self, singleShot=True)
        self._tick_timer.timeout.connect(lambda: self._feed(lambda s: s.tick()))
        self._progress_timer = QTimer(self, interval=60)
        self._progress_timer.timeout.connect(self._show_progress)
        LANG.changed.connect(self.retranslate)
        self.settings_changed()

    def _build(self) -> None:
        self.pages = QStackedWidget()
        self.setup = SetupPage(self.settings)
        self.setup.start_requested.connect(self.start_from_setup)
        self.setup.layouts_requested.connect(self._to_layouts)
        self.layouts = LayoutPage()
        self.layouts.back_requested.connect(lambda: self.pages.setCurrentIndex(SETUP))
        self.layouts.start_requested.connect(self.start_scorekept)
        self.play = PlayPage(self.settings)
        self.result = ResultPage(self)
        for page in (self.setup, self.layouts, self.play, self.result):
            self.pages.addWidget(page)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.pages)
        play = self.play
        # The table page's widgets, under the names tests and the window know them by.
        self.table, self.banner, self.notice, self.view_as = play.table, play.banner, play.notice, play.view_as
        self.mark_button, self.stop_button, self.yomifuda = play.mark_button, play.stop_button, play.yomifuda
        self.phase, self.reaction, self.ledger = play.phase, play.reaction, play.ledger
        self.log, self.shell = play.log, play.shell
        play.view_as.currentIndexChanged.connect(self._viewer_changed)
        play.pause_button.clicked.connect(lambda: self.command("pause"))
        play.mark_button.clicked.connect(self.mark_flip)
        play.stop_button.clicked.connect(self.ask_to_stop)
        QShortcut(QKeySequence("F"), self, self.mark_flip,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)

    def settings_changed(self) -> None:
        self.table.show_kimariji = self.settings.get(S.SHOW_KIMARIJI)
        self.table.dakuten = self.settings.get(S.DAKUTEN)
        self.retranslate()

    def retranslate(self, *_) -> None:
        self.play.retranslate()
        self._fill_view_as()
        self.result.retranslate()
        if self.config is not None:
            self.play.game_title.setText(self._game_title(self.config))
        if self.session is not None:
            self.play._logged = 0
            self.log.clear()
            self.refresh()

    @property
    def game(self) -> MubeyamaSession:
        """The game being played (for what runs only once one is: its events, its seats' acts)."""
        assert self.session is not None, "no game started"
        return self.session

    # -- starting --------------------------------------------------------------------------------
    def start_from_setup(self) -> None:
        try:
            config = self.setup.config()
        except SetupError as exc:
            self.setup.error.setText(exc.text)     # worded in the interface language by the setup page
            return
        self.start_game(config)

    def _to_layouts(self) -> None:
        try:
            config = self.setup.config()
        except SetupError as exc:
            self.setup.error.setText(exc.text)
            return
        self.layouts.show_for(config)
        self.pages.setCurrentIndex(LAYOUTS)

    def start_scorekept(self) -> None:
        try:
            layouts = self.layouts.layouts()
        except LayoutError as exc:
            self.layouts.error.setText(error_text(exc))
            return
        self.start_game(self.setup.config(layouts=layouts))

    def start_game(self, config: GameConfig) -> None:
        """Seat the players and start reading. A synthesised voice not yet made is made
        while the game reads, in reading order (`ReadingDriver`: the first card within
        about 2 s, the banner saying the reading prepares until then; issue 25)."""
        self.driver.stop()
        self._tick_timer.stop()
        self.config = config
        if self._cpu_delay_override is not None:       # tests: CPUs at once, or quickly
            config = replace(config, cpu_delay_s=self._cpu_delay_override)
        self.session = MubeyamaSession(config, clock=self.clock)
        self.viewer = None
        self.play.clear(config.gambling, config.scorekeeper)
        self._fill_view_as()
        self.play.game_title.setText(self._game_title(self.config))
        self.pages.setCurrentIndex(PLAY)
        self.refresh()
        g = self.settings.get
        timing = ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=g(S.JOKA),
                               joka_gap=g(S.JOKA_GAP), own_pauses=g(S.OWN_PAUSES))
        self.driver.start(self.session.order, timing=timing, joka=timing.joka)
        self.play.show_session(self.session, self.viewer, True)   # the banner and the reading box:
        self._progress_timer.start()                               # "Preparing the reading…"

    @staticmethod
    def _game_title(c: GameConfig) -> str:
        mode = tr("mubeyama.mode.scorekeeper_short") if c.scorekeeper else ""
        return "　".join(x for x in (tr(f"mubeyama.variant.{c.variant}"), f"{tr('mubeyama.seed')} {c.seed}", mode) if x)

    def _fill_view_as(self) -> None:
        view_as = self.view_as
        view_as.blockSignals(True)
        view_as.clear()
        view_as.addItem(tr("mubeyama.view_all"), -1)
        if self.session is not None:
            for s in range(self.session.players):
                if self.session.config.scorekeeper or self.session.is_human(s):
                    view_as.addItem(tr("mubeyama.view_seat", seat=seat_name(s)), s)
        view_as.setCurrentIndex(max(0, view_as.findData(-1 if self.viewer is None else self.viewer)))
        view_as.blockSignals(False)

    def _viewer_changed(self, *_) -> None:
        data = self.view_as.currentData()
        self.viewer = None if data is None or data < 0 else int(data)
        self.refresh()

    def set_viewer(self, seat: int | None) -> None:
        self.view_as.setCurrentIndex(max(0, self.view_as.findData(-1 if seat is None else seat)))

    # -- what happened goes to the session; what it says comes back -----------------------------
    def _feed(self, what) -> None:
        """Give the session one report (a reading signal, a tick) and show what came of it."""
        if self.session is not None and self.pages.currentIndex() == PLAY and not self.session.is_over():
            self._changed(what(self.session))

    def _on_kimariji(self, index: int, poem: int, at: float) -> None:
        """The static kimariji sounded; the current one (never longer) has sounded by now."""
        if self.session is not None and poem == self.session.current:
            self._feed(lambda s: s.kimariji_sounded(poem, self._kimariji_mark() or at))

    def _kimariji_mark(self) -> float | None:
        """When the current card's kimariji sounded, or will if the reading plays on."""
        s = self.game
        if s.current is None:
            return None
        return mark(self.driver, s.order.index(s.current), f"kami:mora:{s.kimariji_mora}")

    def _on_error(self, message: str) -> None:
        if self.pages.currentIndex() == PLAY:
            QMessageBox.warning(self, tr("error.title"), message)

    def _changed(self, events: Sequence[GameEvent], by_person: bool = False) -> None:
        """Do what the session's events ask of the reader and the table, redraw, and wake
        up again when the session next has something due."""
        for e in events:
            if isinstance(e, ReaderHeld):
                self.table.highlights.clear()
                self.table.hint = None
                self.notice.setText("")
                self.driver.hold_before_next_card()   # wait after this card until it is flipped
            elif isinstance(e, ReaderReleased) and self.driver.state != "paused":
                self.driver.release()
            elif isinstance(e, HintGiven):
                seat_view = self.game.view(self.viewer).tables[e.seat]
                shown = any(slot.no == e.no for row in seat_view.rows for slot in row)
                self.table.hint = (e.seat, e.no if shown else UNKNOWN)
            elif isinstance(e, (Flipped, Revealed)) and by_person:
                self.table.hint = None
                self.table.highlights[(e.seat, e.no)] = FLIP_COLOUR
            elif isinstance(e, FlipTimed):
                self.play.show_reaction(e.seat, e.ms)
                self._record_reaction(e)
        self.refresh(events)
        if self.game.is_over():
            self.finish()
            return
        due = self.game.next_due()
        if due is None:
            self._tick_timer.stop()
        elif due <= self.clock.now():
            self._changed(self.game.tick())          # due already (no CPU delay): at once
        else:
            self._tick_timer.start(round((due - self.clock.now()) * 1000))

    # -- seats act ---------------------------------------------------------------------------------
    def on_slot_clicked(self, seat: int, no: int, stamp: float) -> None:
        s = self.session
        if s is None or s.is_over() or self.pages.currentIndex() != PLAY:
            return
        predicted = self._kimariji_mark() if s.current is not None else None   # the session times people only
        self._act(seat, Click(None if no == UNKNOWN else no, stamp, predicted))

    def mark_flip(self) -> None:
        """Scorekeeper: the card being waited for was flipped (no click on it needed)."""
        s = self.session
        if s is not None and s.why_illegal(0, MarkFlip()) is None:
            self._act(0, MarkFlip())       # people at the screen flip their own cards (timed)

    def _act(self, seat: int, action) -> None:
        try:
            events = self.game.act(seat, action)
        except IllegalAction as exc:
            self.notice.setText(error_text(exc))
            return
        self.notice.setText("")
        self._changed(events, by_person=True)

    def _record_reaction(self, timed: FlipTimed) -> None:
        """Keep a person's flip time in the statistics, as Match mode does (kind 'mubeyama'),
        once the player can say whether the sound stuttered between the kimariji and the flip."""
        kimariji_t = self.game.kimariji_time or self._kimariji_mark()
        flip_t = None if kimariji_t is None else kimariji_t + timed.ms / 1000
        self.race_checks.add(kimariji_t, flip_t, lambda reason: self._record(timed, reason))

    def _record(self, timed: FlipTimed, disturbed: str | None) -> None:
        from trainer.stats.store import Trial
        if disturbed is not None:
            if self.session is not None:
                self.session.mark_disturbed(timed.seat, timed.no, disturbed)   # out of the mean shown
                self.refresh()
            self.play.mark_disturbed(timed.seat, timed.ms)
        try:
            self.store.record(Trial(kind="mubeyama", card=timed.no, correct=True,
                                    reaction_ms=float(timed.ms), answer=seat_name(timed.seat),
                                    voice=self.settings.get(S.VOICE), disturbed=disturbed))
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a game
            self.notice.setText(tr("mubeyama.stats_failed", error=str(exc)))

    # -- drawing -----------------------------------------------------------------------------------
    def refresh(self, events: Sequence[GameEvent] = ()) -> None:
        if self.session is not None:
            self.play.show_session(self.session, self.viewer, self.driver.state != "idle", list(events))

    def _show_progress(self) -> None:
        self.race_checks.poll()
        s = self.session
        if s is not None and s.current is not None and self.pages.currentIndex() == PLAY:
            self.play.show_progress(s, self.driver, self.clock.now())

    # -- the end ----------------------------------------------------------------------------------------
    def finish(self) -> None:
        self._stop_reading()
        self.result.show_result(self)
        self.pages.setCurrentIndex(RESULT)

    def _stop_reading(self) -> None:
        self.race_checks.flush()              # every flip is recorded before the game goes
        self.driver.stop()
        self._tick_timer.stop()
        self._progress_timer.stop()

    def to_setup(self) -> None:
        self._stop_reading()
        self.session = None
        self.pages.setCurrentIndex(SETUP)

    def ask_to_stop(self) -> None:
        """Esc or the button: a game in progress is only dropped if the players say so."""
        s = self.session
        if s is not None and not s.is_over() and s.state.read:
            answer = QMessageBox.question(self, tr("mubeyama.new"), tr("mubeyama.confirm_stop"))
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.to_setup()

    def play_again(self) -> None:
        if self.config is not None:
            self.start_game(self.config)

    # -- commands from the main window -------------------------------------------------------------------
    def available(self, name: str) -> bool:
        page = self.pages.currentIndex()
        if name == "start":
            return page == SETUP
        return name in ("pause", "stop", "repeat") and page == PLAY and self.session is not None

    def command(self, name: str) -> None:
        if not self.available(name):
            return
        if name == "start":
            self.setup._start_clicked()
        elif name == "pause" and self.driver.state == "paused":
            self.driver.resume()
            if self.session is not None and self.session.holding:
                self.driver.hold_before_next_card()   # still waiting for the flip
        elif name == "pause":
            self.driver.pause()
        elif name == "repeat":
            self.driver.repeat_shimo()
        elif name == "stop":
            self.ask_to_stop()

    def shutdown(self) -> None:
        self._stop_reading()
