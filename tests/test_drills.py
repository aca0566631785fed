"""Drill models: scoring and timing on a fake clock."""
from __future__ import annotations

import pytest

import poems
from trainer.drills import fuda_nagashi as fn
from trainer.drills.common import DrillError, summarise
from trainer.drills.fuda_nagashi import FudaNagashi
from trainer.drills.kami_to_torifuda import KamiToTorifuda
from trainer.drills.kimariji_henka import KimarijiHenka
from trainer.drills.listening_reflex import ListeningReflex
from trainer.drills.positional import PositionalMemory


class FakeClock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


# --- fuda-nagashi ---------------------------------------------------------------------------

def test_fuda_nagashi_scoring_and_timing():
    clock = FakeClock()
    drill = FudaNagashi([87, 44, 17, 1], clock=clock, seed=3)
    assert sorted(drill.order) == [1, 17, 44, 87]
    answers = {87: "mu", 44: "おうこ", 17: "ちはや", 1: "あきの"}  # 17: too long -> wrong
    times = {87: 0.8, 44: 2.0, 17: 1.5, 1: 3.25}
    clock.advance(5)                          # nothing counts before the first card
    while (prompt := drill.show_next()) is not None:
        assert prompt.shown_at == clock.t and not prompt.upside_down
        clock.advance(times[prompt.card])
        result = drill.answer(answers[prompt.card])
        assert result.reaction_ms == pytest.approx(times[prompt.card] * 1000)
        clock.advance(0.5)                    # the card being flipped away: not timed
    assert drill.is_over()
    s = drill.summary()
    assert (s.n, s.n_correct) == (4, 3)
    assert s.mean_ms == pytest.approx(1887.5)
    assert s.total_ms == pytest.approx((0.8 + 2.0 + 1.5 + 3.25 + 0.5 * 3) * 1000)
    assert [r.correct for r in drill.results if r.card == 17] == [False]
    # effective 1887.5 + 3000 / 4 = 2637.5 ms -> C
    assert s.rank == "C"


def test_fuda_nagashi_rank_from_recent_runs():
    from trainer.stats.aggregates import RunSummary
    assert fn.rank_for(1200) == "S" and fn.rank_for(1201) == "A" and fn.rank_for(9000) == "E"
    clock = FakeClock()
    drill = FudaNagashi(range(1, 11), clock=clock, seed=1)
    while (p := drill.show_next()) is not None:
        clock.advance(1.0)
        drill.pick(p.card)
    assert drill.summary().rank == "S"         # 1.0 s, all right
    slow = [RunSummary(i, 0.0, 10, 10, 3000.0) for i in range(4)]
    # (1000 + 4 * 3000) / 5 = 2600 -> C: one fast run does not make a rank
    assert drill.summary(slow).rank == "C"
    assert fn.rank_from_recent([]) is None


def test_fuda_nagashi_orientation_and_misuse():
    clock = FakeClock()
    drill = FudaNagashi(range(1, 41), clock=clock, seed=9, random_orientation=True)
    flips = []
    with pytest.raises(DrillError):
        drill.answer("mu")
    while (p := drill.show_next()) is not None:
        flips.append(p.upside_down)
        with pytest.raises(DrillError):
            drill.show_next()
        drill.pick(99)
    assert 5 < sum(flips) < 35               # seeded, roughly half
    same = FudaNagashi(range(1, 41), clock=clock, seed=9, random_orientation=True)
    assert same.order == drill.order
    with pytest.raises(ValueError):
        FudaNagashi([0, 5], clock=clock)


# --- kami -> torifuda -----------------------------------------------------------------------

def test_kami_to_torifuda_reaction_from_kimariji_mark():
    clock = FakeClock()
    drill = KamiToTorifuda([1, 79, 31, 64], clock=clock, seed=2, n_choices=5)
    rnd = drill.next_round()
    assert rnd.card in rnd.choices and len(set(rnd.choices)) == 5
    # the closest rival is always among the choices
    rival = {1: 79, 79: 1, 31: 64, 64: 31}[rnd.card]
    assert rival in rnd.choices
    with pytest.raises(DrillError, match="being read"):
        drill.touch(rnd.card)
    drill.reading_started(kimariji_at=clock.t + 1.2)   # audio scheduled ahead
    clock.advance(1.2 + 0.345)
    result = drill.touch(rnd.card)
    assert result.correct and result.fault is None
    assert result.reaction_ms == pytest.approx(345.0)

    rnd = drill.next_round()
    drill.reading_started(kimariji_at=clock.t + 1.0)
    clock.advance(0.9)                                   # before the mark: anticipation
    wrong = next(c for c in rnd.choices if c != rnd.card)
    result = drill.touch(wrong)
    assert not result.correct and result.fault == "otetsuki"
    assert result.reaction_ms == pytest.approx(-100.0)

    rnd = drill.next_round()
    drill.reading_started(clock.t)
    result = drill.time_out()
    assert not result.correct and result.reaction_ms is None
    rnd = drill.next_round()
    drill.reading_started(clock.t)
    with pytest.raises(DrillError, match="not among"):
        drill.touch(next(c for c in range(1, 101) if c not in rnd.choices))
    drill.touch(rnd.card)
    assert drill.is_over() and drill.next_round() is None
    assert [r.correct for r in drill.results] == [True, False, False, True]
    done = summarise(drill.results)          # the round let run out was played, not answered
    assert (done.answered, done.timed_out, done.rounds, done.right) == (3, 1, 4, 2)


def test_a_karafuda_left_alone_is_an_answer_and_a_silent_miss_is_not():
    from trainer.drills.common import TrialResult, timed_out
    assert not timed_out(TrialResult("listening_reflex", 5, True, None))      # karafuda, rightly untouched
    assert timed_out(TrialResult("positional", 5, False, None))               # the reading ran out
    assert not timed_out(TrialResult("positional", 5, False, "r1c2"))         # answered wrong


# --- listening reflex -----------------------------------------------------------------------

def _play_reflex(drill, clock, policy):
    while (reading := drill.next_reading()) is not None:
        drill.reading_started(clock.t + 1.0)
        clock.advance(1.0)
        policy(drill, reading, clock)
        clock.advance(2.0)
        drill.reading_over()


def test_listening_reflex_territory_and_karafuda():
    clock = FakeClock()
    drill = ListeningReflex(range(1, 101), clock=clock, seed=5, territory_size=8)
    assert len(drill.territory) == 8 and len(drill.karafuda) == 8
    assert not set(drill.territory) & set(drill.karafuda)
    # karafuda are rivals: each shares at least its first sound with a field card
    firsts = {poems.get(c).listening_key()[0] for c in drill.territory}
    shared = sum(poems.get(c).listening_key()[0] in firsts for c in drill.karafuda)
    assert shared >= 4
    assert sorted(r.card for r in drill.readings) == sorted(drill.territory + drill.karafuda)


def test_listening_reflex_perfect_player():
    clock = FakeClock()
    drill = ListeningReflex(range(1, 101), clock=clock, seed=5, territory_size=6)

    def perfect(d, reading, clock):
        if not reading.karafuda:
            clock.advance(0.25)
            out = d.touch(reading.card)
            assert out.took and out.reaction_ms == pytest.approx(250.0)

    _play_reflex(drill, clock, perfect)
    s = drill.summary()
    assert s.taken == 6 and s.faults == 0 and s.missed == 0
    assert s.mean_reaction_ms == pytest.approx(250.0) and drill.field == []
    assert all(r.correct for r in drill.results)


def test_listening_reflex_faults():
    clock = FakeClock()
    drill = ListeningReflex(range(1, 101), clock=clock, seed=11, territory_size=4, karafuda=4)
    seen = {"kara": 0, "field": 0}

    def sloppy(d, reading, clock):
        if reading.karafuda:
            seen["kara"] += 1
            out = d.touch(d.field[0])                 # touches on a dead card: fault
            assert out.fault == "karafuda" and not out.took
            d.touch(d.field[0])                        # same card again: counted once
        else:
            seen["field"] += 1
            other = next((c for c in d.field if c != reading.card), None)
            if other is not None and seen["field"] == 1:
                assert d.touch(other).fault == "wrong_card"
            clock.advance(0.4)
            assert d.touch(reading.card).took

    _play_reflex(drill, clock, sloppy)
    s = drill.summary()
    assert s.faults == seen["kara"] + 1
    kara_results = [r for r in drill.results if r.card in drill.karafuda]
    assert all(not r.correct and r.fault == "karafuda" for r in kara_results)
    first_field = next(r for r in drill.results if r.card in drill.territory)
    assert not first_field.correct and first_field.fault == "wrong_card"
    assert first_field.reaction_ms == pytest.approx(400.0)  # the take still timed
    assert s.taken == 4


def test_listening_reflex_limits():
    clock = FakeClock()
    with pytest.raises(DrillError, match="4 to 12"):
        ListeningReflex(range(1, 101), clock=clock, territory_size=13)
    with pytest.raises(DrillError, match="at least 8"):
        ListeningReflex([1, 2, 3], clock=clock, territory_size=8)


def test_listening_reflex_missed_card():
    clock = FakeClock()
    drill = ListeningReflex(range(1, 101), clock=clock, seed=1, territory_size=4, karafuda=0)
    drill.next_reading()
    drill.reading_started(clock.t)
    result = drill.reading_over()
    assert not result.correct and result.reaction_ms is None and result.fault is None
    assert drill.summary().missed == 1


# --- kimariji henka -------------------------------------------------------------------------

def test_kimariji_henka_answers_follow_dynamic_kimariji():
    clock = FakeClock()
    drill = KimarijiHenka([17, 1, 31, 87], clock=clock, seed=4, field_size=4,
                          reads_per_round=6, rounds=2)
    changed_any = False
    while (rnd := drill.next_round()) is not None:
        assert not set(rnd.read_now) & set(rnd.field)
        expected = drill.ask()
        current = poems.kimariji.dynamic(rnd.read_so_far)
        for e in expected:
            assert e.kimariji == current[e.card]
            assert len(e.kimariji) <= len(e.static)
            changed_any |= e.changed
            clock.advance(1.5)
            right = drill.answer(e.card, e.kimariji)
            assert right.correct and right.reaction_ms == pytest.approx(1500.0)
        with pytest.raises(DrillError, match="already answered"):
            drill.answer(expected[0].card, "x")
    assert drill.is_over() and changed_any
    assert len(drill.results) == 8


def test_kimariji_henka_static_answer_is_wrong_after_a_change():
    clock = FakeClock()
    drill = KimarijiHenka([17], clock=clock, seed=0, field_size=1, reads_per_round=1,
                          rounds=1, already_read=[42, 75])   # ちぎりきな, ちぎりおきし
    drill.next_round()
    (e,) = drill.ask()
    assert e.changed and (e.static, e.kimariji) == ("ちは", "ち")
    assert not drill.answer(17, "ちは").correct
    assert drill.results[0].answer == "ちは"


# --- positional memory ----------------------------------------------------------------------

def test_positional_memorise_then_recall():
    clock = FakeClock()
    drill = PositionalMemory(range(1, 101), clock=clock, seed=6, n_cards=7,
                             memorise_s=20.0, karafuda=2)
    layout = dict(drill.layout)
    assert len(layout) == 7 and drill.rows == 3 and drill.columns == 4
    with pytest.raises(DrillError, match="not started"):
        _ = drill.face_down
    drill.start()
    assert set(drill.visible().values()) == set(layout.values())
    clock.advance(19.9)
    assert not drill.face_down and drill.seconds_left == pytest.approx(0.1)
    with pytest.raises(DrillError, match="face up"):
        drill.next_reading()
    clock.advance(0.1)
    assert drill.face_down and all(v is None for v in drill.visible().values())

    where = {card: slot for slot, card in layout.items()}
    outcomes = []
    first_field = True
    while (reading := drill.next_reading()) is not None:
        drill.reading_started(clock.t + 1.0)
        clock.advance(1.6)
        if reading.karafuda:
            outcomes.append(drill.reading_over())
        elif first_field:                    # a wrong place once
            first_field = False
            wrong = next(s for s in drill.layout if s != where[reading.card])
            outcomes.append(drill.touch(wrong))
        else:
            outcomes.append(drill.touch(where[reading.card]))
    assert drill.is_over() and drill.layout == {}
    field = [o for o in outcomes if o.card in where]
    kara = [o for o in outcomes if o.card not in where]
    # the drill ends when the field is empty: a karafuda due after that is not read
    assert len(field) == 7 and 1 <= len(kara) <= 2
    assert [o.correct for o in field] == [False] + [True] * 6
    assert field[0].fault == "wrong_place"
    assert all(o.reaction_ms == pytest.approx(600.0) for o in field)
    assert all(o.correct and o.fault is None for o in kara)


def test_positional_ready_early_and_karafuda_touch():
    clock = FakeClock()
    drill = PositionalMemory(range(1, 101), clock=clock, seed=2, n_cards=3,
                             memorise_s=60.0, karafuda=3)
    drill.start()
    clock.advance(5)
    drill.ready()
    assert drill.face_down
    while (reading := drill.next_reading()) is not None:
        drill.reading_started(clock.t)
        if reading.karafuda:
            r = drill.touch(next(iter(drill.layout)))
            assert not r.correct and r.fault == "karafuda"
        else:
            drill.touch(drill.place_of(reading.card))
    assert drill.layout == {}


def test_best_reaction_leaves_anticipations_out():
    from trainer.drills.common import REACTION_FLOOR_MS, best_reaction
    assert REACTION_FLOOR_MS == 100.0
    assert best_reaction([-40.0, 60.0, 312.0, 455.0, None]) == (312.0, 2)
    assert best_reaction([-5.0]) == (None, 1)
    assert best_reaction([]) == (None, 0)


def test_listening_reflex_best_is_not_an_anticipation():
    clock = FakeClock()
    drill = ListeningReflex(range(1, 101), clock=clock, seed=5, territory_size=4, karafuda=0)
    early = iter([-0.05, 0.04, 0.31, 0.42])     # before the mark, 40 ms, then real takes

    def player(d, reading, clock):
        d.touch(reading.card, at=d.kimariji_at + next(early))

    _play_reflex(drill, clock, player)
    s = drill.summary()
    assert s.taken == 4 and s.anticipations == 2
    assert s.best_reaction_ms == pytest.approx(310.0)


def test_a_disturbed_answer_is_in_no_mean_and_no_best_but_is_counted_as_answered():
    """Issue 23: the sound stuttered in one race: its answer still counts as right, its
    time is in neither figure, and the summary says one was left out."""
    from trainer.drills.common import TrialResult, mark_disturbed, summarise
    results = [TrialResult("kami_to_torifuda", 1, True, "1", 300.0),
               TrialResult("kami_to_torifuda", 2, True, "2", 120.0),
               TrialResult("kami_to_torifuda", 3, True, "3", 500.0)]
    mark_disturbed(results, results[1], "underflow")
    assert results[1].disturbed == "underflow"
    done = summarise(results)
    assert (done.right, done.answered, done.mean_ms, done.best_ms, done.disturbed) == (3, 3, 400.0, 300.0, 1)
