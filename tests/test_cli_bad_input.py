"""Every command answers bad input with one line on stderr and exit 2 (1 for a failure
while working), never a traceback, and loses nothing: every file in the test's
folder (and /dev/null) has the same bytes, inode, mode and mtime afterwards.

The table runs the CLI in-process (trainer.cli.main); a few cases run as a real
process to prove no traceback reaches stderr. Issue 11, findings 1, 2 and 9.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from trainer.cli import main
from trainer.stats.store import StatsStore, Trial

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]         # {w} = the test's folder
    code: int
    message: str                  # must appear in the one line on stderr
    env: dict = field(default_factory=dict)


CASES = {
    # --- stats: files the user names are read, never moved or written (finding 1) ---
    "summary of a text file": Case(("stats", "summary", "--db", "{w}/passwd"), 2,
                                   "not a statistics database"),
    "check of a text file": Case(("stats", "check", "--db", "{w}/passwd"), 2,
                                 "not a statistics database"),
    "export from a text file": Case(("stats", "export", "--csv", "{w}/out.csv", "--db",
                                     "{w}/passwd"), 2, "not a statistics database"),
    "summary of a device": Case(("stats", "summary", "--db", "/dev/null"), 2,
                                "not a regular file"),
    "check of a device": Case(("stats", "check", "--db", "/dev/null"), 2, "not a regular file"),
    "summary of a pipe": Case(("stats", "summary", "--db", "{w}/fifo"), 2, "not a regular file"),
    "summary of a folder": Case(("stats", "summary", "--db", "{w}/dir"), 2, "is a folder"),
    "summary --db ''": Case(("stats", "summary", "--db", ""), 2, "--db needs a file name"),
    "check --db ''": Case(("stats", "check", "--db", ""), 2, "--db needs a file name"),
    "summary of a missing file": Case(("stats", "summary", "--db", "{w}/missing.sqlite3"), 2,
                                      "there is no statistics database"),
    "summary of a foreign database": Case(("stats", "summary", "--db", "{w}/foreign.sqlite3"), 2,
                                          "not a karuta statistics database"),
    "check of a damaged store": Case(("stats", "check", "--db", "{w}/damaged.sqlite3"), 1,
                                     "is damaged"),
    "summary of a damaged store": Case(("stats", "summary", "--db", "{w}/damaged.sqlite3"), 1,
                                       "is damaged"),
    "export of a damaged store": Case(("stats", "export", "--csv", "{w}/out.csv", "--db",
                                       "{w}/damaged.sqlite3"), 1, "is damaged"),
    # --- stats export targets ---
    "export to a device": Case(("stats", "export", "--csv", "/dev/null"), 2, "not a regular file"),
    "export to a pipe": Case(("stats", "export", "--csv", "{w}/fifo"), 2, "not a regular file"),
    "export to a folder": Case(("stats", "export", "--csv", "{w}/dir"), 2, "is a folder"),
    "export --csv ''": Case(("stats", "export", "--csv", ""), 2, "--csv needs a file name"),
    "export into a missing folder": Case(("stats", "export", "--csv", "{w}/nodir/x.csv"), 2,
                                         "does not exist"),
    "export over the database": Case(("stats", "export", "--csv", "{w}/data/stats.sqlite3"), 2,
                                     "the statistics database itself"),
    "export without --csv": Case(("stats", "export"), 2, "required: --csv"),
    # --- stats arguments ---
    "summary --kind bingo": Case(("stats", "summary", "--kind", "bingo"), 2, "unknown kind"),
    "summary --days -1": Case(("stats", "summary", "--days", "-1"), 2, "--days must be 0 or more"),
    "summary --days x": Case(("stats", "summary", "--days", "x"), 2, "invalid int value"),
    "stats without action": Case(("stats",), 2, "required: ACTION"),
    "stats frobnicate": Case(("stats", "frobnicate"), 2, "invalid choice"),
    # --- stats recover: source only read, destination never overwritten ---
    "recover from a text file": Case(("stats", "recover", "{w}/passwd", "{w}/new.sqlite3"), 2,
                                     "not a SQLite database"),
    "recover over an existing file": Case(("stats", "recover", "{w}/damaged.sqlite3",
                                           "{w}/notes.csv"), 2, "already exists"),
    "recover from a missing file": Case(("stats", "recover", "{w}/missing.sqlite3",
                                         "{w}/new.sqlite3"), 2, "cannot read"),
    "recover from a device": Case(("stats", "recover", "/dev/null", "{w}/new.sqlite3"), 2,
                                  "not a regular file"),
    "recover into ''": Case(("stats", "recover", "{w}/damaged.sqlite3", ""), 2,
                            "give the damaged database and a new file name"),
    "recover into a missing folder": Case(("stats", "recover", "{w}/damaged.sqlite3",
                                           "{w}/nodir/new.sqlite3"), 2, "does not exist"),
    "recover with one argument": Case(("stats", "recover", "{w}/damaged.sqlite3"), 2,
                                      "required: NEW"),
    # --- the data folder (finding 9) ---
    "KARUTA_DATA_DIR is a file (stats)": Case(("stats", "summary"), 2, "is a file, not a folder",
                                              env={"KARUTA_DATA_DIR": "{w}/passwd"}),
    "KARUTA_DATA_DIR is a file (read)": Case(("read", "--voice", "mine", "--json"), 2,
                                             "is a file, not a folder",
                                             env={"KARUTA_DATA_DIR": "{w}/passwd"}),
    # --- read: the target is checked before the long preparation (finding 9) ---
    "read --out ''": Case(("read", "--out", ""), 2, "--out needs a file name"),
    "read --pitch too low": Case(("read", "--pitch", "50", "--json"), 2, "--pitch must be 150..400 Hz"),
    "read --pitch nan": Case(("read", "--pitch", "nan", "--json"), 2, "--pitch must be 150..400 Hz"),
    "read --out a folder": Case(("read", "--out", "{w}/dir"), 2, "is a folder"),
    "read --out a device": Case(("read", "--out", "/dev/null"), 2, "not a regular file"),
    "read --out a pipe": Case(("read", "--out", "{w}/fifo"), 2, "not a regular file"),
    "read --out .mp3": Case(("read", "--out", "{w}/x.mp3"), 2, "must end in .wav or .flac"),
    "read --out into a missing folder": Case(("read", "--out", "{w}/nodir/x.flac"), 2,
                                             "does not exist"),
    "read --out into an unwritable folder": Case(("read", "--out", "/proc/x.flac"), 2,
                                                 "is not writable"),
    "read --cards 0": Case(("read", "--cards", "0", "--json"), 2, "--cards must be 1..100"),
    "read --cards 101": Case(("read", "--cards", "101", "--json"), 2, "--cards must be 1..100"),
    "read --speed 9": Case(("read", "--speed", "9", "--json"), 2, "speed must be"),
    "read --ma -1": Case(("read", "--ma", "-1", "--json"), 2, "ma must be"),
    "read --seed x": Case(("read", "--seed", "x"), 2, "invalid int value"),
    # --- poems, kimariji ---
    "kimariji --read 0": Case(("kimariji", "--read", "0"), 2, "there is no poem 0"),
    "kimariji --read abc": Case(("kimariji", "--read", "abc"), 2, "is not a poem number"),
    "kimariji --read 101": Case(("kimariji", "--read", "5,101"), 2, "there is no poem 101"),
    "poems --bogus": Case(("poems", "--bogus"), 2, "unrecognized arguments: --bogus"),
    # --- simulate ---
    "simulate kyogi --games 0": Case(("simulate", "kyogi", "--games", "0"), 2,
                                     "--games must be at least 1"),
    "simulate kyogi --games x": Case(("simulate", "kyogi", "--games", "x"), 2, "invalid int value"),
    "simulate kyogi --cpu-level bogus": Case(("simulate", "kyogi", "--cpu-level", "bogus"), 2,
                                             "unknown CPU level 'bogus'"),
    "simulate mubeyama --ruleset x": Case(("simulate", "mubeyama", "--ruleset", "x"), 2,
                                          "invalid choice: 'x'"),
    "simulate mubeyama --players 99": Case(("simulate", "mubeyama", "--players", "99"), 2,
                                           "not 99"),
    "simulate mubeyama --games -3": Case(("simulate", "mubeyama", "--games", "-3"), 2,
                                         "--games must be at least 1"),
    "simulate without game": Case(("simulate",), 2, "required: GAME"),
    # --- import-readings (arguments only; the importer's file cases are tested with it) ---
    "import-readings without folder": Case(("import-readings",), 2, "give the folder holding the recordings"),
    "import-readings of a missing folder": Case(("import-readings", "{w}/nodir"), 2,
                                                "is not a folder"),
    "import-readings of a file": Case(("import-readings", "{w}/passwd"), 2, "is not a folder"),
    "import-readings --name without value": Case(("import-readings", "{w}/dir", "--name"), 2,
                                                 "expected one argument"),
    # --- issue 24: data loss, hangs and crashes ---
    "read --voice an absolute path": Case(("read", "--voice", "{w}/recordings", "--json"), 1,
                                          "no usable imported voice"),
    "read --voice ..": Case(("read", "--voice", "../../recordings", "--json"), 1,
                            "no usable imported voice"),
    "read --voice ''": Case(("read", "--voice", "", "--json"), 1, "no usable imported voice"),
    "read --voice with a deeply nested index": Case(("read", "--voice", "deep", "--json"), 1,
                                                    "no usable imported voice"),
    "read --poems ²": Case(("read", "--poems", "²", "--json"), 2, "is not a poem number"),
    "read --poems 5000 digits": Case(("read", "--poems", "7" * 5000, "--json"), 2,
                                     "is not a poem number"),
    "read --set ²": Case(("read", "--set", "1 ²", "--json"), 2, "is not a poem number"),
    "kimariji --read ²": Case(("kimariji", "--read", "²"), 2, "is not a poem number"),
    "kimariji --set 5000 digits": Case(("kimariji", "--set", "1-" + "9" * 5000), 2,
                                       "is not a poem number"),
    "read --replay with a FIFO session": Case(("read", "--replay", "--json"), 2,
                                              "cannot be read", env={"KARUTA_DATA_DIR": "{w}/fifodata"}),
    "score umebotan a FIFO": Case(("score", "umebotan", "{w}/fifo"), 2, "not a regular file"),
    "score umebotan deep JSON": Case(("score", "umebotan", "{w}/deep.json"), 2, "nested too deeply"),
    "score umebotan a device": Case(("score", "umebotan", "/dev/zero"), 2, "not a regular file"),
    "stats check of no database": Case(("stats", "check"), 1, "there is no statistics database",
                                       env={"KARUTA_DATA_DIR": "{w}/dir"}),
    "recover from a foreign database": Case(("stats", "recover", "{w}/foreign.sqlite3",
                                             "{w}/new.sqlite3"), 2, "another program's SQLite file"),
    "install a text file": Case(("stats", "install", "{w}/passwd"), 2, "not a statistics database"),
    "install a foreign database": Case(("stats", "install", "{w}/foreign.sqlite3"), 2,
                                       "not a karuta statistics database"),
    "install a damaged store": Case(("stats", "install", "{w}/damaged.sqlite3"), 1, "is damaged"),
    "install a missing file": Case(("stats", "install", "{w}/missing.sqlite3"), 2,
                                   "there is no database"),
    "install a pipe": Case(("stats", "install", "{w}/fifo"), 2, "not a regular file"),
    "install the database itself": Case(("stats", "install", "{w}/data/stats.sqlite3"), 2,
                                        "already the statistics database"),
    # --- issue 24: options a game would silently ignore ---
    "simulate kyogi --league --players 5": Case(("simulate", "kyogi", "--league", "--players", "5"),
                                                2, "it takes no --players"),
    "simulate kyogi --league --cpu-level x": Case(("simulate", "kyogi", "--league", "--cpu-level",
                                                   "x"), 2, "it takes no --level"),
    "simulate mubeyama --ruleset izumoji --variant okayama4": Case(
        ("simulate", "mubeyama", "--ruleset", "izumoji", "--variant", "okayama4"), 2,
        "not --ruleset izumoji"),
    "simulate yomi --wild-card on standard": Case(("simulate", "yomi", "--wild-card", "onifuda"), 2,
                                                  "--wild-card is for the wild variant"),
    "simulate yomi --card-points": Case(("simulate", "yomi", "--card-points", "rank"), 2,
                                        "--card-points is a yomi37 option"),
    "simulate umebotan --reseat with 3 players": Case(
        ("simulate", "umebotan", "--reseat", "score", "--players", "3"), 2, "4-player game"),
    "simulate umebotan --rounds huge": Case(("simulate", "umebotan", "--rounds",
                                             "99999999999999999998"), 2, "--rounds must be"),
    "simulate yomi --rounds huge": Case(("simulate", "yomi", "--rounds", "99999999999999999998"), 2,
                                        "--rounds must be"),
    # --- the command itself ---
    "unknown command": Case(("bogus",), 2, "invalid choice: 'bogus'"),
    "unknown option": Case(("--nonsense",), 2, "unrecognized arguments: --nonsense"),
}


def _fill(path, n=50):
    with StatsStore.open(path) as store:
        store.record_many(Trial("match", 1 + i % 100, i % 3 > 0, reaction_ms=500.0 + i,
                                at=1_700_000_000.0 + i) for i in range(n))
        store.query("PRAGMA wal_checkpoint(TRUNCATE)")


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A folder of things a user might name by mistake, and a healthy data folder."""
    w = tmp_path / "w"
    (w / "dir").mkdir(parents=True)
    (w / "data").mkdir()
    monkeypatch.setenv("KARUTA_DATA_DIR", str(w / "data"))
    _fill(w / "data" / "stats.sqlite3")
    (w / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (w / "notes.csv").write_text("id,time\n1,yesterday\n")
    os.mkfifo(w / "fifo")
    conn = sqlite3.connect(w / "foreign.sqlite3")
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    damaged = w / "damaged.sqlite3"
    shutil.copy(w / "data" / "stats.sqlite3", damaged)
    data = bytearray(damaged.read_bytes())
    data[4096 * 2: 4096 * 4] = b"\x5a" * 8192
    damaged.write_bytes(bytes(data))
    (w / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (w / "recordings").mkdir()                      # a reader's own files, no index.json
    for name in ("kami_017.flac", "shimo_017.flac"):
        (w / "recordings" / name).write_bytes(b"a reader's own recording")
    (w / "data" / "voices" / "deep").mkdir(parents=True)
    (w / "data" / "voices" / "deep" / "index.json").write_text('{"poems": ' + "[" * 100_000)
    (w / "data" / "voices" / "deep" / "kami_001_x.flac").write_bytes(b"a clip")
    (w / "fifodata").mkdir()
    os.mkfifo(w / "fifodata" / "reader_session.json")
    return w


def _snapshot(w: Path) -> dict:
    """Every entry under w (and /dev/null): bytes, inode, mode, mtime."""
    snap = {}
    for p in sorted([w, *w.rglob("*")]):
        st = os.lstat(p)
        data = p.read_bytes() if p.is_file() and not p.is_symlink() else None
        snap[str(p.relative_to(w))] = (data, st.st_ino, st.st_mode, st.st_mtime_ns)
    dn = os.stat("/dev/null")
    snap["/dev/null"] = (None, dn.st_ino, dn.st_mode, dn.st_rdev)
    return snap


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_is_one_line_and_loses_nothing(world, case, capsys, monkeypatch):
    for name, value in case.env.items():
        monkeypatch.setenv(name, value.format(w=world))
    before = _snapshot(world)
    code = main([a.format(w=world) for a in case.argv])
    err = capsys.readouterr().err
    assert code == case.code, err
    assert case.message in err
    assert err.startswith("karuta") and err.count("\n") == 1, err    # one line
    assert "Traceback" not in err
    assert _snapshot(world) == before


def test_there_are_enough_cases():
    assert len(CASES) >= 40


# --- a few as real processes: nothing but the one line reaches stderr -------------------------

def _run(args, env_extra, cwd=None, pythonpath=None):
    env = {**os.environ, **env_extra, "PYTHONPATH": pythonpath or str(ROOT)}
    return subprocess.run([sys.executable, "-m", "trainer.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", ["summary of a text file", "export to a device",
                                  "KARUTA_DATA_DIR is a file (stats)", "read --out ''",
                                  "recover over an existing file"])
def test_as_a_process_no_traceback_reaches_stderr(world, name):
    case = CASES[name]
    env = {k: v.format(w=world) for k, v in case.env.items()}
    before = _snapshot(world)
    proc = _run([a.format(w=world) for a in case.argv], {"KARUTA_DATA_DIR": str(world / "data"),
                                                         **env})
    assert proc.returncode == case.code, proc.stderr
    assert case.message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _snapshot(world) == before


def test_damaged_poem_data_is_one_line_not_a_traceback(tmp_path):
    """The shipped poems.json damaged: the message names the problem, with no traceback."""
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "poems", copy / "poems")
    shutil.copytree(ROOT / "trainer", copy / "trainer")
    if (ROOT / "audio").exists():
        shutil.copytree(ROOT / "audio", copy / "audio")
    data = copy / "poems" / "data" / "poems.json"
    data.write_text(data.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    proc = _run(["poems"], {"KARUTA_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path,
                pythonpath=str(copy))
    assert proc.returncode == 1, proc.stderr
    assert "poem data" in proc.stderr and "not valid JSON" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_an_unexpected_error_is_one_line_with_the_log_path(monkeypatch, capsys):
    """The safety net: a bug in a command prints what failed and where the details are."""
    import trainer.commands.poems_cmd as poems_cmd

    def broken(args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(poems_cmd, "cmd_poems", broken)
    assert main(["poems"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "poems failed unexpectedly (RuntimeError: a bug)" in err
    log = Path(os.environ["KARUTA_DATA_DIR"]) / "karuta-errors.log"
    assert str(log) in err
    assert "Traceback" in log.read_text() and "a bug" in log.read_text()


@pytest.mark.parametrize("out", ["", "/proc/x.flac", "{w}/nodir/x.wav", "{w}/dir", "/dev/null"])
def test_read_checks_its_target_before_the_long_preparation(world, out, monkeypatch, capsys):
    """Finding 9: an unwritable --out used to fail only after preparing the whole session,
    and --out '' played the session instead of rendering it."""
    import trainer.commands.read_cmd as read_cmd

    def must_not_prepare(*a, **k):
        raise AssertionError("the session was prepared before the target was checked")

    monkeypatch.setattr(read_cmd, "_build", must_not_prepare)
    monkeypatch.setattr(read_cmd, "_play", must_not_prepare)
    assert main(["read", "--out", out.format(w=world)]) == 2
    assert capsys.readouterr().err.startswith("karuta: read: ")
