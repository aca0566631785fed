"""Judging a real playback: did every mark sound when the player's clock says, where the machine let it?

A playback on a loaded machine has underruns: the player's callback was not run
in time, the sound server played silence, and for a moment afterwards the
player's counted clock re-learns where the stream is. PortAudio flags most of
them; some it does not (a full run at load 1.8 recorded a burst split in two
with no underrun flagged), so the recording is searched too, for a silence
inside a burst the programme plays whole. Those stretches say something about
the machine, not the player, so they are left out of the judgement (reported,
not failed). What is left must hold to the tolerance,
and some things fail however loaded the machine was: a mark off by more than
the tolerance where nothing disturbed the stream, a burst no mark accounts
for, the clock wrong in absolute terms, or a callback that itself uses too
much CPU (then the underruns are the player's own doing).

`judge` is pure: tests/test_realaudio_player.py feeds it what the sound device
really did; tests/test_audio_timing_judge.py feeds it made-up playbacks to show
what it passes and what it fails.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

RATE = 48_000
THRESHOLD = 0.05      # bursts start at 0.5; silence in the sink is exact zero
QUIET = 480           # 10 ms of quiet before an onset / after an end (mora gaps are 20 ms)
TOLERANCE_S = 0.003   # the brief: every mark within 3 ms of the clock's answer
DISTURBED_BEFORE_S = 0.2   # the underrun flag comes with the block after the gap
DISTURBED_AFTER_S = 2.0    # the counted clock's line has settled well within this
MIN_JUDGED = 0.5           # below this share of marks judged, the run cannot be judged
CALLBACK_CPU_SHARE = 0.5   # a callback using this much of its block's time in CPU is too slow
# Arrival at parec minus the clock's time, for the first sample of a burst (the
# clock's time is when the sample leaves the sink, the monitor delivers it at
# rendering plus a transfer time). Measured -3.7 .. -3.3 ms (the median over the
# marks, in four runs at load 5), whatever pactl said the sink latency was at that
# moment (0 to 3.2 ms); a player whose clock is 10 ms early measured +6.7 ms.
# So a clock 5 ms or more late, or 7 ms or more early, lands outside.
LAG_MIN_S = -0.008
LAG_MAX_S = 0.003

@dataclass
class Mark:
    card: int
    name: str
    edge: str          # "onset" (a burst starts) or "end" (a burst ends)
    clock: float       # perf_counter time the player says it sounded
    sample: int        # its place in the programme


@dataclass
class Playback:
    """What one playback through a real sink gave."""

    recording: np.ndarray          # the sink's monitor, mono float
    spf: float                     # the monitor's seconds per sample (from parec's arrivals)
    first_arrival: float           # earliest perf_counter arrival of recorded sample 0
    marks: list[Mark]
    bursts: tuple[np.ndarray, np.ndarray]   # the programme's own burst onsets and ends (its samples)
    underruns: int
    underrun_at: list[int]         # programme sample the player was at, per underrun logged
    callback_cpu: np.ndarray       # CPU seconds each callback took
    block_s: float                 # one block's duration
    sink_latency_s: float
    machine: str = ""              # load and CPU use while it played, for the messages


@dataclass
class Verdict:
    problems: list[str] = field(default_factory=list)   # each one a player defect
    judged: int = 0
    total: int = 0
    disturbed: int = 0
    dropouts: list[int] = field(default_factory=list)   # programme samples of silences found in a burst
    lag_s: float | None = None
    errors_ms: list[float] = field(default_factory=list)
    summary: str = ""

    @property
    def too_disturbed(self) -> bool:
        return self.judged < MIN_JUDGED * self.total


def onsets_and_ends(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sample of every burst onset (first loud sample after QUIET quiet ones) and end (one past the last)."""
    loud = np.flatnonzero(np.abs(x) > THRESHOLD)
    if len(loud) == 0:
        return loud, loud
    gaps = np.diff(loud) > QUIET
    starts = np.concatenate([[loud[0]], loud[1:][gaps]])
    ends = np.concatenate([loud[:-1][gaps], [loud[-1]]]) + 1
    return starts, ends


def disturbed_samples(pb: Playback, dropouts: list[int]) -> list[tuple[int, int]]:
    """Programme stretches an underrun or a dropout disturbed (all of it if the log lost some)."""
    if pb.underruns > len(pb.underrun_at):
        return [(-(2**62), 2**62)]
    before, after = int(DISTURBED_BEFORE_S * RATE), int(DISTURBED_AFTER_S * RATE)
    return [(p - before, p + after) for p in [*pb.underrun_at, *dropouts]]


def find_dropouts(pb: Playback, found: dict, at_recording: np.ndarray) -> list[int]:
    """Programme samples where the recording falls silent inside one of the programme's bursts.

    `at_recording[i]` is where mark i is predicted in the recording; a silence
    counts only if it lies, with the tolerance to spare on both sides, within one
    burst: the quiet between two moras seen through a clock 10 ms wrong does not.
    """
    on, end = pb.bursts
    to_programme = np.array([m.sample for m in pb.marks], dtype=np.float64)
    order = np.argsort(at_recording)
    margin = TOLERANCE_S * RATE
    out = []
    for quiet_from, quiet_to in zip(found["end"][:-1], found["onset"][1:]):
        a, b = np.interp([quiet_from, quiet_to], at_recording[order], to_programme[order])
        k = int(np.searchsorted(on, a, side="right")) - 1
        if k >= 0 and on[k] + margin <= a and b + margin <= end[k]:
            out.append(int(a))
    return out


def zero_lag(pb: Playback, m: Mark) -> float:
    """The recording sample at which mark `m` would arrive at parec with no lag at all."""
    return (m.clock - pb.first_arrival) / pb.spf


def nearest(arr: np.ndarray, x: float) -> float:
    return float(arr[np.argmin(np.abs(arr - x))]) if len(arr) else float("inf")


def judge(pb: Playback) -> Verdict:
    v = Verdict(total=len(pb.marks))
    cpu = np.sort(pb.callback_cpu)
    if len(cpu):
        p99 = float(cpu[int(0.99 * (len(cpu) - 1))])
        if p99 > CALLBACK_CPU_SHARE * pb.block_s:
            v.problems.append(f"the callback itself is too slow: 99th percentile {p99 * 1000:.2f} ms of "
                              f"CPU for a {pb.block_s * 1000:.2f} ms block (underruns {pb.underruns})")
    found = dict(zip(("onset", "end"), onsets_and_ends(pb.recording)))
    # Pass 1 aligns on the marks no flagged underrun disturbed and finds the dropouts
    # PortAudio did not flag; pass 2 leaves those out too.
    dropouts: list[int] = []
    for final in (False, True):
        stretches = disturbed_samples(pb, dropouts)
        calm = [m for m in pb.marks if not any(a <= m.sample <= b for a, b in stretches)]
        calm_onsets = [m for m in calm if m.edge == "onset"]
        if not calm_onsets or not len(found["onset"]):
            v.summary = f"nothing to judge: {len(found['onset'])} bursts recorded; {pb.machine}"
            return v
        offset = float(np.median([nearest(found["onset"], zero_lag(pb, m)) - zero_lag(pb, m)
                                  for m in calm_onsets]))
        if not final:
            dropouts = find_dropouts(pb, found, np.array([zero_lag(pb, m) + offset for m in pb.marks]))
    v.dropouts, v.disturbed, v.judged = dropouts, len(pb.marks) - len(calm), len(calm)
    v.lag_s = offset * pb.spf
    for m in calm:
        predicted = zero_lag(pb, m) + offset
        err = (nearest(found[m.edge], predicted) - predicted) * pb.spf
        v.errors_ms.append(err * 1000)
        if abs(err) > TOLERANCE_S:
            v.problems.append(f"mark {m.name!r} of card {m.card} ({m.edge}) off by {err * 1000:+.2f} ms "
                              f"where nothing disturbed the stream")
    # Nothing extra: every recorded onset near a calm mark is one of the marks.
    predicted_onsets = np.array([zero_lag(pb, m) + offset for m in pb.marks if m.edge == "onset"])
    onset_marks = [m for m in pb.marks if m.edge == "onset"]
    calm_ids = {id(m) for m in calm}
    for r in found["onset"]:
        k = int(np.argmin(np.abs(predicted_onsets - r)))
        if id(onset_marks[k]) in calm_ids and abs(r - predicted_onsets[k]) * pb.spf > TOLERANCE_S:
            v.problems.append(f"a burst at {r / RATE:.3f} s of the recording that no mark accounts for "
                              f"(nearest: {onset_marks[k].name!r} of card {onset_marks[k].card})")
    if not LAG_MIN_S <= v.lag_s <= LAG_MAX_S:
        v.problems.append(f"absolute: arrival at parec minus clock time is {v.lag_s * 1000:+.1f} ms, outside "
                          f"{LAG_MIN_S * 1000:+.1f} .. {LAG_MAX_S * 1000:+.1f} ms: "
                          f"the clock is wrong in absolute terms")
    ms = v.errors_ms
    v.summary = (f"{v.judged} of {v.total} marks judged ({v.disturbed} in stretches {pb.underruns} flagged "
                 f"underrun(s) and {len(dropouts)} unflagged dropout(s) disturbed); "
                 f"error {min(ms):+.3f} .. {max(ms):+.3f} ms; lag {v.lag_s * 1000:+.2f} ms "
                 f"(sink latency {pb.sink_latency_s * 1000:.1f} ms); callback CPU max "
                 f"{cpu.max() * 1000 if len(cpu) else 0:.2f} ms; monitor clock "
                 f"{(1 / pb.spf / RATE - 1) * 1e6:+.0f} ppm; {pb.machine}")
    return v
