"""The kyōgi session as a `Session` (trainer.games.protocol): two people at one table, what a
seat's view may show and when, refusals as reason ids worded in either language."""
from __future__ import annotations

import random

import pytest

from audio.clock import FakeClock
from trainer.games import kyogi_session as KS
from trainer.games.kyogi_session import HUMAN, KyogiSession, mark_names
from trainer.rules import kyogi
from trainer.rules.kyogi import FaultKind
from trainer.rules.territory import Territory

A, B = 0, 1
MORA_S = 0.2


def marks_at(t: float, poem: int) -> dict[str, float]:
    n = len(mark_names(poem)) - 2
    marks = {"kami_start": t, "kami_end": t + n * MORA_S}
    marks.update({f"kami:mora:{k}": t + k * MORA_S for k in range(n)})
    return marks


def two_people(you, them, first_reads, clock=None):
    rest = [n for n in range(1, 101) if n not in first_reads]
    random.Random(7).shuffle(rest)
    clock = clock or FakeClock(1000.0)
    session = KyogiSession(3, seats=(HUMAN, HUMAN), clock=clock,
                           sides=[Territory.arranged(you), Territory.arranged(them)],
                           yomifuda=list(first_reads) + rest)
    session.begin()
    return session, clock


def test_an_early_touch_in_the_ma_by_one_person_is_charged_to_that_person_only():
    """Defect (a) of issue 20: the touch was stored without its seat and added to both races,
    so both seats faulted and the penalties cancelled."""
    s, clock = two_people([3, 5, 7], [10, 12, 14], [3, 5, 80])
    s.kami_started(3, marks_at(clock.now(), 3))
    kima = s.race.kimariji
    clock.set(kima + 0.3)
    s.touch(3, clock.now(), seat=A)                     # A takes their own card
    clock.advance(1.0)
    s.tick()
    assert s.race is None
    s.card_finished(3)                                  # the ma begins
    clock.advance(0.2)
    s.touch(10, clock.now(), seat=B)                    # B touches in the ma: B's early fault
    clock.advance(1.0)
    s.kami_started(5, marks_at(clock.now(), 5))
    clock.set(s.race.kimariji + 0.3)
    s.touch(5, clock.now(), seat=A)
    clock.advance(1.0)
    s.tick()
    outcome = s.state.outcomes[-1]
    assert [(f.seat, f.kind) for f in outcome.faults] == [(B, FaultKind.EARLY)]
    assert not outcome.cancelled
    assert outcome.taker == A


def test_a_seats_view_shows_the_kimariji_mark_only_once_it_has_sounded():
    """Defect (b) of issue 20: every seat's view carried `current.kimariji_ms` from the
    start of the read, before the sound reached it."""
    clock = FakeClock(1000.0)
    s = KyogiSession(5, seats=(HUMAN, "cpu"), clock=clock)
    s.begin()
    poem = s.order[0]
    marks = marks_at(clock.now() + 1.0, poem)
    clock.set(marks["kami_start"])
    s.kami_started(poem, marks)
    kima = s.race.kimariji
    assert kima > clock.now()                            # the kimariji is still to come
    for seat in kyogi.SEATS:
        current = s.view(seat).current
        assert current is not None and current.kimariji_ms is None
        assert current.start_ms == s.ms(marks["kami_start"])
    clock.set(kima)
    for seat in kyogi.SEATS:
        assert s.view(seat).current.kimariji_ms == s.ms(kima)


# -- the Session protocol ---------------------------------------------------------------------------

def test_the_session_follows_the_session_protocol():
    from trainer.games.protocol import Session
    s = KyogiSession(2, clock=FakeClock(10.0))
    assert isinstance(s, Session)
    assert s.seats == (HUMAN, "cpu") and not s.is_over() and s.outcome() is None


def test_a_press_goes_to_the_session_which_decides_touch_or_okurifuda():
    s, clock = two_people([3, 5], [10, 12], [10])
    s.kami_started(10, marks_at(clock.now(), 10))
    clock.set(s.race.kimariji + 0.25)
    events = s.act(A, KS.Press(10, clock.now()))                   # a touch: A takes B's card
    assert [type(e) for e in events] == [KS.TouchLanded]
    clock.advance(1.0)
    s.tick()
    assert s.state.owing == (A, B, 1)
    refusal = s.why_illegal(A, KS.Press(12, clock.now()))         # not A's card to send
    assert refusal is not None and refusal.reason == "kyogi.not_on_side" and refusal.fields["card"] == 12
    with pytest.raises(kyogi.IllegalAction):
        s.act(A, KS.Press(12, clock.now()))
    assert s.state.owing == (A, B, 1)                              # nothing changed
    events = s.act(A, KS.Press(5, clock.now()))                   # the okurifuda, chosen
    assert kyogi.CardSent(A, 5, B) in events and s.state.owing is None


def test_the_session_reports_every_refusal_reason_it_raises_and_words_each_in_both_languages():
    import pathlib
    import re

    from trainer.text import kyogi as _texts  # noqa: F401  (registers the texts)
    from trainer.text.refusals import has_text
    from trainer.text.messages import tr_in
    raised = set()
    for module in (kyogi, KS):
        source = pathlib.Path(module.__file__).read_text(encoding="utf-8")
        raised |= set(re.findall(r'IllegalAction\(\s*"([a-z_.]+)"', source))
    assert raised == set(KS.REFUSALS)                   # every reason raised, and only those
    from trainer.games.registry import GAMES
    variant = next(v for v in GAMES if v.game == "kyogi")
    module, _, attr = variant.refusals.partition(":")
    assert getattr(__import__(module, fromlist=[attr]), attr) == KS.REFUSALS
    assert set(kyogi.REFUSALS) <= set(KS.REFUSALS)
    for reason in KS.REFUSALS:
        assert has_text(reason), reason
        ja = tr_in("ja", f"refusal.{reason}", card=12, seat=1, detail="x")
        en = tr_in("en", f"refusal.{reason}", card=12, seat=1, detail="x")
        assert ja and en and ja != en and "{" not in ja + en, reason


def test_the_engine_refuses_with_reason_ids_and_fields():
    state = kyogi.KyogiState.new(4)
    with pytest.raises(kyogi.IllegalAction) as info:
        state.apply(kyogi.Touches(0, (kyogi.Touch(state.side(0).cards()[0], 10),)))
    assert info.value.reason == "kyogi.not_reading"
    from trainer.games.protocol import IllegalAction
    assert kyogi.IllegalAction is IllegalAction


def test_a_seats_log_keeps_the_open_reads_poem_and_mark_until_the_kimariji_sounds():
    clock = FakeClock(1000.0)
    s = KyogiSession(5, seats=(HUMAN, "cpu"), clock=clock)
    s.begin()
    poem = s.order[0]
    marks = marks_at(clock.now() + 1.0, poem)
    clock.set(marks["kami_start"])
    s.kami_started(poem, marks)
    opened = [e for e in s.log_for(A) if isinstance(e, KS.RaceOpened)]
    started = [e for e in s.log_for(A) if isinstance(e, kyogi.ReadStarted)]
    assert opened[0].poem == 0 and opened[0].kimariji_ms is None and started[0].kimariji_ms is None
    clock.set(s.race.kimariji)
    opened = [e for e in s.log_for(A) if isinstance(e, KS.RaceOpened)]
    assert opened[0].poem == poem and opened[0].kimariji_ms == s.ms(s.race.kimariji)


def test_a_kyogi_refusal_is_shown_in_japanese_when_the_interface_is_japanese():
    from trainer.text import kyogi as _texts  # noqa: F401  (registers the texts)
    from trainer.text.messages import current, set_language
    from trainer.text.refusals import describe_refusal
    s, clock = two_people([3, 5], [10, 12], [10])
    was = current()
    try:
        set_language("ja")
        s.kami_started(10, marks_at(clock.now(), 10))
        with pytest.raises(kyogi.IllegalAction) as info:
            s.act(A, KS.LayOut(s.state.side(A)))      # cards are moved between reads only
        shown = describe_refusal(info.value)
        assert shown == "札を並べ替えられるのは読みと読みの間だけです"
        assert all(ord(ch) > 0x3000 for ch in shown)
        assert describe_refusal(info.value, lang="en") == "Cards are rearranged between reads only"
    finally:
        set_language(was)


# -- the simulator through the protocol's play_out ---------------------------------------------------

def _hand_driven(seed, levels, timing):
    """The simulator's loop before it went through `play_out` (kept as the reference): the
    clock set to each kami-no-ku's start, then to the race's close and the card's end."""
    import math

    import poems
    from trainer.sim import kyogi_sim
    clock = FakeClock(0.0)
    session = kyogi_sim.new_game(seed, levels, clock)
    timing.start(session.order)
    session.begin()
    order = session.order
    for index, poem_no in enumerate(order):
        marks = timing.marks(index, poems.get(poem_no))
        clock.set(max(clock.now(), marks["kami_start"]))
        session.kami_started(poem_no, marks)
        if session.phase == KS.OVER:
            break
        race = session.race
        nxt = timing.marks(index + 1, poems.get(order[index + 1]))["kami_start"] if index + 1 < len(order) else math.inf
        for t, what in sorted([(race.close, "tick"), (marks["card_end"], "finish")]):
            if t >= nxt or (what == "tick" and session.race is not race):
                continue
            clock.set(max(clock.now(), t))
            session.tick() if what == "tick" else session.card_finished(poem_no)
    session.reading_finished()
    return session


@pytest.mark.parametrize("seed,levels", [(0, ("club", "club")), (1, ("beginner", "meijin")),
                                         (2, ("strong", "novice")), (3, ("a-class", "club"))])
def test_play_out_with_the_programme_reader_plays_the_same_match_as_the_hand_driven_loop(seed, levels):
    from trainer.sim import kyogi_sim
    timing = kyogi_sim.NominalTiming()
    played = kyogi_sim.play_game(seed, levels, timing).session
    reference = _hand_driven(seed, levels, timing)
    assert played.order == reference.order
    assert played.state.log == reference.state.log and played.state.outcomes == reference.state.outcomes
    assert played.review == reference.review and played.is_over()
    again = kyogi_sim.play_game(seed, levels, timing).session
    assert again.log == played.log                       # the session's own events, too


def test_the_result_is_the_sessions_with_the_mean_reaction_over_the_persons_takes():
    s, clock = two_people([3, 5], [10, 12], [3, 10])
    for poem, ms in ((3, 300), (10, 251)):
        s.kami_started(poem, marks_at(clock.now(), poem))
        clock.set(s.race.kimariji + ms / 1000)
        s.act(A, KS.Press(poem, clock.now()))
        clock.advance(1.0)
        s.tick()
        s.card_finished(poem)
        clock.advance(1.0)
        if s.state.owing is not None:
            s.act(A, KS.Press(s.state.side(A).cards()[0], clock.now()))    # the okurifuda: 5
    assert s.is_over() and s.outcome().winners == (A,)
    assert s.reactions == [300, 251] and s.mean_reaction() == 276
    mine = s.result(A)
    assert mine.mean_reaction_ms == 276 and mine.taken == (2, 0) and mine.faults == 0
    assert mine.finished and mine.won and mine.left == (0, 2) and mine.margin == 2    # 12 and the 5 sent
    theirs = s.result(B)
    assert theirs.taken == (0, 2) and theirs.mean_reaction_ms is None and not theirs.won


def test_the_registrys_session_plays_out_with_the_programme_reader_after_its_memorisation():
    from trainer.games.protocol import play_out
    from trainer.games.registry import GAMES
    from trainer.sim import kyogi_sim
    variant = next(v for v in GAMES if v.game == "kyogi")
    clock = FakeClock(50.0)
    s = KS.new_session(variant, 9, ("cpu", "cpu"), {"clock": clock, "cards_per_side": 5})
    s.start_memorisation(300.0)
    play_out(s, clock, kyogi_sim.ProgrammeReader(kyogi_sim.NominalTiming(), s.order))
    assert s.is_over() and s.epoch == 350.0                    # began when the memorisation ended
    kinds = [e.kind for e in s.log_for(0)]
    assert kinds.index("kyogi.swings") < kinds.index("kyogi.memorised") < kinds.index("kyogi.read")
    assert kinds.count("kyogi.summary") == len(s.state.read)
