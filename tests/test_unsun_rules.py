"""Unsun karuta (Hachi-nin Meri) rules of seed 004, one test (or family) per rule."""
from __future__ import annotations

import itertools

import pytest

from trainer.games.protocol import READER, GameState
from trainer.rules.unsun import (DECK, GURU, ISU, KABA, KOTSU, MEIRAF, MERI, MONCHI, ORI, PAO,
                                 PLAIN_TABLES, PLAYERS, REI, ROBAI, SOTA, SUITS, SUN, TENKA,
                                 TRUMP_TABLES, UN, Card, Deal, DealScored, Discard, Discarded, HandDealt,
                                 HideRobai, IllegalAction, MeriDeclared, MonchiBegins, OkieTaken,
                                 Play, Played, RANKINGS, Robau, RobaiDeclared, RobaiHidden,
                                 RobaiUnheld, TrickWon, UnsunRules, UnsunState, YakuMade, YakuVoid,
                                 deal_points, new_game, table_cards, team_of, trick_winner)

C = Card


# -- helpers: a deal at a chosen moment --------------------------------------------------------

def rigged(trump: str, hands: dict[int, list[Card]], *, leader: int = 0, phase: str = MEIRAF,
           trick_no: int = 1, played: tuple[Card, ...] = (), hidden_robai: bool = False,
           rules: UnsunRules | None = None) -> UnsunState:
    """A deal in play with the given hands (seats not named hold one low filler card each)."""
    s = new_game(0, rules)
    s.deal_no, s.trump, s.okie, s.phase = 0, trump, C(trump, 5), phase
    used = {c for h in hands.values() for c in h} | set(played)
    filler = iter(c for c in DECK if c not in used and c.suit != trump and c != TENKA)
    s.hands = [list(hands.get(seat, [next(filler)])) for seat in range(PLAYERS)]
    s.leader = s.to_act = leader
    s.trick_no = trick_no
    s.meri_trick = None if phase == MEIRAF else trick_no - (phase == MONCHI)
    s.played = set(played)
    s.hidden_robai = hidden_robai
    return s


def play_round(s: UnsunState, cards: dict[int, Card]) -> list:
    """Every seat plays its card from the leader on; the events."""
    events = []
    seat = s.leader
    for _ in range(PLAYERS):
        events += s.apply(Play(seat, cards[seat]))
        seat = (seat + 1) % PLAYERS
    return events


def low(seat: int, trump: str) -> Card:
    """A plain filler card for `seat`, never trump, distinct per seat."""
    suit = next(x for x in (GURU, ORI, KOTSU, ISU) if x != trump)
    return C(suit, seat + 1)


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


# -- the deck, the seats, the deal --------------------------------------------------------------

def test_deck_has_75_cards_five_suits_of_1_to_9_and_six_courts():
    assert len(DECK) == len(set(DECK)) == 75
    assert SUITS == (PAO, ISU, KOTSU, ORI, GURU)
    for suit in SUITS:
        assert sorted(c.rank for c in DECK if c.suit == suit) == list(range(1, 16))
    assert [C(PAO, r).kana() for r in (10, 11, 12, 14, 15)] == [
        "パオのカバ", "パオのレイ", "パオのロバイ", "パオのウン", "パオのスン"]
    assert C(ISU, SOTA).kana() == "イスのソウタ" and TENKA.kana() == "テンカ"


def test_teams_sit_alternately_team_a_even_seats_team_b_odd_seats():
    assert [s for s in range(8) if team_of(s) == 0] == [0, 2, 4, 6]
    assert [s for s in range(8) if team_of(s) == 1] == [1, 3, 5, 7]


def test_play_proceeds_counterclockwise_seat_after_seat():
    s = rigged(KOTSU, {seat: [low(seat, KOTSU)] for seat in range(8)}, leader=5)
    order = []
    while s.trick_no == 1:
        seat = s.actors()[0]
        order.append(seat)
        s.apply(s.legal_actions(seat)[0])
    assert order == [5, 6, 7, 0, 1, 2, 3, 4]


def test_engine_follows_the_game_protocol():
    assert isinstance(new_game(1), GameState)
    assert new_game(1).actors() == (READER,)


def test_nine_cards_each_and_the_73rd_card_is_the_okie_whose_suit_is_trump():
    for seed in range(30):
        s = new_game(seed)
        events = s.apply(Deal())
        dealt = of(events, HandDealt)
        assert [d.seat for d in dealt] == list(range(8)) and all(len(d.cards) == 9 for d in dealt)
        assert sum(len(h) for h in s.hands) == 72 + (s.okie_holder is not None)
        start = events[0]
        assert start.okie == s.okie and s.trump == s.okie.suit == start.trump
        assert s.okie not in {c for h in s.hands for c in h} or s.okie_holder is not None
        assert len(s.set_aside) == 2
        s.check_invariants()


def test_same_seed_same_deal_other_seed_other_deal():
    a, b, c = new_game(7), new_game(7), new_game(8)
    for s in (a, b, c):
        s.apply(Deal())
    assert a.hands == b.hands and a.okie == b.okie
    assert a.hands != c.hands


def test_tenka_pao_sota_joins_trump_when_trump_is_not_pao():
    for trump in (ISU, KOTSU, ORI, GURU):
        assert RANKINGS[trump].is_trump(TENKA)
        assert RANKINGS[trump].suit_of(TENKA) == trump
    assert RANKINGS[PAO].is_trump(C(PAO, SOTA))  # plain ソウタ of the trump suit
    assert len(RANKINGS[PAO].trumps) == 15
    assert all(len(RANKINGS[t].trumps) == 16 for t in (ISU, KOTSU, ORI, GURU))


# -- Robai --------------------------------------------------------------------------------------

def deal_where(predicate, rules: UnsunRules | None = None) -> UnsunState:
    for seed in range(500):
        s = new_game(seed, rules)
        s.apply(Deal())
        if predicate(s):
            return s
    raise AssertionError("no such deal in 500 seeds")


def test_robai_holder_chooses_between_robau_and_hidden_robai():
    s = deal_where(lambda s: s.robai_holder is not None)
    holder = s.robai_holder
    assert C(s.trump, ROBAI) in s.hands[holder]
    assert s.actors() == (holder,)
    assert s.legal_actions(holder) == [Robau(holder), HideRobai(holder)]


def test_robau_takes_the_okie_then_discards_one_card_back_to_9():
    s = deal_where(lambda s: s.robai_holder not in (None, s.dealer))
    holder, okie = s.robai_holder, s.okie
    events = s.apply(Robau(holder))
    assert of(events, RobaiDeclared) == [RobaiDeclared(holder)]
    assert okie in s.hands[holder] and len(s.hands[holder]) == 10
    assert s.legal_actions(holder) == [Discard(holder, c) for c in s.hands[holder]]
    thrown = s.hands[holder][0]
    s.apply(Discard(holder, thrown))
    assert len(s.hands[holder]) == 9 and thrown not in s.hands[holder]
    assert s.phase == MEIRAF and not s.hidden_robai
    assert s.actors() == (holder,)  # the Okié's taker leads (UnsunRules.first_lead)
    s.check_invariants()


def test_hidden_robai_dealer_takes_the_okie_and_discards():
    s = deal_where(lambda s: s.robai_holder not in (None, s.dealer))
    holder, dealer, okie = s.robai_holder, s.dealer, s.okie
    events = s.apply(HideRobai(holder))
    assert s.hidden_robai
    assert of(events, OkieTaken) == [OkieTaken(dealer, okie)]
    assert s.actors() == (dealer,) and len(s.hands[dealer]) == 10
    s.apply(s.legal_actions(dealer)[0])
    assert len(s.hands[dealer]) == 9 and s.phase == MEIRAF
    s.check_invariants()


def test_hidden_robai_holder_is_not_named_to_other_seats():
    s = deal_where(lambda s: s.robai_holder not in (None, s.dealer))
    holder = s.robai_holder
    other = (holder + 1) % 8
    assert s.view(other).to_act is None and s.view(holder).to_act == holder
    event = of(s.apply(HideRobai(holder)), RobaiHidden)[0]
    assert s.redact(event, holder).seat == holder
    assert s.redact(event, other).seat is None


def test_unheld_robai_dealer_takes_the_okie_by_default_yaku_stay_at_2():
    s = deal_where(lambda s: s.robai_holder is None)
    assert not s.hidden_robai and s.okie_holder == s.dealer and s.actors() == (s.dealer,)


def test_unheld_robai_okie_stays_when_set():
    s = deal_where(lambda s: s.robai_holder is None, UnsunRules(unheld_robai="okie_stays"))
    assert s.okie_on_table and s.okie_holder is None
    assert s.phase == MEIRAF and s.actors() == (s.dealer,)
    s.check_invariants()


def test_unheld_robai_is_announced():
    for seed in range(500):
        s = new_game(seed)
        events = s.apply(Deal())
        if s.robai_holder is None:
            assert of(events, RobaiUnheld) == [RobaiUnheld(s.dealer, s.okie == Card(s.trump, ROBAI))]
            return
    raise AssertionError("no unheld Robai in 500 seeds")


def _first_deal_where(robai_is_okie: bool) -> tuple[UnsunState, list]:
    for seed in range(5000):
        s = new_game(seed)
        events = s.apply(Deal())
        if s.robai_holder is None and (s.okie == Card(s.trump, ROBAI)) == robai_is_okie:
            return s, events
    raise AssertionError("no such deal in 5000 seeds")


def test_a_set_aside_robai_is_told_to_nobody():
    """docs/unsun.md: the two cards after the Okié are seen by nobody. Telling every seat that
    nobody holds the trump ロバイ (while the Okié is not it) says it is one of those two."""
    s, events = _first_deal_where(robai_is_okie=False)
    assert of(events, RobaiUnheld)                   # the full log knows
    for seat in range(PLAYERS):
        seen = [s.redact(e, seat) for e in events]
        assert not any(isinstance(e, RobaiUnheld) for e in seen), f"seat {seat} learns it"


def test_an_unheld_robai_that_is_the_okie_is_announced_to_everyone():
    s, events = _first_deal_where(robai_is_okie=True)
    for seat in range(PLAYERS):
        seen = [s.redact(e, seat) for e in events]
        assert [e for e in seen if isinstance(e, RobaiUnheld)] == [RobaiUnheld(s.dealer, True)]


def test_first_lead_after_dealer_when_set():
    s = deal_where(lambda s: s.robai_holder not in (None, s.dealer, (s.dealer + 1) % 8),
                   UnsunRules(first_lead="after_dealer"))
    s.apply(Robau(s.robai_holder))
    s.apply(s.legal_actions(s.robai_holder)[0])
    assert s.actors() == ((s.dealer + 1) % 8,)


def test_the_deal_passes_one_seat_each_deal_so_every_seat_deals_once_in_8():
    s = new_game(3, UnsunRules())
    from trainer.players.unsun_cpu import RandomCpu
    cpus = [RandomCpu(k, 3) for k in range(8)]
    dealers = []
    while not s.is_over():
        seat = s.actors()[0]
        if seat == READER:
            s.apply(Deal())
            dealers.append(s.dealer)
        else:
            s.apply(cpus[seat].choose(s.view(seat), s.legal_actions(seat)))
    assert dealers == list(range(8))


def test_robai_choices_refused_out_of_turn():
    s = deal_where(lambda s: s.robai_holder is not None)
    other = (s.robai_holder + 1) % 8
    with pytest.raises(IllegalAction):
        s.apply(Robau(other))
    with pytest.raises(ValueError):
        s.apply(Play(9, C(PAO, 1)))


# -- card strength: every ordered pair of every table -------------------------------------------

def _pairs(cards):
    return [(a, b) for a, b in itertools.permutations(cards, 2)]


TRUMP_CASES = [("pao", PAO), ("isu", ISU), ("round", KOTSU), ("round", ORI), ("round", GURU)]


@pytest.mark.parametrize("table,trump", TRUMP_CASES)
def test_trump_strength_table_every_ordered_pair(table, trump):
    cards = table_cards(TRUMP_TABLES[table], trump)
    assert len(cards) == (15 if trump == PAO else 16) == len(set(cards))
    assert set(cards) == RANKINGS[trump].trumps
    for a, b in _pairs(cards):
        stronger = a if cards.index(a) < cards.index(b) else b
        assert trick_winner([(0, a), (1, b)], trump) == (0 if stronger == a else 1), (a, b)


PLAIN_CASES = [("pao", PAO, ISU), ("pao", PAO, GURU), ("isu", ISU, PAO), ("isu", ISU, KOTSU),
               ("round", KOTSU, ISU), ("round", ORI, PAO), ("round", GURU, KOTSU)]


@pytest.mark.parametrize("table,suit,trump", PLAIN_CASES)
def test_non_trump_strength_table_every_ordered_pair(table, suit, trump):
    cards = table_cards(PLAIN_TABLES[table], suit)
    assert len(cards) == (14 if suit == PAO else 15) == len(set(cards))
    assert TENKA not in cards  # "パオ (ソウタ is absent — becomes テンカ)"
    for a, b in _pairs(cards):
        stronger = a if cards.index(a) < cards.index(b) else b
        assert trick_winner([(0, a), (1, b)], trump) == (0 if stronger == a else 1), (a, b)


def test_non_trump_isu_robai_lies_between_2_and_1():
    cards = table_cards(PLAIN_TABLES["isu"], ISU)
    assert cards.index(C(ISU, 2)) < cards.index(C(ISU, ROBAI)) < cards.index(C(ISU, 1))


def test_round_suits_rank_pips_1_high_long_suits_9_high():
    assert trick_winner([(0, C(KOTSU, 9)), (1, C(KOTSU, 1))], PAO) == 1
    assert trick_winner([(0, C(ISU, 1)), (1, C(ISU, 9))], PAO) == 1
    assert trick_winner([(0, C(ORI, 9)), (1, C(ORI, 1))], ORI) == 1


# -- trick resolution ---------------------------------------------------------------------------

def test_trick_highest_trump_wins_if_any_trump_was_played():
    plays = [(0, C(ISU, SUN)), (1, C(KOTSU, 9)), (2, C(ISU, UN)), (3, C(KOTSU, KABA))]
    assert trick_winner(plays, KOTSU) == 3
    assert trick_winner([(0, C(ISU, SUN)), (1, TENKA), (2, C(KOTSU, KABA))], KOTSU) == 1


def test_trick_otherwise_highest_card_of_the_led_suit_wins():
    plays = [(0, C(ISU, 3)), (1, C(ISU, 7)), (2, C(ORI, SUN)), (3, C(ISU, ROBAI))]
    assert trick_winner(plays, KOTSU) == 1


def test_trick_cards_of_another_suit_never_win():
    plays = [(4, C(GURU, 9)), (5, C(PAO, SUN)), (6, C(ISU, SUN))]
    assert trick_winner(plays, KOTSU) == 4


# -- phases: Meiraf, Meri, Monchi ---------------------------------------------------------------

def test_meiraf_free_play_no_follow_obligation():
    s = rigged(KOTSU, {0: [C(ISU, 3)], 1: [C(ISU, 5), C(ORI, 2), C(KOTSU, 4)]}, leader=0)
    s.apply(Play(0, C(ISU, 3)))
    assert set(s.playable(1)) == {C(ISU, 5), C(ORI, 2), C(KOTSU, 4)}


def test_meiraf_trump_played_by_a_follower_goes_face_down():
    s = rigged(KOTSU, {0: [C(ISU, 3)], 1: [C(KOTSU, 4)], 2: [C(ORI, 4)]}, leader=0)
    lead = s.apply(Play(0, C(ISU, 3)))
    follow = s.apply(Play(1, C(KOTSU, 4)))
    plain = s.apply(Play(2, C(ORI, 4)))
    assert of(lead, Played)[0].face_down is False
    assert of(follow, Played)[0].face_down is True
    assert of(plain, Played)[0].face_down is False
    assert s.phase == MEIRAF


def test_meiraf_first_trick_cannot_lead_trump_unless_all_trump():
    s = rigged(KOTSU, {0: [C(KOTSU, 1), C(ISU, 3)]}, trick_no=0)
    assert s.playable(0) == [C(ISU, 3)]
    s = rigged(KOTSU, {0: [C(KOTSU, 1), TENKA]}, trick_no=0)
    assert set(s.playable(0)) == {C(KOTSU, 1), TENKA}
    with pytest.raises(IllegalAction):
        rigged(KOTSU, {0: [C(KOTSU, 1), C(ISU, 3)]}, trick_no=0).apply(Play(0, C(KOTSU, 1)))


def test_meiraf_trump_may_be_led_after_the_first_trick():
    s = rigged(KOTSU, {0: [C(KOTSU, 1), C(ISU, 3)]}, trick_no=1)
    assert set(s.playable(0)) == {C(KOTSU, 1), C(ISU, 3)}


def test_meri_a_trump_lead_declares_meri():
    s = rigged(KOTSU, {0: [C(KOTSU, 1), C(ISU, 3)]}, trick_no=2)
    events = s.apply(Play(0, C(KOTSU, 1)))
    assert of(events, MeriDeclared) == [MeriDeclared(0, C(KOTSU, 1), 2)]
    assert s.phase == MERI and s.meri_trick == 2


def test_meri_everyone_holding_trump_plays_trump_face_up_others_play_anything():
    hands = {0: [C(KOTSU, 1)], 1: [C(KOTSU, 5), C(ISU, 9)], 2: [C(ISU, 4), C(ORI, 2)],
             3: [TENKA, C(ORI, 3)]}
    s = rigged(KOTSU, hands, trick_no=1)
    s.apply(Play(0, C(KOTSU, 1)))
    assert s.playable(1) == [C(KOTSU, 5)]
    assert of(s.apply(Play(1, C(KOTSU, 5))), Played)[0].face_down is False
    assert set(s.playable(2)) == {C(ISU, 4), C(ORI, 2)}
    s.apply(Play(2, C(ORI, 2)))
    assert s.playable(3) == [TENKA]  # テンカ is trump
    assert of(s.apply(Play(3, TENKA)), Played)[0].face_down is False


def test_monchi_begins_on_the_trick_after_meri():
    cards = {seat: low(seat, KOTSU) for seat in range(8)}
    cards[0] = C(KOTSU, 1)
    s = rigged(KOTSU, {seat: [c, C(GURU, 9 - seat % 2)] if seat in (0, 1) else [c]
                       for seat, c in cards.items()}, trick_no=3)
    events = play_round(s, cards)
    assert of(events, MonchiBegins) == [MonchiBegins(4)]
    assert s.phase == MONCHI


def test_monchi_follow_the_led_suit_or_play_trump():
    hands = {0: [C(ISU, 3)], 1: [C(ISU, 5), C(KOTSU, 4), C(ORI, 2)]}
    s = rigged(KOTSU, hands, phase=MONCHI, trick_no=3)
    s.apply(Play(0, C(ISU, 3)))
    assert set(s.playable(1)) == {C(ISU, 5), C(KOTSU, 4)}


def test_monchi_a_player_void_in_the_led_suit_plays_anything():
    hands = {0: [C(ISU, 3)], 1: [C(KOTSU, 4), C(ORI, 2)]}
    s = rigged(KOTSU, hands, phase=MONCHI, trick_no=3)
    s.apply(Play(0, C(ISU, 3)))
    assert set(s.playable(1)) == {C(KOTSU, 4), C(ORI, 2)}


def test_monchi_tenka_is_not_a_pao_card_for_following():
    hands = {0: [C(PAO, 3)], 1: [TENKA, C(ORI, 2)]}
    s = rigged(KOTSU, hands, phase=MONCHI, trick_no=3)
    s.apply(Play(0, C(PAO, 3)))
    assert set(s.playable(1)) == {TENKA, C(ORI, 2)}  # void in パオ: anything


def test_monchi_trump_led_trump_if_able_and_followers_face_down():
    hands = {0: [C(KOTSU, 3)], 1: [C(KOTSU, 4), C(ORI, 2)], 2: [C(ORI, 5)]}
    s = rigged(KOTSU, hands, phase=MONCHI, trick_no=3)
    s.apply(Play(0, C(KOTSU, 3)))
    assert s.playable(1) == [C(KOTSU, 4)]
    assert of(s.apply(Play(1, C(KOTSU, 4))), Played)[0].face_down is True
    assert s.playable(2) == [C(ORI, 5)]
    assert s.phase == MONCHI and s.meri_trick == 2  # Meri happens once


def test_monchi_trump_followers_face_down_on_a_plain_lead():
    hands = {0: [C(ISU, 3)], 1: [C(KOTSU, 4), C(ISU, 9)]}
    s = rigged(KOTSU, hands, phase=MONCHI, trick_no=3)
    s.apply(Play(0, C(ISU, 3)))
    assert of(s.apply(Play(1, C(KOTSU, 4))), Played)[0].face_down is True


def test_face_down_cards_are_turned_up_when_the_trick_is_complete():
    cards = {seat: low(seat, KOTSU) for seat in range(8)}
    cards[3], cards[6] = C(KOTSU, KABA), TENKA
    s = rigged(KOTSU, {seat: [c] for seat, c in cards.items()})
    won = of(play_round(s, cards), TrickWon)[0]
    assert won.revealed == ((3, C(KOTSU, KABA)), (6, TENKA))
    assert won.seat == 6 and won.team == 0 and won.card == TENKA


def test_the_winner_of_a_trick_leads_the_next():
    cards = {seat: low(seat, KOTSU) for seat in range(8)}
    cards[5] = C(KOTSU, 9)
    s = rigged(KOTSU, {seat: [c, C(PAO, seat + 1)] for seat, c in cards.items()})
    play_round(s, cards)
    assert s.actors() == (5,) and s.leader == 5


# -- yaku -------------------------------------------------------------------------------------

def yaku_trick(trump: str, high: Card, low_card: Card, *, high_seat: int = 1, low_seat: int = 2,
               trick_no: int = 3, phase: str = MONCHI, played: tuple[Card, ...] = (),
               hidden_robai: bool = False, rules: UnsunRules | None = None,
               lead: Card | None = None):
    """A trick led plain by seat 0 in which `high_seat` and `low_seat` play trumps face-down."""
    cards = {seat: low(seat, trump) for seat in range(8)}
    if lead is not None:
        cards[0] = lead
    cards[high_seat], cards[low_seat] = high, low_card
    s = rigged(trump, {seat: [c] for seat, c in cards.items()}, trick_no=trick_no, phase=phase,
               played=played, hidden_robai=hidden_robai, rules=rules)
    s.history = [()] * trick_no  # earlier tricks' places, for the counters only
    return s, play_round(s, cards)


YAKU_CASES = [(KOTSU, SUN, UN), (KOTSU, UN, SOTA), (KOTSU, SOTA, ROBAI), (KOTSU, ROBAI, REI),
              (ISU, 2, 1), (PAO, 2, 1), (KOTSU, 8, 9), (ORI, 8, 9), (GURU, 8, 9),
              (PAO, SUN, UN), (ISU, ROBAI, REI)]


@pytest.mark.parametrize("trump,high,lower", YAKU_CASES)
def test_yaku_each_pair_between_enemies_face_down_is_worth_2(trump, high, lower):
    s, events = yaku_trick(trump, C(trump, high), C(trump, lower), high_seat=3, low_seat=6)
    assert of(events, YakuMade) == [YakuMade(3, 3, C(trump, high), 6, C(trump, lower), 1, 2)]
    assert s.yaku == [0, 2]


@pytest.mark.parametrize("trump,high,lower", [(ISU, 8, 9), (KOTSU, 2, 1), (KOTSU, SUN, SOTA),
                                              (KOTSU, REI, KABA), (KOTSU, SUN, REI)])
def test_yaku_other_pairs_are_no_yaku(trump, high, lower):
    _, events = yaku_trick(trump, C(trump, high), C(trump, lower))
    assert not of(events, YakuMade) and not of(events, YakuVoid)


def test_yaku_pip_pair_follows_the_trump_suits_shape():
    _, long_events = yaku_trick(PAO, C(PAO, 2), C(PAO, 1))
    _, round_events = yaku_trick(GURU, C(GURU, 8), C(GURU, 9))
    assert of(long_events, YakuMade) and of(round_events, YakuMade)


def test_yaku_is_worth_5_on_the_last_trick():
    s, events = yaku_trick(KOTSU, C(KOTSU, UN), C(KOTSU, SOTA), trick_no=8)
    assert of(events, YakuMade)[0].points == 5
    assert of(events, DealScored)


def test_yaku_is_worth_5_under_hidden_robai():
    _, events = yaku_trick(KOTSU, C(KOTSU, UN), C(KOTSU, SOTA), hidden_robai=True)
    assert of(events, YakuMade)[0].points == 5


def test_yaku_never_on_the_meri_trick():
    s, events = yaku_trick(KOTSU, C(KOTSU, UN), C(KOTSU, SOTA), phase=MEIRAF,
                           lead=C(KOTSU, 4))
    assert of(events, MeriDeclared) and not of(events, YakuMade)


def test_yaku_only_between_enemies_not_partners():
    _, events = yaku_trick(KOTSU, C(KOTSU, UN), C(KOTSU, SOTA), high_seat=1, low_seat=3)
    assert not of(events, YakuMade)


def test_yaku_in_meiraf_on_face_down_follower_trumps():
    _, events = yaku_trick(KOTSU, C(KOTSU, ROBAI), C(KOTSU, REI), phase=MEIRAF)
    assert of(events, YakuMade)


def test_yaku_scores_even_when_its_maker_does_not_win_the_trick():
    s, events = yaku_trick(KOTSU, C(KOTSU, 8), C(KOTSU, 9), high_seat=1, low_seat=2)
    assert of(events, YakuMade)[0].team == 1
    assert of(events, TrickWon)[0].seat == 1  # 8 beats 9 in round trump anyway


def test_yaku_tenka_is_not_in_the_chain():
    _, events = yaku_trick(KOTSU, TENKA, C(KOTSU, ROBAI))
    assert not of(events, YakuMade)


@pytest.mark.parametrize("high,lower,above", [(UN, SOTA, (SUN,)), (SOTA, ROBAI, (SUN, UN)),
                                              (ROBAI, REI, (SUN, UN, SOTA))])
def test_yaku_void_when_every_chain_card_above_the_winner_was_played(high, lower, above):
    gone = tuple(C(KOTSU, r) for r in above)
    s, events = yaku_trick(KOTSU, C(KOTSU, high), C(KOTSU, lower), played=gone)
    assert of(events, YakuVoid) == [YakuVoid(3, 1, C(KOTSU, high), 2, C(KOTSU, lower))]
    assert not of(events, YakuMade) and s.yaku == [0, 0]
    # one chain card above still unplayed: the yaku stands
    s, events = yaku_trick(KOTSU, C(KOTSU, high), C(KOTSU, lower), played=gone[1:])
    assert of(events, YakuMade) and not of(events, YakuVoid)


def test_yaku_sun_over_un_and_pip_pairs_are_never_void():
    everything = tuple(c for c in DECK if c.suit == KOTSU and c.rank not in (SUN, UN, 8, 9))
    for high, lower in ((SUN, UN), (8, 9)):
        _, events = yaku_trick(KOTSU, C(KOTSU, high), C(KOTSU, lower), played=everything)
        assert of(events, YakuMade), (high, lower)


def test_yaku_order_later_needs_the_winner_played_after_the_card_it_beats():
    later = UnsunRules(yaku_order="later")
    _, before = yaku_trick(KOTSU, C(KOTSU, UN), C(KOTSU, SOTA), high_seat=1, low_seat=2, rules=later)
    _, after = yaku_trick(KOTSU, C(KOTSU, UN), C(KOTSU, SOTA), high_seat=5, low_seat=2, rules=later)
    assert not of(before, YakuMade) and of(after, YakuMade)


def test_yaku_several_pairs_on_one_trick_all_count():
    cards = {seat: low(seat, KOTSU) for seat in range(8)}
    cards[1], cards[2], cards[3] = C(KOTSU, SUN), C(KOTSU, UN), C(KOTSU, SOTA)
    s = rigged(KOTSU, {seat: [c] for seat, c in cards.items()}, phase=MONCHI, trick_no=3)
    s.history = [()] * 3
    events = play_round(s, cards)
    assert [(y.seat, y.over_seat, y.team) for y in of(events, YakuMade)] == [(1, 2, 1), (2, 3, 0)]
    assert s.yaku == [2, 2]


# -- scoring ----------------------------------------------------------------------------------

def test_scoring_more_tricks_scores_the_difference_plus_its_yaku():
    assert deal_points((6, 3), (2, 0)) == (5, 0)
    assert deal_points((2, 7), (4, 5)) == (0, 10)


def test_scoring_fewer_tricks_scores_nothing_even_with_yaku():
    assert deal_points((5, 4), (0, 10)) == (1, 0)


def test_scoring_a_tie_scores_nothing():
    assert deal_points((4, 4), (2, 5)) == (0, 0)


def test_scoring_a_deal_adds_to_the_totals_and_the_game_lasts_8_deals():
    from trainer.players.unsun_cpu import RandomCpu
    s = new_game(11)
    cpus = [RandomCpu(k, 11) for k in range(8)]
    scored = []
    while not s.is_over():
        seat = s.actors()[0]
        action = Deal() if seat == READER else cpus[seat].choose(s.view(seat), s.legal_actions(seat))
        scored += of(s.apply(action), DealScored)
    assert len(scored) == len(s.results) == 8
    for d, r in zip(scored, s.results):
        assert (d.points_a, d.points_b) == deal_points((d.tricks_a, d.tricks_b), (d.yaku_a, d.yaku_b))
        assert (d.tricks_a, d.tricks_b) == r.tricks
    assert s.totals == [sum(d.points_a for d in scored), sum(d.points_b for d in scored)]
    out = s.outcome()
    best = max(s.totals)
    assert all(out.scores[w] == best for w in out.winners)
    assert out.scores == tuple(s.totals[k % 2] for k in range(8))


def test_rules_settings_refuse_unknown_values():
    with pytest.raises(ValueError, match="first_lead"):
        UnsunRules(first_lead="youngest")
    with pytest.raises(ValueError, match="deal"):
        UnsunRules(deals=0)
    assert UnsunRules.from_options({"yaku_order": "later", "cpu_level": "x"}).yaku_order == "later"


# -- hidden information -------------------------------------------------------------------------

def test_face_down_card_hidden_in_other_views_and_logs_until_the_trick_ends():
    s = rigged(KOTSU, {0: [C(ISU, 3)], 1: [C(KOTSU, 4), C(ISU, 8)], 2: [C(ORI, 4)]}, leader=0)
    s.apply(Play(0, C(ISU, 3)))
    event = of(s.apply(Play(1, C(KOTSU, 4))), Played)[0]
    for seat in range(8):
        seen = s.view(seat).trick[1]
        assert seen.face_down
        assert seen.card == (C(KOTSU, 4) if seat == 1 else None)
        assert s.redact(event, seat).card == (C(KOTSU, 4) if seat == 1 else None)
        assert (C(KOTSU, 4) in s.view(seat).cards_seen()) == (seat == 1)


def test_discard_and_hands_are_seen_only_by_their_owner():
    s = deal_where(lambda s: s.robai_holder not in (None, s.dealer))
    holder = s.robai_holder
    s.apply(Robau(holder))
    thrown = next(c for c in s.hands[holder] if c != s.okie)
    event = of(s.apply(Discard(holder, thrown)), Discarded)[0]
    for seat in range(8):
        assert (thrown in s.view(seat).cards_seen()) == (seat == holder)
        assert s.redact(event, seat).card == (thrown if seat == holder else None)
        for other in range(8):
            if other != seat:
                assert not (s.secrets_of(other) & s.view(seat).cards_seen())


def test_why_illegal_says_the_follow_rule_of_every_held_card_playable_refuses():
    """The engine's refusals agree with `playable` card by card (the screen shows these, and
    re-derives nothing): a playable card has no refusal, every other held card has its rule."""
    import random as _random
    follow_rules = {"unsun.first_lead_trump", "unsun.meri_trump", "unsun.trump_led", "unsun.must_follow"}
    seen: set[str] = set()
    for seed in range(12):
        s, rng = new_game(seed), _random.Random(seed)
        while not s.is_over():
            seat = s.actors()[0]
            if seat != READER and s.phase in (MEIRAF, MERI, MONCHI):
                ok = set(s.playable(seat))
                for card in s.hands[seat]:
                    refusal = s.why_illegal(seat, Play(seat, card))
                    assert (refusal is None) == (card in ok), (seed, card)
                    if refusal is not None:
                        assert refusal.reason in follow_rules
                        seen.add(refusal.reason)
                other = (seat + 1) % PLAYERS
                if s.hands[other]:
                    assert s.why_illegal(other, Play(other, s.hands[other][0])).reason == "turn.not_your_turn"
            s.apply(rng.choice(s.legal_actions(seat)))
    assert seen == follow_rules
