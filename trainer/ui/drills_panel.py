"""Drills mode: choose a drill and a card set, run it, every result into the statistics.

The chooser on the left builds a pure drill model (``trainer.drills``) over a
card set (``trainer.drills.card_sets``: all, by first sound, by kimariji
length, a confusable group, the weakest N from the statistics, cards due by
FSRS, hand-picked). The screen for that drill (``drills_screens``) runs it.
Each run is one session of the statistics store, written through
``SessionRecorder``: one committed trial per result, on the GUI thread (a
write is one short transaction, after the touch has been stamped, so it never
delays a stamp). Poems are read aloud through this panel's own
``ReadingDriver`` on the shared player, or shown as text when reading aloud
is off (``drills_reading``).
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPushButton, QSpinBox, QStackedWidget, QVBoxLayout,
                               QWidget)

from audio.clock import SYSTEM

import trainer.text.drills  # noqa: F401  (registers the strings)
from trainer.drills import card_sets
from trainer.drills.common import DrillError
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr
from trainer.ui.stats_store import UsesStatsStore

if TYPE_CHECKING:                  # the screens load with the first drill run
    from trainer.ui.drills_screens import DrillScreen

CHOOSER_W = 340           # the drill options column, while no drill runs
RUNNING_SLACK_PX = 40     # the chooser's margins and the gap between Start and Stop

DRILLS = ("fuda_nagashi", "kami_to_torifuda", "listening_reflex", "kimariji_henka", "positional")
SETS = ("all", "first", "length", "group", "weakest", "due", "pick")

DRILL_KEY = S.Key("drills/drill", "fuda_nagashi")
SET_KEY = S.Key("drills/set", "all")
SET_ARG_KEY = S.Key("drills/set_arg", "")
AUDIO_KEY = S.Key("drills/read_aloud", True)

# option name -> (message id, minimum, maximum, default, the drills that use it)
OPTIONS = {
    "choices": ("drill.choices", 2, 12, 6, {"kami_to_torifuda"}),
    "territory": ("drill.territory", 4, 12, 8, {"listening_reflex"}),
    "karafuda": ("drill.karafuda", 0, 24, 8, {"listening_reflex", "positional"}),
    "field": ("drill.field", 1, 12, 6, {"kimariji_henka", "positional"}),
    "memorise_s": ("drill.memorise_s", 0, 900, 30, {"positional"}),
    "rounds": ("drill.rounds", 1, 50, 10, {"kami_to_torifuda", "kimariji_henka"}),
}


class DrillsPanel(UsesStatsStore, QWidget):
    def __init__(self, settings: S.Settings | None = None, voices=None, store=None, *,
                 clock=SYSTEM, driver=None, reading_factory=None,
                 seed: int | None = None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.voices = voices
        self._store = store
        self.clock = clock
        self._driver = driver
        self.reading_factory = reading_factory
        self.seed = seed
        self.drill_screen: DrillScreen | None = None   # not `screen`: QWidget.screen() is Qt's
        self.recorder = None
        self._race_checks = None     # races read aloud, waiting to be asked about the sound
        self._build()
        self._restore()
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def showEvent(self, event):
        super().showEvent(event)
        self.announce_recovery()

    def announce_recovery(self) -> None:
        """A damaged database set aside at open: said once, here or in Statistics mode."""
        from trainer.stats.store import StatsError
        from trainer.ui.stats_store import take_recovery_message
        try:
            message = take_recovery_message(self.store)
        except (StatsError, OSError) as exc:
            message = tr("drill.store_error", err=exc)
        if message:
            self.message.setText(message)

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.drill_box = QComboBox()
        self.drill_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)   # texts come later
        for _ in DRILLS:
            self.drill_box.addItem("")
        self.drill_box.currentIndexChanged.connect(self._drill_changed)
        self.set_box = QComboBox()
        for _ in SETS:
            self.set_box.addItem("")
        self.set_box.currentIndexChanged.connect(self._set_changed)
        self.set_arg = QLineEdit()
        self.audio_box = QCheckBox()
        self.upside_box = QCheckBox()
        self.upside_box.setChecked(True)
        self.spins: dict[str, QSpinBox] = {}
        self.form = QFormLayout()
        self.form_labels: dict[str, QLabel] = {}
        for name, widget in (("drill.choose", self.drill_box), ("drill.set", self.set_box)):
            self.form_labels[name] = QLabel()
            self.form.addRow(self.form_labels[name], widget)
        self.form.addRow("", self.set_arg)
        for name, (msg, lo, hi, default, _) in OPTIONS.items():
            spin = QSpinBox(minimum=lo, maximum=hi, value=default)
            self.spins[name] = spin
            self.form_labels[msg] = QLabel()
            self.form.addRow(self.form_labels[msg], spin)
        self.form.addRow(self.upside_box)
        self.form.addRow(self.audio_box)
        self.start_button = QPushButton()
        self.start_button.clicked.connect(self.start)
        self.stop_button = QPushButton()
        self.stop_button.clicked.connect(self.stop)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b3261e;")
        self.options = QWidget()      # hidden while a drill runs: its room goes to the drill
        self.options.setLayout(self.form)
        self.form.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        left.addWidget(self.options)
        left.addLayout(buttons)
        left.addWidget(self.message)
        left.addStretch(1)
        self.chooser = QWidget()
        self.chooser.setLayout(left)
        self.chooser.setFixedWidth(CHOOSER_W)

        self.intro = QLabel()
        self.intro.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.intro.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.intro)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 6, 6, 6)
        row.addWidget(self.chooser)
        row.addWidget(self.stack, 1)

    def _restore(self) -> None:
        if self.settings is None:
            self.audio_box.setChecked(self.voices is not None)
            return
        g = self.settings.get
        if g(DRILL_KEY) in DRILLS:
            self.drill_box.setCurrentIndex(DRILLS.index(g(DRILL_KEY)))
        if g(SET_KEY) in SETS:
            self.set_box.setCurrentIndex(SETS.index(g(SET_KEY)))
        self.set_arg.setText(g(SET_ARG_KEY))
        self.audio_box.setChecked(g(AUDIO_KEY) and self.voices is not None)
        self._drill_changed()

    def _remember(self) -> None:
        if self.settings is not None:
            self.settings.set(DRILL_KEY, self.drill)
            self.settings.set(SET_KEY, SETS[self.set_box.currentIndex()])
            self.settings.set(SET_ARG_KEY, self.set_arg.text())
            self.settings.set(AUDIO_KEY, self.audio_box.isChecked())

    def retranslate(self, *_) -> None:
        for k, name in enumerate(DRILLS):
            self.drill_box.setItemText(k, tr(f"drill.{name}"))
        for k, name in enumerate(SETS):
            self.set_box.setItemText(k, tr(f"set.{name}"))
        for msg, label in self.form_labels.items():
            label.setText(tr(msg))
        self.audio_box.setText(tr("drill.audio"))
        self.upside_box.setText(tr("drill.upside"))
        self.start_button.setText(tr("drill.start"))
        self.stop_button.setText(tr("drill.stop"))
        self.intro.setText(tr("drill.intro"))
        self._set_changed()
        self._update_buttons()

    @property
    def drill(self) -> str:
        return DRILLS[self.drill_box.currentIndex()]

    def _drill_changed(self, *_) -> None:
        for name, (_msg, _lo, _hi, _d, used_by) in OPTIONS.items():
            self.form.setRowVisible(self.spins[name], self.drill in used_by)
        self.form.setRowVisible(self.upside_box, self.drill == "fuda_nagashi")
        self.form.setRowVisible(self.audio_box, self.drill in
                                ("kami_to_torifuda", "listening_reflex", "positional"))

    def _set_changed(self, *_) -> None:
        name = SETS[self.set_box.currentIndex()]
        self.set_arg.setPlaceholderText(tr(f"set.hint.{name}"))
        self.set_arg.setEnabled(name != "all")

    def _update_buttons(self) -> None:
        running = self.running
        self.start_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.drill_box.setEnabled(not running)
        self._fit_chooser(running)

    def _fit_chooser(self, running: bool) -> None:
        """A running drill gets the chooser's room but for Start/Stop: at 1024×700 the listening
        reflex's floor was 640 px wide beside it, its cards 38 px, and the one card with a
        six-kana column (21, ありあけの…) painted its kana at 7 px; without the options the
        floor is as large as the height allows and every kana is 9 px or more."""
        focus = QApplication.focusWidget()
        if running and focus is not None and self.options.isAncestorOf(focus):
            self.stop_button.setFocus()      # not left to Qt's hunt for a next widget in a hidden box
        self.options.setVisible(not running)
        buttons = self.start_button.sizeHint().width() + self.stop_button.sizeHint().width()
        self.chooser.setFixedWidth(buttons + RUNNING_SLACK_PX if running else CHOOSER_W)

    # -- choosing ------------------------------------------------------------------------------
    def card_set(self) -> card_sets.CardSet:
        """The cards chosen on the left; DrillError with a message for the player if not valid."""
        name = SETS[self.set_box.currentIndex()]
        arg = self.set_arg.text().strip()
        if name == "all":
            return card_sets.all_cards()
        if name == "first":
            return card_sets.by_first_sound(arg)
        if name == "length":
            return card_sets.from_spec(f"length:{arg}")
        if name == "group":
            return card_sets.group_of(int(arg)) if arg.isdigit() else card_sets.confusable_group(arg)
        if name == "weakest":
            return card_sets.weakest(self.store, _count(arg, 10))
        if name == "due":
            from trainer.stats.srs import Memorisation
            cards = Memorisation(self.store).queue(new_limit=_count(arg, 10), include_not_due=False)
            if not cards:
                raise DrillError(tr("set.no_due"))
            return card_sets.CardSet("due", tuple(cards))
        return card_sets.hand_picked(arg)

    def option(self, name: str) -> int:
        return self.spins[name].value()

    def make_model(self, cards, seed: int):
        from trainer.drills.fuda_nagashi import FudaNagashi
        from trainer.drills.kami_to_torifuda import KamiToTorifuda
        from trainer.drills.kimariji_henka import KimarijiHenka
        from trainer.drills.listening_reflex import ListeningReflex
        from trainer.drills.positional import PositionalMemory
        o, clock = self.option, self.clock
        cards = list(cards)
        if self.drill == "fuda_nagashi":
            return FudaNagashi(cards, clock=clock, seed=seed,
                               random_orientation=self.upside_box.isChecked())
        if self.drill == "kami_to_torifuda":
            return KamiToTorifuda(cards, clock=clock, seed=seed, n_choices=o("choices"),
                                  rounds=o("rounds"))
        if self.drill == "listening_reflex":
            return ListeningReflex(cards, clock=clock, seed=seed,
                                   territory_size=min(o("territory"), len(cards)) if len(cards) >= 4
                                   else o("territory"), karafuda=o("karafuda"))
        if self.drill == "kimariji_henka":
            return KimarijiHenka(cards, clock=clock, seed=seed, field_size=min(o("field"), len(cards)),
                                 rounds=o("rounds"))
        return PositionalMemory(cards, clock=clock, seed=seed, n_cards=min(o("field"), len(cards)),
                                memorise_s=o("memorise_s"), karafuda=o("karafuda"))

    def settings_json(self) -> dict:
        used = {n: self.option(n) for n, (*_, by) in OPTIONS.items() if self.drill in by}
        return {"set": SETS[self.set_box.currentIndex()], "set_arg": self.set_arg.text().strip(),
                "read_aloud": self.read_aloud, **used}

    @property
    def read_aloud(self) -> bool:
        return self.audio_box.isChecked() and self.voices is not None and \
            self.drill in ("kami_to_torifuda", "listening_reflex", "positional")

    def make_reading(self):
        from trainer.ui.drills_reading import AudioReading, TextReading
        if self.reading_factory is not None:
            return self.reading_factory(self.read_aloud)
        if not self.read_aloud:
            return TextReading(self.clock, parent=self)
        if self._driver is None:
            from trainer.ui.reading import ReadingDriver
            self._driver = ReadingDriver(self.voices, parent=self)
            self._driver.preparing.connect(self._preparing)
        return AudioReading(self._driver, self._timing(), parent=self)

    def _preparing(self, waiting: bool) -> None:
        """A synthesised voice not yet made is made while the drill reads, in reading
        order (issue 25: no progress dialog first); the drill says when it waits for it."""
        if waiting:
            self.message.setText(tr("drill.preparing"))
        elif self.message.text() == tr("drill.preparing"):
            self.message.setText("")

    def _timing(self):
        from trainer.reader.session import ReadingTiming
        g = self.settings.get if self.settings is not None else (lambda k: k.default)
        return ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE),
                             joka=False, own_pauses=g(S.OWN_PAUSES))

    # -- running -------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.drill_screen is not None and not self.drill_screen.finished

    def start(self) -> bool:
        """Build the chosen drill and show it; False (with a message) if it cannot start."""
        if self.running:
            return False
        import sqlite3

        from trainer.stats.store import StatsError
        self.message.setText("")
        try:
            cards = self.card_set()
            seed = self.seed if self.seed is not None else random.SystemRandom().randrange(2**31)
            model = self.make_model(cards, seed)
        except DrillError as exc:
            self.message.setText(tr("drill.error", err=exc))
            return False
        except (StatsError, OSError, sqlite3.Error) as exc:   # weakest/due need the store
            self.message.setText(tr("drill.store_error", err=exc))
            return False
        try:
            recorder = self._recorder(model.kind, seed)
        except (StatsError, OSError, sqlite3.Error) as exc:
            # A store that cannot be written (read-only folder, newer version, full
            # disk): the drill runs all the same, and says its results are not kept.
            recorder = None
            self.message.setText(tr("drill.store_error", err=exc))
        self._remember()
        self.recorder = recorder
        self._show(self._make_screen(model))
        return True

    def _recorder(self, kind: str, seed: int):
        from trainer.stats.recorder import SessionRecorder
        from trainer.stats.srs import Memorisation
        store = self.store
        voice = self._timing().voice if self.read_aloud else None
        return SessionRecorder(store, kind, voice=voice,
                               settings={**self.settings_json(), "seed": seed},
                               memorisation=Memorisation(store))

    def record(self, result) -> None:
        """One result to the store; a failure is shown, not raised: a full disk or a
        read-only database must not stop the drill. A touch timed from a kimariji read aloud
        is stored once the player can say whether the sound stuttered between the two
        (`trainer.ui.race_checks`, CHECK_AFTER_S later); any other result at once."""
        recorder = self.recorder
        if recorder is None:
            return
        if self._driver is None or not self.read_aloud or result.reaction_ms is None:
            self._keep(recorder, result)
            return
        from PySide6.QtCore import QTimer

        from trainer.ui.race_checks import CHECK_AFTER_S, RaceChecks
        if self._race_checks is None:
            self._race_checks = RaceChecks(self._driver, self.clock)
        touch_t = self.clock.now()
        self._race_checks.add(touch_t - result.reaction_ms / 1000, touch_t, lambda reason: self._keep(
            recorder, result if reason is None else self._disturbed(result, reason)))
        QTimer.singleShot(round(CHECK_AFTER_S * 1000) + 10, self._race_checks.poll)

    def _disturbed(self, result, reason: str):
        """The result marked disturbed, in the store and in the drill's own figures (its mean
        and best leave it out, and say so, even when the drill has already ended)."""
        from dataclasses import replace

        from trainer.drills.common import mark_disturbed
        screen = self.drill_screen
        if screen is not None:
            mark_disturbed(screen.model.results, result, reason)
            if screen.finished:
                screen.retranslate()
        return replace(result, disturbed=reason)

    def _keep(self, recorder, result) -> None:
        import sqlite3

        from trainer.stats.store import StatsError
        if result.disturbed is not None:
            self.message.setText(f"#{result.card}: {tr('race.disturbed')}")
        try:
            recorder.add(result)
        except (StatsError, OSError, sqlite3.Error) as exc:
            self.message.setText(tr("drill.store_error", err=exc))

    def _make_screen(self, model):
        from trainer.ui import drills_screens as D
        if self.drill == "fuda_nagashi":
            return D.FudaNagashiScreen(model, self.record, self._recent_runs, self.clock)
        if self.drill == "kimariji_henka":
            return D.KimarijiHenkaScreen(model, self.record, self.clock)
        screen = {"kami_to_torifuda": D.KamiToTorifudaScreen,
                  "listening_reflex": D.ListeningReflexScreen,
                  "positional": D.PositionalScreen}[self.drill]
        return screen(model, self.record, self.make_reading(), self.clock)

    def _recent_runs(self):
        from trainer.stats.aggregates import recent_runs
        session = self.recorder.session if self.recorder else None
        return [r for r in recent_runs(self.store, "fuda_nagashi", 6) if r.session != session][:5]

    def _show(self, screen: DrillScreen) -> None:
        self._drop_screen()
        self.drill_screen = screen
        self.stack.addWidget(screen)
        self.stack.setCurrentWidget(screen)
        screen.done.connect(self._update_buttons)
        self._update_buttons()
        screen.begin()

    def _drop_screen(self) -> None:
        if self._race_checks is not None:
            self._race_checks.flush()        # every touch is stored before the drill goes
        if self.drill_screen is not None:
            self.drill_screen.stop()
            self.stack.removeWidget(self.drill_screen)
            self.drill_screen.deleteLater()
            self.drill_screen = None

    def stop(self) -> None:
        """Stop the drill on screen; what was answered is stored."""
        if self._race_checks is not None:
            self._race_checks.flush()
        if self.drill_screen is not None:
            if self.drill_screen.finished:
                self.drill_screen.stop()
            else:
                self.drill_screen.stop_here()        # its totals, not a bare "Stop"
        self._update_buttons()

    # -- the main window's actions -------------------------------------------------------------
    def available(self, name: str) -> bool:
        return {"start": not self.running, "stop": self.running}.get(name, False)

    def command(self, name: str) -> None:
        if name == "start":
            self.start()
        elif name == "stop":
            self.stop()

    def settings_changed(self) -> None:
        self.retranslate()

    def shutdown(self) -> None:
        self.stop()


def _count(text: str, default: int) -> int:
    if not text:
        return default
    try:
        n = int(text)
    except ValueError:
        raise DrillError(f"{text!r} is not a number of cards") from None
    if n < 1:
        raise DrillError("ask for at least one card")
    return n
