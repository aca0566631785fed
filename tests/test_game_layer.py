"""The game layer: registry, `karuta games`, `karuta simulate` through the registry, current kimariji."""
from __future__ import annotations

import json
import random

import pytest

import poems
from poems import kimariji
from trainer.cli import main
from trainer.games import registry


def test_current_kimariji_agrees_with_dynamic_over_random_readings():
    rng = random.Random(5)
    for _ in range(20):
        order = list(range(1, 101))
        rng.shuffle(order)
        for k in range(0, 100, 7):
            read, no = order[:k], order[k]
            now = kimariji.current(no, read)
            assert now.kana == kimariji.dynamic(read)[no]
            assert now.length == len(now.kana)
            # the mark's mora holds the last decisive kana: one mora fewer would not
            assert poems.get(no).kimariji_mora_count(now.length) == now.mora + 1


def test_current_kimariji_henka_examples():
    assert kimariji.current(64, [31]).kana == "あさぼ" and kimariji.current(64, [31]).changed
    assert kimariji.current(64).kana == "あさぼらけう" and not kimariji.current(64).changed
    assert kimariji.current(17, in_play=[17, 61]).length == 1


def test_games_json_lists_kyogi_and_every_mubeyama_variant(capsys):
    assert main(["games", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    keys = {(e["name"], e["variant"]) for e in entries}
    assert ("kyogi", "standard") in keys
    assert {v for n, v in keys if n == "mubeyama"} == {
        "okayama4", "okayama6", "izumoji5", "izumoji6", "gambling4", "gambling4open", "gambling5"}
    for e in entries:
        assert 1 <= e["min_seats"] <= e["max_seats"]


@pytest.mark.parametrize("variant", registry.games(), ids=lambda v: v.key)
def test_every_registered_variant_simulates_deterministically(variant, capsys):
    argv = ["simulate", variant.game, "--variant", variant.variant, "--games", "2", "--seed", "4",
            "--json"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first
    assert json.loads(first)["games"] == 2


def test_registry_refuses_unknown_names():
    with pytest.raises(KeyError, match="known: kyogi"):
        registry.find("chess")
    with pytest.raises(KeyError, match="okayama4"):
        registry.find("mubeyama", "okayama5")
    with pytest.raises(ValueError, match="played by 4 players, not 5"):
        registry.find("mubeyama", "okayama4").check_seats(5)


# -- the turn session, on a toy game: seats count up in turn; whoever says 10 wins -------------

from dataclasses import dataclass  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from trainer.games.protocol import GameEvent, GameOutcome, GameState, IllegalAction, Session  # noqa: E402
from trainer.games.turn_session import CPU, HUMAN, TurnSession, play_out  # noqa: E402


@dataclass(frozen=True)
class Said(GameEvent):
    kind = "toy.said"
    seat: int
    number: int
    secret: bool


class CountGame:
    players = 3

    def __init__(self):
        self.n, self.turn = 0, 0

    def actors(self):
        return () if self.is_over() else (self.turn,)

    def legal_actions(self, seat):
        return [self.n + 1, self.n + 2]

    def apply(self, action):
        if action not in self.legal_actions(self.turn):
            raise ValueError("illegal")
        self.n = min(action, 10)
        said = Said(self.turn, self.n, secret=self.n % 2 == 1)
        self.turn = (self.turn + 1) % 3
        return [said]

    def is_over(self):
        return self.n >= 10

    def outcome(self):
        return GameOutcome((0, 0, 0), ((self.turn - 1) % 3,), "ten") if self.is_over() else None

    def view(self, seat):
        return self.n

    def clone(self):
        c = CountGame()
        c.n, c.turn = self.n, self.turn
        return c

    def check_invariants(self):
        assert 0 <= self.n <= 10

    def redact(self, event, seat):
        return None if event.secret and event.seat != seat else event


class Lowest:
    def choose(self, view, legal):
        return min(legal)


def test_toy_game_is_a_game_state():
    assert isinstance(CountGame(), GameState)


def test_turn_session_waits_for_the_person_and_plays_the_cpus():
    s = TurnSession(CountGame(), [CPU, HUMAN, CPU], {0: Lowest(), 2: Lowest()}, clock=FakeClock())
    assert [e.number for e in s.run_cpus()] == [1]
    assert s.waiting_for() == (1,)
    with pytest.raises(IllegalAction) as refused:
        s.act(0, 2)
    assert refused.value.reason == "turn.not_your_turn"
    assert s.why_illegal(0, 2) is not None and s.why_illegal(1, 3) is None
    s.act(1, 3)
    assert [e.number for e in s.run_cpus()] == [4, 5]
    # odd numbers are secret to everybody but their sayer
    assert [e.number for e in s.log_for(1)] == [3, 4]
    assert [e.number for e in s.log_for(0)] == [1, 4, 5]


def test_turn_timer_lets_a_stand_in_play_and_logs_it():
    clock = FakeClock()
    s = TurnSession(CountGame(), [HUMAN, CPU, CPU], {1: Lowest(), 2: Lowest()}, clock=clock,
                    turn_seconds=300, stand_in=lambda seat: Lowest())
    assert s.turn_left() == 300
    clock.advance(299)
    assert s.tick() == []
    clock.advance(1)
    out = s.tick()
    assert out[0].kind == "table.timeout" and out[1].number == 1


def test_play_out_runs_an_all_cpu_table_to_the_end():
    s = play_out(TurnSession(CountGame(), [CPU] * 3, {k: Lowest() for k in range(3)}))
    assert s.is_over() and s.state.outcome().reason == "ten"


def test_the_shared_timeout_event_has_a_text_in_both_languages():
    import os
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from trainer.games.turn_session import TurnTimedOut
    from trainer.text import events as event_text
    from trainer.ui.i18n import LANG
    assert event_text.missing(["table.timeout"]) == []
    was = LANG.code
    try:
        LANG.set("en")
        assert event_text.describe(TurnTimedOut(2, 300.0)) == \
            "Seat 3's turn time (300 s) ran out; the CPU played for them"
        LANG.set("ja")
        assert "3 番席" in event_text.describe(TurnTimedOut(2, 300.0))
    finally:
        LANG.set(was)


def test_turn_session_is_a_protocol_session_that_paces_its_cpus_on_the_clock():
    clock = FakeClock()
    s = TurnSession(CountGame(), [CPU, HUMAN, CPU], {0: Lowest(), 2: Lowest()}, clock=clock,
                    cpu_delay=0.5)
    assert isinstance(s, Session)
    assert s.next_due() == 0.5 and s.tick() == []          # nothing before its time
    clock.advance(0.5)
    assert [e.number for e in s.tick()] == [1]             # one CPU move
    assert s.waiting_for() == (1,) and s.next_due() is None  # a person, no timer: nothing due
    s.act(1, 3)
    assert s.next_due() == 1.0
    clock.advance(10)
    assert [e.number for e in s.tick()] == [4]             # each move waits its delay after the last
    s.set_pace(0.0)
    assert [e.number for e in s.tick()] == [5]             # no delay: everything due plays now


def test_a_pause_after_an_event_kind_holds_the_next_move():
    clock = FakeClock()
    s = TurnSession(CountGame(), [CPU] * 3, {k: Lowest() for k in range(3)}, clock=clock,
                    cpu_delay=0.1, pause_after={"toy.said": 2.0})
    clock.advance(0.1)
    assert len(s.tick()) == 1 and s.next_due() == pytest.approx(2.1)
    s.set_pace(0.0)
    assert s.next_due() == pytest.approx(0.1)         # no pace, no pause


@pytest.mark.parametrize("game,players", [("unsun", 8), ("yomi", 4), ("umebotan", 3)])
def test_a_paced_table_plays_the_same_game_as_the_simulator(game, players):
    """The app paces the CPUs (a delay, a pause after tricks), the simulator does not: the
    protocol's play_out on a fake clock gives the same log either way, for the same seed."""
    from trainer.games import registry
    from trainer.games.protocol import Session
    from trainer.games.protocol import play_out as play_session
    variant = registry.find(game)
    make = registry.resolve(variant.session)
    opts = {"rounds": 2} if game == "umebotan" else {"deals": 2} if game == "unsun" else {}
    logs = []
    for delay in (0.0, 0.7):
        clock = FakeClock()
        s = make(variant, 5, [CPU] * players, {**opts, "clock": clock, "cpu_delay": delay})
        s.set_pace(delay, {"unsun.trick": 1.6})
        assert isinstance(s, Session)
        play_session(s, clock)
        assert s.is_over() and (clock.now() > 0) == (delay > 0)
        logs.append(s.log)
    assert logs[0] == logs[1]
