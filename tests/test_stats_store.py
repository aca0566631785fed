"""The statistics store: round trip, CSV export, crash safety, damaged files."""
from __future__ import annotations

import csv
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from trainer.stats.store import (APPLICATION_ID, SCHEMA_VERSION, StatsError, StatsStore,
                                 Trial)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path))
    return tmp_path


def _some_trials(session=None):
    return [
        Trial("listening_reflex", 7, True, answer="7", reaction_ms=412.5, voice="synth",
              session=session, at=1_700_000_000.0),
        Trial("listening_reflex", 12, False, answer="33", reaction_ms=None, fault="otetsuki",
              voice="synth", session=session, at=1_700_000_010.0),
        Trial("fuda_nagashi", 87, True, answer="むら", reaction_ms=-35.0, session=session,
              at=1_700_000_020.0),
    ]


def test_default_location_is_the_data_dir(data_dir):
    with StatsStore.open() as store:
        assert store.path == data_dir / "stats.sqlite3"
        assert store.recovery_message is None
    conn = sqlite3.connect(data_dir / "stats.sqlite3")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_trials_round_trip_and_summaries(data_dir):
    with StatsStore.open() as store:
        session = store.begin_session("listening_reflex", '{"cards": 8}')
        ids = [store.record(t) for t in _some_trials(session)]
        assert ids == store.trial_ids()
        rows = store.query("SELECT kind, session, card, answer, correct, reaction_ms, fault, voice "
                           "FROM trials ORDER BY id")
        assert rows == [
            ("listening_reflex", session, 7, "7", 1, 412.5, None, "synth"),
            ("listening_reflex", session, 12, "33", 0, None, "otetsuki", "synth"),
            ("fuda_nagashi", session, 87, "むら", 1, -35.0, None, None),
        ]
        incremental = store.query("SELECT * FROM daily ORDER BY day, kind"), \
            store.query("SELECT * FROM card_totals ORDER BY card, kind")
        store.rebuild_summaries()
        rebuilt = store.query("SELECT * FROM daily ORDER BY day, kind"), \
            store.query("SELECT * FROM card_totals ORDER BY card, kind")
        assert incremental == rebuilt
        reflex = [r for r in rebuilt[0] if r[1] == "listening_reflex"]
        assert sum(r[2] for r in reflex) == 2 and sum(r[3] for r in reflex) == 1


def test_bad_trials_are_refused_and_lose_nothing(data_dir):
    with StatsStore.open() as store:
        store.record(Trial("match", 1, True))
        with pytest.raises(ValueError, match="poem number"):
            store.record(Trial("match", 101, True))
        with pytest.raises(ValueError, match="kind"):
            store.record(Trial("", 5, True))
        assert store.count() == 1


def test_csv_export(data_dir, tmp_path):
    with StatsStore.open() as store:
        for t in _some_trials():
            store.record(t)
        out = tmp_path / "out.csv"
        assert store.export_csv(out) == 3
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["card"] for r in rows] == ["7", "12", "87"]
    assert rows[1]["fault"] == "otetsuki" and rows[1]["correct"] == "0"
    assert rows[2]["answer"] == "むら" and rows[2]["reaction_ms"] == "-35.0"
    assert rows[0]["time"].startswith("2023-11-1")


def test_csv_export_to_unwritable_place_is_a_clear_error(data_dir, tmp_path):
    with StatsStore.open() as store:
        store.record(Trial("match", 1, True))
        with pytest.raises(StatsError, match="cannot write"):
            store.export_csv(tmp_path / "no" / "such" / "dir" / "x.csv")
        assert store.count() == 1


# --- damaged files -------------------------------------------------------------------------

def _store_with_trials(path, n=200):
    with StatsStore.open(path) as store:
        store.record_many(Trial("match", 1 + i % 100, i % 3 > 0, reaction_ms=500.0 + i,
                                at=1_700_000_000.0 + i) for i in range(n))
        store.query("PRAGMA wal_checkpoint(TRUNCATE)")


def _damage_garbage(path):
    path.write_bytes(os.urandom(8192))


def _damage_truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2 + 123])


def _damage_truncate_whole_pages(path):
    data = path.read_bytes()
    path.write_bytes(data[: (len(data) // 4096 // 2) * 4096])


def _damage_scribble(path):
    data = bytearray(path.read_bytes())
    data[4096 * 2: 4096 * 4] = os.urandom(8192)  # pages 3..4: b-tree pages, header intact
    path.write_bytes(bytes(data))


def _damage_wrong_schema(path):
    path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE trials (id INTEGER PRIMARY KEY, what TEXT)")
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()


def _damage_foreign_db(path):
    path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('someone else''s file')")
    conn.commit()
    conn.close()


def _damage_newer_version(path):
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()


# Our own database (SQLite header, our application id, in the data folder), damaged.
@pytest.mark.parametrize("damage, reason", [
    (_damage_truncate, "truncated"),
    (_damage_truncate_whole_pages, "truncated"),
    (_damage_scribble, ""),
    (_damage_wrong_schema, "wrong columns"),
])
def test_damaged_file_is_set_aside_and_a_fresh_store_started(data_dir, damage, reason):
    path = data_dir / "stats.sqlite3"
    _store_with_trials(path)
    damage(path)
    damaged_bytes = path.read_bytes()

    store = StatsStore.open(path)
    assert store.recovery_message is not None
    assert reason in store.recovery_message
    assert "set aside" in store.recovery_message and store.set_aside_path.name in store.recovery_message
    # Never deleted: the damaged bytes are there, under a timestamped name.
    assert store.set_aside_path.read_bytes() == damaged_bytes
    assert store.set_aside_path.name.startswith("stats.damaged-")
    # The fresh store holds what could be salvaged, says how much, and works.
    salvaged = store.count()
    assert salvaged <= 200
    if salvaged:
        assert f"{salvaged:,} trials were recovered" in store.recovery_message
    else:
        assert ("Nothing could be recovered" in store.recovery_message
                or "Recovering its trials failed" in store.recovery_message)
    store.record(Trial("match", 3, True, reaction_ms=321.0))
    store.close()
    with StatsStore.open(path) as again:
        assert again.recovery_message is None and again.count() == salvaged + 1


# Not ours to move: a file that is not SQLite at all, someone else's database.
@pytest.mark.parametrize("damage, reason", [
    (_damage_garbage, "not a SQLite database"),
    (_damage_foreign_db, "not a karuta statistics database"),
])
def test_a_file_that_is_not_ours_is_never_set_aside(data_dir, damage, reason):
    path = data_dir / "stats.sqlite3"
    _store_with_trials(path)
    damage(path)
    before = path.read_bytes(), path.stat().st_ino, path.stat().st_mtime_ns
    with pytest.raises(StatsError, match=reason):
        StatsStore.open(path)
    assert (path.read_bytes(), path.stat().st_ino, path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in data_dir.iterdir()) == ["stats.sqlite3"]


def test_a_newer_schema_opens_read_only_and_keeps_its_history(data_dir):
    path = data_dir / "stats.sqlite3"
    _store_with_trials(path)
    _damage_newer_version(path)
    before = path.read_bytes()
    with StatsStore.open(path) as store:
        assert store.set_aside_path is None and "newer version" in store.recovery_message
        assert "newer version" in store.read_only_reason
        assert store.count() == 200                    # the history is all there
        with pytest.raises(StatsError, match="newer version"):
            store.record(Trial("match", 3, True))
    assert path.read_bytes() == before


def _scribble_aside(path):
    """A damaged copy of our own database (header intact, b-tree pages scribbled)."""
    _store_with_trials(path)
    _damage_scribble(path)


def test_two_damaged_files_in_the_same_second_do_not_collide(data_dir):
    path = data_dir / "stats.sqlite3"
    asides = []
    for _ in range(2):
        _scribble_aside(path)
        store = StatsStore.open(path)
        asides.append(store.set_aside_path)
        store.close()
    assert asides[0] != asides[1] and all(p.exists() for p in asides)


def test_big_store_skips_quick_check_until_flagged(data_dir, monkeypatch):
    import trainer.stats.store as store_mod
    path = data_dir / "stats.sqlite3"
    _store_with_trials(path, 3000)
    monkeypatch.setattr(store_mod, "DEEP_CHECK_MAX_BYTES", 0)  # pretend the file is big
    _damage_scribble(path)
    store = StatsStore.open(path)          # cheap checks only: header and schema look fine
    assert store.recovery_message is None
    problem = store.verify()               # the full check finds it and flags the file
    assert problem
    store.close()
    assert (data_dir / "stats.sqlite3.needs-check").exists()
    store = StatsStore.open(path)          # flagged: full check at open, set aside
    assert store.recovery_message and store.set_aside_path.exists()
    assert not (data_dir / "stats.sqlite3.needs-check").exists()
    store.close()


def test_empty_file_becomes_a_store(data_dir):
    path = data_dir / "stats.sqlite3"
    path.write_bytes(b"")
    with StatsStore.open(path) as store:
        assert store.recovery_message is None
        store.record(Trial("match", 1, True))


# --- SIGKILL in the middle of a drill ------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys
    from trainer.stats.store import StatsStore, Trial
    store = StatsStore.open(sys.argv[1])
    session = store.begin_session("listening_reflex")
    i = 0
    while True:
        i += 1
        tid = store.record(Trial("listening_reflex", 1 + i % 100, i % 4 > 0,
                                 answer=str(i), reaction_ms=300.0 + i % 500, session=session))
        print(tid, i, flush=True)   # reported only once the commit has returned
""")


def test_sigkill_loses_at_most_the_trial_in_flight(data_dir):
    path = data_dir / "stats.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reported = {}
    try:
        for line in proc.stdout:
            tid, i = map(int, line.split())
            reported[tid] = i
            if len(reported) >= 150:
                break
        proc.send_signal(signal.SIGKILL)
        rest, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    for line in rest.splitlines():  # lines already in the pipe when it died
        if line.strip():
            tid, i = map(int, line.split())
            reported[tid] = i
    assert proc.returncode == -signal.SIGKILL, err
    assert len(reported) >= 150

    with StatsStore.open(path, deep_check=True) as store:
        assert store.recovery_message is None
        stored = dict(store.query("SELECT id, answer FROM trials"))
    assert all(str(reported[t]) == stored.get(t) for t in reported), "a reported trial is missing"
    extra = set(stored) - set(reported)
    assert len(extra) <= 1, f"more than the trial in flight appeared: {extra}"
