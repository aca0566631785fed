"""Reader mode: the app reads for players on a real floor.

A large count ("12 / 100"), optionally the poem being read, the cards read so
far, and a live panel of dynamic kimariji for beginners.  The controls are the
reader's: start, pause/resume, wait (待った: hold before the next kami-no-ku
until released, while players put scattered cards back), repeat the last
shimo-no-ku, skip, stop.  The session is saved after every card
(``reader_session``), so it survives a pause of any length and a restart.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QButtonGroup, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QMessageBox, QPushButton, QRadioButton, QSplitter,
                               QTextBrowser, QVBoxLayout, QWidget)

import poems
from audio.clock import SYSTEM, Clock
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr
from trainer.ui.kimariji_text import current_text, shown
from trainer.ui.reader_session import (ReaderSession, ReadingTiming, clear_session, read_session,
                                       parse_card_set)

COMMANDS = ("start", "pause", "wait", "repeat", "skip", "stop")


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
        self._build()
        driver.card_started.connect(self._on_card_started)
        driver.kimariji.connect(self._on_kimariji)
        driver.card_finished.connect(self._on_card_finished)
        driver.finished.connect(self._on_finished)
        driver.state_changed.connect(self._on_state)
        driver.error.connect(self._on_error)
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

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addStretch(1)
        lv.addWidget(self.count)
        lv.addWidget(self.status)
        lv.addWidget(self.poem_view, 2)
        lv.addStretch(1)
        lv.addLayout(row)
        lv.addLayout(setrow)

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
        self.read_title.setText(tr("reader.read_list"))
        self.dyn_title.setText(tr("reader.dynamic"))
        self._refresh()

    # -- commands (buttons, menu actions and shortcuts all come here) --------------------------
    def available(self, name: str) -> bool:
        if name == "start":
            return not self.reading
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
            self.reading = self.paused = self.held = False
            self.current = None
        self._refresh()

    def timing(self) -> ReadingTiming:
        g = self.settings.get
        return ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE), joka=g(S.JOKA))

    def new_session(self) -> bool:
        """Discard the saved session and make a new one from the card-set choice."""
        cards = None
        if self.set_given.isChecked():
            try:
                cards = parse_card_set(self.set_text.text())
            except ValueError as exc:
                QMessageBox.warning(self, tr("error.title"), tr("error.bad_numbers", text=str(exc)))
                return False
        if self.reading:
            self.command("stop")
        clear_session()
        self.session = ReaderSession.new(cards, timing=self.timing())
        self.session.save()
        self.read_list.clear()
        self._refresh()
        return True

    def start(self) -> None:
        """Start or continue; the first time, the synthesised voice is made first."""
        voices = getattr(self.driver, "voices", None)
        if voices is not None and voices.needs_synthesis():
            voices.ensure_ready(self.window(), then=self.start)
            return
        if self.session is None or self.session.finished:
            if not self.new_session():
                return
        s = self.session
        s.timing = self.timing()          # settings changed between runs apply from the next card on
        s.save()
        joka = s.timing.joka and not s.joka_done and s.read == 0
        self.reading = True
        self.paused = self.held = False
        self.driver.start(s.order[s.read:], timing=s.timing, joka=joka)
        self._refresh()

    # -- events from the driver (GUI thread) ------------------------------------------------
    def _on_card_started(self, no: int) -> None:
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
        self.reading = self.paused = self.held = False
        self.current = None
        self._refresh()

    def _on_error(self, message: str) -> None:
        self.reading = self.paused = self.held = False
        self.current = None
        self._refresh()
        QMessageBox.warning(self, tr("error.title"), message)

    def _on_state(self, state: str) -> None:
        self.paused = state == "paused"
        self.held = state == "held"
        self.retranslate()

    # -- display -----------------------------------------------------------------------------
    def _refresh(self) -> None:
        s = self.session
        total = s.total if s else 100
        done = s.read if s else 0
        in_progress = self.current not in (None, 0)
        shown = done + (1 if in_progress else 0)
        self.count.setText(tr("reader.count", n=shown, total=total))
        if self.held:
            status = tr("reader.held")
        elif self.paused:
            status = tr("reader.paused")
        elif s is not None and s.finished:
            status = tr("reader.finished")
        elif not self.reading and s is not None and s.read > 0:
            status = tr("reader.resumed", n=s.read + 1)
        elif not self.reading:
            status = tr("reader.ready")
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

    def _show_poem(self) -> None:
        if not self.settings.get(S.SHOW_POEM) or self.current is None or not self.revealed:
            self.poem_view.setText("")
            return
        p = poems.JOKA if self.current == 0 else poems.get(self.current)
        head = "" if p.no == 0 else (f"<span style='font-size:18px;color:#666'>{p.no}　{p.poet}"
                                     f"{self._kimariji_of(p.no)}</span><br>")
        self.poem_view.setText(f"{head}{'　'.join(p.kami)}<br>{'　'.join(p.shimo)}")

    def _kimariji_of(self, no: int) -> str:
        """'　【あさぼ】' (the card's current kimariji in this reading) when kimariji are shown."""
        s = self.session
        if not self.settings.get(S.SHOW_KIMARIJI) or s is None or no not in s.order:
            return ""
        return f"　【{current_text(poems.kimariji.current(no, s.read_cards, in_play=s.order))}】"

    def _fill_read_list(self) -> None:
        s = self.session
        cards = s.read_cards if s else []
        if self.read_list.count() > len(cards):
            self.read_list.clear()
        for k in range(self.read_list.count(), len(cards)):
            p = poems.get(cards[k])
            self.read_list.addItem(f"{k + 1:>3}.  {p.kami[0]}…  {''.join(p.shimo_kana)[:7]}  ({p.no})")
        self.read_list.scrollToBottom()

    def _show_dynamic(self) -> None:
        if not self.settings.get(S.SHOW_KIMARIJI):
            self.dynamic.setHtml("")
            self.dynamic.setVisible(False)
            self.dyn_title.setVisible(False)
            return
        self.dynamic.setVisible(True)
        self.dyn_title.setVisible(True)
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
