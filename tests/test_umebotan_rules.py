"""Ume Botan's engine, rule by rule of seed 003 (each test quotes the statement it encodes),
then whole games with the invariants, the hidden information and the session."""
from __future__ import annotations

import pytest

from audio.clock import FakeClock
from trainer.games import registry
from trainer.games.protocol import READER
from trainer.games.turn_session import CPU, HUMAN, play_out
from trainer.games.umebotan_session import new_session
from trainer.rules.decks import HANAFUDA, LIGHTNING
from trainer.rules.umebotan import (Deal, IllegalAction, Play, Take, UmeBotanOptions,
                                    UmeBotanState, new_game, next_order)


class StackedRng:
    """Deals prepared decks: each shuffle takes the next one; the cut moves one card."""

    def __init__(self, *decks):
        self.decks = [list(d) for d in decks]

    def shuffle(self, deck):
        want = self.decks.pop(0)
        deck[:] = want[-1:] + want[:-1]   # undone by the cut of one card

    def randrange(self, a, b=None):
        return 1


def draw_deck(*draws):
    """A shuffle whose first cards are `draws` (the seating draw has no cut)."""
    rest = [c for c in HANAFUDA if c not in draws]
    return list(draws[1:]) + rest + list(draws[:1])


def deck_of(players, hands, field, pile_top_first=()):
    """A deck dealing `hands` (in turn order), `field`, then the pile, the rest after."""
    head = [c for h in hands for c in h] + list(field) + list(pile_top_first)
    return head + [c for c in HANAFUDA if c not in head]


def state_with(players=3, seed=0, **kw):
    s = new_game(players, seed, UmeBotanOptions(**kw))
    s.apply(Deal())
    return s


def arrange(s, hands, field, pile_top_first, reserved=None):
    """Put a position on the table (`hands` in turn order); every other card goes to the
    dealer's pile."""
    for i, seat in enumerate(s.order):
        s.hands[seat] = sorted(hands[i])
    s.field = list(field)
    s.draw_pile = list(reversed(pile_top_first))
    s.reserved = reserved
    used = {c for h in hands for c in h} | set(field) | set(pile_top_first) | set(reserved or ())
    s.piles = [[] for _ in range(s.players)]
    s.piles[s.order[-1]] = [c for c in HANAFUDA if c not in used]
    s.turn_index, s.phase, s.lightning_user = 0, "hand", None


# -- setup ----------------------------------------------------------------------------------

def test_seating_by_earliest_month_then_higher_points():
    """"The player who drew a suit for the earliest month becomes Player 1 ... If two or more
    players drew from the same suit, the player drawing the higher point card is treated as
    having the earlier suit." "The last player in line becomes the dealer." """
    s = UmeBotanState(3, 0)
    s.rng = StackedRng(draw_deck(92, 90, 30), HANAFUDA)
    events = s.apply(Deal())
    assert s.order == (2, 1, 0)          # Cherry first; of the Chrysanthemums the cup (10) first
    assert events[0].kind == "umebotan.seats" and events[1].player1 == 2 and events[1].dealer == 0


def test_a_full_tie_in_the_seating_draw_draws_again():
    """"If even the card points are tied, then the players must draw again." """
    s = UmeBotanState(3, 0)
    s.rng = StackedRng(draw_deck(12, 13, 40), draw_deck(40, 12, 100), HANAFUDA)
    events = s.apply(Deal())
    assert [e.kind for e in events[:2]] == ["umebotan.redraw", "umebotan.seats"]
    assert s.order == (1, 0, 2)


@pytest.mark.parametrize("players, hand, field, pile", [(3, 7, 6, 21), (4, 5, 8, 20)])
def test_deal_sizes(players, hand, field, pile):
    """"If there are 3 players: 7 cards are dealt to each player, and 6 cards face-up to the
    table. If there are 4 players: 5 cards are dealt to each player, and 8 cards face-up"."""
    for seed in range(30):
        s = state_with(players, seed)
        if s.reserved:
            continue
        assert [len(h) for h in s.hands] == [hand] * players
        assert len(s.field) == field and len(s.draw_pile) == pile
        s.check_invariants()


def test_four_of_a_month_on_the_field_is_a_misdeal_and_the_same_dealer_deals_again():
    """"If 4 cards of the same suit are dealt to the field ... the same dealer shuffles and
    distributes cards once more." """
    s = UmeBotanState(3, 0)
    s.order = (0, 1, 2)
    hands = [[20, 21, 22, 23, 30, 31, 32], [33, 40, 41, 42, 43, 50, 51], [52, 53, 60, 61, 62, 63, 70]]
    bad = deck_of(3, hands, [10, 11, 12, 13, 71, 72])
    good = deck_of(3, hands, [10, 11, 12, 71, 72, 73])
    s.rng = StackedRng(bad, good)
    events = s.apply(Deal())
    misdeal = [e for e in events if e.kind == "umebotan.misdeal"]
    assert len(misdeal) == 1 and misdeal[0].dealer == 2 and misdeal[0].month == 1
    assert sorted(s.field) == [10, 11, 12, 71, 72, 73]


def test_lightning_dealt_to_the_field_is_reserved_with_the_top_card_for_player_1():
    """"this is done by immediately taking the top card from the draw pile and placing it on top
    of the Lightning face-down before Player 1 starts their turn. During Player 1's first turn,
    instead of playing a card from the draw pile, they take the Lightning card and the face-down
    card." """
    s = UmeBotanState(3, 0)
    s.order = (0, 1, 2)
    hands = [[20, 21, 22, 23, 30, 31, 32], [33, 40, 41, 42, 43, 50, 51], [52, 53, 60, 61, 62, 63, 70]]
    s.rng = StackedRng(deck_of(3, hands, [113, 110, 12, 71, 72, 80], [100]))
    s.apply(Deal())
    assert s.reserved == (LIGHTNING, 100) and LIGHTNING not in s.field
    v = s.view(1)
    assert v.reserved and 100 not in v.field + v.hand + sum(v.piles, ()) and v.draw_pile == 20
    # a Willow played from the hand cannot take the reserved Lightning
    s.hands[0].append(111)
    s.hands[0].remove(20)
    assert Play(111, LIGHTNING) not in s.legal_actions(0)
    assert Play(111) in s.legal_actions(0)      # one match: the Rain Man
    s.apply(Play(111))
    assert s.reserved is None and s.piles[0] == [111, 110, 113, 100] and s.lightning_user == 0
    assert len(s.draw_pile) == 20 and s.turn == 1          # no card drawn this turn


# -- capturing ----------------------------------------------------------------------------------

def test_one_match_captures_the_pair_and_matching_is_compulsory():
    """"If it belongs to the same month as another card on the table, then the cards match, and
    this matching pair is moved to the player's score pile." "If a card is played that matches
    something on the table, then the player must capture" """
    s = state_with(3, 1)
    arrange(s, [[10, 50], [60], [70]], [12, 81], [82, 90, 91])
    assert Play(10) in s.legal_actions(s.order[0])
    p1 = s.order[0]
    s.hands[p1] = [10, 50]
    events = s.apply(Play(10))
    assert events[0].kind == "umebotan.captured" and events[0].taken == (12,)
    assert s.piles[p1][:2] == [10, 12]


def test_no_obligation_to_play_a_matching_card():
    """"there is no obligation to play a card that matches something ... they may ... play a card
    that matches nothing on the table" """
    s = state_with(3, 1)
    arrange(s, [[10, 50], [60], [70]], [12, 81], [82, 90, 91])
    p1 = s.order[0]
    s.hands[p1] = [10, 50]
    events = s.apply(Play(50))
    assert events[0].kind == "umebotan.laid" and 50 in s.field


def test_two_matches_let_the_player_choose():
    """"If the played card matches with two cards on the table, then the player may choose which
    one they capture." """
    s = state_with(3, 1)
    arrange(s, [[10, 50], [60], [70]], [12, 11, 81], [82, 90, 91])
    p1 = s.order[0]
    s.hands[p1] = [10, 50]
    assert [a for a in s.legal_actions(p1) if a.card == 10] == [Play(10, 12), Play(10, 11)]
    s.apply(Play(10, 11))
    assert 11 in s.piles[p1] and 12 in s.field


def test_three_matches_take_all_four():
    """"If the played card matches three cards on the table, then all three are captured along
    with the played card" """
    s = state_with(3, 1)
    arrange(s, [[10, 50], [60], [70]], [11, 12, 13, 81], [82, 90, 91])
    p1 = s.order[0]
    s.hands[p1] = [10, 50]
    assert [a for a in s.legal_actions(p1) if a.card == 10] == [Play(10)]
    s.apply(Play(10))
    assert set(s.piles[p1][:4]) == {10, 11, 12, 13}


def test_the_drawn_card_is_played_in_the_same_fashion_with_a_choice_on_two_matches():
    """"the player takes the top card of the draw pile, turns it face-up, and immediately plays it
    to the table in the same fashion." """
    s = state_with(3, 1)
    arrange(s, [[50, 51], [60], [70]], [12, 11, 81], [10, 90, 91])
    p1 = s.order[0]
    s.apply(Play(50))
    assert s.phase == "draw" and s.view(s.order[1]).drawn == 10
    assert s.legal_actions(p1) == [Take(12), Take(11)]
    with pytest.raises(IllegalAction) as refused:
        s.apply(Take(81))
    assert refused.value.reason == "umebotan.not_a_match"
    assert s.why_illegal(p1, Play(51)).reason == "umebotan.take_first"
    assert s.why_illegal(s.order[1], Take(12)).reason == "turn.not_your_turn"
    s.apply(Take(12))
    assert s.piles[p1][:2] == [10, 12] and s.turn == s.order[1]


# -- the Lightning ----------------------------------------------------------------------------

def test_lightning_in_hand_captures_any_non_willow_card():
    """"If it is dealt on a player's hand, that player may use it to capture a non-Willow card" """
    s = state_with(3, 1)
    arrange(s, [[113, 50], [60], [70]], [12, 110, 81], [82, 90, 91])
    p1 = s.order[0]
    assert [a for a in s.legal_actions(p1) if a.card == 113] == [Play(113, 12), Play(113, 81)]
    s.apply(Play(113, 81))
    assert s.piles[p1][:2] == [113, 81] and s.lightning_user == p1 and 110 in s.field


def test_lightning_drawn_must_capture_a_non_willow_card_or_is_taken_alone():
    """"If it is drawn from the deck, it must capture a non-Willow card on the field. If there are
    no non-Willow cards on the field, then it is taken alone into the score pile." """
    s = state_with(3, 1)
    arrange(s, [[50, 51], [60], [70]], [12, 110, 81], [113, 90, 91])
    p1 = s.order[0]
    s.apply(Play(50))
    assert s.legal_actions(p1) == [Take(12), Take(81), Take(50)]   # not the Rain Man
    s = state_with(3, 1)
    arrange(s, [[112, 51], [60], [70]], [110, 111], [113, 90, 91])
    p1 = s.order[0]
    events = s.apply(Play(112, 110))
    assert events[-1].kind == "umebotan.lightning_alone" and s.piles[p1] == [112, 110, 113]
    assert s.field == [111] and s.lightning_user == p1


def test_the_lightnings_user_takes_the_cards_left_on_the_field():
    """"In any case, the player who used the Lightning card takes all remaining cards on the field
    into their score pile." """
    s = state_with(3, 1)
    arrange(s, [[82], [60], [70]], [110, 111, 81], [113, 90, 91])
    p1, p2, p3 = s.order
    s.apply(Play(82))                   # takes 81; draws the Lightning: only Willows left, alone
    assert s.lightning_user == p1
    s.apply(Play(60))                   # laid; draws 90: laid
    events = s.apply(Play(70))          # laid; draws 91: takes 90; the round ends
    swept = [e for e in events if e.kind == "umebotan.swept"][0]
    assert swept.seat == p1 and set(swept.cards) == {110, 111, 60, 70}
    assert events[-1].kind in ("umebotan.scored", "umebotan.end")
    assert s.phase == "deal"
    s.check_invariants()


# -- multipliers, scores, the next round ----------------------------------------------------

def test_field_multipliers():
    """"A pine field ... if one or more Pine cards are present on the field"; "A midterm field
    ... during Round 6 (or the last round of the first half of the game)"; "A final field ...
    during Round 12 (or the final round)"; mutually exclusive, ×2."""
    s = UmeBotanState(4, 0)
    s.field, s.round_no = [11, 20], 3
    assert s._field_kind() == "pine"
    s.round_no = 6
    assert s._field_kind() == "midterm"
    s.round_no, s.field = 12, [20]
    assert s._field_kind() == "final"
    s.round_no = 5
    assert s._field_kind() == "normal"
    s.options = UmeBotanOptions(rounds=4)
    s.round_no = 2
    assert s._field_kind() == "midterm"


def test_rounds_are_an_even_number():
    """"Whether a game should last for more or less rounds is up to the player (as long as the
    number of rounds is even)." """
    with pytest.raises(ValueError, match="even"):
        UmeBotanOptions(rounds=5)
    assert UmeBotanOptions().rounds == 12


def test_next_player_1_and_dealer_from_the_scores():
    """"The player with the highest score at the end of the round becomes Player 1 ... In the
    event of a tie, the player who was earliest in the turn order becomes Player 1." "the player
    with the lowest score ... becomes the last player as well as the dealer" """
    assert next_order((0, 1, 2), (-10, 30, -20)) == (1, 0, 2)
    assert next_order((0, 1, 2), (20, 20, -40)) == (0, 1, 2)
    assert next_order((1, 2, 0), (20, -40, 20)) == (2, 0, 1)
    # four players: the others stay seated (default) or go by score
    assert next_order((0, 1, 2, 3), (-5, 40, 10, -45)) == (1, 2, 0, 3)
    assert next_order((0, 1, 2, 3), (-50, 40, 5, 5)) == (1, 2, 3, 0)
    assert next_order((0, 1, 2, 3), (-5, 40, -45, 10), "score") == (1, 3, 0, 2)
    assert next_order((0, 1, 2, 3), (-5, 40, -45, 10), "stay") == (1, 3, 0, 2)
    assert next_order((0, 1, 2, 3), (0, 0, 0, 0)) == (0, 1, 2, 3)


def test_cards_of_the_month_only_in_a_twelve_round_game_by_default():
    """"This yaku is typically only used in full 12 round games." """
    assert UmeBotanOptions().month_yaku and not UmeBotanOptions(rounds=6).month_yaku
    assert UmeBotanOptions(rounds=6, cards_of_month=True).month_yaku


# -- whole games --------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_random_games_keep_the_invariants_and_sum_to_zero(players):
    import random
    for seed in range(25):
        s = new_game(players, seed, UmeBotanOptions(rounds=4))
        rng = random.Random(seed)
        while not s.is_over():
            actor = s.actors()[0]
            s.apply(rng.choice(s.legal_actions(actor)))
            s.check_invariants()
            for seat in range(players):
                v = s.view(seat)
                others = {c for o in range(players) if o != seat for c in s.hands[o]}
                assert not others & set(v.hand)
                assert not others & (set(v.field) | {c for p in v.piles for c in p})
        assert all(sum(r.scores) == 0 for r in s.results) and len(s.results) == 4
        out = s.outcome()
        assert out.scores == tuple(s.totals) and max(out.scores) == out.scores[out.winners[0]]


def test_the_session_plays_and_redacts_the_hands():
    variant = registry.find("umebotan")
    a = play_out(new_session(variant, 7, [CPU] * 4, {"rounds": 2}))
    b = play_out(new_session(variant, 7, [CPU] * 4, {"rounds": 2}))
    assert [e.fields() for e in a.log] == [e.fields() for e in b.log]
    s = new_session(variant, 7, [HUMAN, CPU, CPU], {"rounds": 2}, clock=FakeClock())
    s.run_cpus()
    dealt = [e for e in s.log_for(0) if e.kind == "umebotan.dealt"]
    assert all(bool(e.cards) == (e.seat == 0) for e in dealt)
    assert s.waiting_for() == (0,) or s.state.actors() != (0,)
    assert READER not in s.waiting_for()


def test_the_greedy_cpu_beats_random_play():
    variant = registry.find("umebotan")
    margin = 0
    for g in range(30):
        s = play_out(new_session(variant, g, [CPU] * 3,
                                 {"rounds": 2, "level": "greedy", "against": "random",
                                  "test_seat": g % 3}), check=False)
        scores = s.state.outcome().scores
        margin += scores[g % 3] - (sum(scores) - scores[g % 3]) / 2
    assert margin / 30 > 50


def test_player_1_plays_first_and_turns_pass_in_the_seating_order():
    """"In each round, Player 1 is the first to play, and turn to play passes counter-clockwise"
    (the seating order: "Player 2 sits to the right of Player 1")."""
    s = state_with(4, 2)
    seen = []
    while len(seen) < 5:
        actor = s.actors()[0]
        if not seen or seen[-1] != actor:
            seen.append(actor)
        s.apply(s.legal_actions(actor)[0])
    assert seen == [*s.order, s.order[0]]


def test_score_piles_are_public_and_the_highest_total_wins():
    """"each player's score pile should be kept face-up"; "the player with the highest total score
    at the end of all the rounds is the winner of the game" """
    s = play_out(new_session(registry.find("umebotan"), 3, [CPU] * 3, {"rounds": 2})).state
    assert all(s.view(0).piles[p] == tuple(s.piles[p]) for p in range(3))
    assert s.outcome().winners == tuple(p for p in range(3) if s.totals[p] == max(s.totals))


def test_simulate_refuses_an_odd_number_of_rounds(capsys):
    from trainer.cli import main
    assert main(["simulate", "umebotan", "--rounds", "5", "--games", "1"]) == 2
    assert "even" in capsys.readouterr().err
    assert main(["simulate", "umebotan", "--players", "3", "--rounds", "2", "--games", "3",
                 "--against", "random", "--json"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 3 and out["rounds"] == 6 and out["test_seat"]["level"] == "greedy"


def test_every_event_of_a_game_reads_in_both_languages():
    from trainer.ui.i18n import LANG
    from trainer.text.umebotan import describe_umebotan
    s = play_out(new_session(registry.find("umebotan"), 1, [CPU] * 4, {"level": "random", "rounds": 2}))
    before = LANG.code
    try:
        for code in ("ja", "en"):
            LANG.set(code)
            lines = [describe_umebotan(e) for e in s.log_for(0)]
            assert all(line and "{" not in line for line in lines)
    finally:
        LANG.set(before)
