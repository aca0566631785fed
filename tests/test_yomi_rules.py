"""Yomi's engine, rule by rule of seed 002 (both rulesets; each test quotes its statement),
then whole games with the invariants, the hidden hands, the session and the CPU."""
from __future__ import annotations

import random

import pytest

from trainer.games import registry
from trainer.games.turn_session import CPU, HUMAN, play_out
from trainer.games.yomi_session import new_session
from trainer.rules.decks import ONIFUDA, SHIROFUDA, MekuriCard
from trainer.rules.yomi import (Deal, Discard, IllegalAction, Lead, Pass, YomiOptions, deck_for,
                                new_game)

C = MekuriCard


def dealt(players=4, seed=0, **kw):
    s = new_game(players, seed, YomiOptions(**kw))
    s.apply(Deal())
    return s


def arrange(s, hands, discard=(), turn=0, phase="follow"):
    """A position: `hands` by seat; every other card in the discard pile under `discard`."""
    s.hands = [list(h) for h in hands]
    used = {c for h in hands for c in h} | set(discard) | ({s.undealt} if s.undealt else set())
    s.discard = [c for c in s.deck if c not in used] + list(discard)
    s.turn, s.phase, s.passes = turn, phase, 0


# -- the cards --------------------------------------------------------------------------------

def test_four_players_use_40_cards_without_horses_and_kings():
    """"For 4 players, use 40 cards by removing all Horses and Kings from the deck." """
    cards, wild = deck_for(4, YomiOptions())
    assert len(cards) == 40 and wild is None and max(c.rank for c in cards) == 10


def test_three_players_use_30_cards_without_swords():
    """"For 3 players, use 30 cards by further removing all cards of the Sword suit" """
    cards, wild = deck_for(3, YomiOptions())
    assert len(cards) == 30 and all(c.suit != "swords" for c in cards)


def test_wild_cards():
    """"preferably the Onifuda ... or the Shirofuda (blank card)"; 3 players: "the 2 of Swords as
    a wild card"."""
    assert deck_for(4, YomiOptions(wild=True))[1] == ONIFUDA
    assert deck_for(4, YomiOptions(wild=True, wild_card="shirofuda"))[1] == SHIROFUDA
    cards, wild = deck_for(3, YomiOptions(wild=True))
    assert wild == C("swords", 2) and len(cards) == 31


def test_the_37_card_variant():
    """"remove all cards of the Swords suit except for the 2 of Swords. (The Onifuda is also not
    used.)" """
    cards, wild = deck_for(4, YomiOptions(ruleset="yomi37"))
    assert len(cards) == 37 and wild is None
    assert [c for c in cards if c.suit == "swords"] == [C("swords", 2)]
    with pytest.raises(ValueError, match="4 players"):
        deck_for(3, YomiOptions(ruleset="yomi37"))
    with pytest.raises(ValueError, match="no wild card"):
        YomiOptions(ruleset="yomi37", wild=True)


# -- the deal ---------------------------------------------------------------------------------

@pytest.mark.parametrize("players, wild", [(4, False), (3, False), (4, True), (3, True)])
def test_deal_ten_each_and_with_a_wild_card_one_left_face_down(players, wild):
    """"Dealer shuffles and deals 10 cards are to each player. If a wild card is included, there
    will be one card left; place it on the table face down. It will not be used for this round." """
    s = dealt(players, 3, wild=wild)
    assert [len(h) for h in s.hands] == [10] * players
    assert (s.undealt is not None) == wild
    v = s.view(0)
    assert v.undealt == wild and s.undealt not in v.hand


def test_the_37_card_deal_nine_each_one_undealt():
    """"deals 9 cards are to each player. Place the undealt card on the table face down" """
    s = dealt(4, 1, ruleset="yomi37")
    assert [len(h) for h in s.hands] == [9] * 4 and s.undealt is not None


def test_the_dealer_starts_the_pile_with_any_card_and_plays_first():
    """"Dealer places any one card from his/her hand onto the table face-up." "Dealer plays
    first" """
    s = dealt(4, 2)
    d = s.dealer
    assert s.actors() == (d,) and s.legal_actions(d) == [Lead(c) for c in s.view(d).hand]
    card = s.hands[d][3]
    s.apply(Lead(card))
    assert s.discard == [card] and s.turn == d and s.phase == "follow"


# -- play -------------------------------------------------------------------------------------

def test_holding_the_next_number_means_discarding_it_and_playing_again():
    """"If the player has a card of the next number, he/she discards it onto the discard pile
    face-up. That player gets another turn." """
    s = dealt(4, 0, first_dealer=0)
    arrange(s, [[C("cups", 4), C("coins", 5), C("clubs", 9)], [C("cups", 7)], [C("cups", 8)],
                [C("cups", 9)]], discard=[C("clubs", 3)])
    assert s.legal_actions(0) == [Discard(C("cups", 4))]           # no Pass: compulsory
    s.apply(Discard(C("cups", 4)))
    assert s.turn == 0 and s.needed() == 5
    s.apply(Discard(C("coins", 5)))
    assert s.legal_actions(0) == [Pass()]


def test_a_player_without_the_next_number_passes_counter_clockwise():
    """"If the player doesn't have one, he/she passes the turn to the next player." "turns move
    counter-clockwise" """
    s = dealt(4, 0, first_dealer=0)
    arrange(s, [[C("clubs", 9)], [C("cups", 7)], [C("cups", 8), C("cups", 4)], [C("cups", 9)]],
            discard=[C("clubs", 3)], turn=0)
    s.apply(Pass())
    assert s.turn == 1
    s.apply(Pass())
    assert s.turn == 2 and s.legal_actions(2) == [Discard(C("cups", 4))]


def test_the_sequence_loops_after_ten_or_after_twelve():
    """"if a 10 (Maid) is the top card on the discard pile, you must discard a 1 (Dragon)"; the
    variant: "if a 12 (King) is the top card on the discard pile, you must discard a 1" """
    s = dealt(4, 0)
    arrange(s, [[C("cups", 1)], [], [], []], discard=[C("clubs", 10)])
    assert s.needed() == 1
    s = dealt(4, 0, ruleset="yomi37")
    arrange(s, [[C("cups", 1)], [], [], []], discard=[C("clubs", 10)])
    assert s.needed() == 11
    s.discard.append(C("coins", 12))
    assert s.needed() == 1


def test_the_wild_card_follows_anything_and_is_followed_by_anything():
    """"The wild card can be used to follow any card, or be followed by any card, regardless of
    its number." """
    s = dealt(4, 0, first_dealer=0, wild=True)
    arrange(s, [[ONIFUDA, C("cups", 8), C("coins", 2)], [], [], []], discard=[C("clubs", 3)])
    assert s.legal_actions(0) == [Discard(ONIFUDA), Pass()]   # seed: it "can be used"
    s.apply(Discard(ONIFUDA))
    assert s.needed() == 0
    assert s.legal_actions(0) == [Discard(C("coins", 2)), Discard(C("cups", 8))]


def test_three_player_wild_is_the_two_of_swords():
    s = dealt(3, 0, first_dealer=0, wild=True)
    two = C("swords", 2)
    arrange(s, [[two, C("cups", 8)], [], []], discard=[C("clubs", 5)])
    assert Discard(two) in s.legal_actions(0)


def test_a_blocked_sequence_is_restarted_by_the_last_to_discard():
    """Seed silent on nobody holding the next number (possible with an undealt card): after a
    full round of passes the last player to discard leads any card."""
    s = dealt(4, 0, first_dealer=0, wild=True)
    arrange(s, [[C("cups", 8)], [C("cups", 9)], [C("coins", 9)], [C("clubs", 9)]],
            discard=[C("clubs", 3)], turn=0)
    events = []
    for _ in range(4):
        events += s.apply(Pass())
    assert events[-1].kind == "yomi.blocked" and s.phase == "lead" and s.turn == 0


def test_emptying_the_hand_wins_and_the_winner_deals_next():
    """"the goal is to discard all the cards in your hand ... If you do, the round ends and you
    win the round, and you become the dealer for the next round." """
    s = dealt(4, 0, first_dealer=0, rounds=2)
    arrange(s, [[C("clubs", 9)], [C("cups", 4), C("cups", 9)], [C("cups", 5)], [C("cups", 6)]],
            discard=[C("clubs", 3)], turn=1)
    s.apply(Discard(C("cups", 4)))
    assert s.turn == 1 and s.legal_actions(1) == [Pass()]
    s.apply(Pass())
    events = s.apply(Discard(C("cups", 5)))
    assert events[-1].kind == "yomi.won" and events[-1].seat == 2
    assert s.dealer == 2 and s.phase == "deal" and s.scores == [0, 0, 1, 0]


def test_yomi37_teyaku_sanko_checked_before_play_and_kept_private():
    """"Each player must check their hands for any Teyaku before the dealer starts their first
    turn." "Sanko/Danjuro (1, 2, and 10 of Clubs) is used." """
    for seed in range(200):
        s = new_game(4, seed, YomiOptions(ruleset="yomi37"))
        events = s.apply(Deal())
        holders = [h for h in range(4) if all(c in s.hands[h] for c in
                                               (C("clubs", 1), C("clubs", 2), C("clubs", 10)))]
        if holders:
            break
    assert [e.seat for e in events if e.kind == "yomi.teyaku"] == holders
    h = holders[0]
    assert s.view(h).teyaku == ("sanko",) and s.view((h + 1) % 4).teyaku == ()
    assert not any(e.kind == "yomi.teyaku" for e in
                   (s.redact(e, (h + 1) % 4) for e in events) if e is not None)


def test_yomi37_winner_scores_the_discards_the_undealt_card_and_teyaku():
    """"The winner earns points from all discarded cards, plus their Yaku points"; the undealt
    card "will be added to the score of the winner of the round". Values unattested: by default
    one point a card and 10 for Sanko."""
    s = dealt(4, 0, first_dealer=0, ruleset="yomi37")
    s.undealt = C("coins", 7)
    arrange(s, [[C("clubs", 4)], [C("cups", 11)], [C("cups", 12)], [C("coins", 6)]],
            discard=[C("clubs", 3)], turn=0)
    s.teyaku[0] = ("sanko",)
    events = s.apply(Discard(C("clubs", 4)))
    won = events[-2]
    assert len(s.discard) == 33
    assert won.kind == "yomi.won" and won.points == 33 + 1 + 10 and won.undealt == C("coins", 7)
    s = dealt(4, 0, first_dealer=0, ruleset="yomi37", card_points="rank")
    s.undealt = C("coins", 7)
    arrange(s, [[C("clubs", 4)], [C("cups", 11)], [C("cups", 12)], [C("coins", 6)]],
            discard=[C("clubs", 3)], turn=0)
    pile = sum(c.rank for c in s.discard) + 4
    assert s.apply(Discard(C("clubs", 4)))[-2].points == pile + 7


def test_illegal_actions_are_refused():
    s = dealt(4, 0, first_dealer=0)
    with pytest.raises(IllegalAction):
        s.apply(Pass())
    with pytest.raises(IllegalAction):
        s.apply(Lead(C("swords", 12)))


def test_refusals_name_the_rule():
    s = dealt(4, 0, first_dealer=0)
    assert s.why_illegal(0, Pass()).reason == "yomi.must_lead"          # a new sequence: lead
    assert s.why_illegal(1, Lead(s.hands[1][0])).reason == "turn.not_your_turn"
    assert s.why_illegal(0, Deal()).reason == "yomi.not_dealing"
    arrange(s, [[C("clubs", 4), C("cups", 7)], [C("coins", 1)], [C("swords", 2)], [C("cups", 9)]],
            discard=[C("clubs", 3)], turn=0)
    assert s.why_illegal(0, Pass()).reason == "yomi.must_discard"       # a 4 in hand: no pass
    wrong = s.why_illegal(0, Discard(C("cups", 7)))
    assert wrong.reason == "yomi.wrong_number" and wrong.fields["needed"] == 4
    assert s.why_illegal(0, Discard(C("cups", 9))).reason == "yomi.not_in_hand"
    assert s.why_illegal(0, Discard(C("clubs", 4))) is None
    with pytest.raises(IllegalAction) as refused:
        s.apply(Discard(C("cups", 7)))
    assert refused.value.reason == "yomi.wrong_number"


# -- whole games ------------------------------------------------------------------------------

CONFIGS = [(4, YomiOptions()), (3, YomiOptions()), (4, YomiOptions(wild=True)),
           (3, YomiOptions(wild=True)), (4, YomiOptions(ruleset="yomi37", rounds=2))]


@pytest.mark.parametrize("players, options", CONFIGS)
def test_random_games_keep_the_cards_and_hide_the_hands(players, options):
    for seed in range(40):
        s = new_game(players, seed, options)
        rng = random.Random(seed)
        while not s.is_over():
            s.apply(rng.choice(s.legal_actions(s.actors()[0])))
            s.check_invariants()
            for seat in range(players):
                v = s.view(seat)
                assert tuple(sorted(s.hands[seat])) == tuple(sorted(v.hand))
                assert s.undealt is None or s.undealt not in v.hand + v.discard
        out = s.outcome()
        assert out.winners and sum(out.scores) > 0


def test_a_four_player_game_without_a_wild_card_never_blocks():
    """With all 40 cards dealt the next number is always in somebody's hand."""
    for seed in range(100):
        s = play_out(new_session(registry.find("yomi"), seed, [CPU] * 4, {"level": "chain"}))
        assert not any(e.kind == "yomi.blocked" for e in s.log)


def test_the_session_is_deterministic_and_redacts_the_hands():
    v = registry.find("yomi", "wild")
    a = play_out(new_session(v, 5, [CPU] * 3))
    b = play_out(new_session(v, 5, [CPU] * 3))
    assert [e.fields() for e in a.log] == [e.fields() for e in b.log]
    s = new_session(v, 5, [HUMAN, CPU, CPU])
    s.run_cpus()
    hands = [e for e in s.log_for(0) if e.kind == "yomi.hand"]
    assert all(bool(e.cards) == (e.seat == 0) for e in hands)


def test_the_chain_cpu_wins_more_than_its_share_against_random():
    v = registry.find("yomi")
    wins = 0
    for g in range(300):
        s = play_out(new_session(v, g, [CPU] * 3, {"level": "chain", "against": "random",
                                                  "test_seat": g % 3}), check=False)
        wins += g % 3 in s.state.outcome().winners
    assert wins / 300 > 0.36          # fair share 1/3


def test_the_sample_cpu_decides_from_its_view_and_wins_more_than_chain():
    v = registry.find("yomi")
    wins = {"chain": 0, "sample": 0}
    for level in wins:
        for g in range(45):
            s = play_out(new_session(v, g, [CPU] * 3, {"level": level, "against": "random",
                                                      "test_seat": g % 3}), check=False)
            wins[level] += g % 3 in s.state.outcome().winners
    assert wins["sample"] > wins["chain"] > 15      # fair share 15 of 45


def test_clone_is_independent():
    s = dealt(4, 0)
    c = s.clone()
    c.apply(c.legal_actions(c.dealer)[0])
    assert s.phase == "lead" and s.discard == [] and len(s.hands[s.dealer]) == 10


def test_the_first_dealer_is_drawn_with_the_seed_or_chosen():
    """"There is no attested method for choosing a dealer, so you may use whichever method suits
    you": a seeded draw, or the option `first_dealer`."""
    assert {new_game(4, seed).dealer for seed in range(40)} == {0, 1, 2, 3}
    assert new_game(4, 9).dealer == new_game(4, 9).dealer
    assert new_game(3, 1, YomiOptions(first_dealer=2)).dealer == 2


def test_western_faces_drop_the_spades_with_three_players():
    """"you may use western playing cards by removing all courts (and all cards of the Spade suit,
    if playing with only 3 players), and using the Joker as the wild card" """
    from trainer.rules.decks import WESTERN_SUITS
    cards, _ = deck_for(3, YomiOptions())
    assert "spades" not in {WESTERN_SUITS[c.suit] for c in cards}
    assert WESTERN_SUITS["swords"] == "spades"


def test_simulate_yomi_and_yomi37_through_the_registry(capsys):
    import json

    from trainer.cli import main
    assert main(["simulate", "yomi", "--variant", "wild", "--players", "3", "--games", "4",
                 "--level", "chain", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4 and out["invariants"] == "held" and sum(out["wins_by_seat"]) >= 4
    assert main(["simulate", "yomi37", "--games", "2", "--players", "3"]) == 2
    assert "4 players" in capsys.readouterr().err


def test_every_event_of_a_game_reads_in_both_languages():
    from trainer.ui.i18n import LANG
    from trainer.text.yomi import describe_yomi
    s = play_out(new_session(registry.find("yomi"), 1, [CPU] * 4, {"level": "random"}))
    before = LANG.code
    try:
        for code in ("ja", "en"):
            LANG.set(code)
            lines = [describe_yomi(e) for e in s.log_for(0)]
            assert all(line and "{" not in line for line in lines)
    finally:
        LANG.set(before)


def test_card_faces_western_and_hanafuda():
    """"you may use western playing cards ... using the Joker as the wild card"; "You may also use
    hanafuda" (the month standing for the number)."""
    from trainer.rules.decks import hanafuda_month_of_rank, western_face
    assert western_face(C("cups", 7)) == "7 of hearts" and western_face(ONIFUDA) == "Joker"
    assert western_face(C("clubs", 1)) == "Ace of clubs"
    assert [hanafuda_month_of_rank(r) for r in (1, 10, 12)] == [1, 10, 12]
