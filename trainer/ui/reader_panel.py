"""Reader mode: the app reads for players on a real floor.

A large count ("12 / 100"), optionally the poem being read, the cards read so
far, and a live panel of dynamic kimariji for beginners.  The controls are the
reader's: start, pause/resume, wait (待った: hold before the card's
shimo-no-ku, or before the next kami-no-ku once the shimo-no-ku has begun, until
released, while players put scattered cards back), repeat the last
shimo-no-ku, skip, stop.  The session is saved after every card
(`trainer.reader.session`), so it survives a pause of any length and a restart.

For club practice on a real floor: karafuda from outside a chosen set, the
むすめふさほせ study order, shimo-no-ku only (下の句かるた), a memorisation
period (暗記時間, 15 minutes by default, with spoken notices and a large
countdown that runs on the reading's own clock, so a pause stops it), and
"read again in the same order" for the post-game review (感想戦).
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel,
                               QLineEdit, QListWidget, QMessageBox, QPushButton, QRadioButton,
                               QSizePolicy, QSpinBox, QSplitter, QTextBrowser, QVBoxLayout, QWidget)

import poems
from audio.clock import SYSTEM, Clock
from trainer.ui import settings as S
from trainer.ui.i18n import add_messages
from trainer.reader.session import ORDERS
from trainer.text.refusals import describe_refusal
from trainer.ui.i18n import LANG, tr
from trainer.ui.kimariji_text import current_text, shown
from trainer.reader.session import (ReaderSession, ReadingTiming, clear_session, format_card_set,
                                       parse_card_set, read_session)

COMMANDS = ("start", "pause", "wait", "repeat", "skip", "stop")
MEMORISE_DEFAULT = 15      # minutes: the 暗記時間 of an official match
NOTICE_AT = 120.0          # seconds left when "two minutes left" is said (audio.programme.NOTICE_BEFORE)

# id: (日本語, English)
TEXT: dict[str, tuple[str, str]] = {
    "reader.karafuda": ("空札", "Karafuda"),
    "reader.karafuda_tip": ("場にない札をこの枚数だけ混ぜて読みます（お手つきの練習）",
                            "Also read this many cards that are not on the floor (practise not faulting)"),
    "reader.order": ("読む順", "Order"),
    "reader.order.random": ("ランダム", "Random"),
    "reader.order.musumefusahose": ("むすめふさほせ順（学習用）", "むすめふさほせ (study order)"),
    "reader.shimo_only": ("下の句のみ（下の句かるた）", "Shimo-no-ku only (Hokkaido)"),
    "reader.memorise": ("暗記時間（分）", "Memorisation (min)"),
    "reader.replay": ("同じ順でもう一度読む", "Read again in the same order"),
    "reader.memorising": ("暗記時間", "Memorisation"),
    "reader.notice.two_minutes": ("暗記時間、残り二分です", "Two minutes of memorisation left"),
    "reader.notice.start": ("競技を始めます", "The match begins"),
    "reader.karafuda_mark": ("空札", "karafuda"),
    "reader.replaying": ("同じ順で読み直します（感想戦）", "Reading again in the same order (review)"),
    "reader.shimo_only_kept": ("「下の句のみ」は新しい読みから変わります（この読みは{kind}のまま続けます）",
                               "Shimo-no-ku only changes with a new reading; this one goes on as it "
                               "began ({kind})"),
    "reader.kind.shimo_only": ("下の句のみ", "shimo-no-ku only"),
    "reader.kind.both": ("上の句と下の句", "both verses"),
    "reader.preparing": ("読みの声を用意しています…", "Preparing the reader's voice…"),
}
add_messages(TEXT)


class ReaderPanel(QWidget):
    """Reader mode.  ``driver`` is a `trainer.ui.reading.ReadingDriver` (or a test double)."""

    status_message = Signal(str)

    def __init__(self, settings: S.Settings, driver, parent=None, clock: Clock = SYSTEM):
        super().__init__(parent)
        self.settings = settings
        self.driver = driver
        self.clock = clock
        self.session: ReaderSession | None
        self.session, self.startup_notice = read_session()   # a damaged file is ignored, said why
        if self.startup_notice:
            import sys
            print(f"karuta: {self.startup_notice}", file=sys.stderr)
        self.current: int | None = None       # poem being read (0 = joka)
        self.revealed = False                 # the poem is shown once its kimariji has sounded
        self.reading = False
        self.paused = False
        self.held = False
        self.memorise_left: float | None = None   # seconds, while the memorisation period runs
        self.preparing = False                # the reading waits for clips still being made
        self._build()
        if self.session is not None:
            self._show_session_controls(self.session)   # a restart shows how the reading was made
        driver.card_started.connect(self._on_card_started)
        driver.kimariji.connect(self._on_kimariji)
        driver.card_finished.connect(self._on_card_finished)
        driver.finished.connect(self._on_finished)
        driver.state_changed.connect(self._on_state)
        driver.error.connect(self._on_error)
        if hasattr(driver, "preparing"):          # a test double may not say it
            driver.preparing.connect(self._on_preparing)
        self._tick = QTimer(self, interval=200)   # the countdown reads the reading's clock
        self._tick.timeout.connect(self._update_countdown)
        LANG.changed.connect(self.retranslate)
        self.retranslate()
        self._refresh()

    # -- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.count = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        big = QFont()
        big.setPixelSize(96)
        big.setBold(True)
        self.count.setFont(big)
        self.status = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.status.setStyleSheet("color: #8a3b12; font-size: 20px;")
        self.poem_view = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.poem_view.setWordWrap(True)
        self.poem_view.setStyleSheet("font-size: 28px;")
        self.poem_view.setFont(QFont("Noto Serif CJK JP"))

        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name in COMMANDS:
            b = QPushButton()
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # space is the pause key, never a button press
            b.setMinimumHeight(44)
            b.clicked.connect(lambda _=False, n=name: self.command(n))
            self.buttons[name] = b
            row.addWidget(b)

        self.set_all = QRadioButton()
        self.set_given = QRadioButton()
        group = QButtonGroup(self)
        group.addButton(self.set_all)
        group.addButton(self.set_given)
        self.set_all.setChecked(True)
        self.set_text = QLineEdit()
        self._letters_pass = LettersToWindow(self.set_text)
        self.set_given.toggled.connect(self.set_text.setEnabled)
        self.set_text.setEnabled(False)
        self.new_button = QPushButton()
        self.new_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.new_button.clicked.connect(self.new_session)
        self.set_label = QLabel()
        setrow = QGridLayout()
        setrow.addWidget(self.set_label, 0, 0)
        setrow.addWidget(self.set_all, 0, 1)
        setrow.addWidget(self.set_given, 0, 2)
        setrow.addWidget(self.set_text, 0, 3)
        setrow.addWidget(self.new_button, 0, 4)
        setrow.setColumnStretch(3, 1)

        # Club practice: karafuda, study order, shimo-no-ku only, memorisation, replay.
        self.karafuda_label = QLabel()
        self.karafuda = QSpinBox(minimum=0, maximum=99)
        self.order_label = QLabel()
        self.order = QComboBox()
        self.order.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)   # texts come later
        self.order.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # "む", not "むすめ…"
        for name in ORDERS:
            self.order.addItem("", name)
        self.shimo_only = QCheckBox()
        self.memorise = QCheckBox()
        self.memorise_min = QSpinBox(minimum=1, maximum=60, value=MEMORISE_DEFAULT)
        self.memorise.toggled.connect(self.memorise_min.setEnabled)
        self.memorise_min.setEnabled(False)
        self.replay_button = QPushButton()
        self.replay_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.replay_button.clicked.connect(self.replay)
        self.set_given.toggled.connect(self.karafuda.setEnabled)
        self.karafuda.setEnabled(False)         # karafuda lie outside a chosen set
        # Two rows: on one, the controls and the replay button are wider than a 1024-px screen.
        clubrow = QHBoxLayout()
        for w in (self.karafuda_label, self.karafuda, self.order_label, self.order, self.shimo_only):
            clubrow.addWidget(w)
        clubrow.addStretch(1)
        memorise_row = QHBoxLayout()
        for w in (self.memorise, self.memorise_min):
            memorise_row.addWidget(w)
        memorise_row.addStretch(1)
        memorise_row.addWidget(self.replay_button)

        self.countdown = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        huge = QFont()
        huge.setPixelSize(120)
        huge.setBold(True)
        self.countdown.setFont(huge)
        self.countdown.setVisible(False)

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addStretch(1)
        lv.addWidget(self.count)
        lv.addWidget(self.countdown)
        lv.addWidget(self.status)
        lv.addWidget(self.poem_view, 2)
        lv.addStretch(1)
        lv.addLayout(row)
        lv.addLayout(setrow)
        lv.addLayout(clubrow)
        lv.addLayout(memorise_row)

        self.read_title = QLabel()
        self.read_list = QListWidget()
        self.read_list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.dyn_title = QLabel()
        self.dynamic = QTextBrowser()
        self.dynamic.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.addWidget(self.read_title)
        rv.addWidget(self.read_list, 1)
        rv.addWidget(self.dyn_title)
        rv.addWidget(self.dynamic, 1)

        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(split)

    def retranslate(self, *_):
        labels = {"start": "action.start", "pause": "action.pause", "wait": "action.wait",
                  "repeat": "action.repeat", "skip": "action.skip", "stop": "action.stop"}
        keys = {"start": "Enter", "pause": "Space", "wait": "W", "repeat": "R", "skip": "N / →", "stop": "Esc"}
        for name, b in self.buttons.items():
            text = tr(labels[name])
            if name == "wait" and self.held:
                text = tr("action.release")
            b.setText(text.split("（")[0].split(" (")[0])
            b.setToolTip(f"{text}  [{keys[name]}]")
        self.set_label.setText(tr("reader.set"))
        self.set_all.setText(tr("reader.set_all"))
        self.set_given.setText(tr("reader.set_given"))
        self.set_text.setPlaceholderText(tr("reader.set_hint"))
        self.new_button.setText(tr("action.new_session"))
        self.karafuda_label.setText(tr("reader.karafuda"))
        self.karafuda.setToolTip(tr("reader.karafuda_tip"))
        self.order_label.setText(tr("reader.order"))
        for k in range(self.order.count()):
            self.order.setItemText(k, tr(f"reader.order.{self.order.itemData(k)}"))
        self.shimo_only.setText(tr("reader.shimo_only"))
        self.memorise.setText(tr("reader.memorise"))
        self.replay_button.setText(tr("reader.replay"))
        self.read_title.setText(tr("reader.read_list"))
        self.dyn_title.setText(tr("reader.dynamic"))
        self.read_list.clear()            # its 〔karafuda〕 marks are worded too
        self._refresh()

    # -- commands (buttons, menu actions and shortcuts all come here) --------------------------
    def available(self, name: str) -> bool:
        if name == "start":
            return not self.reading
        if name == "repeat" and self.session is not None and self.session.timing.shimo_only:
            return False     # shimo-no-ku only: each card is one verse, nothing to repeat after it
        return self.reading

    def command(self, name: str) -> None:
        if not self.available(name):
            return
        if name == "start":
            self.start()
        elif name == "pause":
            if self.paused:
                self.driver.resume()
            else:
                self.driver.pause()
        elif name == "wait":
            if self.held:
                self.driver.release()
            else:
                self.driver.hold()
        elif name == "repeat":
            self.driver.repeat_shimo()
        elif name == "skip":
            self.driver.skip()
        elif name == "stop":
            self.driver.stop()
            self._tick.stop()
            self.memorise_left = None
            self.reading = self.paused = self.held = False
            self.current = None
        self._refresh()

    def _show_session_controls(self, s: ReaderSession) -> None:
        """Set the controls to what made session `s`: its card set, karafuda, order, shimo-no-ku
        only, memorisation (a restored session otherwise showed the defaults)."""
        chosen = sorted(set(s.order) - set(s.karafuda))
        if chosen == list(range(1, 101)):
            self.set_all.setChecked(True)
        else:
            self.set_given.setChecked(True)
            self.set_text.setText(format_card_set(chosen))
        self.karafuda.setValue(len(s.karafuda))
        k = self.order.findData(s.order_name)
        if k >= 0:
            self.order.setCurrentIndex(k)
        self.shimo_only.setChecked(s.timing.shimo_only)
        self.memorise.setChecked(s.timing.memorise > 0)
        if s.timing.memorise > 0:
            self.memorise_min.setValue(round(s.timing.memorise))

    def timing(self) -> ReadingTiming:
        g = self.settings.get
        return ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=g(S.JOKA),
                             joka_gap=g(S.JOKA_GAP), own_pauses=g(S.OWN_PAUSES),
                             shimo_only=self.shimo_only.isChecked(),
                             memorise=float(self.memorise_min.value()) if self.memorise.isChecked() else 0.0)

    def new_session(self) -> bool:
        """Discard the saved session and make a new one from the card-set choice."""
        return self._fresh_session() is not None

    def _fresh_session(self) -> ReaderSession | None:
        """`new_session`'s work: the new session, or None when the choice was refused (said why)."""
        cards = None
        if self.set_given.isChecked():
            try:
                cards = parse_card_set(self.set_text.text())
            except ValueError as exc:
                QMessageBox.warning(self, tr("error.title"), tr("error.bad_numbers", text=str(exc)))
                return None       # str(exc) is the part of the user's own text that is no number
        try:
            session = ReaderSession.new(cards, timing=self.timing(), karafuda=self.karafuda.value()
                                        if cards else 0, order=self.order.currentData())
        except ValueError as exc:          # more karafuda than poems outside the set (an IllegalAction)
            QMessageBox.warning(self, tr("error.title"), describe_refusal(exc))
            return None
        if self.reading:
            self.command("stop")
        clear_session()
        self.session = session
        session.save()
        self.read_list.clear()
        self._refresh()
        return session

    def can_replay(self) -> bool:
        return not self.reading and self.session is not None and self.session.read > 0

    def replay(self) -> None:
        """Read the last reading again from its start, in the same order (感想戦)."""
        last = self.session
        if last is None or not self.can_replay():
            return
        self.session = last.replayed()
        self.session.save()
        self.read_list.clear()
        self.start(memorise=False)            # a review needs no second memorisation period
        self.status_message.emit(tr("reader.replaying"))

    def start(self, memorise: bool = True) -> None:
        """Start or continue. The first time, the synthesised voice is made while it reads:
        the driver starts once the joka (or the first card) is made (issue 25).
        The memorisation period (if chosen) comes only before a session's first card."""
        voices = getattr(self.driver, "voices", None)
        s = self.session
        if s is None or s.finished:
            s = self._fresh_session()
            if s is None:
                return
        fresh = not s.joka_done and s.read == 0
        timing = self.timing()            # settings changed between runs apply from the next card on
        if not fresh and timing.shimo_only != s.timing.shimo_only:
            # ... but not the kind of reading: a resumed one became a mix of both kinds.
            kind = tr("reader.kind.shimo_only" if s.timing.shimo_only else "reader.kind.both")
            timing = replace(timing, shimo_only=s.timing.shimo_only)
            self.shimo_only.setChecked(s.timing.shimo_only)
            self.status_message.emit(tr("reader.shimo_only_kept", kind=kind))
        s.timing = timing
        s.save()
        have = self._poems_of_the_voice(voices, s.timing.voice)
        joka = s.timing.joka and fresh and (have is None or 0 in have)
        timing = s.timing if fresh and memorise else replace(s.timing, memorise=0.0)
        self.reading = True
        self.paused = self.held = False
        self.driver.start(s.order[s.read:], timing=timing, joka=joka)
        if timing.memorise:
            self._tick.start()
        self._refresh()

    def _poems_of_the_voice(self, voices, name: str) -> frozenset[int] | None:
        """What the chosen voice can read, with the session cut to it: a partly imported
        voice reads the poems it has (as `karuta read` does), the others are left out of
        the session, said once in the status bar. None when the voice cannot tell."""
        try:
            have = voices.voice(name).available() if voices is not None else None
        except Exception:   # noqa: BLE001 - the reading itself will say what is wrong
            return None
        s = self.session
        if not have or s is None:
            return None     # nothing at all: the reading's own error says why
        left = s.order[s.read:]
        missing = sorted(c for c in left if c not in have)
        if missing and len(missing) < len(left):
            s.order = s.order[:s.read] + [c for c in left if c in have]
            s.karafuda = [c for c in s.karafuda if c in s.order]
            s.save()
            self.status_message.emit(tr("reader.voice_partial", voice=name,
                                        poems=", ".join(map(str, missing)), n=len(left) - len(missing)))
        return have

    # -- events from the driver (GUI thread) ------------------------------------------------
    def _on_preparing(self, waiting: bool) -> None:
        self.preparing = waiting
        self._refresh()

    def _on_card_started(self, no: int) -> None:
        self.memorise_left = None
        self.current = no
        self.revealed = no == 0
        self._refresh()

    def _on_kimariji(self, index: int, no: int, when: float) -> None:
        """Show the poem when its kimariji is heard, not before: a screen must not beat the ear."""
        from PySide6.QtCore import QTimer

        def reveal():
            if self.current == no:
                self.revealed = True
                self._show_poem()
        QTimer.singleShot(max(0, round((when - self.clock.now()) * 1000)), reveal)

    def _on_card_finished(self, no: int) -> None:
        s = self.session
        if s is None:
            return
        if no == 0:
            s.joka_done = True
        elif s.next_card == no:
            s.mark_read(no)
        s.save()
        self._refresh()

    def _on_finished(self) -> None:
        self._tick.stop()
        self.memorise_left = None
        self.reading = self.paused = self.held = False
        self.current = None
        self._refresh()

    def _on_error(self, message: str) -> None:
        self._tick.stop()
        self.memorise_left = None
        self.reading = self.paused = self.held = False
        self.current = None
        self._refresh()
        if message != getattr(self.driver, "interrupted_by", None):
            QMessageBox.warning(self, tr("error.title"), message)
        # else: another mode took the player after the person said yes; the status bar says so

    def _on_state(self, state: str) -> None:
        self.paused = state == "paused"
        self.held = state == "held"
        self.retranslate()

    def _update_countdown(self) -> None:
        """Ask the driver how much of the memorisation period is left (its clock, not ours)."""
        ask = getattr(self.driver, "memorise_left", None)
        left = ask() if ask is not None else None
        self.memorise_left = left
        if left is None and self.current is not None:
            self._tick.stop()
        self._refresh()

    def memorise_notice(self) -> str:
        """The words of the notice due now (shown on screen, for voices that only sound a tone)."""
        left = self.memorise_left
        if left is None:
            return ""
        if left <= 1.5:
            return tr("reader.notice.start")
        if left <= NOTICE_AT:
            return tr("reader.notice.two_minutes")
        return tr("reader.memorising")

    # -- display -----------------------------------------------------------------------------
    def _refresh(self) -> None:
        s = self.session
        total = s.total if s else 100
        done = s.read if s else 0
        in_progress = self.current not in (None, 0)
        shown = done + (1 if in_progress else 0)
        self.count.setText(tr("reader.count", n=shown, total=total))
        if self.held:
            status = tr(f"reader.held.{getattr(self.driver, 'held_before', 'kami')}")
        elif self.paused:
            status = tr("reader.paused")
        elif s is not None and s.finished:
            status = tr("reader.finished")
        elif not self.reading and s is not None and s.read > 0:
            status = tr("reader.resumed", n=s.read + 1)
        elif not self.reading:
            status = tr("reader.ready")
        elif self.preparing:
            status = tr("reader.preparing")
        elif self.memorise_left is not None:
            status = self.memorise_notice()
        elif self.current == 0:
            status = tr("reader.joka")
        else:
            status = ""
        self.status.setText(status)
        self._show_poem()
        self._fill_read_list()
        self._show_dynamic()
        for name, b in self.buttons.items():
            b.setEnabled(self.available(name))
        self.replay_button.setEnabled(self.can_replay())
        left = self.memorise_left
        self.countdown.setVisible(left is not None)
        if left is not None:
            minutes, secs = divmod(int(left + 0.999), 60)   # 0:01 until the very end
            self.countdown.setText(f"{minutes}:{secs:02d}")

    def _show_poem(self) -> None:
        if not self.settings.get(S.SHOW_POEM) or self.current is None or not self.revealed:
            self.poem_view.setText("")
            return
        p = poems.JOKA if self.current == 0 else poems.get(self.current)
        head = "" if p.no == 0 else (f"<span style='font-size:18px;color:#666'>{p.no}　{p.poet}"
                                     f"{self._kimariji_of(p.no)}</span><br>")
        self.poem_view.setText(f"{head}{'　'.join(p.kami)}<br>{'　'.join(p.shimo)}")

    def _kimariji_of(self, no: int) -> str:
        """'　【あさぼ】' (the card's current kimariji in this reading) when kimariji are shown;
        in a shimo-no-ku only reading, the shimo-no-ku opening that decides it (what is heard)."""
        s = self.session
        if not self.settings.get(S.SHOW_KIMARIJI) or s is None or no not in s.order:
            return ""
        if s.timing.shimo_only:
            from audio.programme import shimo_kimariji
            done = set(s.read_cards) - {no}
            return f"　【{''.join(shimo_kimariji(no, [c for c in s.order if c not in done]))}】"
        return f"　【{current_text(poems.kimariji.current(no, s.read_cards, in_play=s.order))}】"

    def _fill_read_list(self) -> None:
        s = self.session
        cards = s.read_cards if s else []
        if self.read_list.count() > len(cards):
            self.read_list.clear()
        for k in range(self.read_list.count(), len(cards)):
            p = poems.get(cards[k])
            mark = f"  〔{tr('reader.karafuda_mark')}〕" if s is not None and s.is_karafuda(p.no) else ""
            self.read_list.addItem(f"{k + 1:>3}.  {p.kami[0]}…  {''.join(p.shimo_kana)[:7]}  ({p.no}){mark}")
        self.read_list.scrollToBottom()

    def _show_dynamic(self) -> None:
        if not self.settings.get(S.SHOW_KIMARIJI):
            self.dynamic.setHtml("")
            self.dynamic.setVisible(False)
            self.dyn_title.setVisible(False)
            return
        self.dynamic.setVisible(True)
        self.dyn_title.setVisible(True)
        if self.session is not None and self.session.timing.shimo_only:
            self._show_shimo_dynamic(self.session)
            return

        s = self.session
        read = s.read_cards if s else []
        # Over the cards of this reading only: in a chosen set ("1 5 22-30") no other poem
        # can be read, so it cannot keep a kimariji long (all 100: the set is all of them).
        in_play = s.order if s else None
        lengths = poems.kimariji.lengths(set(in_play or range(1, 101)) - set(read))
        now = {no: shown(no, n) for no, n in lengths.items()}
        # Cards whose kimariji got shorter first (what a player must re-learn), then the rest;
        # by length in historical kana, which the sound spelling does not keep (あふ → おう).
        changed = {no for no, n in lengths.items() if n < poems.get(no).kimariji_len}
        cells = []
        for no, kima in sorted(now.items(), key=lambda kv: (kv[0] not in changed, kv[1], kv[0])):
            style = "color:#b3261e;font-weight:bold" if no in changed else "color:#222"
            cells.append(f"<td><span style='{style}'>{kima}</span>"
                         f"<span style='color:#999;font-size:10px'>{no}</span></td>")
        per_row = 3
        rows = ["<tr>" + "".join(cells[k:k + per_row]) + "</tr>" for k in range(0, len(cells), per_row)]
        self.dynamic.setHtml("<table cellspacing='0' cellpadding='2' style='font-size:15px'>"
                             + "".join(rows) + "</table>")

    def _show_shimo_dynamic(self, s: ReaderSession) -> None:
        """Shimo-no-ku only: each unread card's shimo-no-ku opening that decides it among the
        cards still to be read (audio.programme.shimo_kimariji); those that got shorter first."""
        from audio.programme import shimo_kimariji
        unread = s.order[s.read:]
        now = {no: "".join(shimo_kimariji(no, unread)) for no in unread}
        changed = {no for no, kima in now.items() if len(kima) < len(shimo_kimariji(no, s.order))}
        cells = []
        for no, kima in sorted(now.items(), key=lambda kv: (kv[0] not in changed, kv[1], kv[0])):
            style = "color:#b3261e;font-weight:bold" if no in changed else "color:#222"
            cells.append(f"<td><span style='{style}'>{kima}</span>"
                         f"<span style='color:#999;font-size:10px'>{no}</span></td>")
        rows = ["<tr>" + "".join(cells[k:k + 3]) + "</tr>" for k in range(0, len(cells), 3)]
        self.dynamic.setHtml("<table cellspacing='0' cellpadding='2' style='font-size:15px'>"
                             + "".join(rows) + "</table>")


class LettersToWindow(QObject):
    """A card-set field ("1 5, 22-30") holds digits, spaces, commas and hyphens only, so a
    letter typed there is meant for the window: W (wait), R, N, K, P keep working while the
    field has the focus. Space stays the field's (it separates numbers)."""

    def __init__(self, field):
        super().__init__(field)
        field.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and \
                Qt.Key.Key_A.value <= event.key() <= Qt.Key.Key_Z.value and \
                not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
            event.ignore()          # not the field's: the window's shortcut fires
            return True
        return False
