"""Disturbed trials (issue 23): a race in which the sound stuttered is kept with its reason
but counted nowhere; a schema-1 database is migrated in place with every row kept."""
from __future__ import annotations

import sqlite3

from trainer.drills.common import TrialResult
from trainer.stats import aggregates as A
from trainer.stats import salvage
from trainer.stats import store as S
from trainer.stats.recorder import SessionRecorder
from trainer.stats.srs import Memorisation
from trainer.stats.store import StatsStore, Trial

DAY0 = 1_700_000_000.0


def _clean_and_disturbed() -> list[Trial]:
    clean = [Trial("match", 7, True, answer="take", reaction_ms=300.0 + 10 * k, at=DAY0 + k)
             for k in range(4)]
    disturbed = [Trial("match", 7, False, answer="late", reaction_ms=900.0, at=DAY0 + 10,
                       fault="otetsuki", disturbed="underflow"),
                 Trial("match", 7, True, answer="take", reaction_ms=700.0, at=DAY0 + 11,
                       disturbed="late:52")]
    return clean + disturbed


def test_disturbed_trials_are_kept_but_counted_nowhere(tmp_path):
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        for t in _clean_and_disturbed():
            store.record(t)
        assert store.count() == 6
        history = A.card_history(store, 7)
        assert [h.disturbed for h in history] == [None] * 4 + ["underflow", "late:52"]
        (point,) = A.trend_by_day(store, "match")
        assert (point.n, point.faults, point.mean_reaction_ms) == (4, 0, 315.0)
        card = A.card_stats(store, "match")[6]
        assert card.n == 4 and card.mean_reaction_ms == 315.0
        assert 700.0 not in card.recent_reactions_ms and 900.0 not in card.recent_reactions_ms
        assert A.faults_by_kind(store) == {}
        windows = A.family_windows(store)
        assert len(windows[A.REACTION][7]) == 4
        assert A.card_totals(history).trials == 4
        before = store.query("SELECT * FROM daily"), store.query("SELECT * FROM card_totals")
        store.rebuild_summaries()    # the rebuild leaves them out as the running sums did
        assert (store.query("SELECT * FROM daily"), store.query("SELECT * FROM card_totals")) == before


def test_a_run_mean_leaves_out_disturbed_trials(tmp_path):
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        session = store.begin_session("listening_reflex")
        store.record(Trial("listening_reflex", 3, True, reaction_ms=400.0, session=session))
        store.record(Trial("listening_reflex", 4, True, reaction_ms=1400.0, session=session,
                           disturbed="gap:-30"))
        (run,) = A.recent_runs(store, "listening_reflex")
        assert (run.n, run.mean_ms) == (1, 400.0)


def test_a_disturbed_touch_is_no_spaced_repetition_review(tmp_path):
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        mem = Memorisation(store, now=lambda: DAY0, fuzz=False)
        rec = SessionRecorder(store, "kami_to_torifuda", memorisation=mem)
        assert rec.add(TrialResult("kami_to_torifuda", 5, True, "5", 450.0)) is not None
        assert rec.add(TrialResult("kami_to_torifuda", 6, True, "6", 450.0,
                                   disturbed="underflow")) is None
        assert mem.card(6) is None and mem.card(5) is not None
        assert store.query("SELECT card, disturbed FROM trials ORDER BY id") == [
            (5, None), (6, "underflow")]


def _schema_1_database(path) -> list[tuple]:
    """A database as schema 1 made it (no disturbed column), with three trials."""
    conn = sqlite3.connect(path, isolation_level=None)
    schema = S._SCHEMA.replace(
        "    voice       TEXT,\n    disturbed   TEXT", "    voice       TEXT")
    assert "disturbed" not in schema.split("CREATE INDEX")[0]
    for statement in S._split_sql(schema):
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id={S.APPLICATION_ID}")
    conn.execute("PRAGMA user_version=1")
    conn.execute("PRAGMA journal_mode=WAL")
    rows = [(DAY0 + k, S.local_day(DAY0 + k), "match", None, 10 + k, "take", 1, 300.0 + k,
             None, "synth") for k in range(3)]
    conn.executemany("INSERT INTO trials (at, day, kind, session, card, answer, correct, "
                     "reaction_ms, fault, voice) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    conn.execute(
        "INSERT INTO daily SELECT day, kind, count(*), sum(correct), count(fault), "
        "sum(correct AND reaction_ms IS NOT NULL), sum(reaction_ms) FROM trials GROUP BY day, kind")
    conn.close()
    return rows


def test_a_schema_1_database_is_read_read_only_without_change(tmp_path):
    path = tmp_path / "old.sqlite3"
    _schema_1_database(path)
    with StatsStore.open(path, read_only=True) as store:
        assert store.count() == 3
        assert [h.disturbed for h in A.card_history(store, 10)] == [None]
        assert A.recent_trials(store, 11, 5) == [("match", 1, 301.0)]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1     # untouched
    assert "disturbed" not in {r[1] for r in conn.execute("PRAGMA table_info(trials)")}


def test_a_schema_1_database_is_migrated_keeping_every_row(tmp_path):
    path = tmp_path / "old.sqlite3"
    rows = _schema_1_database(path)
    daily = sqlite3.connect(path).execute("SELECT * FROM daily").fetchall()
    with StatsStore.open(path) as store:
        assert store.count() == 3
        kept = store.query("SELECT at, day, kind, session, card, answer, correct, reaction_ms, "
                           "fault, voice, disturbed FROM trials ORDER BY id")
        assert kept == [(*r, None) for r in rows]
        assert store.query("SELECT * FROM daily") == daily
        store.record(Trial("match", 20, True, reaction_ms=500.0, disturbed="underflow"))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == S.SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM trials").fetchone()[0] == 4
    with StatsStore.open(path) as store:    # opening again migrates nothing more
        assert store.count() == 4


def test_salvage_reads_rows_of_both_schemas(tmp_path):
    """Rows written before the migration hold 11 values on disk, later ones 12."""
    path = tmp_path / "old.sqlite3"
    _schema_1_database(path)
    with StatsStore.open(path) as store:
        store.record(Trial("match", 30, True, reaction_ms=500.0, disturbed="underflow"))
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    raw = salvage.raw_rows(path)
    trials = sorted(raw["trials"])
    assert len(trials) == 4 and all(len(t) == len(S._EXPECTED_COLUMNS["trials"]) for t in trials)
    assert [t[-1] for t in trials] == [None, None, None, "underflow"]
    rows, _report = salvage.read_rows(path)
    assert [r[-1] for r in rows["trials"]] == [None, None, None, "underflow"]
