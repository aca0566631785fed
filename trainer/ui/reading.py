"""The reading as the Qt side sees it: a `Programme` played by the shared `Player`.

``ReadingDriver`` lays the programme out off the GUI thread card by card
(`Programme.grow`), loads the first step into the player as soon as it is ready
(the joka, or the first card without it) and hands it each longer step
(`Player.extend`) while it plays; it turns the player's events (polled every 15 ms: the audio callback
never touches Qt) into signals on the GUI thread.  It knows nothing of rules:
Reader mode and Match mode listen to the same signals.

When the sound only stutters (the stream stops asking for samples for a moment:
the server starved of CPU, a blocked callback) nothing is paused: the reading
waits inside the player where it was and goes on when the sound does, and the
status bar says so (`notify_sound`). When the sound device goes away
mid-reading the player goes on on its silent clock; the driver pauses it there (nothing is heard, so nothing should be
missed) and says so through `device_problem` (and `notify_sound`, for the status bar).
The player opens the device again by itself once it is back, and the reading it
paused goes on from there (unless the person paused, held or stopped it meanwhile).

One reading at a time: every mode has its own driver, but there is one player,
and two drivers on it steal each other's events and programmes (a drill started
while a match read froze both for good). So a driver that starts while another
one is reading, paused or held first settles with it (`_make_room`): the
arbiter the main window installs (`set_arbiter`) asks the person whether to stop
the other reading; without one (tests, a panel on its own) the other is stopped
and told so. A stopped reading emits `error` ("the reading could not go on"),
which every mode already answers by ending its reading; a refused start emits
`error` on the new driver, which then never touches the player. Stopping the
other, rather than pausing it underneath, is deliberate: a paused driver whose
programme was replaced on the player would "resume" someone else's reading.
Only the driver that has the floor polls the player.

From an empty cache the synthesised voice is made while it reads (issue 25):
`audio.synth.SynthesisAhead` renders the clips in reading order, and a card is
placed only once its clips (and so its marks) exist. If the reading catches up
with synthesis the player waits at the end of what is placed, silent, and the
driver says so (`preparing`), as it does while the first step is being made.
"""
from __future__ import annotations

import weakref

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from trainer.ui.i18n import add_messages, tr
from trainer.ui.tasks import BackgroundTask

add_messages({
    "reading.stopped": ("読みを止めました", "The reading was stopped"),
    "reading.stopped_by": ("「{mode}」が読み始めたので、この読みを止めました（読みは一度に一つです）",
                           "Stopped: {mode} began a reading (one reading at a time)"),
    "reading.kept_other": ("始めませんでした：別のモードの読みが止まったまま残っています",
                           "Not started: another mode's reading is still paused there"),
    "reading.ask_title": ("読みは一度に一つ", "One reading at a time"),
    "reading.ask": ("「{mode}」の読みを止めますか？", "Stop the reading in {mode}?"),
    "reading.ask_detail": ("止めると「{mode}」の読みは終わります（試合なら結果を表示します）。"
                           "「いいえ」ならそのまま一時停止で残り、こちらは始まりません。",
                           "Stopping it ends that reading (a match shows its result). "
                           "No keeps it paused there, and this one does not start."),
    "reading.paused_away": ("「{mode}」の読みを一時停止しました（戻って Space で再開）",
                            "The reading in {mode} is paused while you are away (Space there goes on)"),
})

PAUSED, HELD, PLAYING, IDLE = "paused", "held", "playing", "idle"
STUTTER_NOTICE_S = 2.0     # short stalls are said at most this often in the status bar


# Every driver's sound-device notices go to the one place that shows them (the main window's
# status bar): a lost device pauses a reading, it does not end it. Plain weak references, not a
# process-wide QObject: a global signal connected to windows that come and go makes Qt warn
# about shared objects deleted under it.
_sound_listeners: list[weakref.WeakMethod] = []


def on_sound_notice(method) -> None:
    """Call the bound `method(text)` with every sound-device notice while its object lives."""
    _sound_listeners.append(weakref.WeakMethod(method))


_last_notice: tuple[str, tuple[str, str] | None] = ("", None)


def notify_sound(text: str, words: tuple[str, str] | None = None) -> None:
    """Tell the listeners; `words` (as `reword` takes them) let the notice be worded again."""
    global _last_notice
    _last_notice = (text, words)
    for ref in list(_sound_listeners):
        method = ref()
        try:
            if method is None:
                raise RuntimeError("gone")
            method(text)
        except RuntimeError:           # its Qt object was deleted
            _sound_listeners.remove(ref)


# Every live driver (weakly: a panel's driver goes with its panel) and who may decide between them.
_drivers: "weakref.WeakSet[ReadingDriver]" = weakref.WeakSet()
_arbiter: weakref.WeakMethod | None = None


def set_arbiter(method) -> None:
    """`method(others, starting) -> bool`: may `starting` stop the busy drivers `others`?
    (the main window asks the person). A bound method, held weakly; None removes it."""
    global _arbiter
    _arbiter = None if method is None else weakref.WeakMethod(method)


def busy_drivers(exclude=None) -> list["ReadingDriver"]:
    """Drivers reading, paused or held (building a programme counts as reading)."""
    return [d for d in list(_drivers) if d is not exclude and d.busy]


def pause_all(which=lambda driver: True) -> list["ReadingDriver"]:
    """Pause every driver that is sounding and `which(driver)` (a mode left the screen);
    returns those paused. A held reading is silent already and waits for its mode (an
    okurifuda choice, 待った)."""
    paused = []
    for d in list(_drivers):
        if d.state == PLAYING and which(d):
            d.pause()
            paused.append(d)
    return paused


def stop_all() -> None:
    """Stop every reading (the player is about to be replaced: a new output device)."""
    for d in list(_drivers):
        if d.busy:
            d.interrupt(_stopped_text())


def _stopped_text(by: str = "") -> str:
    return tr("reading.stopped_by", mode=by) if by else tr("reading.stopped")


def notice_reworded(shown: str) -> str | None:
    """The notice on screen (`shown`) in the interface language now, if it is the last one
    and was given with its words; else None (leave it)."""
    text, words = _last_notice
    return reword(words) if words is not None and shown == text else None


def reword(words: tuple[str, str]) -> str:
    """A stop notice (message id, the message id of the mode that caused it, or "") in the
    interface language now: a result page shown before a language switch words it again."""
    msg, mode = words
    return tr(msg, mode=tr(mode)) if mode else tr(msg)


def _lead_in(programme, first_card_at: float | None) -> float | None:
    """When `programme` must begin for its first card's kami-no-ku to begin at `first_card_at`."""
    if first_card_at is None or not programme.has_mark(0, "kami_start"):
        return first_card_at
    return first_card_at - programme.seconds(programme.mark_sample(0, "kami_start"))


class ReadingDriver(QObject):
    card_started = Signal(int)            # poem (0 = joka): its kami-no-ku began to sound
    kimariji = Signal(int, int, float)    # card index, poem, perf_counter time the kimariji sounded
    card_finished = Signal(int)           # poem: done (shimo-no-ku ended, or skipped past)
    finished = Signal()
    state_changed = Signal(str)           # playing / paused / held / idle
    error = Signal(str)                   # the reading could not go on (it has stopped)
    device_problem = Signal(str)          # the sound device was lost: paused where it was
    ready = Signal()                      # the programme is loaded and sounding
    preparing = Signal(bool)              # True while the reading waits for clips still being made
    _grown = Signal(object, int)          # (a longer programme, its reading's generation): worker -> GUI

    def __init__(self, voices, parent=None, name: str = ""):
        """`name`: what the person calls this reading ("the match"), for the questions
        and notices when another mode wants the player (the main window can set it)."""
        super().__init__(parent)
        self.name = name
        self.name_msg = ""                        # the message id of that name (the mode's), to reword
        self.interrupted_by: str | None = None   # the notice of the last stop another mode caused
        self.error_words: tuple[str, str] | None = None   # the last `error` as `reword` takes it
        self.voices = voices
        self.programme = None
        self.order: list[int] = []
        self._started: set[int] = set()   # card indices whose kami-no-ku has sounded
        self._done: set[int] = set()
        self._state = IDLE
        self._device_paused = False       # paused by a lost device, not by the person
        self._stalled_at: float | None = None   # when the sound last flowed, during a stall
        self._stutters_told = 0.0         # stalls that began before this were said (perf_counter)
        self._stutter_said_at = float("-inf")
        self.held_before = "kami"         # where the last hold waits: "shimo", "kami" or "card"
        self._task: BackgroundTask | None = None
        self._generation = 0              # drops programmes built for a reading since stopped
        self._pending = None              # the longest programme built before the reading began
        self._loaded = False              # this reading's first step is in the player
        self._order_next: list[int] = []
        self._ahead = None                # the synthesis running ahead of this reading, if any
        self._preparing = False
        self._grown.connect(self._on_grown)
        self._timer = QTimer(self, interval=15)
        self._timer.timeout.connect(self._poll)
        _drivers.add(self)

    @property
    def busy(self) -> bool:
        return self._state != IDLE

    def _make_room(self) -> bool:
        """Settle with the other busy drivers before starting: stop them (asking first if an
        arbiter is installed); False if the person chose to keep theirs."""
        others = busy_drivers(exclude=self)
        if not others:
            return True
        method = _arbiter() if _arbiter is not None else None
        try:
            if method is not None and not method(others, self):
                return False
        except RuntimeError:        # the window that asked is gone: stop with a notice
            set_arbiter(None)
        words = ("reading.stopped_by", self.name_msg) if self.name and self.name_msg else None
        for other in others:
            other.interrupt(_stopped_text(self.name), words)
        return True

    def interrupt(self, message: str, words: tuple[str, str] | None = None) -> None:
        """Stop because another reading needs the player; the owner hears it as `error`."""
        was_busy = self.busy
        self.stop()
        if was_busy:
            self.interrupted_by = message   # the owner may skip a dialog: the person chose this
            self.error_words = words
            self.error.emit(message)
            notify_sound(message, words)

    # -- control -----------------------------------------------------------------------------
    _start_at: float | None = None
    _first_card_at = False

    def start(self, order, timing, joka: bool, start_at: float | None = None, *,
              first_card_at: bool = False) -> None:
        """Read ``order`` (poem numbers) with ``timing`` (a ReadingTiming), the joka first if asked.

        `start_at` (perf_counter, the player's clock): begin sounding then, not as soon as
        the programme is built (an online race's card starts at the moment the server set;
        a programme built later than that starts at once). With `first_card_at`, `start_at`
        is when the first card's kami-no-ku begins: what comes before it (the joka, as long
        as this voice reads it) starts that much earlier."""
        from audio.programme import Programme, ReadingSettings
        self.stop()
        if not self._make_room():
            self.error_words = ("reading.kept_other", "")
            self.error.emit(tr("reading.kept_other"))
            return
        self._generation += 1
        generation = self._generation
        self._start_at, self._first_card_at = start_at, first_card_at
        order = list(order)
        # A club reading's extras (Reader mode): shimo-no-ku only, a memorisation period.
        memorise = 60.0 * getattr(timing, "memorise", 0.0)
        settings = ReadingSettings(ma=timing.ma, pause=timing.pause, speed=timing.speed,
                                   joka_gap=getattr(timing, "joka_gap", ReadingSettings.joka_gap),
                                   own_pauses=getattr(timing, "own_pauses", False),
                                   voice=timing.voice, joka=joka, memorise=memorise,
                                   read_kami=not getattr(timing, "shimo_only", False))
        voice = self.voices.voice(timing.voice)
        ahead = self._ahead = _synthesis_ahead(voice, ([0] if joka else []) + order)
        self._pending = None
        self._loaded = False
        self._order_next = order          # `order` once it sounds (an online race asks which is on)

        def build(progress, cancelled):
            from audio.notices import notices_for
            from trainer.ui.tasks import TaskCancelled
            notices = notices_for(timing.voice) if memorise else None
            if ahead is None:              # every clip is at hand: the whole programme at once
                self._grown.emit(Programme.build(voice, order, settings, notices=notices), generation)
                return None
            ahead.start()
            try:
                # The joka alone is the first step (it sounds for about 20 s while the
                # first card is made); without it, the first card.
                last = None
                for step in Programme.grow(_ClipsAsMade(ahead, voice, cancelled), order, settings,
                                           notices=notices, first_cards=0 if joka else 1):
                    if cancelled.is_set():
                        raise TaskCancelled
                    if not first_card_at:
                        self._grown.emit(step, generation)
                    last = step
                if first_card_at:      # the first card's moment is fixed: what leads in to it
                    self._grown.emit(last, generation)     # must be known, so the whole programme
            finally:
                ahead.stop()               # done, or stopped: start no further poem
            return None

        task = BackgroundTask(build, self)
        task.failed.connect(lambda message: self._failed(message) if generation == self._generation else None)
        self._task = task
        self._set_state(PLAYING)
        self._set_preparing(True)
        task.start()

    def _on_grown(self, programme, generation: int) -> None:
        """A longer step of the programme (GUI thread): the first one starts the reading
        (at `start_at`), the later ones extend what the player has."""
        if generation != self._generation or self._state == IDLE:
            return
        if self._loaded:
            self.programme = programme
            self.voices.player().extend(programme)
            return
        first = self._pending is None
        self._pending = programme      # a longer one before the reading began replaces it
        if first:
            self._play_at(generation, _lead_in(programme, self._start_at) if self._first_card_at
                          else self._start_at)

    def _failed(self, message: str) -> None:
        if self._loaded:                    # a clip failed while the placed cards were playing
            self._player_call("stop")
        self._timer.stop()
        self._set_preparing(False)
        self._set_state(IDLE)
        self.error_words = None             # the cause's own text: nothing to word again
        self.error.emit(message)

    def _play_at(self, generation, start_at: float | None) -> None:
        import time
        wait_ms = 0 if start_at is None else round((start_at - time.perf_counter()) * 1000)
        if wait_ms <= 0:
            self._play(generation)
            return
        timer = QTimer(self, singleShot=True, timerType=Qt.TimerType.PreciseTimer)

        def play() -> None:
            self._play(generation)
            timer.deleteLater()
        timer.timeout.connect(play)
        timer.start(wait_ms)

    def _play(self, generation) -> None:
        if generation != self._generation or self._state == IDLE or self._pending is None:
            return
        programme, self._pending = self._pending, None
        self.programme = programme
        self.order = self._order_next
        self._loaded = True
        self._started.clear()
        self._done.clear()
        player = self.voices.player()
        player.poll_events()   # drop what an earlier reading or the device left queued
        self._stutters_told = player.now()      # stalls of an earlier reading are not this one's
        player.load(programme)
        player.start()
        if self._state == PAUSED:   # paused while the programme was being built
            player.pause()
        self._timer.start()
        self._set_preparing(False)
        self.ready.emit()

    def pause(self) -> None:
        self._player_call("pause")
        self._set_state(PAUSED)

    def resume(self) -> None:
        self._player_call("resume")
        self._set_state(PLAYING)

    def hold(self) -> str:
        """待った: wait before the next part that starts a new card's sound; returns where
        (`held_before`, which words the banners: ``held.<where>``).

        While the kami-no-ku (or the pause after it) is sounding, the wait comes
        before the shimo-no-ku ("shimo"): in kyōgi the shimo-no-ku and the next
        kami-no-ku are one unit, never split.  Once the shimo-no-ku has begun, the
        wait comes before the next kami-no-ku ("kami"); a reading of one verse per
        card waits before the next card ("card").
        """
        from audio.programme import KAMI, PAUSE, SHIMO
        player = self.voices.player()
        before, where = KAMI, "kami"
        prog = player.programme
        if prog is not None:
            seg = prog.segments[prog.segment_at(player.position)]
            # One verse per card (kami-no-ku only, shimo-no-ku only): no shimo-no-ku to wait before.
            two_verses = prog.settings.read_kami and prog.settings.read_shimo
            if not two_verses:
                where = "card"
            elif seg.kind in (KAMI, PAUSE):
                before, where = SHIMO, "shimo"
        player.hold(before)
        self._set_state(HELD)
        self.held_before = where
        return where

    def hold_before_next_card(self) -> None:
        """Wait after the shimo-no-ku being read, before the next kami-no-ku (okurifuda choice)."""
        from audio.programme import KAMI
        if self.voices.has_player():
            self.voices.player().hold(KAMI)
            self._set_state(HELD)
            self.held_before = "kami"

    def release(self) -> None:
        self._player_call("resume")
        self._set_state(PLAYING)

    def repeat_shimo(self) -> None:
        self._player_call("repeat_shimo")

    def skip(self) -> None:
        self._player_call("next_card")

    def stop(self) -> None:
        self._generation += 1
        if self._task is not None:
            self._task.cancel()
        if self._ahead is not None:
            self._ahead.stop()            # poems in flight finish and are cached; no more start
            self._ahead = None
            if self._task is not None:    # its worker leaves at once (`_ClipsAsMade`): let it
                self._task.wait(2000)     # go before the window that owns it can
        self._pending = None
        if self._state != IDLE:
            self._player_call("stop")
        self._timer.stop()
        self._set_preparing(False)
        self._set_state(IDLE)

    def memorise_left(self) -> float | None:
        """Seconds left of the memorisation period, on the player's sample clock (so a
        pause stops it too), or None outside one."""
        from audio.programme import MEMORISE
        prog = self.programme
        if prog is None or self._state == IDLE or not self.voices.has_player() \
                or not prog.has_mark(MEMORISE, "memorise_end"):
            return None
        player = self.voices.player()
        if player.programme is not prog:
            return None
        left = (prog.mark_sample(MEMORISE, "memorise_end") - player.position) / prog.rate
        return left if left > 0 else None

    def mark_time(self, card_index: int, name: str) -> float | None:
        return self.voices.player().mark_time(card_index, name)

    def disturbance(self, kimariji_t: float, touch_t: float) -> list:
        """The player's stalls that make a race untrustworthy whose kimariji sounded at
        `kimariji_t` and that was touched at `touch_t` (`Player.disturbance_between`); empty
        when the reaction time is as the sound was heard. Ask it a little after the touch
        (`trainer.ui.race_checks.CHECK_AFTER_S`): a late callback is known when it runs."""
        if not self.voices.has_player():
            return []
        return list(self.voices.player().disturbance_between(kimariji_t, touch_t))

    @property
    def state(self) -> str:
        return self._state

    def _player_call(self, name: str) -> None:
        if self.voices.has_player():
            getattr(self.voices.player(), name)()

    def _set_preparing(self, waiting: bool) -> None:
        if waiting != self._preparing:
            self._preparing = waiting
            self.preparing.emit(waiting)

    @property
    def is_preparing(self) -> bool:
        """The reading waits for clips still being made (before its first sound, or run dry)."""
        return self._preparing

    def _set_state(self, state: str) -> None:
        self._device_paused = False       # any change of state after a device pause is the person's
        if state != self._state:
            self._state = state
            self.state_changed.emit(state)

    # -- events from the audio side -------------------------------------------------------------
    def _poll(self) -> None:
        from audio.player import (
            CARD_STARTED,
            DEVICE_BACK,
            DEVICE_LOST,
            FINISHED_EVENT,
            HELD_EVENT,
            KIMARIJI,
            SHIMO_END,
            SOUND_FLOWING,
            SOUND_STALLED,
        )
        player = self.voices.player()
        for ev in player.poll_events():
            if ev.kind == DEVICE_LOST:
                self._device_lost(player)
            elif ev.kind == DEVICE_BACK:
                self._device_back(player)
            elif ev.kind == SOUND_STALLED:
                self._stalled_at = ev.time
                notify_sound(tr("sound.stalled"))
            elif ev.kind == SOUND_FLOWING:
                since, self._stalled_at = self._stalled_at, None
                notify_sound(tr("sound.flowing", seconds=ev.time - (since or ev.time)))
                self._stutters_told = max(self._stutters_told, ev.time)   # that notice said it
            elif ev.kind == CARD_STARTED:
                self._card_started(ev.card_index, ev.poem)
            elif ev.kind == KIMARIJI and ev.card_index >= 0:   # the joka decides nothing
                self.kimariji.emit(ev.card_index, ev.poem, ev.time)
            elif ev.kind == SHIMO_END:
                if ev.card_index >= 0 or self._joka_repeated(ev):
                    self._finish(ev.card_index, ev.poem)
            elif ev.kind == HELD_EVENT:
                self._set_state(HELD)
            elif ev.kind == FINISHED_EVENT:
                for i, no in enumerate(self.order):
                    self._finish(i, no)
                self._timer.stop()
                self._set_state(IDLE)
                self.finished.emit()
        if self._state != IDLE:
            self._set_preparing(bool(getattr(player, "starved", False)))
        self._tell_stutters(player)

    def _tell_stutters(self, player) -> None:
        """Short stalls in the reading (an underrun, a late callback: no SOUND_STALLED) are
        said in the status bar, at most once every STUTTER_NOTICE_S, with whether reaction
        times around them count (a stall the stream's time showed is allowed for)."""
        if self._stalled_at is not None:           # a long stall: its own notices say it
            return
        now = player.now()
        if now - self._stutter_said_at < STUTTER_NOTICE_S:
            return
        new = [s for s in player.stalls_between(self._stutters_told, now)
               if s.at > self._stutters_told and s.sample >= 0]
        if not new:
            return
        self._stutters_told = max(s.at for s in new)
        self._stutter_said_at = now
        ms = sum(abs(s.length_s or 0.0) for s in new) * 1000
        key = "sound.stuttered_allowed" if all(s.rederived for s in new) else "sound.stuttered"
        notify_sound(tr(key, n=len(new), ms=f"{ms:.0f}"))

    def _device_lost(self, player) -> None:
        if self._state == IDLE:
            return
        was_playing = self._state == PLAYING
        player.pause()
        self._set_state(PAUSED)
        self._device_paused = was_playing
        # The player's own words for what happened (PortAudio's, English) go inside the notice.
        text = tr("sound.lost", problem=player.device_problem or "—")
        self.device_problem.emit(text)
        notify_sound(text)

    def _device_back(self, player) -> None:
        """The device is back: the reading the lost device paused goes on, as its notice said."""
        if not self._device_paused:
            return
        self.resume()
        notify_sound(player.status_message)

    def _joka_repeated(self, ev) -> bool:
        # The joka's shimo-no-ku is read twice: it is done after the second one.
        prog = self.programme
        return prog is not None and prog.has_mark(-1, "shimo2_end") and \
            ev.sample >= prog.mark_sample(-1, "shimo2_end")

    def _card_started(self, index: int, poem: int) -> None:
        if index >= 0:
            for i in range(index):          # cards skipped over are done too
                self._finish(i, self.order[i])
        if index not in self._started:
            self._started.add(index)
            self.card_started.emit(poem)

    def _finish(self, index: int, poem: int) -> None:
        if index not in self._done:
            self._done.add(index)
            self.card_finished.emit(poem)


class _ClipsAsMade:
    """The voice as a growing reading asks it: each clip once `ahead` has made its poem;
    once the reading is stopped (`cancelled`) no clip is taken (nor rendered here), so
    the worker laying the programme out ends at once."""

    def __init__(self, ahead, voice, cancelled):
        self._ahead, self._voice, self._cancelled = ahead, voice, cancelled
        self.name, self.rate = voice.name, voice.rate

    def _clip(self, no: int, part: str):
        from trainer.ui.tasks import TaskCancelled
        self._ahead.wait(no)
        if self._cancelled.is_set():
            raise TaskCancelled
        return getattr(self._voice, part)(no)

    def kami(self, no: int):
        return self._clip(no, "kami")

    def shimo(self, no: int):
        return self._clip(no, "shimo")

    def available(self) -> frozenset[int]:
        return self._voice.available()


def _synthesis_ahead(voice, poems_in_order: list[int]):
    """A `SynthesisAhead` (not started) for the synthesised voice when some clip of the
    reading is not made yet, so the reading starts once its first step is ready; else
    None (a recorded or stand-in voice, a full cache, no engine: read as it is)."""
    from audio.synth import SynthesisAhead, SynthVoice
    if not isinstance(voice, SynthVoice) or not voice.available():
        return None
    todo = list(dict.fromkeys(poems_in_order))
    if all(voice.key(no, part) in voice.cache for no in todo for part in ("kami", "shimo")):
        return None
    return SynthesisAhead(voice, todo, workers=SYNTH_WORKERS)


SYNTH_WORKERS = 2   # as `karuta read`: one HTS engine per worker (audio.synth.synthesize_all)
