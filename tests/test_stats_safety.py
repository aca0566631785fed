"""Issue 11, statistics half: files the user names are never moved, busy is not damage,
a newer schema is read-only, partial damage is salvaged, a failed save is a message.

Each test here failed on the code before the fix (checked with `git stash`)."""
from __future__ import annotations

import csv
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import trainer.stats.store as store_mod
from trainer.cli import main
from trainer.stats.recorder import SessionRecorder
from trainer.stats.srs import Memorisation
from trainer.stats.store import StatsBusy, StatsError, StatsStore, Trial, default_path

ROOT = Path(__file__).resolve().parents[1]


def _fill(path, n=300, *, at=1_700_000_000.0):
    with StatsStore.open(path) as store:
        session = store.begin_session("listening_reflex", '{"n": 1}', at=at)
        store.record_many(Trial("listening_reflex", 1 + i % 100, i % 3 > 0, answer=str(i),
                                reaction_ms=400.0 + i % 50, session=session, at=at + i)
                          for i in range(n))
        store.query("PRAGMA wal_checkpoint(TRUNCATE)")


def _fingerprint(path):
    st = os.lstat(path)
    with open(path, "rb") as f:
        data = f.read() if os.path.isfile(path) else b""
    return data, st.st_ino, st.st_mtime_ns, st.st_mode


def _trial_pages(path):
    """{page number: rows on it} for the trials table's leaves (SQLite's own dbstat)."""
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT pageno, ncell FROM dbstat "
                                 "WHERE name='trials' AND pagetype='leaf' ORDER BY pageno"))
    finally:
        conn.close()


def _scribble_pages(path, pages, page_size=4096):
    data = bytearray(path.read_bytes())
    for p in pages:
        data[(p - 1) * page_size: p * page_size] = os.urandom(page_size)
    path.write_bytes(bytes(data))


# --- finding 1: a file the user names is never renamed, replaced or written ---------------------

@pytest.mark.parametrize("action", [["summary"], ["check"], ["export", "--csv", "OUT"]])
def test_stats_commands_leave_a_foreign_file_exactly_as_it_is(tmp_path, action, capsys):
    victim = tmp_path / "passwd"
    victim.write_text("root:x:0:0:root:/root:/bin/bash\n")
    before = _fingerprint(victim)
    args = ["stats", *[str(tmp_path / "out.csv") if a == "OUT" else a for a in action],
            "--db", str(victim)]
    assert main(args) == 2
    assert "not a statistics database" in capsys.readouterr().err
    assert _fingerprint(victim) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["passwd"]


def test_stats_summary_on_a_device_refuses_without_touching_it(capsys):
    before = os.stat("/dev/null")
    assert main(["stats", "summary", "--db", "/dev/null"]) == 2
    assert "not a regular file" in capsys.readouterr().err
    after = os.stat("/dev/null")
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode,
                                                            before.st_rdev)


def test_export_refuses_a_pipe_and_the_database_itself(tmp_path, capsys):
    _fill(default_path(), 10)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    assert main(["stats", "export", "--csv", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert os.path.exists(fifo) and not os.path.isfile(fifo)      # still a pipe
    db = default_path()
    before = _fingerprint(db)
    assert main(["stats", "export", "--csv", str(db)]) == 2
    assert "the statistics database itself" in capsys.readouterr().err
    assert _fingerprint(db) == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_export_replaces_a_regular_file_through_a_temporary_one(tmp_path):
    _fill(default_path(), 10)
    out = tmp_path / "trials.csv"
    out.write_text("old\n")
    os.chmod(out, 0o640)
    assert main(["stats", "export", "--csv", str(out)]) == 0
    with open(out, encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 10
    assert oct(out.stat().st_mode & 0o777) == oct(0o640)   # its permissions are kept
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "userdata") == ["trials.csv"]


# --- finding 2: busy is not damage ---------------------------------------------------------------

LOCKER = textwrap.dedent("""
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("SELECT count(*) FROM trials").fetchone()
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
    conn.execute("COMMIT")
    conn.close()                              # releases the exclusive lock
    print("released", flush=True)
    time.sleep(60)
""")


def _hold_lock(path, seconds):
    proc = subprocess.Popen([sys.executable, "-c", LOCKER, str(path), str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_a_locked_database_is_waited_for_not_set_aside(monkeypatch):
    path = default_path()
    _fill(path, 300)
    monkeypatch.setattr(store_mod, "BUSY_WAIT_S", 8.0, raising=False)
    proc = _hold_lock(path, 1.5)     # released partway through the wait
    try:
        t0 = time.monotonic()
        with StatsStore.open(path) as store:
            waited = time.monotonic() - t0
            assert store.recovery_message is None and store.set_aside_path is None
            assert store.count() == 300
    finally:
        proc.kill()
        proc.wait()
    assert 1.0 < waited < 8.0
    assert not list(path.parent.glob("*.damaged-*"))


def test_a_database_locked_for_too_long_is_in_use_not_damaged(monkeypatch, capsys):
    path = default_path()
    _fill(path, 300)
    monkeypatch.setattr(store_mod, "BUSY_WAIT_S", 0.8, raising=False)
    proc = _hold_lock(path, 30)
    try:
        before = _fingerprint(path)
        with pytest.raises(StatsBusy, match="in use by another program"):
            StatsStore.open(path)
        assert main(["stats", "summary"]) == 1
        assert "in use by another program" in capsys.readouterr().err
        assert _fingerprint(path) == before
    finally:
        proc.kill()
        proc.wait()
    assert not list(path.parent.glob("*.damaged-*"))
    with StatsStore.open(path) as store:
        assert store.count() == 300


# --- finding 2: partial damage is salvaged, check and export say so ------------------------------

@pytest.fixture
def partly_damaged():
    """5,000 trials, then 4 of the trials table's leaf pages scribbled over."""
    path = default_path()
    _fill(path, 5000)
    conn = sqlite3.connect(path)
    original = conn.execute("SELECT * FROM trials ORDER BY id").fetchall()
    conn.close()
    cells = _trial_pages(path)
    leaves = sorted(cells)
    assert len(leaves) > 20
    bad = leaves[5:6] + leaves[len(leaves) // 2: len(leaves) // 2 + 2] + leaves[-3:-2]
    _scribble_pages(path, bad)
    return path, original, sum(cells[p] for p in bad)


def test_check_reports_damage_with_a_nonzero_exit_and_moves_nothing(partly_damaged, capsys):
    path, _, _ = partly_damaged
    before = _fingerprint(path)
    assert main(["stats", "check"]) == 1
    err = capsys.readouterr().err
    assert "damaged" in err and "nothing was changed" in err.lower() and "stats recover" in err
    assert _fingerprint(path) == before
    assert not list(path.parent.glob("*.damaged-*"))


def test_export_of_a_damaged_database_fails_cleanly(partly_damaged, tmp_path, capsys):
    path, _, _ = partly_damaged
    out = tmp_path / "out.csv"
    out.write_text("previous export\n")
    assert main(["stats", "export", "--csv", str(out)]) == 1
    assert "damaged" in capsys.readouterr().err
    assert out.read_text() == "previous export\n"
    assert not [p for p in tmp_path.iterdir() if ".part" in p.name]


def test_the_app_salvages_every_readable_trial_of_its_damaged_database(partly_damaged):
    path, original, lost = partly_damaged
    with StatsStore.open(path) as store:
        assert store.set_aside_path is not None and store.set_aside_path.exists()
        recovered = store.query("SELECT * FROM trials ORDER BY id")
        message = store.recovery_message
        # Rebuilt summaries agree with the salvaged trials.
        assert store.query("SELECT sum(n) FROM daily")[0][0] == len(recovered)
    by_id = {r[0]: r for r in original}
    assert all(by_id[r[0]] == r for r in recovered)          # copied exactly
    assert 0 < lost and len(recovered) == len(original) - lost   # only the bad pages' rows lost
    assert f"{len(recovered):,} trials were recovered" in message


def test_stats_recover_writes_a_new_file_and_never_overwrites(partly_damaged, tmp_path, capsys):
    path, original, lost = partly_damaged
    before = _fingerprint(path)
    dest = tmp_path / "recovered.sqlite3"
    assert main(["stats", "recover", str(path), str(dest)]) == 0
    out = capsys.readouterr().out
    assert "trials" in out and "was not changed" in out
    assert _fingerprint(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["stats.sqlite3"]   # no side files
    with StatsStore.open(dest, read_only=True) as store:
        n = store.count()
    assert n == len(original) - lost
    dest_before = _fingerprint(dest)
    assert main(["stats", "recover", str(path), str(dest)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert _fingerprint(dest) == dest_before
    assert not [p for p in tmp_path.iterdir() if ".part" in p.name]


# --- finding 6 (store side): a write that fails is a StatsError, the store goes on -------------

def test_a_full_disk_is_a_stats_error_and_the_store_stays_usable(tmp_path):
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        store.record(Trial("match", 1, True))
        pages = store.query("PRAGMA page_count")[0][0]
        store.query(f"PRAGMA max_page_count={pages}")          # SQLite's own "disk full"
        with pytest.raises(StatsError, match="disk is full"):
            store.record_many(Trial("match", 1 + i % 100, True, answer="x" * 200)
                              for i in range(500))
        assert store.count() == 1
        store.query("PRAGMA max_page_count=1000000")
        store.record(Trial("match", 2, True))
        assert store.count() == 2


# --- finding 10: one transaction for a trial and its review --------------------------------------

def test_a_trial_and_its_review_are_kept_together_or_not_at_all(tmp_path, monkeypatch):
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        rec = SessionRecorder(store, "fuda_nagashi", memorisation=Memorisation(store, fuzz=False))

        class Result:
            kind, card, correct, reaction_ms = "fuda_nagashi", 12, True, 800.0

            def to_trial(self, session, voice):
                return Trial("fuda_nagashi", 12, True, reaction_ms=800.0, session=session)

        def failing_save(self, card):
            with self.store.transaction() as conn:
                conn.execute("INSERT INTO srs_cards (card, state, due) VALUES (12, 1, 0)")
                raise StatsError("the disk is full")

        monkeypatch.setattr(Memorisation, "_save", failing_save)
        with pytest.raises(StatsError):
            rec.add(Result())
        assert store.count() == 0                                  # no trial without its review
        assert store.query("SELECT count(*) FROM srs_cards")[0][0] == 0
        monkeypatch.undo()
        rec.add(Result())
        assert store.count() == 1
        assert store.query("SELECT count(*) FROM srs_cards")[0][0] == 1


# --- finding 9: a read-only data folder is not damage ------------------------------------------

READ_ONLY_PROBE = textwrap.dedent("""
    import json, sys
    from trainer.cli import main
    from trainer.stats.store import StatsError, StatsStore, Trial
    store = StatsStore.open()
    out = {"reason": store.read_only_reason, "count": store.count(),
           "recovery": store.recovery_message, "aside": str(store.set_aside_path)}
    try:
        store.record(Trial("match", 1, True))
        out["write"] = "written"
    except StatsError as exc:
        out["write"] = str(exc)
    store.close()
    out["summary"] = main(["stats", "summary"])
    print(json.dumps(out))
""")


def test_a_read_only_data_folder_keeps_its_healthy_database(tmp_path):
    import json
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="karuta-ro-", dir="/tmp"))
    try:
        _fill(folder / "stats.sqlite3", 300)
        os.chmod(folder / "stats.sqlite3", 0o444)
        os.chmod(folder, 0o555)
        before = {p.name: _fingerprint(p) for p in folder.iterdir()}
        cmd = [sys.executable, "-c", READ_ONLY_PROBE]
        if os.geteuid() == 0:     # root ignores permissions: be someone else
            if not shutil.which("setpriv"):
                pytest.skip("running as root without setpriv: cannot make a folder read-only")
            cmd = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", *cmd]
        env = {**os.environ, "KARUTA_DATA_DIR": str(folder), "PYTHONPATH": str(ROOT)}
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        assert out["count"] == 300 and out["aside"] == "None"
        assert "read-only" in out["reason"] and "damaged" not in out["recovery"]
        assert "new results will not be saved" in out["recovery"]
        assert "results cannot be saved" in out["write"]
        assert out["summary"] == 0
        assert {p.name: _fingerprint(p) for p in folder.iterdir()} == before
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder)
