"""The kyōgi match session without Qt: the rules of a match on a fake clock.

A `Reader` plays the reading driver's part (kami-no-ku marks at 200 ms a mora,
the card finishing 3 s after its kami-no-ku); a `ScriptedCPU` touches given
cards at given delays after the kimariji mark it hears and sends the cards it
is told to. Then 1,000+ all-CPU matches through the same session, with
invariants checked after every step.
"""
from __future__ import annotations

import math
import random

import pytest

import poems.kimariji

from audio.clock import FakeClock
from trainer.games import kyogi_session as KS
from trainer.games.kyogi_session import (
    CPU,
    HUMAN,
    NO_TAKE_GRACE_S,
    OVER,
    PLAY,
    TAKE_GRACE_S,
    KyogiSession,
    mark_names,
)
from trainer.players.karuta_cpu import LEVELS, identify
from trainer.rules import kyogi
from trainer.rules.kyogi import FaultKind, IllegalAction, Phase, Send, Touch, Touches
from trainer.rules.territory import Place, Territory
from trainer.sim import kyogi_sim

YOU, THEM = 0, 1
MORA_S, MA_S, SHIMO_S = 0.2, 1.0, 3.0


def marks_at(t: float, poem: int) -> dict[str, float]:
    n = len(mark_names(poem)) - 2
    marks = {"kami_start": t, "kami_end": t + n * MORA_S}
    marks.update({f"kami:mora:{k}": t + k * MORA_S for k in range(n)})
    return marks


class Reader:
    """The reading driver's part: the next kami-no-ku after the ma, its marks, the card's end."""

    def __init__(self, session: KyogiSession, clock: FakeClock):
        self.session, self.clock = session, clock
        self.poem: int | None = None
        self.finished = False
        self.marks: dict[str, float] = {}
        self.events: list = []

    def next_card(self) -> list:
        s = self.session
        self.finished = False
        self.poem = s.order[len(s.state.read) + (s.race is not None)]
        self.clock.advance(MA_S)
        self.marks = marks_at(self.clock.now(), self.poem)
        return self._log(s.kami_started(self.poem, self.marks))

    def at(self, after_kimariji_ms: int) -> float:
        """The clock time `after_kimariji_ms` after the current race's kimariji mark."""
        return self.session.race.kimariji + after_kimariji_ms / 1000

    def touch(self, card: int, after_kimariji_ms: int) -> list:
        t = self.at(after_kimariji_ms)
        self.clock.set(max(self.clock.now(), t))
        return self._log(self.session.touch(card, t))

    def close(self) -> list:
        """Tick every 10 ms (as the panel's timer does) until the race is judged: a take
        decided, or the card ends (a person owing cards), or, with nobody taking it, the
        next kami-no-ku about to start (the judge then is `judge(at=...)`, what its
        `kami_started` does)."""
        events = []
        end = self.marks["kami_end"] + SHIMO_S
        while self.session.race is not None and self.clock.now() < end + MA_S:
            if not self.finished and self.clock.now() >= end:
                events += self.finish_card()
                continue
            self.clock.advance(0.01)
            events += self.session.tick()
        if self.session.race is not None:
            events += self.session.judge(at=self.clock.now())
        return self._log(events)

    def finish_card(self) -> list:
        if self.finished:
            return []
        self.finished = True
        self.clock.set(max(self.clock.now(), self.marks["kami_end"] + SHIMO_S))
        return self._log(self.session.card_finished(self.poem))

    def _log(self, events):
        self.events += events
        return events


class ScriptedCPU:
    """The opponent's hands, written down: per poem heard, (card, ms after the kimariji mark)."""

    def __init__(self, script=None, sends=()):
        self.script = dict(script or {})
        self.sends = list(sends)

    def touches(self, view, heard):
        poem = identify(heard.morae)
        return Touches(THEM, tuple(Touch(c, heard.kimariji_ms + dt) for c, dt in self.script.get(poem, ())))

    def choose_send(self, view):
        return Send(THEM, self.sends.pop(0))


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def setup(you, them, first_reads, cpu=None, clock=None):
    rest = [n for n in range(1, 101) if n not in first_reads]
    random.Random(7).shuffle(rest)
    clock = clock or FakeClock(1000.0)
    session = KyogiSession(3, clock=clock, sides=[Territory.arranged(you), Territory.arranged(them)],
                           yomifuda=list(first_reads) + rest, cpus={THEM: cpu or ScriptedCPU()})
    session.begin()
    return session, Reader(session, clock)


# -- whole matches ------------------------------------------------------------------------------

def test_a_whole_match_the_person_wins():
    cpu = ScriptedCPU({10: ((10, 400),)})
    s, r = setup([64, 3, 5], [10, 12], [31, 64, 10, 5], cpu)
    assert s.phase == PLAY and s.epoch == 1000.0
    # あさぼらけあ (31), a karafuda: nobody touches, nothing moves, no trial.
    r.next_card()
    events = r.close()
    assert of(events, KS.Reaction)[0].ms is None and not of(events, KS.ReadRecorded)
    r.finish_card()
    # あさぼらけう (64) is now decided at あさぼ (mora 2): the reaction counts from there.
    opened = of(r.next_card(), KS.RaceOpened)[0]
    assert (opened.kimariji, opened.was) == ("あさぼ", "あさぼらけう")
    assert s.race.kimariji == r.marks["kami:mora:2"]
    r.touch(64, 300)
    events = r.close()
    assert of(events, KS.Reaction) == [KS.Reaction(YOU, 64, 300, False, True, "あさぼ", "あさぼらけう")]
    assert of(events, KS.ReadRecorded)[0].record == KS.ReadRecord(64, True, "take", 300.0, None)
    r.finish_card()
    # Taken first from the CPU's side: the person chooses the okurifuda, the reader holds.
    r.next_card()
    r.touch(10, 250)
    events = r.close()
    assert of(events, KS.OkurifudaNeeded) == [KS.OkurifudaNeeded(YOU, 1)]
    assert of(events, KS.ReaderHeld) == [KS.ReaderHeld("okuri")]
    assert s.state.phase is Phase.OKURI
    events = s.choose_okurifuda(3)
    assert of(events, kyogi.CardSent) == [kyogi.CardSent(YOU, 3, THEM)]
    assert of(events, KS.ReaderReleased)
    r.finish_card()
    # The last card on the person's side: they win.
    r.next_card()
    r.touch(5, 280)
    events = r.close()
    assert of(events, kyogi.MatchOver) == [kyogi.MatchOver(YOU, 2)]
    assert of(events, KS.PhaseChanged) == [KS.PhaseChanged(OVER)]
    assert s.phase == OVER and s.state.winner() == YOU
    assert s.reactions == [300, 250, 280] and s.mean_reaction() == 277
    s.state.check_invariants()


def test_a_whole_match_the_person_loses_to_a_real_cpu_that_sends_at_once():
    clock = FakeClock(50.0)
    s = KyogiSession(21, clock=clock, cpu_level="meijin")
    s.begin()
    r = Reader(s, clock)
    while s.phase != OVER:
        r.next_card()
        r.close()
        while s.state.phase is Phase.OKURI:      # the CPU faulted: the person sends it a card
            assert s.state.owing[0] == YOU       # the CPU never keeps the reader waiting
            assert of(r.events, KS.OkurifudaNeeded)[-1] == KS.OkurifudaNeeded(YOU, s.state.owing[2])
            r._log(s.choose_okurifuda(s.state.side(YOU).cards()[0]))
        s.state.check_invariants()
        r.finish_card()
    assert s.state.winner() == THEM
    assert len(of(r.events, kyogi.CardSent)) == sum(o.cards_owed for o in s.state.outcomes)
    assert [e.seat for e in of(r.events, kyogi.CardSent) if e.seat == YOU] == \
        [YOU] * sum(o.cards_owed for o in s.state.outcomes if o.giver == YOU)
    floor_reads = [o for o in s.state.outcomes if not o.karafuda]
    records = [e.record for e in of(r.events, KS.ReadRecorded)]
    assert [rec.card for rec in records] == [o.poem for o in floor_reads]
    assert {rec.answer for rec in records} == {"missed"} and not any(rec.correct for rec in records)
    assert of(r.events, kyogi.MatchOver)[0].left == len(s.state.side(YOU))


# -- touches and faults ---------------------------------------------------------------------------

def test_a_touch_in_the_ma_is_an_early_fault_a_touch_during_the_shimo_no_ku_is_nothing():
    cpu = ScriptedCPU(sends=[12])
    s, r = setup([3, 5, 7], [10, 12, 14], [3, 5, 80], cpu)
    r.next_card()
    r.touch(3, 300)
    r.close()                                                 # the take is decided
    late = s.touch(14, r.clock.now())                         # the shimo-no-ku still sounding
    assert [type(e) for e in late] == [KS.TouchLanded] and not s.early
    r.finish_card()                                           # the ma begins
    events = s.touch(10, r.clock.advance(0.2))
    assert of(events, KS.EarlyTouch) == [KS.EarlyTouch(YOU, 10, s.ms(r.clock.now()))]
    r.next_card()                                             # 5, on the person's own side
    r.touch(5, 300)
    events = r.close()
    fault = of(events, kyogi.Faulted)
    assert fault == [kyogi.Faulted(YOU, FaultKind.EARLY.value, 1)]
    outcome = s.state.outcomes[-1]
    assert outcome.taker == YOU and {f.kind for f in outcome.faults} == {FaultKind.EARLY}
    assert s.early == []                                      # used once, for the next read only


def test_a_touch_during_the_joka_is_an_early_fault_as_online():
    """"Touching any Torifuda before the reader starts reading the Yomifuda" is a fault: the joka
    is not a yomifuda, so a touch while it sounds is early, charged with read 1 (the server's
    `touch_before_reading` judges an online touch during the joka the same way)."""
    s, r = setup([3, 5, 7], [10, 12, 14], [3, 5, 80], ScriptedCPU(sends=[12]))
    assert s.kami_started(0, {}) == []                        # the joka begins (0: no yomifuda)
    events = s.touch(12, r.clock.advance(1.5))
    assert of(events, KS.EarlyTouch) == [KS.EarlyTouch(YOU, 12, s.ms(r.clock.now()))]
    s.card_finished(0)                                        # the joka's ma
    r.next_card()                                             # 3, on the person's own side
    r.touch(3, 300)
    fault = of(r.close(), kyogi.Faulted)
    assert fault == [kyogi.Faulted(YOU, FaultKind.EARLY.value, 1)]


def test_a_touch_while_a_karafuda_is_read_is_a_fault_and_the_cpu_sends_at_once():
    cpu = ScriptedCPU(sends=[12])
    s, r = setup([3, 5, 7], [10, 12, 14], [80], cpu)
    r.next_card()
    r.touch(12, 200)
    events = r.close()
    assert of(events, kyogi.Faulted) == [kyogi.Faulted(YOU, FaultKind.KARAFUDA.value, 1)]
    assert of(events, kyogi.CardSent) == [kyogi.CardSent(THEM, 12, YOU)]
    reaction = of(events, KS.Reaction)[0]
    assert (reaction.seat, reaction.poem, reaction.ms, reaction.fault, reaction.taken) == (YOU, 80, 200, True, False)
    assert of(events, KS.ReadRecorded)[0].record == KS.ReadRecord(80, False, "fault", 200.0, "karafuda")
    assert s.state.phase is Phase.AWAIT_READ and sorted(s.state.side(YOU).cards()) == [3, 5, 7, 12]


def test_the_reaction_shown_for_a_fault_is_the_touch_from_the_kimariji_mark():
    cpu = ScriptedCPU({14: ((14, 300),)}, sends=[10])
    s, r = setup([3, 5, 7], [10, 12, 14], [14], cpu)
    r.next_card()
    r.touch(5, 180)                  # the person's own side; the card is on the CPU's
    events = r.close()
    reaction = of(events, KS.Reaction)[0]
    assert (reaction.ms, reaction.fault, reaction.taken) == (180, True, False)
    assert of(events, KS.ReadRecorded)[0].record == KS.ReadRecord(14, False, "fault", 180.0, "otetsuki")
    assert s.state.outcomes[-1].taker == THEM


def test_the_race_closes_after_the_first_take_or_after_the_kami_no_ku():
    cpu = ScriptedCPU({10: ((10, 400),)})
    s, r = setup([3, 5], [10, 12], [10, 80], cpu)
    r.next_card()
    race = s.race
    assert race.close == pytest.approx(race.kimariji + 0.4 + TAKE_GRACE_S)
    r.touch(10, 100)                 # the person is first: it closes sooner
    assert race.close == pytest.approx(race.kimariji + 0.1 + TAKE_GRACE_S)
    r.close()
    s.choose_okurifuda(3)
    r.finish_card()
    r.next_card()                    # a karafuda nobody touches: open until the next kami-no-ku
    assert s.race.close == math.inf
    s.toggle_wait()                  # ... unless the reader is asked to wait
    assert s.race.close == pytest.approx(r.marks["kami_end"] + NO_TAKE_GRACE_S)


# -- okurifuda, 待った -----------------------------------------------------------------------------

def test_the_person_chooses_the_okurifuda_only_from_their_own_side():
    cpu = ScriptedCPU()
    s, r = setup([3, 5], [10, 12], [10], cpu)
    r.next_card()
    r.touch(10, 250)
    r.close()
    assert s.state.owing == (YOU, THEM, 1)
    assert s.choose_okurifuda(12) == [] and s.state.phase is Phase.OKURI   # the CPU's card
    assert s.choose_okurifuda(99) == []
    s.toggle_wait()                                   # the person's own wait outlasts the choice
    events = s.choose_okurifuda(5)
    assert of(events, kyogi.CardSent) == [kyogi.CardSent(YOU, 5, THEM)]
    assert not of(events, KS.ReaderReleased) and of(events, KS.RearrangeAllowed)
    assert s.toggle_wait() == [KS.ReaderReleased()]


def test_wait_holds_the_reader_and_lets_the_person_rearrange_between_reads_only():
    s, r = setup([3, 5, 7], [10, 12], [80, 81])
    r.next_card()
    assert s.toggle_wait() == [KS.ReaderHeld("wait")]       # the read is not settled yet
    side = s.state.side(YOU)
    side.move(7, Place(0, "right", 0))
    with pytest.raises(IllegalAction):
        s.rearrange(side)                                   # not during a read
    events = r.close()
    assert of(events, KS.RearrangeAllowed) == [KS.RearrangeAllowed(YOU)]
    assert s.may_rearrange
    assert of(s.rearrange(side), kyogi.Rearranged) == [kyogi.Rearranged(YOU)]
    assert s.state.side(YOU).locate(7) == Place(0, "right", 0)
    assert s.toggle_wait() == [KS.ReaderReleased()]
    assert not s.may_rearrange


def test_the_layout_before_the_match_is_the_persons_and_the_cpu_level_counts_until_it_begins():
    clock = FakeClock(0.0)
    s = KyogiSession(8, clock=clock, cpu_level="beginner")
    own = Territory.arranged(sorted(s.side(YOU).cards()))
    s.set_arrangement(YOU, own)
    assert s.set_cpu_level("meijin")
    assert s.cpus[THEM].level.name == "meijin" and s.side(YOU) == own
    assert s.side(THEM) == KyogiSession(8, clock=clock, cpu_level="meijin").side(THEM)
    s.begin()
    assert s.state.side(YOU) == own
    assert not s.set_cpu_level("beginner") and s.cpus[THEM].level.name == "meijin"


# -- all-CPU matches through the session ----------------------------------------------------------

def _short_match(k: int) -> tuple[KyogiSession, FakeClock]:
    """A seeded endgame: 1-8 cards a side, the floor's cards read early among a few karafuda."""
    rng = random.Random(k)
    deck = rng.sample(range(1, 101), 100)
    a, b = rng.randint(1, 8), rng.randint(1, 8)
    floor, karafuda = deck[:a + b], deck[a + b:]
    first = floor + karafuda[:rng.randint(0, 8)]
    rng.shuffle(first)
    levels = (rng.choice(list(LEVELS)), rng.choice(list(LEVELS)))
    clock = FakeClock(rng.uniform(0, 1000))
    session = KyogiSession(k, seats=(CPU, CPU), clock=clock, cpu_level=levels,
                           sides=[Territory.arranged(floor[:a]), Territory.arranged(floor[a:])],
                           yomifuda=first + karafuda[len(first) - a - b:])
    return session, clock


def _check_match(session: KyogiSession) -> None:
    state = session.state
    assert session.phase == OVER and state.is_over()
    state.check_invariants()
    outcome = state.outcome()
    assert outcome.winners == (state.winner(),) and outcome.scores[state.winner()] == 0
    assert session.race is None and session.reactions == []        # no person, no reactions
    sent = sum(1 for e in state.log if e.kind == "send")
    assert sent == sum(o.cards_owed for o in state.outcomes)         # every card owed was sent
    for o in state.outcomes:
        assert o.taker is None or o.take_ms is not None


def test_seeded_all_cpu_matches_through_the_session_keep_the_invariants():
    """A hundred short matches and three whole ones: the engine's own large loop is
    tests/test_kyogi.py's thousand random games (slow)."""
    timing = kyogi_sim.NominalTiming()
    winners = [0, 0]
    for k in range(100):
        session, clock = _short_match(k)
        kyogi_sim.play_session(session, clock, timing, check=True)
        _check_match(session)
        winners[session.state.winner()] += 1
    for k in range(3):                                   # and whole matches, 25 + 25
        session = kyogi_sim.play_game(k, ("club", "strong"), timing, check=True).session
        _check_match(session)
    assert min(winners) > 10                            # both seats win some


def test_the_same_seed_plays_the_same_match():
    a = kyogi_sim.play_game(5, ("club", "club"), kyogi_sim.NominalTiming()).state
    b = kyogi_sim.play_game(5, ("club", "club"), kyogi_sim.NominalTiming()).state
    assert a.log == b.log and a.outcomes == b.outcomes


def test_the_registry_builds_the_session():
    from trainer.games.registry import GAMES
    variant = next(v for v in GAMES if v.game == "kyogi")
    s = KS.new_session(variant, 4, ("human", "cpu"), {"cpu_level": "a-class", "clock": FakeClock()})
    assert isinstance(s, KyogiSession) and s.seats == (HUMAN, CPU)
    assert s.cpus[THEM].level.name == "a-class" and s.order == kyogi.KyogiState.new(4).reader_order()


def test_the_engine_follows_the_game_protocol():
    from trainer.games.protocol import READER, GameState
    state = kyogi.KyogiState.new(2)
    assert isinstance(state, GameState) and state.players == 2
    assert state.actors() == (READER, 0, 1) and state.outcome() is None
    assert state.legal_actions(READER) == [kyogi.Read(0, 0)]
    twin = state.clone()
    events = twin.apply(kyogi.Read(100, 900))
    assert events == [kyogi.ReadStarted(1, 100, 900)]
    assert twin.actors() == (0, 1) and state.phase is Phase.AWAIT_READ   # the original is untouched
    assert twin.legal_actions(READER) == [] and len(twin.legal_actions(0)) == 1 + 50
    assert set(KS.EVENT_TYPES) >= set(kyogi.EVENT_TYPES)
    assert all(kind.startswith("kyogi.") for kind in KS.EVENT_TYPES)


# -- issue 10: the judge's window, the level ----------------------------------------------------

@pytest.mark.parametrize("late_ms, taker, simultaneous", [
    (0, YOU, True), (kyogi.JUDGE_WINDOW_MS, YOU, True), (kyogi.JUDGE_WINDOW_MS + 1, THEM, False)])
def test_touches_within_the_judges_window_go_to_the_owner_of_the_side(late_ms, taker, simultaneous):
    cpu = ScriptedCPU({5: ((5, 300),)}, sends=[10])
    s, r = setup([3, 5], [10, 12], [5], cpu)
    assert s.rules.simultaneous_ms == kyogi.JUDGE_WINDOW_MS        # a match is judged with the window
    r.next_card()
    r.touch(5, 300 + late_ms)                                     # the person, on their own side, later
    r.close()
    outcome = s.state.outcomes[-1]
    assert (outcome.taker, outcome.simultaneous) == (taker, simultaneous)


def test_a_session_can_be_judged_to_the_millisecond():
    cpu = ScriptedCPU({5: ((5, 300),)}, sends=[10])
    rest = [n for n in range(1, 101) if n != 5]
    s = KyogiSession(3, clock=FakeClock(), sides=[Territory.arranged([3, 5]), Territory.arranged([10, 12])],
                     yomifuda=[5] + rest, cpus={THEM: cpu}, rules=kyogi.Rules())
    s.begin()
    r = Reader(s, s.clock)
    r.next_card()
    r.touch(5, 301)
    r.close()
    assert s.state.outcomes[-1].taker == THEM


# -- issue 10: the race stays open until the next kami-no-ku --------------------------------------

def test_a_karafuda_touch_after_the_kami_no_ku_is_still_a_fault_and_shown_at_once():
    cpu = ScriptedCPU(sends=[12])
    s, r = setup([3, 5, 7], [10, 12, 14], [80, 5], cpu)
    r.next_card()
    t = r.marks["kami_end"] + 1.5                    # the shimo-no-ku is sounding
    r.clock.set(t)
    assert s.tick() == [] and s.race is not None      # still open
    events = s.touch(12, t)
    shown = of(events, KS.Reaction)
    assert len(shown) == 1 and shown[0].fault and not shown[0].final
    assert shown[0].ms == s.ms(t) - s.ms(s.race.kimariji)
    r.finish_card()
    assert s.race is not None                        # open through the ma too
    events = r.next_card()                           # the next kami-no-ku starts: 80 is judged
    assert of(events, kyogi.Faulted) == [kyogi.Faulted(YOU, FaultKind.KARAFUDA.value, 1)]
    final = of(events, KS.Reaction)
    assert len(final) == 1 and final[0].final and (final[0].ms, final[0].fault) == (shown[0].ms, True)
    assert of(events, kyogi.CardSent) == [kyogi.CardSent(THEM, 12, YOU)]
    assert of(events, KS.RaceOpened)[0].poem == 5    # and the next race is open


def test_a_late_take_on_the_cpus_side_is_a_take_not_an_unclaimed_card():
    s, r = setup([3, 5], [10, 12], [10, 80])
    r.next_card()
    t = r.marks["kami_end"] + 2.0                    # long after the kami-no-ku + 1 s
    r.clock.set(t)
    s.tick()
    kimariji = s.race.kimariji
    s.touch(10, t)
    events = r.close()
    outcome = s.state.outcomes[-1]
    assert (outcome.taker, outcome.unclaimed) == (YOU, False) and 10 in s.state.taken(YOU)
    assert of(events, KS.OkurifudaNeeded) == [KS.OkurifudaNeeded(YOU, 1)]
    reaction = of(events, KS.Reaction)[0]
    assert reaction.taken and reaction.final and reaction.ms == s.ms(t) - s.ms(kimariji)


def test_when_a_person_would_owe_as_the_card_ends_the_read_is_judged_and_the_reader_holds():
    cpu = ScriptedCPU({80: ((10, 200),)})             # the CPU faults on a karafuda
    s, r = setup([3, 5], [10, 12], [80, 5], cpu)
    r.next_card()
    r.clock.set(r.marks["kami_end"] + 0.5)
    s.tick()
    assert s.race is not None
    events = r.finish_card()
    assert of(events, kyogi.Faulted) == [kyogi.Faulted(THEM, FaultKind.KARAFUDA.value, 1)]
    assert of(events, KS.OkurifudaNeeded) == [KS.OkurifudaNeeded(YOU, 1)]
    assert of(events, KS.ReaderHeld) == [KS.ReaderHeld("okuri")]
    s.choose_okurifuda(3)
    assert s.state.phase is Phase.AWAIT_READ


def test_a_take_decided_as_the_next_kami_no_ku_starts_delays_that_read_until_the_okurifuda():
    s, r = setup([3, 5], [10, 12], [10, 5])
    r.next_card()
    r.finish_card()
    end = r.clock.now()
    s.touch(10, end + MA_S - 0.1)                    # in the last 100 ms of the ma
    r.clock.set(end + MA_S - 0.1)
    events = r.next_card()                           # the next kami-no-ku starts first
    assert of(events, kyogi.Taken) == [kyogi.Taken(YOU, 10, THEM, of(events, kyogi.Taken)[0].reaction_ms, False)]
    assert of(events, KS.OkurifudaNeeded) and not of(events, KS.RaceOpened) and s.race is None
    events = s.choose_okurifuda(3)                   # then the read of 5 opens, as it sounded
    opened = of(events, KS.RaceOpened)
    assert opened and opened[0].poem == 5 and s.race.start == r.marks["kami_start"]
    r.touch(5, 300)
    r.close()
    assert s.state.outcomes[-1].taker == YOU and s.phase == OVER


def test_the_session_and_the_engine_import_no_qt_no_numpy_and_of_audio_only_the_clock():
    import subprocess
    import sys
    code = ("import sys, trainer.games.kyogi_session, trainer.rules.kyogi; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'audio', 'numpy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['audio', 'audio.clock']"


# -- end-game practice and the review after the match -------------------------------------------

def test_cards_per_side_deals_the_first_n_of_the_same_seeded_deal():
    full = KyogiSession(21, seats=(CPU, CPU), clock=FakeClock())
    assert full.cards_per_side == 25
    assert sorted(full.state.side(YOU).cards()) == sorted(kyogi.deal(21)[YOU])   # as before
    for n in (1, 4, 24):
        s = KyogiSession(21, clock=FakeClock(), cards_per_side=n)
        hands = kyogi.deal(21)
        assert sorted(s.side(YOU).cards()) == sorted(hands[YOU][:n])
        assert sorted(s.side(THEM).cards()) == sorted(hands[THEM][:n])
        assert s.order == full.order                      # the reader's stack is the full one
    for bad in (0, 26):
        with pytest.raises(ValueError):
            KyogiSession(21, cards_per_side=bad)


def test_a_4_v_4_endgame_plays_to_the_end_and_reviews_every_read():
    for seed in range(30):
        clock = FakeClock(100.0)
        session = KyogiSession(seed, seats=(CPU, CPU), clock=clock, cpu_level=("club", "strong"),
                               cards_per_side=4)
        kyogi_sim.play_session(session, clock, kyogi_sim.NominalTiming(), check=True)
        _check_match(session)
        state = session.state
        assert len(session.review) == len(state.outcomes) == len(state.read)
        for k, (row, o) in enumerate(zip(session.review, state.outcomes), 1):
            assert row.number == k and row.poem == o.poem == state.read[k - 1]
            assert (row.owner, row.taker, row.giver, row.cards_owed) == (o.owner, o.taker, o.giver, o.cards_owed)
            assert row.karafuda == o.karafuda
            for seat in kyogi.SEATS:
                assert row.faults[seat] == tuple(f.kind.value for f in o.faults if f.seat == seat)
                if o.reaction_ms[seat] is not None:
                    assert row.reaction_ms[seat] == o.reaction_ms[seat]
                assert row.lost(seat) == (o.taker is not None and o.taker != seat)
            assert row.kimariji == poems.kimariji.current(row.poem, state.read[:k - 1]).kana
        took = [sum(1 for r in session.review if r.taker == s) for s in kyogi.SEATS]
        assert took == [len(state.taken(s)) for s in kyogi.SEATS]


def test_the_registry_passes_cards_per_side():
    from trainer.games.registry import GAMES
    variant = next(v for v in GAMES if v.game == "kyogi")
    s = KS.new_session(variant, 4, ("cpu", "cpu"), {"clock": FakeClock(), "cards_per_side": 3})
    assert [len(s.side(seat).cards()) for seat in kyogi.SEATS] == [3, 3]


def test_a_touch_after_the_cpu_took_the_card_is_in_the_log_and_the_review_as_late():
    """Statistics store it as "late"; the log line and the review row said nothing of it."""
    from trainer.text.kyogi import summary_line
    from trainer.text.messages import tr
    cpu = ScriptedCPU({5: ((5, 300),)}, sends=[10])
    s, r = setup([3, 5], [10, 12], [5], cpu)
    r.next_card()
    r.touch(5, 300 + kyogi.JUDGE_WINDOW_MS + 320)                # after the CPU's take, no fault
    events = r.close()
    assert s.state.outcomes[-1].taker == THEM
    recorded = of(events, KS.ReadRecorded)[0].record
    assert recorded.answer == "late"
    late = 300 + kyogi.JUDGE_WINDOW_MS + 320
    summary = of(events, KS.ReadSummary)[0]
    assert summary.late_ms == (late, None) and s.review[-1].late_ms == (late, None)
    assert tr("match.late", ms=f"+{late}") in summary_line(summary, YOU)
