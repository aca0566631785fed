"""The standalone build: its size, that it runs with no Python of ours, and how fast it opens.

    python bench/bench_bundle.py [--build] [--display :187] [--starts 3]

--build runs `bash packaging/build.sh` first and times it. Then, from
build/dist/karuta with a bare environment (env -i, PATH=/usr/bin:/bin, so no
virtual environment and no project checkout is reachable):
  1. `karuta --version` prints this project's version;
  2. `karuta read --out three.flac --cards 3` renders three cards with the
     synthesised voice (the dictionary and voice inside the bundle), and the
     file is checked: 48 kHz, longer than three readings' worth, not silent;
  3. the time from starting `karuta` to its main window being mapped on an Xvfb
     display (first start: fresh user data, the welcome dialog follows), median
     of --starts runs.
Prints the folder and tarball sizes. Exits 1 if a check fails.
"""
from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "build" / "dist" / "karuta"
WINDOW_TITLE = "Kyōgi karuta reader and judge"


def bare_env(home: Path, **extra) -> dict[str, str]:
    """No virtual environment, no PYTHONPATH, a private home and data folder."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
           "XDG_CACHE_HOME": str(home / ".cache")}
    env.update(extra)
    return env


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def check_version(exe: Path, home: Path) -> bool:
    from trainer import __version__
    out = subprocess.run([str(exe), "--version"], env=bare_env(home), capture_output=True, text=True,
                         timeout=60)
    ok = out.returncode == 0 and out.stdout.strip() == f"karuta {__version__}"
    print(f"--version: {out.stdout.strip()!r} (exit {out.returncode}) {'ok' if ok else 'FAILED'}")
    return ok


def check_render(exe: Path, home: Path) -> bool:
    import numpy as np
    import soundfile as sf
    out_file = home / "three.flac"
    start = time.perf_counter()
    out = subprocess.run([str(exe), "read", "--out", str(out_file), "--cards", "3", "--seed", "7"],
                         env=bare_env(home), capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - start
    if out.returncode != 0 or not out_file.exists():
        print(f"read --out: exit {out.returncode}, no file: FAILED\n{out.stderr[-2000:]}")
        return False
    x, rate = sf.read(str(out_file), dtype="float32")
    seconds = len(x) / rate
    peak = float(np.max(np.abs(x))) if x.size else 0.0
    # The joka and three poems, each kami + pause + shimo + ma: well over 40 s.
    ok = rate == 48_000 and seconds > 40 and peak > 0.05
    print(f"read --out, 3 cards: {took:.1f} s (synthesis included), {seconds:.1f} s of audio at "
          f"{rate} Hz, peak {peak:.2f} {'ok' if ok else 'FAILED'}")
    return ok


def display_answers(display: str) -> bool:
    return subprocess.run(["xdpyinfo", "-display", display], capture_output=True).returncode == 0


def start_xvfb(display: str) -> subprocess.Popen | None:
    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        print("start-up time: Xvfb or xdotool missing, not measured")
        return None
    if display_answers(display):
        print(f"start-up time: display {display} is already in use; pass another with --display")
        return None
    # -noreset: by default the server resets when its last client leaves, and a
    # program starting during the reset cannot connect.
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp", "-noreset"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if xvfb.poll() is None and display_answers(display):
            return xvfb
        time.sleep(0.05)
    xvfb.terminate()
    print(f"start-up time: Xvfb {display} did not start")
    return None


def time_to_window(exe: Path, display: str, home: Path) -> float | None:
    """Seconds from launch until a visible window carries the main window's title.

    Polled every 20 ms (`xdotool search --sync` can fail outright when Qt's
    helper windows vanish during its search).
    """
    env = bare_env(home, DISPLAY=display)
    x_env = {"DISPLAY": display, "PATH": "/usr/bin:/bin"}
    start = time.perf_counter()
    log = home / "karuta.log"
    app = subprocess.Popen([str(exe)], env=env, stdout=subprocess.DEVNULL, stderr=log.open("w"))
    try:
        while time.perf_counter() - start < 120 and app.poll() is None:
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", WINDOW_TITLE],
                                   env=x_env, capture_output=True)
            if found.returncode == 0 and found.stdout.strip():
                return time.perf_counter() - start
            time.sleep(0.02)
        print(f"  no window after {time.perf_counter() - start:.1f} s; exit status {app.poll()}; "
              f"stderr: {log.read_text()[-1500:]!r}")
        return None
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(10)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="store_true", help="run packaging/build.sh first and time it")
    ap.add_argument("--display", default=":187", help="a free X display number for Xvfb")
    ap.add_argument("--starts", type=int, default=3)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))

    if args.build:
        start = time.perf_counter()
        subprocess.run(["bash", str(ROOT / "packaging" / "build.sh")], check=True)
        print(f"build (packaging/build.sh): {time.perf_counter() - start:.0f} s")
    exe = DIST / "karuta"
    if not exe.exists():
        print(f"no build at {DIST}: run `bash packaging/build.sh` (or this with --build)")
        return 1
    tarballs = sorted((ROOT / "build").glob("karuta-trainer-*.tar.gz"))
    print(f"folder {DIST}: {folder_size(DIST) / 1e6:.0f} MB")
    for tarball in tarballs:
        print(f"tarball {tarball.name}: {tarball.stat().st_size / 1e6:.0f} MB")

    ok = True
    with tempfile.TemporaryDirectory(prefix="karuta-bundle-") as tmp:
        home = Path(tmp)
        ok &= check_version(exe, home)
        ok &= check_render(exe, home)
        xvfb = start_xvfb(args.display)
        if xvfb is not None:
            try:
                times = []
                for k in range(args.starts):
                    run_home = home / f"start{k}"       # a first start every time
                    run_home.mkdir()
                    t = time_to_window(exe, args.display, run_home)
                    if t is None and xvfb.poll() is not None:
                        print(f"start {k + 1}: Xvfb {args.display} died (exit {xvfb.poll()}); stopping")
                        ok = False
                        break
                    if t is None:
                        print(f"start {k + 1}: the window did not appear FAILED")
                        ok = False
                    else:
                        times.append(t)
                if times:
                    print(f"start-up to the main window under Xvfb: median {statistics.median(times):.2f} s "
                          f"(runs: {', '.join(f'{t:.2f}' for t in times)})")
            finally:
                xvfb.terminate()
                xvfb.wait()
    print("all checks passed" if ok else "SOME CHECKS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
