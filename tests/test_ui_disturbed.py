"""Disturbed races in the match panel (issue 23): a race in which the sound stuttered (a
stall the stream's time did not show) is recorded with its reason, marked in the reaction,
the log and the review, and left out of the statistics' means; a race with no stall is not
marked. The player's stalls are given to the fake driver on the match's fake clock."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from audio.player import Stall  # noqa: E402
from trainer.rules.kyogi import Phase  # noqa: E402
from trainer.stats import aggregates as A  # noqa: E402
from trainer.stats.store import StatsStore  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.match_panel import HUMAN, MatchPanel  # noqa: E402
from trainer.ui.race_checks import CHECK_AFTER_S, RaceChecks, reason_of  # noqa: E402

from test_ui_app import FakeDriver, FakeVoices  # noqa: E402

DISTURBED = "sound stuttered: not counted"


@pytest.fixture
def panel(qtbot, tmp_path):
    LANG.set("en")
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    store = StatsStore.open(tmp_path / "stats.sqlite3")
    p = MatchPanel(settings, FakeVoices(), driver=FakeDriver(), clock=FakeClock(1000.0), store=store)
    qtbot.addWidget(p)
    settings.set(S.CARDS_PER_SIDE, 6)
    p.new_match(8)
    yield p
    store.close()


def _play_own_cards(panel, stall_on: int) -> list[int]:
    """Play the match taking each of our own cards 0.3 s after it is read, a flagged underrun
    (not re-derived) 0.1 s before the touch of the `stall_on`-th card we take; 3 s between
    reads (past the doubt a stall leaves). Returns the poems we took."""
    taken = []
    for poem in panel.order:
        if panel.phase == "over":
            break
        panel.driver.card_started.emit(poem)
        panel.clock.advance(0.3)
        if panel.state.side_of(poem) == HUMAN:
            if len(taken) == stall_on:
                now = panel.clock.now()
                panel.driver.stalls.append(Stall(now - 0.1, None, 1234, "underflow", False))
            panel.route_touch(poem, panel.clock.now())
            taken.append(poem)
        panel.judge()
        while panel.state.phase is Phase.OKURI:
            panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
        panel.clock.advance(3.0)
        panel.tick()                                   # the CPU's takes; the race checks due
        panel.driver.card_finished.emit(poem)
    return taken


def test_a_race_with_a_stall_is_kept_marked_and_left_out_of_the_means(panel):
    panel.begin_match()
    taken = _play_own_cards(panel, stall_on=1)
    assert panel.phase == "over" and len(taken) >= 3
    store = panel.store
    rows = store.query("SELECT card, answer, reaction_ms, disturbed FROM trials "
                       "WHERE answer = 'take' ORDER BY id")
    assert [r[0] for r in rows] == taken
    assert [r[3] for r in rows] == [None, "underflow"] + [None] * (len(taken) - 2)   # only that race
    # kept, but not in the day's mean nor the card's figures
    (point,) = A.trend_by_day(store, "match")
    clean = [r[2] for r in rows if r[3] is None]
    assert point.mean_reaction_ms == pytest.approx(sum(clean) / len(clean))
    assert A.card_stats(store, "match")[taken[1] - 1].n == 0
    assert [h.disturbed for h in A.card_history(store, taken[1])] == ["underflow"]
    # marked where it is shown: the log line and the review's time, not the others
    number = next(n for n, _ in panel.disturbed.items())
    assert list(panel.disturbed) == [number]
    log = [panel.result.log.item(k).text() for k in range(panel.result.log.count())]
    assert [DISTURBED in line for line in log] == [k + 1 == number for k in range(len(log))]
    table = panel.result.review
    marked = [table.item(r, 4).text().startswith("⚠") for r in range(table.rowCount())]
    assert marked == [r + 1 == number for r in range(table.rowCount())]
    assert table.item(number - 1, 4).toolTip() == DISTURBED


def test_the_match_mean_leaves_out_the_disturbed_race(panel):
    panel.begin_match()
    _play_own_cards(panel, stall_on=0)
    r = panel.dealt.result(HUMAN)
    clean = [row.reaction_ms[HUMAN] for row in panel.dealt.review
             if row.taker == HUMAN and row.number not in panel.disturbed]
    assert r.mean_reaction_ms is not None and len(panel.disturbed) == 1
    assert f"{round(sum(clean) / len(clean))} ms" in panel.result.details.text()


def test_the_race_is_asked_only_after_the_touch_has_settled(panel):
    """A late callback is recorded when it runs: the trial waits CHECK_AFTER_S for it, and
    the reaction shown gets the mark once it is known."""
    panel.begin_match()
    poem = next(p for p in panel.order if panel.state.side_of(p) == HUMAN)
    for p in panel.order[:panel.order.index(poem)]:
        panel.driver.card_started.emit(p)
        panel.judge()
        while panel.state.phase is Phase.OKURI:
            panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
        panel.driver.card_finished.emit(p)
        panel.clock.advance(3.0)
        panel.tick()
    before = panel.store.count()
    panel.driver.card_started.emit(poem)
    panel.clock.advance(0.3)
    touch = panel.clock.now()
    panel.route_touch(poem, touch)
    panel.judge()
    assert panel.store.count() == before and DISTURBED not in panel.reaction.text()
    # the late callback shows up now, 50 ms late, at the touch
    panel.driver.stalls.append(Stall(touch, 0.05, 99, "late", False))
    panel.clock.advance(CHECK_AFTER_S)
    panel.tick()
    assert panel.store.count() == before + 1
    assert panel.store.query("SELECT disturbed FROM trials ORDER BY id DESC LIMIT 1") == [("late:50",)]
    assert panel.reaction.text().endswith(DISTURBED)


def test_a_rederived_gap_or_an_old_stall_does_not_disturb_a_race():
    driver, clock = FakeDriver(), FakeClock(10.0)
    checks = RaceChecks(driver, clock)
    answers = []
    driver.stalls = [Stall(9.6, 0.4, 5, "gap", True),          # the stream's time showed it
                     Stall(6.0, None, 5, "underflow", False)]   # over SETTLE_S before
    checks.add(10.0, 10.3, answers.append)
    assert answers == [] and checks.pending == 1
    clock.advance(0.3 + CHECK_AFTER_S + 0.001)
    checks.poll()
    assert answers == [None]
    checks.add(None, None, answers.append)       # nothing heard to race against
    assert answers == [None, None]
    assert reason_of([Stall(1.0, -0.03, 0, "gap", False)]) == "gap:-30"
    assert reason_of([]) is None
