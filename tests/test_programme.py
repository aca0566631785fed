"""The reading programme's arithmetic, checked in samples against the tone voice's exact marks."""
from __future__ import annotations

import numpy as np
import pytest

import poems
from audio.clip import Clip
from audio.fake_voice import ToneVoice
from audio.programme import JOKA, KAMI, MA, PAUSE, SHIMO, Programme, ReadingSettings
from audio.voice import RATE

VOICE = ToneVoice()
ORDER = [44, 17, 3, 88, 61]


def sec(s: float) -> int:
    return round(s * RATE)


def build(order=ORDER, **kw) -> Programme:
    return Programme.build(VOICE, order, ReadingSettings(**kw))


def test_joka_is_kami_shimo_shimo_then_the_first_card_after_the_ma():
    p = build(ma=1.0, pause=0.75, joka_gap=0.8)
    m = p.mark_sample
    assert m(JOKA, "kami_start") == 0
    assert m(JOKA, "shimo_start") - m(JOKA, "kami_end") == sec(0.75)
    # The repeat of the shimo-no-ku waits its own gap (a measured reader's 0.80 s, issue 25).
    assert m(JOKA, "shimo2_start") - m(JOKA, "shimo_end") == sec(0.8)
    assert m(0, "kami_start") - m(JOKA, "shimo2_end") == sec(1.0)
    kinds = [s.kind for s in p.segments[:6]]
    assert kinds == [KAMI, PAUSE, SHIMO, PAUSE, SHIMO, MA]
    assert [s.card_index for s in p.segments[:5]] == [JOKA] * 5


def test_every_card_has_the_pause_and_the_ma_between_what_is_heard():
    p = build(ma=1.2, pause=0.6)
    assert p.card_order == tuple(ORDER)
    for i in range(len(ORDER)):
        assert p.mark_sample(i, "shimo_start") - p.mark_sample(i, "kami_end") == sec(0.6)
        if i + 1 < len(ORDER):
            assert p.mark_sample(i + 1, "kami_start") - p.mark_sample(i, "shimo_end") == sec(1.2)
    assert p.total_samples == p.mark_sample(len(ORDER) - 1, "shimo_end")


def test_kimariji_mark_is_the_clips_mark_moved_to_the_session():
    p = build()
    for i, no in enumerate(ORDER):
        clip = VOICE.kami(no)
        seg = next(s for s in p.segments if s.kind == KAMI and s.card_index == i)
        assert p.mark_sample(i, "kimariji") == seg.start + clip.marks["kimariji"]
        assert p.mark_sample(i, "kami:mora:0") == seg.start
        k = poems.get(no).kimariji_mora_count() - 1
        assert p.mark_sample(i, "kimariji") == p.mark_sample(i, f"kami:mora:{k}")


def test_segments_tile_the_session_without_overlap():
    p = build()
    assert p.segments[0].start == 0
    for a, b in zip(p.segments, p.segments[1:]):
        assert a.stop == b.start
        assert a.length > 0
    assert p.segments[-1].stop == p.total_samples


def test_fill_in_any_chunks_equals_the_whole_render():
    p = build(order=ORDER[:2])
    whole = p.render()
    rng = np.random.default_rng(5)
    got, pos, hint = [], -300, -1
    while pos < p.total_samples + 500:
        n = int(rng.integers(1, 3000))
        buf = np.full(n, 9.0, dtype=np.float32)
        hint = p.fill(buf, pos, hint)
        got.append(buf)
        pos += n
    got = np.concatenate(got)
    assert np.all(got[:300] == 0)
    assert np.array_equal(got[300:300 + p.total_samples], whole)
    assert np.all(got[300 + p.total_samples:] == 0)
    # the clip samples really are there
    seg = p.segments[0]
    assert np.array_equal(whole[seg.start:seg.stop], seg.clip.samples)


def test_settings_cut_the_order_skip_shimo_and_joka():
    p = build(cards=2, joka=False, read_shimo=False, ma=0.5)
    assert p.card_order == tuple(ORDER[:2])
    assert p.mark_sample(0, "kami_start") == 0
    assert not p.has_mark(JOKA, "kami_start")
    assert not p.has_mark(0, "shimo_start")
    assert p.mark_sample(1, "kami_start") - p.mark_sample(0, "kami_end") == sec(0.5)
    assert [s.kind for s in p.segments] == [KAMI, MA, KAMI]


def test_speed_shortens_clips_and_scales_marks_exactly():
    slow, fast = build(order=[44]), build(order=[44], speed=1.25)
    for name in ("kimariji", "kami_end"):
        d_slow = slow.mark_sample(0, name) - slow.mark_sample(0, "kami_start")
        d_fast = fast.mark_sample(0, name) - fast.mark_sample(0, "kami_start")
        assert abs(d_fast - d_slow / 1.25) <= 1
    # the pauses are settings of their own: not scaled
    assert fast.mark_sample(0, "shimo_start") - fast.mark_sample(0, "kami_end") == sec(ReadingSettings().pause)


def test_seeded_order_is_poems_shuffled():
    p = Programme.shuffled(VOICE, 7, ReadingSettings(cards=3))
    assert p.card_order == tuple(poems.shuffled(7)[:3])
    full = Programme.shuffled(VOICE, 7)
    assert sorted(full.card_order) == list(range(1, 101))


class PaddedVoice:
    """Clips with silence around the sound, as recordings have: gaps must still be exact."""

    name, rate = "padded", RATE

    def __init__(self, lead: float, tail: float, rate: int = RATE):
        self.lead, self.tail, self.rate = round(lead * rate), round(tail * rate), rate

    def available(self):
        return VOICE.available()

    def _pad(self, clip: Clip) -> Clip:
        samples = np.concatenate([np.zeros(self.lead, np.float32), clip.samples,
                                  np.zeros(self.tail, np.float32)])
        return Clip(samples, self.rate, {k: v + self.lead for k, v in clip.marks.items()})

    def kami(self, no):
        return self._pad(VOICE.kami(no))

    def shimo(self, no):
        return self._pad(VOICE.shimo(no))


@pytest.mark.parametrize("lead,tail", [(0.8, 0.9), (0.1, 0.2), (0.0, 2.0)])
def test_clip_silence_is_trimmed_not_added(lead, tail):
    p = Programme.build(PaddedVoice(lead, tail), ORDER[:3], ReadingSettings(ma=0.5, pause=0.3))
    for a, b in zip(p.segments, p.segments[1:]):
        assert a.stop == b.start
    for i in range(3):
        assert p.mark_sample(i, "shimo_start") - p.mark_sample(i, "kami_end") == sec(0.3)
    assert p.mark_sample(0, "kami_start") - p.mark_sample(JOKA, "shimo2_end") == sec(0.5)
    audio = p.render()
    # where the tone voice is silent (the pause), the session is silent too
    a, b = p.mark_sample(0, "kami_end"), p.mark_sample(0, "shimo_start")
    assert np.all(audio[a:b] == 0) and audio[b] != 0


def test_a_resampled_voice_at_another_rate_lands_at_48k():
    class LowRate(PaddedVoice):
        def _pad(self, clip):
            import soxr
            x = soxr.resample(clip.samples, RATE, 24_000).astype(np.float32)
            return Clip(x, 24_000, {k: v // 2 for k, v in clip.marks.items()})
    p = Programme.build(LowRate(0, 0), [44], ReadingSettings(joka=False))
    d = p.mark_sample(0, "kami_end") - p.mark_sample(0, "kami_start")
    assert abs(d - VOICE.kami(44).marks["end"]) <= 2


def test_hold_points_sit_at_the_start_of_the_silence_before_each_part():
    p = build()
    before_shimo = p.hold_points(SHIMO)
    assert p.mark_sample(0, "kami_end") in before_shimo
    before_kami = p.hold_points(KAMI)
    assert p.mark_sample(JOKA, "shimo2_end") == before_kami[0]
    assert p.mark_sample(0, "shimo_end") == before_kami[1]


@pytest.mark.parametrize("order,msg", [([0], "1..100"), ([5, 5], "twice"), ([101], "1..100")])
def test_bad_card_orders_are_refused_clearly(order, msg):
    with pytest.raises(ValueError, match=msg):
        build(order=order)


@pytest.mark.parametrize("kw", [{"ma": -1}, {"pause": 100}, {"speed": 3.0}, {"cards": 101}])
def test_bad_settings_are_refused_clearly(kw):
    with pytest.raises(ValueError):
        ReadingSettings(**kw)


def test_timeline_json_lists_every_card():
    p = build()
    t = p.timeline()
    assert [c["poem"] for c in t["cards"]] == ORDER
    assert t["cards"][0]["kimariji"] == p.mark_sample(0, "kimariji")
    assert t["cards"][2]["kami_start_s"] == round(p.mark_sample(2, "kami_start") / RATE, 6)
    assert t["joka"]["kami_start_s"] == 0.0


def test_default_pauses_are_the_measured_readers():
    # issue 25: 0.66 s between kami- and shimo-no-ku (0.62-0.73), 0.80 s between the joka's two shimo-no-ku
    p = Programme.build(VOICE, ORDER, ReadingSettings())
    m = p.mark_sample
    assert m(JOKA, "shimo_start") - m(JOKA, "kami_end") == sec(0.66)
    assert m(JOKA, "shimo2_start") - m(JOKA, "shimo_end") == sec(0.80)
    assert m(0, "shimo_start") - m(0, "kami_end") == sec(0.66)


class _OwnPauses:
    """A voice that knows its reader's own pause for some poems (as an imported one may)."""

    def __init__(self, voice, pauses):
        self._voice, self._pauses = voice, pauses

    def __getattr__(self, name):
        return getattr(self._voice, name)

    def own_pause(self, no):
        return self._pauses.get(no)


def test_own_pauses_keep_the_readers_where_known_and_the_setting_elsewhere():
    voice = _OwnPauses(VOICE, {ORDER[0]: 1.37})
    for own, first in ((True, 1.37), (False, 0.5)):
        p = Programme.build(voice, ORDER, ReadingSettings(pause=0.5, own_pauses=own))
        assert p.mark_sample(0, "shimo_start") - p.mark_sample(0, "kami_end") == sec(first)
        assert p.mark_sample(1, "shimo_start") - p.mark_sample(1, "kami_end") == sec(0.5)
