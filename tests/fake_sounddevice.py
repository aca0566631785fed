"""A stand-in for the `sounddevice` module: output streams whose callback a thread calls at
the real rate, which a test can stall (the callback blocked, as a starved sound server
does) or kill (the device gone). Install it with `install(monkeypatch)`; the player then
opens these streams instead of PortAudio's.

`FakeSoundDevice.open_streams` holds the streams opened and not closed yet, and
`most_open` the most that were ever open at once.
"""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np


class PortAudioError(Exception):
    pass


class FakeStream:
    def __init__(self, sd: "FakeSoundDevice", samplerate, blocksize, device, channels, dtype,
                 latency, callback):
        self.sd = sd
        self.rate = samplerate
        self.blocksize = blocksize
        self.channels = channels
        self.latency = 0.04 if isinstance(latency, str) else float(latency)
        self.callback = callback
        self.active = False
        self.closed = False
        self.abort_fails = False
        self._stall_until = 0.0
        self._underruns = 0
        self._running = False
        self._thread: threading.Thread | None = None
        self._epoch = time.perf_counter() - 1000.0    # stream time = perf_counter - epoch
        sd._opened(self)

    @property
    def time(self) -> float:
        return time.perf_counter() - self._epoch

    def start(self) -> None:
        if self.closed:
            raise PortAudioError("stream closed")
        self.active = self._running = True
        self._thread = threading.Thread(target=self._run, name="fake-audio", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        out = np.zeros((self.blocksize, self.channels), np.float32)
        flags = SimpleNamespace(output_underflow=False)
        period = self.blocksize / self.rate
        next_at = time.perf_counter()
        while self._running:
            if time.perf_counter() < self._stall_until:   # blocked: asks for nothing
                time.sleep(0.005)
                next_at = time.perf_counter()
                continue
            now = self.time
            info = SimpleNamespace(outputBufferDacTime=now + self.latency, currentTime=now)
            flags.output_underflow = self._underruns > 0
            self._underruns = max(0, self._underruns - 1)
            self.callback(out, self.blocksize, info, flags)
            next_at += period
            delay = next_at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)

    def stall(self, seconds: float) -> None:
        """Ask for no samples for `seconds` from now (the stream stays active)."""
        self._stall_until = time.perf_counter() + seconds

    def underrun(self, blocks: int = 1) -> None:
        """The next `blocks` callbacks carry PortAudio's output_underflow flag with no jump
        in the stream's time (the server inserted silence the stream's time does not show)."""
        self._underruns = blocks

    def die(self) -> None:
        """The device went away: the stream stops."""
        self._running = False
        self.active = False

    def _halt(self) -> None:
        self._running = False
        self.active = False
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)

    def stop(self) -> None:
        self._halt()

    def abort(self) -> None:
        self._halt()
        if self.abort_fails:
            raise PortAudioError("abort timed out")

    def close(self) -> None:
        self._halt()
        if not self.closed:
            self.closed = True
            self.sd._closed(self)


class FakeSoundDevice:
    """The module's surface the player uses."""
    PortAudioError = PortAudioError

    def __init__(self):
        self.open_streams: list[FakeStream] = []
        self.streams: list[FakeStream] = []
        self.most_open = 0
        self._lock = threading.Lock()

    def query_devices(self, device=None, kind=None):
        return {"name": "fake output", "max_output_channels": 2}

    def OutputStream(self, **kwargs) -> FakeStream:   # noqa: N802 (the module's name)
        return FakeStream(self, **kwargs)

    def _opened(self, stream: FakeStream) -> None:
        with self._lock:
            self.streams.append(stream)
            self.open_streams.append(stream)
            self.most_open = max(self.most_open, len(self.open_streams))

    def _closed(self, stream: FakeStream) -> None:
        with self._lock:
            self.open_streams.remove(stream)

    @property
    def current(self) -> FakeStream:
        return self.streams[-1]


def install(monkeypatch) -> FakeSoundDevice:
    import sys
    sd = FakeSoundDevice()
    monkeypatch.setitem(sys.modules, "sounddevice", sd)
    return sd


def fake_player(monkeypatch):
    """A player on a fake device (no real-time priority asked for the fake thread)."""
    from audio.player import Player
    sd = install(monkeypatch)
    player = Player(backend="auto")
    player.realtime = False
    player.open()
    assert not player.silent, player.status_message
    return sd, player
