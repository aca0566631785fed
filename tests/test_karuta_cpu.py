"""CPU opponent and the kyogi simulation: levels, reaction model, faults, okurifuda, CPU games."""
from __future__ import annotations

import json
import random
import statistics

import pytest

import poems
from trainer.cli import main
from trainer.players.karuta_cpu import (
    LEVELS, REACTION_FLOOR_MS, Heard, KarutaCPU, identify, kimariji_length, level, shared_opening,
)
from trainer.rules.kyogi import KyogiState, Phase, Read
from trainer.rules.territory import Territory
from trainer.sim import kyogi_sim
from trainer.sim.kyogi_sim import NominalTiming, ProgrammeTiming, heard_for, play_game


def heard(no: int, start: int = 1000, read=()) -> Heard:
    timing = NominalTiming()
    timing.start([no])
    return heard_for(timing, 0, no, tuple(read))


def test_levels_by_name_alias_and_a_clear_error():
    assert level("club").name == "club" and level("A").name == "a-class" and level(" Meijin ")
    with pytest.raises(ValueError, match="levels: beginner"):
        level("grandmaster")
    means = [lv.mu + lv.tau for lv in LEVELS.values()]
    assert means == sorted(means, reverse=True)            # listed from slowest to fastest


def test_fast_kimariji_agrees_with_poems_dynamic():
    rng = random.Random(5)
    for _ in range(40):
        read = rng.sample(range(1, 101), rng.randint(0, 95))
        unread = set(range(1, 101)) - set(read)
        dyn = poems.kimariji.dynamic(read)
        assert {n: kimariji_length(n, unread) for n in unread} == {n: len(k) for n, k in dyn.items()}


def test_the_cpu_identifies_a_poem_by_its_sound_and_knows_tomofuda():
    for p in poems.ALL:
        assert identify(p.kami_morae()) == p.no
    assert shared_opening(87, 18) == 0
    assert kimariji_length(17, range(1, 101)) == 2 and kimariji_length(17, {17, 61}) == 1


def test_kimariji_mark_follows_the_dynamic_kimariji():
    ch = poems.get(17)                                     # ちは: decided by ち once ちぎ* are read
    before = heard(17)
    after = heard(17, read=[42, 75])
    assert after.kimariji_ms < before.kimariji_ms
    assert before.mora_ms[ch.kimariji_mora_count() - 1] == before.kimariji_ms


def test_programme_and_nominal_timing_agree_on_every_mora():
    order = poems.shuffled(3)
    a, b = ProgrammeTiming(), NominalTiming()
    a.start(order)
    b.start(order)
    for index in (0, 1, 50, 99):
        p = poems.get(order[index])
        assert a.onsets(index, p) == b.onsets(index, p)


def state_with(own, opp, read_first) -> KyogiState:
    return KyogiState.new(0, sides=[Territory.arranged(own), Territory.arranged(opp)],
                          yomifuda=[read_first] + [n for n in range(1, 101) if n != read_first])


def test_a_top_cpu_touches_a_known_card_after_its_kimariji():
    s = state_with(range(1, 26), range(26, 51), 5)
    h = heard(5)
    s.apply(Read(h.mora_ms[0], h.kimariji_ms))
    cpu = KarutaCPU("meijin", 0, seed=1)
    times = []
    for _ in range(200):
        t = cpu.touches(s.view(0), h).touches
        final = [x for x in t if x.card == 5]
        assert final and final[-1].time_ms >= h.kimariji_ms + REACTION_FLOOR_MS
        times.append(final[-1].time_ms - h.kimariji_ms)
    assert 150 < statistics.median(times) < 500


def test_stronger_levels_react_faster():
    rng = random.Random(0)
    med = [statistics.median(lv.reaction(rng) for _ in range(2000)) for lv in LEVELS.values()]
    assert med == sorted(med, reverse=True)


def test_cpu_is_deterministic_given_its_seed():
    s = state_with(range(1, 26), range(26, 51), 30)
    h = heard(30)
    s.apply(Read(h.mora_ms[0], h.kimariji_ms))
    a = [KarutaCPU("club", 1, seed=9).touches(s.view(1), h) for _ in range(3)]
    assert a[0] == a[1] == a[2]


def test_karafuda_with_no_similar_card_on_the_floor_is_never_touched():
    # 87 (む) is decided by its first sound: nothing on the floor sounds like it.
    floor = [n for n in range(1, 101) if n != 87 and poems.get(n).first_sound != "む"][:50]
    s = state_with(floor[:25], floor[25:], 87)
    h = heard(87)
    s.apply(Read(h.mora_ms[0], h.kimariji_ms))
    cpu = KarutaCPU("beginner", 0, seed=2)
    assert all(cpu.touches(s.view(0), h).touches == () for _ in range(300))


def test_beginners_fault_on_a_karafuda_that_sounds_like_a_floor_card():
    # ちは (17) read as karafuda while ちぎりお (42) lies on the floor: a true tomofuda pair
    own = [42] + [n for n in range(1, 101) if n not in (17, 42, 75)][:24]
    opp = [n for n in range(1, 101) if n not in own and n not in (17, 75)][:25]
    s = state_with(own, opp, 17)
    h = heard(17)
    s.apply(Read(h.mora_ms[0], h.kimariji_ms))
    beginner, meijin = KarutaCPU("beginner", 0, seed=3), KarutaCPU("meijin", 0, seed=3)
    b = sum(bool(beginner.touches(s.view(0), h).touches) for _ in range(2000))
    m = sum(bool(meijin.touches(s.view(0), h).touches) for _ in range(2000))
    assert b > 2 * m and 0.03 < b / 2000 < 0.35


def test_okurifuda_choice_splits_tomofuda_and_keeps_one_kana_cards():
    own = [87, 42, 75] + [n for n in range(1, 101) if n not in (87, 42, 75, 17)][:22]
    opp = [n for n in range(1, 101) if n not in own and n != 17][:25]
    s = state_with(own, opp, 17)
    cpu = KarutaCPU("meijin", 0, seed=0)                   # knows every card
    send = cpu.choose_send(s.view(0))
    assert send.seat == 0 and send.card in own and send.card != 87
    assert send.card in (42, 75) or kimariji_length(send.card, range(1, 101)) >= 4


def test_cpu_games_play_to_the_end_with_invariants_checked_every_step():
    levels = list(LEVELS)
    winners = [0, 0]
    timing = kyogi_sim.make_timing()
    for k in range(len(levels) ** 2):                    # every pair of levels once
        pair = (levels[k % len(levels)], levels[(k // len(levels)) % len(levels)])
        state = play_game(k, pair, timing, check=True).state
        assert state.is_over() and state.scores()[state.winner()] == 0
        winners[state.winner()] += 1
    assert min(winners) > 0


def test_same_seed_same_cpu_game():
    a = play_game(11, ("club", "strong")).state
    b = play_game(11, ("club", "strong")).state
    assert a.log == b.log
    assert play_game(12, ("club", "strong")).state.log != a.log


def test_simulate_json_aggregates_are_consistent(capsys):
    assert main(["simulate", "kyogi", "--games", "6", "--seed", "1", "--cpu-level", "club,a-class",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert sum(r["wins"]) == 6 and r["levels"] == ["club", "a-class"]
    assert r["cards_read_per_game"]["min"] >= 25 and r["invariants_checked"]
    takes = sum(r["takes_own_side"]) + sum(r["takes_opponent_side"])
    assert takes + r["unclaimed"] + r["karafuda_reads"] == round(r["cards_read_per_game"]["mean"] * 6)


def test_simulate_text_report_and_bad_levels(capsys):
    assert main(["simulate", "kyogi", "--games", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "wins" in out and "karadabu" in out
    assert main(["simulate", "kyogi", "--games", "2", "--cpu-level", "club,wizard"]) == 2
    assert "unknown CPU level" in capsys.readouterr().err
    assert main(["simulate", "kyogi", "--games", "0"]) == 2


def test_nominal_timing_is_the_fallback_without_audio(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_audio(name, *args, **kwargs):
        if name.startswith("audio"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_audio)
    assert isinstance(kyogi_sim.make_timing(), NominalTiming)
    state = play_game(4, ("club", "club"), timing=kyogi_sim.make_timing()).state
    assert state.phase is Phase.OVER


def test_an_anticipation_lands_before_the_kimariji_spread_not_piled_at_one_ms():
    """A hand set off on the mora before the decisive one lands before the mark; one whose travel
    would bring it later is spread over the 100 ms before it by the same draw (it was clamped to
    exactly 1 ms before, and logs showed "-1 ms" takes over and over)."""
    from trainer.players.karuta_cpu import Heard, anticipated_ms
    heard = Heard(("a", "ki", "no"), (0, 400, 800), 900)
    assert anticipated_ms(heard, 2, 100, 200) == 700                  # lands on its own time
    late = [anticipated_ms(heard, 2, commit, 500) for commit in (60, 85, 110, 135, 160)]
    assert late == [899, 874, 849, 824, 799]
    assert all(t < heard.kimariji_ms for t in late)
