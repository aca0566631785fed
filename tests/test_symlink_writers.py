"""No write follows a planted symbolic link (issue 24).

Every place the code writes a file is found by reading the source (`ast`): `open`
for writing, `os.open`, renames and links, soundfile and SQLite writers, QSettings
and the safe writers of `trainer.safe_files`. Each must be listed below with the
test that plants a link at the name it writes (a link to a victim file outside the
data folder) and checks the victim keeps its bytes, inode and mtime. A new writer
fails `test_every_writer_is_listed` until it is reviewed and tested here.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fixtures_audio import RATE, poem_reading  # noqa: E402

from trainer.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# (file, function) -> the test below that plants a link at what it writes, or why it needs none
WRITERS = {
    ("audio/cache.py", "put"): "test_clip_cache",
    ("audio/importer.py", "_write_clips"): "mkstemp names (test_import_index_and_lock)",
    ("audio/importer.py", "_save_index"): "test_import_index_and_lock",
    ("audio/importer.py", "voice_lock"): "test_import_index_and_lock",
    ("audio/importer.py", "write_labels"): "test_label_files",
    ("audio/player.py", "_c_stderr_silenced"): "opens /dev/null only",
    ("audio/render.py", "render_to_file"): "test_read_out",
    ("trainer/cli.py", "_write_crash_log"): "test_crash_log",
    ("trainer/instance_lock.py", "data_folder_lock"): "test_instance_lock",
    ("audio/safe_files.py", "write_atomic"): "the safe writer itself",
    ("audio/safe_files.py", "open_no_follow"): "the safe writer itself",
    ("audio/safe_files.py", "read_regular"): "reads only",
    ("trainer/stats/salvage.py", "recover_to_new_file"): "test_stats_recover_and_export",
    ("trainer/stats/store.py", "export_csv"): "test_stats_recover_and_export",
    ("trainer/stats/store.py", "_install_checked"): "test_stats_install",
    ("trainer/stats/store.py", "_flag_for_check"): "test_stats_side_files",
    ("trainer/stats/store.py", "_connect"): "test_stats_side_files",
    ("trainer/stats/store.py", "_connect_read_only"): "read-only connections",
    ("trainer/stats/store.py", "_empty_memory_store"): "in memory",
    ("trainer/stats/store.py", "_set_aside"): "renames (a link is renamed, its target untouched)",
    ("trainer/reader/session.py", "save"): "test_reader_session",
    ("trainer/ui/settings.py", "default_qsettings"): "test_settings_file",
    ("trainer/ui/settings.py", "_keep_damaged_copy"): "test_damaged_settings_copy",
    ("trainer/library_noise.py", "held"): "opens a copy of descriptor 2 and an unnamed temporary file",
    ("trainer/ui/territory.py", "save_arrangement"): "test_arrangement",
    ("trainer/server/store.py", "claim_file"): "opens read-only with O_NOFOLLOW "
                                               "(test_server_store::test_sqlite_serves_one_process)",
}

_OS_WRITES = {"open", "replace", "rename", "link", "symlink", "mkfifo", "truncate", "fdopen"}
_SAFE_SINKS = {"write_atomic", "open_no_follow"}


def _kind(call: ast.Call) -> str | None:
    fn = call.func
    if isinstance(fn, ast.Name):
        if fn.id == "open":
            mode = call.args[1] if len(call.args) > 1 else next(
                (k.value for k in call.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and set(str(mode.value)) & set("wax+"):
                return f"open({mode.value!r})"
        return fn.id if fn.id in _SAFE_SINKS | {"QSettings"} else None
    if not isinstance(fn, ast.Attribute):
        return None
    base = fn.value.id if isinstance(fn.value, ast.Name) else None
    if base == "os" and fn.attr in _OS_WRITES:
        return f"os.{fn.attr}"
    if base == "shutil" and fn.attr.startswith(("copy", "move")):
        return f"shutil.{fn.attr}"
    if (base, fn.attr) in (("sf", "write"), ("sqlite3", "connect")):
        return f"{base}.{fn.attr}"
    if fn.attr == "SoundFile" and len(call.args) > 1:
        return "SoundFile(w)"
    if fn.attr in ("write_text", "write_bytes", "rename", "symlink_to", "hardlink_to"):
        return f".{fn.attr}"
    if fn.attr == "touch" and not call.args:
        return ".touch"
    if fn.attr == "replace" and len(call.args) == 1 and not isinstance(call.args[0], ast.Constant) \
            and not call.keywords and base != "dataclasses":   # dataclasses.replace(x, f=…) writes nothing
        return ".replace(path)"
    return None


def _calls(node: ast.AST, func: str = "<module>"):
    """(enclosing function, call) for every call under `node`."""
    for child in ast.iter_child_nodes(node):
        name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
        if isinstance(child, ast.Call):
            yield name, child
        yield from _calls(child, name)


def writers() -> set[tuple[str, str]]:
    found = set()
    for package in ("audio", "poems", "trainer"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found |= {(str(path.relative_to(ROOT)), func) for func, call in _calls(tree) if _kind(call)}
    return found


def test_every_writer_is_listed():
    found = writers()
    assert found - set(WRITERS) == set(), "a new writer: plant a link at its name in a test here"
    assert set(WRITERS) - found == set(), "a listed writer is gone: take it off the list"


# --- the planted links ----------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    return tmp_path / "data"


@pytest.fixture
def victim(tmp_path):
    """A file of the user's, outside the data folder, that no write may reach."""
    path = tmp_path / "precious.txt"
    path.write_text("the user's own words\n")
    st = path.stat()
    yield path
    after = path.stat()
    assert path.read_text() == "the user's own words\n"
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (st.st_ino, st.st_mtime_ns, st.st_size)


def plant(at: Path, victim: Path) -> Path:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(victim)
    return at


def _folder(tmp_path: Path, poems: list[int]) -> Path:
    import soundfile as sf
    src = tmp_path / "src"
    src.mkdir()
    for no in poems:
        sf.write(str(src / f"{no:03d}.wav"), poem_reading(no).samples, RATE)
    return src


def test_import_index_and_lock(tmp_path, victim):
    from audio.importer import ImportFailure, import_readings, read_index, voices_root
    from audio.recorded_voice import RecordedVoice
    src = _folder(tmp_path, [3])
    voice_dir = voices_root() / "club"
    for name in ("index.json", "index.json.part"):          # the old fixed names
        plant(voice_dir / name, victim)
    import_readings(src, "club")
    assert read_index(voice_dir)["poems"].keys() == {"3"}
    assert not (voice_dir / "index.json").is_symlink()      # the link was replaced, not followed
    (voices_root() / ".club.import-lock").unlink()           # left by the import: plant one
    lock = plant(voices_root() / ".club.import-lock", victim)
    assert RecordedVoice("club").available() == {3}         # reading a voice truncates nothing
    with pytest.raises(ImportFailure, match="symbolic link"):
        import_readings(src, "club")
    assert lock.is_symlink()


def test_label_files(tmp_path, victim):
    from audio.importer import import_readings, write_labels
    report = import_readings(_folder(tmp_path, [3]), "club")
    labels = tmp_path / "labels"
    plant(labels / "003_kami.txt", victim)
    written, kept = write_labels(report, labels)
    assert kept == ["003_kami.txt"] and written == ["003_shimo.txt"]


def test_read_out(tmp_path, victim):
    out = tmp_path / "reading.wav"
    plant(tmp_path / ".reading.wav.part", victim)
    assert main(["read", "--voice", "test-tones", "--poems", "1", "--no-joka",
                 "--out", str(out)]) == 0
    assert out.stat().st_size > 44


def test_read_out_over_a_link_replaces_the_link(tmp_path, victim):
    out = plant(tmp_path / "reading.wav", victim)
    assert main(["read", "--voice", "test-tones", "--poems", "1", "--no-joka",
                 "--out", str(out)]) == 0
    assert not out.is_symlink()


def test_crash_log(data_dir, victim):
    from trainer.cli import _write_crash_log
    plant(data_dir / "karuta-errors.log", victim)
    try:
        raise RuntimeError("a bug")
    except RuntimeError as exc:
        _write_crash_log(exc)


def test_instance_lock(data_dir, victim):
    from trainer.instance_lock import AlreadyRunning, data_folder_lock
    plant(data_dir / ".karuta.lock", victim)
    with pytest.raises(AlreadyRunning, match="lock file"):
        with data_folder_lock():
            pass


def test_stats_side_files(data_dir, victim, capsys):
    from trainer.stats.store import StatsBadPath, StatsStore, _flag_for_check, default_path
    for side in ("-wal", "-shm"):
        link = plant(data_dir / f"stats.sqlite3{side}", victim)
        with pytest.raises(StatsBadPath, match="symbolic link"):
            StatsStore.open()
        link.unlink()
    StatsStore.open().close()
    plant(data_dir / "stats.sqlite3.needs-check", victim)
    _flag_for_check(default_path())


def test_stats_recover_and_export(tmp_path, data_dir, victim, capsys):
    from trainer.stats.store import StatsStore, Trial
    with StatsStore.open() as store:
        store.record(Trial("match", 5, True, at=1_700_000_000.0))
        store.query("PRAGMA wal_checkpoint(TRUNCATE)")
    new = plant(tmp_path / "new.sqlite3", victim)
    assert main(["stats", "recover", str(data_dir / "stats.sqlite3"), str(new)]) == 2
    csv = plant(tmp_path / "trials.csv", victim)
    assert main(["stats", "export", "--csv", str(csv)]) == 0
    assert not csv.is_symlink()


def test_stats_install(tmp_path, data_dir, victim, capsys):
    from trainer.stats.store import StatsStore, Trial
    with StatsStore.open(tmp_path / "new.sqlite3") as store:
        store.record(Trial("match", 5, True, at=1_700_000_000.0))
        store.query("PRAGMA wal_checkpoint(TRUNCATE)")
    plant(data_dir / "stats.sqlite3", victim)
    assert main(["stats", "install", str(tmp_path / "new.sqlite3")]) == 0
    assert not (data_dir / "stats.sqlite3").is_symlink()


def test_reader_session(data_dir, victim):
    from trainer.ui.reader_session import ReaderSession, read_session, session_path
    plant(data_dir / "reader_session.tmp", victim)
    plant(session_path().with_suffix(".json.tmp"), victim)
    session = ReaderSession.new([1, 2, 3], seed=4)
    session.save()
    assert read_session()[0] is not None
    session_path().unlink()
    plant(session_path(), victim)
    session.save()
    assert not session_path().is_symlink()


def test_settings_file(data_dir, victim, capsys):
    from trainer.ui import settings as S
    plant(data_dir / S.SETTINGS_FILE, victim)
    store = S.Settings()
    store.set(S.MA, 2.0)
    store.sync()
    assert "symbolic link" in capsys.readouterr().err


def test_damaged_settings_copy(data_dir, victim, capsys):
    from trainer.ui import settings as S
    (data_dir / S.SETTINGS_FILE).write_bytes(b"\x00 not settings\n")
    plant(data_dir / (S.SETTINGS_FILE + ".damaged"), victim)
    S.Settings()
    assert "settings.ini.damaged-2" in capsys.readouterr().err
    assert (data_dir / (S.SETTINGS_FILE + ".damaged-2")).read_bytes() == b"\x00 not settings\n"


def test_arrangement(data_dir, victim):
    from trainer.rules.territory import Territory
    from trainer.ui.territory import save_arrangement
    plant(data_dir / "arrangements" / "mine.json", victim)
    save_arrangement("mine", Territory([((1, 2), (3,)), ((), tuple(range(4, 12))),
                                        (tuple(range(12, 26)), ())]))


def test_clip_cache(tmp_path, victim):
    import numpy as np

    from audio.cache import ClipCache
    from audio.clip import Clip
    cache = ClipCache(tmp_path / "cache")
    plant(cache.path("k"), victim)
    cache.put("k", Clip(np.zeros(480, dtype=np.float32), RATE, {"end": 10}))
    assert not cache.path("k").is_symlink()
