"""The pure Mubeyama session (`trainer.games.mubeyama_session`): the registry's entry, the
`Session` protocol (act / why_illegal / tick / next_due, the reader's hold and release, the
CPU's and the hint's timing on the injected clock), the simulator playing the same object
through `protocol.play_out`, refusals by reason id, and the engine as a `GameState`."""
from __future__ import annotations

import pytest

from audio.clock import FakeClock
from trainer.games import protocol, registry
from trainer.games.mubeyama_session import (CPU, EVENT_TYPES, HUMAN, REFUSALS, Click, FlipTimed,
                                            GameConfig, HintGiven, MarkFlip, MubeyamaSession,
                                            ReaderHeld, ReaderReleased, SimulatedReader)
from trainer.games.protocol import GameEvent, GameState, Session
from trainer.players.mubeyama_cpu import MubeyamaCpu
from trainer.rules.mubeyama import (EVENT_TYPES as ENGINE_EVENT_TYPES, READER, VARIANTS, AwaitFlip,
                                    AwaitPass, AwaitRead, Flip, IllegalAction, LayoutError,
                                    MubeyamaError, Read, new_game, reading_order)
from trainer.sim.mubeyama_sim import play_game, play_out, session_for, simulate
from trainer.text import messages, mubeyama as text
from trainer.text.events import describe
from trainer.text.refusals import describe_refusal, has_text


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_registry_session_deals_and_reads_as_the_simulator(variant):
    entry = registry.find("mubeyama", variant)
    spec = VARIANTS[variant]
    assert (entry.min_seats, entry.max_seats) == (spec.players, spec.players)
    app = registry.resolve(entry.session)(entry, 13, (HUMAN,) + (CPU,) * (spec.players - 1), entry.options)
    sim = session_for(spec, 13)
    assert isinstance(app, Session) and isinstance(sim, Session)
    assert app.seats == (HUMAN,) + (CPU,) * (spec.players - 1)
    assert [t.rows for t in app.state.tables] == [t.rows for t in sim.state.tables]
    assert app.order == sim.order == list(reading_order(13))
    play_out(sim)
    assert sim.is_over() and sim.outcome() == sim.state.outcome()
    assert sim.state.read == sim.order[:len(sim.state.read)]
    replay = play_game(spec.make_ruleset(), spec.players, 13)
    assert replay.read == sim.state.read and replay.winners() == sim.state.winners()


def _engine_alone(spec, seed):
    """The game as the simulator played it before the session owned its timing: the engine,
    the reader's order and each CPU acting at once after every reading, no clock at all."""
    g = new_game(spec.make_ruleset(), spec.players, seed=seed)
    cpus = {s: MubeyamaCpu(s, seed=seed) for s in range(spec.players)}
    while not g.is_over():
        g.apply(g.next_read())
        while g.to_act() not in (READER, None):
            seat = g.to_act()
            action = (Flip(seat, g.pending.no) if isinstance(g.pending, AwaitFlip)
                      else cpus[seat].choose(g.view(seat), g.legal_actions(seat)))
            g.apply(action)
    return g


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_protocol_play_out_plays_the_same_game_as_the_engine_alone(variant):
    """Same seed, same game: the session's clock and reader change when things happen, never what."""
    spec = VARIANTS[variant]
    for seed in ("same:1", "same:2"):
        session = play_out(session_for(spec, seed))
        alone = _engine_alone(spec, seed)
        assert [str(e) for e in session.log] == [str(e) for e in alone.log]
        assert session.outcome() == alone.outcome()


def test_the_simulator_is_deterministic():
    a = simulate("izumoji", 5, 6, seed=4)
    b = simulate("izumoji", 5, 6, seed=4)
    assert a.as_dict() == b.as_dict() and a.passes > 0


# -- the session owns when things happen -------------------------------------------------------

def _to_persons_card(s, clock):
    """Read (the CPU seats flipping at their delay) until seat 0's card is read."""
    while True:
        no = s.next_yomifuda()
        events = s.card_started(no)
        assert ReaderHeld(no) in events
        if s.state.pending == AwaitFlip(no, 0):
            return no
        s.kimariji_sounded(no)
        while not s.waits_for_reader():
            clock.set(s.next_due())
            s.tick()


def test_cpu_seats_act_their_delay_after_the_kimariji_and_then_the_reader_reads_on():
    clock = FakeClock(10.0)
    s = MubeyamaSession(GameConfig("okayama4", seats=(CPU,) * 4, seed=2, cpu_delay_s=0.7), clock=clock)
    assert s.next_due() is None and s.waits_for_reader()
    no = s.next_yomifuda()
    assert s.card_started(no + 1 if no < 100 else 1) == []      # not the card the reader reads
    assert s.card_started(no)[-1] == ReaderHeld(no) and s.holding
    assert s.next_due() is None and s.tick() == []              # nobody acts before the kimariji
    clock.advance(0.4)
    s.kimariji_sounded(no)
    assert s.next_due() == pytest.approx(11.1)
    clock.set(11.0)
    assert s.tick() == [] and isinstance(s.state.pending, AwaitFlip)
    clock.set(11.1)
    events = s.tick()
    assert [e.kind for e in events] == ["mubeyama.flip", "mubeyama.reader_release"]
    assert events[-1] == ReaderReleased(no) and not s.holding and s.next_due() is None


def test_a_persons_hint_is_due_after_the_hint_delay_and_the_flip_is_timed():
    clock = FakeClock(100.0)
    config = GameConfig("okayama4", seats=(HUMAN, CPU, CPU, CPU), seed=4, hint_delay_s=3.0, cpu_delay_s=0.5)
    s = MubeyamaSession(config, clock=clock)
    no = _to_persons_card(s, clock)
    clock.advance(0.5)
    s.kimariji_sounded(no)                       # heard now: on the fake clock
    heard = clock.now()
    assert s.next_due() == pytest.approx(heard + 3.0) and s.named_owner() is None
    clock.set(heard + 3.0)
    assert s.tick() == [HintGiven(0, no, hidden_card=False)] and s.named_owner() == 0
    assert s.next_due() is None                  # now it waits for the person
    with pytest.raises(IllegalAction) as info:
        s.act(1, Click(no, clock.now()))
    assert info.value.reason == "mubeyama.not_yours" and info.value.fields == {"seat": 1}
    events = s.act(0, Click(no, heard + 0.432))
    assert FlipTimed(0, no, 432, True) in events and events[-1] == ReaderReleased(no)
    assert [(r.no, r.ms, r.hinted) for r in s.reactions[0]] == [(no, 432, True)]


def test_a_click_before_the_kimariji_is_timed_from_the_predicted_mark():
    clock = FakeClock(5.0)
    s = MubeyamaSession(GameConfig("okayama4", seed=4, cpu_delay_s=0.0), clock=clock)
    no = _to_persons_card(s, clock)
    events = s.act(0, Click(no, stamp=6.0, kimariji_at=7.5))
    assert FlipTimed(0, no, -1500, False) in events


def test_why_illegal_says_what_act_would_refuse_and_changes_nothing():
    clock = FakeClock()
    s = MubeyamaSession(GameConfig("gambling4", seats=(HUMAN, CPU, CPU, CPU), seed=7), clock=clock)
    no = _to_persons_card(s, clock)
    assert no != s.state.tables[0].hidden
    wrong = next(c for c in s.state.tables[0].face_up if c != no)
    cases = [(0, Click(None), "mubeyama.hidden_not_read"), (0, Click(wrong), "mubeyama.not_read"),
             (2, Click(no), "mubeyama.not_yours"), (0, MarkFlip(), "mubeyama.no_flip"),
             (0, Flip(0, wrong), "mubeyama.not_now"), (0, "flip it", "mubeyama.not_an_action")]
    for seat, action, reason in cases:
        log = list(s.events)
        refusal = s.why_illegal(seat, action)
        assert refusal is not None and refusal.reason == reason and reason in REFUSALS
        with pytest.raises(protocol.IllegalAction) as info:
            s.act(seat, action)
        assert info.value.reason == reason and s.events == log
    assert s.why_illegal(0, Click(no)) is None


def test_the_scorer_marks_flips_and_nothing_is_timed():
    clock = FakeClock()
    s = MubeyamaSession(GameConfig("izumoji5", seed=3, scorekeeper=True), clock=clock)
    assert s.seats == (HUMAN,) * 5
    while not s.is_over() and len(s.state.read) < 30:
        s.card_started(s.next_yomifuda())
        s.kimariji_sounded(s.current)
        assert s.next_due() is None                # no CPU, no hint: the scorer marks
        while not s.waits_for_reader() and not s.is_over():
            p = s.state.pending
            if isinstance(p, AwaitFlip):          # marked, or the scorer clicks the card: untimed
                s.act(p.seat, MarkFlip() if len(s.state.read) % 2 else Click(p.no, clock.now(), clock.now()))
            else:
                assert isinstance(p, AwaitPass)
                s.act(p.giver, Click(min(s.state.tables[p.giver].face_up), clock.now()))
    assert not any(s.reactions.values()) and s.state.passes > 0


def test_all_cpu_play_out_refuses_a_table_with_people():
    s = MubeyamaSession(GameConfig("izumoji5"), clock=FakeClock())
    with pytest.raises(ValueError, match="every seat to be a CPU"):
        protocol.play_out(s, s.clock, SimulatedReader())


# -- refusals and events worded --------------------------------------------------------------

def test_engine_errors_are_the_protocols_refusals_with_reason_ids():
    assert issubclass(MubeyamaError, protocol.IllegalAction)
    assert issubclass(IllegalAction, protocol.IllegalAction) and issubclass(LayoutError, MubeyamaError)
    g = new_game(VARIANTS["okayama4"].make_ruleset(), 4, seed=1)
    with pytest.raises(protocol.IllegalAction) as info:
        g.apply(Flip(0, 1))
    assert info.value.reason == "mubeyama.not_now" and info.value.problem == "not_now"
    assert info.value.reason in REFUSALS
    g.apply(Read(1))
    with pytest.raises(protocol.IllegalAction) as info:
        g.next_read()
    assert info.value.reason == "mubeyama.reader_waits"


EXAMPLE_FIELDS = {"seat": 2, "no": 17, "seats": (0, 3), "counts": (4, 6), "ruleset": "Okayama",
                  "players": 5, "got": 3, "need": 25, "value": "x", "text": "zz", "what": "row 1",
                  "amount": 50, "top": 80}


@pytest.mark.parametrize("reason", REFUSALS)
def test_every_refusal_is_worded_in_both_languages(reason):
    assert has_text(reason)
    exc = protocol.IllegalAction(reason, "", **EXAMPLE_FIELDS)
    ja, en = text.error_text(exc, "ja"), text.error_text(exc, "en")
    assert ja != en and "{" not in ja + en
    assert "席3" in ja if "{seat}" in text.REFUSAL_TEXT[reason][0] else True
    assert describe_refusal(exc, "ja") and describe_refusal(exc, "en")   # raw fields suffice too
    assert set(text.REFUSAL_TEXT) == set(REFUSALS)


def test_every_event_kind_engine_and_session_has_a_text_in_both_languages():
    assert set(ENGINE_EVENT_TYPES) < set(EVENT_TYPES)
    assert {"mubeyama.reader_hold", "mubeyama.reader_release", "mubeyama.hint",
            "mubeyama.reaction"} <= set(EVENT_TYPES)
    samples = {ReaderHeld(3), ReaderReleased(3), HintGiven(1, 3), FlipTimed(1, 3, 250, False)}
    before = messages.current()
    for e in samples:
        ja, en = (in_language(lang, lambda e=e: describe(e, **text.event_values(e))) for lang in ("ja", "en"))
        assert ja != en and "{" not in ja + en and "3" in en
        assert text.event_line(e) is None            # the table's log leaves them out
    assert messages.current() == before


def in_language(lang, fn):
    before = messages.current()
    messages.set_language(lang)
    try:
        return fn()
    finally:
        messages.set_language(before)


def test_a_hint_on_a_hidden_card_reaches_only_its_owner():
    assert HintGiven(2, 17, hidden_card=True).private_to == 2
    assert HintGiven(2, 17).private_to is None


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
    assert seen <= set(ENGINE_EVENT_TYPES) and "mubeyama.read" in seen
    assert not isinstance(g.pending, AwaitRead)


def test_a_timed_flip_is_worded_in_seconds_as_the_table_and_statistics_show_it():
    e = FlipTimed(1, 3, 2450, False)
    en, ja = (in_language(lang, lambda: describe(e, **text.event_values(e))) for lang in ("en", "ja"))
    assert en == "Seat 2 flipped #3 after 2.5 s" and "2.5 秒" in ja
    assert " ms" not in en + ja
