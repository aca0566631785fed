"""Unsun karuta played out: seeded random deals with invariants, the CPUs, the session, the simulator, the texts."""
from __future__ import annotations

import json

import pytest

from audio.clock import FakeClock
from trainer.cli import main
from trainer.games import registry
from trainer.games.protocol import READER, IllegalAction
from trainer.games.turn_session import CPU, HUMAN, TurnTimedOut, play_out
from trainer.games.unsun_session import TURN_SECONDS, new_session
from trainer.players.unsun_cpu import MediumCpu, RandomCpu, make_cpu
from trainer.rules.unsun import (DECK, EVENT_TYPES, GURU, ISU, KOTSU, MEIRAF, MONCHI, ORI, PLAYERS,
                                 TRICKS, Card, Deal, DealScored, Discarded, HandDealt, Play, Played,
                                 RobaiHidden, TrickCard, UnsunState, new_game, team_of)
from trainer.sim.unsun_sim import format_report, play_game, simulate_variant

C = Card
STANDARD = registry.find("unsun", "standard")
SUITE_DEALS = 2_000
"""Random deals in the suite (about 10 s); bench/bench_unsun.py plays 10,000 with the same checks."""


def check_hidden(state: UnsunState) -> None:
    """No seat's view shows another seat's secret card or a card set aside."""
    secrets = [state.secrets_of(s) for s in range(PLAYERS)]
    for seat in range(PLAYERS):
        seen = state.view(seat).cards_seen()
        assert not seen & set(state.set_aside), "a card set aside is visible"
        for other in range(PLAYERS):
            if other != seat:
                assert not seen & secrets[other], f"seat {seat} sees seat {other}'s hidden card"


def check_logs(session) -> None:
    """Each seat's log names only its own hand, discard and face-down cards."""
    for seat in range(PLAYERS):
        for e in session.log_for(seat):
            if isinstance(e, HandDealt):
                assert e.seat == seat
            if isinstance(e, (Played, Discarded)) and e.seat != seat and (
                    isinstance(e, Discarded) or e.face_down):
                assert e.card is None
            if isinstance(e, RobaiHidden) and e.seat != seat:
                assert e.seat is None


def random_games(games: int, seed: int, hidden_every: int = 1):
    """Play `games` all-random games through the session, checking after every step."""
    for g in range(games):
        session = new_session(STANDARD, f"{seed}:{g}", (CPU,) * PLAYERS, {"cpu_level": "random"})
        steps = 0
        while not session.is_over():
            assert session.step(), "the game stopped with nobody to act"
            session.state.check_invariants()
            steps += 1
            if steps % hidden_every == 0:
                check_hidden(session.state)
        yield session


def test_random_deals_keep_every_invariant():
    """75 cards conserved, 9 tricks a deal, at most one team scoring, no hidden card seen."""
    deals = 0
    for session in random_games(SUITE_DEALS // 8, seed=2026, hidden_every=9):
        state = session.state
        assert len(state.results) == 8 and state.is_over()
        for r in state.results:
            assert sum(r.tricks) == TRICKS
            assert min(r.points) == 0
        scored = [e for e in session.log if isinstance(e, DealScored)]
        assert [(e.points_a, e.points_b) for e in scored] == [r.points for r in state.results]
        if deals < 400:
            check_logs(session)
        deals += len(state.results)
    assert deals == SUITE_DEALS


def test_every_card_played_once_per_deal():
    session = play_out(new_session(STANDARD, 5, (CPU,) * PLAYERS, {"cpu_level": "random"}))
    plays = [e for e in session.log if isinstance(e, Played)]
    assert len(plays) == 8 * 72
    for d in range(8):
        cards = [e.card for e in plays[d * 72:(d + 1) * 72]]
        assert len(set(cards)) == 72 and set(cards) <= set(DECK)


def test_clone_is_independent_and_plays_the_same():
    state = new_game(9)
    state.apply(Deal())
    twin = state.clone()
    seat = state.actors()[0]
    hands = [list(h) for h in twin.hands]
    state.apply(state.legal_actions(seat)[0])
    assert twin.hands == hands and twin.actors() == (seat,)
    twin.apply(twin.legal_actions(seat)[0])
    assert twin.hands == state.hands and twin.phase == state.phase
    cpus = [RandomCpu(k, 1) for k in range(PLAYERS)]
    twins = [RandomCpu(k, 1) for k in range(PLAYERS)]
    while not state.is_over():
        who = state.actors()[0]
        if who == READER:
            state.apply(Deal())
            twin.apply(Deal())
            continue
        state.apply(cpus[who].choose(state.view(who), state.legal_actions(who)))
        twin.apply(twins[who].choose(twin.view(who), twin.legal_actions(who)))
    assert twin.totals == state.totals and twin.results == state.results


# -- CPUs ---------------------------------------------------------------------------------------

def meiraf_trick(trump: str, hands: dict[int, list[Card]], leader: int = 0) -> UnsunState:
    s = new_game(0)
    s.deal_no, s.trump, s.okie, s.phase = 0, trump, C(trump, 5), MEIRAF
    s.hands = [list(hands.get(k, [C(GURU, k + 1)])) for k in range(PLAYERS)]
    s.leader = s.to_act = leader
    s.trick_no = 2
    return s


def test_medium_cpu_does_not_overtake_a_partners_winning_trick():
    # seat 0 leads the top イス; seat 2 (partner) holds a higher-than-everyone-else イス and a low card
    s = meiraf_trick(KOTSU, {0: [C(ISU, 15)], 1: [C(ISU, 1)], 2: [C(ISU, 14), C(ORI, 9)]})
    s.apply(Play(0, C(ISU, 15)))
    s.apply(Play(1, C(ISU, 1)))
    choice = MediumCpu(2).choose(s.view(2), s.legal_actions(2))
    assert choice == Play(2, C(ORI, 9))


def test_medium_cpu_overtakes_an_enemy_with_the_cheapest_sure_winner():
    hand = [C(ISU, 4), C(ISU, 15), C(ISU, 14), C(ORI, 2)]
    s = meiraf_trick(KOTSU, {0: [C(ISU, 3)], 1: hand})
    s.apply(Play(0, C(ISU, 3)))
    # six seats still to play: the cheapest card nobody can beat (ISU 15 is its own)
    assert MediumCpu(1).choose(s.view(1), s.legal_actions(1)) == Play(1, C(ISU, 14))
    s = meiraf_trick(KOTSU, {2: [C(ISU, 3)], 1: hand}, leader=2)
    for seat in (2, 3, 4, 5, 6, 7, 0):
        s.apply(s.legal_actions(seat)[0])
    # last to play: the cheapest winning card will do
    assert MediumCpu(1).choose(s.view(1), s.legal_actions(1)) == Play(1, C(ISU, 4))


def test_medium_cpu_leads_to_a_partners_strength():
    hand = [C(ISU, 3), C(ISU, 6), C(ORI, 9)]
    alone = meiraf_trick(KOTSU, {0: hand})
    assert MediumCpu(0).choose(alone.view(0), alone.legal_actions(0)).card.suit == ISU  # longest
    s = meiraf_trick(KOTSU, {0: hand})
    # earlier, the partner at seat 2 led オリ and won the trick
    trick = ((2, C(ORI, 1)), *((k, C(KOTSU, k + 1)) for k in (3, 4, 5, 6, 7, 0, 1)))
    s.history = [tuple(TrickCard(seat, card, False) for seat, card in trick)]
    s.winners, s.played = [2], {card for _, card in trick}
    assert MediumCpu(0).choose(s.view(0), s.legal_actions(0)) == Play(0, C(ORI, 9))


def test_cpu_decides_from_its_view_only():
    """Two states that look the same from seat 3 get the same choice from seat 3."""
    for seed in range(20):
        a = new_game(seed)
        a.apply(Deal())
        while a.actors()[0] != 3 or a.phase not in (MEIRAF, MONCHI, "meri"):
            seat = a.actors()[0]
            a.apply(MediumCpu(seat).choose(a.view(seat), a.legal_actions(seat)))
        b = a.clone()
        # swap one card between two other hands: seat 3's view cannot tell
        x, y = 5, 6
        if b.hands[x] and b.hands[y]:
            b.hands[x][0], b.hands[y][0] = b.hands[y][0], b.hands[x][0]
        assert a.view(3) == b.view(3)
        assert MediumCpu(3).choose(a.view(3), a.legal_actions(3)) == \
            MediumCpu(3).choose(b.view(3), b.legal_actions(3))


def test_medium_cpu_beats_random_play_by_a_clear_margin():
    """A small sample here; bench/bench_unsun.py measures the margin over 1,000 games."""
    medium_wins = 0
    games = 40
    for g in range(games):
        medium_team = g % 2
        opts = {"level": "medium", "against": "random", "test_seat": medium_team}
        state, _ = play_game(STANDARD, f"m:{g}", opts, check=False)
        medium_wins += state.winning_team() == medium_team
    assert medium_wins >= 0.75 * games


def test_cpu_levels_are_named():
    assert isinstance(make_cpu("random", 0), RandomCpu)
    assert isinstance(make_cpu("medium", 0), MediumCpu)
    with pytest.raises(ValueError, match="random, medium"):
        make_cpu("grandmaster", 0)


# -- the session and the simulator ------------------------------------------------------------

def test_same_seed_same_deal_in_the_app_and_the_simulator():
    app = new_session(STANDARD, "7:0", (HUMAN,) + (CPU,) * 7, {})
    app.run_cpus()
    _, sim_log = play_game(STANDARD, "7:0")
    assert app.log[:9] == sim_log[:9]  # the deal and the eight hands
    assert [type(e) for e in app.log[1:9]] == [HandDealt] * 8


def test_session_waits_for_the_person_and_only_lets_them_play_legal_cards():
    session = new_session(STANDARD, 4, (HUMAN,) + (CPU,) * 7, {})
    session.run_cpus()
    assert session.waiting_for() == (0,)
    legal = session.legal(0)
    assert legal and all(a.seat == 0 for a in legal)
    with pytest.raises(IllegalAction, match="not to act") as refused:
        session.act(1, legal[0])
    assert refused.value.reason == "turn.not_your_turn"
    session.act(0, legal[0])
    session.run_cpus()
    assert session.waiting_for() == (0,) or session.is_over()


def test_turn_timer_is_off_by_default_and_5_minutes_when_on():
    off = new_session(STANDARD, 4, (HUMAN,) + (CPU,) * 7, {})
    off.run_cpus()
    assert off.turn_left() is None and TURN_SECONDS == 300
    clock = FakeClock()
    on = new_session(STANDARD, 4, (HUMAN,) + (CPU,) * 7, {"turn_seconds": TURN_SECONDS, "clock": clock})
    on.run_cpus()
    assert on.turn_left() == 300
    clock.advance(299)
    assert on.tick() == []
    clock.advance(2)
    events = on.tick()
    assert isinstance(events[0], TurnTimedOut) and events[0].seat == 0
    assert len(events) > 1  # the stand-in played for seat 0


def test_simulate_is_deterministic_and_reports_both_teams():
    a = simulate_variant(STANDARD, games=3, seed=1, players=8, options={}, check=True)
    b = simulate_variant(STANDARD, games=3, seed=1, players=8, options={}, check=True)
    assert a == b and a["games"] == 3 and a["deals"] == 24
    assert sum(a["wins"].values()) == 3
    text = format_report(a)
    assert "Team A (medium)" in text and "invariants: held" in text


def test_karuta_simulate_unsun_through_the_registry(capsys):
    argv = ["simulate", "unsun", "--games", "2", "--seed", "3", "--level", "medium",
            "--against", "random", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["levels"] == "alternating" and out["games"] == 2        # team A tested, then team B
    assert out["test_seat"]["level"] == "medium" and out["test_seat"]["fair_share"] == 0.5
    old = ["simulate", "unsun", "--games", "1", "--seed", "3", "--cpu-level", "random", "--json"]
    assert main(old) == 0                                              # the old spelling still works
    assert json.loads(capsys.readouterr().out)["levels"] == {"A": "random", "B": "random"}
    assert main(["simulate", "unsun", "--games", "1", "--level", "random,medium"]) == 2
    assert "one level or 8" in capsys.readouterr().err
    assert main(["simulate", "unsun", "--players", "4", "--games", "1"]) == 2
    assert "8 players, not 4" in capsys.readouterr().err


def test_game_of_n_deals_from_options():
    state, _ = play_game(STANDARD, 3, {"deals": 2})
    assert len(state.results) == 2 and state.is_over()


# -- event texts --------------------------------------------------------------------------------

SAMPLES = {
    "unsun.deal": dict(deal=0, dealer=0, okie=C(ISU, 5), trump=ISU),
    "unsun.hand": dict(seat=0, cards=(C(ISU, 1), C(KOTSU, 15))),
    "unsun.robau": dict(seat=2),
    "unsun.hidden_robai": dict(seat=None),
    "unsun.no_robai": dict(dealer=3),
    "unsun.okie_taken": dict(seat=3, card=C(ISU, 5)),
    "unsun.discard": dict(seat=3, card=None),
    "unsun.play": dict(seat=1, card=None, face_down=True, trick=0),
    "unsun.meri": dict(seat=1, card=C(ISU, 9), trick=2),
    "unsun.monchi": dict(trick=3),
    "unsun.trick": dict(trick=3, seat=4, team=0, card=C(ISU, 15), revealed=((4, C(ISU, 15)),)),
    "unsun.yaku": dict(trick=3, seat=4, card=C(ISU, 15), over_seat=5, over_card=C(ISU, 14),
                       team=0, points=2),
    "unsun.yaku_void": dict(trick=3, seat=4, card=C(ISU, 14), over_seat=5, over_card=C(ISU, 13)),
    "unsun.deal_scored": dict(deal=0, tricks_a=5, tricks_b=4, yaku_a=2, yaku_b=0, points_a=3,
                              points_b=0, total_a=3, total_b=0),
    "unsun.game_over": dict(total_a=3, total_b=0, winner=0),
}


def test_every_unsun_event_kind_has_a_text_in_both_languages():
    pytest.importorskip("PySide6")
    from trainer.text.events import missing
    from trainer.ui.i18n import LANG
    from trainer.text.unsun import describe_unsun
    assert missing(EVENT_TYPES) == []
    assert set(SAMPLES) == set(EVENT_TYPES)
    before = LANG.code
    try:
        for lang in ("ja", "en"):
            LANG.set(lang)
            for kind, cls in EVENT_TYPES.items():
                text = describe_unsun(cls(**SAMPLES[kind]))
                assert text and "{" not in text and "None" not in text, (lang, kind, text)
    finally:
        LANG.set(before)


def test_texts_name_cards_and_hide_face_down_ones():
    pytest.importorskip("PySide6")
    from trainer.ui.i18n import LANG
    from trainer.text.unsun import card_name, describe_unsun
    before = LANG.code
    try:
        LANG.set("ja")
        assert card_name(C(ISU, 12)) == "イスのロバイ"
        assert "伏せ札" in describe_unsun(Played(1, None, True, 0))
        LANG.set("en")
        assert card_name(C(KOTSU, 15)) == "Kotsu Sun"
        assert "face-down" in describe_unsun(Played(1, None, True, 0))
    finally:
        LANG.set(before)


def test_teams_in_outcome_are_the_even_and_odd_seats():
    state, _ = play_game(STANDARD, 21)
    out = state.outcome()
    assert {team_of(w) for w in out.winners} in ({0}, {1}, {0, 1})
    assert READER not in out.winners
