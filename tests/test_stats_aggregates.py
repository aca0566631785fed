"""Dashboard aggregates on a small store whose answers are known."""
from __future__ import annotations

from datetime import date, datetime

import pytest

from trainer.stats.aggregates import (card_history, dashboard_data, faults_by_kind,
                                      recent_runs, trend_by_day, weakest_cards)
from trainer.stats.srs import Memorisation
from trainer.stats.store import StatsStore, Trial


def _at(y, m, d, hour=20):
    return datetime(y, m, d, hour).timestamp()


@pytest.fixture
def store(tmp_path):
    s = StatsStore.open(tmp_path / "stats.sqlite3")
    yield s
    s.close()


def _fill(store):
    """Cards 1..10 in listening_reflex over two days; card 3 is missed, card 4 is slow."""
    session = store.begin_session("listening_reflex")
    trials = []
    for day in (1, 2):
        for rep in range(5):
            for card in range(1, 11):
                at = _at(2026, 3, day) + rep * 60 + card
                if card == 3:
                    trials.append(Trial("listening_reflex", card, rep % 2 == 0, fault=None
                                       if rep % 2 == 0 else "otetsuki",
                                       reaction_ms=500.0 if rep % 2 == 0 else None,
                                       session=session, at=at))
                else:
                    rt = 1500.0 if card == 4 else 400.0 + 10 * card + day
                    trials.append(Trial("listening_reflex", card, True, reaction_ms=rt,
                                       session=session, at=at))
    trials.append(Trial("fuda_nagashi", 3, True, reaction_ms=2000.0, at=_at(2026, 3, 2)))
    trials.append(Trial("fuda_nagashi", 9, False, answer="あ", fault="karafuda",
                       at=_at(2026, 3, 2)))
    store.record_many(trials)


def test_trend_by_day(store):
    _fill(store)
    trend = trend_by_day(store, "listening_reflex")
    assert [p.day for p in trend] == [date(2026, 3, 1), date(2026, 3, 2)]
    first = trend[0]
    assert first.n == 50 and first.faults == 2
    assert first.accuracy == pytest.approx(48 / 50)
    rts = [410 + 1, 420 + 1] + [1500.0] + [400 + 10 * c + 1 for c in range(5, 11)]
    expected = (sum(rts) * 5 + 500.0 * 3) / (9 * 5 + 3)
    assert first.mean_reaction_ms == pytest.approx(expected)
    assert {p.kind for p in trend_by_day(store)} == {"listening_reflex", "fuda_nagashi"}


def test_weakest_cards_missed_then_slow(store):
    _fill(store)
    weakest = weakest_cards(store, 3, "listening_reflex")
    # card 4: never missed but ~3x the usual reaction -> 0.5 (slowness capped at 1);
    # card 3: missed 4 of its last 10 -> 0.4
    assert weakest[:2] == [4, 3]
    assert 11 not in weakest_cards(store, 100)  # never tried: not rated


def test_faults_and_history(store):
    _fill(store)
    assert faults_by_kind(store) == {"otetsuki": 4, "karafuda": 1}
    assert faults_by_kind(store, "fuda_nagashi") == {"karafuda": 1}
    hist = card_history(store, 3)
    assert len(hist) == 11 and hist[-1].kind == "fuda_nagashi"
    assert [h.correct for h in hist[:5]] == [True, False, True, False, True]
    assert [h.id for h in hist] == sorted(h.id for h in hist)


def test_recent_runs(store):
    _fill(store)
    for n in range(3):
        s = store.begin_session("fuda_nagashi")
        for card in (1, 2):
            store.record(Trial("fuda_nagashi", card, True, reaction_ms=1000.0 * (n + card),
                               session=s))
    runs = recent_runs(store, "fuda_nagashi", 2)
    assert [r.mean_ms for r in runs] == [3500.0, 2500.0]  # newest first
    assert runs[0].n == 2 and runs[0].n_correct == 2


def test_dashboard_data_has_everything(store):
    _fill(store)
    now = _at(2026, 3, 3)
    mem = Memorisation(store, now=lambda: now - 86400 * 5, fuzz=False)
    mem.review(5, "listening_reflex", False, None)  # due again soon -> due now
    d = dashboard_data(store, now=now)
    assert d.total_trials == 102 and d.accuracy == pytest.approx(97 / 102)
    assert len(d.cards) == 100 and d.cards[0].card == 1
    c3 = d.cards[2]
    assert c3.n == 11 and c3.n_correct == 7
    assert c3.recent_reactions_ms[0] == 2000.0  # newest first
    c1 = d.cards[0]
    assert c1.quartiles_ms[1] == pytest.approx(411.5)  # median of days 1 and 2
    assert d.cards[50].n == 0 and d.cards[50].quartiles_ms is None
    assert d.weakest[:2] == (4, 3)
    assert d.faults == {"otetsuki": 4, "karafuda": 1}
    assert (d.srs_due, d.srs_new) == (1, 99)
    assert len(d.trend) == 3


def test_empty_store_dashboard(store):
    d = dashboard_data(store)
    assert d.total_trials == 0 and d.accuracy is None and d.weakest == ()
    assert d.trend == () and d.faults == {} and d.srs_new == 100


def test_weakness_formula():
    from trainer.stats.aggregates import weakness
    means = {"match": 500.0}
    assert weakness([("match", True, 500.0)] * 2, means) is None      # too few trials
    assert weakness([("match", True, 500.0)] * 10, means) == 0.0
    assert weakness([("match", False, None)] * 5 + [("match", True, 500.0)] * 5,
                    means) == pytest.approx(0.5)
    assert weakness([("match", True, 750.0)] * 10, means) == pytest.approx(0.25)
    assert weakness([("match", True, 5000.0)] * 10, means) == pytest.approx(0.5)  # capped


# -- timing families (issue 10, point 14) ------------------------------------------------------

def test_every_kind_the_store_takes_has_a_timing_family():
    from trainer.stats.aggregates import FAMILIES, FAMILY_OF, UNIT, family_of
    from trainer.stats.store import KINDS
    assert set(KINDS) <= set(FAMILY_OF)          # named, not left to the fallback
    assert {family_of(k) for k in KINDS} == set(FAMILIES)
    assert family_of("match") == family_of("listening_reflex") == "reaction"
    assert family_of("fuda_nagashi") == "answer" and family_of("mubeyama") == "flip"
    assert UNIT == {"reaction": "ms", "answer": "s", "flip": "s"}


def _mixed(store):
    """Match cards 1-4 (card 2 missed once in four); Mubeyama cards 1-3 always right, card 3
    once flipped after 70 s."""
    trials = []
    for rep in range(4):
        for card in range(1, 5):
            ok = not (card == 2 and rep == 0)
            trials.append(Trial("match", card, ok, reaction_ms=300.0 + card if ok else None,
                                at=_at(2026, 3, 1) + rep * 10 + card))
        for card in (1, 2, 3):
            rt = 70_000.0 if (card, rep) == (3, 0) else 9_000.0 + 100 * card
            trials.append(Trial("mubeyama", card, True, reaction_ms=rt,
                                at=_at(2026, 3, 1) + 100 + rep * 10 + card))
    store.record_many(trials)


def test_weakest_table_is_per_family_fewest_right_first(store):
    _mixed(store)
    d = dashboard_data(store)
    assert list(d.weakest_by_family) == ["reaction", "flip"]
    reaction = d.weakest_by_family["reaction"]
    assert [c.card for c in reaction][:1] == [2]              # the only card ever missed
    assert reaction[0].accuracy == pytest.approx(0.75)
    assert {c.family for c in reaction} == {"reaction"}
    assert all(c.median_ms < 1000 for c in reaction)          # no 70 s flip in a ms table
    flip = d.weakest_by_family["flip"]
    # all right: slowest by median first; card 3's one 70 s flip does not make its median
    assert [c.card for c in flip] == [3, 2, 1]
    assert flip[0].median_ms == pytest.approx(9_300.0)
    assert all(c.accuracy == 1.0 for c in flip)


def test_a_card_never_missed_ranks_below_a_missed_one_however_slow(store):
    from trainer.stats.aggregates import family_windows, weakest_in_family
    trials = [Trial("listening_reflex", 1, True, reaction_ms=5_000.0, at=_at(2026, 3, 1) + k)
              for k in range(5)]
    trials += [Trial("listening_reflex", 2, k != 0, reaction_ms=None if k == 0 else 300.0,
                     at=_at(2026, 3, 1) + 10 + k) for k in range(5)]
    trials += [Trial("listening_reflex", 3, True, reaction_ms=300.0, at=_at(2026, 3, 1) + 20 + k)
               for k in range(5)]
    store.record_many(trials)
    table = weakest_in_family(family_windows(store)["reaction"], "reaction")
    assert [c.card for c in table] == [2, 1, 3]


def test_weakness_compares_with_the_kinds_median_not_a_mean(store):
    """One 70 s flip used to raise the kind's mean and hide every other card's slowness."""
    _mixed(store)
    d = dashboard_data(store, "mubeyama")
    c1, c3 = d.cards[0], d.cards[2]
    assert c1.weakness == pytest.approx(0.0)                  # at the kind's median or faster
    assert c3.weakness == pytest.approx(0.0, abs=0.02)       # median 9.3 s: usual
    assert d.weakest_by_family.keys() == {"flip"}            # one kind: one family


def test_trend_points_know_their_family(store):
    _mixed(store)
    assert {p.kind: p.family for p in trend_by_day(store)} == {"match": "reaction",
                                                               "mubeyama": "flip"}
