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
