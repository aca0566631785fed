"""`karuta read` playing starts before every clip is made (issue 25): the programme grows
card by card (`Programme.grow`) while the synthesised voice renders ahead of the player."""
from __future__ import annotations

import threading
import time

import pytest

from audio.fake_voice import ToneVoice
from audio.programme import JOKA, ReadingSettings
from tests.fake_sounddevice import install


class GatedVoice(ToneVoice):
    """A voice whose clips of `gated` wait until `gate` is set (a slow synthesis)."""

    def __init__(self, gated: int):
        super().__init__(mora_s=0.05, yoin_s=0.2)
        self.gated = gated
        self.gate = threading.Event()
        self.asked: list[int] = []

    def kami(self, no):
        self.asked.append(no)
        if no == self.gated:
            assert self.gate.wait(10)
        return super().kami(no)


def test_the_reading_is_loaded_and_playing_before_a_later_card_is_made():
    from audio.player import Player
    from trainer.commands.read_cmd import _Feed
    voice = GatedVoice(gated=17)
    player = Player(backend="silent").open()
    feed = _Feed(voice, [44, 17, 3], ReadingSettings(ma=0.3, pause=0.3), None, player).start()
    try:
        assert feed.wait_first()
        player.start()
        deadline = time.monotonic() + 5
        while player.position == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert player.position > 0                       # sounding, card 2 not made yet
        prog = player.programme
        assert prog is not None and not prog.complete and prog.has_mark(JOKA, "kami_start")
        assert 17 not in prog.card_order
        voice.gate.set()
        deadline = time.monotonic() + 5
        while not (player.programme and player.programme.complete) and time.monotonic() < deadline:
            time.sleep(0.01)
        whole = player.programme
        assert whole is not None and whole.complete and whole.card_order == (44, 17, 3)
        assert voice.asked == [0, 44, 17, 3]             # clips asked for in reading order
    finally:
        voice.gate.set()
        feed.stop()
        player.close()


def test_cli_plays_the_joka_and_every_card_on_a_device(monkeypatch, capsys):
    from trainer.cli import main
    install(monkeypatch)
    assert main(["read", "--voice", "test-tones", "--poems", "44,17", "--ma", "0.3",
                 "--pause", "0.3", "--speed", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["joka", "card 1/2: poem 44", "card 2/2: poem 17"]


def test_synthesis_ahead_hands_out_each_clip_once_its_poem_is_made(tmp_path):
    from audio.cache import ClipCache
    from audio.synth import SynthesisAhead, SynthVoice
    voice = SynthVoice(cache=ClipCache(tmp_path))
    if voice.unavailable():
        pytest.skip(f"no synthesis here: {voice.unavailable()}")
    ahead = SynthesisAhead(voice, [0, 17], workers=2).start()
    try:
        clip = ahead.voice.shimo(17)
        assert voice.key(17, "shimo") in voice.cache and len(clip.samples) > 0
        joka = ahead.voice.kami(0)
        assert voice.key(0, "kami") in voice.cache and joka.marks["end"] > joka.marks["phrase:0"]
    finally:
        ahead.stop()
