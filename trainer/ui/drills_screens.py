"""One screen per drill: each shows a pure drill model (``trainer.drills``) and feeds it input.

A screen gets its model, a ``record(result)`` callable (the panel's
``SessionRecorder``: one committed trial per result) and, for the drills that
read poems, a ``DrillReading`` (audio or text). Screens hold no rules: the
model judges, the screen draws what it says. ``done`` fires once, when the
drill is over (or stopped) and its totals are on screen.

Language: every text a screen writes goes through ``say(widget, make)``, which
keeps ``make`` and runs it again on ``LANG.changed``: a screen built before a
language switch follows it.

Keys: the main window's single-key shortcuts (Space, W, R, N, Esc, Return) are
window-wide. An answer field keeps what typing needs -- letters (romaji has
w, r and n), Space (the IME converts with it), Return (submits the answer,
never the window's Start) -- and lets Esc through, so Esc stops the drill
from the field as from anywhere else (``AnswerKeys``).
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QGridLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget, QPushButton,
                               QVBoxLayout, QWidget)

import poems
from audio.clock import SYSTEM
import trainer.text.drills  # noqa: F401  (registers the strings)
from trainer.drills.common import REACTION_FLOOR_MS, confusables_first, summarise
from trainer.drills.kimariji_henka import Expected
from trainer.rules.territory import Territory
from trainer.ui.drills_field import CUE_COLOUR, RIGHT_COLOUR, WRONG_COLOUR, CardField, TorifudaView
from trainer.ui.i18n import LANG, tr
from trainer.ui.kimariji_text import kana_text, static_text
from trainer.ui.territory import Floor, TerritoryWidget

FEEDBACK_S = 1.0     # how long a round's outcome stays up before the next one
OK_TEXT = "#188038"   # right answers in text: green (the card halo is blue)


def _big(label: QLabel, px: int) -> QLabel:
    font = QFont(label.font())
    font.setPixelSize(px)
    label.setFont(font)
    return label


def ms_text(ms: float | None) -> str:
    if ms is None:
        return "—"
    if ms < 0:
        return tr("drill.anticipated", ms=f"{ms:+.0f}")
    if ms < REACTION_FLOOR_MS:
        return tr("drill.too_early", ms=f"{ms:.0f}")
    return tr("drill.ms", ms=f"{ms:.0f}")


def results_text(results) -> str:
    """The figures every drill shares: right answers, the mean time and the best real one
    (anticipations are counted apart, never a "best")."""
    done = summarise(results)
    parts = [tr("drill.correct", n=done.right, total=done.rounds)]
    if done.timed_out:
        parts.append(tr("drill.timed_out", n=done.timed_out))
    if done.mean_ms is not None:
        parts.append(tr("drill.mean", ms=f"{done.mean_ms:.0f}"))
    if done.best_ms is not None:
        parts.append(tr("drill.best", ms=f"{done.best_ms:.0f}"))
    if done.anticipations:
        parts.append(tr("drill.anticipations", n=done.anticipations))
    if done.disturbed:
        parts.append(tr("drill.disturbed", n=done.disturbed))
    return " ・ ".join(parts)


class AnswerKeys(QObject):
    """Event filter on an answer field: the field keeps Return and Enter (its own answer,
    not the window's Start); letters and Space it keeps anyway (QLineEdit claims them);
    Esc is left to the window (stop). While ``studying`` (a missed card on show), Return,
    Enter, Space, N and → move on instead of typing."""

    MOVE_ON = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space, Qt.Key.Key_N,
               Qt.Key.Key_Right)

    def __init__(self, field, move_on=None, studying=lambda: False):
        super().__init__(field)
        self.move_on = move_on
        self.studying = studying
        field.installEventFilter(self)

    def eventFilter(self, obj, event):
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        key = event.key()
        if self.studying() and self.move_on is not None and key in self.MOVE_ON:
            event.accept()
            if kind == QEvent.Type.KeyPress:
                self.move_on()
            return True
        if kind == QEvent.Type.ShortcutOverride and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()          # the field's: the key then arrives as a KeyPress
            return True
        return False


class DrillScreen(QWidget):
    done = Signal()

    def __init__(self, model, record, clock=SYSTEM, parent=None):
        super().__init__(parent)
        self.model = model
        self.record = record
        self.clock = clock
        self.feedback_s = FEEDBACK_S
        self.finished = False
        self.began_at = clock()     # built and begun together by the panel: the run's time
        self._generation = 0        # drops delayed steps of a drill already stopped
        self._live: dict[Any, Callable[[], str]] = {}   # widget (with setText) -> what makes its text
        self.status = QLabel()
        self.status.setWordWrap(True)
        _big(self.status, 20)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        _big(self.summary, 22)
        self.summary.setStyleSheet("color: #174ea6;")
        LANG.changed.connect(self.retranslate)

    def say(self, widget, make) -> None:
        """widget.setText(make()), and again whenever the language changes."""
        self._live[widget] = make
        widget.setText(make())

    def retranslate(self, *_) -> None:
        for widget, make in list(self._live.items()):
            widget.setText(make())

    def read_aloud_layout(self, reading, field: QWidget, left: QLabel, kami_pt: int,
                          right: QWidget | None = None) -> None:
        """What the drills read aloud share: [left | kami-no-ku | right] above the field,
        status and summary below; the reading's signals go to the on_* handlers the
        screen defines (card_started, kimariji, card_finished, finished)."""
        self.reading = reading
        self.kami = _big(QLabel(), kami_pt)
        self.kami.setAlignment(Qt.AlignmentFlag.AlignCenter)
        top = QHBoxLayout()
        top.addWidget(left)
        top.addWidget(self.kami, 1)
        if right is not None:
            top.addWidget(right)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(field, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.summary)
        reading.text.connect(self.kami.setText)
        for signal in ("card_started", "kimariji", "card_finished", "finished"):
            handler = getattr(self, f"on_{signal}", None)
            if handler is not None:
                getattr(reading, signal).connect(handler)
        reading.error.connect(self._reading_failed)

    def _reading_failed(self, text: str) -> None:
        """The reading could not go on (another mode kept the player, a voice failed): the drill
        stops there with the reason, instead of showing "Reading…" and ignoring every click."""
        if not self.finished:
            self.kami.setText("")
            self.stop_here()
        self.say(self.status, lambda: text)

    def begin(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        self._generation += 1

    def later(self, fn) -> None:
        """Run fn after the feedback pause, unless the drill was stopped meanwhile."""
        generation = self._generation
        QTimer.singleShot(int(self.feedback_s * 1000),
                          lambda: generation == self._generation and not self.finished and fn())

    def summary_text(self) -> str:
        """The drill's figures, in the current language."""
        return results_text(self.model.results)

    def finish(self, make=None, *, stopped: bool = False) -> None:
        """Over: its figures on screen (``make`` gives them; default ``summary_text``)."""
        if self.finished:
            return
        self.finished = True
        make = make or self.summary_text
        heading = "drill.stopped" if stopped else "drill.done"
        self.say(self.summary, lambda: f"{tr(heading)}: {make()}")
        self.done.emit()

    def stop_here(self) -> None:
        """Stopped by the player: what was answered, how much of it right, and how long."""
        self.stop()
        elapsed = self.clock() - self.began_at
        n = summarise(self.model.results).answered      # a round let run out was not answered
        self.finish(lambda: " ・ ".join([tr("drill.answered", n=n), results_text(self.model.results),
                                         tr("drill.time", s=f"{elapsed:.1f}")]), stopped=True)


# -- 札流し ---------------------------------------------------------------------------------

class FudaNagashiScreen(DrillScreen):
    N_PICKS = 6

    def __init__(self, model, record, recent_runs=lambda: [], clock=SYSTEM, parent=None):
        super().__init__(model, record, clock, parent)
        self.recent_runs = recent_runs
        self._rng = random.Random(len(model.order))
        self.view = TorifudaView()
        self.progress = _big(QLabel(), 18)
        self.timer_label = _big(QLabel(), 18)
        self.prompt = QLabel()
        self.say(self.prompt, lambda: tr("fuda.prompt"))
        self.edit = QLineEdit()
        _big(self.edit, 26)
        self.edit.returnPressed.connect(self.submit)
        self.studying = False       # a missed card stays on show until the player moves on
        self.keys = AnswerKeys(self.edit, self.move_on, lambda: self.studying)
        self.next_button = QPushButton()
        self.say(self.next_button, lambda: tr("fuda.next"))
        self.next_button.clicked.connect(self.move_on)
        self.next_button.hide()
        self.pick_buttons = [QPushButton() for _ in range(self.N_PICKS)]
        picks = QGridLayout()       # two rows of three: six in a row forced a 1024-px window to 1130
        self.or_pick = QLabel()
        self.say(self.or_pick, lambda: tr("fuda.or_pick"))
        for k, b in enumerate(self.pick_buttons):
            _big(b, 18)
            b.clicked.connect(lambda _=False, btn=b: self.pick(btn.property("card")))
            picks.addWidget(b, k // 3, k % 3)
        side = QVBoxLayout()
        side.addWidget(self.progress)
        side.addWidget(self.timer_label)
        side.addSpacing(12)
        side.addWidget(self.prompt)
        side.addWidget(self.edit)
        side.addWidget(self.or_pick)
        side.addLayout(picks)
        side.addWidget(self.next_button)
        side.addWidget(self.status)
        side.addStretch(1)
        side.addWidget(self.summary)
        row = QHBoxLayout(self)
        row.addWidget(self.view, 3)
        row.addLayout(side, 2)
        self._tick = QTimer(self, interval=100)
        self._tick.timeout.connect(self._show_time)

    def begin(self) -> None:
        self._next()
        self._tick.start()
        self.edit.setFocus()

    def stop(self) -> None:
        super().stop()
        self._tick.stop()

    def _next(self) -> None:
        prompt = self.model.show_next()
        if prompt is None:
            self._tick.stop()
            s = self.model.summary(self.recent_runs())

            def text():
                parts = [results_text(self.model.results),
                         tr("fuda.total_time", s=f"{s.total_ms / 1000:.1f}")]
                return " ・ ".join(parts + ([tr("fuda.rank", rank=s.rank)] if s.rank else []))
            self.view.show_card(None)
            self.edit.setEnabled(False)
            for b in self.pick_buttons:
                b.setEnabled(False)
            self.finish(text)
            return
        self.view.show_card(prompt.card, prompt.upside_down)
        n_done = len(self.model.results)
        total = len(self.model.order)
        self.say(self.progress, lambda: tr("drill.progress", n=n_done + 1, total=total))
        choices = [prompt.card, *confusables_first(self._rng, prompt.card, range(1, 101),
                                                   self.N_PICKS - 1)]
        self._rng.shuffle(choices)
        for b, card in zip(self.pick_buttons, choices):
            b.setText(static_text(card))
            b.setProperty("card", card)
        self.edit.clear()

    def _show_time(self) -> None:
        prompt = self.model.current
        if prompt is None or self.model.started_at is None:
            return
        now = self.clock()
        self.timer_label.setText(
            f"{tr('fuda.card_time', s=f'{now - prompt.shown_at:.1f}')}   "
            f"{tr('fuda.total_time', s=f'{now - self.model.started_at:.1f}')}")

    def submit(self) -> None:
        text = self.edit.text()
        if self.studying or not text.strip() or self.model.current is None:
            return
        self._after(self.model.answer(text))

    def pick(self, card) -> None:
        if self.studying or self.model.current is None or card is None:
            return
        self._after(self.model.pick(int(card)))

    def _after(self, result) -> None:
        self.record(result)
        poem = poems.get(result.card)
        if result.correct:
            self.say(self.status, lambda: tr("drill.ok", text=f"{static_text(poem.no)}  "
                                                             f"{ms_text(result.reaction_ms)}"))
            self.status.setStyleSheet(f"color: {OK_TEXT};")
            self._next()
            return
        self.say(self.status, lambda: tr("drill.ng", text=tr("fuda.wrong", kimariji=static_text(poem.no))))
        self.status.setStyleSheet(f"color: {WRONG_COLOUR.name()};")
        self._study()

    def _study(self) -> None:
        """A missed card stays on show, its kimariji said, until the player moves on
        (Return, Space, N or → in the field, or the button): time to look at it."""
        self.studying = True
        self.edit.setReadOnly(True)
        for b in self.pick_buttons:
            b.setEnabled(False)
        self.say(self.prompt, lambda: tr("fuda.study"))
        self.next_button.show()
        self.edit.setFocus()

    def move_on(self) -> None:
        if not self.studying or self.finished:
            return
        self.studying = False
        self.edit.setReadOnly(False)
        for b in self.pick_buttons:
            b.setEnabled(True)
        self.next_button.hide()
        self.say(self.prompt, lambda: tr("fuda.prompt"))
        self._next()
        if not self.finished:
            self.edit.setFocus()


# -- 上の句から取り札 --------------------------------------------------------------------------

class KamiToTorifudaScreen(DrillScreen):
    def __init__(self, model, record, reading, clock=SYSTEM, parent=None):
        super().__init__(model, record, clock, parent)
        self.field = CardField(clock)
        self.field.touched.connect(self.on_touch)
        self.progress = _big(QLabel(), 18)
        self.read_aloud_layout(reading, self.field, self.progress, kami_pt=30)

    def begin(self) -> None:
        self.next_round()

    def stop(self) -> None:
        super().stop()
        self.reading.stop()

    def next_round(self) -> None:
        rnd = self.model.next_round()
        if rnd is None:
            self.reading.stop()
            self.finish()
            return
        n = len(rnd.choices)
        self.field.set_row(rnd.choices, per_row=n if n <= 6 else math.ceil(n / 2))
        k, total = len(self.model.results) + 1, len(self.model.order)
        self.say(self.progress, lambda: tr("drill.progress", n=k, total=total))
        self.kami.setText(tr("drill.reading"))
        self.say(self.status, lambda: tr("drill.listen" if self.reading.aloud else "drill.watch"))
        self.status.setStyleSheet("")
        self.reading.start([rnd.card])

    def on_kimariji(self, poem: int, t: float) -> None:
        rnd = self.model.round
        if rnd is not None and poem == rnd.card and self.model.kimariji_at is None:
            self.model.reading_started(t)

    def on_touch(self, card: int, t: float) -> None:
        if self.model.round is None or self.model.kimariji_at is None:
            return      # nothing read yet: a press now judges nothing
        answer = self.model.round.card
        result = self.model.touch(card, t)
        self.reading.stop()
        self.record(result)
        self.field.highlight(self.field.slot_of(answer), RIGHT_COLOUR)
        if not result.correct:
            self.field.highlight(self.field.slot_of(card), WRONG_COLOUR)
        self._say(result)
        self.later(self.next_round)

    def on_card_finished(self, poem: int) -> None:
        rnd = self.model.round
        if rnd is None or poem != rnd.card or self.model.kimariji_at is None:
            return
        result = self.model.time_out()
        self.record(result)
        self.field.highlight(self.field.slot_of(rnd.card), CUE_COLOUR)
        self._say(result)
        self.later(self.next_round)

    def _say(self, result) -> None:
        poem = poems.get(result.card)
        self.kami.setText("　".join(poem.kami))
        if result.correct:
            self.say(self.status, lambda: tr("drill.ok", text=ms_text(result.reaction_ms)))
            self.status.setStyleSheet(f"color: {OK_TEXT};")
        elif result.answer is None:
            self.say(self.status, lambda: tr("drill.missed", kimariji=static_text(poem.no)))
            self.status.setStyleSheet(f"color: {WRONG_COLOUR.name()};")
        else:
            self.say(self.status, lambda: tr("drill.ng", text=f"{ms_text(result.reaction_ms)} — "
                                              + tr("fuda.wrong", kimariji=static_text(poem.no))))
            self.status.setStyleSheet(f"color: {WRONG_COLOUR.name()};")


# -- 聞き分け反応 ----------------------------------------------------------------------------

class ListeningReflexScreen(DrillScreen):
    """A real floor (the shared territory widget): half the cards on each side."""

    def __init__(self, model, record, reading, clock=SYSTEM, parent=None):
        super().__init__(model, record, clock, parent)
        rng = random.Random(len(model.readings))
        half = (len(model.territory) + 1) // 2
        self.floor = TerritoryWidget()
        self.floor.set_floor(Floor(own=Territory.arranged(model.territory[:half], rng),
                                   opp=Territory.arranged(model.territory[half:], rng)))
        self.floor.touched.connect(self.on_touch)
        self.counts = _big(QLabel(), 18)
        self.read_aloud_layout(reading, self.floor, self.counts, kami_pt=26)

    def begin(self) -> None:
        self._count()
        self.reading.start([r.card for r in self.model.readings])

    def stop(self) -> None:
        super().stop()
        self.reading.stop()

    def _count(self) -> None:
        n, total, faults = len(self.model.results), len(self.model.readings), self.model.faults
        self.say(self.counts, lambda: f"{tr('drill.progress', n=n, total=total)}   "
                                      f"{tr('drill.faults', n=faults)}")

    def on_card_started(self, poem: int) -> None:
        if self.model.reading is None and not self.model.is_over():
            self.model.next_reading()
            self.floor.highlights.clear()
            self.floor.caption = ""
            self.floor.update()

    def on_kimariji(self, poem: int, t: float) -> None:
        r = self.model.reading
        if r is not None and r.card == poem and self.model.kimariji_at is None:
            self.model.reading_started(t)

    def on_touch(self, card: int, t: float) -> None:
        if self.model.reading is None or self.model.kimariji_at is None or card not in self.model.field:
            return
        out = self.model.touch(card, t)
        if out.took:
            for side in (self.floor.floor.own, self.floor.floor.opp):
                if card in side:
                    side.remove(card)
            self.floor.caption = ms_text(out.reaction_ms)
            self.status.setStyleSheet(f"color: {OK_TEXT};")
            self.say(self.status, lambda: tr("drill.ok", text=ms_text(out.reaction_ms)))
        elif out.fault:
            self.floor.highlights[card] = WRONG_COLOUR
            self.floor.caption = tr("drill.faults", n=self.model.faults)
            self.status.setStyleSheet(f"color: {WRONG_COLOUR.name()};")
            self.say(self.status, lambda: tr("drill.ng", text=tr(f"fault.{out.fault}")))
        self.floor.update()
        self._count()

    def on_card_finished(self, poem: int) -> None:
        r = self.model.reading
        if r is None or r.card != poem:
            return
        if self.model.kimariji_at is None:      # cut before the kimariji: nobody could take it
            self.model.reading_started(self.clock())
        result = self.model.reading_over()
        self.record(result)
        kimariji = static_text(poem)
        self.kami.setText("　".join(poems.get(poem).kami))
        if r.karafuda:
            self.floor.caption = tr("drill.karafuda_read", kimariji=kimariji)
        elif result.reaction_ms is None:
            self.floor.caption = tr("drill.missed", kimariji=kimariji)
        self.floor.update()
        self._count()
        if self.model.is_over():
            self.reading.stop()
            self._done()

    def on_finished(self) -> None:
        self._done()

    def _done(self) -> None:
        self.finish()

    def summary_text(self) -> str:
        s = self.model.summary()
        parts = [tr("drill.correct", n=s.taken, total=s.taken + s.missed),
                 tr("drill.faults", n=s.faults)]
        if s.mean_reaction_ms is not None:
            parts.append(tr("drill.mean", ms=f"{s.mean_reaction_ms:.0f}"))
        if s.best_reaction_ms is not None:
            parts.append(tr("drill.best", ms=f"{s.best_reaction_ms:.0f}"))
        if s.anticipations:
            parts.append(tr("drill.anticipations", n=s.anticipations))
        if s.disturbed:
            parts.append(tr("drill.disturbed", n=s.disturbed))
        return " ・ ".join(parts)


# -- 決まり字の変化 --------------------------------------------------------------------------

class KimarijiHenkaScreen(DrillScreen):
    def __init__(self, model, record, clock=SYSTEM, parent=None):
        super().__init__(model, record, clock, parent)
        self.read_list = QListWidget()
        _big(self.read_list, 18)
        self.read_list.setWordWrap(True)      # at 1024 px a card's line wraps, not cut by a scrollbar
        self.read_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.read_list.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.read_total = QLabel()
        self.field = CardField(clock)
        self.field.interactive = False
        self.prompt = _big(QLabel(), 18)
        self.edit = QLineEdit()
        _big(self.edit, 26)
        self.edit.returnPressed.connect(self.submit)
        self.keys = AnswerKeys(self.edit)
        self.ask_button = QPushButton()
        self.say(self.ask_button, lambda: tr("henka.ask"))
        self.ask_button.clicked.connect(self.ask)
        self.next_button = QPushButton()
        self.say(self.next_button, lambda: tr("henka.next_round"))
        self.next_button.clicked.connect(self.next_round)
        self.read_now = QLabel()
        self.say(self.read_now, lambda: tr("henka.read_now"))
        left = QVBoxLayout()
        left.addWidget(self.read_now)
        left.addWidget(self.read_list, 1)
        left.addWidget(self.read_total)
        right = QVBoxLayout()
        right.addWidget(self.field, 1)
        right.addWidget(self.prompt)
        answer = QHBoxLayout()
        answer.addWidget(self.edit, 1)
        answer.addWidget(self.ask_button)
        answer.addWidget(self.next_button)
        right.addLayout(answer)
        right.addWidget(self.status)
        right.addWidget(self.summary)
        row = QHBoxLayout(self)
        row.addLayout(left, 1)
        row.addLayout(right, 3)
        self.queue: list[int] = []
        self.expected: dict[int, Expected] = {}

    def begin(self) -> None:
        self.next_round()

    def next_round(self) -> None:
        rnd = self.model.next_round()
        if rnd is None:
            self.finish()
            return
        self.read_list.clear()
        for card in rnd.read_now:
            p = poems.get(card)
            self.read_list.addItem(f"{static_text(p.no)}　{p.kami[0]}（{card}）")
        self.say(self.read_total, lambda: tr("henka.read_total", n=len(rnd.read_so_far)))
        self.field.set_row(rnd.field, per_row=min(6, len(rnd.field)))
        self.say(self.prompt, lambda: "")
        self.say(self.status, lambda: "")
        self.edit.setEnabled(False)
        self.ask_button.setEnabled(True)
        self.next_button.setEnabled(False)
        self.ask_button.setFocus()

    def ask(self) -> None:
        self.expected = {e.card: e for e in self.model.ask()}
        self.queue = list(self.model.field)
        self.ask_button.setEnabled(False)
        self.edit.setEnabled(True)
        self.edit.setFocus()
        self._cue()

    def _cue(self) -> None:
        self.field.highlight(self.field.slot_of(self.queue[0]), CUE_COLOUR)
        self.say(self.prompt, lambda: tr("henka.prompt"))
        self.edit.clear()

    def submit(self) -> None:
        text = self.edit.text()
        if not self.queue or not text.strip():
            return
        card = self.queue.pop(0)
        result = self.model.answer(card, text)
        self.record(result)
        e = self.expected[card]
        ok = result.correct

        def told() -> str:                      # the drill's answers are historical kana
            now = kana_text(card, e.kimariji)
            said = tr("henka.changed", static=kana_text(card, e.static), now=now) if e.changed \
                else tr("henka.same", now=now)
            return tr("drill.ok" if ok else "drill.ng", text=said)
        self.say(self.status, told)
        self.status.setStyleSheet(f"color: {OK_TEXT if ok else WRONG_COLOUR.name()};")
        self.field.highlight(self.field.slot_of(card), RIGHT_COLOUR if ok else WRONG_COLOUR)
        if self.queue:
            self._cue()
            return
        self.edit.setEnabled(False)
        if self.model.is_over():
            self.finish()
        else:
            self.next_button.setEnabled(True)
            self.next_button.setFocus()


# -- 位置の暗記 ------------------------------------------------------------------------------

class PositionalScreen(DrillScreen):
    def __init__(self, model, record, reading, clock=SYSTEM, parent=None):
        super().__init__(model, record, clock, parent)
        self.field = CardField(clock)
        self.field.slot_touched.connect(self.on_slot)
        self.countdown = _big(QLabel(), 20)
        self.ready_button = QPushButton()
        self.say(self.ready_button, lambda: tr("pos.ready"))
        self.ready_button.clicked.connect(self.ready)
        self.read_aloud_layout(reading, self.field, self.countdown, kami_pt=26,
                               right=self.ready_button)
        self._tick = QTimer(self, interval=100)
        self._tick.timeout.connect(self.tick)
        self.recalling = False

    def begin(self) -> None:
        self.field.set_grid(self.model.rows, self.model.columns, dict(self.model.layout))
        self.field.face_down = False
        self.model.start()
        self._tick.start()
        self.tick()

    def stop(self) -> None:
        super().stop()
        self._tick.stop()
        self.reading.stop()

    def tick(self) -> None:
        if self.recalling:
            return
        if self.model.face_down:
            self._recall()
        else:
            left = math.ceil(self.model.seconds_left)
            self.say(self.countdown, lambda: tr("pos.memorise", s=f"{left}"))

    def ready(self) -> None:
        if not self.recalling:
            self.model.ready()
            self._recall()

    def _recall(self) -> None:
        self.recalling = True
        self._tick.stop()
        self.ready_button.setEnabled(False)
        self.field.face_down = True
        self.field.update()
        self.say(self.countdown, lambda: tr("pos.recall"))
        self.reading.start([r.card for r in self.model.readings])

    def on_card_started(self, poem: int) -> None:
        if self.model.reading is None and not self.model.is_over():
            self.model.next_reading()
            self._tidy()

    def on_kimariji(self, poem: int, t: float) -> None:
        r = self.model.reading
        if r is not None and r.card == poem and self.model.kimariji_at is None:
            self.model.reading_started(t)

    def on_slot(self, row: int, column: int, t: float) -> None:
        slot = (row, column)
        r = self.model.reading
        if r is None or self.model.kimariji_at is None or slot not in self.model.layout:
            return
        right = self.model.place_of(r.card)
        result = self.model.touch(slot, t)
        self.record(result)
        self._reveal(slot, RIGHT_COLOUR if result.correct else WRONG_COLOUR)
        if right is not None and right != slot:
            self._reveal(right, CUE_COLOUR)
        self._say(result)
        self.reading.next_card()

    def on_card_finished(self, poem: int) -> None:
        r = self.model.reading
        if r is not None and r.card == poem:
            if self.model.kimariji_at is None:
                self.model.reading_started(self.clock())
            right = self.model.place_of(r.card)
            result = self.model.reading_over()
            self.record(result)
            if right is not None:
                self._reveal(right, CUE_COLOUR)
            self._say(result)
        if self.model.is_over():
            self.reading.stop()
            self.finish()

    def on_finished(self) -> None:
        self.finish()

    def _reveal(self, slot, colour) -> None:
        self.field.revealed.add(slot)
        self.field.highlight(slot, colour)

    def _tidy(self) -> None:
        """Before the next reading: cards read are gone, mistaken ones face down again."""
        for slot in list(self.field.cards):
            if slot not in self.model.layout:
                self.field.remove(slot)
        self.field.revealed.clear()
        self.field.highlights.clear()
        self.field.update()

    def _say(self, result) -> None:
        p = poems.get(result.card)
        self.kami.setText("　".join(p.kami))      # the poem read, in full, once decided
        if result.fault == "karafuda":
            text, colour = lambda: tr("drill.ng", text=tr("drill.karafuda_read", kimariji=static_text(p.no))), \
                WRONG_COLOUR
        elif result.correct and result.answer is None:
            text, colour = lambda: tr("drill.karafuda_ok"), RIGHT_COLOUR
        elif result.correct:
            text, colour = lambda: tr("pos.right", ms=f"{result.reaction_ms:.0f}"), RIGHT_COLOUR
        elif result.answer is None:
            text, colour = lambda: tr("drill.missed", kimariji=static_text(p.no)), WRONG_COLOUR
        else:
            text, colour = lambda: tr("pos.wrong", kimariji=static_text(p.no)), WRONG_COLOUR
        self.say(self.status, text)
        self.status.setStyleSheet(f"color: {OK_TEXT if colour == RIGHT_COLOUR else colour.name()};")


__all__ = ["DrillScreen", "FudaNagashiScreen", "KamiToTorifudaScreen", "ListeningReflexScreen",
           "KimarijiHenkaScreen", "PositionalScreen"]
