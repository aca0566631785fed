"""The pure Mubeyama session (`trainer.games.mubeyama_session`): the registry's entry, the
clock, the simulator playing the same object, and the engine as a `GameState`."""
from __future__ import annotations

import pytest

from audio.clock import FakeClock
from trainer.games import registry
from trainer.games.mubeyama_session import CPU, HUMAN, GameConfig, MubeyamaSession, play_out
from trainer.games.protocol import GameEvent, GameState
from trainer.rules.mubeyama import (EVENT_TYPES, READER, VARIANTS, AwaitFlip, IllegalAction,
                                    new_game, reading_order)
from trainer.sim.mubeyama_sim import play_game, session_for


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_registry_session_deals_and_reads_as_the_simulator(variant):
    entry = registry.find("mubeyama", variant)
    spec = VARIANTS[variant]
    assert (entry.min_seats, entry.max_seats) == (spec.players, spec.players)
    app = registry.resolve(entry.session)(entry, 13, (HUMAN,) + (CPU,) * (spec.players - 1), entry.options)
    sim = session_for(spec, 13)
    assert [t.rows for t in app.state.tables] == [t.rows for t in sim.state.tables]
    assert app.order == sim.order == list(reading_order(13))
    play_out(sim)
    assert sim.state.read == sim.order[:len(sim.state.read)]
    replay = play_game(spec.make_ruleset(), spec.players, 13)
    assert replay.read == sim.state.read and replay.winners() == sim.state.winners()


def test_a_persons_reaction_is_timed_on_the_injected_clock():
    clock = FakeClock(100.0)
    s = MubeyamaSession(GameConfig("okayama4", seats=(HUMAN, CPU, CPU, CPU), seed=4), clock=clock)
    while True:
        no = s.next_yomifuda()
        s.read(no)
        if isinstance(s.state.pending, AwaitFlip) and s.state.pending.seat == 0:
            break
        s.kimariji_sounded(no)
        s.run_cpus()
    clock.advance(0.5)
    s.kimariji_sounded(no)                       # heard now: 100.5 on the fake clock
    with pytest.raises(IllegalAction) as info:
        s.flip_at(1, no, clock.now())
    assert info.value.problem == "not_yours"
    s.flip_at(0, no, clock.now() + 0.432)
    assert [(r.no, r.ms) for r in s.reactions[0]] == [(no, 432)]


def test_all_cpu_play_out_refuses_a_table_with_people():
    s = MubeyamaSession(GameConfig("izumoji5"), clock=FakeClock())
    with pytest.raises(ValueError, match="all-CPU"):
        play_out(s)


@pytest.mark.parametrize("variant", ["okayama4", "izumoji6", "gambling4"])
def test_the_engine_follows_the_game_protocol(variant):
    spec = VARIANTS[variant]
    g = new_game(spec.make_ruleset(), spec.players, seed=8)
    assert isinstance(g, GameState)
    seen = set()
    while not g.is_over():
        (seat,) = g.actors()
        action = g.next_read() if seat == READER else g.legal_actions(seat)[0]
        copy = g.clone()
        events = g.apply(action)
        assert events and all(isinstance(e, GameEvent) for e in events)
        assert copy.reads() <= g.reads() and copy.log == g.log[:len(copy.log)]
        seen |= {e.kind for e in events}
        g.check_invariants()
    out = g.outcome()
    assert g.actors() == () and out is not None and out.winners == g.winners()
    assert out.scores == tuple(g.scores()) and out.reason == g.log[-1].reason
    assert seen <= set(EVENT_TYPES) and "mubeyama.read" in seen
