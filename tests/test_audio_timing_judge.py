"""The real-audio timing judgement on made-up playbacks: it excuses what an overloaded
machine does (underruns the player reported, and the moments after), and fails what a
wrongly scheduling player does, however loaded the machine.

No sound device: tests/test_realaudio_player.py runs the same judgement on the real one.
"""
from __future__ import annotations

import numpy as np

from audio_timing import RATE, Mark, Playback, judge

SPF = 1 / (RATE * (1 + 520e-6))  # the null sink's monitor runs 520 ppm fast (measured)
FIRST = 100.0                   # perf_counter arrival of recorded sample 0
LAG = -0.0035                   # arrival minus clock time, as measured (-4.3 .. -2.9 ms)
BURST, GAP = 0.06, 0.04         # seconds
N = 300                         # bursts: 30 s


def playback(shift=lambda i: 0.0, sound_shift=lambda i: 0.0, underrun_at=(), extra=(), cpu_s=5e-5,
             silent=None):
    """N bursts played right; `shift(i)` moves burst i's stamps (a wrong clock),
    `sound_shift(i)` moves its sound (what an underrun does), `extra` adds bursts,
    `silent` = (burst, seconds into it, for how long) silences part of one."""
    x = np.zeros(int((N * (BURST + GAP) + 1) * RATE), dtype=np.float32)
    marks = []
    for i in range(N):
        sample = int(i * (BURST + GAP) * RATE)                    # its place in the programme
        clock = FIRST + 0.5 + sample / RATE                      # when it truly sounded
        r = int(round((clock + sound_shift(i) + LAG - FIRST) / SPF))
        x[r:r + int(BURST * RATE)] = 0.5
        if silent is not None and silent[0] == i:
            x[r + int(silent[1] * RATE):r + int((silent[1] + silent[2]) * RATE)] = 0.0
        for edge, at in (("onset", 0), ("end", int(BURST * RATE))):
            marks.append(Mark(i, f"mora:{i}:{edge}", edge, clock + shift(i) + at / RATE, sample + at))
    for t in extra:
        r = int(round((t - FIRST) / SPF))
        x[r:r + 480] = 0.5
    on = np.array([int(i * (BURST + GAP) * RATE) for i in range(N)])
    return Playback(recording=x, spf=SPF, first_arrival=FIRST, marks=marks,
                    bursts=(on, on + int(BURST * RATE)), underruns=len(underrun_at),
                    underrun_at=list(underrun_at), callback_cpu=np.full(5000, cpu_s), block_s=256 / RATE,
                    sink_latency_s=0.0035)


def test_a_right_playback_passes_with_every_mark_judged():
    v = judge(playback())
    assert v.problems == [] and v.judged == v.total == 2 * N and not v.too_disturbed
    assert abs(v.lag_s - LAG) < 0.0002 and max(map(abs, v.errors_ms)) < 0.1


def test_every_stamp_10_ms_early_or_late_fails_the_absolute_check():
    for shift in (-0.010, 0.010):
        v = judge(playback(shift=lambda i, s=shift: s))
        assert any("absolute" in p for p in v.problems), (shift, v.summary)


def test_stamps_10_ms_late_from_the_middle_on_fail_mark_by_mark():
    v = judge(playback(shift=lambda i: 0.010 if i >= 200 else 0.0))
    off = [p for p in v.problems if "off by" in p]
    # Stamped 10 ms after they sounded: each found 10 ms before its stamp.
    assert len(off) == 2 * 100 and all("off by -10.0" in p or "off by -9.9" in p for p in off), off[:3]
    assert all(int(p.split(" of card ")[1].split()[0]) >= 200 for p in off)


def late_after_underrun(i):
    """An underrun 10 s in (burst 100): the sound comes 8 ms late while the clock follows, 1.5 s."""
    return 0.008 if 100 <= i < 115 else 0.0


def test_sound_late_after_an_underrun_the_player_reported_is_left_out_not_failed():
    v = judge(playback(sound_shift=late_after_underrun, underrun_at=[int(10 * RATE)]))
    assert v.problems == [], v.problems[:3]
    # 9.8 .. 12 s: the onsets of bursts 98 .. 120 and the ends of 98 .. 119.
    assert v.disturbed == 23 + 22 and v.judged == v.total - v.disturbed


def test_the_same_sound_with_no_underrun_reported_is_a_player_defect():
    v = judge(playback(sound_shift=late_after_underrun))
    assert len([p for p in v.problems if "off by" in p]) == 2 * 15


def test_a_silence_inside_a_burst_no_underrun_flagged_is_found_and_left_out():
    """What a full run at load 1.8 recorded: one burst split in two, no underrun flagged;
    the sound after it comes late while the player's clock follows."""
    def late(i):
        return 0.015 if 101 <= i < 115 else 0.0
    v = judge(playback(silent=(100, 0.02, 0.015), sound_shift=late))
    assert v.problems == [] and len(v.dropouts) == 1 and v.disturbed > 0, v.problems[:3]
    assert abs(v.dropouts[0] - (100 * (BURST + GAP) + 0.02) * RATE) < 48     # within 1 ms


def test_the_quiet_between_bursts_through_a_wrong_clock_is_no_dropout():
    v = judge(playback(shift=lambda i: 0.010 if i >= 200 else 0.0))
    assert v.dropouts == [] and len([p for p in v.problems if "off by" in p]) == 200


def test_a_wrong_mark_outside_the_disturbed_stretch_still_fails():
    v = judge(playback(shift=lambda i: 0.005 if i == 200 else 0.0, underrun_at=[int(10 * RATE)]))
    off = [p for p in v.problems if "off by" in p]
    assert [p.split(" (")[0] for p in off] == ["mark 'mora:200:onset' of card 200",
                                               "mark 'mora:200:end' of card 200"], off
    assert all("where nothing disturbed the stream" in p for p in off)


def test_a_burst_no_mark_accounts_for_fails():
    v = judge(playback(extra=[FIRST + 0.5 + 150 * (BURST + GAP) + 0.075]))   # in a gap, 15 s in
    assert any("no mark accounts for" in p for p in v.problems), v.problems[:3]


def test_a_callback_too_slow_for_its_block_is_the_players_fault():
    v = judge(playback(cpu_s=0.004))
    assert any("callback itself is too slow" in p for p in v.problems)
    assert judge(playback(cpu_s=0.001)).problems == []


def test_underruns_everywhere_leave_too_little_to_judge_but_accuse_nobody():
    v = judge(playback(underrun_at=[int(k * RATE) for k in range(0, 30, 2)]))
    assert v.too_disturbed and v.problems == []


def test_a_lost_underrun_log_leaves_the_whole_run_unjudged():
    pb = playback(underrun_at=[int(5 * RATE)])
    pb.underruns = 80                                    # more than the player's log keeps
    v = judge(pb)
    assert v.judged == 0 and v.too_disturbed and v.problems == []
