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
