"""`karuta stats summary|export|check`."""
from __future__ import annotations

import csv

import pytest

from trainer.cli import main
from trainer.stats.store import StatsStore, Trial


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path))
    return tmp_path


def _fill():
    with StatsStore.open() as store:
        store.record_many(Trial("listening_reflex", 1 + i % 10, i % 7 != 0,
                                reaction_ms=400.0 + (i % 10) * 30,
                                fault="otetsuki" if i % 7 == 0 else None) for i in range(70))


def test_summary(data_dir, capsys):
    assert main(["stats", "summary"]) == 0
    assert "No trials yet" in capsys.readouterr().out
    _fill()
    assert main(["stats", "summary", "--kind", "listening_reflex"]) == 0
    out = capsys.readouterr().out
    assert "70 trials (listening_reflex), 85.7% right." in out
    assert "weakest cards" in out and "faults: otetsuki 10" in out


def test_summary_bad_kind(data_dir, capsys):
    assert main(["stats", "summary", "--kind", "bingo"]) == 2
    assert "unknown kind" in capsys.readouterr().err


def test_export_and_check(data_dir, tmp_path, capsys):
    _fill()
    out = tmp_path / "trials.csv"
    assert main(["stats", "export", "--csv", str(out)]) == 0
    with open(out, encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 70
    assert main(["stats", "export", "--csv", str(tmp_path / "nope" / "x.csv")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert main(["stats", "check"]) == 0


def test_damaged_store_is_reported(data_dir, capsys):
    # summary reads only: it reports the file and leaves it exactly as it was.
    (data_dir / "stats.sqlite3").write_bytes(b"garbage" * 100)
    assert main(["stats", "summary"]) == 1
    err = capsys.readouterr().err
    assert "not a SQLite database" in err and "nothing was changed" in err
    assert (data_dir / "stats.sqlite3").read_bytes() == b"garbage" * 100


def test_summary_keeps_timing_families_apart(data_dir, capsys):
    """Issue 10.14: a 70 s Mubeyama flip and a 300 ms match reaction are never ranked together."""
    from trainer.stats.store import StatsStore, Trial
    with StatsStore.open() as store:
        store.record_many(Trial("match", 44, True, reaction_ms=300.0) for _ in range(6))
        store.record_many(Trial("mubeyama", 44, True, reaction_ms=70_000.0) for _ in range(6))
        store.record_many(Trial("match", 19, i % 2 == 0, reaction_ms=350.0) for i in range(6))
    assert main(["stats", "summary", "--days", "1"]) == 0
    out = capsys.readouterr().out
    assert "weakest cards, timed from the kimariji" in out and "weakest cards, Mubeyama flips" in out
    reaction = out.split("weakest cards, timed from the kimariji")[1].split("weakest cards,")[0]
    assert " 19 なにわが" in reaction and "median 350 ms" in reaction     # fewest right first
    assert "median 70.0 s" in out.split("Mubeyama flips")[1]
