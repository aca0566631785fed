"""The floor races (trainer.rules.chirashi and its session): one named test per rule of
the reference page *Ogura Hyakunin Isshu* (quoted; docs/references.md), per decision where the page is silent
(docs/racing-games.md), whole seeded games with their invariants, and the CPU levels."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from audio.clock import FakeClock
from trainer.games import registry
from trainer.games.chirashi_session import (CPU, HUMAN, ChirashiSession, Press, VerseReader, kimariji_kana,
                                            race_options, verse_mark_names)
from trainer.games.protocol import IllegalAction, play_out
from trainer.players.race_cpu import decisive_mora, identify, verse_morae
from trainer.rules.chirashi import (AWAIT_READ, CARDS, GENPEI_ROWS, SEND, ChirashiState, RaceOptions, Read,
                                    Send, Touch, Touches, genpei_layout, new_game, scatter)
from trainer.rules.shimonoku import OPPOSITE, ShimonokuState
from trainer.sim.chirashi_sim import simulate_variant

GENPEI = RaceOptions(game="genpei")
RELAY = RaceOptions(game="genpei", relay=True)


def state(players=3, options=RaceOptions(), stack=None, sides=None) -> ChirashiState:
    """A game whose reader reads 1, 2, 3 ... (or `stack`); Genpei sides 1-50 / 51-100 (or `sides`)."""
    stack = list(stack or CARDS)
    if options.teams:
        floor = genpei_layout(sides or (list(range(1, 51)), list(range(51, 101))))
    else:
        floor = scatter(list(CARDS), random.Random(0))
    return ChirashiState(players, stack, floor, "test", options)


def read(st: ChirashiState, touches: dict[int, list[tuple[int, int]]], start=1000, mark=1400) -> list:
    """One read: the reader starts, each racing seat reports its touches (card, ms)."""
    events = list(st.apply(Read(start, mark)))
    for seat in st.eligible():
        if st.phase == "touches":
            events += st.apply(Touches(seat, tuple(Touch(c, t) for c, t in touches.get(seat, []))))
    return events


def send_first(st: ChirashiState) -> None:
    while st.phase == SEND:
        st.apply(st.legal_actions(st.actors()[0])[0])


# -- chirashi-dori ------------------------------------------------------------------------------

def test_the_100_torifuda_are_scattered_face_up_so_everybody_can_see_each_card():
    """"Shuffle the 100-card Torifuda deck, and then scatter them on the floor face-up so that
    everybody can see each card." """
    st = new_game(4, seed=1)
    views = [st.view(s) for s in range(4)]
    assert all(v.floor == views[0].floor for v in views)
    assert sorted(c for c, _ in views[0].floor) == list(CARDS)
    spots = [sp for _, sp in views[0].floor]
    assert all(0 <= sp.x <= 1 and 0 <= sp.y <= 1 and -35 <= sp.angle <= 35 for sp in spots)
    assert len({sp.angle for sp in spots}) > 50, "cards lie at many angles, as scattered"
    assert new_game(4, seed=1).view(0).floor == views[0].floor and new_game(4, seed=2).view(0).floor != views[0].floor


def test_the_first_player_to_grab_the_correct_torifuda_takes_it():
    """"The first player to grab the correct Torifuda takes the Torifuda." """
    st = state()
    events = read(st, {0: [(1, 1700)], 1: [(1, 1650)], 2: [(1, 1900)]})
    assert st.taken[1] == [1] and not st.taken[0] and not st.taken[2]
    take = next(e for e in events if e.kind == "chirashi.take")
    assert take.reaction_ms == 250 and not take.simultaneous


def test_after_the_torifuda_is_taken_the_reader_reads_the_next_yomifuda():
    """"After the Torifuda is taken, the reader proceeds to draw and read the next Yomifuda." """
    st = state()
    read(st, {0: [(1, 1500)]})
    assert st.phase == AWAIT_READ and st.reader_next() == 2


def test_the_game_continues_until_all_yomifuda_are_read_and_all_torifuda_taken_most_cards_wins():
    """"The game continues until all Yomifuda are read and all Torifuda are taken." /
    "The player with the most Torifuda wins the game." """
    st = state(players=2)
    for k, card in enumerate(CARDS):
        assert not st.is_over()
        read(st, {k % 3 and 1 or 0: [(card, 1500 + k * 10)]}, start=1000 + k * 10, mark=1400 + k * 10)
    assert st.is_over() and not st.floor and st.reason == "floor_empty"
    assert st.scores() == (34, 66) and st.outcome().winners == (1,)


def test_a_tie_for_the_most_cards_is_a_shared_win():
    """[decided] Ties share the win."""
    st = state(players=2)
    for k, card in enumerate(CARDS):
        read(st, {k % 2: [(card, 1500 + k)]}, start=1000 + k, mark=1400 + k)
    assert st.outcome().winners == (0, 1)


def test_touches_within_the_judges_window_are_settled_by_a_seeded_draw():
    """[decided] Same-time touches on a scattered floor: no side to favour, a seeded じゃんけん."""
    winners = set()
    for seed in range(12):
        st = ChirashiState(3, list(CARDS), scatter(list(CARDS), random.Random(0)), seed,
                           RaceOptions(simultaneous_ms=30))
        events = read(st, {0: [(1, 1500)], 1: [(1, 1520)], 2: [(1, 1600)]})
        take = next(e for e in events if e.kind == "chirashi.take")
        assert take.simultaneous and take.seat in (0, 1)
        winners.add(take.seat)
        twin = ChirashiState(3, list(CARDS), scatter(list(CARDS), random.Random(0)), seed,
                             RaceOptions(simultaneous_ms=30))
        assert next(e for e in read(twin, {0: [(1, 1500)], 1: [(1, 1520)], 2: [(1, 1600)]})
                    if e.kind == "chirashi.take").seat == take.seat, "the draw is seeded"
    assert winners == {0, 1}


def test_a_wrong_card_touched_before_the_take_is_a_fault_and_the_faulter_sits_out_the_next_card():
    """[decided] お手つき in chirashi: 一回休み (``otetsuki="rest"``, the default)."""
    st = state()
    events = read(st, {0: [(50, 1450), (1, 1700)], 1: [(1, 1600)]})
    assert [e.seat for e in events if e.kind == "chirashi.fault"] == [0]
    assert st.resting == {0} and st.eligible() == (1, 2)
    with pytest.raises(IllegalAction) as refused:
        st.apply(Read(3000, 3400))
        st.apply(Touches(0))
    assert refused.value.reason == "chirashi.sitting_out"
    for seat in st.actors():
        st.apply(Touches(seat))
    assert st.eligible() == (0, 1, 2), "one card only"


def test_a_touch_after_the_card_was_taken_is_no_fault():
    """kyōgi's rule [AJKA], kept: a touch after the read card has been taken is not a fault."""
    st = state()
    events = read(st, {0: [(1, 1500)], 1: [(50, 1600)]})
    assert not [e for e in events if e.kind == "chirashi.fault"]


def test_a_touch_before_the_reading_starts_is_a_fault():
    st = state()
    events = read(st, {1: [(1, 900)], 0: [(1, 1600)]})
    fault = next(e for e in events if e.kind == "chirashi.fault")
    assert fault.seat == 1 and fault.early and st.taken[0] == [1]


def test_otetsuki_none_option_costs_nothing():
    st = state(options=RaceOptions(otetsuki="none"))
    read(st, {0: [(50, 1450)], 1: [(1, 1600)]})
    assert st.faults[0] == 1 and st.eligible() == (0, 1, 2)


def test_a_card_nobody_touched_is_set_aside():
    """[decided] kyōgi's unclaimed card: nobody takes it; it leaves the floor."""
    st = state()
    events = read(st, {})
    assert st.unclaimed == [1] and 1 not in st.floor and any(e.kind == "chirashi.unclaimed" for e in events)


def test_chirashi_can_be_played_by_one_player():
    """"Yes, the game can also be played by one player only." """
    clock = FakeClock(0.0)
    s = ChirashiSession(3, seats=(CPU,), clock=clock)
    play_out(s, clock, VerseReader(s.order))
    assert s.is_over() and s.outcome().winners == (0,)


# -- sakasama karuta ------------------------------------------------------------------------------

def test_sakasama_reads_only_the_latter_half_and_players_grab_by_the_first_half():
    """"The reader only reads the latter half of the poems, and players must grab the cards on the
    floor, based on the corresponding first half of the poem." The race's kimariji is the
    shimo-no-ku's; the CPUs know the card from the shimo-no-ku's sound."""
    variant = registry.find("sakasama")
    assert variant.options["verse"] == "shimo"
    clock = FakeClock(0.0)
    s = registry.resolve(variant.session)(variant, 4, (CPU, CPU), {"clock": clock})
    assert s.verse == "shimo"
    poem = s.order[0]
    assert verse_mark_names(poem, "shimo")[0] == "shimo_start"
    assert identify(verse_morae(poem, "shimo"), "shimo") == poem
    kana = kimariji_kana(poem, (), "shimo")
    assert "".join(verse_morae(poem, "shimo")).startswith(kana)
    others = [verse_morae(g, "shimo") for g in CARDS if g != poem]
    assert all(tuple(o[:len(kana)]) != tuple(verse_morae(poem, "shimo")[:decisive_mora(poem, (), "shimo") + 1])
               for o in others), "the shimo kimariji tells the card from every other"
    play_out(s, clock, VerseReader(s.order, "shimo"))
    assert s.is_over() and sum(len(t) for t in s.state.taken) + len(s.state.unclaimed) == 100


def test_sakasama_shimo_kimariji_shortens_as_cards_are_read():
    # 'あまのはら' (#7) shimo 'みかさのやまに...'; with every card but one read, the first mora decides
    poem = 7
    assert decisive_mora(poem, [c for c in CARDS if c != poem], "shimo") == 0
    assert decisive_mora(poem, (), "shimo") >= 0


# -- Genpei-gassen --------------------------------------------------------------------------------

def test_genpei_fifty_cards_a_side_in_three_rows_of_17_17_16():
    """"50 cards near the Genji side and 50 cards near the Heiji side ... three rows: 17 cards at the
    bottom row, 17 cards at the middle row, and 16 cards at the top row." """
    st = new_game(6, seed=2, options=GENPEI)
    for side in (0, 1):
        spots = [sp for c, sp in st.floor.items() if sp.side == side]
        assert len(spots) == 50
        assert [sum(1 for sp in spots if sp.row == r) for r in range(3)] == list(GENPEI_ROWS)
    bottom0 = min(sp.y for sp in st.floor.values() if sp.side == 0 and sp.row == 2)
    assert all(sp.y > bottom0 for sp in st.floor.values() if sp.side == 0 and sp.row == 0), \
        "Genji's bottom row lies nearest Genji's edge"


def test_genpei_two_teams_sit_on_opposite_sides():
    """"It is a competition between two teams of one or more players per team." """
    st = state(players=4, options=GENPEI)
    assert [st.team(s) for s in range(4)] == [0, 1, 0, 1]
    with pytest.raises(ValueError):
        ChirashiState(1, list(CARDS), genpei_layout((list(range(1, 51)), list(range(51, 101)))), 0, GENPEI)


def test_genpei_players_can_grab_torifuda_on_either_side():
    """"The gameplay is the same as "Scatter and Pick Up"; players can grab Torifuda on either side." """
    st = state(players=2, options=GENPEI, stack=[60, 2, *[c for c in CARDS if c not in (60, 2)]])
    read(st, {0: [(60, 1500)]})
    assert st.taken[0] == [60]
    send_first(st)
    read(st, {1: [(2, 3500)]}, start=3000, mark=3400)
    assert st.taken[1] == [2]


def test_genpei_taking_from_the_opponents_side_sends_one_of_your_own():
    """"If a player grabs a Torifuda from the opponent's side, then they move one Torifuda from their
    own side to the opponent's side." The taker chooses."""
    st = state(players=4, options=GENPEI, stack=[60, *[c for c in CARDS if c != 60]])
    events = read(st, {2: [(60, 1500)]})
    owed = next(e for e in events if e.kind == "chirashi.owed")
    assert (owed.giver, owed.side, owed.cards) == (2, 0, 1) and st.phase == SEND and st.actors() == (2,)
    with pytest.raises(IllegalAction) as refused:
        st.apply(Send(2, 70))
    assert refused.value.reason == "chirashi.not_on_side"
    st.apply(Send(2, 10))
    assert st.floor[10].side == 1 and len(st.side_cards(0)) == 49 and len(st.side_cards(1)) == 50


def test_genpei_taking_from_your_own_side_sends_nothing():
    st = state(players=2, options=GENPEI)
    read(st, {0: [(1, 1500)]})
    assert st.phase == AWAIT_READ and len(st.side_cards(0)) == 49 and st.sent == 0


def test_genpei_a_wrong_touch_gets_a_penalty_card_from_the_opponent():
    """"If a player takes the wrong Torifuda, then the opponent moves one of their Torifuda to the
    player's side as a penalty." [decided] The opposing team's captain chooses it."""
    st = state(players=4, options=GENPEI)
    events = read(st, {3: [(80, 1450)], 0: [(1, 1600)]})
    assert [e.seat for e in events if e.kind == "chirashi.fault"] == [3]
    owed = next(e for e in events if e.kind == "chirashi.owed")
    assert (owed.giver, owed.side) == (0, 0)
    st.apply(Send(0, 5))
    assert st.floor[5].side == 1 and len(st.side_cards(1)) == 51


def test_genpei_cards_owed_both_ways_in_one_read_net_out():
    """[decided] kyōgi's arithmetic: a take from the other side and a fault of the same team cancel."""
    st = state(players=4, options=GENPEI, stack=[60, *[c for c in CARDS if c != 60]])
    events = read(st, {0: [(60, 1500)], 2: [(70, 1450)]})
    assert not [e for e in events if e.kind == "chirashi.owed"] and st.phase == AWAIT_READ


def test_genpei_the_team_with_no_more_torifuda_on_their_side_wins():
    """"The team who has no more Torifuda on their side wins the game." """
    st = state(players=2, options=GENPEI, sides=([1, 2], [3, 4, 5]))
    st.floor = genpei_layout(([1, 2], [3, 4, 5]))
    st.unclaimed = [c for c in CARDS if c > 5]
    st.read = []
    read(st, {0: [(1, 1500)]})
    assert not st.is_over()
    read(st, {0: [(2, 3500)]}, start=3000, mark=3400)
    assert st.is_over() and st.outcome().winners == (0,) and st.reason == "side_empty"


def test_genpei_same_time_touches_go_to_the_side_the_card_lies_on():
    """[decided] kyōgi's rule: within the judge's window the card's own side wins it."""
    st = state(players=2, options=RaceOptions(game="genpei", simultaneous_ms=30))
    events = read(st, {0: [(1, 1520)], 1: [(1, 1500)]})
    take = next(e for e in events if e.kind == "chirashi.take")
    assert take.seat == 0 and take.simultaneous


# -- relay karuta ---------------------------------------------------------------------------------

def test_relay_each_team_member_plays_in_turns():
    """"Each team member play in turns instead of all at once." """
    st = state(players=6, options=RELAY)
    assert st.eligible() == (0, 1)
    st.apply(Read(1000, 1400))
    assert set(st.actors()) == {0, 1}
    with pytest.raises(IllegalAction) as refused:
        st.apply(Touches(2))
    assert refused.value.reason == "chirashi.sitting_out"


def test_relay_turnover_of_both_teams_every_10_poems_read():
    """"Turnover of players of both teams occur every 10 poems read." """
    st = state(players=6, options=RELAY)
    for k in range(10):
        assert st.eligible() == (0, 1)
        read(st, {0: [(k + 1, 1500 + k * 10)]}, start=1000 + k * 10, mark=1400 + k * 10)
    assert st.eligible() == (2, 3)
    turns = [e for e in st.log if e.kind == "chirashi.turn"]
    assert [(e.team, e.seat, e.why) for e in turns] == [(0, 2, "every"), (1, 3, "every")]


def test_relay_a_take_from_your_side_passes_your_turn_to_the_next_teammate():
    """"If an opponent took a Torifuda from a player's side, the player passes their turn to their
    next teammate." """
    st = state(players=6, options=RELAY)
    events = read(st, {1: [(1, 1500)]})
    assert any(e.kind == "chirashi.turn" and e.team == 0 and e.why == "taken" for e in events)
    send_first(st)
    assert st.eligible() == (1, 2)


# -- sessions and whole games ----------------------------------------------------------------------

def _whole(game: str, seed: int, players: int, level="club") -> ChirashiSession:
    clock = FakeClock(0.0)
    variant = registry.find(game)
    s = registry.resolve(variant.session)(variant, seed, (CPU,) * players, {"clock": clock, "cpu_level": level})

    def team_checks(session):
        st = session.state
        if st.options.teams and st.phase != SEND:
            assert st.sent == st.owed_total, "every card owed was sent"

    play_out(s, clock, VerseReader(s.order, s.verse), on_step=team_checks)
    return s


@pytest.mark.parametrize("game,players", [("chirashi", 4), ("sakasama", 3), ("genpei", 6), ("relay", 4)])
def test_seeded_games_to_the_end_keep_every_invariant(game, players):
    """Cards conserved, every read card taken or set aside, sends matching what was owed (checked by
    play_out after every step); the same seed plays the same game."""
    for seed in range(25):
        s = _whole(game, seed, players)
        out = s.outcome()
        assert out is not None and out.winners
        st = s.state
        assert sum(len(t) for t in st.taken) + len(st.unclaimed) + len(st.floor) == 100
        if st.options.teams:
            assert out.reason in ("side_empty", "stack_empty")
    a, b = _whole(game, 7, players), _whole(game, 7, players)
    assert [e.fields() for e in a.log] == [e.fields() for e in b.log]


@pytest.mark.slow
@pytest.mark.parametrize("game,players", [("chirashi", 4), ("sakasama", 4), ("genpei", 6), ("relay", 6),
                                          ("shimonoku", 6)])
def test_thousands_of_seeded_games_keep_every_invariant(game, players):
    for seed in range(500):             # 2,500 games over the five games
        assert _whole(game, 10_000 + seed, players).is_over()


def test_a_stronger_level_takes_more_cards():
    out = simulate_variant(registry.find("chirashi"), games=20, seed=3, players=2,
                           options={"levels": "novice,a-class"})
    by = out["cards_taken_per_game_by_level"]
    assert by["a-class"] > by["novice"] + 15


@pytest.mark.slow
def test_a_stronger_level_takes_more_cards_by_a_clear_margin_over_1000_games():
    out = simulate_variant(registry.find("chirashi"), games=1000, seed=11, players=2,
                           options={"levels": "club,strong"})
    by = out["cards_taken_per_game_by_level"]
    assert by["strong"] > by["club"] + 5


def test_the_simulator_is_deterministic():
    kw = dict(games=3, seed=5, players=6, options={})
    assert simulate_variant(registry.find("genpei"), **kw) == simulate_variant(registry.find("genpei"), **kw)


def test_a_persons_press_is_a_touch_while_a_card_is_read_and_refused_otherwise():
    clock = FakeClock(0.0)
    s = ChirashiSession(1, seats=(HUMAN, CPU), clock=clock, cpu_level="beginner")
    s.begin()
    with pytest.raises(IllegalAction) as refused:
        s.act(0, Press(s.order[0], clock.now()))
    assert refused.value.reason == "chirashi.not_reading"
    reader = VerseReader(s.order)
    reader.feed(s)                          # the first card's kami-no-ku begins
    poem = s.order[0]
    assert s.view(0).current.kimariji_ms is None, "the kimariji mark is kept back until it sounds"
    clock.set(s.race.kimariji + 0.2)
    events = s.act(0, Press(poem, clock.now()))
    assert [e.kind for e in events] == ["chirashi.touch"]
    clock.set(clock.now() + 0.3)
    events = s.tick()
    reaction = next(e for e in events if e.kind == "chirashi.reaction")
    took = s.state.taken[0] == [poem]
    assert reaction.taken == took and reaction.record.answer in ("take", "late")
    if took:
        assert reaction.ms == 200 and reaction.record.correct


def test_a_person_owing_a_genpei_card_holds_the_reader_and_sends_by_a_press():
    clock = FakeClock(0.0)
    s = ChirashiSession(2, seats=(HUMAN, CPU), clock=clock, options=GENPEI, cpu_level="beginner")
    s.begin()
    reader = VerseReader(s.order)
    for _ in range(200):
        if s.state.phase == SEND or s.is_over():
            break
        t, due = reader.next_time(s), s.next_due()
        if due is not None and (t is None or due < t):
            clock.set(due)
            s.tick()
            continue
        clock.set(max(t, clock.now()))
        if reader.verse_next and s.state.reader_next() is not None:
            poem = s.state.reader_next()
            reader.feed(s)
            if s.race is not None and s.state.floor[poem].side == 1:   # take from Heiji's side at once
                s.act(0, Press(poem, s.race.kimariji + 0.05))
        else:
            reader.feed(s)
    assert s.state.phase == SEND and s.view(0).owing[0] == 0
    assert reader.next_time(s) is None, "the reader holds for the person's choice"
    mine = next(c for c, sp in s.view(0).floor if sp.side == 0)
    events = s.act(0, Press(mine, clock.now()))
    assert any(e.kind == "chirashi.send" for e in events) and s.state.floor[mine].side == 1
    assert any(e.kind == "chirashi.release" for e in events)


# -- Hokkaido shimonoku karuta ----------------------------------------------------------------------

SHIMO = RaceOptions(game="shimonoku", verse="shimo")


def shimonoku(holdings, stack=None, options=SHIMO) -> ShimonokuState:
    held = [c for h in holdings for c in h]
    st = ShimonokuState(list(stack or CARDS), holdings, "test", options)
    st.unclaimed = [c for c in CARDS if c not in held]      # the rest: set aside before the test
    st.read = []
    return st


def shimo_read(st, touches, k=0):
    return read(st, touches, start=1000 + 5000 * k, mark=1400 + 5000 * k)


def deal_of(st):
    return [len(st.holding(s)) for s in range(6)]


def test_shimonoku_reads_only_the_last_verse_three_a_side_dealt_5_5_40():
    """"only the last verse of the poem is read out" / "three players per team: one offense, one
    mid-fielder, and one defense" / "it is common to divide it into 5 to offense, 5 to
    midfielder, and 40 to defense." """
    variant = registry.find("shimonoku")
    assert variant.options["verse"] == "shimo" and variant.min_seats == variant.max_seats == 6
    st = new_game(6, seed=3, options=SHIMO)
    assert deal_of(st) == [5, 5, 40, 5, 5, 40]


def test_shimonoku_midfielders_face_each_other_and_offence_faces_the_other_defence():
    """"Opposing midfielders sit facing each other, while a team's offense face the opposing
    team's defense." """
    from trainer.rules.shimonoku import OPPOSITE
    assert OPPOSITE[1] == 4 and OPPOSITE[0] == 5 and OPPOSITE[3] == 2
    assert all(OPPOSITE[OPPOSITE[s]] == s for s in range(6))


def test_shimonoku_a_player_takes_only_their_own_cards_and_those_of_the_opponent_facing_them():
    """"The Torifuda that can be grabbed by a player are only their own Torifuda and the Torifuda
    of the opponent directly opposite them, and they cannot take the Torifuda of other players
    regardless of team." """
    st = shimonoku([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], list(range(11, 51)),
                    list(range(51, 56)), list(range(56, 61)), list(range(61, 101))])
    st.apply(Read(1000, 1400))
    with pytest.raises(IllegalAction) as refused:
        st.apply(Touches(0, (Touch(6, 1500),)))          # the team-mate's card
    assert refused.value.reason == "shimonoku.out_of_reach"
    with pytest.raises(IllegalAction):
        st.apply(Touches(0, (Touch(56, 1500),)))         # the other midfielder's card
    st.apply(Touches(0, (Touch(61, 1500),)))             # the defence facing the offence: allowed


def test_shimonoku_taking_from_the_opponent_in_front_sends_them_one_of_yours():
    """"If you grab the Torifuda of the opponent in front of you, then you send one of your
    Torifuda to the opponent in front of you." """
    st = shimonoku([[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11], list(range(12, 51)),
                    list(range(51, 56)), list(range(56, 61)), list(range(61, 101))],
                   stack=[61, *range(1, 61), *range(62, 101)])
    events = shimo_read(st, {0: [(61, 1500)]})
    owed = next(e for e in events if e.kind == "shimonoku.owed")
    assert (owed.seat, owed.to) == (0, 5) and st.actors() == (0,)
    st.apply(Send(0, 1))
    assert 1 in st.holding(5) and len(st.holding(0)) == 5


def test_shimonoku_a_wrong_touch_brings_a_card_from_their_defence_to_your_offence():
    """"If you grabbed the wrong Torifuda, The opposing team's defense player sends one card to
    your team's offense player." """
    st = shimonoku([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], list(range(11, 51)),
                    list(range(51, 56)), list(range(56, 61)), list(range(61, 101))])
    events = shimo_read(st, {1: [(57, 1300)], 0: [(1, 1500)]})      # midfield faults; 1 is read
    owed = next(e for e in events if e.kind == "shimonoku.owed")
    assert (owed.seat, owed.to) == (5, 0), "Heiji's defence to our offence"


def test_shimonoku_a_player_short_of_five_is_passed_a_card_by_a_team_mate():
    """"When the cards a player has are read and they have less than 5 Torifuda, another teammate
    must pass 1 Torifuda to that player between readings to keep at least 5 Torifuda per player." """
    st = shimonoku([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], list(range(11, 51)),
                    list(range(51, 56)), list(range(56, 61)), list(range(61, 101))])
    events = shimo_read(st, {0: [(1, 1500)]})
    passed = [e for e in events if e.kind == "shimonoku.pass"]
    assert [(e.seat, e.to) for e in passed] == [(2, 0)] and deal_of(st)[:3] == [5, 5, 39]


def test_shimonoku_minimums_fall_to_3_at_14_cards_and_to_1_at_8():
    """"if the total number of Torifuda in the team is 14 or less, each teammate will have 3 or
    more Torifuda, and if the total number of Torifuda is 8 or less, each teammate will have 1 or
    more Torifuda." """
    st = shimonoku([[1, 2, 3], [4, 5, 6], [7, 8, 9, 10, 11, 12, 13, 14],
                    list(range(51, 56)), list(range(56, 61)), list(range(61, 101))])
    assert st.minimum(0) == 3
    shimo_read(st, {0: [(1, 1500)]})
    assert deal_of(st)[:3] == [3, 3, 7]
    st2 = shimonoku([[1], [2, 3], [4, 5, 6, 7, 8], list(range(51, 56)), list(range(56, 61)),
                     list(range(61, 101))])
    assert st2.minimum(0) == 1


def test_shimonoku_at_two_cards_the_bare_player_and_the_opponent_facing_leave():
    """"When the team has 2 Torifuda remaining, the player who has no more Torifuda and the
    opponent opposite him will leave, and it will be a 2-on-2 match. (when your opponent leaves,
    pass your card to one of your teammates.)" """
    st = shimonoku([[1], [2], [3], [51, 52, 53, 54, 55], list(range(56, 61)), list(range(61, 71))])
    events = shimo_read(st, {0: [(1, 1500)]})
    left = next(e for e in events if e.kind == "shimonoku.leave")
    assert (left.seat, left.opposite) == (0, 5) and st.active == {1, 2, 3, 4}
    assert sum(deal_of(st)[3:]) == 5 + 5 + 10 and not st.holding(5), "the leaver's cards went to team-mates"


def test_shimonoku_at_one_card_it_is_one_on_one_and_never_back_to_three():
    """"If there is only one remaining Torifuda, it will be a one-on-one match" / "Even if a team
    with 2 Torifuda or less remaining gains Torifuda ... it will not return to a 3-on-3 match." """
    st = shimonoku([[1], [2], [3], [51, 52, 53, 54, 55], list(range(56, 61)), list(range(61, 71))])
    shimo_read(st, {0: [(1, 1500)]})
    shimo_read(st, {1: [(2, 6500)]}, k=1)
    assert len(st.active) == 2
    assert st.team_total(0) == 1


def test_shimonoku_the_team_with_zero_cards_wins():
    """"if there are zero Torifuda, your team wins." """
    st = shimonoku([[1], [], [], [51], [], []])
    st.active = {0, 5}
    shimo_read(st, {0: [(1, 1500)]})
    assert st.is_over() and st.outcome().winners == (0, 1, 2)


@pytest.mark.parametrize("seed", range(20))
def test_shimonoku_whole_games_keep_the_team_minimums(seed):
    s = _whole("shimonoku", seed, 6)
    assert s.is_over() and s.outcome().winners


# -- Nanae-town shimonoku karuta (テッパ) --------------------------------------------------------------

NANAE = RaceOptions(game="shimonoku", verse="shimo", nanae=True)
TEAM1 = [list(range(51, 66)), list(range(66, 86)), list(range(86, 101))]        # 15 / 20 / 15


def nanae(holdings, stack=None, **options) -> ShimonokuState:
    return shimonoku(holdings, stack, options=replace(NANAE, **options))


def test_nanae_the_middle_has_20_in_rows_of_7_7_6_and_the_sides_15_in_rows_of_5():
    """"The players in the middle has 20 Torifuda arranged in two rows of 7 cards and one row of 6
    cards. Players on the sides each have 15 Torifuda arranged in three rows of 5 cards." """
    variant = registry.find("shimonoku", "nanae")
    st = new_game(6, seed=3, options=race_options(variant, {}))
    assert st.options.nanae and deal_of(st) == [15, 20, 15, 15, 20, 15]
    rows = {seat: Counter(st.floor[c].row for c in st.holding(seat)) for seat in range(6)}
    assert rows[1] == rows[4] == {0: 7, 1: 7, 2: 6}
    assert all(rows[s] == {0: 5, 1: 5, 2: 5} for s in (0, 2, 3, 5))


@pytest.mark.parametrize("sender,expect", [("most", (4, 1)), ("facing", (5, 0))])
def test_nanae_a_teppa_brings_a_card_from_any_opponent_to_the_team_mate_facing_them(sender, expect):
    """"If you grabbed the wrong Torifuda (... "Teppa"), then any one of the opposing players sends
    one card to a player in your team opposite that opponent." [decided] by default the opposing
    player holding the most cards sends (to the team-mate facing them); or the one facing the teppa."""
    st = nanae([list(range(1, 16)), list(range(16, 36)), list(range(36, 51)), *TEAM1],
               stack=[16, *range(1, 16), *range(17, 101)], teppa_sender=sender)
    events = shimo_read(st, {0: [(87, 1300)], 1: [(16, 1500)]})      # offence teppas on the defence facing
    owed = [(e.seat, e.to) for e in events if e.kind == "shimonoku.owed"]
    assert owed == [expect]
    send_first(st)
    assert st.sent == st.owed_total == 1
    st.check_invariants()


def test_nanae_a_teppa_after_the_card_was_taken_is_invalid():
    """""Teppa" after taking the original card is invalid" """
    st = nanae([list(range(1, 16)), list(range(16, 36)), list(range(36, 51)), *TEAM1],
               stack=[16, *range(1, 16), *range(17, 101)])
    events = shimo_read(st, {1: [(16, 1500)], 0: [(87, 1600)]})
    assert not [e for e in events if e.kind in ("shimonoku.owed", "chirashi.fault")]


@pytest.mark.parametrize("chonchon,expect", [("all", []), ("teppa", [(1, 4)])])
def test_nanae_chonchon_when_both_teams_teppa_and_a_card_is_taken_from_the_opponent(chonchon, expect):
    """"when both you and your opponent "teppa" and your teammate takes the opponent's card, it
    becomes "chonchon" (= you cannot pass your hand to the opponent team, remain unchanged)."
    [decided] by default nothing moves; the other reading cancels only the two teppa cards."""
    st = nanae([list(range(1, 16)), list(range(16, 36)), list(range(36, 51)), *TEAM1],
               stack=[66, *range(1, 66), *range(67, 101)], chonchon=chonchon)
    events = shimo_read(st, {0: [(87, 1300)], 3: [(40, 1350)], 1: [(66, 1500)]})
    assert sum(1 for e in events if e.kind == "chirashi.fault") == 2
    assert [(e.seat, e.to) for e in events if e.kind == "shimonoku.owed"] == expect
    send_first(st)
    st.check_invariants()


def test_nanae_a_teppa_card_is_handed_over_before_the_next_card_is_read():
    """"after teppa, when the next bill is being read, the bill cannot be handed over to the person
    who teppa (= invalid)": the reader waits for the teppa card, so it is never late."""
    st = nanae([list(range(1, 16)), list(range(16, 36)), list(range(36, 51)), *TEAM1],
               stack=[16, *range(1, 16), *range(17, 101)])
    shimo_read(st, {0: [(87, 1300)], 1: [(16, 1500)]})
    assert st.phase == SEND
    with pytest.raises(IllegalAction) as refused:
        st.apply(Read(7000, 7400))
    assert refused.value.reason == "chirashi.read_unsettled"


def test_nanae_the_ends_leave_first_and_the_middle_player_last():
    """"When your team runs out of cards, either end will drop first, followed by the other end,
    leaving the middle player." """
    st = nanae([[1], [2], [3], *TEAM1], stack=[2, 1, 3, *range(4, 101)])
    events = shimo_read(st, {1: [(2, 1500)]})                  # the middle takes its own last card
    assert [(e.seat, e.to) for e in events if e.kind == "shimonoku.pass"][:1] == [(0, 1)]
    left = next(e for e in events if e.kind == "shimonoku.leave")
    assert (left.seat, left.opposite) == (0, 5) and {1, 4} <= st.active
    shimo_read(st, {1: [(1, 6500)]}, k=1)
    assert st.active == {1, 4}, "one on one: the two middles"
    st.check_invariants()


def test_nanae_even_balance_option_keeps_a_teams_holdings_within_one():
    """"Cards can be freely moved within the team, and it is common for all three members of the
    team to have an equal number of cards as much as possible." (``balance="even"``)"""
    st = nanae([list(range(1, 16)), list(range(16, 36)), list(range(36, 51)), *TEAM1], balance="even")
    shimo_read(st, {0: [(1, 1500)]})
    for team in (deal_of(st)[:3], deal_of(st)[3:]):
        assert max(team) - min(team) <= 1 and team[1] == max(team), "the middle keeps an odd card"
    assert deal_of(st)[:3] == [16, 17, 16]
    st.check_invariants()


def _whole_nanae(seed: int, **options) -> ChirashiSession:
    clock = FakeClock(0.0)
    variant = registry.find("shimonoku", "nanae")
    s = registry.resolve(variant.session)(variant, seed, (CPU,) * 6, {"clock": clock, **options})
    play_out(s, clock, VerseReader(s.order, s.verse))       # invariants after every step
    return s


@pytest.mark.parametrize("options", [{}, {"teppa_sender": "facing"}, {"chonchon": "teppa"},
                                     {"balance": "even"}], ids=lambda o: ",".join(o.values()) or "default")
def test_nanae_seeded_games_to_the_end_keep_every_invariant(options):
    """Cards conserved, sends matching what was owed, the minimums (or the even balance) held and
    the middles leaving last, after every step of 12 seeded games per reading; same seed, same game."""
    for seed in range(12):
        s = _whole_nanae(seed, **options)
        out = s.outcome()
        assert out is not None and out.winners and s.state.options.nanae
        assert s.state.owed_total == s.state.sent
    a, b = _whole_nanae(5, **options), _whole_nanae(5, **options)
    assert [e.fields() for e in a.log] == [e.fields() for e in b.log]


def test_nanae_is_simulated_deterministically():
    variant = registry.find("shimonoku", "nanae")
    runs = [simulate_variant(variant, games=3, seed=4, players=6, options={}) for _ in range(2)]
    assert runs[0] == runs[1] and runs[0]["games"] == 3


@pytest.mark.parametrize("variant", ["standard", "nanae"])
def test_a_shimonoku_cpu_reaches_from_its_own_area_not_from_a_seat_round_the_floor(variant):
    """A shimonoku CPU kneels at the near edge of its own area: its own cards are nearer its hand
    than the facing opponent's, its kneeling point lies within its area's width, and the nearest
    row of its own area is the quickest to reach."""
    v = registry.find("shimonoku", variant)
    s = registry.resolve(v.session)(v, 3, (CPU,) * 6, {"clock": FakeClock(0.0)})
    view = s.state.view(0)
    for seat, cpu in s.cpus.items():
        x, y = cpu.kneels_at(view)
        own = [(c, sp) for c, sp in view.floor if sp.side == seat]
        facing = [(c, sp) for c, sp in view.floor if sp.side == OPPOSITE[seat]]
        xs = [sp.x for _, sp in own]
        assert min(xs) - 0.05 <= x <= max(xs) + 0.05 and y == (1.0 if seat < 3 else 0.0)
        far_own = max(cpu._travel_ms(view, c) for c, _ in own)
        near_facing = min(cpu._travel_ms(view, c) for c, _ in facing)
        assert far_own < near_facing, f"seat {seat}: its own cards are nearer than its opponent's"
        rows = {sp.row: cpu._travel_ms(view, c) for c, sp in own if sp.column == 0}
        assert rows[0] == min(rows.values())


@pytest.mark.slow
def test_hundreds_of_nanae_games_keep_every_invariant():
    for seed in range(400):             # 100 games per reading of the page's unclear sentences
        options = ({}, {"teppa_sender": "facing"}, {"chonchon": "teppa"}, {"balance": "even"})[seed % 4]
        assert _whole_nanae(20_000 + seed, **options).is_over()


def test_nanae_readings_are_simulator_options_and_refused_for_other_games():
    """`karuta simulate shimonoku --variant nanae --chonchon teppa` plays the other reading;
    the same option on the standard game is refused in one line."""
    from trainer.sim.chirashi_sim import play_one
    nanae_v, standard = registry.find("shimonoku", "nanae"), registry.find("shimonoku")
    s = play_one(nanae_v, 3, 6, {"chonchon": "teppa", "balance": "even"})
    assert (s.state.options.chonchon, s.state.options.balance) == ("teppa", "even") and s.is_over()
    with pytest.raises(ValueError, match="--chonchon is a rule of shimonoku --variant nanae"):
        simulate_variant(standard, games=1, seed=1, players=6, options={"chonchon": "teppa"})
