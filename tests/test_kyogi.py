"""Kyogi rules engine: one named test per rule statement, then random play to the end.

Seat 0 holds poems 1..25, seat 1 holds 26..50 unless a test says otherwise; 51..100
are karafuda. Reads start at 1000 ms with the kimariji mark at 2000 ms.
"""
from __future__ import annotations

import random

import pytest

from trainer.rules.kyogi import (
    CARDS_PER_SIDE, Arrange, FaultKind, IllegalAction, Judged, KyogiState, Move, Phase, Read, Rules,
    Send, Touch, Touches, deal,
)
from trainer.rules.territory import COLUMNS, LayoutError, Place, Territory, floor_cell

SEAT0 = list(range(1, 26))
SEAT1 = list(range(26, 51))
START, MARK = 1000, 2000


def make(first_reads=(), cards=(SEAT0, SEAT1), rules=Rules()) -> KyogiState:
    first = list(first_reads)
    rest = [n for n in range(1, 101) if n not in first]
    return KyogiState.new(0, cards=cards, yomifuda=first + rest, rules=rules)


def race(state: KyogiState, t0=(), t1=(), start=START, mark=MARK):
    """Read the next card and report both seats' touches as (card, ms) pairs."""
    state.apply(Read(start, mark))
    state.apply(Touches(0, tuple(Touch(c, t) for c, t in t0)))
    events = state.apply(Touches(1, tuple(Touch(c, t) for c, t in t1)))
    judged = [e for e in events if isinstance(e, Judged)]
    assert len(judged) == 1 and judged[0].outcome is state.outcomes[-1]
    return judged[0].outcome


def fault_kinds(outcome):
    return {f.seat: f.kind for f in outcome.faults}


# -- setup ---------------------------------------------------------------------------------------

def test_deal_gives_25_each_and_leaves_50_karafuda_all_100_read():
    a, b = deal(7)
    assert len(a) == len(b) == CARDS_PER_SIDE and not set(a) & set(b)
    s = KyogiState.new(7)
    assert s.scores() == (25, 25)
    assert len(s.karafuda) == 50 and not s.karafuda & s.in_play
    assert sorted(s.reader_order()) == list(range(1, 101))
    assert deal(7) == deal(7) and deal(7) != deal(8)


def test_explicit_cards_and_arrangements_are_used():
    s = make()
    assert sorted(s.side(0).cards()) == SEAT0
    side = Territory([((1, 2), (3,)), ((), tuple(range(4, 12))), (tuple(range(12, 26)), ())])
    s2 = KyogiState.new(0, sides=[side, Territory.arranged(SEAT1)])
    assert s2.side(0) == side
    with pytest.raises(ValueError):
        KyogiState.new(0, cards=(SEAT0[:24], SEAT1))
    with pytest.raises(ValueError):
        KyogiState.new(0, cards=(SEAT0, SEAT0))


# -- takes -----------------------------------------------------------------------------------------

def test_take_from_own_side_moves_nothing_else():
    s = make([5])
    o = race(s, t0=[(5, 2300)])
    assert (o.taker, o.owner, o.cards_owed) == (0, 0, 0)
    assert s.taken(0) == (5,) and s.scores() == (24, 25) and s.phase is Phase.AWAIT_READ
    assert o.reaction_ms == (300, None)


def test_take_from_opponent_side_taker_chooses_okurifuda():
    s = make([30])
    o = race(s, t0=[(30, 2300)], t1=[(30, 2400)])
    assert o.taker == 0 and o.take_from_opponent and (o.giver, o.cards_owed) == (0, 1)
    assert s.phase is Phase.OKURI and s.owing == (0, 1, 1)
    assert s.legal_actions(1) == []
    assert {a.card for a in s.legal_actions(0)} == set(SEAT0)
    with pytest.raises(IllegalAction):
        s.apply(Send(1, 26))
    s.apply(Send(0, 17))
    assert 17 in s.side(1) and 17 not in s.side(0)
    assert s.scores() == (24, 25) and s.phase is Phase.AWAIT_READ


def test_first_touch_takes_the_card():
    s = make([5])
    o = race(s, t0=[(5, 2301)], t1=[(5, 2300)])
    assert o.taker == 1 and not o.simultaneous


def test_simultaneous_touches_go_to_the_owner_of_the_side():
    s = make([5, 30])
    o = race(s, t0=[(5, 2300)], t1=[(5, 2300)])
    assert o.taker == 0 and o.simultaneous and o.cards_owed == 0
    o = race(s, t0=[(30, 13300)], t1=[(30, 13300)], start=12000, mark=13000)
    assert o.taker == 1 and o.simultaneous


def test_simultaneous_window_is_a_rule_setting():
    s = make([5], rules=Rules(simultaneous_ms=20))
    o = race(s, t0=[(5, 2315)], t1=[(5, 2300)])
    assert o.taker == 0 and o.simultaneous


def test_nobody_touches_the_read_card_owner_puts_it_aside():
    s = make([5])
    o = race(s)
    assert o.unclaimed and o.taker is None and s.unclaimed == (5,) and s.scores() == (24, 25)


def test_reaction_before_the_kimariji_mark_is_negative():
    s = make([5])
    o = race(s, t0=[(5, 1900)])
    assert o.taker == 0 and o.reaction_ms[0] == -100


# -- faults ----------------------------------------------------------------------------------------

def test_touching_the_territory_without_the_read_card_is_a_fault():
    s = make([5])
    o = race(s, t1=[(30, 2200)], t0=[(5, 2500)])   # 5 is on seat 0's side; seat 1 touched its own
    assert fault_kinds(o) == {1: FaultKind.WRONG_SIDE}
    assert (o.giver, o.cards_owed) == (0, 1)        # the opponent of the faulter sends one
    s.apply(Send(0, 9))
    assert 9 in s.side(1) and s.scores() == (23, 26)


def test_wrong_card_in_the_territory_with_the_read_card_is_not_a_fault():
    s = make([5])
    o = race(s, t1=[(6, 2200), (7, 2210), (5, 2400)], t0=[(5, 2500)])
    assert o.faults == () and o.taker == 1 and o.owner == 0
    assert (o.giver, o.cards_owed) == (1, 1)        # just the okurifuda


def test_any_touch_during_a_karafuda_is_a_fault():
    s = make([77])
    o = race(s, t0=[(12, 2100)])
    assert o.karafuda and fault_kinds(o) == {0: FaultKind.KARAFUDA}
    assert (o.giver, o.cards_owed) == (1, 1)
    s.apply(Send(1, 40))
    assert s.scores() == (26, 24) and s.read == (77,)


def test_karadabu_touching_both_territories_on_a_karafuda_costs_two():
    s = make([77])
    o = race(s, t0=[(12, 2100), (33, 2150)])
    assert fault_kinds(o) == {0: FaultKind.KARADABU} and o.faults[0].penalty == 2
    assert (o.giver, o.cards_owed) == (1, 2)
    s.apply(Send(1, 40))
    assert s.phase is Phase.OKURI and s.owing == (1, 0, 1)
    s.apply(Send(1, 41))
    assert s.scores() == (27, 23)


def test_double_fault_dabu_opponent_takes_from_own_side_while_faulting_costs_two():
    s = make([5])                                   # on seat 0's side
    o = race(s, t0=[(30, 2200)], t1=[(5, 2300)])    # seat 0 touches seat 1's side; seat 1 takes 5
    assert fault_kinds(o) == {0: FaultKind.DOUBLE} and o.taker == 1
    assert (o.giver, o.cards_owed) == (1, 2)
    s.apply(Send(1, 26))
    s.apply(Send(1, 27))
    assert s.scores() == (26, 23)


def test_both_players_faulting_cancel_out():
    s = make([77])
    o = race(s, t0=[(3, 2100)], t1=[(40, 2120)])
    assert set(fault_kinds(o)) == {0, 1} and o.cancelled and o.cards_owed == 0 and o.giver is None
    assert s.scores() == (25, 25) and s.phase is Phase.AWAIT_READ


def test_wrong_side_faults_by_both_cancel_and_the_card_is_still_taken():
    s = make([5])
    o = race(s, t0=[(30, 2100), (5, 2400)], t1=[(31, 2150)])
    assert o.cancelled and o.taker == 0 and o.cards_owed == 0 and s.scores() == (24, 25)


def test_take_from_opponent_side_with_own_fault_sends_nothing_torizon():
    s = make([30])                                   # on seat 1's side
    o = race(s, t0=[(3, 2100), (30, 2300)])          # seat 0 touched its own side first, then took 30
    assert fault_kinds(o) == {0: FaultKind.WRONG_SIDE} and o.taker == 0
    assert o.cancelled and o.cards_owed == 0 and s.scores() == (25, 24)


def test_take_from_own_side_with_own_fault_receives_one():
    s = make([5])
    o = race(s, t0=[(30, 2100), (5, 2300)])
    assert o.taker == 0 and (o.giver, o.cards_owed) == (1, 1)


def test_touch_after_the_card_is_taken_is_not_a_fault():
    s = make([5])
    o = race(s, t0=[(5, 2300)], t1=[(30, 2350)])
    assert o.faults == () and o.cards_owed == 0


def test_several_touches_in_one_territory_count_as_one_fault():
    s = make([77])
    o = race(s, t0=[(1, 2100), (2, 2110), (3, 2120)])
    assert o.faults[0].penalty == 1 and o.cards_owed == 1


def test_touch_before_the_reading_starts_is_a_fault():
    s = make([5])
    o = race(s, t0=[(5, 900)], t1=[(5, 2500)])
    assert fault_kinds(o) == {0: FaultKind.EARLY} and o.taker == 1
    assert (o.giver, o.cards_owed) == (1, 2)         # okurifuda for the take + the fault


# -- the end -------------------------------------------------------------------------------------------

def test_game_ends_when_a_side_is_empty_and_that_player_wins():
    s = make(SEAT0)
    for k, card in enumerate(SEAT0):
        assert not s.is_over()
        race(s, t0=[(card, 2300 + 10000 * k)], start=START + 10000 * k, mark=MARK + 10000 * k)
    assert s.is_over() and s.winner() == 0 and s.scores() == (0, 25)
    assert s.legal_actions(0) == [] and s.log[-1].kind == "end"
    with pytest.raises(IllegalAction):
        s.apply(Read(10**7, 10**7))


def test_unmei_sen_taking_from_the_opponent_side_wins():
    s = KyogiState.new(0, sides=[Territory([((5,), ()), ((), ()), ((), ())]),
                                 Territory([((30,), ()), ((), ()), ((), ())])],
                       yomifuda=[30] + [n for n in range(1, 101) if n != 30])
    o = race(s, t0=[(30, 2300)])
    assert o.cards_owed == 1
    s.apply(Send(0, 5))
    assert s.is_over() and s.winner() == 0 and s.scores() == (0, 1)


def test_a_fault_penalty_can_empty_the_senders_side_and_win():
    s = KyogiState.new(0, sides=[Territory([((5,), ()), ((), ()), ((), ())]),
                                 Territory.arranged(SEAT1)],
                       yomifuda=list(range(51, 101)) + list(range(1, 51)))
    race(s, t1=[(30, 2100)])                          # seat 1 faults on a karafuda
    s.apply(Send(0, 5))
    assert s.is_over() and s.winner() == 0


def test_owing_more_cards_than_left_sends_what_there_is():
    s = KyogiState.new(0, sides=[Territory([((5,), ()), ((), ()), ((), ())]),
                                 Territory.arranged(SEAT1)],
                       yomifuda=list(range(51, 101)) + list(range(1, 51)))
    o = race(s, t1=[(30, 2100), (5, 2120)])         # karadabu: seat 0 owes 2 but has 1
    assert o.cards_owed == 1
    s.apply(Send(0, 5))
    assert s.is_over() and s.winner() == 0 and s.scores() == (0, 26)


def test_taking_the_last_own_card_wins_even_if_the_opponent_faulted():
    s = KyogiState.new(0, sides=[Territory([((5,), ()), ((), ()), ((), ())]),
                                 Territory.arranged(SEAT1)],
                       yomifuda=[5, 99] + [n for n in range(1, 101) if n not in (5, 99)])
    o = race(s, t0=[(5, 2300)], t1=[(30, 2100)])
    assert o.cards_owed == 0 and s.is_over() and s.winner() == 0


# -- rearranging and the layout -------------------------------------------------------------------------

def test_rearranging_own_side_between_reads_is_logged_and_public():
    s = make([5])
    s.apply(Move(0, 1, Place(2, "right", 0)))
    assert s.side(0).locate(1) == Place(2, "right", 0)
    assert s.log[-1].kind == "move" and s.view(1).side(0).locate(1) == Place(2, "right", 0)
    with pytest.raises(IllegalAction):
        s.apply(Move(0, 30, Place(0, "left", 0)))       # not one's own card
    s.apply(Read(START, MARK))
    with pytest.raises(IllegalAction):
        s.apply(Move(0, 2, Place(0, "left", 0)))        # not during a read


def test_arrange_replaces_the_layout_with_the_same_cards_only():
    s = make()
    new = Territory.arranged(list(reversed(SEAT0)))
    s.apply(Arrange(0, new.rows()))
    assert s.side(0) == new
    with pytest.raises(IllegalAction):
        s.apply(Arrange(0, Territory.arranged(SEAT1).rows()))


def test_territory_rows_capacity_columns_and_json():
    t = Territory.arranged(range(1, 26))
    assert [len(left) + len(right) for left, right in t.rows()] == [8, 8, 9]
    assert Territory.from_json(t.to_json()) == t
    slots = {c: (r, col) for c, r, col in t.slots()}
    assert len(set(slots.values())) == 25 and all(0 <= col < COLUMNS for _, col in slots.values())
    with pytest.raises(LayoutError):
        Territory([(tuple(range(1, 18)), ()), ((), ()), ((), ())])
    with pytest.raises(LayoutError):
        Territory.from_json({"rows": "nope"})
    full = Territory([(tuple(range(1, 9)), tuple(range(9, 17))), ((17,), ()), ((), ())])
    with pytest.raises(LayoutError):
        full.move(17, Place(0, "left", 0))
    assert full.locate(17) == Place(1, "left", 0)      # a refused move leaves the card in place
    assert floor_cell(0, 0, 0, 3) == (3, 3) and floor_cell(0, 1, 0, 3) == (2, 12)


def test_illegal_actions_are_refused_with_a_message():
    s = make([5])
    with pytest.raises(IllegalAction, match="being read"):
        s.apply(Touches(0, ()))
    with pytest.raises(IllegalAction):
        s.apply(Read(2000, 1000))                       # mark before start
    s.apply(Read(START, MARK))
    with pytest.raises(IllegalAction, match="not on the floor"):
        s.apply(Touches(0, (Touch(77, 2000),)))
    s.apply(Touches(0, ()))
    with pytest.raises(IllegalAction, match="already"):
        s.apply(Touches(0, ()))
    with pytest.raises(IllegalAction):
        s.apply(Read(START, MARK))
    with pytest.raises(IllegalAction):
        s.apply(Send(0, 1))


# -- hidden information ------------------------------------------------------------------------------

def test_view_never_reveals_future_reads_or_the_card_being_read():
    """Two matches that differ only in the reader's stack ahead look the same to both seats."""
    first = [5, 77, 30]
    a = make(first + [10, 60], )
    b = make(first + [99, 41])
    for s in (a, b):
        race(s, t0=[(5, 2300)])
        race(s, start=11000, mark=12000)
        race(s, t1=[(30, 22300)], start=21000, mark=22000)
    for seat in (0, 1):
        assert a.view(seat) == b.view(seat)
    a.apply(Read(31000, 32000))                         # now 10 is being read in a, 99 in b
    b.apply(Read(31000, 32000))
    for seat in (0, 1):
        assert a.view(seat) == b.view(seat)
        assert a.view(seat).current.kimariji_ms == 32000
    assert "reader" not in " ".join(vars(a.view(0)))


# -- random play to the end ---------------------------------------------------------------------------

def random_game(seed: int) -> KyogiState:
    rng = random.Random(seed)
    s = KyogiState.new(seed, rules=Rules(simultaneous_ms=rng.choice((0, 5))))
    t = 0
    while not s.is_over():
        if s.phase is Phase.AWAIT_READ:
            if rng.random() < 0.1:
                s.apply(rng.choice(s.legal_actions(rng.randrange(2))))
                s.check_invariants()
                continue
            t += 10_000
            s.apply(Read(t, t + rng.randint(200, 1800)))
        elif s.phase is Phase.TOUCHES:
            floor = s.side(0).cards() + s.side(1).cards()
            poem = s.reading_now()
            for seat in (0, 1):
                touches = []
                if poem in floor and rng.random() < 0.8:
                    touches.append(Touch(poem, t + rng.randint(900, 2500)))
                for _ in range(rng.choice((0, 0, 0, 1, 2))):
                    touches.append(Touch(rng.choice(floor), t + rng.randint(-200, 2500)))
                s.apply(Touches(seat, tuple(touches)))
        else:
            s.apply(rng.choice(s.legal_actions(s.owing[0])))
        s.check_invariants()
    return s


def _random_games_keep_the_invariants(games: int) -> list[int]:
    winners = [0, 0]
    for seed in range(games):
        s = random_game(seed)
        winners[s.winner()] += 1
        assert s.scores()[s.winner()] == 0
    return winners


def test_random_games_play_to_the_end_with_invariants():
    assert min(_random_games_keep_the_invariants(100)) > 25        # both seats can win


@pytest.mark.slow
def test_a_thousand_random_games_play_to_the_end_with_invariants():
    """Kyōgi's one large whole-game loop (the session, CPU and UI tests play a few)."""
    assert min(_random_games_keep_the_invariants(1000)) > 250


def test_same_seed_same_log():
    a, b = random_game(42), random_game(42)
    assert a.log == b.log and a.outcomes == b.outcomes
    assert random_game(43).log != a.log


def test_a_full_side_receives_no_card_and_a_send_loses_none():
    """48 cards fill a side (3 rows of 16): a 49th is not owed, and no card is ever lost."""
    full = list(range(1, 49))
    s = KyogiState.new(0, sides=[Territory.arranged(full), Territory.arranged([60, 61, 62])],
                       yomifuda=[5, 99] + [n for n in range(1, 101) if n not in (5, 99)])
    o = race(s, t0=[(5, 2300), (60, 2200)])     # seat 0 faults on seat 1's side, then takes
    assert fault_kinds(o) == {0: FaultKind.WRONG_SIDE}
    assert s.scores() == (47, 3) and s.phase is Phase.OKURI and s.owing == (1, 0, 1)   # room for one
    with pytest.raises(IllegalAction):
        s.apply(Send(0, 6))                     # not the giver
    s.apply(Send(1, 60))
    assert s.scores() == (48, 2) and s.phase is Phase.AWAIT_READ
    s.check_invariants()
    # Full now: a fault of seat 0 (a karafuda) owes it a card it cannot hold; nothing moves.
    o = race(s, t0=[(61, 12000)], start=11000, mark=11500)
    assert fault_kinds(o) == {0: FaultKind.KARAFUDA} and o.cards_owed == 0
    assert s.scores() == (48, 2) and s.phase is Phase.AWAIT_READ
    s.check_invariants()


def test_read_times_only_move_forward():
    s = make([5, 6])
    race(s, t0=[(5, 2300)])
    with pytest.raises(IllegalAction):
        s.apply(Read(START - 1, MARK))
    assert s.phase is Phase.AWAIT_READ and s.current_read() is None
    s.apply(Read(START, MARK))                   # the same time is allowed (a zero-length ma)
