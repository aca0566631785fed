"""Games → Mubeyama: a table of Mubeyama karuta (むべ山かるた) with the app as the reader.

Pages: setup (ruleset, seats, payments, yaku lists, seed), the scorekeeper's
layouts, the table, the result. The rules are `trainer.rules.mubeyama`; the
game at the table is a `trainer.games.mubeyama_session.MubeyamaSession` (pure;
the simulator plays the same object); the drawing is `mubeyama_table.TableWidget`
inside the shared `table_shell.TableShell`. What this panel adds is the reader and the clock:

- the yomifuda are read by the shared `ReadingDriver` (the same programme and
  player as Reader mode). When a kami-no-ku starts to sound the card is read
  into the engine and the reader is told to wait after its shimo-no-ku
  (`hold_before_next_card`); when the flip and every pass it caused are done
  the wait is released (seed 000: the reader checks the card was flipped
  before reading on). A quick flip releases the wait before it is reached,
  so the reading flows; a slow one makes the reader wait in the ma.
- hot-seat: people click the read card in their own layout; the reaction time
  is the press (``perf_counter`` when Qt delivered it) minus the moment the
  kimariji sounded. After the hint delay the card is outlined and its owner
  named. CPU seats flip a moment after the kimariji and choose their passes
  from their own view. People pass by clicking their face-up cards.
- scorekeeper: the scorer marks each flip (a click on the card, or 返した / F)
  and each passed card; the engine applies passes, payments and the win.
- the screen shows one `view`: everyone's (hidden cards face-down) or one
  seat's (its own hidden card shown to it).
"""
from __future__ import annotations


from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QListWidget,
                               QMessageBox, QProgressBar, QPushButton, QStackedWidget,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

import poems
from trainer.rules.mubeyama import AwaitFlip, AwaitPass, AwaitRead, Event, IllegalAction, LayoutError
from trainer.text.mubeyama import (error_text, event_line, kami_words, ledger_line, seat_name,
                                      win_words)
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr
from trainer.ui.kimariji_text import changed_note
from trainer.ui.stats_store import UsesStatsStore
from audio.clock import SYSTEM
from trainer.games.mubeyama_session import GameConfig, MubeyamaSession
from trainer.ui.mubeyama_setup import LayoutPage, SetupPage
from trainer.ui.mubeyama_table import UNKNOWN, TableWidget
from trainer.reader.session import ReadingTiming
from trainer.ui.table_shell import TableShell

FLIP_COLOUR = QColor("#1f5fbf")
WRONG_COLOUR = QColor("#c0392b")
SETUP, LAYOUTS, PLAY, RESULT = range(4)


class MubeyamaPanel(UsesStatsStore, QWidget):
    """Games → Mubeyama."""

    def __init__(self, settings: S.Settings, voices, driver=None, cpu_delay_s: float | None = None,
                 parent=None, store=None):
        super().__init__(parent)
        self.settings = settings
        self._store = store            # statistics store; the shared one on first use
        self.voices = voices
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self)
        self.driver = driver
        self.clock = SYSTEM            # the player's marks and Qt's presses are on this scale
        self.session: MubeyamaSession | None = None
        self.config: GameConfig | None = None
        self._cpu_delay_override = cpu_delay_s
        self.viewer: int | None = None
        self._holding = False          # the reader was told to wait after this card
        self._token = 0                # stale-timer guard: bumped by every change
        self._hint_due = False
        self._logged = 0
        self._last_reaction = ""
        self._build()
        self.driver.card_started.connect(self._on_card_started)
        self.driver.kimariji.connect(self._on_kimariji)
        self.driver.card_finished.connect(self._on_card_finished)
        self.driver.error.connect(self._on_error)
        self.table.slot_clicked.connect(self.on_slot_clicked)
        self._progress_timer = QTimer(self, interval=60)
        self._progress_timer.timeout.connect(self._show_progress)
        LANG.changed.connect(self.retranslate)
        self.settings_changed()

    # -- pages ---------------------------------------------------------------------------------
    def _build(self) -> None:
        self.setup = SetupPage(self.settings)
        self.setup.start_requested.connect(self.start_from_setup)
        self.setup.layouts_requested.connect(self._to_layouts)
        self.layouts = LayoutPage()
        self.layouts.back_requested.connect(lambda: self.pages.setCurrentIndex(SETUP))
        self.layouts.start_requested.connect(self.start_scorekept)
        self.result = ResultPage(self)
        self.pages = QStackedWidget()
        for page in (self.setup, self.layouts, self._build_play(), self.result):
            self.pages.addWidget(page)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.pages)

    def _build_play(self) -> QWidget:
        self.table = TableWidget()
        self.banner = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.banner.setStyleSheet("font-size: 19px; color: #222; padding: 2px;")
        self.notice = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.notice.setStyleSheet("font-size: 14px; color: #c0392b;")
        self.view_as = QComboBox()
        self.view_as.currentIndexChanged.connect(self._viewer_changed)
        self.view_as_label = QLabel()
        self.pause_button = QPushButton(clicked=lambda: self.command("pause"))
        self.mark_button = QPushButton(clicked=self.mark_flip)
        self.mark_button.setToolTip("F")
        QShortcut(QKeySequence("F"), self, self.mark_flip,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.stop_button = QPushButton(clicked=self.ask_to_stop)
        self.game_title = QLabel()
        self.game_title.setStyleSheet("font-weight: bold; color: #5a4a2a;")
        bar = QHBoxLayout()
        bar.addWidget(self.game_title)
        bar.addSpacing(16)
        for w in (self.view_as_label, self.view_as, self.pause_button, self.mark_button, self.stop_button):
            if isinstance(w, QPushButton):
                w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            bar.addWidget(w)
        bar.addStretch(1)

        self.yomifuda = QLabel(alignment=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                               wordWrap=True)
        self.yomifuda.setMinimumHeight(150)
        self.yomifuda.setStyleSheet("background: #fbf8ef; border: 1px solid #cbbf9e; "
                                    "border-radius: 6px; padding: 8px; font-size: 17px;")
        self.phase = QLabel()
        self.phase.setStyleSheet("color: #555;")
        self.progress = QProgressBar(minimum=0, maximum=1000, textVisible=False)
        self.progress.setFixedHeight(8)
        self.reaction = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(26)
        f.setBold(True)
        self.reaction.setFont(f)
        self.reactions_title = QLabel()
        self.reactions = QLabel(wordWrap=True)
        self.ledger_title = QLabel()
        self.ledger = QListWidget(wordWrap=True)
        self.ledger.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.ledger.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        side = QWidget()
        sv = QVBoxLayout(side)
        sv.setContentsMargins(0, 0, 0, 0)
        for w in (self.yomifuda, self.phase, self.progress, self.reaction, self.reactions_title,
                  self.reactions, self.ledger_title):
            sv.addWidget(w)
        sv.addWidget(self.ledger, 1)

        # The shared card table: seats, log; Mubeyama is one deal, so no score sheet.
        self.shell = TableShell(self.table, side=side)
        self.log = self.shell.log
        self.log_title = self.shell.log_title
        play = QWidget()
        pv = QVBoxLayout(play)
        pv.setContentsMargins(4, 4, 4, 4)
        pv.addLayout(bar)
        pv.addWidget(self.banner)
        pv.addWidget(self.notice)
        pv.addWidget(self.shell, 1)
        return play

    def settings_changed(self) -> None:
        self.table.show_kimariji = self.settings.get(S.SHOW_KIMARIJI)
        self.table.dakuten = self.settings.get(S.DAKUTEN)
        self.retranslate()

    def retranslate(self, *_) -> None:
        self.view_as_label.setText(tr("mubeyama.view_as"))
        self._fill_view_as()
        self.pause_button.setText(tr("mubeyama.pause"))
        self.mark_button.setText(tr("mubeyama.mark_flip"))
        self.stop_button.setText(tr("mubeyama.new"))
        self.reactions_title.setText(tr("mubeyama.reactions"))
        self.ledger_title.setText(tr("mubeyama.ledger"))
        self.log_title.setText(tr("mubeyama.log"))
        self.result.retranslate()
        if self.config is not None:
            self.game_title.setText(self._game_title())
        if self.session is not None:
            self._logged = 0
            self.log.clear()
            self.refresh()

    # -- starting --------------------------------------------------------------------------------
    @property
    def cpu_delay_s(self) -> float:
        if self._cpu_delay_override is not None:
            return self._cpu_delay_override
        return self.setup.cpu_delay_s()

    def start_from_setup(self) -> None:
        try:
            config = self.setup.config()
        except ValueError as exc:
            self.setup.error.setText(str(exc))
            return
        self.start_game(config)

    def _to_layouts(self) -> None:
        try:
            config = self.setup.config()
        except ValueError as exc:
            self.setup.error.setText(str(exc))
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
        """Seat the players and start reading (the synthesised voice is prepared first if needed)."""
        if self.voices is not None and self.voices.needs_synthesis():
            self.voices.ensure_ready(self.window(), then=lambda: self.start_game(config))
            return
        self.driver.stop()
        self.config = config
        self.session = MubeyamaSession(config, clock=self.clock)
        self._token += 1
        self._holding = False
        self._hint_due = False
        self._logged = 0
        self._last_reaction = ""
        self.viewer = None
        self.log.clear()
        self.ledger.clear()
        self.reaction.setText("")
        self.notice.setText("")
        t = self.table
        t.highlights.clear()
        t.hint = None
        self.mark_button.setVisible(config.scorekeeper)
        self.ledger_title.setVisible(config.gambling)
        self.ledger.setVisible(config.gambling)
        self.shell.set_side_stretch(1 if config.gambling else 0)   # the ledger grows with the log
        self._fill_view_as()
        self.game_title.setText(self._game_title())
        self.pages.setCurrentIndex(PLAY)
        self.refresh()
        g = self.settings.get
        timing = ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=g(S.JOKA))
        self.banner.setText(tr("mubeyama.preparing"))
        self.driver.start(self.session.order, timing=timing, joka=timing.joka)
        self._progress_timer.start()

    def _game_title(self) -> str:
        c = self.config
        mode = tr("mubeyama.mode.scorekeeper").split("（")[0].split(" (")[0] if c.scorekeeper else ""
        return "　".join(x for x in (tr(f"mubeyama.variant.{c.variant}"), f"{tr('mubeyama.seed')} {c.seed}", mode) if x)

    def _fill_view_as(self) -> None:
        self.view_as.blockSignals(True)
        self.view_as.clear()
        self.view_as.addItem(tr("mubeyama.view_all"), -1)
        if self.session is not None:
            for s in range(self.session.players):
                if self.config.scorekeeper or self.session.is_human(s):
                    self.view_as.addItem(tr("mubeyama.view_seat", seat=seat_name(s)), s)
        k = self.view_as.findData(-1 if self.viewer is None else self.viewer)
        self.view_as.setCurrentIndex(max(0, k))
        self.view_as.blockSignals(False)

    def _viewer_changed(self, *_) -> None:
        data = self.view_as.currentData()
        self.viewer = None if data is None or data < 0 else int(data)
        self.refresh()

    def set_viewer(self, seat: int | None) -> None:
        self.view_as.setCurrentIndex(max(0, self.view_as.findData(-1 if seat is None else seat)))

    # -- the reader -------------------------------------------------------------------------------
    def _on_card_started(self, poem: int) -> None:
        s = self.session
        if s is None or poem == 0 or s.state.is_over() or not isinstance(s.state.pending, AwaitRead):
            return
        if poem != s.next_yomifuda():
            return
        self.table.highlights.clear()
        self.table.hint = None
        self.notice.setText("")
        events = s.read(poem)
        self._holding = True
        self.driver.hold_before_next_card()   # wait after this card until it is flipped
        self._changed(events)

    def _on_kimariji(self, index: int, poem: int, at: float) -> None:
        """The static kimariji sounded; the current one (never longer) has sounded by now."""
        s = self.session
        if s is None or poem != s.current:
            return
        s.kimariji_sounded(poem, self._kimariji_mark() or at)
        self._schedule()
        self._show_yomifuda()

    def _kimariji_mark(self) -> float | None:
        """When the current card's kimariji sounded, or will if the reading plays on."""
        s = self.session
        return self._mark(s.order.index(s.current), f"kami:mora:{s.kimariji_mora}")

    def _on_card_finished(self, poem: int) -> None:
        s = self.session
        if s is None or poem != s.current or s.state.is_over():
            return
        if s.kimariji_time is None:       # no kimariji event reached us: act from here
            s.kimariji_sounded(poem)      # now, on the session's clock
            self._schedule()

    def _on_error(self, message: str) -> None:
        if self.pages.currentIndex() == PLAY:
            QMessageBox.warning(self, tr("error.title"), message)

    # -- after every change -----------------------------------------------------------------------
    def _changed(self, events: list[Event]) -> None:
        """Redraw, then move on: release the reader, finish, or schedule the next seat."""
        self._token += 1
        s = self.session
        self.refresh(events)
        if s.state.is_over():
            self.finish()
            return
        if isinstance(s.state.pending, AwaitRead):
            if self._holding:
                self._holding = False
                if self.driver.state != "paused":
                    self.driver.release()
            return
        self._schedule()

    def _schedule(self) -> None:
        """Start the timers for what the game waits on: a CPU's move or a person's hint."""
        s = self.session
        p = s.state.pending
        if isinstance(p, AwaitFlip) and s.kimariji_time is None:
            return                        # nobody acts before the kimariji has sounded
        if s.waiting_on_cpu():
            self._later(self.cpu_delay_s, self._cpu_act)
        elif isinstance(p, AwaitFlip) and s.is_human(p.seat) and not s.hinted:
            self._later(s.config.hint_delay_s, self._show_hint)

    def _later(self, seconds: float, fn) -> None:
        if seconds <= 0:
            fn()
            return
        token = self._token
        QTimer.singleShot(round(seconds * 1000), self, lambda: token == self._token and fn())

    def _cpu_act(self) -> None:
        s = self.session
        if s is None or s.state.is_over():
            return
        action = s.cpu_action()
        if action is not None:
            self._changed(s.apply(action))

    def _show_hint(self) -> None:
        s = self.session
        p = s.state.pending
        if not isinstance(p, AwaitFlip) or s.hinted:
            return
        s.hinted = True
        seat_view = s.view(self.viewer).tables[p.seat]
        shown = any(slot.no == p.no for row in seat_view.rows for slot in row)
        self.table.hint = (p.seat, p.no if shown else UNKNOWN)
        self.refresh()

    # -- seats act ---------------------------------------------------------------------------------
    def on_slot_clicked(self, seat: int, no: int, stamp: float) -> None:
        s = self.session
        if s is None or s.state.is_over() or self.pages.currentIndex() != PLAY:
            return
        p = s.state.pending
        may_act = s.config.scorekeeper or s.is_human(seat)
        flipped = False
        try:
            if isinstance(p, AwaitFlip) and seat == p.seat and may_act:
                timed = not s.config.scorekeeper
                events = s.flip_at(seat, None if no == UNKNOWN else no, stamp if timed else None,
                                   self._kimariji_mark() if timed and s.kimariji_time is None else None)
                self._show_reaction(seat)
                flipped = True
                self.table.hint = None
                self.table.highlights[(seat, no)] = FLIP_COLOUR
            elif isinstance(p, AwaitPass) and seat == p.giver and may_act and no != UNKNOWN:
                events = s.pass_card(seat, no)
            elif not may_act:
                raise IllegalAction("not this seat's card", "not_yours", seat=seat)
            elif no != UNKNOWN and no not in s.state.read:
                raise IllegalAction(f"#{no} has not been read", "not_read", no=no)
            else:
                raise IllegalAction("not this seat's card", "not_yours", seat=seat)
        except IllegalAction as exc:
            self.notice.setText(error_text(exc))
            return
        self.notice.setText("")
        if flipped:
            self._record_reaction(seat)   # after the clear: a failed save stays on screen
        self._changed(events)

    def mark_flip(self) -> None:
        """Scorekeeper: the card being waited for was flipped (no click on it needed)."""
        s = self.session
        if s is None or not s.config.scorekeeper or not isinstance(s.state.pending, AwaitFlip):
            return                        # people at the screen flip their own cards (timed)
        p = s.state.pending
        events = s.mark_flip()
        self.table.highlights[(p.seat, p.no)] = FLIP_COLOUR
        self._changed(events)

    def _record_reaction(self, seat: int) -> None:
        """Keep a person's flip time in the statistics, as Match mode does (kind 'mubeyama')."""
        rts = self.session.reactions[seat]
        if not rts or rts[-1].no != self.session.current:
            return
        from trainer.stats.store import Trial
        try:
            self.store.record(Trial(kind="mubeyama", card=rts[-1].no, correct=True,
                                     reaction_ms=float(rts[-1].ms), answer=seat_name(seat),
                                     voice=self.settings.get(S.VOICE)))
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a game
            self.notice.setText(tr("mubeyama.stats_failed", error=str(exc)))

    def _show_reaction(self, seat: int) -> None:
        rts = self.session.reactions[seat]
        if rts and rts[-1].no == self.session.current:
            ms = rts[-1].ms
            sign = f"+{ms}" if ms >= 0 else f"\u2212{-ms}"
            self._last_reaction = f"{seat_name(seat)}  {sign} ms"
            self.reaction.setText(self._last_reaction)
            self.reaction.setStyleSheet(f"color: {'#1f5fbf' if ms >= 0 else '#c0392b'};")

    # -- drawing ---------------------------------------------------------------------------------------
    def refresh(self, events: list[Event] = ()) -> None:
        s = self.session
        if s is None:
            return
        view = s.view(self.viewer)
        t = self.table
        t.titles = [f"{seat_name(k)}　{tr('mubeyama.cpu') if s.is_cpu(k) else tr('mubeyama.player')}"
                    for k in range(s.players)]
        t.lines = [self._seat_line(k, view) for k in range(s.players)]
        t.active_seat = self._active_seat()
        t.set_view(view, list(events))
        self.banner.setText(self._waiting_text())
        self._show_yomifuda()
        self._show_reactions()
        self._show_ledger(view)
        self._show_log(s.view(None) if self.viewer is not None else view)   # a shared screen: public lines only

    def _seat_line(self, seat: int, view) -> str:
        s = self.session
        tv = view.tables[seat]
        parts = [tr("mubeyama.face_up", n=tv.face_up)]
        if s.config.gambling:
            parts.append(tr("mubeyama.mon", n=f"{tv.balance:+d}"))
        rts = s.reactions[seat]
        if rts:
            parts.append(tr("mubeyama.rt_last", ms=f"{rts[-1].ms:+d}"))
            parts.append(tr("mubeyama.rt_mean", ms=s.mean_reaction(seat), n=len(rts)))
        return "　".join(parts)

    def _active_seat(self) -> int | None:
        s = self.session
        p = s.state.pending
        if isinstance(p, AwaitPass):
            return p.giver
        if isinstance(p, AwaitFlip) and (s.config.scorekeeper or s.hinted or s.is_cpu(p.seat)):
            return p.seat
        return None

    def _waiting_text(self) -> str:
        s = self.session
        p = s.state.pending
        if s.state.is_over():
            return tr("mubeyama.wait.over")
        if isinstance(p, AwaitRead):
            if not s.state.read:
                return tr("mubeyama.preparing") if self.driver.state != "idle" else tr("mubeyama.not_started")
            last = s.state.read[-1]
            if s.state.where.get(last) is None:
                return tr("mubeyama.not_in_play", no=last)
            return tr("mubeyama.wait.read")
        if isinstance(p, AwaitPass):
            return tr("mubeyama.wait.pass", giver=seat_name(p.giver), count=p.count, to=seat_name(p.to))
        named = s.config.scorekeeper or s.hinted
        if not named:
            return tr("mubeyama.wait.flip_someone", kami=kami_words(p.no))
        hidden_read = not any(slot.no == p.no for row in s.view(None).tables[p.seat].rows for slot in row)
        key = "mubeyama.wait.reveal" if hidden_read else "mubeyama.wait.flip"
        return tr(key, seat=seat_name(p.seat), kami=kami_words(p.no))

    def _show_yomifuda(self) -> None:
        s = self.session
        no = s.current
        if no is None:
            self.yomifuda.setText(f"<b>{tr('mubeyama.reading')}</b><br>{tr('mubeyama.not_started')}")
            return
        poem = poems.get(no)
        flipped = not (isinstance(s.state.pending, AwaitFlip) and s.state.pending.no == no)
        count = tr('mubeyama.read_n', n=len(s.state.read))
        head = f"<b>#{no}</b>　{poem.poet}　<span style='color:#777'>{count}</span>"
        if flipped or (self.settings.get(S.SHOW_POEM) and s.kimariji_time is not None):
            body = (f"<div style='font-size:19px'>{' '.join(poem.kami)}</div>"
                    f"<div style='font-size:19px; margin-left:1.5em'>{' '.join(poem.shimo)}</div>"
                    f"<div style='color:#888; font-size:13px'>{' '.join(poem.kami_romaji)} / "
                    f"{' '.join(poem.shimo_romaji)}</div>"
                    f"<div style='color:#b3261e; font-size:14px'>{self._kimariji_note(poem)}</div>")
        else:
            body = "<div style='font-size:20px'>…</div>"
        self.yomifuda.setText(f"{head}<br>{body}")

    def _kimariji_note(self, poem) -> str:
        """'kimariji あさぼ (was あさぼらけう)' once cards read have shortened it."""
        # Over all 100 (the session's `kimariji`): every yomifuda is read, karafuda too.
        now, was = changed_note(poem.no, self.session.kimariji)
        if was is None:
            return tr("mubeyama.kimariji_now", now=now)
        return tr("mubeyama.kimariji_was", now=now, was=was)

    def _show_progress(self) -> None:
        """How far the current card's reading has got (kami-no-ku start to shimo-no-ku end)."""
        s = self.session
        if s is None or s.current is None or self.pages.currentIndex() != PLAY:
            return
        index = s.order.index(s.current)
        start, shimo, end = (self._mark(index, n) for n in ("kami_start", "shimo_start", "shimo_end"))
        now = self.clock.now()
        if self.driver.state == "paused":
            text = tr("mubeyama.phase.paused")
        elif end is not None and now >= end and not isinstance(s.state.pending, AwaitRead):
            text = tr("mubeyama.phase.held")
        elif shimo is not None and now >= shimo:
            text = tr("mubeyama.phase.shimo")
        else:
            text = tr("mubeyama.phase.kami")
        self.phase.setText(text)
        if start is not None and end is not None and end > start:
            self.progress.setValue(int(1000 * min(1.0, max(0.0, (now - start) / (end - start)))))
        elif end is not None and now >= end:
            self.progress.setValue(1000)

    def _mark(self, index: int, name: str) -> float | None:
        try:
            return self.driver.mark_time(index, name)
        except (KeyError, AttributeError, RuntimeError):
            return None

    def _show_reactions(self) -> None:
        s = self.session
        lines = []
        for seat in range(s.players):
            rts = s.reactions[seat]
            if rts:
                recent = "  ".join(f"{r.ms:+d}{'*' if r.hinted else ''}" for r in rts[-6:])
                lines.append(f"<b>{seat_name(seat)}</b> {tr('mubeyama.rt_mean', ms=s.mean_reaction(seat), n=len(rts))}"
                             f"<br><span style='color:#555'>{recent}</span>")
        self.reactions.setText("<br>".join(lines) or "—")

    def _show_ledger(self, view) -> None:
        for pay in view.ledger[self.ledger.count():]:
            self.ledger.addItem(ledger_line(pay))
        self.ledger.scrollToBottom()

    def _show_log(self, view) -> None:
        self.log.add_lines([event_line(e, view.log) for e in view.log[self._logged:]])
        self._logged = len(view.log)

    # -- the end ----------------------------------------------------------------------------------------
    def finish(self) -> None:
        self._holding = False
        self.driver.stop()
        self._progress_timer.stop()
        self.result.show_result(self)
        self.pages.setCurrentIndex(RESULT)

    def to_setup(self) -> None:
        self.driver.stop()
        self._progress_timer.stop()
        self._token += 1
        self.session = None
        self.pages.setCurrentIndex(SETUP)

    def ask_to_stop(self) -> None:
        """Esc or the button: a game in progress is only dropped if the players say so."""
        s = self.session
        if s is not None and not s.state.is_over() and s.state.read:
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
        if name in ("pause", "stop", "repeat"):
            return page == PLAY and self.session is not None
        return False

    def command(self, name: str) -> None:
        if not self.available(name):
            return
        if name == "start":
            self.setup._start_clicked()
        elif name == "pause":
            if self.driver.state == "paused":
                self.driver.resume()
                if self.session is not None and not isinstance(self.session.state.pending, AwaitRead):
                    self.driver.hold_before_next_card()   # still waiting for the flip
            else:
                self.driver.pause()
        elif name == "repeat":
            self.driver.repeat_shimo()
        elif name == "stop":
            self.ask_to_stop()

    def shutdown(self) -> None:
        self._progress_timer.stop()
        self.driver.stop()


class ResultPage(QWidget):
    """Who won and why, each seat's cards, Mon and reaction times, the ledger, the final table."""

    def __init__(self, panel: MubeyamaPanel):
        super().__init__(panel)
        self.panel = panel
        self.title = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(38)
        f.setBold(True)
        self.title.setFont(f)
        self.verdict = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.verdict.setStyleSheet("font-size: 28px; color: #1f5fbf;")
        self.why = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.why.setStyleSheet("font-size: 17px; color: #333;")
        self.scores = QTableWidget(0, 6)
        self.scores.verticalHeader().setVisible(False)
        self.scores.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.scores.setMaximumHeight(230)
        self.ledger = QListWidget()
        self.final = TableWidget()
        self.final.setMinimumSize(480, 320)
        self.again = QPushButton(clicked=panel.play_again)
        self.back = QPushButton(clicked=panel.to_setup)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.again)
        buttons.addWidget(self.back)
        buttons.addStretch(1)
        left = QVBoxLayout()
        left.addWidget(self.scores)
        left.addWidget(self.ledger, 1)
        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addWidget(self.final, 3)
        v = QVBoxLayout(self)
        v.addWidget(self.title)
        v.addWidget(self.verdict)
        v.addWidget(self.why)
        v.addLayout(body, 1)
        v.addLayout(buttons)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(tr("mubeyama.result"))
        self.again.setText(tr("mubeyama.again"))
        self.back.setText(tr("mubeyama.to_setup"))
        self.scores.setHorizontalHeaderLabels([tr(f"mubeyama.col.{c}") for c in
                                               ("seat", "kind", "up", "mon", "rt", "flips")])

    def show_result(self, panel: MubeyamaPanel) -> None:
        s = panel.session
        view = s.view(None)
        winners = "・".join(seat_name(w) for w in view.winners)
        self.verdict.setText(tr("mubeyama.winner", seats=winners))
        self.why.setText(tr("mubeyama.why", why=win_words(s.win_reason(), view.log), n=len(view.read)))
        self.scores.setRowCount(s.players)
        for seat in range(s.players):
            mean = s.mean_reaction(seat)
            cells = [seat_name(seat) + (" ★" if seat in view.winners else ""),
                     tr("mubeyama.cpu") if s.is_cpu(seat) else tr("mubeyama.player"),
                     str(view.tables[seat].face_up),
                     f"{view.tables[seat].balance:+d}" if s.config.gambling else "—",
                     f"{mean:+d} ms ({len(s.reactions[seat])})" if mean is not None else "—",
                     str(s.flips(seat))]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.scores.setItem(seat, c, item)
        self.ledger.clear()
        self.ledger.setVisible(s.config.gambling)
        for k in range(panel.ledger.count()):
            self.ledger.addItem(panel.ledger.item(k).text())
        t = self.final
        t.titles = list(panel.table.titles)
        t.lines = [panel._seat_line(k, view) for k in range(s.players)]
        t.set_view(view)
