"""Nothing the user owns is lost (issue 24): a voice name is never a path, a missing
index deletes nothing, and every file written under a fixed name is written whole,
never through a planted symbolic link."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fixtures_audio import RATE, poem_reading  # noqa: E402

from audio.importer import import_readings, voice_lock, voices_root  # noqa: E402
from trainer.cli import main  # noqa: E402


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under `folder`: bytes (or link target), inode and mtime."""
    out = {}
    for p in sorted(folder.rglob("*")):
        st = p.lstat()
        body = os.readlink(p) if p.is_symlink() else (p.read_bytes() if p.is_file() else None)
        out[str(p.relative_to(folder))] = (body, st.st_ino, st.st_mtime_ns)
    return out


def folder(tmp_path: Path, name: str, poems: list[int]) -> Path:
    import soundfile as sf
    src = tmp_path / name
    src.mkdir()
    for no in poems:
        sf.write(str(src / f"{no:03d}.wav"), poem_reading(no).samples, RATE)
    return src


def readers_own_files(where: Path) -> Path:
    """A reader's own recordings, named as the importer recommends: no index.json."""
    where.mkdir(parents=True)
    for name in ("kami_017.flac", "shimo_017.flac", "kami_018_take2.flac"):
        (where / name).write_bytes(b"a reader's own recording " + name.encode())
    return where


# --- data loss 1: a voice name is never a path ---------------------------------------------

@pytest.mark.parametrize("how", ["absolute", "dotdot", "empty", "dot"])
def test_a_voice_name_that_is_a_path_opens_and_tidies_nothing(tmp_path, how):
    from audio.recorded_voice import RecordedVoice
    own = readers_own_files(tmp_path / "recordings" / "mine")
    voices_root()   # the voices folder exists, as after a first import
    name = {"absolute": str(own), "dotdot": "../../recordings/mine", "empty": "",
            "dot": "."}[how]
    before = snapshot(tmp_path)
    voice = RecordedVoice(name)
    assert voice.available() == frozenset()
    assert snapshot(tmp_path) == before          # no clip deleted, no lock file made


def test_read_voice_with_a_path_is_one_line_and_changes_nothing(tmp_path, capsys):
    own = readers_own_files(tmp_path / "recordings" / "mine")
    voices_root()
    before = snapshot(tmp_path)
    assert main(["read", "--voice", str(own), "--json", "--poems", "17"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "voice" in err
    assert snapshot(tmp_path) == before


# --- data loss 2: a missing index.json deletes nothing ------------------------------------------

def test_a_voice_whose_index_is_missing_keeps_every_clip_when_opened(tmp_path):
    from audio.recorded_voice import RecordedVoice
    import_readings(folder(tmp_path, "src", [3, 4]), "club")
    voice_dir = voices_root() / "club"
    index = voice_dir / "index.json"
    saved = index.read_bytes()
    index.unlink()                            # the index arrives later (a restore, a copy)
    before = snapshot(voice_dir)
    voice = RecordedVoice("club")
    assert voice.available() == frozenset()
    assert snapshot(voice_dir) == before      # not one clip deleted
    index.write_bytes(saved)
    assert RecordedVoice("club").available() == {3, 4}


def test_an_import_into_a_folder_of_clips_without_index_keeps_them(tmp_path):
    import_readings(folder(tmp_path, "src", [3]), "club")
    voice_dir = voices_root() / "club"
    (voice_dir / "index.json").unlink()
    restored = {p.name for p in voice_dir.iterdir()}
    report = import_readings(folder(tmp_path, "more", [5]), "club")
    assert report.stored == [5]
    assert restored <= {p.name for p in voice_dir.iterdir()}   # the restored clips stay


def test_a_missing_index_is_tidied_like_a_damaged_one(tmp_path):
    from audio.importer import tidy_voice
    voice_dir = readers_own_files(voices_root() / "club")
    before = snapshot(voice_dir)
    tidy_voice(voice_dir)
    with voice_lock(voice_dir):
        pass
    assert {k: v for k, v in snapshot(voice_dir).items()} == before


# --- data loss 3: a recovered database put in place, and the file set aside -----------------

def _store(path: Path, n: int, at: float, wal_only: int = 0) -> None:
    """A database of `n` trials; with `wal_only`, that many more left in its -wal (a crash)."""
    import shutil

    from trainer.stats.store import StatsStore, Trial
    store = StatsStore.open(path)
    store.record_many(Trial("match", 1 + i % 100, i % 3 > 0, reaction_ms=400.0 + i % 50, at=at + i)
                      for i in range(n))
    store.query("PRAGMA wal_checkpoint(TRUNCATE)")
    if wal_only:
        store.query("PRAGMA wal_autocheckpoint=0")
        for i in range(wal_only):
            store.record(Trial("match", 1 + i % 100, True, at=at + n + i))
        shutil.copy(str(path) + "-wal", str(path) + "-crash-wal")   # what a kill -9 leaves
    store.close()
    if wal_only:
        os.replace(str(path) + "-crash-wal", str(path) + "-wal")


def _trials(path: Path) -> int:
    from trainer.stats.store import StatsStore
    with StatsStore.open(path, read_only=True) as store:
        return store.count()


def test_a_stale_wal_beside_a_recovered_database_costs_no_trial_and_changes_no_file(tmp_path):
    """Following the old advice by hand: NEW copied over the database, the crash's -wal
    left beside it. The app finds the damage, sets the file aside unchanged, and
    salvages every trial of it."""
    from trainer.stats.store import StatsStore, default_path
    _store(tmp_path / "crashed.sqlite3", 7000, 1_700_000_000.0, wal_only=300)
    _store(tmp_path / "new.sqlite3", 3000, 1_600_000_000.0)
    db = default_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes((tmp_path / "new.sqlite3").read_bytes())
    Path(str(db) + "-wal").write_bytes((tmp_path / "crashed.sqlite3-wal").read_bytes())
    main_bytes, wal_bytes = db.read_bytes(), Path(str(db) + "-wal").read_bytes()
    with StatsStore.open(db) as store:
        aside = store.set_aside_path
        assert aside is not None and store.count() == 3000
        assert "3,000 trials were recovered" in store.recovery_message
    assert aside.read_bytes() == main_bytes                 # not checkpointed into
    assert Path(str(aside) + "-wal").read_bytes() == wal_bytes


def test_stats_install_sets_the_database_and_its_side_files_aside(tmp_path, capsys):
    from trainer.stats.store import default_path
    db = default_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    _store(db, 500, 1_700_000_000.0, wal_only=40)              # the crashed database
    _store(tmp_path / "new.sqlite3", 3000, 1_600_000_000.0)    # what `stats recover` wrote
    old_main, old_wal = db.read_bytes(), Path(str(db) + "-wal").read_bytes()
    new_before = snapshot(tmp_path)["new.sqlite3"]
    assert main(["stats", "install", str(tmp_path / "new.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert "set aside as" in out
    assert not Path(str(db) + "-wal").exists()                 # the crash's -wal went with it
    assert _trials(db) == 3000
    aside = [p for p in db.parent.iterdir() if p.name.startswith("stats.replaced-")]
    by_suffix = {p.name.rsplit(".sqlite3", 1)[1]: p for p in aside}
    assert by_suffix[""].read_bytes() == old_main and by_suffix["-wal"].read_bytes() == old_wal
    assert _trials(by_suffix[""]) == 540                         # nothing of the old one lost
    assert snapshot(tmp_path)["new.sqlite3"] == new_before       # NEW only read


def test_stats_install_is_refused_while_the_trainer_runs(tmp_path, capsys):
    from trainer.instance_lock import data_folder_lock
    from trainer.stats.store import default_path
    db = default_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    _store(db, 50, 1_700_000_000.0)
    _store(tmp_path / "new.sqlite3", 60, 1_600_000_000.0)
    with data_folder_lock("the test"):
        before = snapshot(tmp_path)
        assert main(["stats", "install", str(tmp_path / "new.sqlite3")]) == 1
        assert snapshot(tmp_path) == before
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another Karuta Trainer is using" in err


def test_stats_check_of_no_database_says_there_is_none(capsys):
    assert main(["stats", "check"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "there is no statistics database" in err


def test_stats_recover_refuses_another_programs_sqlite_file(tmp_path, capsys):
    import sqlite3
    foreign = tmp_path / "photos.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO photos (name) VALUES ('x')")
    conn.close()
    before = snapshot(tmp_path)
    assert main(["stats", "recover", str(foreign), str(tmp_path / "new.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another program's SQLite file" in err
    assert snapshot(tmp_path) == before


# --- karuta gui: a display that does not answer; a second window on one data folder ------------

def _listener(reply: bytes | None):
    """A TCP 'X server' on 127.0.0.1:6000+N that answers `reply`, or never answers."""
    import socket
    import threading
    for number in range(150, 400):
        srv = socket.socket()
        try:
            srv.bind(("127.0.0.1", 6000 + number))
            break
        except OSError:
            srv.close()
    else:
        pytest.skip("no free port for a fake X server")
    srv.listen(1)

    def serve():
        with srv:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.recv(12)
                if reply is not None:
                    conn.sendall(reply)
                conn.recv(1)   # hold the connection until the client gives up
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"127.0.0.1:{number}", srv, thread


@pytest.mark.parametrize("reply", [None, b"\x00"])
def test_the_x_probe_needs_an_answer(reply):
    from trainer.display_probe import x_server_answers
    display, srv, thread = _listener(reply)
    try:
        assert x_server_answers(display, timeout=0.5) is (reply is not None)
    finally:
        srv.close()
        thread.join(timeout=5)


def test_gui_with_a_display_that_does_not_answer_is_one_line_not_an_abort(tmp_path):
    import subprocess
    display, srv, thread = _listener(None)
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=display, KARUTA_DATA_DIR=str(tmp_path / "data"))
    try:
        proc = subprocess.run([sys.executable, "-m", "trainer.cli", "gui"], env=env,
                              cwd=Path(__file__).resolve().parents[1], capture_output=True,
                              text=True, timeout=60)
    finally:
        srv.close()
        thread.join(timeout=5)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and "no display server answers" in proc.stderr


def test_a_second_window_on_one_data_folder_is_refused(monkeypatch, capsys):
    from trainer.instance_lock import data_folder_lock
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    with data_folder_lock("the first window"):
        assert main(["gui"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another Karuta Trainer is using the data folder" in err


# --- label files: a FIFO, a huge file ---------------------------------------------------------

def test_read_labels_answers_a_fifo_and_a_huge_file_at_once(tmp_path, capsys):
    import time
    import_readings(folder(tmp_path, "src", [3]), "club")
    labels = tmp_path / "labels"
    labels.mkdir()
    os.mkfifo(labels / "003_kami.txt")
    with open(labels / "003_shimo.txt", "w") as f:      # 3 MB of one duplicated line
        f.write("1.000000\t1.000000\tmora:0 x\n" * 120_000)
    index = (voices_root() / "club" / "index.json").read_bytes()
    started = time.monotonic()
    assert main(["import-readings", "--name", "club", "--read-labels", str(labels)]) == 2
    assert time.monotonic() - started < 10
    err = capsys.readouterr().err.splitlines()
    assert any("003_kami.txt: cannot be read" in line and "not a regular file" in line for line in err)
    assert any("003_shimo.txt: cannot be read" in line for line in err)
    assert len(err) <= 25
    assert (voices_root() / "club" / "index.json").read_bytes() == index


def test_a_label_file_with_many_bad_lines_gets_a_bounded_report(tmp_path, capsys):
    import_readings(folder(tmp_path, "src", [3]), "club")
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "003_kami.txt").write_text("1.000000\t1.000000\tmora:0 x\n" * 5000)
    assert main(["import-readings", "--name", "club", "--read-labels", str(labels)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert 2 <= len(err) <= 22 and "fix these first" in err[-1]


@pytest.mark.parametrize("accept", ["²", "9" * 5000])
def test_accept_with_odd_digits_is_one_line(tmp_path, accept, capsys):
    import_readings(folder(tmp_path, "src", [3]), "club")
    assert main(["import-readings", "--name", "club", "--accept", accept]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--accept wants poem numbers" in err


def test_settings_file_that_is_a_fifo_does_not_block_the_window(tmp_path, capsys):
    import subprocess
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    os.mkfifo(data / "settings.ini")
    code = ("from trainer.ui.settings import Settings, MA; s = Settings(); print(s.get(MA))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1],
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "KARUTA_DATA_DIR": str(data)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "1.0"
    assert "not a regular file" in proc.stderr


# --- salvage: every source of rows, and the count of what could not be read ------------------

def _damaged_store(pagetype: str, n: int = 6582) -> list[tuple]:
    """Our database with every `pagetype` ('internal' or some 'leaf') page of the trials
    table scribbled over; returns the trials it held."""
    import random
    import sqlite3

    from trainer.stats.store import StatsStore, Trial, default_path
    path = default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with StatsStore.open(path) as s:
        s.record_many(Trial("match", 1 + i % 100, i % 3 > 0, reaction_ms=300.0 + i % 97,
                            at=1_700_000_000.0 + 30 * i, answer="x" * (i % 40), voice="synth")
                      for i in range(n))
        s.query("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = s.query("SELECT id, at, day, kind, session, card, answer, correct, reaction_ms, "
                       "fault, voice FROM trials ORDER BY id")
    conn = sqlite3.connect(path)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [r[0] for r in conn.execute(
        "SELECT pageno FROM dbstat WHERE name='trials' AND pagetype=?", (pagetype,))]
    conn.close()
    if pagetype == "leaf":
        pages = pages[5:8]
    data = bytearray(path.read_bytes())
    rng = random.Random(1)
    for page in pages:
        data[(page - 1) * size:page * size] = bytes(rng.randrange(256) for _ in range(size))
    path.write_bytes(bytes(data))
    return rows


def test_salvage_reads_below_a_damaged_interior_page():
    """Interior pages of the table damaged: the b-tree reached 2,265 of 6,582 and said
    nothing of the rest. The leaf pages are read directly: every trial comes back."""
    from trainer.stats.store import StatsStore
    rows = _damaged_store("internal")
    with StatsStore.open() as store:
        assert store.set_aside_path is not None
        got = store.query("SELECT id, at, day, kind, session, card, answer, correct, reaction_ms, "
                          "fault, voice FROM trials ORDER BY id")
        assert "6,582 trials were recovered" in store.recovery_message
    assert got == [tuple(r) for r in rows]


def test_salvage_says_how_many_trials_could_not_be_read(tmp_path, capsys):
    from trainer.stats.salvage import read_rows
    from trainer.stats.store import default_path
    rows = _damaged_store("leaf")
    got, report = read_rows(default_path())
    assert report.known == len(rows)
    assert report.lost == len(rows) - len(got["trials"]) > 0
    assert main(["stats", "recover", str(default_path()), str(tmp_path / "new.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert f"{report.lost:,} of the {len(rows):,} trials it held could not be read" in out


# --- import memory: bounded by the largest file, not the number of files ----------------------

def test_an_import_lets_each_poems_samples_go_once_stored(tmp_path):
    """The report kept every clip until the end (314 MB for 101 poems); the command line
    and the app let each go once stored. bench/bench_import_files.py measures it."""
    from audio.recorded_voice import RecordedVoice
    report = import_readings(folder(tmp_path, "src", [3, 4]), "club", keep_clips=False)
    for p in report.poems:
        assert p.samples_released
        for clip in (p.kami, p.shimo):
            assert clip.samples.strides == (0,) and "end" in clip.marks
    voice = RecordedVoice("club")
    for p in report.poems:   # what was stored is the real sound, marks and all
        stored = voice.kami(p.no)
        assert len(stored.samples) == len(p.kami.samples) and stored.marks == dict(p.kami.marks)
        assert float(abs(stored.samples).max()) > 0.01


def test_the_command_line_import_does_not_keep_the_clips(tmp_path, monkeypatch):
    import audio.importer as importer
    seen = {}
    real = importer.import_readings

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)
    monkeypatch.setattr(importer, "import_readings", spy)
    assert main(["import-readings", str(folder(tmp_path, "src", [3])), "--name", "club"]) == 0
    assert seen.get("keep_clips") is False


def test_an_import_that_imports_nothing_leaves_no_empty_voice_in_the_list(tmp_path):
    from audio.recorded_voice import list_voices
    src = tmp_path / "src"
    src.mkdir()
    (src / "001.wav").write_bytes(b"not audio")
    report = import_readings(src, "typo")
    assert not report.poems and "typo" not in list_voices()
