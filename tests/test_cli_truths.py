"""The command line says what the program does: seeds that repeat the reading, a silent
device that is not called "playing silently", commands that exist, help for every option."""
from __future__ import annotations

import argparse
import json
import os
import sys

import pytest

from trainer.cli import build_parser, main
from trainer.commands.invocation import command_name


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _saved_session(order=(7, 8, 9, 10)):
    from trainer.reader.session import ReaderSession
    s = ReaderSession.new(list(order), seed=3, karafuda=0)
    s.read = len(s.order)
    s.save()
    return s


def test_replay_and_poems_print_no_seed_they_do_not_use(capsys):
    _saved_session()
    assert main(["read", "--json", "--voice", "test-tones", "--replay", "--no-joka"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] is None
    assert main(["read", "--json", "--voice", "test-tones", "--poems", "11,15", "--seed", "5"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] is None
    assert main(["read", "--json", "--voice", "test-tones", "--cards", "2", "--seed", "5"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 5


@pytest.mark.parametrize("argv, again", [
    (["--replay"], "--replay"),
    (["--poems", "11,15"], "--poems 11,15"),
    (["--cards", "1", "--seed", "4"], "--seed 4"),
])
def test_rendering_names_the_option_that_reads_it_again(tmp_path, capsys, argv, again):
    _saved_session()
    out = tmp_path / "s.wav"
    assert main(["read", "--voice", "test-tones", "--no-joka", "--out", str(out), *argv]) == 0
    err = capsys.readouterr().err
    assert f"again: {again})" in err and "seed" not in err.replace(again, "")


@pytest.mark.parametrize("argv, again", [(["--replay"], "--replay"), (["--cards", "1", "--seed", "4"], "--seed 4")])
def test_no_sound_device_is_said_once_without_claiming_to_play(monkeypatch, capsys, argv, again):
    from audio import player
    monkeypatch.setattr(player.Player, "_open_device",
                        lambda self: self._go_silent("no sound output device (test)"))
    _saved_session()
    assert main(["read", "--voice", "test-tones", *argv]) == 1
    err = capsys.readouterr().err
    assert "nothing can be played: no sound output device (test)" in err
    assert "silently" not in err.lower()
    assert f"read --out session.flac {again}" in err


def test_the_command_named_is_the_one_the_shell_finds(tmp_path, monkeypatch):
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    karuta = venv_bin / "karuta"
    karuta.write_text("#!/bin/sh\n")
    karuta.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert command_name(str(karuta)) == os.path.join(".venv", "bin", "karuta")   # after packaging/run.sh
    monkeypatch.setenv("PATH", f"{venv_bin}:/usr/bin:/bin")
    assert command_name(str(karuta)) == "karuta"                                 # on the PATH
    assert command_name("/somewhere/trainer/cli.py").endswith(" -m trainer.cli")


def test_no_display_names_a_command_that_exists(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(sys, "argv", [str(tmp_path / ".venv" / "bin" / "karuta")])
    assert main(["gui"]) == 1
    err = capsys.readouterr().err
    assert "no display found" in err
    assert f"{os.path.join('.venv', 'bin', 'karuta')} read --out session.flac" in err
    assert "  karuta read" not in err


def test_simulate_help_closes_what_it_opens_and_every_option_says_what_it_does():
    simulate = _subparsers(build_parser())["simulate"]
    listing = simulate.format_help()
    for line in listing.splitlines():
        assert line.count("(") == line.count(")"), line
    for name, game in _subparsers(simulate).items():
        silent = [a.option_strings for a in game._actions if a.option_strings and not a.help]
        assert silent == [], name
