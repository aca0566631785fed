"""How a drill hears its poems: read aloud through the reading driver, or shown as text.

Both sources emit the same signals, so a drill screen does not care which one
runs:

    card_started(poem)            the kami-no-ku begins
    kimariji(poem, t)             when the kimariji mark sounds (or is shown), on the
                                  drill's clock; may come before that moment, since
                                  audio is scheduled ahead
    text(str)                     the kami-no-ku shown so far (text mode only)
    card_finished(poem)           the reading of this card is over (yoin ended)
    finished()                    the whole sequence is over
    error(str)

``AudioReading`` plays the sequence through a ``ReadingDriver`` (kami-no-ku,
pause, shimo-no-ku, ma), the clock being ``time.perf_counter`` onto which the
player maps its sample clock. ``TextReading`` reveals the kami-no-ku mora by
mora at a reading pace on the drill's clock (a fake one in tests): the kimariji
mark is the moment its last decisive mora appears, known when the card
starts, so a touch before it is an anticipation with a negative reaction.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from audio.clock import SYSTEM

MORA_S = 0.22          # a reading pace of about 4.5 morae a second, as official readers
AFTER_KAMI_S = 1.5     # the text stays up this long after the kami-no-ku (stands for the shimo)
GAP_S = 1.0            # between two cards (the ma), so the last outcome can be seen


class DrillReading(QObject):
    card_started = Signal(int)
    kimariji = Signal(int, float)
    text = Signal(str)
    card_finished = Signal(int)
    finished = Signal()
    error = Signal(str)
    aloud = False           # read aloud (the player listens) or shown as text (the player reads)

    def start(self, order) -> None:
        raise NotImplementedError

    def next_card(self) -> None:
        """Cut the current card short (it was taken): go on to the next one."""
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError


class TextReading(DrillReading):
    def __init__(self, clock=SYSTEM, mora_s: float = MORA_S,
                 after_s: float = AFTER_KAMI_S, gap_s: float = GAP_S, parent=None):
        super().__init__(parent)
        self.clock = clock
        self.mora_s = mora_s
        self.after_s = after_s
        self.gap_s = gap_s
        self._gap_until: float | None = None   # in the ma after a card
        self._run = 0                          # bumped by start(): a handler may restart us
        self.order: list[int] = []
        self.index = -1
        self._morae: list[str] = []
        self._phrase_ends: set[int] = set()
        self._t0 = 0.0
        self._shown = 0
        self._timer = QTimer(self, interval=15)
        self._timer.timeout.connect(self.tick)

    @property
    def active(self) -> bool:
        return 0 <= self.index < len(self.order)

    def start(self, order) -> None:
        self.order = list(order)
        self.index = -1
        self._gap_until = None
        self._run += 1
        self._advance()
        if self.active:
            self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self.index = len(self.order)

    def next_card(self) -> None:
        if self.active and self._gap_until is None:
            self._finish_card()

    def _advance(self) -> None:
        import poems
        self.index += 1
        if not self.active:
            self._timer.stop()
            self.finished.emit()
            return
        poem = poems.get(self.order[self.index])
        phrases = poem.kami_phrase_morae()
        self._morae = [m for phrase in phrases for m in phrase]
        ends, n = set(), 0
        for phrase in phrases:
            n += len(phrase)
            ends.add(n)
        self._phrase_ends = ends
        self._t0 = self.clock()
        self._shown = 0
        self.card_started.emit(poem.no)
        kima = self._t0 + (poem.kimariji_mora_count() - 1) * self.mora_s
        self.kimariji.emit(poem.no, kima)
        self.text.emit("")
        self.tick()

    def tick(self) -> None:
        """Show the morae due by now; end the card when its time is up (timer or tests)."""
        if not self.active:
            return
        if self._gap_until is not None:
            if self.clock() >= self._gap_until:
                self._gap_until = None
                self._advance()
            return
        elapsed = self.clock() - self._t0
        due = min(len(self._morae), int(elapsed / self.mora_s + 1e-9) + 1)
        if due > self._shown:
            self._shown = due
            self.text.emit(self._shown_text())
        if elapsed >= len(self._morae) * self.mora_s + self.after_s:
            self._finish_card()

    def _shown_text(self) -> str:
        out = []
        for k, mora in enumerate(self._morae[:self._shown]):
            out.append(mora)
            if k + 1 in self._phrase_ends:
                out.append("　")
        return "".join(out).strip()

    def _finish_card(self) -> None:
        index, run = self.index, self._run
        self.card_finished.emit(self.order[index])
        if self.index != index or self._run != run:   # a slot stopped or restarted the reading
            return
        if self.gap_s > 0 and index + 1 < len(self.order):
            self._gap_until = self.clock() + self.gap_s
        else:
            self._advance()


class AudioReading(DrillReading):
    """The sequence read aloud by the shared player (no joka: a drill is not a match)."""

    aloud = True

    def __init__(self, driver, timing, parent=None):
        super().__init__(parent)
        self.driver = driver
        self.timing = timing
        self.order: list[int] = []
        self._started = 0
        self._kimariji_sent: set[int] = set()
        self._live = False
        driver.card_started.connect(self._on_card_started)
        driver.kimariji.connect(self._on_kimariji)
        driver.card_finished.connect(self._on_card_finished)
        driver.finished.connect(self._on_finished)
        driver.error.connect(self._on_error)

    def start(self, order) -> None:
        self.order = list(order)
        self._started = 0
        self._kimariji_sent.clear()
        self._live = True
        self.driver.start(self.order, timing=self.timing, joka=False)

    def next_card(self) -> None:
        if self._live:
            self.driver.skip()

    def stop(self) -> None:
        self._live = False
        self.driver.stop()

    def _on_card_started(self, poem: int) -> None:
        if not self._live or poem == 0:
            return
        index = self._started
        self._started += 1
        self.card_started.emit(poem)
        try:    # the mark is scheduled ahead: known as soon as the card starts
            t = self.driver.mark_time(index, "kimariji")
        except (KeyError, RuntimeError):
            t = None
        if t is not None:
            self._kimariji_sent.add(index)
            self.kimariji.emit(poem, t)

    def _on_kimariji(self, index: int, poem: int, t: float) -> None:
        if self._live and index >= 0 and index not in self._kimariji_sent:
            self._kimariji_sent.add(index)
            self.kimariji.emit(poem, t)

    def _on_card_finished(self, poem: int) -> None:
        if self._live and poem != 0:
            self.card_finished.emit(poem)

    def _on_finished(self) -> None:
        if self._live:
            self._live = False
            self.finished.emit()

    def _on_error(self, message: str) -> None:
        if self._live:
            self._live = False
            self.error.emit(message)
