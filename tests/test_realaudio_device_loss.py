"""Losing the sound device mid-reading: a private PulseAudio server is killed under
the player, the CLI and the GUI's reading driver.

Each test starts its own server (tools/pulse-null-sink.sh in a fresh
XDG_RUNTIME_DIR), kills only that one, and on the way out puts back the
environment and PortAudio's device list, so later real-audio tests find the
shared server as before.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from audio.player import DEVICE_BACK, DEVICE_LOST, PLAYING, Player

pytestmark = pytest.mark.realaudio

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


class PrivatePulse:
    """A PulseAudio null-sink server of this test's own."""

    def __init__(self):
        # A short path: the server's socket path must fit in 108 bytes.
        self.dir = tempfile.mkdtemp(prefix="karuta-xdg-", dir="/tmp")
        self.env = {k: v for k, v in os.environ.items() if k != "PULSE_SERVER"}
        self.env["XDG_RUNTIME_DIR"] = self.dir

    def start(self) -> None:
        r = subprocess.run(["sh", str(ROOT / "tools" / "pulse-null-sink.sh")], env=self.env,
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.strip() or f"exit {r.returncode}")

    def pid(self) -> int | None:
        try:
            return int(Path(self.dir, "pulse", "pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        """SIGKILL, as when the server crashes; only this test's own server."""
        pid = self.pid()
        if pid is None:
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        for stale in ("pid", "native"):  # a killed server leaves these behind
            Path(self.dir, "pulse", stale).unlink(missing_ok=True)


@pytest.fixture
def pulse():
    if not shutil.which("pulseaudio") or not shutil.which("pactl"):
        pytest.skip("pulseaudio/pactl not installed")
    try:
        import sounddevice as sd
    except OSError as exc:
        pytest.skip(f"PortAudio is not installed: {exc}")
    server = PrivatePulse()
    try:
        server.start()
    except RuntimeError as exc:
        shutil.rmtree(server.dir, ignore_errors=True)
        pytest.skip(f"no private PulseAudio server could be started: {exc}")
    saved = {k: os.environ.get(k) for k in ("XDG_RUNTIME_DIR", "PULSE_SERVER", "PULSE_CLIENTCONFIG")}
    os.environ.pop("PULSE_SERVER", None)
    os.environ["XDG_RUNTIME_DIR"] = server.dir
    # Not root (CI may not be): libpulse would start a server of its own once ours is killed.
    client_conf = Path(server.dir, "client.conf")
    client_conf.write_text("autospawn = no\n")
    os.environ["PULSE_CLIENTCONFIG"] = str(client_conf)
    sd._terminate()
    sd._initialize()
    try:
        yield server
    finally:
        server.kill()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        sd._terminate()   # the shared server's devices again, for the tests after this one
        sd._initialize()
        shutil.rmtree(server.dir, ignore_errors=True)


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def wait_for_event(player, kind: str, timeout: float, seen: list):
    """Poll the player's events (kept in `seen`) until one of `kind` comes; return it."""
    deadline = time.monotonic() + timeout
    while True:
        seen.extend(player.poll_events())
        for e in seen:
            if e.kind == kind:
                return e
        if time.monotonic() > deadline:
            raise AssertionError(f"no {kind} event in {timeout} s")
        time.sleep(0.01)


def test_player_goes_on_silently_and_returns_to_the_device(pulse):
    from audio.fake_voice import ToneVoice
    from audio.programme import Programme, ReadingSettings
    programme = Programme.build(ToneVoice(), [44, 17, 3], ReadingSettings(ma=0.3, pause=0.3, joka=False))
    with Player() as player:
        assert not player.silent, player.status_message
        player.load(programme)
        player.start()
        wait_for(lambda: player.position > 48000, 10, "a second of playing")
        pulse.kill()
        killed = time.perf_counter()
        events: list = []
        lost = wait_for_event(player, DEVICE_LOST, 5, events)
        assert lost.time - killed < 1.0          # noticed within a second
        assert player.silent and "silently" in player.status_message
        at = player.position
        wait_for(lambda: player.position > at + 24000, 5, "the silent clock to go on")
        assert player.state == PLAYING           # the reading carries on from where it was
        pulse.start()
        wait_for_event(player, DEVICE_BACK, 10, events)
        wait_for(lambda: not player.silent, 10, "playing on the device again")
        frames = player._frames
        wait_for(lambda: player._frames > frames + 24000, 5, "the device to ask for samples again")


def test_cli_read_finishes_when_the_server_dies(pulse):
    proc = subprocess.Popen(
        [PYTHON, "-c", "import sys; from trainer.cli import main; sys.exit(main(sys.argv[1:]))",
         "read", "--voice", "test-tones", "--cards", "2", "--no-joka", "--seed", "1",
         "--ma", "0.3", "--pause", "0.3"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith("card 1/2"), first
        time.sleep(0.5)
        pulse.kill()
        out, err = proc.communicate(timeout=40)   # 11 s of reading; stuck for ever before
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "card 2/2" in out                     # the reading went on after the loss
    assert "Traceback" not in err


def test_reading_driver_reports_the_loss_and_starts_again_once_the_server_is_back(pulse, qtbot, tmp_path):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from audio.fake_voice import ToneVoice
    from trainer.ui import settings as S
    from trainer.reader.session import ReadingTiming
    from trainer.ui.reading import ReadingDriver
    from trainer.ui.voices import VoiceBook

    timing = ReadingTiming(ma=0.3, pause=0.3, speed=1.0, voice="synth", joka=False)
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    player = Player().open()
    book = VoiceBook(settings, player=player)
    book._voices["synth"] = ToneVoice()
    driver = ReadingDriver(book)
    try:
        assert not player.silent, player.status_message
        started, errors = [], []
        driver.card_started.connect(started.append)
        driver.device_problem.connect(errors.append)
        driver.start([44, 17, 3], timing, joka=False)
        qtbot.waitUntil(lambda: started == [44], timeout=10_000)
        pulse.kill()
        with qtbot.waitSignal(driver.device_problem, timeout=3_000):
            pass
        assert "sound device" in errors[0]
        assert driver.state == "paused"          # where it was, not lost
        pulse.start()
        qtbot.waitUntil(lambda: not player.silent, timeout=10_000)
        driver.stop()
        started.clear()
        driver.start([17, 3], timing, joka=False)
        qtbot.waitUntil(lambda: started == [17], timeout=10_000)
        frames = player._frames
        qtbot.waitUntil(lambda: player._frames > frames + 24000, timeout=5_000)
    finally:
        driver.stop()
        player.close()
