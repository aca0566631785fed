"""The C libraries' diagnostics stay off a command's terminal; the program's own lines
and anything unknown still reach it (issue 26: mpg123 and ALSA lines during import and read)."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from trainer.library_noise import held

MPG123_LINE = b"[src/libmpg123/parse.c:decode_header():907] error: Frame smaller than mandatory side info (6 < 32)!\n"
ALSA_LINE = b"ALSA lib pcm.c:2664:(snd_pcm_open_noupdate) Unknown PCM cards.pcm.rear\n"


def test_library_lines_are_counted_and_ours_still_shown(capfd):
    with held() as found:
        print("karuta: our own line", file=sys.stderr)
        os.write(2, MPG123_LINE * 3 + ALSA_LINE + b"something nobody expected\n")
    err = capfd.readouterr().err
    assert "libmpg123" not in err and "ALSA lib" not in err
    assert (found.decoder_lines, found.sound_lines) == (3, 1)
    lines = err.splitlines()
    assert lines[0] == "karuta: our own line"
    assert "something nobody expected" in lines          # unknown text is never lost
    assert "reported 3 problems" in lines[-1]


def test_the_descriptor_is_given_back(capfd):
    with held():
        pass
    os.write(2, b"after\n")
    print("python after", file=sys.stderr)
    assert capfd.readouterr().err == "after\npython after\n"


def test_held_is_given_back_on_an_exception(capfd):
    with pytest.raises(KeyError):
        with held():
            raise KeyError("x")
    os.write(2, ALSA_LINE)
    assert "ALSA lib" in capfd.readouterr().err


def test_an_import_of_a_damaged_mp3_prints_no_decoder_lines(tmp_path):
    sf = pytest.importorskip("soundfile")
    folder = tmp_path / "readings"
    folder.mkdir()
    tone = (0.3 * np.sin(np.arange(22050 * 3) * 2 * np.pi * 220 / 22050)).astype("float32")
    try:
        sf.write(folder / "001.mp3", tone, 22050, format="MP3")
    except (sf.LibsndfileError, TypeError, ValueError) as exc:
        pytest.skip(f"this libsndfile writes no MP3: {exc}")
    good = (folder / "001.mp3").read_bytes()
    (folder / "002.mp3").write_bytes(good[:200] + b"\xff\xfb\x00garbage" * 50 + good[3000:])
    env = {**os.environ, "KARUTA_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run([sys.executable, "-m", "trainer.cli", "import-readings", str(folder),
                          "--name", "noisy"], capture_output=True, text=True, env=env, timeout=300)
    assert "libmpg123" not in out.stderr and "Frame smaller" not in out.stderr
    assert "Traceback" not in out.stderr
    assert "the MP3 decoder reported" in out.stderr
