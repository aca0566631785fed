"""The race client's state without Qt or a server (`trainer.online.race`, `trainer.text.online_race`):
the touch message, the statistics trial of a judged read as a local match records one, and the
judgement worded in both languages."""
from __future__ import annotations

import pytest

from trainer.online.race import KAMI, MA, SHIMO, FloorRaceState, RaceRead, RaceState
from trainer.server.race_protocol import PARTS, canonical_time
from trainer.text.messages import tr_in
from trainer.text.online_race import judged_line, rating_text, result_text

READ = {"type": "race.read", "table": "r00000001", "read": 3, "poem": 10, "mora": 1, "kimariji": "これ",
        "start_at": 100.0, "speed": 2.0, "kimariji_s": 0.4, "kami_s": 3.0, "card_s": 7.0, "ma_s": 1.0}


def judged(**kw):
    frame = {"type": "race.judged", "table": "r00000001", "read": 3, "poem": 10, "taker": 0,
             "reaction_ms": [312, None], "faults": [], "karafuda": False, "stalled": [], "fast": [],
             "timed_out": False, "sides": [[1, 2], [3]], "left": [2, 1], "owing": None}
    return {**frame, **kw}


def started(seat=0):
    race = RaceState("r00000001")
    race.apply({"type": "race.start", "table": "r00000001", "seat": seat, "sides": [[1, 2, 10], [3]],
                "names": ["emi", "ken"], "speed": 2.0, "cards": 3, "karafuda": 0, "floor_ms": 100, "rated": True,
                "offset_ms": 3.0, "error_ms": 0.5})
    race.apply(READ)
    return race


def test_a_read_gives_the_touch_message_the_server_places():
    read = RaceRead.of(READ)
    assert read.kimariji_at == pytest.approx(100.2)             # start + kimariji_s / speed
    assert [read.programme_part(t) for t in (0.5, 3.5, 7.5)] == [KAMI, SHIMO, MA]
    assert (KAMI, SHIMO, MA) == PARTS[:3]
    msg = read.touch(10, 312.0004, 100.512, KAMI, False)
    assert msg == {"table": "r00000001", "read": 3, "card": 10, "reaction_ms": 312.0, "stamp": 100.512,
                   "part": "kami", "stall": False}
    from trainer.server.race_protocol import ReadTimes
    times = ReadTimes(0.0, 0.4, 3.0, 7.0, 8.0)
    assert canonical_time(times, msg["reaction_ms"], msg["part"]) == pytest.approx(0.712)


def test_frames_of_another_table_are_not_taken():
    race = started()
    assert not race.apply({**judged(), "table": "r99999999"})
    assert race.judged == [] and race.open_read is not None


def test_each_judged_read_becomes_the_trial_a_local_match_records():
    race = started()
    race.touched(3, 10, 311.6)
    take = race.record_of(judged())
    assert (take.card, take.correct, take.answer, take.reaction_ms, take.fault) == (10, True, "take", 312.0, None)
    lost = started(seat=1)
    lost.touched(3, 10, 420.0)
    late = lost.record_of(judged())
    assert (late.correct, late.answer, late.reaction_ms) == (False, "late", 420.0)
    assert started(seat=1).record_of(judged()).answer == "missed"
    fault = started(seat=1).record_of(judged(faults=[[1, "otetsuki"]], reaction_ms=[312, 250]))
    assert (fault.answer, fault.fault, fault.reaction_ms) == ("fault", "otetsuki", 250.0)
    assert started().record_of(judged(karafuda=True, taker=None, reaction_ms=[None, None])) is None
    watcher = RaceState("r00000001")
    assert watcher.record_of(judged()) is None


def floor_judged(**kw):
    frame = {"type": "race.judged", "table": "r00000001", "read": 3, "poem": 10, "kimariji": "これ",
             "taker": 2, "taker_ms": 280, "reaction_ms": [None, None, None], "faulted": [], "raced": [0, 1, 2],
             "scores": [0, 0, 1], "owing": None, "stalled": [], "fast": [], "timed_out": False}
    return {**frame, **kw}


def floor_seat(seat=0):
    race = FloorRaceState("r00000001")
    race.apply({"type": "race.start", "table": "r00000001", "game": "chirashi", "seat": seat,
                "names": ["emi", "ken", "CPU"], "cpus": [2], "speed": 1, "floor_ms": 100, "verse": "kami",
                "reach": None})
    return race


def test_a_floor_read_is_a_trial_only_when_the_seat_raced_it():
    """``raced`` tells a miss from sitting the card out (after a chirashi fault, off turn in relay)."""
    race = floor_seat()
    race.touched(3, 10, 250.0)
    take = race.record_of(floor_judged(taker=0, taker_ms=251, reaction_ms=[251, None, None]))
    assert (take.card, take.correct, take.answer, take.reaction_ms, take.fault) == (10, True, "take", 251.0, None)
    fault = floor_seat().record_of(floor_judged(faulted=[0], reaction_ms=[120, None, None]))
    assert (fault.correct, fault.answer, fault.reaction_ms, fault.fault) == (False, "fault", 120.0, "otetsuki")
    late = floor_seat()
    late.touched(3, 10, 400.0)
    assert (late.record_of(floor_judged()).answer, late.record_of(floor_judged()).reaction_ms) == ("late", 400.0)
    missed = floor_seat().record_of(floor_judged())
    assert (missed.answer, missed.reaction_ms) == ("missed", None)
    assert floor_seat().record_of(floor_judged(raced=[1, 2])) is None        # sat out: no trial
    assert floor_seat().record_of({k: v for k, v in floor_judged().items() if k != "raced"}) is None
    assert FloorRaceState("r00000001").record_of(floor_judged()) is None     # a spectator


def test_okurifuda_owed_to_this_seat_until_sent():
    race = started()
    race.apply({"type": "race.okuri", "table": "r00000001", "seat": 0, "cards": 1, "side": [1, 2]})
    assert race.okuri is not None
    race.apply({"type": "race.sides", "table": "r00000001", "sides": [[2], [1, 3]], "owing": None})
    assert race.okuri is None and race.left == [1, 2]
    race.apply({"type": "race.done"})
    race.done.add(3)
    assert race.open_read is None


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_judgement_is_worded_from_each_side(lang, monkeypatch):
    from trainer.text import messages
    monkeypatch.setattr(messages, "tr", lambda key, **kw: tr_in(lang, key, **kw))
    import trainer.text.online_race as T
    monkeypatch.setattr(T, "tr", lambda key, **kw: tr_in(lang, key, **kw))
    monkeypatch.setattr("trainer.text.kyogi.tr", lambda key, **kw: tr_in(lang, key, **kw))
    you, ken = tr_in(lang, "race.online.you"), "ken"
    frame = judged(reaction_ms=[312, 96], taker=1, faults=[[0, "otetsuki"]], fast=[1], stalled=[0])
    mine = judged_line(frame, 0, ["emi", "ken"], "これ")
    assert mine.startswith("  3. これ（10） → ken +96 ms")
    assert f"{you} {tr_in(lang, 'match.fault', ms='+312')}" in mine
    assert f"[{you}: {tr_in(lang, 'fault.otetsuki')}]" in mine
    assert tr_in(lang, "race.online.stalled", who=you) in mine
    assert tr_in(lang, "race.online.fast", ms="100", who=ken) in mine
    theirs = judged_line(frame, 1, ["emi", "ken"], "これ")
    assert f"→ {you} +96 ms" in theirs and "emi" in theirs
    over = {"type": "race.over", "winner": 1, "by": "resignation", "left": [3, 1]}
    assert result_text(over, 0, ["emi", "ken"]).startswith(
        tr_in(lang, "race.online.over", winner=ken, by=tr_in(lang, "race.online.by.resignation")))
    assert rating_text({"rating": 1532.4, "change": -12.6}) == tr_in(lang, "race.online.rating", rating="1532",
                                                                       change="\u221213")
