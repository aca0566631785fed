"""`karuta read` club options: --set, --karafuda, --order, --shimo-only, --memorise, --replay;
and the importer's line for .m4a files."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import poems  # noqa: E402
from trainer.cli import main  # noqa: E402
from trainer.reader.session import ReaderSession, study_order  # noqa: E402


def read_json(capsys, *argv) -> dict:
    assert main(["read", "--json", "--voice", "test-tones", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def poems_of(data) -> list[int]:
    return [c["poem"] for c in data["cards"]]


def test_karafuda_are_read_with_the_set_and_marked(capsys):
    data = read_json(capsys, "--set", "1-10", "--karafuda", "3", "--seed", "4", "--no-joka")
    read = poems_of(data)
    assert len(read) == 13 and set(range(1, 11)) < set(read)
    assert len(data["karafuda"]) == 3 and not set(data["karafuda"]) & set(range(1, 11))
    assert [c["poem"] for c in data["cards"] if c["karafuda"]] == [n for n in read if n in data["karafuda"]]
    again = read_json(capsys, "--set", "1-10", "--karafuda", "3", "--seed", "4", "--no-joka")
    assert poems_of(again) == read                              # seeded: the same reading


def test_karafuda_with_cards_n_are_added_to_the_first_n(capsys):
    data = read_json(capsys, "--cards", "5", "--karafuda", "2", "--seed", "9", "--no-joka")
    assert len(data["cards"]) == 7 and set(poems.shuffled(9)[:5]) < set(poems_of(data))


def test_the_study_order_and_shimo_only(capsys):
    data = read_json(capsys, "--order", "musumefusahose", "--set", "1-30", "--no-joka", "--shimo-only")
    assert poems_of(data) == study_order(range(1, 31)) and data["order"] == "musumefusahose"
    assert data["settings"]["read_kami"] is False
    c0, c1 = data["cards"][:2]
    assert c0["kami_start_s"] <= c0["kimariji_s"] < c0["shimo_end_s"] < c1["kami_start_s"]


def test_memorise_puts_the_period_before_the_joka(capsys):
    data = read_json(capsys, "--memorise", "2.5", "--cards", "1", "--seed", "2")
    assert data["memorise_end_s"] == 150.0 and data["settings"]["memorise_s"] == 150.0
    assert data["joka"]["kami_start_s"] > 150.0


def test_replay_reads_the_saved_sessions_order(capsys):
    s = ReaderSession.new([7, 8, 9, 10], seed=3, karafuda=2)
    s.read = len(s.order)
    s.save()
    data = read_json(capsys, "--replay", "--no-joka")
    assert poems_of(data) == s.order and data["karafuda"] == s.karafuda and data["order"] == "replay"


@pytest.mark.parametrize("argv,msg", [
    (["--karafuda", "3"], "--karafuda needs the cards on the floor"),
    (["--karafuda", "-1", "--cards", "3"], "--karafuda must be 0 or more"),
    (["--karafuda", "95", "--set", "1-10"], "only 90 poems lie outside"),
    (["--set", "0-3"], "'0-3' is not a poem number"),
    (["--set", "1-3", "--cards", "2"], "--set or --cards, not both"),
    (["--order", "iroha"], "--order must be one of random, musumefusahose"),
    (["--memorise", "-1"], "--memorise must be 0..60 minutes"),
    (["--memorise", "nan"], "--memorise must be 0..60 minutes"),
    (["--memorise", "90"], "--memorise must be 0..60 minutes"),
    (["--shimo-only", "--kami-only"], "exclude each other"),
    (["--replay", "--seed", "3"], "--replay reads the saved session's own order"),
    (["--replay"], "no saved reading session"),
])
def test_bad_club_options_get_one_line_and_exit_2(argv, msg, capsys):
    assert main(["read", "--voice", "test-tones", "--json", *argv]) == 2
    cap = capsys.readouterr()
    assert msg in cap.err and cap.err.count("\n") == 1 and cap.out == ""


def test_m4a_recordings_are_refused_with_how_to_convert(tmp_path, monkeypatch):
    from audio.importer import import_readings
    from fixtures_audio import poem_reading
    import soundfile as sf
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))
    src = tmp_path / "src"
    src.mkdir()
    reading = poem_reading(12)
    sf.write(str(src / "012.wav"), reading.samples, 48_000)
    (src / "017.m4a").write_bytes(b"\x00\x00\x00\x20ftypM4A ")   # what a phone would give
    report = import_readings(src, "phone")
    failed = {f.file: f.error for f in report.failed}
    assert "ffmpeg -i '017.m4a' '017.flac'" in failed["017.m4a"]
    assert "017.m4a" not in report.skipped and (src / "017.m4a").exists()
    assert [p.no for p in report.poems] == [12]
