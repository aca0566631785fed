"""Issue 23: every kimariji found in what really left the sound server, against the player's stamp.

A reading is played through PortAudio into a PulseAudio null sink while ``parec``
records the sink's monitor (the machinery of tests/test_realaudio_player.py). Each
kimariji is then found in the recording by correlation with the programme's own
samples around its mark (the voice's morae are seeded noise bursts, so a window
fits in one place only) and compared with ``player.mark_time(card, "kimariji")``.

The recording's clock comes from parec's arrival stamps; what is left is one
constant, the capture path's lag, estimated as the median over the undisturbed
kimariji. Every kimariji must be within ``TOLERANCE_S`` of its stamp, or the player
must say that a race on it would be disturbed (`Player.disturbance_between`, for a
touch `TOUCH_S` after the mark). This tells a loaded machine from a wrong player:
a stall the player did not see, or a clock that is wrong, leaves an undisturbed
kimariji off (or the lag outside `LAG_MIN_S .. LAG_MAX_S`); a machine that stalls
the sound only makes the player mark races disturbed. Played twice: on the machine
as it is, and with CPU burners started (and stopped) by the test, both held to
TOLERANCE_S; the same recording judged with one stamp moved SHIFT_S must fail. Each
kimariji off is shown with the silence the sink put into its timeline before it
(exact, from the recording) and how far the player's stamps moved (`Run.cause`).
With fewer than `MIN_JUDGED` of the kimariji undisturbed the run cannot say anything
about the player: it is played once more, then skipped with the reason (a failure in CI, where
KARUTA_REQUIRE_REAL=1). Skips with the reason without PulseAudio.
"""
# ruff: noqa: F811 - the PulseAudio fixtures `pulse` and `sink` are test_realaudio_player's,
# imported by name for pytest, and so are the parameters that receive them.
from __future__ import annotations

import collections
import dataclasses
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pytest

from audio.clip import Clip
from audio.fake_voice import ToneVoice
from audio.player import FINISHED, Player
from audio.programme import Programme, ReadingSettings
from audio.voice import RATE
from audio_timing import LAG_MAX_S, LAG_MIN_S
from test_realaudio_player import (EarlyClockPlayer, LateFromTheSecondPoemPlayer, Recorder,  # noqa: F401
                                   pulse, sink)

TOLERANCE_S = 0.005      # the issue: within ±5 ms, or flagged disturbed; with CPU burners too.
# Until trust4 the loaded run was held to 15 ms: under load PulseAudio's reports of when each
# block sounds sank 3-9 ms for seconds (the kimariji in the recording lie on one straight line
# in frames, to 0.01 ms), and the player's clock filter followed them. The player now counts
# its frames between real jumps (`audio.player.CountingClock`).
SHIFT_S = 0.006          # one stamp moved this far must fail the run (a wrong player is told apart)
SETTLE_WAIT_S = 15.0     # the longest wait for the player's clock to learn the device's rate
TOUCH_S = 0.5            # the touch the disturbance is asked for: half a second after the mark
BEFORE_S, AFTER_S = 0.25, 0.15   # the programme's samples correlated around each kimariji
SEARCH_S = 0.8           # how far from its stamp a kimariji is looked for (a 0.4 s stall fits)
MIN_PEAK = 0.6           # normalised correlation below this: the kimariji was not found whole
MIN_JUDGED = 0.5
POEMS = [44, 17, 3, 88, 61, 9, 77, 25]
# A short reading: 26 s at double speed with a short ma (the test's cost; a kimariji every 3 s).
SETTINGS = ReadingSettings(ma=0.5, pause=0.25, joka=False, speed=2.0)


class NoiseVoice(ToneVoice):
    """The tone voice's clips and marks, each burst seeded noise instead of a tone: a window
    of the programme correlates with the recording at one place only."""

    name = "test-noise"

    def _build(self, no: int, part: str) -> Clip:
        clip = super()._build(no, part)
        rng = np.random.default_rng(2 * no + (part == "shimo"))
        noise = rng.uniform(-0.5, 0.5, len(clip.samples)).astype(np.float32)
        return Clip(np.where(clip.samples != 0, noise, 0).astype(np.float32), clip.rate, clip.marks)


@dataclass
class Kimariji:
    card: int
    stamp: float                    # perf_counter time the player says it sounded
    disturbed: list                 # the player's stalls that make a race on it untrustworthy
    near: list = field(default_factory=list)   # every stall from 3 s before to the touch, for messages
    found_s: float | None = None    # perf_counter time it arrived at parec (lag included)
    peak: float = 0.0
    error_s: float | None = None    # found - stamp - lag
    recorded: int | None = None     # where it lies in the recording (sample index)
    clock_slack_s: float | None = None   # the recording's clock there (`_clock_slack`)
    programmed: int = 0             # where it lies in the programme (sample index)

    @property
    def cut(self) -> bool:
        """A stall (even one the player re-derived) falls inside the programme's samples
        correlated around it: the sink put silence into that stretch, so the recording
        does not hold it whole and it cannot be found (under heavy load the sink stalled
        0.03-1 s just after a kimariji the player stamped right)."""
        return any(s.at <= self.stamp + AFTER_S and s.end >= self.stamp - BEFORE_S for s in self.near)

    def sink_shift_s(self, first: Kimariji, spf: float) -> float | None:
        """The silence the sink put into its timeline between `first` and this kimariji
        (negative: samples lost), exact to the sample: the recording holds the sink's
        timeline whole, at one sample every `spf` seconds."""
        if self.recorded is None or first.recorded is None:
            return None
        return ((self.recorded - self.programmed) - (first.recorded - first.programmed)) * spf

    def stamp_shift_s(self, first: Kimariji, spf: float) -> float:
        """How far the player's stamps moved between `first` and this kimariji beyond the
        programme's own samples: the silence the player believes was put in."""
        return (self.stamp - first.stamp) - (self.programmed - first.programmed) * spf


@dataclass
class Run:
    kimariji: list[Kimariji]
    lag_s: float | None
    stalls: int
    machine: str
    problems: list[str] = field(default_factory=list)
    spf: float = 1.0 / RATE          # the recording's seconds per sample (`Recorder.clock`)

    def cause(self, k: Kimariji) -> str:
        """Whose is an error: the sink's silence the player missed, or the player's stamps
        moving with nothing put in (the stream's time as PortAudio reports it wandered)."""
        first = self.kimariji[0]
        sink = k.sink_shift_s(first, self.spf)
        if sink is None or k is first:
            return ""
        stamps = k.stamp_shift_s(first, self.spf)
        slack = "" if k.clock_slack_s is None else (
            f"; parec's clock there within {k.clock_slack_s * 1000:.1f} ms")
        return (f" (since the first kimariji the sink put {sink * 1000:+.1f} ms of silence in, "
                f"the player's stamps moved {stamps * 1000:+.1f} ms{slack})")

    @property
    def judged(self) -> list[Kimariji]:
        """The undisturbed kimariji, less those the recording cannot show whole (`cut`)."""
        return [k for k in self.kimariji if not k.disturbed and not (k.found_s is None and k.cut)]

    @property
    def summary(self) -> str:
        errs = [k.error_s * 1000 for k in self.judged if k.error_s is not None]
        span = f"{min(errs):+.1f} .. {max(errs):+.1f} ms" if errs else "—"
        lag = "—" if self.lag_s is None else f"{self.lag_s * 1000:+.1f} ms"
        off = [f"{k.card}: {k.error_s * 1000:+.0f} ms" for k in self.kimariji
               if k.disturbed and k.error_s is not None and abs(k.error_s) > TOLERANCE_S]
        each = " ".join("—" if k.error_s is None else f"{k.error_s * 1000:+.1f}{'d' if k.disturbed else ''}"
                        for k in self.kimariji)
        wide = [f"{k.card}: {k.error_s * 1000:+.1f} ms{self.cause(k)}" for k in self.judged
                if k.error_s is not None and abs(k.error_s) > TOLERANCE_S]
        cut = sum(1 for k in self.kimariji if not k.disturbed and k.found_s is None and k.cut)
        return (f"{len(self.judged)} of {len(self.kimariji)} kimariji undisturbed and whole in the "
                f"recording ({cut} cut by a stall; {len(wide)} of them "
                f"outside ±{TOLERANCE_S * 1000:.0f} ms{': ' + '; '.join(wide) if wide else ''}), error {span} "
                f"(in reading order, d: disturbed: {each}), "
                f"lag {lag}; disturbed and off: {off or 'none'}; {self.stalls} stall(s); {self.machine}")


def _burners(n: int) -> list[subprocess.Popen]:
    """`n` processes that only burn CPU (stopped by `_stop`)."""
    # At the ordinary policy whatever this thread's is: a burner inheriting SCHED_FIFO would
    # never yield its core (the player asks real time for its audio thread).
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_ordinary_policy)
            for _ in range(n)]


def _ordinary_policy() -> None:
    try:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except (AttributeError, OSError):
        pass


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


def _locate(recording: np.ndarray, template: np.ndarray, centre: int, reach: int) -> tuple[int, float]:
    """Where `template` starts in `recording` near `centre` (± `reach`), and the normalised
    correlation there (1.0: the same samples, whatever the gain)."""
    lo = max(0, centre - reach)
    hi = min(len(recording), centre + reach + len(template))
    seg = recording[lo:hi].astype(np.float64)
    if len(seg) < len(template):
        return centre, 0.0
    t = template.astype(np.float64)
    n = len(seg) + len(t) - 1
    size = 1 << (n - 1).bit_length()
    corr = np.fft.irfft(np.fft.rfft(seg, size) * np.conj(np.fft.rfft(t, size)), size)[:len(seg) - len(t) + 1]
    run = np.concatenate([[0.0], np.cumsum(seg ** 2)])
    energy = run[len(t):] - run[:-len(t)]                  # each window's energy
    norm = corr / np.sqrt(np.maximum(energy, 1e-12) * float(t @ t))
    k = int(np.argmax(norm))
    return lo + k, float(norm[k])


def _clock_slack(arrivals: list[tuple[int, float]], sample: int, spf: float, first: float,
                 reach_s: float = 1.5) -> float | None:
    """How well the recording's clock holds near recorded `sample`: the earliest chunk
    arrival within `reach_s` of it, against the line `Recorder.clock` fitted to the whole
    run (a chunk cannot arrive before its last sample is captured, so a prompt one there
    bounds that line's error there). Measured under two CPU burners at load average 6-9:
    0.0-0.5 ms at every kimariji past the first, while undisturbed kimariji were 5-9 ms off."""
    n, t = np.array(arrivals, dtype=np.float64).reshape(-1, 2).T
    near = np.abs(n - sample) <= reach_s / spf
    return float(np.min(t[near] - (first + n[near] * spf))) if near.any() else None


def _window(rendered: np.ndarray, at: int) -> tuple[np.ndarray, int]:
    """The programme's samples around the kimariji at sample `at`, and where in them it is
    (the first card's kimariji may lie less than BEFORE_S from the start)."""
    lo = max(0, at - round(BEFORE_S * RATE))
    return rendered[lo:at + round(AFTER_S * RATE)], at - lo


def play(pulse, sink, programme: Programme, load: int = 0, player_cls: type[Player] = Player) -> Run:
    """Play `programme` into the test sink (with `load` CPU burners running), record the
    monitor, find each kimariji; `Run` before judging."""
    burners: list[subprocess.Popen] = []
    with player_cls(blocksize=256) as player:
        assert not player.silent, player.status_message
        # The reading starts on a settled clock, as in the app, whose stream opens at start-up:
        # in a new stream's first ~10 s its reports crept 1-7 ms in some runs, the stamps with
        # them (`Player.settled`; a quiet run once had two kimariji 6-8 ms off so).
        deadline = time.perf_counter() + SETTLE_WAIT_S
        while not player.settled and time.perf_counter() < deadline:
            time.sleep(0.1)
        rec = Recorder(pulse, sink)
        try:
            rec.wait_for(0.3)
            burners = _burners(load)
            stalls_before = len(player.stalls)
            player.load(programme)
            player.start()
            deadline = time.perf_counter() + programme.total_samples / RATE + 15
            while player.state != FINISHED and time.perf_counter() < deadline:
                time.sleep(0.05)
            assert player.state == FINISHED, (
                f"the stream stalled: {player.position} of {programme.total_samples} samples played")
            load_avg = os.getloadavg()[0]
            _stop(burners)
            time.sleep(0.5)              # the tail is still on its way through the sink
        finally:
            _stop(burners)
            x = rec.stop()
        cards = sorted({card for card, name in programme.marks() if name == "kimariji" and card >= 0})
        found = []
        for card in cards:
            stamp = player.mark_time(card, "kimariji")
            assert stamp is not None, card
            found.append(Kimariji(card, stamp, player.disturbance_between(stamp, stamp + TOUCH_S),
                                  player.stalls_between(stamp - 3.0, stamp + TOUCH_S)))
        stalls = len(player.stalls) - stalls_before
        causes = collections.Counter(s.cause for s in list(player.stalls)[stalls_before:])
        realtime = player.realtime
    spf, first = rec.clock()
    rendered = programme.render()
    for k in found:
        at = programme.marks()[(k.card, "kimariji")]
        template, lead = _window(rendered, at)
        centre = round((k.stamp - first) / spf) - lead
        start, k.peak = _locate(x, template, centre, round(SEARCH_S * RATE))
        k.programmed = at
        if k.peak >= MIN_PEAK:
            k.found_s = first + (start + lead) * spf
            k.recorded = start + lead
            k.clock_slack_s = _clock_slack(rec.arrivals, start + lead, spf, first)
    machine = (f"stalls by cause: {dict(causes)}; {load} CPU burner(s) added, load average {load_avg:.1f}; "
               f"audio thread real-time: {realtime}")
    return Run(found, None, stalls, machine, spf=spf)


def judge(run: Run, tolerance: float = TOLERANCE_S) -> Run:
    """The lag from the undisturbed kimariji, then each one's error; the problems a player
    has, whatever the machine did (see the module docstring)."""
    calm = [k for k in run.judged if k.found_s is not None]
    for k in run.judged:
        if k.found_s is None:
            run.problems.append(f"the kimariji of card {k.card} was not found in the recording "
                                f"(correlation {k.peak:.2f}) and the player saw no stall")
    if not calm:
        return run
    run.lag_s = float(np.median([k.found_s - k.stamp for k in calm]))
    for k in run.kimariji:
        if k.found_s is not None:
            k.error_s = k.found_s - k.stamp - run.lag_s
    for k in calm:
        if abs(k.error_s) > tolerance:
            near = "; ".join(f"{s.cause} {'re-derived ' if s.rederived else ''}at {s.at - k.stamp:+.3f} s"
                             f" ({(s.length_s or 0) * 1000:+.0f} ms)" for s in k.near[-4:]) or "none"
            run.problems.append(f"the kimariji of card {k.card} sounded {k.error_s * 1000:+.1f} ms from "
                                f"its stamp and the player saw no stall that would disturb a race on it "
                                f"(stalls in the 3 s before: {near}){run.cause(k)}")
    if not LAG_MIN_S <= run.lag_s <= LAG_MAX_S:
        run.problems.append(f"arrival at parec minus the stamps is {run.lag_s * 1000:+.1f} ms, outside "
                            f"{LAG_MIN_S * 1000:+.1f} .. {LAG_MAX_S * 1000:+.1f} ms: the clock is wrong")
    return run


def play_and_judge(pulse, sink, programme, load=0, player_cls=Player, attempts=2) -> Run:
    for _ in range(attempts):
        run = judge(play(pulse, sink, programme, load, player_cls))
        print(f"\n{player_cls.__name__}, load {load}: {run.summary}")
        if run.problems or len(run.judged) >= MIN_JUDGED * len(run.kimariji):
            return run
    pytest.skip(f"the machine stalled the sound around most kimariji: nothing to judge the "
                f"player by: {run.summary}")


@pytest.fixture(scope="module")
def programme():
    return Programme.build(NoiseVoice(), POEMS, SETTINGS)


def shifted(run: Run, by: float) -> tuple[Run, int]:
    """`run` as a player would have left it whose stamp of one undisturbed kimariji (the
    middle one) was `by` late, ready to be judged again; and that kimariji's card."""
    calm = [k for k in run.judged if k.found_s is not None]
    wrong = calm[len(calm) // 2]
    ks = [dataclasses.replace(k, stamp=k.stamp + (by if k is wrong else 0.0), error_s=None)
          for k in run.kimariji]
    return Run(ks, None, run.stalls, run.machine, spf=run.spf), wrong.card


@pytest.mark.realaudio
@pytest.mark.parametrize("load", [0, 2], ids=["as-it-is", "cpu-burners"])
def test_every_kimariji_sounds_at_its_stamp_or_the_race_is_marked_disturbed(pulse, sink, programme, load):
    run = play_and_judge(pulse, sink, programme, load=load)
    assert not run.problems, "\n".join(run.problems + [run.summary])
    assert len(run.kimariji) == len(POEMS)
    # The same recording tells a player one stamp SHIFT_S wrong from this machine's load.
    wrong, card = shifted(run, SHIFT_S)
    assert any(f"card {card} sounded" in p for p in judge(wrong).problems), wrong.summary


def test_the_correlation_finds_a_kimariji_where_it_was_put():
    """The search itself, on made-up recordings: a window found at its true place, and
    not found (low correlation) when the recording there holds something else."""
    prog = Programme.build(NoiseVoice(), [17, 25], ReadingSettings(ma=1.0, pause=0.5, joka=False))
    x = prog.render()
    for card in (0, 1):
        at = prog.marks()[(card, "kimariji")]
        template, lead = _window(x, at)
        shifted = np.concatenate([np.zeros(12_345, np.float32), 0.3 * x])      # later and quieter
        start, peak = _locate(shifted, template, at - lead, round(SEARCH_S * RATE))
        assert start + lead == at + 12_345 and peak > 0.99
        other = np.random.default_rng(1).uniform(-0.5, 0.5, len(x)).astype(np.float32)
        assert _locate(other, template, at - lead, round(SEARCH_S * RATE))[1] < MIN_PEAK


def test_a_judged_run_fails_a_wrong_player_and_passes_a_marked_stall():
    """`judge` on made-up runs: an undisturbed kimariji 10 ms off is the player's fault; a
    kimariji 262 ms late that the player marked disturbed is the machine's."""
    def run(errors, disturbed=()):
        ks = [Kimariji(c, 100.0 + c, [object()] if c in disturbed else [],
                       found_s=100.0 + c - 0.004 + e, peak=0.9)
              for c, e in enumerate(errors)]
        return judge(Run(ks, None, len(disturbed), "made up"))
    assert not run([0.0, 0.001, -0.002, 0.262], disturbed={3}).problems
    assert any("card 3 sounded +26" in p for p in run([0.0, 0.001, -0.002, 0.262]).problems)
    assert any("+10.0 ms" in p for p in run([0.0, 0.0, 0.0, 0.010]).problems)
    early = run([-0.010] * 4)                                   # every stamp 10 ms late: the lag says so
    assert any("the clock is wrong" in p for p in early.problems)
    # Not found in the recording: the player's fault, unless a stall (re-derived or not) put
    # silence inside the stretch correlated around it
    from audio.player import Stall
    lost = [Kimariji(c, 100.0 + c, [], found_s=100.0 + c - 0.004, peak=0.9) for c in range(3)]
    lost.append(Kimariji(3, 103.0, [], peak=0.4))
    assert any("card 3 was not found" in p for p in judge(Run(lost, None, 0, "made up")).problems)
    lost[3].near = [Stall(103.05, 0.49, 0, "gap", True)]
    assert not judge(Run(lost, None, 1, "made up")).problems


@pytest.mark.slow
@pytest.mark.realaudio
@pytest.mark.parametrize("wrong", [EarlyClockPlayer, LateFromTheSecondPoemPlayer])
def test_a_wrong_player_fails_the_recorded_kimariji(pulse, sink, wrong):
    prog = Programme.build(NoiseVoice(), POEMS[:6], SETTINGS)
    run = play_and_judge(pulse, sink, prog, player_cls=wrong)
    assert run.problems, f"a player 10 ms wrong passed: {run.summary}"


def test_a_judged_run_says_whose_an_error_is():
    """The recording holds the sink's timeline whole: between two kimariji it shows what
    silence the sink put in, exact to the sample, against which the stamps' own shift shows
    whether the player missed that silence or its stamps moved with nothing put in."""
    spf = 1.0 / RATE

    def kimariji(card, programmed, inserted_s, stamp_moved_s):
        stamp = 100.0 + programmed * spf + stamp_moved_s
        recorded = programmed + 5_000 + round(inserted_s * RATE)
        return Kimariji(card, stamp, [], found_s=100.0 + recorded * spf - 5_000 * spf - 0.004,
                        peak=0.9, recorded=recorded, programmed=programmed)
    ks = [kimariji(0, 10_000, 0.0, 0.0), kimariji(1, 300_000, 0.0, 0.0), kimariji(2, 600_000, 0.0, 0.0),
          kimariji(3, 900_000, 0.0, -0.007),        # the stamps moved, the sink put nothing in
          kimariji(4, 1_200_000, 0.030, 0.0)]       # the sink put 30 ms in, the stamps missed it
    run = judge(Run(ks, None, 0, "made up", spf=spf))
    assert any("card 3 sounded +7.0 ms" in p and "put +0.0 ms of silence in, the player's stamps "
               "moved -7.0 ms" in p for p in run.problems), run.problems
    assert any("card 4 sounded +30.0 ms" in p and "put +30.0 ms of silence in, the player's stamps "
               "moved +0.0 ms" in p for p in run.problems), run.problems


def test_the_recording_clock_slack_is_the_earliest_arrival_near_a_sample():
    spf, first = 1.0 / RATE, 50.0
    arrivals = [(n, first + n * spf + late) for n, late in
                [(48_000, 0.020), (96_000, 0.0004), (144_000, 0.030), (480_000, 0.0)]]
    assert abs(_clock_slack(arrivals, 100_000, spf, first) - 0.0004) < 1e-9
    assert _clock_slack(arrivals, 300_000, spf, first) is None     # no chunk within 1.5 s
