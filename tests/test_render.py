"""Offline render: the file holds the programme, and its rhythm (pauses, ma) survives a round trip."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
import soundfile as sf

import poems
from audio.fake_voice import ToneVoice
from audio.programme import Programme, ReadingSettings
from audio.render import ProgressBar, render_to_file
from audio.voice import RATE
from trainer.cli import main

VOICE = ToneVoice()


def voiced_runs(x: np.ndarray, min_gap_s: float) -> list[tuple[int, int]]:
    """(start, end) of every stretch of sound separated by at least `min_gap_s` of silence."""
    loud = np.flatnonzero(np.abs(x) > 0.02)
    gaps = np.diff(loud) > min_gap_s * RATE
    starts = np.concatenate([[loud[0]], loud[1:][gaps]])
    ends = np.concatenate([loud[:-1][gaps], [loud[-1]]]) + 1
    return list(zip(starts.tolist(), ends.tolist()))


@pytest.mark.parametrize("suffix", [".flac", ".wav"])
def test_the_file_is_the_programme_to_16_bits(tmp_path, suffix):
    p = Programme.build(VOICE, [44, 17], ReadingSettings())
    path = render_to_file(p, tmp_path / f"session{suffix}")
    x, rate = sf.read(path, dtype="float32")
    assert rate == RATE and x.ndim == 1
    assert len(x) == p.total_samples
    assert np.max(np.abs(x - p.render())) <= 1 / 32768 + 1e-7
    assert not list(tmp_path.glob(".*.part"))


def test_rendered_rhythm_has_the_set_pauses_and_ma(tmp_path):
    """Segment the rendered sound by energy: the long silences are the pauses and the ma."""
    ma, pause = 1.3, 0.7
    order = poems.shuffled(11)[:6]
    settings = ReadingSettings(ma=ma, pause=pause)
    p = Programme.build(VOICE, order, settings)
    x, _ = sf.read(render_to_file(p, tmp_path / "s.flac"), dtype="float32")
    # the tone voice's longest inner silence is a 150 ms phrase break
    runs = voiced_runs(x, min_gap_s=0.4)
    assert len(runs) == 3 + 2 * len(order)  # joka kami, shimo, shimo again; kami+shimo per card
    gaps = [(b[0] - a[1]) / RATE for a, b in zip(runs, runs[1:])]
    # the joka's shimo-no-ku is read again after its own gap (the measured reader's, issue 25)
    expected = [pause, settings.joka_gap] + [ma, pause] * len(order)
    expected = expected[: len(gaps)]
    # tone bursts end wherever their cosine is: a sample or two of threshold slack
    assert gaps == pytest.approx(expected, abs=0.0002)
    # each verse is where the programme says
    for i in range(len(order)):
        start, _ = runs[3 + 2 * i]
        assert abs(start - p.mark_sample(i, "kami_start")) <= 1
        _, end = runs[4 + 2 * i]
        assert abs(end - p.mark_sample(i, "shimo_end")) <= 3


def test_progress_reaches_the_total_and_an_interrupted_render_leaves_no_file(tmp_path):
    p = Programme.build(VOICE, [44, 17, 3], ReadingSettings())
    seen = []
    render_to_file(p, tmp_path / "a.wav", progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (p.total_samples, p.total_samples)
    assert all(a[0] < b[0] for a, b in zip(seen, seen[1:]))

    def interrupt(done, total):
        if done > total // 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        render_to_file(p, tmp_path / "b.wav", progress=interrupt)
    assert not (tmp_path / "b.wav").exists() and not list(tmp_path.glob(".*"))


def test_progress_bar_draws_one_line_and_ends_it():
    out = io.StringIO()
    bar = ProgressBar("rendering", stream=out)
    bar(0, 10)
    bar(10, 10)
    text = out.getvalue()
    assert "100.0%" in text and text.endswith("\n") and "rendering [" in text


def test_cli_renders_and_prints_the_timeline(tmp_path, capsys):
    out = tmp_path / "s.flac"
    rc = main(["read", "--out", str(out), "--voice", "test-tones", "--cards", "3",
               "--seed", "5", "--ma", "1.5", "--json"])
    assert rc == 0
    cap = capsys.readouterr()
    data = json.loads(cap.out)
    assert data["seed"] == 5
    assert [c["poem"] for c in data["cards"]] == poems.shuffled(5)[:3]
    c0, c1 = data["cards"][0], data["cards"][1]
    assert c1["kami_start_s"] - c0["shimo_end_s"] == pytest.approx(1.5, abs=1e-5)
    assert c0["kami_start_s"] < c0["kimariji_s"] < c0["shimo_end_s"]
    assert "rendering [" in cap.err and "wrote" in cap.err
    x, _ = sf.read(out)
    assert len(x) == data["total_samples"]


def test_cli_json_alone_plays_nothing_and_no_joka_starts_with_the_card(capsys):
    rc = main(["read", "--json", "--voice", "test-tones", "--cards", "2", "--seed", "1",
               "--no-joka"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert data["joka"] is None and data["cards"][0]["kami_start"] == 0


@pytest.mark.parametrize("argv,msg", [
    (["--out", "x.mp3"], ".wav or .flac"),
    (["--ma", "-2"], "ma must be"),
    (["--speed", "5"], "speed must be"),
    (["--cards", "500"], "cards must be"),
])
def test_cli_bad_arguments_say_what_is_wrong(argv, msg, capsys):
    assert main(["read", "--voice", "test-tones", *argv]) == 2
    assert msg in capsys.readouterr().err


def test_cli_unknown_voice_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path))
    assert main(["read", "--voice", "nobody", "--out", str(tmp_path / "x.wav")]) == 1
    err = capsys.readouterr().err
    assert "nobody" in err and "import-readings" in err
    assert not (tmp_path / "x.wav").exists()


def test_an_hts_engine_of_unknown_layout_makes_the_synthesised_voice_unavailable(tmp_path, monkeypatch, capsys):
    """The chant reaches into the engine's memory (hts_engine 1.10's layout); on
    a build where it does not find what it knows, the voice is unavailable from
    the start, and the command line says why and what to do instead."""
    from audio import synth_hts
    from audio.synth import SynthVoice

    def unknown(self):
        raise synth_hts.HtsUnavailable("the engine's state streams were not found (0 candidates)")

    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(synth_hts.HtsEngine, "_state_streams", unknown)
    monkeypatch.setattr(synth_hts, "_engine", None)
    with pytest.raises(synth_hts.HtsUnavailable):
        synth_hts.HtsEngine()
    assert SynthVoice().available() == frozenset()
    assert main(["read", "--voice", "synth", "--out", str(tmp_path / "x.wav")]) == 1
    err = capsys.readouterr().err
    assert "synthesised voice is not available here" in err and "state streams" in err
    assert "--voice NAME" in err and "Traceback" not in err
    assert not (tmp_path / "x.wav").exists()


def test_cli_play_without_a_device_says_so_and_suggests_out(monkeypatch, capsys):
    from audio import player
    monkeypatch.setattr(player.Player, "_open_device",
                        lambda self: self._go_silent("no sound output device (test)"))
    assert main(["read", "--voice", "test-tones", "--cards", "1", "--seed", "4"]) == 1
    err = capsys.readouterr().err
    assert "no sound output device" in err and "--out session.flac --seed 4" in err


def test_cli_json_with_the_synthesised_voice_is_pure_json():
    """pyopenjtalk prints a notice to stdout when first imported; --json output must stay parseable.
    A fresh process, so that the import really happens."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "trainer.cli", "read", "--json", "--cards", "1",
                          "--voice", "synth"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)


def test_cli_poems_reads_exactly_those_poems_in_that_order(capsys):
    rc = main(["read", "--json", "--voice", "test-tones", "--poems", "11,15,31", "--no-joka"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["poem"] for c in data["cards"]] == [11, 15, 31]
    starts = [c["kami_start"] for c in data["cards"]]
    assert starts == sorted(starts)


@pytest.mark.parametrize("value,msg", [
    ("11,x", "'x' is not a poem number"),
    ("0", "there is no poem 0"),
    ("11,101", "there is no poem 101"),
    ("11,11", "poem 11 is given twice"),
    ("", "--poems wants poem numbers"),
    ("11,,15", "--poems wants poem numbers"),
])
def test_cli_poems_bad_input_is_one_line_and_exit_2(value, msg, capsys):
    assert main(["read", "--voice", "test-tones", "--json", "--poems", value]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1
