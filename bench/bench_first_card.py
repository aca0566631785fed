"""Bench of `karuta read` from an empty cache (issue 25): how soon the reading is heard
when playing, and how long the whole set takes to render to a file.

    python bench/bench_first_card.py [--runs 2] [--no-joka] [--checkout DIR] [--gui]

Each run gets a fresh empty KARUTA_CACHE_DIR and KARUTA_DATA_DIR. Playing runs on a
private PulseAudio null sink started here (tools/pulse-null-sink.sh, in a temporary
XDG_RUNTIME_DIR, stopped at the end), never on a server someone else runs.

Prints, per run:
- first audible: seconds from starting `karuta read --seed 1` to its "joka" line
  (or "card 1/" with --no-joka), which it prints when the player reports that
  verse's first sound (CARD_STARTED, stamped for when it sounds; the line comes
  within the CLI's 50-ms poll);
- card 1 heard: to the "card 1/100" line (after the joka, about 25 s of reading):
  the growing programme was extended in time;
- whole set: wall seconds of `karuta read --out x.flac --seed 1` (100 poems + joka,
  synthesised on two workers, laid out and written);
and the load average before and after. `--checkout DIR` measures another checkout
(e.g. main, whose CLI prints no "joka" line: compare with --no-joka).

`--gui`: the same for the app's Reader instead of the CLI (no render runs): a child
process (offscreen Qt, the same private sink) builds the Reader panel on a real
`ReadingDriver` and player, presses Start, and prints the seconds from the press to
the driver's `card_started` for the joka (or card 1) and for card 1; the figures
exclude the app's own start-up (printed apart: process start to the press).
`--gui --mubeyama`: the same for a Mubeyama game (okayama4, seed 1, one person and
three CPUs) started at once on the Mubeyama tab.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def start_pulse() -> dict:
    env = dict(os.environ)
    env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="karuta-xdg-", dir="/tmp")  # short socket path
    r = subprocess.run(["sh", str(ROOT / "tools" / "pulse-null-sink.sh")], env=env,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        stop_pulse(env)
        raise SystemExit(f"no private PulseAudio server: {r.stderr.strip() or r.returncode}")
    return env


def stop_pulse(env: dict) -> None:
    subprocess.run(["sh", str(ROOT / "tools" / "pulse-null-sink.sh"), "--stop"], env=env,
                   capture_output=True, timeout=30)
    shutil.rmtree(env["XDG_RUNTIME_DIR"], ignore_errors=True)


def fresh_env(base: dict) -> tuple[dict, list[str]]:
    env = dict(base)
    dirs = [tempfile.mkdtemp(prefix="bench-first-cache-"), tempfile.mkdtemp(prefix="bench-first-data-")]
    env["KARUTA_CACHE_DIR"], env["KARUTA_DATA_DIR"] = dirs
    return env, dirs


def play_run(checkout: Path, pulse_env: dict, no_joka: bool,
             timeout: float = 120.0) -> tuple[float | None, float | None]:
    """(seconds to the first verse heard, seconds to card 1 heard) of one playing run."""
    env, dirs = fresh_env(pulse_env)
    first_line = "card 1/" if no_joka else "joka"
    cmd = [sys.executable, "-m", "trainer.cli", "read", "--seed", "1"] + (["--no-joka"] if no_joka else [])
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=checkout, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    first = card1 = None
    try:
        assert proc.stdout is not None
        deadline = t0 + timeout
        for line in proc.stdout:
            now = time.perf_counter() - t0
            if first is None and line.startswith(first_line):
                first = now
            if line.startswith("card 1/"):
                card1 = now
                break
            if time.perf_counter() > deadline:
                break
    finally:
        proc.send_signal(signal.SIGINT)      # the CLI's own Ctrl-C: stops, fades out, exits
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    return first, card1


def gui_run(checkout: Path, pulse_env: dict, no_joka: bool, mubeyama: bool = False,
            timeout: float = 120.0) -> tuple[float | None, float | None, float | None]:
    """(start-up to the press, the press to the first verse heard, the press to card 1 heard)
    of one Reader run from an empty cache."""
    env, dirs = fresh_env(pulse_env)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")]))  # its trainer
    cmd = [sys.executable, str(Path(__file__).resolve()), "--gui-child", dirs[1]] + \
        (["--no-joka"] if no_joka else []) + (["--mubeyama"] if mubeyama else [])
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=checkout, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    times: dict[str, float] = {}
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            name, _, value = line.partition(" ")
            if name in ("pressed", "first", "card1"):
                times[name] = float(value)
            if name == "card1" or time.perf_counter() - t0 > timeout:
                break
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    pressed = times.get("pressed")
    since = lambda k: None if k not in times or pressed is None else times[k] - pressed  # noqa: E731
    return (None if pressed is None else pressed - t0 + 0.0), since("first"), since("card1")


def gui_child(data_dir: str, no_joka: bool, mubeyama: bool = False) -> int:
    """The Reader (or a Mubeyama game) on a real driver and player, Start pressed once
    the panel is up; prints 'pressed T', 'first T', 'card1 T' (perf_counter) as they happen."""
    started = time.perf_counter()
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from trainer.ui import settings as S
    from trainer.ui.reader_panel import ReaderPanel
    from trainer.ui.reading import ReadingDriver
    from trainer.ui.voices import VoiceBook
    app = QApplication([])
    settings = S.Settings(QSettings(str(Path(data_dir) / "bench.ini"), QSettings.Format.IniFormat))
    settings.set(S.JOKA, not no_joka)
    book = VoiceBook(settings)
    book.player()                               # the stream opens with the app, before any press
    driver = ReadingDriver(book)
    if mubeyama:
        from trainer.games.mubeyama_session import CPU, HUMAN, GameConfig
        from trainer.ui.mubeyama_panel import MubeyamaPanel
        game = MubeyamaPanel(settings, book, driver=driver)
        config = GameConfig(variant="okayama4", seats=(HUMAN, CPU, CPU, CPU), seed=1)
    else:
        panel = ReaderPanel(settings, driver)
    out = lambda name: print(f"{name} {time.perf_counter()}", flush=True)  # noqa: E731

    def heard(poem: int) -> None:
        if not getattr(heard, "first", False):
            heard.first = True                  # type: ignore[attr-defined]
            out("first")
        if poem != 0:
            out("card1")
            QTimer.singleShot(0, app.quit)
    driver.card_started.connect(heard)
    driver.error.connect(lambda message: (print(f"error {message}", flush=True), app.quit()))

    def press() -> None:
        out("pressed")
        if mubeyama:
            game.start_game(config)
        else:
            panel.command("start")
    print(f"launched {started}", flush=True)
    QTimer.singleShot(200, press)               # as a person would, once the window is up
    app.exec()
    driver.stop()
    book.close()
    return 0


def render_run(checkout: Path) -> float:
    env, dirs = fresh_env(dict(os.environ))
    out = Path(dirs[1]) / "session.flac"
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "trainer.cli", "read", "--seed", "1", "--out", str(out)],
                       cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)
    if r.returncode != 0:
        raise SystemExit(f"karuta read --out failed: {r.stderr.strip()[-400:]}")
    return wall


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--no-joka", action="store_true", help="time the first card, not the joka")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose CLI to run")
    parser.add_argument("--no-render", action="store_true", help="skip the whole-set --out runs")
    parser.add_argument("--gui", action="store_true", help="the app's Reader, not the CLI")
    parser.add_argument("--mubeyama", action="store_true", help="with --gui: a Mubeyama game, not the Reader")
    parser.add_argument("--gui-child", metavar="DATA_DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.gui_child:
        return gui_child(args.gui_child, args.no_joka, args.mubeyama)
    print(f"checkout {args.checkout}, {os.cpu_count()} cores, load {load()}")
    pulse = start_pulse()
    try:
        for k in range(args.runs):
            what = "card 1" if args.no_joka else "joka"
            fmt = lambda x: "never" if x is None else f"{x:.2f} s"  # noqa: E731
            if args.gui:
                up, first, card1 = gui_run(args.checkout, pulse, args.no_joka, args.mubeyama)
                panel = "Mubeyama" if args.mubeyama else "Reader"
                print(f"{panel} run {k + 1}: app up {fmt(up)}; from Start: first audible ({what}) "
                      f"{fmt(first)}, card 1 heard {fmt(card1)}  (load {load()})", flush=True)
                continue
            first, card1 = play_run(args.checkout, pulse, args.no_joka)
            print(f"play run {k + 1}: first audible ({what}) {fmt(first)}, card 1 heard {fmt(card1)}"
                  f"  (load {load()})", flush=True)
    finally:
        stop_pulse(pulse)
    if not args.no_render and not args.gui:
        for k in range(args.runs):
            print(f"render run {k + 1}: whole set (100 + joka) {render_run(args.checkout):.1f} s wall"
                  f"  (load {load()})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
