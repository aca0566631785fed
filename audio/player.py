"""The player: plays a `Programme` sample-accurately and is the session's one clock.

One output stream stays open for the whole session (a new stream loses its
first ~1 ms), playing silence when nothing is loaded. For every block the
stream callback knows when its first sample reaches the speaker (PortAudio's
``outputBufferDacTime``, in stream time, mapped to ``time.perf_counter`` by an
offset measured when the stream opens and re-measured if the stream clock
steps: on ALSA it is the wall clock). Those times are noisy, and under CPU load
PulseAudio's wander by several ms for seconds; the device itself plays one frame
after another at a steady rate. So between real jumps a frame's time is counted
from an anchor, along a line fitted to the reports over seconds (`CountingClock`),
which also learns the device's real sample rate: the PulseAudio null sink here
runs 450-520 ppm fast against perf_counter, 30 ms a minute that counting frames
at 48000 a second would accumulate. Measured end to end
(tests/test_realaudio_player.py, tests/test_realaudio_kimariji.py): every mark
within about ±2 ms of where the recording puts it, with CPU load added too.
From that the player answers:

    player.mark_time(card_index, "kimariji")   # perf_counter seconds, or None

- a mark already played: the moment it actually sounded (pauses, holds and
  skips after it do not move it; if the reading jumps back before it, e.g. to
  repeat a shimo-no-ku, it becomes a future mark again and gets its new time);
- a future mark while playing: the moment it will sound if nothing changes;
- a future mark while paused or held, or behind a pending hold: None (it
  depends on when the user resumes); marks jumped over by a skip: None.

Control (any thread; each call queues a command the callback applies at the
start of its next block, so "at once" means within one block):

    load(programme) start(at=0) pause(at="now"|KAMI|SHIMO) hold(before=SHIMO|KAMI)
    resume() (= release())
    next_card() repeat_shimo() stop() set volume
    extend(programme)   # the next step of a growing programme (`Programme.grow`), seamlessly

Hold: the reader waits at the next hold point (`Programme.hold_points`) until
`resume()`. ``before=SHIMO`` is the kyogi wait while players rearrange cards:
after a kami-no-ku, before the shimo-no-ku that leads into the next card
(the shimo/ma/kami unit is never broken); ``before=KAMI`` waits after a
shimo-no-ku, before the ma and the next kami-no-ku. When released the whole
gap is still heard. Pauses, skips, repeats and stops fade out over the rest of
the current block (at most ``FADE`` samples) so nothing clicks; the position
arithmetic stays exact (the fade only shapes the gain).

Events (`poll_events()`, for a Qt timer on the GUI thread): `Event(kind,
card_index, poem, sample, time)` with kind one of CARD_STARTED (kami_start
sounded), KIMARIJI, SHIMO_END, HELD, FINISHED. The callback only appends to a
deque; it never calls user code, never locks, never allocates arrays.

Losing the device: a watchdog thread (`Watchdog`) checks ten times a second
that the stream still asks for samples. A stream that asked for none for
`STALL_S` has *stalled* (the server starved of CPU, a blocked callback): it is
kept, a SOUND_STALLED event is queued, and the reading simply waits where it
was, since nothing is heard; when the stream asks again a SOUND_FLOWING event
follows and the reading goes on by itself (issue 28: treating a 0.5-s stutter
as a lost device paused readings for good). A stream that stopped (the
PulseAudio server killed, a USB headset pulled) or stalled for `LOST_S` is
lost: it is closed, `status_message` says so, a DEVICE_LOST event is queued,
and the same callback goes on driving the reading from the system clock:
position, holds and marks carry on. Every `REOPEN_S` the player tries the
device again, once the lost stream is closed (one stream open at a time); when
it opens, playing moves back onto it (a DEVICE_BACK event).

Stalls (issue 23): the sound may not leave on time: the device ran dry (PortAudio's
``output_underflow`` flag), the stream's own time jumped past where this block was
expected (silence was inserted before it), or the callback ran after its block was
due (blocked, or starved of CPU). Each is recorded as a `Stall` with its time and
length in `stalls`. Where the stream's time shows the gap, the count restarts from
it, so later samples are stamped when they really sound (*re-derived*); where it
does not (a flag, a late callback, a jump under RESTART_S, or the stream's time
standing over the counted line: a "step"), the times after it are in doubt for
`SETTLE_S`. `disturbance_between(kimariji_time,
touch_time)` gives the stalls that make such a race's reaction time untrustworthy.

No sound: if PortAudio is missing (``import sounddevice`` raises OSError) or
there is no output device, the player says why in `status_message`, and plays
silently with the same callback driven by a thread on the system clock, so
drills and the app keep working with a clock that runs.
"""
from __future__ import annotations

import collections
import contextlib
import math
import os
import threading
import time
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from audio.programme import KAMI, SHIMO, Programme
from audio.voice import RATE

if TYPE_CHECKING:  # imported when a device is opened: PortAudio may be missing
    import sounddevice

# Player states.
IDLE, PLAYING, PAUSED, HELD, FINISHED = "idle", "playing", "paused", "held", "finished"
# Event kinds.
CARD_STARTED, KIMARIJI, SHIMO_END, HELD_EVENT, FINISHED_EVENT = (
    "card_started", "kimariji", "shimo_end", "held", "finished")
# The sound device went away (the reading goes on on the silent clock) / came back.
DEVICE_LOST, DEVICE_BACK = "device_lost", "device_back"
# The stream stopped asking for samples for a moment (the reading waits) / asks again.
# SOUND_STALLED's time is when the stream last asked; SOUND_FLOWING's when it asked again.
SOUND_STALLED, SOUND_FLOWING = "sound_stalled", "sound_flowing"

# Output latency asked of PortAudio. It costs nothing in accuracy (the clock
# reports when samples really sound) and only delays pause/skip by as much;
# 'low' (about 10 ms on PulseAudio) underran under full load of both cores.
LATENCY = 0.04
REALTIME_PRIORITY = 20  # SCHED_FIFO priority asked for the audio thread (1..99)
FADE = 120  # samples (2.5 ms) of fade before a pause/skip/stop and after a resume
STALL_S = 0.5      # a stream that asked for no samples this long has stalled (it is waited for)
LOST_S = 3.0       # ... and this long is lost (closed; the silent clock plays, the device is retried)
FIRST_BLOCK_S = 2.0  # a new stream may take this long to ask for its first block
WATCH_S = 0.1      # how often the watchdog looks
REOPEN_S = 1.0     # how often a lost device is tried again
STALL_GAP_S = 0.01  # a jump of the stream's time (or a callback this late) is a stall: DAC
                    # times carry a few ms of noise, and the counted clock ignores those
SETTLE_S = 2.0      # after a stall the stream's time did not show, later times are in doubt
                    # this long (the time PulseAudio's timing updates take to catch up)
STALL_CAUSES = ("gap", "underflow", "late", "drift", "step")   # "drift": older statistics only
STEP_S = 0.004      # the stream's time this far above the counted line (`CountingClock`) for
STEP_BLOCKS = 3     # this many blocks running is a "step": silence may have been put in that
STEP_NOISE = 8.0    # the time showed in no single jump; and over this many times the stream's
JITTER_BLOCKS = 200  # usual block-to-block wobble, averaged over these blocks (~1 s), once
JITTER_LEARNT = 50  # JITTER_LEARNT blocks are seen (a host API's coarse times are no step)
RESTART_S = 0.02    # a jump of the stream's time over this is re-derived: the count starts from it

_EVENT_OF_MARK = {"kami_start": CARD_STARTED, "kimariji": KIMARIJI,
                  "shimo_end": SHIMO_END, "shimo2_end": SHIMO_END}


def _try_realtime() -> bool:
    """Ask for SCHED_FIFO for the calling (audio) thread, as JACK and PortAudio can.

    Under full load of both cores an ordinary-priority callback thread was
    starved into underruns; a modest real-time priority avoids that. Needs the
    right (root, rtkit limits, or RLIMIT_RTPRIO); without it playback goes on as before.
    """
    # Never the main thread: the callback runs there only when something drives the player by
    # hand (the tests' fake streams), and a real-time main thread passes the policy on to every
    # process it starts. Two CPU burners started so in the recorded-monitor test held both
    # cores at SCHED_FIFO for ever, and the test that started them never ran again.
    if threading.current_thread() is threading.main_thread():
        return False
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))
        return True
    except (AttributeError, OSError):
        return False


class Event(NamedTuple):
    kind: str
    card_index: int
    poem: int
    sample: int     # programme sample
    time: float     # perf_counter seconds when it reached (or reaches) the speaker


class Stall(NamedTuple):
    """The sound did not leave on time (see the module docstring)."""
    at: float                # perf_counter time where the sound stopped leaving on time
    length_s: float | None   # how long (the silence inserted, or the callback's lateness), if known;
                             # negative for a jump of the stream's time back
    sample: int              # programme sample due then (-1 if nothing was playing)
    cause: str               # "gap": the stream's time jumped; "underflow": PortAudio's flag;
                             # "late": the callback ran after its block was due; "step": the
                             # stream's time stood over the counted line (`STEP_S`)
    rederived: bool          # the stream's time showed it: samples after it are stamped right

    @property
    def end(self) -> float:
        return self.at + abs(self.length_s or 0.0)


class Watchdog:
    """Notices a stream that stopped asking for samples (pure: the clock is given).

    `check(frames)` is called every `WATCH_S` with the count of frames the
    stream has played; it is stalled when that count has not moved for
    `stall_s`, or, before its first block, for `first_s` (a new PulseAudio stream
    may wait that long for its first blocks; once it has asked, `stall_s` holds).
    """

    def __init__(self, clock=time.perf_counter, stall_s: float = STALL_S,
                 first_s: float = FIRST_BLOCK_S):
        self.clock = clock
        self.stall_s = stall_s
        self.first_s = first_s
        self.reset(0)

    def reset(self, frames: int) -> None:
        """Start watching afresh (a stream just opened at `frames`)."""
        self._frames = frames
        self._since = self._opened = self.clock()
        self._asked = False         # the stream has asked for a block since it opened

    def check(self, frames: int) -> bool:
        """True if the stream is stalled."""
        return self.stalled_for(frames) > 0.0

    def stalled_for(self, frames: int) -> float:
        """Seconds since the stream last asked for samples, once that is over the limit;
        0.0 while it plays (or is still within the limit)."""
        now = self.clock()
        if frames != self._frames:
            self._frames, self._since, self._asked = frames, now, True
            return 0.0
        # Only the wait for the first block gets `first_s`: a stream that played and then
        # stopped asking has stalled, in its first 2 s too (it was waited out unannounced).
        settled = self._asked or now - self._opened >= self.first_s
        idle = now - self._since
        return idle if idle > (self.stall_s if settled else self.first_s) else 0.0


@contextlib.contextmanager
def _c_stderr_silenced():
    """PortAudio and ALSA print a dozen lines on the C library's stderr for every failed
    open; a retry each second would flood the terminal. For the few milliseconds of the
    attempt file descriptor 2 goes to /dev/null (anything else written then is lost too)."""
    try:
        saved = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        yield
        return
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _abandon(stream) -> None:
    """Close a stream whose device went away (on a thread of its own: it may block).
    Closed even when aborting fails: a stream left open stays in the sound server."""
    try:
        stream.abort()
    except Exception:
        pass
    try:
        stream.close()
    except Exception:
        pass


class FakeTime(NamedTuple):
    """Stands in for PortAudio's time info (tests, the silent clock)."""

    outputBufferDacTime: float
    currentTime: float = 0.0


class _Loaded:
    """A programme with the arrays the callback needs, built off the audio thread.

    `before`: the loaded programme this one continues (`Player.extend`); `carry`
    then gives, for each of its marks, the index of the same mark here.
    """

    def __init__(self, programme: Programme, before: "_Loaded | None" = None):
        self.programme = programme
        self.before = before
        items = sorted(programme.marks().items(), key=lambda kv: (kv[1], kv[0]))
        self.keys = [k for k, _ in items]
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.carry = np.array([self.index[k] for k in before.keys], dtype=np.int64) \
            if before is not None else np.zeros(0, dtype=np.int64)
        self.pos = np.array([v for _, v in items], dtype=np.int64)
        self.card_poem = {i: no for i, no in enumerate(programme.card_order)}
        self.card_poem[-1] = 0
        self.event = [_EVENT_OF_MARK.get(name) for _, name in self.keys]
        self.time = np.full(len(self.keys), np.nan)   # when each mark last sounded
        self.holds = {kind: np.array(programme.hold_points(kind), dtype=np.int64)
                      for kind in (KAMI, SHIMO)}
        segs = programme.segments
        self.shimo_starts = np.array([s.start for s in segs if s.kind == SHIMO], dtype=np.int64)
        # Where "next card" lands: the silence before each kami-no-ku (or the kami itself).
        kami = [(i, s) for i, s in enumerate(segs) if s.kind == KAMI]
        self.kami_starts = np.array([s.start for _, s in kami], dtype=np.int64)
        self.kami_lead = np.array([segs[i - 1].start if i > 0 and not segs[i - 1].sounding
                                   else s.start for i, s in kami], dtype=np.int64)


class CountingClock:
    """When each output frame sounds, by counting frames from an anchor (issue 23).

    Between real jumps (a gap in the stream's time, an underrun: `restart`), frame `f`
    sounds at ``t0 + c + s * (f - f0)``: the device plays its frames one after another at
    its own steady rate, so the only unknowns are where the line lies and its slope. Both
    are fitted to the stream's reported times (PortAudio's ``outputBufferDacTime``), but
    not block by block: the reports are summed up as the median of each `WINDOW_S` window,
    and a window lying more than `LOW_S` below the line is left out of the fit. Under CPU
    load PulseAudio's reports sank 3-9 ms below the true line for seconds at a time and
    came back (recorded-monitor test, issue 23: the kimariji found in the recording lie
    on one straight line in frames to 0.01 ms, the reports wander around it, almost only
    downward), and the old clock filter followed them, stamping kimariji 5-7 ms early
    with nothing wrong in the sound.

    The slope is the device's rate against perf_counter (the PulseAudio null sink here:
    450 ppm fast), one for all segments: the lines of the last `PAST_SEGMENTS` segments at
    least `LONG_WINDOWS` long, the current one among them once it is, pooled (their
    windows' regressions summed), within `MAX_RATE_ERROR` of the nominal rate. A short
    segment alone fitted on a loaded server once gave 6650 ppm, and every restart after
    it began a line that left the reports within a second. Pure Python, no
    arrays: it runs in the audio callback (a fit of at most `MAX_WINDOWS` points a window).
    """

    WINDOW_S = 0.5
    LOW_S = 0.0007        # a window this far below the line is a dip of the reports: left out
    LONG_WINDOWS = 20     # a segment this long (10 s) tells the device's rate; a shorter one
                          # does not: the reports' start-up creep alone gave 1450 ppm over 3 s
    RECENT_WINDOWS = 8    # until the rate is known, the line lies through these last windows
    MAX_WINDOWS = 120     # the fit looks back this far (60 s)
    PAST_SEGMENTS = 10
    MAX_RATE_ERROR = 0.002   # a device 0.2 % off its nominal rate is none (crystals: 0.01 %)

    def __init__(self, rate: int):
        self.rate = rate
        self.spf = 1.0 / rate           # the line's slope now: seconds per frame
        self._past: collections.deque[tuple[float, float]] = collections.deque(maxlen=self.PAST_SEGMENTS)
        self._own = (0.0, 0.0)          # this segment's (Sxx, Sxy) over its kept windows
        self.f0: int | None = None
        self.restarts = 0

    def restart(self, frame: int, t: float) -> None:
        """A real jump: frame `frame` sounds at `t`; the line starts again from there."""
        if self._own[0] > 0.0:
            self._past.append(self._own)
        self.restarts += 1
        self.f0, self.t0, self.c = frame, t, 0.0
        self._ref = self.spf            # residuals are taken against this slope
        self._own = (0.0, 0.0)
        self._windows: list[tuple[float, float]] = []   # (frames since f0, median residual)
        self._residuals: list[float] = []
        self._window_start = frame

    @property
    def rate_known(self) -> bool:
        """A segment has been long enough (LONG_WINDOWS) to tell the device's rate."""
        return bool(self._past) or self._own[0] > 0.0

    def at(self, frame: int) -> float:
        """When `frame` sounds, by the line."""
        assert self.f0 is not None
        return self.t0 + self.c + self.spf * (frame - self.f0)

    def feed(self, frame: int, frames: int, t: float) -> float:
        """The stream reports block [frame, frame + frames) to sound from `t`; when it does."""
        if self.f0 is None:
            self.restart(frame, t)
        assert self.f0 is not None
        self._residuals.append(t - self.t0 - self._ref * (frame - self.f0))
        end = frame + frames
        if end - self._window_start >= self.WINDOW_S * self.rate:
            self._residuals.sort()
            middle = (self._window_start + end) / 2 - self.f0
            self._windows.append((middle, self._residuals[len(self._residuals) // 2]))
            del self._windows[:-self.MAX_WINDOWS]
            self._residuals, self._window_start = [], end
            self._fit()
        return self.at(frame)

    def _fit(self) -> None:
        """The line through this segment's windows at the pooled slope, the windows lying
        LOW_S below it left out (the reports' dips), until none more is left out. While no
        segment has been long enough to tell the device's rate, the nominal rate is used,
        through the last RECENT_WINDOWS windows only (450 ppm off over 4 s is 0.9 ms)."""
        own = len(self._windows) >= self.LONG_WINDOWS
        known = own or bool(self._past)
        keep = points = self._windows if known else self._windows[-self.RECENT_WINDOWS:]
        slope = self.spf if known else 1.0 / self.rate
        sxx = sxy = 0.0
        for _ in range(4):
            mx = sum(x for x, _ in keep) / len(keep)
            my = sum(y for _, y in keep) / len(keep)
            sxx = sum((x - mx) ** 2 for x, _ in keep)
            sxy = sum((x - mx) * (y - my) for x, y in keep) + self._ref * sxx   # against slope 0
            if known:
                slope = self._pooled(sxx if own else 0.0, sxy if own else 0.0)
            c = my - (slope - self._ref) * mx
            kept = [(x, y) for x, y in points if y - (c + (slope - self._ref) * x) >= -self.LOW_S]
            if len(kept) == len(keep) or not kept:
                break
            keep = kept
        self._own = (sxx, sxy) if own else (0.0, 0.0)
        self.c, self.spf = c, slope     # t = t0 + c + slope x: the residual line plus ref x

    def _pooled(self, sxx: float, sxy: float) -> float:
        """The slope of this segment's kept windows (Sxx, Sxy: none while it is short) pooled
        with the past long segments', within MAX_RATE_ERROR of the nominal rate."""
        nominal = 1.0 / self.rate
        total_xx = sxx + sum(p[0] for p in self._past)
        if total_xx <= 0.0:
            return nominal
        slope = (sxy + sum(p[1] for p in self._past)) / total_xx
        return min(max(slope, nominal * (1 - self.MAX_RATE_ERROR)), nominal * (1 + self.MAX_RATE_ERROR))


class Player:
    """Plays programmes on one long-lived output stream; see the module docstring.

    backend: ``"auto"`` (a sound device if there is one, else silent), ``"silent"``
    (system-clock thread, no device), or ``"manual"`` (nothing runs: tests call
    `process` with fake time info).
    """

    def __init__(self, *, backend: str = "auto", device=None, blocksize: int = 256,
                 latency=LATENCY, rate: int = RATE):
        if backend not in ("auto", "silent", "manual"):
            raise ValueError(f"unknown backend {backend!r}")
        self.backend = backend
        self.device = device
        self.blocksize = blocksize
        self.latency = latency
        self.rate = rate
        self.volume = 1.0
        self.status_message = ""
        self.silent = backend != "auto"
        self.silent_reason = ""       # why it plays on the system clock, when it could not open a device
        self.underflows = 0
        self.underflow_log: collections.deque = collections.deque(maxlen=64)  # (frame, state, pos)
        self.stalls: collections.deque[Stall] = collections.deque(maxlen=10_000)
        self.clock = time.perf_counter  # when the callback runs (tests give a fake one)
        self._late = 0.0              # how late the callback was entered (set by _callback)
        self._raw_next: float | None = None  # the stream's time the next block should carry
        self.callback_errors = 0
        self.last_error = ""
        self.clock_offset = 0.0  # perf_counter - stream time
        self.clock_steps = 0      # times the stream clock was seen to jump
        self.clock_resets = 0     # times the count of frames started again (real jumps)
        self.realtime: bool | None = None  # did the audio thread get real-time priority?
        self.waits = 0                # times a growing programme ran out before it was extended
        self._waiting = False
        self._given: _Loaded | None = None   # the last programme handed to load/extend
        self._commands: collections.deque = collections.deque()
        self._events: collections.deque = collections.deque(maxlen=10_000)
        self._stream: sounddevice.OutputStream | None = None
        self._thread: threading.Thread | None = None
        self._running = False
        self._lost = False            # the device went away: the silent clock plays
        self._watchdog = Watchdog()
        self._watcher: threading.Thread | None = None
        self._watching = False
        self._stalled_since: float | None = None   # perf_counter time the stream last asked, in a stall
        self._closing: threading.Thread | None = None  # closing the last lost stream
        self._device_name = ""
        self.device_losses = 0
        self.device_problem = ""      # what happened to the device, the last time it was lost
        self._ramps: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        # Callback-owned state.
        self._loaded: _Loaded | None = None
        self._state = IDLE
        self._pos = 0
        self._hint = -1
        self._mi = 0                  # marks with index < _mi have sounded in this pass
        self._hold_kind: str | None = None
        self._hold_at = -1
        self._fade_in = False
        self._frames = 0              # output frames since the stream opened
        # Published after every block for other threads: (loaded, state, pos, mi,
        # time of the sample at `pos`, hold_at, seconds per frame).
        self._snap: tuple[_Loaded | None, str, int, int, float, int, float] = (None, IDLE, 0, 0, 0.0, -1, 1.0 / rate)
        # The clock (see `CountingClock`): when each frame sounds, seconds per frame.
        self._counting = CountingClock(rate)
        self._restart = True          # the next block starts the count again (a real jump)
        self._above = 0               # blocks running the stream's time was over the line (step)
        self._jitter, self._jitter_n = 0.0, 0   # the stream's usual block-to-block wobble, blocks seen
        self._spf = 1.0 / rate

    # -- opening and closing --------------------------------------------------

    def open(self) -> "Player":
        """Open the stream (or start the silent clock). Safe to call twice."""
        if self._stream is not None or self._running or self.backend == "manual":
            return self
        if self.backend == "auto":
            self._open_device()
        if self.silent:
            self._start_silent_clock()
        else:
            self._start_watchdog()
        return self

    def _open_device(self) -> None:
        try:
            import sounddevice as sd
        except OSError as exc:
            return self._go_silent(f"PortAudio is not installed ({exc}); "
                                   "install libportaudio2 to hear the reading")
        try:
            info = sd.query_devices(self.device, "output")
        except (ValueError, sd.PortAudioError) as exc:
            return self._go_silent(f"no sound output device ({exc})")
        self._device_name = info["name"]
        try:
            self._stream = stream = self._new_stream(sd)
            stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            self._stream = None
            return self._go_silent(f"the sound device {info['name']!r} cannot be opened ({exc})")
        self._watchdog.reset(self._frames)
        self.clock_offset = self._measure_offset(stream)
        self.status_message = (f"playing on {info['name']!r}, output latency "
                               f"{stream.latency * 1000:.1f} ms")

    def _new_stream(self, sd) -> sounddevice.OutputStream:
        return sd.OutputStream(
            samplerate=self.rate, blocksize=self.blocksize, device=self.device,
            channels=1, dtype="float32", latency=self.latency, callback=self._callback)

    def _go_silent(self, why: str) -> None:
        self.silent = True
        self.silent_reason = why
        self.status_message = f"{why}. Playing silently: the clock runs on the system clock."

    @staticmethod
    def _measure_offset(stream: sounddevice.OutputStream) -> float:
        """perf_counter minus `stream`'s time, from the tightest of several bracketed reads."""
        best_width, best_offset = math.inf, 0.0
        for _ in range(50):
            a = time.perf_counter()
            s = stream.time
            b = time.perf_counter()
            if b - a < best_width:
                best_width, best_offset = b - a, (a + b) / 2 - s
        return best_offset

    def _start_silent_clock(self) -> None:
        self._running = True
        self._thread = threading.Thread(target=self._silent_loop, name="silent-clock", daemon=True)
        self._thread.start()

    def _silent_loop(self) -> None:
        buf = np.zeros((self.blocksize, 1), dtype=np.float32)
        t0 = time.perf_counter()
        frames = 0
        while self._running:
            due = t0 + frames / self.rate
            self.process(buf, self.blocksize, FakeTime(due, due), None)
            frames += self.blocksize
            delay = t0 + frames / self.rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)

    def _stop_silent_clock(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None

    # -- the watchdog (its own thread; never the audio callback) ----------------------

    def _start_watchdog(self) -> None:
        self._watching = True
        self._watcher = threading.Thread(target=self._watch_loop, name="audio-watchdog", daemon=True)
        self._watcher.start()

    def _watch_loop(self) -> None:
        next_try = 0.0
        while self._watching:
            time.sleep(WATCH_S)
            if not self._watching:
                break
            if not self._lost:
                why = self._stream_trouble()
                if why:
                    self._lose_device(why)
                    next_try = time.perf_counter() + REOPEN_S
            elif time.perf_counter() >= next_try:
                self._try_reopen()
                next_try = time.perf_counter() + REOPEN_S

    def _stream_trouble(self) -> str:
        """Why the stream is lost, or "" if it plays (or has only stalled: see `_watch_stall`)."""
        stream = self._stream
        if stream is None:
            return ""
        if not stream.active:
            return "the sound device stopped"
        idle = self._watchdog.stalled_for(self._frames)
        if idle > LOST_S:
            return f"the sound device stopped asking for sound for over {LOST_S:.1f} s"
        self._watch_stall(idle)
        return ""

    def _watch_stall(self, idle: float) -> None:
        """Queue SOUND_STALLED when the stream stops asking for samples, SOUND_FLOWING when it
        asks again. Nothing else: the reading waits in the callback where it was."""
        now = time.perf_counter()
        if idle > 0.0 and self._stalled_since is None:
            self._stalled_since = now - idle
            self._events.append(Event(SOUND_STALLED, -1, -1, self.position, self._stalled_since))
        elif idle == 0.0 and self._stalled_since is not None:
            self._stalled_since = None
            self._events.append(Event(SOUND_FLOWING, -1, -1, self.position, now))

    def _lose_device(self, why: str) -> None:
        """Close the dead stream and go on playing on the system clock, where the reading is."""
        self._lost = True   # the callback, if it ever runs again, plays silence and touches nothing
        self._stalled_since = None
        stream, self._stream = self._stream, None
        self._closing = threading.Thread(target=_abandon, args=(stream,), name="close-lost-stream",
                                         daemon=True)
        self._closing.start()
        self.device_losses += 1
        self.silent = True
        self.device_problem = f"{why} ({self._device_name!r})"
        self.status_message = (f"{self.device_problem}; the reading goes on silently "
                               "and sound comes back when the device does")
        self._start_silent_clock()
        self._events.append(Event(DEVICE_LOST, -1, -1, self.position, time.perf_counter()))

    def _try_reopen(self) -> bool:
        """Open the device again; if it opens, hand the reading back to it from the silent clock.
        Not while the lost stream is still being closed: one stream open at a time."""
        if self._closing is not None and self._closing.is_alive():
            return False
        try:
            import sounddevice as sd
            with _c_stderr_silenced():
                stream = self._new_stream(sd)
        except Exception:  # still gone (PortAudioError), or the device list changed
            return False
        self._stop_silent_clock()   # one driver of the callback at a time
        self._lost = False
        self._stream = stream
        try:
            stream.start()
        except Exception:
            self._stream = None
            self._lost = True
            self._closing = threading.Thread(target=_abandon, args=(stream,), daemon=True)
            self._closing.start()
            self._start_silent_clock()
            return False
        self._watchdog.reset(self._frames)
        self.clock_offset = self._measure_offset(stream)
        self.silent = False
        self.status_message = f"the sound device {self._device_name!r} is back; playing on it again"
        self._events.append(Event(DEVICE_BACK, -1, -1, self.position, time.perf_counter()))
        return True

    def close(self) -> None:
        self._watching = False
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join(timeout=2.0)
            self._watcher = None
        self._stop_silent_clock()
        if self._stream is not None:
            stream, self._stream = self._stream, None
            stream.stop()
            stream.close()

    def __enter__(self) -> "Player":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- control (any thread) ---------------------------------------------------

    def load(self, programme: Programme) -> None:
        """Replace the programme (stops the current one)."""
        self._given = _Loaded(programme)
        self._commands.append(("load", self._given))

    def extend(self, programme: Programme) -> None:
        """Swap the programme last given (`load` or `extend`) for `programme`, which
        continues it (`Programme.grow`: the same samples and marks up to its end),
        without a break: the position, the state, a hold and the times marks sounded
        are kept. A growing programme that runs out before its continuation comes
        waits at its end, silent (counted in `waits`), and goes on when it comes."""
        given = self._given
        if given is None:
            return self.load(programme)
        self._given = _Loaded(programme, before=given)
        self._commands.append(("extend", self._given))

    def start(self, at: int = 0) -> None:
        """Play the loaded programme from sample `at`."""
        self._commands.append(("start", int(at)))

    def pause(self, at: str = "now") -> None:
        """Stop at once (within one block), or with ``at=KAMI``/``SHIMO`` at the next
        hold point before one (the same as `hold`); `resume` continues from there."""
        if at == "now":
            self._commands.append(("pause", None))
        else:
            self.hold(before=at)

    def hold(self, before: str = SHIMO) -> None:
        """Wait at the next hold point before a `before` (SHIMO or KAMI) until `resume`."""
        if before not in (KAMI, SHIMO):
            raise ValueError(f"hold before {before!r}: must be {KAMI!r} or {SHIMO!r}")
        self._commands.append(("hold", before))

    def resume(self) -> None:
        """Continue after a pause or a hold (also cancels a hold not reached yet)."""
        self._commands.append(("resume", None))

    release = resume

    def next_card(self) -> None:
        """Skip to the next card: to the ma before its kami-no-ku (or its start, if in that ma)."""
        self._commands.append(("skip", None))

    def repeat_shimo(self) -> None:
        """Read the last shimo-no-ku heard again, then go on (ma, next kami-no-ku)."""
        self._commands.append(("repeat", None))

    def stop(self) -> None:
        self._commands.append(("stop", None))

    # -- questions (any thread) ---------------------------------------------------

    @property
    def state(self) -> str:
        return self._snap[1]

    @property
    def position(self) -> int:
        """Programme sample the next block starts at."""
        return self._snap[2]

    @property
    def starved(self) -> bool:
        """A growing programme ran out before its continuation came: the reading waits
        at its end, silent, until `extend` brings the next card (issue 25)."""
        return self._waiting

    @property
    def settled(self) -> bool:
        """The clock knows the device's rate (a stretch of LONG_WINDOWS told it). Before, in a
        new stream's first ~10 s, its reports crept 1-7 ms up or down in some runs of the
        recorded-monitor test and the stamps with them, no stall flagged."""
        return self._counting.rate_known

    @property
    def programme(self) -> Programme | None:
        loaded = self._snap[0]
        return loaded.programme if loaded else None

    def poll_events(self) -> list[Event]:
        """Events since the last poll, oldest first."""
        out = []
        while self._events:
            out.append(self._events.popleft())
        return out

    def sample_time(self, sample: int) -> float | None:
        """When programme sample `sample` (not yet played) will sound, if playing on."""
        loaded, state, pos, _mi, t_pos, hold_at, spf = self._snap
        if state != PLAYING or self._commands or sample < pos:
            return None
        if 0 <= hold_at < sample:  # the mark at the hold point itself sounds before the wait
            return None
        return t_pos + (sample - pos) * spf

    def mark_time(self, card_index: int, name: str) -> float | None:
        """perf_counter time mark `name` of card `card_index` sounded or will sound (see module doc)."""
        loaded, state, pos, mi, t_pos, hold_at, _spf = self._snap
        if loaded is None:
            return None
        idx = loaded.index.get((card_index, name))
        if idx is None:
            raise KeyError(f"card {card_index} has no mark {name!r}")
        if idx < mi:
            t = loaded.time[idx]
            return None if np.isnan(t) else float(t)
        return self.sample_time(int(loaded.pos[idx]))

    def now(self) -> float:
        """The session clock's 'now' (perf_counter seconds)."""
        return time.perf_counter()

    # -- the callback ---------------------------------------------------------------

    def _callback(self, outdata, frames, time_info, status) -> None:
        if self._lost:  # the silent clock has the reading now
            outdata.fill(0.0)
            return
        if self.realtime is None:
            self.realtime = _try_realtime()
        if status.output_underflow:
            self.underflows += 1
            self.underflow_log.append((self._frames, self._state, self._pos))
        try:
            dac = time_info.outputBufferDacTime
            if dac:  # its first sample should not already be due: the callback ran late
                self._late = self.clock() - (dac + self.clock_offset)
            self.process(outdata, frames, time_info, status)
        except Exception as exc:  # never let an exception kill the stream
            self.callback_errors += 1
            self.last_error = repr(exc)
            outdata.fill(0.0)

    def process(self, outdata: np.ndarray, frames: int, time_info, status) -> None:
        """Fill one block; `time_info.outputBufferDacTime` is when its first sample sounds.

        The stream callback calls this; tests call it directly with `FakeTime`.
        """
        stream = self._stream  # the watchdog may drop it meanwhile
        dac = time_info.outputBufferDacTime
        if not dac:  # some host APIs leave it 0
            dac = time_info.currentTime + (stream.latency if stream is not None else 0.0)
        if stream is not None:
            self._track_offset(time_info.currentTime)
        self._notice_stall(dac + self.clock_offset, frames, status)
        t0 = self._count(dac + self.clock_offset, frames)
        out = outdata[:, 0]
        after = self._apply_commands()
        done = 0
        if self._state == PLAYING and self._loaded is not None:
            done = self._play(out, frames, t0)
            if self._fade_in:
                self._fade(out, 0, min(done, FADE), up=True)
                self._fade_in = False
            if after is not None and done:
                self._fade(out, max(0, done - FADE), done, up=False)
        out[done:] = 0.0
        if after is not None:
            self._apply_after(after)
        for ch in range(1, outdata.shape[1]):
            outdata[:, ch] = out
        if self.volume != 1.0:
            outdata *= self.volume
        self._frames += frames
        # While playing, sample `_pos` is the first of the next block.
        self._snap = (self._loaded, self._state, self._pos, self._mi,
                      t0 + frames * self._spf, self._hold_at, self._spf)

    def _notice_stall(self, t: float, frames: int, status) -> None:
        """Record a stall before the block whose first sample sounds at `t` (perf_counter),
        and start the count of frames again (`_count`) where the sound really jumped: the
        stream's time jumped past where the last block ended (re-derived if over RESTART_S),
        or PortAudio flagged an underflow, or the stream's time stood over the counted line
        for STEP_BLOCKS blocks (a "step"); or the callback ran late, with none of these (not
        re-derived: the count goes on). The stream's time sinking below the line is not a
        stall: under load PulseAudio's reports did that for seconds while the sound was whole."""
        expected, self._raw_next = self._raw_next, t + frames * self._spf
        late, self._late = self._late, 0.0
        jump = None if expected is None else t - expected
        usual = max(STEP_S, STEP_NOISE * self._jitter) if self._jitter_n >= JITTER_LEARNT else STALL_GAP_S
        if jump is not None and abs(jump) <= usual:   # a running mean, then an average of the last ~1 s
            self._jitter_n += 1
            self._jitter += (abs(jump) - self._jitter) / min(self._jitter_n, JITTER_BLOCKS)
        counted = self._counting.f0 is not None and not self._restart
        above = t - self._counting.at(self._frames) if counted else 0.0
        self._above = self._above + 1 if above > usual else 0
        flagged = bool(getattr(status, "output_underflow", False))
        sample = self._pos if self._state == PLAYING else -1
        if expected is not None and jump is not None and abs(jump) > STALL_GAP_S:
            # A jump back (the device's delay shrank after a recovery) is one too. Under
            # RESTART_S it may be the reports' own noise: in doubt for SETTLE_S all the same.
            self.stalls.append(Stall(min(t, expected), jump, sample, "gap", abs(jump) > RESTART_S))
            self._restart = True
        elif self._above >= STEP_BLOCKS:
            self.stalls.append(Stall(t - above, above, sample, "step", False))
            self._restart = True
        elif late > STALL_GAP_S:
            self.stalls.append(Stall(t, late, sample, "late", False))
        elif flagged:
            self.stalls.append(Stall(t, None, sample, "underflow", False))
            self._restart = True

    def disturbance_between(self, t0: float, t1: float) -> list[Stall]:
        """The stalls that make a race untrustworthy whose kimariji sounded at `t0` and
        that was touched at `t1` (perf_counter): those not re-derived that began by `t1`
        and whose doubt (their length and SETTLE_S after) reaches `t0`. Empty: the
        reaction time t1 - t0 is as the sound was heard."""
        return [s for s in list(self.stalls)
                if not s.rederived and s.at <= t1 and s.end + SETTLE_S >= t0]

    def stalls_between(self, t0: float, t1: float) -> list[Stall]:
        """Every stall (re-derived or not) from `t0` to `t1`: when the sound stuttered."""
        return [s for s in list(self.stalls) if t0 <= s.end and s.at <= t1]

    def _count(self, t: float, frames: int) -> float:
        """When this block's first sample sounds: counted from the last real jump
        (`CountingClock`), the stream's time `t` only fitted over seconds."""
        if self._restart:
            self._restart, self._above = False, 0
            self.clock_resets += 1
            self._counting.restart(self._frames, t)
        t0 = self._counting.feed(self._frames, frames, t)
        self._spf = self._counting.spf
        return t0

    def _track_offset(self, current_time: float) -> None:
        """Follow a step of the stream clock (PortAudio's ALSA stream time is the wall
        clock, CLOCK_REALTIME, which NTP or the user may set) by re-measuring the offset.

        perf_counter at callback entry is a few tens of µs after ``currentTime``
        was taken, so this reading only replaces the precise one measured at open
        when the two disagree by more than a wall-clock step could hide (20 ms).
        """
        seen = time.perf_counter() - current_time
        if abs(seen - self.clock_offset) > 0.02:
            self.clock_offset = seen
            self.clock_steps += 1

    def _apply_commands(self):
        """Apply queued commands; return the one that must wait for a fade (or None)."""
        after = None
        while self._commands:
            cmd, arg = self._commands.popleft()
            if cmd == "load":
                self._loaded, self._state, self._pos, self._hint, self._mi = arg, IDLE, 0, -1, 0
                self._hold_at, self._hold_kind, after = -1, None, None
            elif self._loaded is None:
                continue
            elif cmd == "extend":
                self._extend(arg)
            elif cmd == "start":
                self._seek(arg)
                self._state, self._fade_in = PLAYING, True
            elif cmd == "resume":
                if self._state in (PAUSED, HELD):
                    self._state, self._fade_in = PLAYING, True
                if after is not None and after[0] == "pause":
                    after = None    # a pause still waiting for its fade-out: undone, not kept
                self._hold_at, self._hold_kind = -1, None
            elif cmd == "hold":
                self._hold_kind = arg
                self._hold_at = self._next_hold(arg)
            elif self._state == PLAYING:
                after = (cmd, arg)  # pause/skip/repeat/stop: fade this block out first
            else:
                self._apply_after((cmd, arg))
        return after

    def _current(self) -> _Loaded:
        """The loaded programme, for the callback's helpers below: they run only for a
        command that `_apply_commands` let through, and it drops every command but
        "load" while nothing is loaded (and nothing unloads a programme)."""
        loaded = self._loaded
        assert loaded is not None, "a command reached the player before any programme was loaded"
        return loaded

    def _apply_after(self, command) -> None:
        cmd, _ = command
        if cmd == "pause":
            if self._state == PLAYING:
                self._state = PAUSED
        elif cmd == "stop":
            self._state = IDLE
        elif cmd == "skip":
            loaded = self._current()
            k = int(np.searchsorted(loaded.kami_starts, self._pos, side="right"))
            if k >= len(loaded.kami_starts):
                self._seek(loaded.programme.total_samples)
            else:
                lead = int(loaded.kami_lead[k])
                self._seek(lead if lead > self._pos else int(loaded.kami_starts[k]))
            self._go_on()
        elif cmd == "repeat":
            loaded = self._current()
            k = int(np.searchsorted(loaded.shimo_starts, self._pos, side="right")) - 1
            if k >= 0:
                self._seek(int(loaded.shimo_starts[k]))
                self._go_on()

    def _extend(self, new: _Loaded) -> None:
        """Play on in `new`, which continues the loaded programme (see `extend`)."""
        old = self._loaded
        if new.before is not old or old is None:   # a load came between: not ours to continue
            return
        new.time[new.carry] = old.time   # when each mark already sounded
        self._mi = int(new.carry[self._mi - 1]) + 1 if self._mi else 0
        self._loaded, self._hint = new, -1
        new.before = None                # keep no chain of old programmes alive
        if self._hold_kind is not None and self._hold_at < 0:
            self._hold_at = self._next_hold(self._hold_kind)

    def _go_on(self) -> None:
        if self._state in (HELD, FINISHED, PLAYING):
            self._state, self._fade_in = PLAYING, True

    def _seek(self, pos: int) -> None:
        loaded = self._current()
        self._pos = max(0, min(pos, loaded.programme.total_samples))
        self._hint = -1
        self._mi = int(np.searchsorted(loaded.pos, self._pos, side="left"))
        if self._hold_kind is not None:
            self._hold_at = self._next_hold(self._hold_kind)

    def _next_hold(self, kind: str) -> int:
        points = self._current().holds[kind]
        k = int(np.searchsorted(points, self._pos, side="left"))
        return int(points[k]) if k < len(points) else -1

    def _play(self, out: np.ndarray, frames: int, t0: float) -> int:
        """Play up to `frames` samples from the programme; return how many were written."""
        loaded = self._current()
        pos = self._pos
        total = loaded.programme.total_samples
        n = min(frames, total - pos)
        stop_state = FINISHED if pos + frames >= total and loaded.programme.complete else None
        waiting = n < frames and not loaded.programme.complete   # the rest is still being made
        if waiting and not self._waiting:
            self.waits += 1
        self._waiting = waiting
        if 0 <= self._hold_at < pos + n:
            n = self._hold_at - pos
            stop_state = HELD
        if n > 0:
            self._hint = loaded.programme.fill(out[:n], pos, self._hint)
        end = pos + n
        # Marks sounding in this block; at a stop, also those exactly at its end
        # (an `end` mark is the first silent sample).
        mi = self._mi
        marks = loaded.pos
        while mi < len(marks) and (marks[mi] < end or (stop_state and marks[mi] == end)):
            t = t0 + (int(marks[mi]) - pos) * self._spf
            loaded.time[mi] = t
            kind = loaded.event[mi]
            if kind is not None:
                card, _name = loaded.keys[mi]
                self._events.append(Event(kind, card, loaded.card_poem[card], int(marks[mi]), t))
            mi += 1
        self._mi = mi
        self._pos = end
        if stop_state is not None:
            self._state = stop_state
            t_end = t0 + n * self._spf
            if stop_state == HELD:
                self._hold_at, self._hold_kind = -1, None
                self._events.append(Event(HELD_EVENT, -1, -1, end, t_end))
            else:
                self._events.append(Event(FINISHED_EVENT, -1, -1, end, t_end))
        return n

    def _fade(self, out: np.ndarray, a: int, b: int, up: bool) -> None:
        m = b - a
        if m <= 0:
            return
        ramps = self._ramps.get(m)
        if ramps is None:  # once per block length: the callback allocates nothing after
            rise = np.linspace(0.0, 1.0, m + 1, dtype=np.float32)[1:]
            fall = np.ascontiguousarray(1.0 - rise)  # ends on an exact zero
            ramps = self._ramps[m] = (rise, fall)
        out[a:b] *= ramps[0] if up else ramps[1]
