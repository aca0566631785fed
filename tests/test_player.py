"""The player against a fake clock: the callback is driven by hand, times checked exactly."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from audio.fake_voice import ToneVoice
from audio.player import (
    CARD_STARTED, FADE, FINISHED, FINISHED_EVENT, HELD, HELD_EVENT, IDLE, KIMARIJI, PAUSED,
    PLAYING, SHIMO_END, FakeTime, Player,
)
from audio.programme import JOKA, KAMI, SHIMO, Programme, ReadingSettings
from audio.voice import RATE

VOICE = ToneVoice()
T0 = 1000.0  # perf_counter time at which the first block's first sample sounds


class Rig:
    """A manual player and a fake device: every block sounds right after the previous one."""

    def __init__(self, programme: Programme, frames: int = 256):
        self.p = programme
        self.frames = frames
        self.player = Player(backend="manual")
        self.player.load(programme)
        self.block = 0
        self.out: list[np.ndarray] = []

    def t(self, block: int) -> float:
        return T0 + block * self.frames / RATE

    def run(self, blocks: int = 1) -> None:
        for _ in range(blocks):
            buf = np.full((self.frames, 1), 7.0, dtype=np.float32)
            self.player.process(buf, self.frames, FakeTime(self.t(self.block)), None)
            self.out.append(buf[:, 0].copy())
            self.block += 1

    def run_until(self, sample: int) -> None:
        """Run blocks until the player's position passes `sample` or it stops playing."""
        while True:
            self.run()
            if self.player.position > sample or self.player.state != PLAYING:
                return

    def audio(self) -> np.ndarray:
        return np.concatenate(self.out)


def programme(**kw) -> Programme:
    kw.setdefault("cards", 3)
    return Programme.build(VOICE, [44, 17, 3, 88], ReadingSettings(**kw))


def test_plays_the_programme_sample_for_sample_and_marks_fall_where_scheduled():
    p = programme()
    rig = Rig(p)
    assert rig.player.mark_time(0, "kimariji") is None  # nothing is playing yet
    rig.player.start()
    rig.run()
    # first block started at sample 0, at T0: every future mark is T0 + sample/rate
    for card in (JOKA, 0, 1, 2):
        m = p.mark_sample(card, "kami_start")
        assert rig.player.mark_time(card, "kami_start") == pytest.approx(T0 + m / RATE, abs=1e-9)
    rig.run_until(p.total_samples)
    assert rig.player.state == FINISHED
    audio = rig.audio()
    whole = p.render()
    assert np.array_equal(audio[FADE:p.total_samples], whole[FADE:])  # after the start fade
    assert np.all(audio[p.total_samples:] == 0)
    # past marks: the time they sounded, same arithmetic
    m = p.mark_sample(1, "kimariji")
    assert rig.player.mark_time(1, "kimariji") == pytest.approx(T0 + m / RATE, abs=1e-9)


def test_events_come_in_reading_order_with_their_times():
    p = programme(cards=2)
    rig = Rig(p)
    rig.player.start()
    rig.run_until(p.total_samples)
    events = rig.player.poll_events()
    kinds = [(e.kind, e.card_index) for e in events]
    assert kinds == [
        (CARD_STARTED, JOKA), (KIMARIJI, JOKA), (SHIMO_END, JOKA), (SHIMO_END, JOKA),
        (CARD_STARTED, 0), (KIMARIJI, 0), (SHIMO_END, 0),
        (CARD_STARTED, 1), (KIMARIJI, 1), (SHIMO_END, 1), (FINISHED_EVENT, -1),
    ]
    kim = next(e for e in events if e.kind == KIMARIJI and e.card_index == 1)
    assert kim.poem == 17
    assert kim.sample == p.mark_sample(1, "kimariji")
    assert kim.time == pytest.approx(T0 + kim.sample / RATE, abs=1e-9)
    assert rig.player.poll_events() == []


def test_pause_shifts_future_marks_by_the_pause_and_keeps_past_ones():
    p = programme()
    rig = Rig(p, frames=256)
    rig.player.start()
    rig.run_until(p.mark_sample(0, "kimariji"))
    past = rig.player.mark_time(0, "kimariji")
    rig.player.pause()
    rig.run()  # this block fades out; the pause holds from its end
    paused_at = rig.player.position
    assert rig.player.state == PAUSED
    assert paused_at == rig.block * rig.frames  # no sample lost or skipped
    assert np.all(rig.out[-1][-1] == 0.0)  # faded to silence at the block end
    assert rig.player.mark_time(1, "kimariji") is None  # depends on the resume
    rig.run(40)
    assert np.all(np.concatenate(rig.out[-40:]) == 0)
    assert rig.player.position == paused_at
    rig.player.resume()
    rig.run()
    resumed_block = rig.block - 1
    m = p.mark_sample(1, "kimariji")
    expect = rig.t(resumed_block) + (m - paused_at) / RATE
    assert rig.player.mark_time(1, "kimariji") == pytest.approx(expect, abs=1e-9)
    # exactly 40 blocks later than without the pause
    assert expect - (T0 + m / RATE) == pytest.approx(40 * 256 / RATE, abs=1e-9)
    assert rig.player.mark_time(0, "kimariji") == past
    # the resumed audio continues the programme where it stopped
    rig.run(3)
    audio = np.concatenate(rig.out[resumed_block:])
    assert np.array_equal(audio[FADE:], p.render()[paused_at + FADE:paused_at + len(audio)])


def test_hold_before_shimo_waits_at_the_end_of_the_kami_until_released():
    p = programme()
    rig = Rig(p, frames=1000)
    rig.player.start()
    rig.run_until(p.mark_sample(0, "kimariji"))
    rig.player.hold()  # the kyogi wait: before the shimo-no-ku
    assert rig.player.mark_time(0, "shimo_start") is None  # the command is pending
    rig.run()
    assert rig.player.mark_time(0, "shimo_start") is None  # a hold lies before it
    assert rig.player.mark_time(0, "kami_end") is not None  # before the hold: known
    hold_at = p.mark_sample(0, "kami_end")
    rig.run_until(hold_at)
    rig.run()
    assert rig.player.state == HELD
    assert rig.player.position == hold_at
    held = [e for e in rig.player.poll_events() if e.kind == HELD_EVENT]
    assert len(held) == 1 and held[0].sample == hold_at
    rig.run(25)
    rig.player.release()
    rig.run()
    t_release = rig.t(rig.block - 1)
    shimo = p.mark_sample(0, "shimo_start")
    # the whole pause is still heard after the release
    assert rig.player.mark_time(0, "shimo_start") == pytest.approx(
        t_release + (shimo - hold_at) / RATE, abs=1e-9)
    assert shimo - hold_at == round(p.settings.pause * RATE)


def test_hold_before_kami_waits_after_the_shimo_and_then_gives_the_whole_ma():
    p = programme()
    rig = Rig(p, frames=64)
    rig.player.start()
    rig.player.hold(before=KAMI)
    rig.run_until(p.total_samples)
    hold_at = p.mark_sample(JOKA, "shimo2_end")  # the first place to wait before a kami
    assert rig.player.state == HELD and rig.player.position == hold_at
    assert rig.player.mark_time(JOKA, "shimo2_end") == pytest.approx(T0 + hold_at / RATE)
    rig.run(10)
    rig.player.resume()
    rig.run()
    t = rig.t(rig.block - 1)
    assert rig.player.mark_time(0, "kami_start") == pytest.approx(t + 1.0, abs=1e-9)
    rig.run_until(p.total_samples)
    assert rig.player.state == FINISHED  # a hold waits once


def test_next_card_skips_to_the_ma_before_the_next_kami():
    p = programme()
    rig = Rig(p)
    rig.player.start()
    rig.run_until(p.mark_sample(0, "kami_start"))
    rig.player.next_card()
    rig.run()
    lead = p.mark_sample(0, "kami_start")  # fallback if none
    ma_start = next(s.start for s in p.segments if s.kind == "ma" and s.card_index == 1)
    assert rig.player.position == ma_start
    assert rig.player.mark_time(0, "kimariji") is None  # skipped over: never sounded
    rig.run()
    t = rig.t(rig.block - 1)
    m = p.mark_sample(1, "kami_start")
    assert rig.player.mark_time(1, "kami_start") == pytest.approx(
        t + (m - ma_start) / RATE, abs=1e-9)
    # inside that ma, "next card" starts the kami-no-ku at once
    rig.player.next_card()
    rig.run()
    assert rig.player.position == p.mark_sample(1, "kami_start")
    assert lead < ma_start


def test_repeat_reads_the_last_shimo_again_and_goes_on():
    p = programme()
    rig = Rig(p)
    rig.player.start()
    rig.run_until(p.mark_sample(0, "shimo_end") + 100)  # in the ma
    first = rig.player.mark_time(0, "shimo_end")
    rig.player.repeat_shimo()
    rig.run()
    shimo_seg = next(s for s in p.segments if s.kind == SHIMO and s.card_index == 0)
    assert rig.player.position == shimo_seg.start
    assert rig.player.mark_time(0, "shimo_end") > first  # it will sound again
    rig.player.poll_events()
    rig.run_until(p.mark_sample(1, "kami_start"))
    kinds = [(e.kind, e.card_index) for e in rig.player.poll_events()]
    assert kinds[:2] == [(SHIMO_END, 0), (CARD_STARTED, 1)]


def test_stop_then_start_again_and_volume():
    p = programme()
    rig = Rig(p)
    rig.player.volume = 0.25
    rig.player.start()
    rig.run(4)
    assert np.allclose(rig.audio()[FADE:1024], 0.25 * p.render()[FADE:1024])
    rig.player.stop()
    rig.run(2)
    assert rig.player.state == IDLE
    assert np.all(rig.out[-1] == 0)
    rig.player.start(at=p.mark_sample(1, "kami_start"))
    rig.run()
    assert rig.player.state == PLAYING
    assert rig.player.position == p.mark_sample(1, "kami_start") + rig.frames


def test_commands_without_a_programme_are_ignored():
    player = Player(backend="manual")
    for cmd in (player.start, player.pause, player.resume, player.next_card, player.repeat_shimo):
        cmd()
    buf = np.ones((128, 1), dtype=np.float32)
    player.process(buf, 128, FakeTime(5.0), None)
    assert np.all(buf == 0) and player.state == IDLE


def test_the_stream_callback_survives_an_exception():
    player = Player(backend="manual")
    player.load(programme())
    player.start()

    class Flags:
        output_underflow = True

    player._callback(np.zeros((64, 1), np.float32), 64, None, Flags())  # None has no times
    assert player.callback_errors == 1 and player.underflows == 1 and player.last_error


def test_silent_clock_runs_without_a_device():
    import time
    p = programme(cards=1)
    with Player(backend="silent", blocksize=512) as player:
        player.load(p)
        player.start()
        deadline = time.perf_counter() + 10
        while player.position < 4096 and time.perf_counter() < deadline:
            time.sleep(0.01)
        assert player.position >= 4096
        t = player.mark_time(0, "kimariji")
        assert t is not None and t > time.perf_counter() - 1


def test_missing_portaudio_gives_a_clear_message_and_a_silent_player(monkeypatch):
    class Broken:
        def __getattr__(self, name):
            raise OSError("PortAudio library not found")

    import builtins
    real_import = builtins.__import__

    def fake_import(name, *a, **kw):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *a, **kw)

    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    player = Player(backend="auto").open()
    try:
        assert player.silent
        assert "PortAudio" in player.status_message and "silently" in player.status_message
    finally:
        player.close()


def test_the_counted_clock_follows_a_fast_noisy_device_to_well_under_a_millisecond():
    """A device 520 ppm fast (as the PulseAudio null sink measured here), DAC times ±2.5 ms noisy."""
    p = Programme.build(VOICE, [44, 17, 3, 88, 61, 9, 77, 25], ReadingSettings())
    player = Player(backend="manual")
    player.load(p)
    player.start()
    rng = np.random.default_rng(1)
    frames, frame = 256, 0
    true_spf = 1 / (RATE * (1 + 520e-6))
    buf = np.zeros((frames, 1), dtype=np.float32)
    predicted = None
    kim = p.mark_sample(7, "kimariji")
    while player.state != FINISHED:
        dac = T0 + frame * true_spf + rng.uniform(-0.0025, 0.0025)
        player.process(buf, frames, FakeTime(dac), None)
        frame += frames
        if predicted is None and frame >= kim - 5 * RATE:  # five seconds ahead
            predicted = player.mark_time(7, "kimariji")
    assert player.clock_resets == 1
    errors = []
    for (card, name), sample in p.marks().items():
        t = player.mark_time(card, name)
        errors.append((t - (T0 + sample * true_spf), sample))
    late = [abs(e) for e, s in errors if s > 10 * RATE]  # once the loop has locked
    assert max(abs(e) for e, _ in errors) < 0.003
    assert max(late) < 0.001  # counted along a fitted line: noise ±2.5 ms in, well under 1 ms out
    assert abs(predicted - (T0 + kim * true_spf)) < 0.001


def test_pause_before_the_next_kami_is_a_hold_there():
    p = programme()
    rig = Rig(p)
    rig.player.start()
    rig.run_until(p.mark_sample(0, "kimariji"))
    rig.player.pause(at=KAMI)
    rig.run_until(p.total_samples)
    assert rig.player.state == HELD
    assert rig.player.position == p.mark_sample(0, "shimo_end")
    with pytest.raises(ValueError):
        rig.player.pause(at="soon")


# --- losing the sound device ---------------------------------------------------------

def test_watchdog_notices_a_stalled_stream_within_a_second_on_a_fake_clock():
    from audio.clock import FakeClock
    from audio.player import WATCH_S, Watchdog
    clock = FakeClock(100.0)
    dog = Watchdog(clock)
    frames = 0
    # A stream that plays: a block every 5 ms, looked at every WATCH_S for 10 s.
    for _ in range(int(10 / WATCH_S)):
        clock.advance(WATCH_S)
        frames += int(WATCH_S * RATE)
        assert not dog.check(frames)
    # Then it stops asking for samples: noticed at the first look after STALL_S, within 1 s.
    stalled_at = clock.now()
    while not dog.check(frames):
        clock.advance(WATCH_S)
        assert clock.now() - stalled_at < 5, "never noticed"
    assert clock.now() - stalled_at <= 1.0
    # A new stream gets longer for its first block, then the usual limit.
    dog.reset(frames)
    clock.advance(1.0)
    assert not dog.check(frames)
    clock.advance(dog.first_s)
    assert dog.check(frames)


def test_a_stall_in_a_new_streams_first_seconds_is_noticed_once_it_has_asked():
    """Only the wait for the first block is given FIRST_BLOCK_S: a stream that played a
    block and then stopped asking is stalled after STALL_S, so the player says so."""
    from audio.clock import FakeClock
    from audio.player import STALL_S, WATCH_S, Watchdog
    clock = FakeClock(100.0)
    dog = Watchdog(clock)
    clock.advance(0.3)
    assert not dog.check(0)                        # no block yet: still within the first wait
    frames = int(0.1 * RATE)
    clock.advance(0.1)
    assert not dog.check(frames)                   # it asked
    stalled_at = clock.now()
    while not dog.check(frames):
        clock.advance(WATCH_S)
    assert clock.now() - stalled_at <= STALL_S + WATCH_S + 1e-9
    assert clock.now() - dog._opened < dog.first_s  # noticed within the first seconds


def test_a_lost_device_hands_the_reading_to_the_silent_clock_where_it_was():
    """The stream stops (server killed): the watchdog's step closes it, queues DEVICE_LOST
    and the silent clock carries on from the same programme sample."""
    import time

    from audio.player import DEVICE_LOST

    class DeadStream:
        active = False
        latency = 0.04
        closed = False

        def abort(self):
            pass

        def close(self):
            self.closed = True

    p = programme(cards=2)
    player = Player(backend="manual", blocksize=256)
    try:
        player.load(p)
        player.start()
        buf = np.zeros((256, 1), np.float32)
        for b in range(40):
            player.process(buf, 256, FakeTime(T0 + b * 256 / RATE), None)
        at = player.position
        dead = player._stream = DeadStream()
        why = player._stream_trouble()
        assert why
        player._lose_device(why)
        assert player.silent and "silently" in player.status_message
        assert [e.kind for e in player.poll_events() if e.kind == DEVICE_LOST] == [DEVICE_LOST]
        deadline = time.perf_counter() + 10
        while player.position < at + 4096 and time.perf_counter() < deadline:
            time.sleep(0.01)
        assert player.position >= at + 4096      # went on from where it was, not from 0
        assert player.state == PLAYING
        deadline = time.perf_counter() + 2
        while not dead.closed and time.perf_counter() < deadline:
            time.sleep(0.01)
        assert dead.closed
        # A callback arriving late from the dead stream plays silence and moves nothing.
        out = np.full((256, 1), 7.0, np.float32)

        class Flags:
            output_underflow = False
        player._lost = True
        player._callback(out, 256, FakeTime(0.0), Flags())
        assert not out.any()
    finally:
        player.close()


def test_a_resume_right_after_a_pause_is_not_lost():
    """Pause then resume before the callback ran: the pause waited for its fade-out block and
    used to win over the resume, leaving the reading paused for ever."""
    p = programme()
    rig = Rig(p, frames=256)
    rig.player.start()
    rig.run_until(p.mark_sample(0, "kimariji"))
    rig.player.pause()
    rig.player.resume()
    rig.run(3)
    assert rig.player.state == PLAYING
    at = rig.player.position
    rig.run(3)
    assert rig.player.position > at
