"""The player's clock against what really came out of a sound device.

Plays a programme of the tone voice through PortAudio into a PulseAudio null
sink while ``parec`` records the sink's monitor, then finds every tone-burst
onset and end in the recording and compares it with the time the player's
clock says that mark sounded. tests/audio_timing.py judges it: stretches an
overloaded machine disturbed (underruns, dropouts) are left out, everything
else must hold to 3 ms, and two deliberately wrong players must fail.
Needs a PulseAudio server: one already reachable (packaging/test.sh starts
one), or a private one started here with tools/pulse-null-sink.sh and stopped
when the module is done; skipped (with the reason) when neither works.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from audio.fake_voice import ToneVoice
from audio.player import FINISHED, FakeTime, Player
from audio.programme import Programme, ReadingSettings
from audio.voice import RATE
from audio_timing import MIN_JUDGED, Mark, Playback, Verdict, judge, onsets_and_ends

pytestmark = pytest.mark.realaudio

ROOT = Path(__file__).resolve().parents[1]
PULSE_SCRIPT = ROOT / "tools" / "pulse-null-sink.sh"


def _server_reachable(env) -> bool:
    if not shutil.which("pactl"):
        return False
    return subprocess.run(["pactl", "info"], env=env, capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def pulse():
    """A reachable PulseAudio server; PortAudio re-initialised to see it.

    The one the environment names (packaging/test.sh starts one), else a private one
    started here in a fresh XDG_RUNTIME_DIR and stopped again when the module is done.
    """
    if not shutil.which("parec"):
        pytest.skip("parec (pulseaudio-utils) is not installed: cannot record the sink")
    try:
        import sounddevice as sd
    except OSError as exc:
        pytest.skip(f"PortAudio is not installed: {exc}")
    env = dict(os.environ)
    private = None
    if not _server_reachable(env):
        # A short path: the server's socket path must fit in 108 bytes.
        private = tempfile.mkdtemp(prefix="karuta-xdg-", dir="/tmp")
        env["XDG_RUNTIME_DIR"] = private
        r = subprocess.run(["sh", str(PULSE_SCRIPT)], env=env, capture_output=True, text=True,
                           timeout=30)
        if r.returncode != 0:
            _stop_private(env, private)
            pytest.skip(f"no PulseAudio server reachable and none could be started: "
                        f"{r.stderr.strip() or r.returncode}")
    saved = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = env["XDG_RUNTIME_DIR"]
    # PortAudio lists devices once, at initialisation: redo it now the server is up.
    sd._terminate()
    sd._initialize()
    try:
        yield env
    finally:
        if saved is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = saved
        if private is not None:
            _stop_private(env, private)
            sd._terminate()
            sd._initialize()


def _stop_private(env, directory: str) -> None:
    """Stop the server the script started in `directory` (only that one) and remove it."""
    subprocess.run(["sh", str(PULSE_SCRIPT), "--stop"], env=env, capture_output=True, timeout=30)
    shutil.rmtree(directory, ignore_errors=True)


def _pactl(env, *args) -> str:
    r = subprocess.run(["pactl", *args], env=env, capture_output=True, text=True, timeout=10)
    if r.returncode != 0:
        raise RuntimeError(f"pactl {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def _sink_latency_us(env, name: str) -> int | None:
    found = False
    for line in _pactl(env, "list", "sinks").splitlines():
        line = line.strip()
        if line.startswith("Name:"):
            found = line.split()[1] == name
        elif found and line.startswith("Latency:"):
            return int(line.split()[1])
    return None


@pytest.fixture(scope="module")
def sink(pulse):
    """A null sink of our own, so sound other programs send to the shared server's
    default sink never reaches our recording. Built like tools/pulse-null-sink.sh:
    a permanent low-latency loopback of silence keeps it from running ahead.
    Our process's streams go to it through PULSE_SINK (read by libpulse, which
    PortAudio reaches through ALSA's pulse plugin)."""
    name = f"karuta_test_{os.getpid()}"
    modules = []
    try:
        modules.append(_pactl(pulse, "load-module", "module-null-sink", f"sink_name={name}",
                              "rate=48000", "channels=2"))
        modules.append(_pactl(pulse, "load-module", "module-null-source",
                              f"source_name={name}_silence", "rate=48000", "channels=2"))
        modules.append(_pactl(pulse, "load-module", "module-loopback", f"source={name}_silence",
                              f"sink={name}", "latency_msec=10"))
        deadline = time.perf_counter() + 10
        while (_sink_latency_us(pulse, name) or 10**9) >= 50_000:
            if time.perf_counter() > deadline:
                pytest.skip("the test sink's latency never settled below 50 ms")
            time.sleep(0.1)
        old = os.environ.get("PULSE_SINK")
        os.environ["PULSE_SINK"] = name
        yield name
        if old is None:
            os.environ.pop("PULSE_SINK", None)
        else:
            os.environ["PULSE_SINK"] = old
    except RuntimeError as exc:
        pytest.skip(f"cannot make a test sink on the PulseAudio server: {exc}")
    finally:
        for module in reversed(modules):
            subprocess.run(["pactl", "unload-module", module], env=pulse, capture_output=True)


class Recorder:
    """``parec`` on the sink's monitor, read by a thread that stamps every chunk's arrival.

    The arrival stamps measure the monitor's own sample clock against
    perf_counter, independently of the player: the null sink does not run at
    exactly 48000 samples per perf_counter second (520 ppm fast here, 31 ms a
    minute), so recording samples cannot be turned into seconds by dividing by
    48000.
    """

    def __init__(self, env, sink: str):
        self.t_launch = time.perf_counter()
        self.proc = subprocess.Popen(
            ["parec", f"--device={sink}.monitor", "--format=s16le", "--rate=48000",
             "--channels=1", "--latency-msec=20", "--raw"], stdout=subprocess.PIPE, env=env)
        self.chunks: list[bytes] = []
        self.arrivals: list[tuple[int, float]] = []  # (samples received so far, perf_counter)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fd, total = self.proc.stdout.fileno(), 0
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                return
            now = time.perf_counter()
            self.chunks.append(data)
            total += len(data)
            self.arrivals.append((total // 2, now))

    def wait_for(self, seconds: float, timeout: float = 10.0) -> None:
        deadline = time.perf_counter() + timeout
        while not self.arrivals or self.arrivals[-1][0] < seconds * RATE:
            if time.perf_counter() > deadline:
                raise AssertionError("parec delivered nothing from the monitor in 10 s")
            time.sleep(0.01)

    def stop(self) -> np.ndarray:
        self.proc.terminate()
        self.proc.wait(timeout=5)
        self._thread.join(timeout=5)
        raw = b"".join(self.chunks)
        return np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2").astype(np.float32) / 32768

    def clock(self) -> tuple[float, float]:
        """(seconds per recorded sample, earliest arrival of sample 0) from the arrival stamps.

        A chunk arrives at the earliest when its last sample is captured, later when
        the reader or the server is slow (on a loaded machine, for seconds at a time).
        So the line is fitted to the lower envelope: a least-squares fit over every
        chunk, then twice more over the chunks that came within 1 ms of the earliest
        tenth; the intercept is the lowest arrival under that slope.
        """
        n, t = np.array(self.arrivals, dtype=np.float64).T
        keep = n > 2 * RATE  # skip parec's start-up burst
        n, t = n[keep], t[keep]
        spf, icpt = np.polyfit(n, t, 1)
        for _ in range(2):
            resid = t - (icpt + spf * n)
            prompt = resid <= np.percentile(resid, 10) + 0.001
            spf, icpt = np.polyfit(n[prompt], t[prompt], 1)
        return float(spf), float(np.min(t - n * spf))


def _cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [float(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    return sum(fields) - idle, sum(fields)


def play(pulse, sink: str, programme: Programme, player_cls: type[Player] = Player) -> Playback:
    """Play `programme` through the test sink while parec records it; what came out, and when."""
    cpu: list[float] = []
    with player_cls(blocksize=256) as player:
        assert not player.silent, player.status_message
        process = player.process

        def timed(outdata, frames, time_info, status):   # the CPU each callback costs
            c0 = time.thread_time()
            process(outdata, frames, time_info, status)
            cpu.append(time.thread_time() - c0)

        player.process = timed  # type: ignore[method-assign]
        time.sleep(1.5)  # a new stream can stall 0.3-2 s after its first callbacks (notes)
        rec = Recorder(pulse, sink)
        try:
            rec.wait_for(0.3)  # parec is up and its monitor stream delivers
            underflows_before = player.underflows
            busy0, total0 = _cpu_times()
            player.load(programme)
            cpu.clear()
            player.start()
            deadline = time.perf_counter() + programme.total_samples / RATE + 10
            while player.state != FINISHED and time.perf_counter() < deadline:
                time.sleep(0.05)
            busy1, total1 = _cpu_times()
            assert player.state == FINISHED, (
                f"the stream stalled: {player.position} of {programme.total_samples} samples "
                f"played, underruns {player.underflows}, load average {os.getloadavg()}")
            time.sleep(0.5)  # the tail is still on its way through the sink
        finally:
            x = rec.stop()
        assert player.callback_errors == 0, player.last_error
        assert player.device_losses == 0, player.status_message  # the watchdog never fired
        underruns = player.underflows - underflows_before
        # The log keeps the last 64: if more came, judge() leaves the whole run out.
        logged = list(player.underflow_log)[-underruns:] if underruns else []
        # Every mark that begins or ends a burst, with the time the clock says it sounded.
        marks = []
        for (card, name), sample in sorted(programme.marks().items(), key=lambda kv: kv[1]):
            edge = "onset" if ":mora:" in name else "end" if name in (
                "kami_end", "shimo_end", "shimo2_end") else None
            if edge is not None:
                t = player.mark_time(card, name)
                assert t is not None, (card, name)
                marks.append(Mark(card, name, edge, t, sample))
        realtime = player.realtime
    spf, first = rec.clock()
    return Playback(
        recording=x, spf=spf, first_arrival=first, marks=marks,
        bursts=onsets_and_ends(programme.render()), underruns=underruns,
        underrun_at=[pos for _frame, _state, pos in logged],   # 0 before the start: near the first marks
        callback_cpu=np.array(cpu), block_s=256 / RATE,
        sink_latency_s=(_sink_latency_us(pulse, sink) or 0) / 1e6,
        machine=(f"machine {100 * (busy1 - busy0) / max(total1 - total0, 1):.0f} % busy while it "
                 f"played, load average {os.getloadavg()[0]:.1f}; audio thread real-time: {realtime}"))


def play_and_judge(pulse, sink, programme, player_cls=Player, attempts=2) -> Verdict:
    """Judge a playback; on a machine too loaded to judge most marks, play it once more.

    A defect found among the marks that could be judged fails at once; only a run with
    too few judged marks and no defect is played again, then skipped saying so (which
    CI, with KARUTA_REQUIRE_REAL=1, turns into a failure naming the overload).
    """
    for _ in range(attempts):
        verdict = judge(play(pulse, sink, programme, player_cls))
        print(f"\n{player_cls.__name__}: {verdict.summary}")
        if verdict.problems or not verdict.too_disturbed:
            return verdict
    pytest.skip(f"the machine was too loaded to judge the player: {verdict.summary}")


def test_every_mark_sounds_within_3_ms_of_the_clock_where_the_machine_let_it(pulse, sink):
    programme = Programme.build(ToneVoice(), [44, 17, 3, 88, 61, 9, 77, 25],
                                ReadingSettings())  # about 62 s
    verdict = play_and_judge(pulse, sink, programme)
    assert not verdict.problems, "\n".join(verdict.problems[:10] + [verdict.summary])
    assert verdict.total > 300 and verdict.judged >= MIN_JUDGED * verdict.total


def _dac(player: Player, time_info) -> float:
    """The DAC time `Player.process` would use (some host APIs leave it 0)."""
    stream = player._stream
    return time_info.outputBufferDacTime or (time_info.currentTime + (stream.latency if stream else 0.0))


class EarlyClockPlayer(Player):
    """Wrong on purpose: believes every block sounds 10 ms before it does."""

    def process(self, outdata, frames, time_info, status):
        super().process(outdata, frames, FakeTime(_dac(self, time_info) - 0.010, time_info.currentTime),
                        status)


class LateFromTheSecondPoemPlayer(Player):
    """Wrong on purpose: from the second poem on, its stamps are 10 ms late (as if it
    had lost count of a block's worth of samples)."""

    late_from: int | None = None

    def load(self, programme):
        self.late_from = programme.marks()[(1, "kami:mora:0")]
        super().load(programme)

    def process(self, outdata, frames, time_info, status):
        late = self.late_from is not None and self._pos >= self.late_from
        super().process(outdata, frames, FakeTime(_dac(self, time_info) + (0.010 if late else 0.0),
                                                  time_info.currentTime), status)


@pytest.mark.slow
@pytest.mark.parametrize("wrong, caught_by", [(EarlyClockPlayer, "absolute"),
                                              (LateFromTheSecondPoemPlayer, "off by")])
def test_a_player_that_schedules_wrongly_still_fails(pulse, sink, wrong, caught_by):
    programme = Programme.build(ToneVoice(), [44, 17], ReadingSettings())  # joka and two poems
    verdict = play_and_judge(pulse, sink, programme, wrong)
    assert verdict.problems, f"a player 10 ms wrong passed: {verdict.summary}"
    assert any(caught_by in p for p in verdict.problems), verdict.problems[:5]
