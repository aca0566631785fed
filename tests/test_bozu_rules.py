"""Bōzu-mekuri's engine, rule by rule of the reference page (reference/rules/hyakunin-isshu-games.md,
"Bōzu Mekuri"; each test quotes its sentence), the regional rules as options, then whole games
with the invariants, the hidden stack, the session and the simulator."""
from __future__ import annotations

import random

import pytest

from poems.poets import poets
from trainer.games import registry
from trainer.games.bozu_session import new_session
from trainer.games.turn_session import CPU, HUMAN, play_out
from trainer.rules.bozu import BozuCard, BozuOptions, BozuState, Draw, IllegalAction, deck, new_game

MAN, MONK, WOMAN, EMPEROR, EMPRESS, SEMIMARU = 3, 8, 9, 1, 2, 10
NYUDO, PRINCE = 76, 20


def card(no: int) -> BozuCard:
    return BozuCard(no, poets()[no].kind)


def men(n: int, skip: tuple[int, ...] = ()) -> list[int]:
    return [no for no, p in sorted(poets().items()) if p.kind == "man" and "semimaru" not in p.marks
            and no not in skip][:n]


def rigged(players: int, draws: list[int], first: int = 0, **kw) -> BozuState:
    """A game whose stack gives `draws` first, in that order, then every other card."""
    s = new_game(players, 0, BozuOptions(first_player=first, **kw))
    rest = [c for c in deck() if c.no not in draws]
    if kw.get("stacks", 1) == 1:
        s.stacks = [rest + [card(n) for n in reversed(draws)]]
    s.check_invariants()
    return s


def draw(s: BozuState, times: int = 1, stack: int = 0) -> list:
    events = []
    for _ in range(times):
        events += s.apply(Draw(stack))
        s.check_invariants()
    return events


# -- the cards and the table -------------------------------------------------------------------

def test_only_the_100_yomifuda_are_used():
    """"Only the 100 Yomifuda of a Hyakunin Isshu set are used." """
    cards = deck()
    assert len(cards) == len(set(cards)) == 100 and {c.no for c in cards} == set(range(1, 101))


def test_they_lie_in_a_face_down_stack_whose_order_nobody_sees():
    """"They are placed in a face-down stack on the table": a view shows the count only."""
    s = new_game(4, 1)
    twin = s.clone()
    random.Random(3).shuffle(twin.stacks[0])
    assert twin.stacks != s.stacks
    assert all(twin.view(seat) == s.view(seat) for seat in range(4))
    assert s.view(0).stacks == (100,)


def test_any_number_of_players_two_to_eight_at_our_table():
    """"Any number of players may play the game" (we seat 2 to 8)."""
    for n in (2, 5, 8):
        assert new_game(n).players == n
    for n in (1, 9):
        with pytest.raises(ValueError):
            new_game(n)
    v = registry.find("bozu")
    assert (v.min_seats, v.max_seats) == (2, 8)


def test_the_first_player_is_decided_by_any_method():
    """"After the first player is decided using rock-paper-scissors or any other method": the
    seed's draw, or the option."""
    firsts = {new_game(5, seed).turn for seed in range(40)}
    assert firsts == set(range(5))
    assert new_game(5, 0, BozuOptions(first_player=3)).actors() == (3,)


def test_turn_moves_counter_clockwise_from_the_first_player():
    """"Turn moves counter-clockwise, starting with the first player": seat s + 1 after s."""
    s = rigged(4, men(6), first=2)
    order = []
    for _ in range(6):
        order.append(s.actors()[0])
        draw(s)
    assert order == [2, 3, 0, 1, 2, 3]


def test_each_player_draws_one_card_then_the_player_to_the_right():
    """"Each player draws one card from the stack ... then the player's turn ends and the player
    to their right takes their turn." """
    s = rigged(3, men(2))
    assert s.legal_actions(0) == [Draw(0)] and s.legal_actions(1) == []
    events = draw(s)
    assert [e.kind for e in events] == ["bozu.start", "bozu.draw", "bozu.keep"]
    assert s.view(0).stacks == (99,) and s.actors() == (1,)


def test_a_man_is_kept():
    """"If the card drawn is a man, keep it in your hand." """
    s = rigged(3, [MAN])
    draw(s)
    assert s.hands[0] == [card(MAN)] and not s.pot


def test_a_monk_sends_the_card_and_the_hand_to_the_pot():
    """"If the card drawn has a bald head (i.e. a monk/priest), put this card along with all cards
    in your hand onto the table face-up as the "pot"." """
    a, b, c = men(3)
    s = rigged(2, [a, b, MONK, c])   # seat 0: a, MONK; seat 1: b, then c
    draw(s, 3)
    assert s.hands[0] == [] and s.pot == [card(a), card(MONK)] and s.hands[1] == [card(b)]
    assert s.view(1).pot == (card(a), card(MONK))


def test_a_woman_is_kept_and_takes_the_pot():
    """"If the card drawn is a woman, keep it in your hand, and take all cards in the pot." """
    a = men(1)[0]
    s = rigged(2, [a, MONK, WOMAN])   # seat 0: a; seat 1: monk (empty hand); seat 0: woman
    draw(s, 3)
    assert sorted(s.hands[0]) == sorted([card(a), card(MONK), card(WOMAN)]) and not s.pot


def test_semimaru_disqualifies_the_drawer():
    """"If the card drawn is Semimaru (蝉丸), then you are disqualified from the game." Reference
    silent on the hand: it goes to the pot with him; the seat draws no more and cannot win."""
    a, b, c = men(3)
    s = rigged(3, [a, b, c, SEMIMARU])
    events = draw(s, 4)
    assert events[-1].kind == "bozu.disqualified" and s.out == [True, False, False]
    assert s.hands[0] == [] and card(SEMIMARU) in s.pot and card(a) in s.pot
    for _ in range(12):
        assert s.actors()[0] != 0
        draw(s)
    while not s.is_over():
        draw(s)
    assert 0 not in s.outcome().winners


def test_the_game_ends_when_the_stack_runs_out_and_the_most_cards_win():
    """"The game ends when the face-down stack runs out of cards. The player with the most cards
    in hand wins the game." Reference silent on ties: every seat with the most cards wins."""
    s = new_game(4, 7)
    while not s.is_over():
        assert s.view(0).stacks[0] > 0
        draw(s)
    out = s.outcome()
    assert s.view(0).stacks == (0,) and out.scores == tuple(len(h) for h in s.hands)
    assert set(out.winners) == {i for i, n in enumerate(out.scores) if n == max(out.scores) and not s.out[i]}
    with pytest.raises(IllegalAction) as refused:
        s.apply(Draw())
    assert refused.value.reason == "turn.game_over"


def test_the_pot_stays_at_the_end_unless_the_last_drawer_takes_it():
    """Reference silent on the pot when the stack is empty: it stays (option: the last drawer's)."""
    for rule, expect_pot in (("stays", True), ("last_drawer", False)):
        s = rigged(2, [], pot_at_end=rule)
        s.stacks = [[card(MAN), card(MONK)]]          # the monk comes first, then the last card
        s.hands = [[c for c in deck() if c.no not in (MAN, MONK)], []]
        s.check_invariants()
        events = draw(s, 2)
        assert bool(s.pot) == expect_pot and events[-2].kind == "bozu.pot_end"
        assert s.is_over()


# -- the regional rules (options) ------------------------------------------------------------------

def test_regional_several_stacks_to_choose_from():
    """"Instead of just one face-down stack, it is split into multiple face-down stacks, and a
    player may draw a card from any one of these stacks." """
    s = new_game(3, 2, BozuOptions(stacks=3))
    assert s.view(0).stacks == (34, 33, 33)
    seat = s.actors()[0]
    assert s.legal_actions(seat) == [Draw(0), Draw(1), Draw(2)]
    s.apply(Draw(2))
    assert s.view(0).stacks == (34, 33, 32)
    s.stacks[1] = []
    s.stacks[0] += [c for c in deck() if c not in sum(s.stacks, []) and c not in sum(s.hands, []) + s.pot]
    s.check_invariants()
    assert s.why_illegal(s.turn, Draw(1)).reason == "bozu.stack_empty"
    assert s.why_illegal(s.turn, Draw(7)).reason == "bozu.no_such_stack"


def test_regional_a_woman_on_an_empty_pot_draws_another():
    """"If the card drawn is a woman, and the pot is empty, then keep the card in your hand and
    draw another card." """
    s = rigged(2, [WOMAN, MAN], woman_empty_pot="draw_again")
    events = draw(s)
    assert events[-1].kind == "bozu.draw_again" and s.actors() == (0,)
    draw(s)
    assert s.hands[0] == [card(WOMAN), card(MAN)] and s.actors() == (1,)
    plain = rigged(2, [WOMAN, MAN])
    draw(plain)
    assert plain.actors() == (1,)


def test_regional_an_emperor_draws_multiple_cards():
    """"If the card drawn is from the Imperial Family (Emperor/Prince), then keep it in your hand
    and draw multiple cards"; "a person on an elevated platform ... draw another card"."""
    a, b, c = men(3)
    s = rigged(2, [EMPEROR, a, b, c], emperor="draw_again", emperor_draws=2)
    draw(s, 3)
    assert s.hands[0] == [card(EMPEROR), card(a), card(b)] and s.actors() == (1,)
    family = rigged(2, [PRINCE, a], emperor="draw_again", imperial_family=True)
    draw(family)
    assert family.actors() == (0,)
    common = rigged(2, [EMPEROR, a])
    draw(common)
    assert common.hands[0] == [card(EMPEROR)] and common.actors() == (1,)


def test_regional_an_emperor_takes_every_hand():
    """"If the card drawn is from the Imperial Family (Emperor/Prince), then keep it in your hand
    and take all cards from all players' hands." """
    a, b, c = men(3)
    s = rigged(3, [a, b, c, EMPEROR], emperor="take_hands")
    draw(s, 4)
    assert sorted(s.hands[0]) == sorted(card(n) for n in (a, b, c, EMPEROR)) and not s.hands[1]


def test_the_empress_is_a_woman_unless_counted_as_an_emperor():
    """Reference silent on Empress Jitō (#2): a woman on the dais; an option makes her an emperor."""
    assert rigged(2, []).effect(card(EMPRESS)) == "woman"
    assert rigged(2, [], emperor="draw_again", empress_as_emperor=True).effect(card(EMPRESS)) == "emperor"


def test_regional_semimaru_sends_every_hand_to_the_pot():
    """"If the card drawn is Semimaru (蝉丸), then all players' hands are placed into the pot." """
    a, b = men(2)
    s = rigged(3, [a, b, SEMIMARU], semimaru="all_to_pot")
    draw(s, 3)
    assert not any(s.hands) and len(s.pot) == 3 and s.out == [False] * 3


def test_regional_semimaru_is_a_monk():
    """"Semimaru (蝉丸) has the same effect as a card with a bald person on it." """
    a, b = men(2)
    s = rigged(2, [a, b, SEMIMARU], semimaru="monk")
    draw(s, 3)
    assert s.pot == [card(a), card(SEMIMARU)] and s.out == [False, False]


def test_nyudo_are_men_unless_counted_as_monks():
    """poets.json: #76 and #96 took the tonsure but are drawn in court dress."""
    assert rigged(2, []).effect(card(NYUDO)) == "man"
    assert rigged(2, [], nyudo="monk").effect(card(NYUDO)) == "monk"


def test_bad_options_are_refused():
    for kw in ({"semimaru": "joker"}, {"stacks": 0}, {"emperor": "god"}, {"pot_at_end": "burn"}):
        with pytest.raises(ValueError):
            BozuOptions(**kw)


# -- whole games -------------------------------------------------------------------------------

OPTION_MIXES = [{}, {"semimaru": "all_to_pot", "emperor": "take_hands"},
                {"semimaru": "monk", "emperor": "draw_again", "emperor_draws": 3, "stacks": 4,
                 "woman_empty_pot": "draw_again", "pot_at_end": "last_drawer", "nyudo": "monk",
                 "imperial_family": True, "empress_as_emperor": True}]


def play_games(n: int) -> int:
    rng = random.Random(5)
    finished = 0
    for i in range(n):
        opts = BozuOptions(**OPTION_MIXES[i % len(OPTION_MIXES)])
        s = new_game(2 + i % 7, i, opts)
        draws = 0
        while not s.is_over():
            seat = s.actors()[0]
            s.apply(rng.choice(s.legal_actions(seat)))
            s.check_invariants()
            draws += 1
        assert draws == 100, "every card is drawn exactly once"
        out = s.outcome()
        assert sum(out.scores) + len(s.pot) == 100, "cards conserved"
        assert out.winners and all(not s.out[w] for w in out.winners)
        finished += 1
    return finished


def test_hundreds_of_games_keep_the_cards():
    assert play_games(300) == 300


@pytest.mark.slow
def test_thousands_of_games_keep_the_cards():
    assert play_games(5000) == 5000


def test_the_session_plays_out_and_a_person_draws_in_turn():
    v = registry.find("bozu")
    cpu = play_out(new_session(v, 3, [CPU] * 5))
    assert cpu.is_over() and sum(cpu.outcome().scores) <= 100
    s = new_session(v, 4, [HUMAN, CPU, CPU], {"first_player": 0})
    assert s.waiting_for() == (0,)
    s.act(0, Draw())
    assert s.why_illegal(0, Draw()).reason == "turn.not_your_turn"
    s.run_cpus()
    assert s.waiting_for() == (0,)


def test_simulate_is_deterministic_json():
    from trainer.sim.bozu_sim import simulate_variant
    v = registry.find("bozu")
    a = simulate_variant(v, games=20, seed=3, players=5, options={})
    assert a == simulate_variant(v, games=20, seed=3, players=5, options={})
    assert a["events"]["bozu.draw"] == 20 * 100 and a["invariants"] == "held"
    assert a != simulate_variant(v, games=20, seed=4, players=5, options={})


def test_the_log_says_one_card_not_one_cards():
    """The 1024×700 walk read "CPU 3's 1 cards go to the pot": a number of cards is worded
    with its noun in English (card/cards, no verb to agree), 枚 in Japanese."""
    from trainer.rules.bozu import ToPot, TookPot
    from trainer.text.bozu import describe_bozu
    from trainer.text.messages import set_language
    try:
        set_language("en")
        one, three = describe_bozu(ToPot(2, 1, 1)), describe_bozu(TookPot(1, 3, 20))
        assert "1 card " in one and "1 cards" not in one
        assert "3 cards" in three
        set_language("ja")
        assert "1枚" in describe_bozu(ToPot(2, 1, 1))
    finally:
        set_language("en")
