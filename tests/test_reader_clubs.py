"""Reader for clubs (issue 10, points 8-10): memorisation period, shimo-no-ku only, karafuda,
the むすめふさほせ order, replay: the programme's arithmetic, the session, the player's clock."""
from __future__ import annotations

import json

import numpy as np
import pytest

import poems
from audio.clip import Clip
from audio.fake_voice import ToneVoice
from audio.player import PAUSED, PLAYING, FakeTime, Player
from audio.programme import (JOKA, KAMI, MA, MEMORISE, MEMORISING, NOTICE, SHIMO, Programme,
                             ReadingSettings, notice_tone, shimo_kimariji)
from audio.voice import RATE
from trainer.reader.session import (MNEMONIC, ReaderSession, ReadingTiming, study_order,
                                       with_karafuda)

VOICE = ToneVoice()


def sec(s: float) -> int:
    return round(s * RATE)


def spoken(seconds: float, lead: float = 0.1) -> Clip:
    """A stand-in spoken notice: `lead` s of silence, then sound to its end."""
    n = sec(seconds)
    x = np.zeros(n, dtype=np.float32)
    x[sec(lead):] = 0.3
    return Clip(x, RATE, {"phrase:0": sec(lead), "end": n})


NOTICES = {"two_minutes": spoken(2.5), "start": spoken(1.5)}


# -- the memorisation period ------------------------------------------------------------------

def test_memorisation_notices_fall_two_minutes_before_and_at_the_end_then_the_joka():
    p = Programme.build(VOICE, [44, 17], ReadingSettings(memorise=15 * 60, ma=1.0), notices=NOTICES)
    end = p.mark_sample(MEMORISE, "memorise_end")
    assert p.mark_sample(MEMORISE, "memorise_start") == 0 and end == sec(900)
    assert p.mark_sample(MEMORISE, "two_minutes_start") == sec(900 - 120)   # first sound, not clip edge
    assert p.mark_sample(MEMORISE, "start_start") == end
    start_end = p.mark_sample(MEMORISE, "start_end")
    assert start_end == end + sec(1.4)
    assert p.mark_sample(JOKA, "kami_start") == start_end + sec(1.0)        # the ma, then the joka
    kinds = [s.kind for s in p.segments[:6]]
    assert kinds == [MEMORISING, NOTICE, MEMORISING, NOTICE, MA, KAMI]
    assert all(a.stop == b.start for a, b in zip(p.segments, p.segments[1:]))
    assert p.timeline()["memorise_end_s"] == 900.0


def test_the_whole_reading_is_shifted_by_the_period_and_nothing_else_changes():
    plain = Programme.build(VOICE, [44, 17, 3], ReadingSettings())
    timed = Programme.build(VOICE, [44, 17, 3], ReadingSettings(memorise=300), notices=NOTICES)
    shift = timed.mark_sample(JOKA, "kami_start") - plain.mark_sample(JOKA, "kami_start")
    for a, b in zip(plain.card_times(), timed.card_times()):
        assert b.kami_start - a.kami_start == shift and b.shimo_end - a.shimo_end == shift


def test_a_short_period_has_no_two_minute_notice_and_tones_stand_in_for_a_voice_without_notices():
    p = Programme.build(VOICE, [44], ReadingSettings(memorise=90))
    assert not p.has_mark(MEMORISE, "two_minutes_start")
    assert p.mark_sample(MEMORISE, "start_start") == sec(90)
    (notice,) = p.segments_of(NOTICE)
    assert notice.clip.samples.any() and notice.clip.rate == RATE
    assert len(notice_tone("start").samples) > len(notice_tone("two_minutes").samples)  # two tones
    with pytest.raises(ValueError, match="0..60 minutes"):
        ReadingSettings(memorise=61 * 60)


class Rig:
    """A manual player fed block by block, its device clock moving with the blocks."""

    def __init__(self, programme: Programme, frames: int = 4800):
        self.p, self.frames, self.block = programme, frames, 0
        self.player = Player(backend="manual")
        self.player.load(programme)

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds * RATE / self.frames)):
            buf = np.zeros((self.frames, 1), dtype=np.float32)
            self.player.process(buf, self.frames, FakeTime(1000.0 + self.block * self.frames / RATE), None)
            self.block += 1

    def left(self) -> float:
        return (self.p.mark_sample(MEMORISE, "memorise_end") - self.player.position) / RATE


def test_the_memorisation_countdown_runs_on_the_players_clock_and_stops_while_paused():
    p = Programme.build(VOICE, [44], ReadingSettings(memorise=180), notices=NOTICES)
    rig = Rig(p)
    rig.player.start()
    rig.run(50.0)
    assert rig.left() == pytest.approx(130.0)
    rig.player.pause()
    rig.run(30.0)                                   # half a minute of wall time, paused
    assert rig.player.state == PAUSED and rig.left() == pytest.approx(130.0, abs=0.11)
    rig.player.resume()
    rig.run(20.0)
    assert rig.player.state == PLAYING and rig.left() == pytest.approx(110.0, abs=0.11)
    # The two-minute notice sounded in those 20 s: its samples are in the programme there.
    two = p.mark_sample(MEMORISE, "two_minutes_start")
    assert np.abs(p.render()[two:two + sec(1)]).max() > 0.1


# -- shimo-no-ku only -------------------------------------------------------------------------

def test_shimo_only_reads_one_shimo_no_ku_per_card_with_the_ma_between():
    order = [1, 15, 3]
    p = Programme.build(VOICE, order, ReadingSettings(read_kami=False, joka=False, ma=1.5))
    sounding = [s for s in p.segments if s.sounding]
    assert len(sounding) == 3
    for seg, no in zip(sounding, order):
        assert seg.clip is VOICE.shimo(no)               # the shimo-no-ku, laid as the card's verse
        assert seg.kind == KAMI and not p.segments_of(SHIMO)
    times = p.card_times()
    for a, b in zip(times, times[1:]):
        assert b.kami_start - a.shimo_end == sec(1.5)   # end of one shimo-no-ku to the next
    for ct in times:
        assert ct.kami_start == ct.shimo_start == p.mark_sample(ct.card_index, "shimo_start")


def test_shimo_only_kimariji_is_the_shimo_no_ku_opening_among_the_cards_still_to_read():
    order = [1, 15, 3]     # 1 and 15 both begin わがころもで (…は / …に)
    p = Programme.build(VOICE, order, ReadingSettings(read_kami=False, joka=False))
    first = shimo_kimariji(1, order)
    assert "".join(first) == "わがころもでわ" and len(first) == 7
    assert p.mark_sample(0, "kimariji") == p.mark_sample(0, f"shimo:mora:{len(first) - 1}")
    # Once 1 is read, 15's shimo-no-ku is decided by its first sound among 15 and 3.
    assert shimo_kimariji(15, [15, 3]) == ["わ"]
    assert p.mark_sample(1, "kimariji") == p.mark_sample(1, "shimo_start")


def test_every_shimo_kimariji_among_all_100_decides_and_is_the_shortest():
    morae = {no: poems.get(no).shimo_morae() for no in range(1, 101)}
    for no in range(1, 101):
        k = shimo_kimariji(no, range(1, 101))
        others = [m for g, m in morae.items() if g != no]
        assert not any(m[:len(k)] == k for m in others)                       # it decides
        assert len(k) == 1 or any(m[:len(k) - 1] == k[:-1] for m in others)   # no shorter one does


def test_kami_only_and_shimo_only_exclude_each_other():
    with pytest.raises(ValueError, match="exclude"):
        ReadingSettings(read_kami=False, read_shimo=False)


# -- karafuda, the study order, replay --------------------------------------------------------

def test_karafuda_come_from_outside_the_set_seeded_and_all_are_read():
    floor = list(range(1, 21))
    cards, extra = with_karafuda(floor, 5, seed=7)
    assert len(extra) == 5 and not set(extra) & set(floor) and sorted(cards) == sorted(floor + extra)
    assert with_karafuda(floor, 5, seed=7) == (cards, extra)
    assert with_karafuda(floor, 5, seed=8)[1] != extra
    s = ReaderSession.new(floor, seed=7, karafuda=5)
    assert sorted(s.order) == sorted(cards) and s.karafuda == extra
    assert all(s.is_karafuda(n) == (n in extra) for n in s.order)
    with pytest.raises(ValueError, match="only 80 poems lie outside"):
        with_karafuda(floor, 81, seed=1)


def test_a_session_without_karafuda_keeps_its_seeded_order():
    assert ReaderSession.new([3, 1, 2], seed=5).order == ReaderSession.new([1, 2, 3], seed=5).order
    import random
    order = [1, 2, 3]
    random.Random(5).shuffle(order)
    assert ReaderSession.new([1, 2, 3], seed=5).order == order


def test_musumefusahose_order_starts_with_the_one_card_sounds_and_grows_by_group_size():
    order = study_order()
    assert sorted(order) == list(range(1, 101))
    assert [poems.get(n).first_sound for n in order[:7]] == list("むすめふさほせ")
    sounds = []
    for n in order:
        if not sounds or sounds[-1] != poems.get(n).first_sound:
            sounds.append(poems.get(n).first_sound)
    assert "".join(sounds) == MNEMONIC          # each sound one block, in the traditional order
    sizes = [sum(poems.get(n).first_sound == snd for n in range(1, 101)) for snd in sounds]
    assert sizes == sorted(sizes)
    # Tomofuda side by side: within あ, by kimariji.
    a = [poems.get(n).kimariji for n in order if poems.get(n).first_sound == "あ"]
    assert a == sorted(a)
    assert study_order([87, 1, 18]) == [87, 18, 1]


def test_replay_reads_the_same_order_from_its_start():
    s = ReaderSession.new(list(range(1, 11)), seed=3, karafuda=2, order="random")
    for no in list(s.order):
        s.mark_read(no)
    again = s.replayed()
    assert again.order == s.order and again.read == 0 and not again.joka_done
    assert again.karafuda == s.karafuda and s.finished          # the original is untouched


def test_sessions_with_the_club_settings_round_trip_and_old_files_still_load():
    s = ReaderSession.new([5, 6, 7], seed=1, karafuda=2, order="musumefusahose",
                          timing=ReadingTiming(shimo_only=True, memorise=15.0))
    assert ReaderSession.from_json(json.loads(json.dumps(s.to_json()))) == s
    old = {"seed": 1, "order": [3, 1], "read": 1, "joka_done": True,
           "timing": {"ma": 1.0, "pause": 1.0, "speed": 1.0, "voice": "synth", "joka": True}}
    back = ReaderSession.from_json(old)
    assert back.karafuda == [] and back.order_name == "random" and back.timing.memorise == 0.0
    for bad, msg in (({"karafuda": [99]}, "karafuda"), ({"order_name": "alpha"}, "order kind"),
                     ({"timing": {"memorise": 600}}, "memorise"), ({"timing": {"shimo_only": 1}}, "shimo")):
        with pytest.raises(ValueError, match=msg):
            ReaderSession.from_json({**old, **bad})


def test_the_synthesised_voice_speaks_the_notices_and_caches_them(tmp_path):
    pytest.importorskip("pyopenjtalk")
    from audio.cache import ClipCache
    from audio.notices import TEXTS, notices_for
    cache = ClipCache(tmp_path / "c")
    clips = notices_for("synth", cache)
    assert set(clips) == set(TEXTS)
    for clip in clips.values():
        assert clip.rate == RATE and 0 < clip.marks["phrase:0"] < clip.marks["end"]
        assert 0.5 < (clip.marks["end"] - clip.marks["phrase:0"]) / RATE < 4.0
    assert len(list((tmp_path / "c").glob("*.clip"))) == 2
    again = notices_for("synth", cache)["start"]           # from the cache (24-bit): the same clip
    assert np.allclose(again.samples, clips["start"].samples, atol=1e-6) and again.marks == clips["start"].marks
    assert notices_for("my-recordings", cache) is None      # an imported voice: tones stand in
