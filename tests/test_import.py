"""Import of recorded readings: names, split, marks, formats, broken files, CLI.

The recordings are synthetic (tests/fixtures_audio.py) with exactly known
split points and mora onsets, so the checks are against the truth.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import soxr

sys.path.insert(0, str(Path(__file__).parent))
from fixtures_audio import RATE, poem_reading  # noqa: E402

import poems  # noqa: E402
from audio.importer import ImportProblem, import_readings, parse_name  # noqa: E402

SPLIT_TOLERANCE_S = 0.05


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))


def write(path: Path, samples: np.ndarray, rate: int = RATE, channels: int = 1, **kw) -> None:
    x = samples if rate == RATE else soxr.resample(samples, RATE, rate)
    if channels > 1:
        x = np.stack([x * (1 - 0.1 * c) for c in range(channels)], axis=1)
    sf.write(str(path), x, rate, **kw)


def assert_split(result, reading, offset_s: float = 0.0):
    got = (result.kami_start_s, result.kami_end_s, result.shimo_start_s, result.shimo_end_s)
    want = (reading.kami_start, reading.kami_end, reading.shimo_start, reading.shimo_end)
    for label, g, w in zip(("kami start", "kami end", "shimo start", "shimo end"), got, want):
        assert abs(g - (w - offset_s)) <= SPLIT_TOLERANCE_S, f"{label}: {g:.3f} s, truth {w - offset_s:.3f} s"


def kami_mark_errors(result, reading) -> np.ndarray:
    """Seconds between each mora mark and the true onset, in source-file time."""
    clip = result.kami
    clip_start = result.kami_start_s - clip.marks["mora:0"] / clip.rate
    marks = np.array(clip.mora_marks()) / clip.rate + clip_start
    return marks - np.array(reading.kami_onsets)


# --- names ---------------------------------------------------------------------

@pytest.mark.parametrize("name, no, part", [
    ("001.wav", 1, "whole"),
    ("poem 1.mp3", 1, "whole"),
    ("Hyakunin_Isshu (17).MP3", 17, "whole"),
    ("kami_017.flac", 17, "kami"),
    ("shimo_017.flac", 17, "shimo"),
    ("017a.wav", 17, "kami"),
    ("017b.wav", 17, "shimo"),
    ("017_1.ogg", 17, "kami"),
    ("017_2.ogg", 17, "shimo"),
    ("100.wav", 100, "whole"),
    ("000.wav", 0, "whole"),
    ("joka.mp3", 0, "whole"),
    ("Joka_kami.flac", 0, "kami"),
    ("０１７.wav", 17, "whole"),           # full-width digits
    ("上の句 17.wav", 17, "kami"),
    ("Track 05 - 005.mp3", 5, "whole"),
])
def test_poem_number_and_part_from_the_name(name, no, part):
    f = parse_name(Path(name))
    assert (f.no, f.part) == (no, part)


def test_several_numbers_in_a_name_are_refused_with_the_rename_to_make():
    # Was noted and the last number taken: "017 take 2.mp3" replaced poem 2 (finding 5).
    for name, numbers in (("01 - 017 akinota.mp3", ("001.mp3", "017.mp3")),
                          ("017 take 2.mp3", ("017.mp3", "002.mp3"))):
        with pytest.raises(ImportProblem, match="several poem numbers") as err:
            parse_name(Path(name))
        for target in numbers:
            assert f"{target}" in str(err.value) and "mv " in str(err.value)


@pytest.mark.parametrize("name, reason", [
    ("readme.wav", "no poem number"),
    ("poem 101.wav", "not a poem number"),
])
def test_names_without_a_poem_number_are_refused(name, reason):
    with pytest.raises(ImportProblem, match=reason):
        parse_name(Path(name))


# --- whole readings ----------------------------------------------------------------

def test_single_files_are_split_within_50ms_and_marked(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    readings = {no: poem_reading(no, seed=10 + no) for no in (1, 17, 44, 87)}
    for no, r in readings.items():
        write(src / f"{no:03d}.wav", r.samples)
    report = import_readings(src, "mine")
    assert not report.failed
    assert [p.no for p in report.poems] == [1, 17, 44, 87]
    errors = []
    for p in report.poems:
        r, poem = readings[p.no], poems.get(p.no)
        assert not p.warnings, p.warnings
        assert_split(p, r)
        n = len(poem.kami_morae())
        onsets = p.kami.mora_marks()
        assert len(onsets) == n and all(a < b for a, b in zip(onsets, onsets[1:]))
        k = poem.kimariji_mora_count() - 1
        assert p.kami.marks["kimariji"] == p.kami.marks[f"mora:{k}"]
        starts = np.cumsum([0] + [len(ph) for ph in poem.kami_phrase_morae()][:-1])
        assert [p.kami.marks[f"phrase:{i}"] for i in range(3)] == [p.kami.marks[f"mora:{s}"] for s in starts]
        assert p.kami.marks["end"] > onsets[-1]
        assert len(p.shimo.mora_marks()) == len(poem.shimo_morae())
        assert {"phrase:0", "phrase:1", "end"} <= set(p.shimo.marks)
        assert abs(p.kimariji_mark_s - r.kami_onsets[k]) <= 0.05
        errors.append(kami_mark_errors(p, r))
    err = np.abs(np.concatenate(errors))
    print(f"\nmora mark error over {len(err)} onsets: median {1000 * np.median(err):.1f} ms, "
          f"p90 {1000 * np.percentile(err, 90):.1f} ms, max {1000 * err.max():.1f} ms")
    assert np.mean(err <= 0.05) >= 0.9


def test_the_joka_gets_number_zero_and_a_kimariji_mark(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    r = poem_reading(0, seed=3)
    write(src / "joka.wav", r.samples)
    report = import_readings(src, "mine")
    (p,) = report.poems
    assert p.no == 0 and report.joka
    assert_split(p, r)
    assert p.kami.marks["kimariji"] == p.kami.marks["end"]
    assert report.missing == list(range(1, 101))


@pytest.mark.parametrize("name, rate, channels, kw", [
    ("002.wav", 8000, 1, {}),
    ("003.flac", 96000, 2, {}),
    ("004.ogg", 22050, 2, {"format": "OGG", "subtype": "VORBIS"}),
    ("005.mp3", 44100, 2, {"format": "MP3"}),
])
def test_any_rate_channels_and_format(tmp_path, name, rate, channels, kw):
    src = tmp_path / "src"
    src.mkdir()
    no = int(name[:3])
    r = poem_reading(no, seed=no)
    write(src / name, r.samples, rate, channels, **kw)
    report = import_readings(src, "mine")
    assert not report.failed, report.failed
    (p,) = report.poems
    assert p.kami.rate == RATE and p.kami.samples.dtype == np.float32 and p.kami.samples.ndim == 1
    offset = 0.0
    if name.endswith(".mp3"):  # the MP3 encoder's delay shifts everything a little
        offset = -0.03
    for got, want in ((p.kami_start_s, r.kami_start), (p.shimo_start_s, r.shimo_start),
                      (p.kami_end_s, r.kami_end), (p.shimo_end_s, r.shimo_end)):
        assert abs(got - want) <= SPLIT_TOLERANCE_S - offset


# --- two files per poem -----------------------------------------------------------

def test_kami_and_shimo_in_two_files(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    names = {7: ("kami_007.flac", "shimo_007.flac"), 8: ("008a.wav", "008b.wav"), 9: ("009_1.wav", "009_2.wav")}
    readings = {}
    for no, (kname, sname) in names.items():
        r = poem_reading(no, seed=no)
        cut = int((r.kami_end + r.shimo_start) / 2 * RATE)
        write(src / kname, r.samples[:cut])
        write(src / sname, r.samples[cut:])
        readings[no] = (r, cut / RATE)
    report = import_readings(src, "pairs")
    assert not report.failed, report.failed
    assert sorted(p.no for p in report.poems) == [7, 8, 9]
    for p in report.poems:
        r, cut = readings[p.no]
        assert p.files == list(names[p.no])
        assert abs(p.kami_start_s - r.kami_start) <= SPLIT_TOLERANCE_S
        assert abs(p.kami_end_s - r.kami_end) <= SPLIT_TOLERANCE_S
        # shimo times are in the shimo file
        assert abs(p.shimo_start_s - (r.shimo_start - cut)) <= SPLIT_TOLERANCE_S
        assert abs(p.shimo_end_s - (r.shimo_end - cut)) <= SPLIT_TOLERANCE_S
        assert len(p.kami.mora_marks()) == len(poems.get(p.no).kami_morae())


# --- suspicious and broken input ---------------------------------------------------

def test_broken_files_are_reported_one_by_one_and_the_rest_imports(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    good = {no: poem_reading(no, seed=no) for no in (1, 2, 4)}
    for no, r in good.items():
        write(src / f"{no:03d}.wav", r.samples)
    write(src / "poem 2.flac", good[2].samples)                         # duplicate number
    (src / "005.wav").write_bytes(b"")                                    # zero-length
    whole = src / "006.wav"
    write(whole, poem_reading(6).samples)
    (src / "006.wav").write_bytes(whole.read_bytes()[:44])                # header only
    write(src / "007.wav", np.zeros(10 * RATE, np.float32))               # pure silence
    noise = np.random.default_rng(0).standard_normal(10 * RATE).astype(np.float32) * 0.1
    write(src / "008.wav", noise)                                          # noise only
    (src / "009.mp3").write_text("this is not an mp3\n" * 50)              # text named .mp3
    r10 = poem_reading(10)
    write(src / "010.flac", r10.samples)
    data = (src / "010.flac").read_bytes()
    (src / "010.flac").write_bytes(data[: len(data) // 3])                 # truncated FLAC
    write(src / "kami_011.wav", poem_reading(11).samples[: 4 * RATE])      # lone half
    write(src / "012.wav", poem_reading(12).samples)
    data = (src / "012.wav").read_bytes()
    (src / "012.wav").write_bytes(data[: int(len(data) * 0.7)])            # truncated WAV
    write(src / "014.mp3", poem_reading(14).samples, format="MP3")
    data = (src / "014.mp3").read_bytes()
    (src / "014.mp3").write_bytes(data[: int(len(data) * 0.7)])            # truncated MP3
    (src / "notes.txt").write_text("not audio")
    report = import_readings(src, "mixed")

    assert {1, 2, 4, 12} <= {p.no for p in report.poems} <= {1, 2, 4, 10, 12, 14}
    failed = {f.file: f.error for f in report.failed}
    assert "duplicate" in failed["poem 2.flac"] and "002.wav" in failed["poem 2.flac"]
    assert "empty" in failed["005.wav"]
    assert "006.wav" in failed
    assert "silent" in failed["007.wav"]
    assert "no reading found" in failed["008.wav"]
    assert "unreadable" in failed["009.mp3"]
    assert "shimo" in failed["kami_011.wav"]
    truncated = [p for p in report.poems if p.no == 10]
    assert "010.flac" in failed or truncated[0].warnings  # never passes silently
    (p12,) = [p for p in report.poems if p.no == 12]
    assert any("truncated" in w for w in p12.warnings)
    assert "014.mp3" in failed or any("truncated" in w for p in report.poems if p.no == 14 for w in p.warnings)
    assert report.skipped == ["notes.txt"]
    assert 3 in report.missing and 5 in report.missing and 1 not in report.missing


def test_no_pause_and_clipping_are_warned(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write(src / "012.wav", poem_reading(12, pause_s=0.0, gap_s=(0.0, 0.0)).samples)
    write(src / "015.wav", poem_reading(15, pause_s=0.0).samples)
    loud = np.clip(poem_reading(13).samples * 6, -1, 1)
    write(src / "013.wav", loud, subtype="FLOAT")
    report = import_readings(src, "warned")
    by_no = {p.no: p for p in report.poems}
    assert any("no pause found" in w for w in by_no[12].warnings)
    assert any("short pause" in w for w in by_no[15].warnings)
    assert any("clipped" in w for w in by_no[13].warnings)
    assert not any("clipped" in w for w in by_no[15].warnings)


def test_too_short_is_warned(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    r = poem_reading(14, mora_s=(0.05, 0.05))
    write(src / "014.wav", r.samples)
    report = import_readings(src, "fast")
    (p,) = report.poems
    assert any("too short" in w or "pace" in w for w in p.warnings)


def test_bad_folder_or_name_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        import_readings(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="folder name"):
        import_readings(tmp_path, "../escape")


# --- the command ---------------------------------------------------------------------

def make_folder(tmp_path) -> Path:
    src = tmp_path / "readings"
    src.mkdir()
    for no in (1, 3):
        write(src / f"{no:03d}.wav", poem_reading(no).samples)
    (src / "004.mp3").write_text("not audio")
    return src


def test_cli_json_lists_every_poem_and_a_summary(tmp_path, capsys):
    from trainer.cli import main
    src = make_folder(tmp_path)
    assert main(["import-readings", str(src), "--name", "cli", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["no"] for p in out["poems"]] == [1, 3]
    for p in out["poems"]:
        assert {"no", "file", "kami_start_s", "kami_end_s", "shimo_start_s", "shimo_end_s",
                "kimariji_mark_s", "warnings"} <= set(p)
        assert p["kami_start_s"] < p["kimariji_mark_s"] < p["kami_end_s"] < p["shimo_start_s"] < p["shimo_end_s"]
    summary = out["summary"]
    assert summary["missing"] == [2] + list(range(4, 101))
    assert summary["failed"] == [{"file": "004.mp3", "error": summary["failed"][0]["error"]}]
    assert "unreadable" in summary["failed"][0]["error"]


def test_cli_text_tells_what_to_do(tmp_path, capsys):
    from trainer.cli import main
    src = make_folder(tmp_path)
    assert main(["import-readings", str(src)]) == 0
    out = capsys.readouterr().out
    assert "001.wav -> poem   1" in out and "FAILED  004.mp3" in out
    assert "Missing poem numbers (98): 2, 4-100" in out
    assert f"karuta import-readings {src} --name readings` again" in out
    assert "voice 'readings'" in out


def test_cli_bad_arguments_exit_2(tmp_path, capsys):
    from trainer.cli import main
    assert main(["import-readings", str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["import-readings", str(tmp_path), "--name", "a/b"]) == 2


def test_cli_nothing_imported_exits_1(tmp_path, capsys):
    from trainer.cli import main
    (tmp_path / "empty").mkdir()
    assert main(["import-readings", str(tmp_path / "empty")]) == 1
    assert "Nothing was imported" in capsys.readouterr().out


# --- real speech (pyopenjtalk) -------------------------------------------------------

def _tts(text: str) -> np.ndarray:
    pyopenjtalk = pytest.importorskip("pyopenjtalk")
    x, rate = pyopenjtalk.tts(text, speed=0.75)
    assert rate == RATE
    return np.asarray(x, dtype=np.float64)


def _sounding(x: np.ndarray) -> tuple[int, int]:
    """First and last sample above 1% of the peak: the truth, by a rule unlike the importer's."""
    idx = np.flatnonzero(np.abs(x) > 0.01 * np.abs(x).max())
    return int(idx[0]), int(idx[-1]) + 1


@pytest.mark.parametrize("no", [1, 77])
def test_synthesised_speech_is_split_within_50ms(tmp_path, no):
    poem = poems.get(no)
    kami, shimo = _tts(" ".join(poem.kami_sound)), _tts(" ".join(poem.shimo_sound))
    scale = 0.5 / max(np.abs(kami).max(), np.abs(shimo).max())
    lead, pause = int(0.4 * RATE), int(1.2 * RATE)
    x = np.concatenate([np.zeros(lead), kami, np.zeros(pause), shimo, np.zeros(lead)]) * scale
    x += 10 ** (-70 / 20) * np.random.default_rng(no).standard_normal(len(x))
    src = tmp_path / "src"
    src.mkdir()
    write(src / f"{no:03d}.flac", x.astype(np.float32))
    (p,) = import_readings(src, "tts").poems
    k0, k1 = _sounding(kami)
    s0, s1 = _sounding(shimo)
    shimo_at = lead + len(kami) + pause
    truth = [(lead + k0) / RATE, (lead + k1) / RATE, (shimo_at + s0) / RATE, (shimo_at + s1) / RATE]
    got = [p.kami_start_s, p.kami_end_s, p.shimo_start_s, p.shimo_end_s]
    assert np.max(np.abs(np.subtract(got, truth))) <= SPLIT_TOLERANCE_S, (got, truth)
    marks = p.kami.mora_marks()
    assert len(marks) == len(poem.kami_morae()) and marks == sorted(set(marks))
    assert p.kami_start_s <= p.kimariji_mark_s < p.kami_end_s  # せ of 77 decides at once


def test_a_crash_on_one_file_fails_only_that_file(tmp_path, monkeypatch):
    import audio.importer as importer
    src = tmp_path / "src"
    src.mkdir()
    for no in (1, 2):
        write(src / f"{no:03d}.wav", poem_reading(no).samples)
    real = importer.analyse_whole

    def flaky(no, x):
        if no == 2:
            raise ZeroDivisionError("boom")
        return real(no, x)
    monkeypatch.setattr(importer, "analyse_whole", flaky)
    report = import_readings(src, "flaky")
    assert [p.no for p in report.poems] == [1]
    assert report.failed[0].file == "002.wav" and "internal error" in report.failed[0].error


def test_progress_and_cancel(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for no in (1, 2, 3):
        write(src / f"{no:03d}.wav", poem_reading(no).samples)
    seen = []
    report = import_readings(src, "p", workers=1, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 3), (2, 3), (3, 3)] and len(report.poems) == 3
    stop = import_readings(src, "c", workers=1, cancelled=lambda: True)
    assert stop.poems == [] and stop.failed == [] and stop.cancelled
