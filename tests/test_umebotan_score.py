"""Ume Botan scoring: the yaku table of rules/ume-botan.md and the seed's zero-sum formula.

Every example below was worked by hand from the formula
``(cards - par) + yaku × (players - 1) - opponents' yaku`` (doubled with a
field multiplier), par 88 with three players and 66 with four. Month totals
used: Pine 27, Plum 17, Cherry 27, Wisteria/Iris/Peony/Bush Clover 17,
Susuki 32, Chrysanthemum/Maple 17, Willow 36, Paulownia 23 (264 in all).
Koi-koi code is no oracle here: its Akatan is our Poetry Ribbons and its
Rain Man rules differ.
"""
from __future__ import annotations

import json

import pytest

from trainer.cli import main
from trainer.rules.decks import HANAFUDA, hana_name, kind, points
from trainer.rules.umebotan_score import (PileError, card_points, check_partition, is_dandruff,
                                          par, score_round, yaku_of)


def month_cards(*months: int) -> list[int]:
    return [m * 10 + k for m in months for k in range(4)]


def rest(*piles: list[int]) -> list[int]:
    used = {c for p in piles for c in p}
    return [c for c in HANAFUDA if c not in used]


def names(pile, **kw) -> set[str]:
    return {y.name for y in yaku_of(pile, **kw)}


# -- the deck -----------------------------------------------------------------------------

def test_card_values_are_the_standard_ones_and_total_264():
    """"Brights 20 (5), Animals 10 (9), Ribbons 5 (10), Chaff 1 (24)"; "The total point value
    of the entire deck is 264"."""
    assert card_points(HANAFUDA) == 264
    assert [points(c) for c in (10, 30, 80, 110, 120)] == [20] * 5
    assert sorted(c for c in HANAFUDA if kind(c) == "animal") == [20, 40, 50, 60, 70, 81, 90, 100, 111]
    assert kind(113) == "chaff" and kind(112) == "ribbon" and kind(121) == "chaff"
    assert hana_name(113) == "Willow with Lightning" and hana_name(12) == "Pine chaff"


def test_par_is_264_divided_by_the_players():
    assert par(3) == 88 and par(4) == 66


# -- the yaku table ---------------------------------------------------------------------------

def test_bright_yaku_are_mutually_exclusive_and_the_best_counts():
    """"All Yaku with Brights in their name are mutually exclusive ... the player claims the
    most valuable"."""
    assert names([10, 30, 80, 110, 120]) == {"Five Brights"}
    assert names([10, 30, 80, 120]) == {"Four Brights"}
    assert names([110, 10, 30, 80]) == {"Rainy Four Brights"}      # 30 over Three Brights' 20
    assert names([10, 30, 120]) == {"Three Brights"}
    assert names([110, 10, 30]) == set()                            # Rain Man + 2: nothing


def test_spring_counts_the_bush_warbler_and_stacks_unless_made_exclusive():
    """Spring: Crane, Bush Warbler ("a pseudo-Bright"), Curtain; the exclusion names only
    "Yaku with Brights in their name"."""
    assert names([10, 20, 30]) == {"Spring"}
    assert names([10, 20, 30, 80]) == {"Three Brights", "Spring"}
    assert names([10, 20, 30, 80], spring_exclusive=True) == {"Three Brights"}
    assert names([10, 20, 30], spring_exclusive=True) == {"Spring"}


def test_ribbon_yaku_are_the_reference_pages_sets_not_koi_kois():
    assert names([11, 21, 31]) == {"Poetry Ribbons"}
    assert names([61, 91, 101]) == {"Blue Ribbons"}
    # "The three Plain Ribbons, excluding the Willow Ribbon"
    assert names([41, 51, 71]) == {"Plain Ribbons"}
    assert names([41, 51, 112]) == set()


def test_animal_and_four_of_a_kind_yaku():
    assert names([70, 100, 60]) == {"Boar, Deer, Butterflies"}
    assert names(month_cards(4)) == {"Wisteria Row"}
    assert names(month_cards(12)) == {"Paulownia Row"}


def test_viewing_yaku_are_void_with_the_rain_man_in_the_pile():
    """"This Yaku is not counted if the Rainman is present in your scoring pile." """
    assert names([90, 30]) == {"Flower Viewing"}
    assert names([90, 80]) == {"Moon Viewing"}
    assert names([90, 30, 80, 110]) == set()


def test_cards_of_the_month_follow_the_round():
    """"all four January cards in the first round, all four February cards in the second"."""
    assert "Cards of the Month" in names(month_cards(1), round_no=1)
    assert "Cards of the Month" not in names(month_cards(1), round_no=2)
    assert "Cards of the Month" in names(month_cards(2), round_no=14)   # round 14: February again
    assert "Cards of the Month" not in names(month_cards(1))            # not played


def test_dandruff_ignores_willows_with_20_or_15_points():
    """"Ignoring all Willow cards, the score pile should be worth 20 points or lower in a
    3-player game, or 15 points or lower in a 4-player game." """
    assert is_dandruff([110, 111, 112, 113, 81, 12, 13, 22, 23, 32], 3)        # 10+5 = 15 ≤ 20
    assert is_dandruff([81, 12, 13, 22, 23, 32], 4)                             # 15 ≤ 15
    assert not is_dandruff([81, 12, 13, 22, 23, 32, 33], 4)                      # 16
    assert not is_dandruff([80, 12], 3)                                           # 21


# -- hand-worked round scores -------------------------------------------------------------------

A1 = month_cards(1, 2, 3, 4)                 # 71 + 17 = 88; Spring, Poetry Ribbons, Wisteria Row
A2 = month_cards(5, 6, 7, 8, 12)             # 17·3 + 32 + 23 = 106; Paulownia Row
A3 = month_cards(9, 10, 11)                  # 17 + 17 + 36 = 70; nothing (Blue Ribbons split)


def test_example_1_three_players_normal_field():
    # yaku 60 / 20 / 0: P1 0 + 120 - 20 = 100; P2 18 + 40 - 60 = -2; P3 -18 + 0 - 80 = -98
    r = score_round([A1, A2, A3])
    assert r.card_points == (88, 106, 70)
    assert r.scores == (100, -2, -98)


def test_example_2_a_field_multiplier_doubles_the_exchange():
    """"If field multiplier(s) are present, then this calculation will be doubled." """
    assert score_round([A1, A2, A3], doubled=True).scores == (200, -4, -196)


def test_example_3_cards_of_the_month_in_round_4():
    # April is Wisteria, all of it in P1: yaku 80 / 20 / 0
    # P1 0 + 160 - 20 = 140; P2 18 + 40 - 80 = -22; P3 -18 - 100 = -118
    assert score_round([A1, A2, A3], round_no=4).scores == (140, -22, -118)


def test_example_4_cards_of_the_month_in_round_5():
    # May is Iris, with P2: yaku 60 / 40 / 0
    # P1 0 + 120 - 40 = 80; P2 18 + 80 - 60 = 38; P3 -18 - 100 = -118
    assert score_round([A1, A2, A3], round_no=5).scores == (80, 38, -118)


def test_example_5_four_players_five_brights_voids_viewing():
    p1 = [10, 30, 80, 110, 120, 90]          # 110; Five Brights 50, viewing void (Rain Man)
    p2 = month_cards(2, 4, 5, 6)             # 68; Wisteria Row 20
    p3 = month_cards(7, 10) + [11, 12, 13]   # 41; nothing
    p4 = rest(p1, p2, p3)                    # 45; nothing
    r = score_round([p1, p2, p3, p4])
    assert r.card_points == (110, 68, 41, 45)
    assert [[y.name for y in ys] for ys in r.yaku] == [["Five Brights"], ["Wisteria Row"], [], []]
    # P1 44 + 150 - 20 = 174; P2 2 + 60 - 50 = 12; P3 -25 - 70 = -95; P4 -21 - 70 = -91
    assert r.scores == (174, 12, -95, -91)


def test_example_6_four_brights_and_both_viewings_stack():
    p1 = [10, 30, 80, 120, 90]               # 90; Four Brights 40 + Flower 20 + Moon 20 = 80
    p2 = month_cards(11, 2)                  # 53; nothing
    p3 = [11, 12, 13, 31, 32, 33, 40, 41, 42] + month_cards(5)   # 47; nothing
    p4 = rest(p1, p2, p3)                    # 74; Boar-Deer-Butterflies 20 + Blue Ribbons 20
    r = score_round([p1, p2, p3, p4])
    assert r.card_points == (90, 53, 47, 74)
    # P1 24 + 240 - 40 = 224; P2 -13 - 120 = -133; P3 -19 - 120 = -139; P4 8 + 120 - 80 = 48
    assert r.scores == (224, -133, -139, 48)


F1 = [10, 20, 30, 80, 110]                   # 90; Rainy Four Brights 30 + Spring 20
F2 = month_cards(4, 5, 6, 12)                # 74; Wisteria Row 20 + Paulownia Row 20
F3 = rest(F1, F2)                            # 100; Poetry Ribbons 20


def test_example_7_rainy_four_brights_with_spring():
    # yaku 50 / 40 / 20: P1 2 + 100 - 60 = 42; P2 -14 + 80 - 70 = -4; P3 12 + 40 - 90 = -38
    assert score_round([F1, F2, F3]).scores == (42, -4, -38)


def test_example_8_spring_made_exclusive():
    # yaku 30 / 40 / 20: P1 2 + 60 - 60 = 2; P2 -14 + 80 - 50 = 16; P3 12 + 40 - 70 = -18
    assert score_round([F1, F2, F3], spring_exclusive=True).scores == (2, 16, -18)


def test_example_9_another_players_rain_man_does_not_void_your_viewing():
    p1 = [10, 30, 120, 90]                   # 70; Three Brights 20 + Flower Viewing 20
    p2 = month_cards(8, 11)                  # 68; nothing (Moon without the cup)
    p3 = rest(p1, p2)                        # 126; Poetry, Blue, Plain, B-D-B, Wisteria Row = 100
    r = score_round([p1, p2, p3])
    assert r.card_points == (70, 68, 126)
    # P1 -18 + 80 - 100 = -38; P2 -20 - 140 = -160; P3 38 + 200 - 40 = 198
    assert r.scores == (-38, -160, 198)


def test_example_10_dandruff_cancels_every_other_score_and_yaku():
    """"ALL PLAYERS' SCORES AND ALL OTHER YAKU DURING THE ROUND ARE CANCELLED." """
    p1 = [110, 111, 112, 113, 12, 13, 22, 23, 81]            # non-Willow 14 ≤ 20
    p2 = [10, 11, 30, 31, 32, 33, 80, 82, 83] + month_cards(12)   # Four Brights, cancelled
    p3 = rest(p1, p2)
    r = score_round([p1, p2, p3])
    assert r.dandruff and [[y.name for y in ys] for ys in r.yaku] == [["Dandruff"], [], []]
    assert r.scores == (100, -50, -50)                        # 50 × 2 from each of the others
    assert score_round([p1, p2, p3], doubled=True).scores == (200, -100, -100)


def test_example_11_two_dandruffs_at_a_four_player_table():
    p1 = [110, 111, 112, 113, 12, 13, 22]                     # non-Willow 3
    p2 = [23, 32, 33, 42, 43, 52]                             # 6
    p3 = [10, 11, 20, 21, 30, 31, 40, 41, 50, 51, 53] + month_cards(6)
    p4 = rest(p1, p2, p3)
    # Dandruff 40 each: P1 0 + 120 - 40 = 80, P2 80, P3 -80, P4 -80
    assert score_round([p1, p2, p3, p4]).scores == (80, 80, -80, -80)


def test_example_12_the_seeds_own_example_a_40_point_yaku_takes_40_from_each():
    """"if player A has 40 points' worth of yaku, then they score 80 points in total- 40 from
    player B, and 40 from player C" (cards aside)."""
    p1 = [41, 51, 71, 61, 91, 101]                            # 30; Plain + Blue Ribbons = 40
    p2 = (month_cards(1, 8, 11) + [40, 42, 43, 60, 62, 63, 90, 92, 93, 121])  # 132; Moon void
    p3 = rest(p1, p2)                                         # 102; nothing
    r = score_round([p1, p2, p3])
    assert r.card_points == (30, 132, 102) and r.yaku[1] == () and r.yaku[2] == ()
    # P1 -58 + 80 = 22; P2 44 - 40 = 4; P3 14 - 40 = -26
    assert r.scores == (22, 4, -26)


def test_scores_always_sum_to_zero():
    import random
    rng = random.Random(3)
    for _ in range(300):
        n = rng.choice((3, 4))
        deck = list(HANAFUDA)
        rng.shuffle(deck)
        cuts = sorted(rng.sample(range(1, 48), n - 1))
        piles = [deck[a:b] for a, b in zip([0, *cuts], [*cuts, 48])]
        r = score_round(piles, round_no=rng.randint(1, 12), doubled=rng.random() < 0.5)
        assert sum(r.scores) == 0


# -- the partition check and `karuta score umebotan` --------------------------------------------

def test_check_partition_names_the_problem():
    with pytest.raises(PileError, match="not a card number"):
        check_partition([[14], rest()])
    with pytest.raises(PileError, match="more than one place"):
        check_partition([[10], HANAFUDA])
    with pytest.raises(PileError, match="missing 10, 11"):
        check_partition([rest([10, 11])])


def write(tmp_path, data, name="round.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_score_command_prints_scores_and_yaku_as_json(tmp_path, capsys):
    f = write(tmp_path, {"players": 3, "round": 4, "doubled": False, "piles": [A1, A2, A3]})
    assert main(["score", "umebotan", f, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"scores": [140, -22, -118],
                   "yaku": [["Spring", "Poetry Ribbons", "Wisteria Row", "Cards of the Month"],
                            ["Paulownia Row"], []]}
    assert main(["score", "umebotan", f]) == 0
    text = capsys.readouterr().out
    assert "player 1: +140" in text and "Cards of the Month 20" in text


@pytest.mark.parametrize("data, message", [
    (None, "no such file"),
    ("{players: 3", "not valid JSON"),
    ({"players": 5, "round": 1, "piles": []}, "players must be 3 or 4"),
    ({"players": 3, "round": 0, "piles": []}, "round must be"),
    ({"players": 3, "round": 1, "doubled": "yes", "piles": [A1, A2, A3]}, "doubled must be"),
    ({"players": 3, "round": 1, "piles": [A1, A2 + A3]}, "3 players need 3 piles, not 2"),
    ({"players": 3, "round": 1, "piles": [A1 + [14], A2, A3]}, "14 is not a card number"),
    ({"players": 3, "round": 1, "piles": [A1 + [120], A2, A3]}, "card 120 is in more than one place"),
    ({"players": 3, "round": 1, "piles": [A1[1:], A2, A3]}, "do not cover the 48 cards: missing 10"),
])
def test_score_command_refuses_bad_input_in_one_line(tmp_path, capsys, data, message):
    f = str(tmp_path / "absent.json") if data is None else write(tmp_path, data)
    assert main(["score", "umebotan", f]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
