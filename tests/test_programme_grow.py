"""A growing programme (issue 25: a reading starts before every clip is made) and the
player that plays it on step by step: the same samples and marks as the whole session."""
from __future__ import annotations

import numpy as np
import pytest

from audio.fake_voice import ToneVoice
from audio.player import CARD_STARTED, FADE, FINISHED, KIMARIJI, PLAYING, FakeTime, Player
from audio.programme import JOKA, Programme, ReadingSettings
from audio.voice import RATE

VOICE = ToneVoice()
ORDER = [44, 17, 3, 88]
T0 = 500.0
FRAMES = 256


@pytest.mark.parametrize("settings", [
    ReadingSettings(),
    ReadingSettings(joka=False, ma=0.0, pause=0.0),      # clips' silences cut where they meet
    ReadingSettings(read_kami=False),                    # shimo-no-ku only: its own kimariji
    ReadingSettings(read_shimo=False, memorise=5.0),
])
def test_each_step_is_a_prefix_of_the_next_and_the_last_is_the_whole_session(settings):
    whole = Programme.build(VOICE, ORDER, settings)
    steps = list(Programme.grow(VOICE, ORDER, settings))
    assert [len(p.card_order) for p in steps] == [1, 2, 3, 4]
    assert [p.complete for p in steps] == [False, False, False, True]
    assert steps[-1].marks() == whole.marks()
    assert np.array_equal(steps[-1].render(), whole.render())
    for short, longer in zip(steps, steps[1:]):
        assert short.marks().items() <= longer.marks().items()
        # every mark of the short one lies inside it, so it is known before it sounds
        assert max(short.marks().values()) <= short.total_samples
        heard = max(v for (_c, name), v in short.marks().items() if name.endswith("_end"))
        assert np.array_equal(short.render()[:heard], longer.render()[:heard])


def test_the_first_step_holds_the_joka_and_the_first_card():
    first = next(Programme.grow(VOICE, ORDER))
    assert first.card_order == (44,)
    assert first.has_mark(JOKA, "shimo2_end") and first.has_mark(0, "kimariji")
    assert not first.has_mark(1, "kami_start")


def _run(player, blocks, start_block=0):
    out = []
    for b in range(start_block, start_block + blocks):
        buf = np.full((FRAMES, 1), 7.0, dtype=np.float32)
        player.process(buf, FRAMES, FakeTime(T0 + b * FRAMES / RATE), None)
        out.append(buf[:, 0].copy())
    return out


def test_a_player_extended_step_by_step_plays_exactly_the_whole_session():
    settings = ReadingSettings(cards=3)
    whole = Programme.build(VOICE, ORDER, settings)
    steps = list(Programme.grow(VOICE, ORDER, settings))
    player = Player(backend="manual")
    player.load(steps[0])
    player.start()
    out = _run(player, 4)
    for step in steps[1:]:        # each continuation comes while the one before still plays
        player.extend(step)
        out += _run(player, 4, len(out))
    # Past the last step the joka's mark times are still those it sounded at.
    joka = whole.mark_sample(JOKA, "kami_start")
    assert player.mark_time(JOKA, "kami_start") == pytest.approx(T0 + joka / RATE, abs=1e-9)
    blocks = -(-whole.total_samples // FRAMES) - len(out) + 1
    out += _run(player, blocks, len(out))
    audio = np.concatenate(out)
    assert player.state == FINISHED and player.waits == 0
    assert np.array_equal(audio[FADE:whole.total_samples], whole.render()[FADE:])
    events = [(e.kind, e.card_index) for e in player.poll_events() if e.kind in (CARD_STARTED, KIMARIJI)]
    assert events == [(CARD_STARTED, JOKA), (KIMARIJI, JOKA)] + [
        (kind, i) for i in range(3) for kind in (CARD_STARTED, KIMARIJI)]
    for i in range(3):
        m = whole.mark_sample(i, "kimariji")
        assert player.mark_time(i, "kimariji") == pytest.approx(T0 + m / RATE, abs=1e-9)


def test_a_player_that_runs_out_waits_silent_and_goes_on_when_the_next_step_comes():
    steps = list(Programme.grow(VOICE, ORDER, ReadingSettings(joka=False, cards=2)))
    player = Player(backend="manual")
    player.load(steps[0])
    player.start()
    blocks = -(-steps[0].total_samples // FRAMES) + 10
    out = _run(player, blocks)
    assert player.state == PLAYING and player.position == steps[0].total_samples
    assert player.waits == 1
    assert not np.any(np.concatenate(out)[steps[0].total_samples:])   # silent while waiting
    player.extend(steps[1])
    out += _run(player, 1, len(out))
    # The next card sounds from where the wait ended: its marks at their place after it.
    t_resume = T0 + blocks * FRAMES / RATE
    m = steps[1].mark_sample(1, "kami_start")
    expected = t_resume + (m - steps[0].total_samples) / RATE
    assert player.mark_time(1, "kami_start") == pytest.approx(expected, abs=1e-9)
    assert player.waits == 1


def test_an_extension_after_a_new_load_is_dropped():
    steps = list(Programme.grow(VOICE, ORDER, ReadingSettings(joka=False, cards=2)))
    other = Programme.build(VOICE, [5], ReadingSettings(joka=False))
    player = Player(backend="manual")
    player.load(steps[0])
    stale = player._given
    player.load(other)
    player._commands.append(("extend", type(stale)(steps[1], before=stale)))
    player.start()
    _run(player, 1)
    assert player.programme is other
