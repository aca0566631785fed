"""Import safety (issue 11): bounded memory, doubtful takes never replace good clips,
one import per voice, orphan clips tidied, and one clear line for every odd input."""
from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

sys.path.insert(0, str(Path(__file__).parent))
from fixtures_audio import RATE, poem_reading  # noqa: E402

from audio import importer, onsets  # noqa: E402
from audio.importer import (  # noqa: E402
    MAX_FILE_S, ImportFailure, VoiceBusy, import_readings, parse_name, read_index, voice_lock,
    voices_root,
)
from trainer.cli import main  # noqa: E402


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))


def folder(tmp_path, name: str, files: dict[str, np.ndarray | bytes]) -> Path:
    src = tmp_path / name
    src.mkdir()
    for file, content in files.items():
        if isinstance(content, bytes):
            (src / file).write_bytes(content)
        else:
            sf.write(str(src / file), content, RATE, format=Path(file).suffix[1:].upper())
    return src


def clip_files(voice: str) -> set[str]:
    return {p.name for p in (voices_root() / voice).iterdir() if p.suffix == ".flac"}


# --- finding 4: memory ----------------------------------------------------------------------

def test_a_file_over_the_limit_is_refused_before_it_is_decoded(tmp_path):
    long = np.zeros(int((MAX_FILE_S + 30) * 8000), np.int16)  # 8 kHz keeps the file small
    src = tmp_path / "src"
    src.mkdir()
    sf.write(str(src / "001.wav"), long, 8000)
    report = import_readings(src, "long")
    (failed,) = report.failed
    assert failed.file == "001.wav" and failed.error.startswith("too long (6 min)")
    assert "one file per poem" in failed.error


def test_mora_placement_memory_does_not_grow_with_the_square_of_the_verse():
    """A one-minute 'verse' took 190 MB in the placement's tables (2 min 466 MB, 4 min 2.4 GB);
    bench/bench_import_memory.py measures whole imports."""
    import tracemalloc
    x = np.concatenate([np.concatenate([poem_reading(1, seed=s).samples.astype(np.float32),
                                        np.zeros(RATE // 10, np.float32)]) for s in range(4)])
    x = x[:60 * RATE]
    lv = onsets.levels(x)
    mask = onsets.voiced_mask(lv)
    tracemalloc.start()
    try:
        marks = onsets.place_morae(x, mask, [5, 7, 5])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(marks) == 17 and marks == sorted(marks)
    assert peak < 80 * 2**20, f"{peak / 2**20:.0f} MB"


# --- finding 5: doubtful takes, names ---------------------------------------------------------

def test_a_doubtful_take_is_kept_beside_the_stored_one_until_accepted(tmp_path, capsys):
    good = poem_reading(1, seed=1)
    import_readings(folder(tmp_path, "first", {"001.wav": good.samples}), "club")
    stored = read_index(voices_root() / "club")["poems"]["1"]
    before = clip_files("club")
    # The same poem again, 40 % cut off (warnings) in an MP3.
    mp3 = tmp_path / "cut.mp3"
    sf.write(str(mp3), poem_reading(1, seed=2).samples, RATE, format="MP3")
    data = mp3.read_bytes()
    src = folder(tmp_path, "second", {"001.mp3": data[: int(len(data) * 0.6)]})
    assert main(["import-readings", str(src), "--name", "club"]) == 0
    out = capsys.readouterr().out
    index = read_index(voices_root() / "club")
    assert index["poems"]["1"] == stored                   # the good take still reads
    assert before <= clip_files("club")                    # and its clips are still there
    candidate = index["candidates"]["1"]
    assert "NOT used yet" in out and "karuta import-readings --name club --accept 1" in out
    # Accepting it makes it the stored take and deletes the old clips.
    assert main(["import-readings", "--name", "club", "--accept", "1"]) == 0
    index = read_index(voices_root() / "club")
    assert index["poems"]["1"]["kami"] == candidate["kami"] and "candidates" not in index
    assert not before & clip_files("club")
    assert main(["import-readings", "--name", "club", "--accept", "1"]) == 2
    assert "no candidate take of poem(s) 1" in capsys.readouterr().err


def test_a_clean_take_replaces_the_stored_one(tmp_path):
    import_readings(folder(tmp_path, "a", {"002.wav": poem_reading(2, seed=1).samples}), "v")
    before = clip_files("v")
    report = import_readings(folder(tmp_path, "b", {"002.wav": poem_reading(2, seed=3).samples}), "v")
    (p,) = report.poems
    assert not p.warnings and not p.candidate
    assert not before & clip_files("v") and len(clip_files("v")) == 2


@pytest.mark.parametrize("name, no, part", [
    ("Shimomura 017.mp3", 17, "whole"),      # a reader's name is not the shimo-no-ku
    ("kamijo_005.wav", 5, "whole"),
    ("Shimomura kami 017.mp3", 17, "kami"),
    ("017-shimo.wav", 17, "shimo"),
])
def test_kami_and_shimo_count_only_as_words_of_their_own(name, no, part):
    f = parse_name(Path(name))
    assert (f.no, f.part) == (no, part)


def test_a_take_number_does_not_become_the_poem(tmp_path):
    src = folder(tmp_path, "takes", {"017 take 2.wav": poem_reading(17).samples})
    report = import_readings(src, "takes")
    assert report.poems == []
    (f,) = report.failed
    assert "mv '017 take 2.wav' 017.wav" in f.error


# --- finding 8: one import per voice, orphans --------------------------------------------------

def test_a_second_import_into_a_busy_voice_is_refused_and_touches_nothing(tmp_path, capsys):
    import_readings(folder(tmp_path, "a", {"003.wav": poem_reading(3).samples}), "club")
    before = clip_files("club")
    index = (voices_root() / "club" / "index.json").read_text()
    src = folder(tmp_path, "b", {"004.wav": poem_reading(4).samples})
    with voice_lock(voices_root() / "club"):      # another import holds the voice
        with pytest.raises(VoiceBusy, match="another import into voice 'club' is running"):
            import_readings(src, "club")
        assert main(["import-readings", str(src), "--name", "club"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"process {os.getpid()}" in err
    assert clip_files("club") == before
    assert (voices_root() / "club" / "index.json").read_text() == index
    assert import_readings(src, "club").stored == [3, 4]   # free again afterwards


def test_orphan_clips_are_removed_when_the_voice_is_next_opened(tmp_path):
    from audio.recorded_voice import RecordedVoice
    import_readings(folder(tmp_path, "a", {"006.wav": poem_reading(6).samples}), "club")
    voice_dir = voices_root() / "club"
    kept = clip_files("club")
    orphans = ["kami_006_20260101T000000ab12.flac", "shimo_007_20260101T000000ab12.flac",
               "kami_008_20260101T000000ab12.flac.part"]
    for name in orphans:
        (voice_dir / name).write_bytes(b"left by a killed import")
    (voice_dir / "notes.txt").write_text("not the importer's")
    voice = RecordedVoice("club")
    assert voice.available() == {6}
    assert clip_files("club") == kept
    assert not any((voice_dir / name).exists() for name in orphans)
    assert (voice_dir / "notes.txt").exists()


def test_orphans_are_not_touched_while_an_import_runs(tmp_path):
    from audio.recorded_voice import RecordedVoice
    import_readings(folder(tmp_path, "a", {"006.wav": poem_reading(6).samples}), "club")
    new = voices_root() / "club" / "kami_009_20260101T000000ab12.flac"
    new.write_bytes(b"an import's clip, not indexed yet")
    with voice_lock(voices_root() / "club"):
        RecordedVoice("club")
    assert new.exists()


# --- finding 9: one clear line each ------------------------------------------------------------

def test_odd_entries_in_the_folder_each_get_a_line(tmp_path):
    src = folder(tmp_path, "odd", {"001.wav": poem_reading(1).samples})
    os.mkfifo(src / "002.wav")
    (src / "003.mp3").symlink_to(src / "003.mp3")           # a loop
    (src / "004.flac").symlink_to(src / "gone.flac")        # dangling
    (src / "005.mp3").mkdir()
    (src / "Extras").mkdir()                                 # an ordinary folder: no line
    report = import_readings(src, "odd")
    failed = {f.file: f.error for f in report.failed}
    assert set(failed) == {"002.wav", "003.mp3", "004.flac", "005.mp3"}
    assert "named pipe" in failed["002.wav"]
    assert "loops" in failed["003.mp3"]
    assert "to nothing" in failed["004.flac"]
    assert "a folder" in failed["005.mp3"]
    assert [p.no for p in report.poems] == [1]


def test_a_tiny_truncated_mp3_is_called_damaged_not_silent(tmp_path):
    mp3 = tmp_path / "whole.mp3"
    sf.write(str(mp3), poem_reading(1).samples, RATE, format="MP3")
    src = folder(tmp_path, "cut", {"001.mp3": mp3.read_bytes()[:3000]})
    (f,) = import_readings(src, "cut").failed
    assert f.error.startswith("damaged or cut off: only") and "silent" not in f.error


def test_an_unreadable_file_says_so(tmp_path, monkeypatch):
    src = folder(tmp_path, "locked", {"001.wav": poem_reading(1).samples})
    real_open = open

    def no_read(path, *a, **kw):  # the tests may run as root, whom chmod does not stop
        if str(path).endswith("001.wav"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *a, **kw)
    monkeypatch.setattr(importer, "open", no_read, raising=False)
    (f,) = import_readings(src, "locked").failed
    assert f.error == "cannot be read: Permission denied"


def test_an_unreadable_folder_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    src = folder(tmp_path, "closed", {})

    def refuse(self):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))
    monkeypatch.setattr(Path, "iterdir", refuse)
    assert main(["import-readings", str(src)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be read: Permission denied" in err


def test_a_full_disk_writing_the_index_is_one_line_and_keeps_the_voice(tmp_path, monkeypatch, capsys):
    import_readings(folder(tmp_path, "a", {"001.wav": poem_reading(1).samples}), "club")
    index = (voices_root() / "club" / "index.json").read_text()
    before = clip_files("club")
    real_write = importer.write_atomic

    def full(target, *a, **kw):
        if Path(target).name == "index.json":
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        return real_write(target, *a, **kw)
    monkeypatch.setattr(importer, "write_atomic", full)
    src = folder(tmp_path, "b", {"002.wav": poem_reading(2).samples})
    assert main(["import-readings", str(src), "--name", "club"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is full" in err and "as it was before this import" in err
    assert (voices_root() / "club" / "index.json").read_text() == index
    assert clip_files("club") == before                       # this import's clips are gone again
    with pytest.raises(ImportFailure):
        import_readings(src, "club")


def test_a_full_disk_writing_clips_says_the_disk_is_full(tmp_path, monkeypatch):
    from collections import namedtuple
    src = folder(tmp_path, "a", {"001.wav": poem_reading(1).samples})
    Usage = namedtuple("Usage", "total used free")

    def flac_fails(path, *a, **kw):  # libsndfile's words when the disk is full
        raise RuntimeError(f"Error opening {path!r}: problem with initialization of the flac decoder")
    monkeypatch.setattr(sf, "write", flac_fails)
    monkeypatch.setattr(importer.shutil, "disk_usage", lambda p: Usage(10**9, 10**9, 0))
    (f,) = import_readings(src, "full").failed
    assert "disk holding" in f.error and "is full" in f.error and "decoder" not in f.error


def test_an_empty_folder_argument_is_not_the_current_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(folder(tmp_path, "here", {"001.wav": poem_reading(1).samples}))
    assert main(["import-readings", ""]) == 2
    assert "the folder name is empty" in capsys.readouterr().err
    assert not (voices_root() / "here").exists()


def test_json_report_lists_candidates(tmp_path, capsys):
    import_readings(folder(tmp_path, "a", {"001.wav": poem_reading(1).samples}), "j")
    cut = poem_reading(1, seed=5).samples[: int(3.5 * RATE)]   # kami only: warned
    src = folder(tmp_path, "b", {"001.wav": cut})
    assert main(["import-readings", str(src), "--name", "j", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["candidates"] == [1] and out["poems"][0]["candidate"] is True


# --- two processes ------------------------------------------------------------------------------

def _import_in_a_process(src: Path, name: str):
    import subprocess
    root = Path(__file__).resolve().parents[1]
    code = ("import sys; from audio.importer import import_readings; "
            f"import_readings({str(src)!r}, {name!r}, workers=1)")
    return subprocess.Popen([sys.executable, "-c", code], cwd=root,
                            env={**os.environ, "PYTHONPATH": str(root)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait(predicate, timeout: float = 30.0) -> None:
    import time
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_imports_in_two_processes_do_not_delete_each_others_clips(tmp_path):
    """Two imports into one voice at once used to leave an index naming deleted clips."""
    src_a = folder(tmp_path, "a", {f"{no:03d}.wav": poem_reading(no).samples for no in range(1, 9)})
    src_b = folder(tmp_path, "b", {"020.wav": poem_reading(20).samples})
    (voices_root() / "club").mkdir(parents=True)
    lock = voices_root() / ".club.import-lock"
    first = _import_in_a_process(src_a, "club")
    try:
        _wait(lambda: lock.exists() and lock.read_text().startswith("process"))
        with pytest.raises(VoiceBusy):
            import_readings(src_b, "club")
    finally:
        first.communicate(timeout=120)
    assert first.returncode == 0
    import_readings(src_b, "club")
    index = read_index(voices_root() / "club")
    listed = {e[part]["file"] for e in index["poems"].values() for part in ("kami", "shimo")}
    assert sorted(map(int, index["poems"])) == [1, 2, 3, 4, 5, 6, 7, 8, 20]
    assert listed == clip_files("club")            # every listed clip is there, nothing else


def test_clips_of_a_killed_import_are_removed_by_the_next_one(tmp_path):
    import signal
    src = folder(tmp_path, "a", {f"{no:03d}.wav": poem_reading(no).samples for no in range(1, 13)})
    voice_dir = voices_root() / "club"
    proc = _import_in_a_process(src, "club")
    try:
        _wait(lambda: voice_dir.is_dir() and len(clip_files("club")) >= 4)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    # orphans left; the first import wrote an empty index before its first clip, so the
    # next one knows they are orphans (a voice with no index at all keeps every clip)
    assert read_index(voice_dir)["poems"] == {} and clip_files("club")
    report = import_readings(folder(tmp_path, "b", {"030.wav": poem_reading(30).samples}), "club")
    assert report.stored == [30]
    assert len(clip_files("club")) == 2
