"""Every rule statement of issue 6 / seed 000 (Mubeyama karuta), one test each."""
from __future__ import annotations

import pytest

from poems.yaku import SEED
from test_mubeyama_helpers import PLAIN, face_up, game, holder, read_and_flip
from trainer.players.mubeyama_cpu import MubeyamaCpu
from trainer.rules.mubeyama import (AwaitFlip, AwaitPass, AwaitRead, Flip, Gambling4,
                                    Gambling5, IllegalAction, Izumoji, LayoutError, Okayama, Pass,
                                    Read, Stakes, new_game)


# =========================================================================== Okayama

def test_okayama_four_players_get_25_torifuda_in_a_5x5_grid():
    g = new_game(Okayama(), 4, seed=7)
    for t in g.tables:
        assert [len(r) for r in t.rows] == [5] * 5
        assert t.face_up == set(t.cards())
    assert g.unused == ()
    assert sorted(no for t in g.tables for no in t.cards()) == list(range(1, 101))


def test_okayama_six_players_get_16_torifuda_in_a_4x4_grid_4_unused():
    g = new_game(Okayama(), 6, seed=7)
    for t in g.tables:
        assert [len(r) for r in t.rows] == [4] * 4
    assert len(g.unused) == 4
    assert sorted([*g.unused, *(no for t in g.tables for no in t.cards())]) == list(range(1, 101))


@pytest.mark.parametrize("players", [3, 5, 7])
def test_okayama_other_player_counts_are_refused(players):
    with pytest.raises(LayoutError, match="okayama is played by 4 or 6 players"):
        new_game(Okayama(), players)


def _okayama_line(players, slots):
    """Seat 1 holds PLAIN cards; flip exactly *slots* of its grid (the last one wins)."""
    g = game(Okayama(), players, {1: PLAIN[:Okayama.side(players) ** 2]})
    cards = g.tables[1].cards()
    for slot in slots:
        assert not g.is_over(), f"won too early, before slot {slot}"
        read_and_flip(g, cards[slot])
    return g


def test_okayama_row_line_wins():
    g = _okayama_line(4, [10, 11, 12, 13, 14])  # third row
    assert g.winners() == (1,) and g.log[-2].kind == "mubeyama.line" and (g.log[-2].line, g.log[-2].index) == ("row", 3)


def test_okayama_column_line_wins():
    g = _okayama_line(4, [2, 7, 12, 17, 22])
    assert g.winners() == (1,) and (g.log[-2].line, g.log[-2].index) == ("column", 3)


def test_okayama_diagonal_line_wins():
    g = _okayama_line(4, [0, 6, 12, 18, 24])
    assert g.winners() == (1,) and g.log[-2].line == "diagonal"


def test_okayama_anti_diagonal_line_wins():
    g = _okayama_line(6, [3, 6, 9, 12])
    assert g.winners() == (1,) and g.log[-2].line == "diagonal"


def test_okayama_4x4_row_and_column_lines_win():
    assert _okayama_line(6, [4, 5, 6, 7]).winners() == (1,)
    assert _okayama_line(6, [1, 5, 9, 13]).winners() == (1,)


NO_LINE_SLOTS = [1, 2, 3, 5, 9, 10, 14, 15, 19, 21, 22, 23]  # the 5x5 border without corners


def test_okayama_flips_that_make_no_line_do_not_win():
    g = game(Okayama(), 4, {1: PLAIN[:25]})
    cards = g.tables[1].cards()
    for slot in NO_LINE_SLOTS:
        read_and_flip(g, cards[slot])
    assert not g.is_over() and isinstance(g.pending, AwaitRead)


def test_okayama_has_no_yaku():
    yaku = [22, 4, 7, 12, 73, 39, 66, 68, 5, 82, 1, 100]
    grid = PLAIN[:25]
    for slot, no in zip(NO_LINE_SLOTS, yaku):  # 12 slots that hold no line
        grid[slot] = no
    g = game(Okayama(), 4, {0: grid})
    for no in yaku:
        read_and_flip(g, no)
        assert isinstance(g.pending, AwaitRead)
    assert g.passes == 0 and g.ledger == [] and g.scores() == [0] * 4


# =========================================================================== Izumoji

def test_izumoji_five_players_get_20_torifuda_each():
    g = new_game(Izumoji(), 5, seed=3)
    assert [len(t.cards()) for t in g.tables] == [20] * 5 and g.unused == ()


def test_izumoji_six_players_get_16_torifuda_each_4_unused():
    g = new_game(Izumoji(), 6, seed=3)
    assert [len(t.cards()) for t in g.tables] == [16] * 6 and len(g.unused) == 4


@pytest.mark.parametrize("players", [4, 7])
def test_izumoji_other_player_counts_are_refused(players):
    with pytest.raises(LayoutError, match="izumoji is played by 5 or 6 players"):
        new_game(Izumoji(), players)


def test_izumoji_all_torifuda_face_down_wins():
    g = game(Izumoji(), 5, {2: PLAIN[:20]})
    for no in PLAIN[:19]:
        read_and_flip(g, no)
    assert not g.is_over() and face_up(g, 2) == {PLAIN[19]}
    read_and_flip(g, PLAIN[19])
    assert g.winners() == (2,) and g.scores() == [0, 0, 1, 0, 0]


def _expect_pass(g, giver, to, count, cause, yaku_set):
    p = g.pending
    assert isinstance(p, AwaitPass), p
    assert (p.giver, p.to, p.count, p.cause, p.yaku_set) == (giver, to, count, cause, yaku_set)


def _do_pass(g, giver, no, to):
    before = len(g.tables[to].face_up)
    g.apply(Pass(giver, no, to))
    assert holder(g, no) == to and no in g.tables[to].face_up
    assert no not in g.tables[giver].cards()
    assert len(g.tables[to].face_up) == before + 1


@pytest.mark.parametrize("no,keyword", [(8, "hito"), (13, "kohi"), (10, "seki"), (15, "yuki"),
                                        (21, "tsuki"), (29, "hana")])
def test_izumoji_set1_keyword_card_passes_one_face_up_torifuda_to_the_right(no, keyword):
    assert SEED.keywords_of(no) == (keyword,)
    g = game(Izumoji(), 5, {3: [no, *PLAIN[:3]]})
    read_and_flip(g, no)
    _expect_pass(g, 3, 4, 1, no, 1)
    _do_pass(g, 3, PLAIN[1], 4)
    assert isinstance(g.pending, AwaitRead) and g.passes == 1


@pytest.mark.parametrize("no", [1, 100])
def test_izumoji_set1_poems_1_and_100_pass_one_to_the_right(no):
    g = game(Izumoji(), 6, {5: [no, PLAIN[0]]})
    read_and_flip(g, no)
    _expect_pass(g, 5, 0, 1, no, 1)  # seat 0 sits on the right of the last seat
    _do_pass(g, 5, PLAIN[0], 0)
    assert isinstance(g.pending, AwaitRead)


@pytest.mark.parametrize("no", [39, 66, 68])
def test_izumoji_set1_card_with_two_keywords_passes_two(no):
    g = game(Izumoji(), 5, {0: [no, *PLAIN[:4]]})
    read_and_flip(g, no)
    _expect_pass(g, 0, 1, 2, no, 1)
    _do_pass(g, 0, PLAIN[3], 1)
    _expect_pass(g, 0, 1, 1, no, 1)
    _do_pass(g, 0, PLAIN[0], 1)
    assert isinstance(g.pending, AwaitRead) and g.passes == 2


@pytest.mark.parametrize("no", [12, 73])
def test_izumoji_set2_mountain_passes_one_to_every_other_player(no):
    g = game(Izumoji(), 5, {1: [no, *PLAIN[:6]]})
    read_and_flip(g, no)
    for k, to in enumerate([2, 3, 4, 0]):  # round from the flipper's right
        _expect_pass(g, 1, to, 1, no, 2)
        _do_pass(g, 1, PLAIN[k], to)
    assert isinstance(g.pending, AwaitRead) and g.passes == 4


def test_izumoji_set2_mubeyama_22_passes_two_to_every_other_player():
    g = game(Izumoji(), 6, {2: [22, *PLAIN[:12]]})
    read_and_flip(g, 22)
    given = iter(PLAIN[:10])
    for to in [3, 4, 5, 0, 1]:
        _expect_pass(g, 2, to, 2, 22, 2)
        _do_pass(g, 2, next(given), to)
        _expect_pass(g, 2, to, 1, 22, 2)
        _do_pass(g, 2, next(given), to)
    assert isinstance(g.pending, AwaitRead) and g.passes == 10
    assert len(face_up(g, 2)) == 15 - 10


@pytest.mark.parametrize("no", [5, 14, 34, 82, 83, 86, 93])
def test_izumoji_set3_sadness_card_receives_one_from_every_other_player(no):
    others = {s: PLAIN[s * 3:s * 3 + 3] for s in (0, 1, 2, 4)}
    g = game(Izumoji(), 5, {3: [no], **others})
    read_and_flip(g, no)
    for giver in [4, 0, 1, 2]:  # round from the flipper's right
        _expect_pass(g, giver, 3, 1, no, 3)
        _do_pass(g, giver, others[giver][0], 3)
    assert isinstance(g.pending, AwaitRead)
    assert face_up(g, 3) >= {others[s][0] for s in others} and len(face_up(g, 3)) == 19 + 4


def test_izumoji_card_in_two_sets_does_both_set1_first_then_set2():
    # #4 holds yuki (set 1) and Fuji's peak (set 2): one to the right, then one to everyone.
    g = game(Izumoji(), 5, {0: [4, *PLAIN[:6]]})
    read_and_flip(g, 4)
    _expect_pass(g, 0, 1, 1, 4, 1)
    _do_pass(g, 0, PLAIN[0], 1)
    for k, to in enumerate([1, 2, 3, 4]):
        _expect_pass(g, 0, to, 1, 4, 2)
        _do_pass(g, 0, PLAIN[k + 1], to)
    assert isinstance(g.pending, AwaitRead) and g.passes == 5


def test_izumoji_card_in_pass_set_and_sadness_set_passes_first_then_receives():
    # No seed card is in both; with an override #8 (hito) is also batsu.
    g = game(Izumoji(SEED.override(sadness={8})), 5, {0: [8, PLAIN[0]], 3: [PLAIN[1]]})
    read_and_flip(g, 8)
    _expect_pass(g, 0, 1, 1, 8, 1)
    _do_pass(g, 0, PLAIN[0], 1)
    for giver in [1, 2, 3, 4]:
        _expect_pass(g, giver, 0, 1, 8, 3)
        g.apply(g.legal_actions(giver)[0])
    assert len(face_up(g, 0)) == 20 - 1 - 1 + 4 and not g.is_over()


def test_izumoji_passer_chooses_which_face_up_cards_to_pass():
    g = game(Izumoji(), 5, {0: [8, *PLAIN[:5]]})
    read_and_flip(g, 8)
    legal = g.legal_actions(0)
    assert {a.no for a in legal} == face_up(g, 0) and all(a.to == 1 for a in legal)
    with pytest.raises(IllegalAction):
        g.apply(Pass(0, 8, 1))           # face-down: not passable
    with pytest.raises(IllegalAction):
        g.apply(Pass(0, PLAIN[2], 2))    # wrong receiver
    with pytest.raises(IllegalAction):
        g.apply(Pass(1, g.tables[1].cards()[0], 1))  # not that seat's turn
    assert g.legal_actions(1) == []
    _do_pass(g, 0, PLAIN[4], 1)          # any face-up card the passer likes


def test_izumoji_passed_torifuda_arrive_face_up_and_are_flipped_by_the_new_holder():
    g = game(Izumoji(), 5, {0: [8, PLAIN[0]]})
    read_and_flip(g, 8)
    _do_pass(g, 0, PLAIN[0], 1)
    g.apply(Read(PLAIN[0]))
    assert g.pending == AwaitFlip(PLAIN[0], 1)
    with pytest.raises(IllegalAction):
        g.apply(Flip(0, PLAIN[0]))
    g.apply(Flip(1, PLAIN[0]))
    assert PLAIN[0] not in face_up(g, 1) and PLAIN[0] in g.tables[1].cards()


def test_izumoji_giver_short_of_face_up_cards_gives_what_it_has_rest_forgiven():
    # Seat 0 turns down all but one card, then flips #22: owes 2 to each of 4 players.
    g = game(Izumoji(), 5, {0: [*PLAIN[:18], 22, PLAIN[18]]})
    for no in PLAIN[:18]:
        read_and_flip(g, no)
    read_and_flip(g, 22)
    _expect_pass(g, 0, 1, 1, 22, 2)       # owes 2, has 1
    assert g.pending.owed == 2
    _do_pass(g, 0, PLAIN[18], 1)
    shorts = [e for e in g.log if e.kind == "mubeyama.short"]
    assert [(e.seat, e.to) for e in shorts] == [(0, 1), (0, 2), (0, 3), (0, 4)]
    assert g.shortfalls == 4
    assert g.winners() == (0,)            # passing the last face-up torifuda away wins


def test_izumoji_giving_away_last_face_up_card_wins_for_the_giver():
    # Seat 2 is down to one card; seat 0 flips a sadness card; seat 2 must give it.
    g = game(Izumoji(), 5, {0: [5], 2: PLAIN[:20]})
    for no in PLAIN[:19]:
        read_and_flip(g, no)
    read_and_flip(g, 5)
    for giver in [1, 2, 3, 4]:
        _expect_pass(g, giver, 0, 1, 5, 3)
        g.apply(g.legal_actions(giver)[0])
    assert g.winners() == (2,)


def test_izumoji_winners_judged_after_all_passes_shared_win_possible():
    # Seats 1 and 2 are each down to one face-up card; seat 0 flips sadness #82.
    # Both give their last card, so both win together when the reading is resolved.
    g = game(Izumoji(), 5, {0: [82], 1: PLAIN[:20], 2: PLAIN[20:40]})
    for no in PLAIN[:19] + PLAIN[20:39]:
        read_and_flip(g, no)
    read_and_flip(g, 82)
    _expect_pass(g, 1, 0, 1, 82, 3)
    g.apply(Pass(1, PLAIN[19], 0))
    assert not g.is_over()               # not yet: the reading is still being resolved
    _expect_pass(g, 2, 0, 1, 82, 3)
    g.apply(Pass(2, PLAIN[39], 0))
    for giver in [3, 4]:
        g.apply(g.legal_actions(giver)[0])
    assert g.winners() == (1, 2)


def test_izumoji_flipping_last_card_that_is_sadness_receives_before_judging():
    g = game(Izumoji(), 5, {0: [*PLAIN[:19], 86]})
    for no in PLAIN[:19]:
        read_and_flip(g, no)
    read_and_flip(g, 86)                  # seat 0's last face-up card, but batsu
    for giver in [1, 2, 3, 4]:
        g.apply(g.legal_actions(giver)[0])
    assert not g.is_over() and len(face_up(g, 0)) == 4


def test_izumoji_yaku_sets_are_overridable():
    yaku = SEED.override(sadness={5}, mountains={12}, mountains_double=set(), set1_extra={2})
    g = game(Izumoji(yaku), 5, {0: [14, 22, 73, 2, *PLAIN[10:14]], 1: [5]})
    for no in (14, 22, 73):               # no longer yaku
        read_and_flip(g, no)
        assert isinstance(g.pending, AwaitRead)
    read_and_flip(g, 2)                   # now a set-1 card
    _expect_pass(g, 0, 1, 1, 2, 1)


# =========================================================================== CPU choice

def test_cpu_passer_gives_away_sadness_cards_first_and_keeps_mountains():
    g = game(Izumoji(), 5, {0: [8, 22, 12, 5, 21, PLAIN[0]]})
    read_and_flip(g, 8)
    cpu = MubeyamaCpu(0)
    assert cpu.choose(g.view(0), g.legal_actions(0)).no == 5
    g.apply(Pass(0, 5, 1))
    read_and_flip(g, 21)                  # tsuki: one more to pass
    choice = cpu.choose(g.view(0), g.legal_actions(0)).no
    assert choice == PLAIN[0] or choice not in (22, 12)
    assert cpu.keep_value(22, 5) > cpu.keep_value(12, 5) > cpu.keep_value(8, 5) > 0
    assert cpu.keep_value(5, 5) < 0


# =========================================================================== gambling, 4 players

def test_gambling4_pyramid_hidden_peak_then_rows_of_4_5_7_8():
    g = new_game(Gambling4(), 4, seed=5)
    for t in g.tables:
        assert [len(r) for r in t.rows] == [1, 4, 5, 7, 8]
        assert t.hidden == t.rows[0][0] and t.hidden not in t.face_up
        assert len(t.face_up) == 24
    assert g.unused == ()


def test_gambling4_without_hidden_card_third_row_holds_6():
    g = new_game(Gambling4(hidden_card=False), 4, seed=5)
    for t in g.tables:
        assert [len(r) for r in t.rows] == [4, 6, 7, 8] and t.hidden is None
        assert len(t.face_up) == 25


@pytest.mark.parametrize("players", [3, 5])
def test_gambling4_is_for_four_players_only(players):
    with pytest.raises(LayoutError, match="gambling4 is played by 4 players"):
        new_game(Gambling4(), players)


def test_gambling4_hidden_card_read_pays_200_mon_from_every_other_player():
    g = game(Gambling4(), 4, {2: [PLAIN[0]]})
    read_and_flip(g, PLAIN[0])
    assert g.tables[2].revealed
    assert g.balances == [-200, -200, 600, -200]
    assert [(p.payer, p.payee, p.amount, p.reason, p.no) for p in g.ledger] == [
        (3, 2, 200, "hidden card read", PLAIN[0]), (0, 2, 200, "hidden card read", PLAIN[0]),
        (1, 2, 200, "hidden card read", PLAIN[0])]


def test_gambling4_hidden_card_that_is_22_pays_only_the_hidden_payment_by_default():
    g = game(Gambling4(), 4, {1: [22]})
    read_and_flip(g, 22)
    assert g.balances[1] == 600
    g2 = game(Gambling4(hidden_card_pays_yaku=True), 4, {1: [22]})
    read_and_flip(g2, 22)
    assert g2.balances[1] == 3 * (200 + 300)


def _pyramid(rows):
    return [no for row in rows for no in row]


@pytest.mark.parametrize("row,stake", [(1, 40), (2, 50), (3, 70), (4, 80)])
def test_gambling4_completing_rows_2_to_5_pays_its_stake_from_each(row, stake):
    sizes = [1, 4, 5, 7, 8]
    cards = iter(PLAIN)
    rows = [[next(cards) for _ in range(n)] for n in sizes]
    g = game(Gambling4(), 4, {0: _pyramid(rows)})
    for no in rows[row][:-1]:
        read_and_flip(g, no)
    assert g.ledger == []
    read_and_flip(g, rows[row][-1])
    assert g.balances == [3 * stake, -stake, -stake, -stake]
    assert {p.reason for p in g.ledger} == {f"completed row {row + 1}"}
    assert [e.row for e in g.log if e.kind == "mubeyama.row"] == [row + 1]


def test_gambling4_without_hidden_card_rows_are_still_numbered_2_to_5():
    cards = iter(PLAIN)
    rows = [[next(cards) for _ in range(n)] for n in [4, 6, 7, 8]]
    g = game(Gambling4(hidden_card=False), 4, {3: _pyramid(rows)})
    for no in rows[1]:
        read_and_flip(g, no)
    assert {p.reason for p in g.ledger} == {"completed row 3"} and g.balances[3] == 3 * 50


@pytest.mark.parametrize("no", sorted(SEED.tsuki_yuki_hana))
def test_gambling4_flipping_tsuki_yuki_hana_card_pays(no):
    g = game(Gambling4(), 4, {1: [PLAIN[0], no]})
    read_and_flip(g, no)
    assert g.balances == [-20, 60, -20, -20]
    assert {p.reason for p in g.ledger} == {"tsuki/yuki/hana card"}


def test_gambling4_flipping_22_pays_the_highest_stake():
    g = game(Gambling4(), 4, {3: [PLAIN[0], 22]})
    read_and_flip(g, 22)
    assert g.balances == [-300, -300, -300, 900]
    s = Stakes()
    assert s.mubeyama > max(s.hidden_card, s.tsuki_yuki_hana, *s.rows)


@pytest.mark.parametrize("bad", [dict(mubeyama=200), dict(rows=(40, 50, 70, 400)),
                                 dict(tsuki_yuki_hana=300), dict(hidden_card=-1),
                                 dict(rows=(1, 2, 3))])
def test_gambling4_stakes_agreed_before_play_22_must_be_highest(bad):
    with pytest.raises(ValueError):
        Stakes(**bad)
    custom = Stakes(hidden_card=100, rows=(10, 20, 30, 40), tsuki_yuki_hana=5, mubeyama=500)
    g = game(Gambling4(stakes=custom), 4, {0: [PLAIN[0], 22]})
    read_and_flip(g, PLAIN[0])
    read_and_flip(g, 22)
    assert g.balances == [300 + 1500, -600, -600, -600]


def test_gambling4_payment_is_paid_by_every_other_player():
    g = game(Gambling4(), 4, {0: [PLAIN[0], 21]})
    read_and_flip(g, 21)
    assert sorted(p.payer for p in g.ledger) == [1, 2, 3]
    assert {p.payee for p in g.ledger} == {0}


def test_gambling4_ledger_shows_who_paid_whom_and_why():
    g = game(Gambling4(), 4, {0: [PLAIN[0], 22], 2: [PLAIN[1]]})
    read_and_flip(g, 22)
    read_and_flip(g, PLAIN[1])
    assert [str(p) for p in g.ledger] == [
        "seat 1 pays seat 0 300 Mon: mubeyama card #22",
        "seat 2 pays seat 0 300 Mon: mubeyama card #22",
        "seat 3 pays seat 0 300 Mon: mubeyama card #22",
        f"seat 3 pays seat 2 200 Mon: hidden card read #{PLAIN[1]}",
        f"seat 0 pays seat 2 200 Mon: hidden card read #{PLAIN[1]}",
        f"seat 1 pays seat 2 200 Mon: hidden card read #{PLAIN[1]}",
    ]


def test_gambling4_ends_when_a_player_finishes_every_row_most_mon_wins():
    # Seat 1 finishes every face-up row; seat 0 has collected more Mon meanwhile.
    g = game(Gambling4(), 4, {0: [PLAIN[0], 22, 7, 21, 36], 1: [PLAIN[1], *PLAIN[2:26]]})
    for no in (22, 7, 21, 36):
        read_and_flip(g, no)
    for no in PLAIN[2:25]:
        read_and_flip(g, no)
        assert not g.is_over()
    read_and_flip(g, PLAIN[25])
    assert g.is_over()
    seat0 = 3 * (300 + 3 * 20 + 40)       # #22, three tsuki/yuki/hana, and row 2 done
    seat1 = 3 * (40 + 50 + 70 + 80)       # its four face-up rows
    assert g.balances[0] == seat0 - 240 and g.balances[1] == seat1 - 400
    assert g.winners() == (0,) and g.scores() == g.balances and sum(g.scores()) == 0
    assert not g.tables[1].revealed     # the hidden peak does not hold up the end


# =========================================================================== gambling, 5 players

def test_gambling5_truncated_pyramid_3_4_6_7_no_hidden_card():
    g = new_game(Gambling5(), 5, seed=2)
    for t in g.tables:
        assert [len(r) for r in t.rows] == [3, 4, 6, 7] and t.hidden is None
        assert len(t.face_up) == 20
    with pytest.raises(ValueError):
        Gambling5(hidden_card=True)
    with pytest.raises(LayoutError, match="gambling5 is played by 5 players"):
        new_game(Gambling5(), 4)


@pytest.mark.parametrize("row,stake", [(0, 40), (1, 50), (2, 70), (3, 80)])
def test_gambling5_every_row_pays_like_the_four_player_rows_2_to_5(row, stake):
    cards = iter(PLAIN)
    rows = [[next(cards) for _ in range(n)] for n in [3, 4, 6, 7]]
    g = game(Gambling5(), 5, {4: _pyramid(rows)})
    for no in rows[row]:
        read_and_flip(g, no)
    assert g.balances == [-stake] * 4 + [4 * stake]
    assert {p.reason for p in g.ledger} == {f"completed row {row + 1}"}


def test_gambling5_otherwise_as_four_player_game_card_payments_and_end():
    g = game(Gambling5(), 5, {2: [*PLAIN[:18], 22, 68]})
    read_and_flip(g, 22)
    read_and_flip(g, 68)
    assert g.balances[2] == 4 * (300 + 20)
    for no in PLAIN[:18]:
        read_and_flip(g, no)
    assert g.winners() == (2,) and sum(g.balances) == 0
