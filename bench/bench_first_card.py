"""Bench of `karuta read` from an empty cache (issue 25): how soon the reading is heard
when playing, and how long the whole set takes to render to a file.

    python bench/bench_first_card.py [--runs 2] [--no-joka] [--checkout DIR]

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
    args = parser.parse_args()
    print(f"checkout {args.checkout}, {os.cpu_count()} cores, load {load()}")
    pulse = start_pulse()
    try:
        for k in range(args.runs):
            first, card1 = play_run(args.checkout, pulse, args.no_joka)
            what = "card 1" if args.no_joka else "joka"
            fmt = lambda x: "never" if x is None else f"{x:.2f} s"  # noqa: E731
            print(f"play run {k + 1}: first audible ({what}) {fmt(first)}, card 1 heard {fmt(card1)}"
                  f"  (load {load()})", flush=True)
    finally:
        stop_pulse(pulse)
    if not args.no_render:
        for k in range(args.runs):
            print(f"render run {k + 1}: whole set (100 + joka) {render_run(args.checkout):.1f} s wall"
                  f"  (load {load()})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
