"""Spaced repetition: the rating mapping and a simulated month of daily study."""
from __future__ import annotations

import pytest
from fsrs import Rating, State

from trainer.stats.srs import RATING_THRESHOLDS_MS, Memorisation, rating_for
from trainer.stats.store import StatsStore

DAY = 86400.0


class FakeWallClock:
    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize("kind", sorted(RATING_THRESHOLDS_MS))
def test_rating_from_correctness_and_speed(kind):
    fast, slow = RATING_THRESHOLDS_MS[kind]
    assert fast < slow
    assert rating_for(kind, False, fast / 2) == Rating.Again
    assert rating_for(kind, False, None) == Rating.Again
    assert rating_for(kind, True, fast) == Rating.Easy
    assert rating_for(kind, True, (fast + slow) / 2) == Rating.Good
    assert rating_for(kind, True, slow) == Rating.Good
    assert rating_for(kind, True, slow + 1) == Rating.Hard
    assert rating_for(kind, True, None) == Rating.Good
    assert rating_for(kind, True, -80.0) == Rating.Good  # anticipated: maybe a guess


def test_unknown_drill_has_no_thresholds():
    with pytest.raises(ValueError, match="no rating thresholds"):
        rating_for("bingo", True, 100.0)


def test_states_persist_in_the_store(tmp_path):
    clock = FakeWallClock(1_750_000_000.0)
    path = tmp_path / "stats.sqlite3"
    with StatsStore.open(path) as store:
        mem = Memorisation(store, now=clock, fuzz=False)
        review = mem.review(17, "fuda_nagashi", True, 900.0)
        assert review.rating == Rating.Easy
    with StatsStore.open(path) as store:
        card = Memorisation(store, now=clock, fuzz=False).card(17)
        assert card is not None and card.due.timestamp() == pytest.approx(review.due)
        assert card.last_review.timestamp() == pytest.approx(clock.t)


def test_bad_card_numbers_are_refused(tmp_path):
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        mem = Memorisation(store, fuzz=False)
        with pytest.raises(ValueError, match="1..100"):
            mem.review(0, "match", True, 300.0)
        with pytest.raises(ValueError, match="1..100"):
            mem.queue([5, 101])


def test_simulated_month_of_daily_study(tmp_path):
    """A learner studies every evening for 30 days, 15 new cards a day.

    Cards 1..60 it knows well (correct and fast), 61..80 it answers right but
    slowly, 81..100 it gets wrong for its first two weeks, then right.
    """
    clock = FakeWallClock(1_750_000_000.0)  # an evening
    store = StatsStore.open(tmp_path / "stats.sqlite3")
    mem = Memorisation(store, now=clock, fuzz=False)

    def answer(card, day):
        if card <= 60:
            return True, 1000.0
        if card <= 80:
            return True, 5000.0
        return day >= 14, 2500.0

    intervals: dict[int, list[float]] = {c: [] for c in range(1, 101)}
    reviewed_days: dict[int, list[int]] = {c: [] for c in range(1, 101)}
    failures = []
    for day in range(30):
        start = clock.t
        for _round in range(4):              # four passes, ten minutes apart
            due_before = set(mem.due())
            queue = mem.queue(new_limit=15 if _round == 0 else 0, include_not_due=False)
            # due cards come first, most overdue first
            assert set(queue[:len(due_before)]) == due_before
            times = [mem.card(c).due.timestamp() for c in queue[:len(due_before)]]
            assert times == sorted(times)
            assert all(mem.card(c) is None for c in queue[len(due_before):])
            for card in queue:
                correct, ms = answer(card, day)
                review = mem.review(card, "fuda_nagashi", correct, ms)
                reviewed_days[card].append(day)
                if not correct:
                    failures.append((card, clock.t, review.due))
                elif mem.card(card).state == State.Review:
                    intervals[card].append(mem.interval_days(card))
                clock.t += 5
            clock.t += 600
        clock.t = start + DAY

    # every card was introduced: 15 new a day covers the 100 in 7 days
    assert all(reviewed_days[c] for c in range(1, 101))
    # failed cards come back soon: within the same evening's passes
    assert failures and all(due - at <= 15 * 60 for _c, at, due in failures)
    # intervals grow for known cards, and beat the slow-but-right ones
    for card in range(1, 61):
        ivs = intervals[card]
        assert ivs == sorted(ivs) and ivs[-1] > ivs[0], (card, ivs)
        assert ivs[-1] >= 14
    # slow-but-right cards (Hard) stay in learning or get short intervals: seen more often
    known_last = min(intervals[c][-1] for c in range(1, 61))
    assert all(not intervals[c] or intervals[c][-1] < known_last for c in range(61, 81))
    assert min(len(reviewed_days[c]) for c in range(61, 81)) > \
        max(len(reviewed_days[c]) for c in range(1, 61))
    # known cards are not reviewed every day; the failed ones were, while failing
    assert max(len(reviewed_days[c]) for c in range(1, 61)) < 12
    assert all(len(set(reviewed_days[c])) >= 10 for c in range(81, 101))
    # after they are learnt at last, their intervals start growing too
    assert all(len(intervals[c]) >= 2 and intervals[c][-1] > intervals[c][0]
               for c in range(81, 101))
    store.close()
