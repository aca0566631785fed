"""A stall is not a lost device (issue 28): a stream that stops asking for samples for a
moment is waited for, the reading going on by itself when it asks again; only a stream
that stopped, or stalled for LOST_S, is lost, and then the lost one is closed before
another opens. On a fake sound device (tests/fake_sounddevice.py), no real audio."""
from __future__ import annotations

import time

from audio.fake_voice import ToneVoice
from audio.player import (
    DEVICE_BACK,
    DEVICE_LOST,
    FIRST_BLOCK_S,
    LOST_S,
    PLAYING,
    SOUND_FLOWING,
    SOUND_STALLED,
)
from audio.programme import Programme, ReadingSettings
from tests.fake_sounddevice import fake_player


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def _playing(monkeypatch):
    sd, player = fake_player(monkeypatch)
    time.sleep(FIRST_BLOCK_S)      # a new stream's first blocks are given longer
    programme = Programme.build(ToneVoice(), [44, 17, 3], ReadingSettings(ma=0.3, pause=0.3, joka=False))
    player.load(programme)
    player.start()
    wait_for(lambda: player.position > 12000, 10, "the reading to sound")
    return sd, player


def test_a_one_second_stall_is_waited_for_and_the_reading_goes_on(monkeypatch):
    sd, player = _playing(monkeypatch)
    try:
        events = []
        sd.current.stall(1.0)
        stalled_at = time.perf_counter()
        wait_for(lambda: any(e.kind == SOUND_FLOWING for e in events)
                 or events.extend(player.poll_events()), 5, "the sound to flow again")
        kinds = [e.kind for e in events]
        assert kinds.count(SOUND_STALLED) == 1 and kinds.index(SOUND_STALLED) < kinds.index(SOUND_FLOWING)
        assert DEVICE_LOST not in kinds
        stalled = next(e for e in events if e.kind == SOUND_STALLED)
        assert abs(stalled.time - stalled_at) < 0.1       # when the stream last asked
        assert player.state == PLAYING and not player.silent
        at = player.position
        wait_for(lambda: player.position > at + 12000, 5, "the reading to go on")
        assert len(sd.open_streams) == 1 and sd.most_open == 1   # the same stream, never replaced
        assert player.stalls_between(stalled_at - 0.1, time.perf_counter())   # recorded as a stall
    finally:
        player.close()


def test_a_long_stall_is_a_lost_device_closed_before_another_opens(monkeypatch):
    sd, player = _playing(monkeypatch)
    try:
        first = sd.current
        first.abort_fails = True            # PortAudio's abort may time out: closed anyway
        first.stall(60.0)
        events = []
        wait_for(lambda: any(e.kind == DEVICE_BACK for e in events)
                 or events.extend(player.poll_events()), LOST_S + 10, "the device to be back")
        kinds = [e.kind for e in events]
        assert kinds.index(SOUND_STALLED) < kinds.index(DEVICE_LOST) < kinds.index(DEVICE_BACK)
        assert first.closed and sd.current is not first
        assert sd.most_open == 1 and sd.open_streams == [sd.current]
    finally:
        player.close()
