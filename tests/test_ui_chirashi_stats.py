"""The floor races' statistics (issue 27): each read the person raced in is a trial of the
game's own kind with its card, time from the kimariji and outcome; a fault is stored as a
fault; a race in which the sound stuttered is kept with its reason, marked in the log and
left out of the mean, as in Match mode (`trainer.ui.race_checks`); the Statistics tab
lists the kinds in both languages. Offscreen, on the fake driver and a fake clock."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from audio.player import Stall  # noqa: E402
from tests.ui_fakes import FakeDriver  # noqa: E402
from trainer.stats import aggregates as A  # noqa: E402
from trainer.stats.store import RACE_KINDS, StatsStore  # noqa: E402
from trainer.ui.chirashi_panel import RACE_GAMES, RACE_TABLES, ChirashiPanel  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.race_checks import CHECK_AFTER_S  # noqa: E402

from test_ui_chirashi import click, sound_next_card, start  # noqa: E402

DISTURBED = "sound stuttered: not counted"


@pytest.fixture(autouse=True)
def english():
    before = LANG.code
    LANG.set("en")
    yield
    LANG.set(before)


@pytest.fixture
def store(tmp_path):
    s = StatsStore.open(tmp_path / "stats.sqlite3")
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, store):
    p = ChirashiPanel(None, None, driver=FakeDriver(), clock=FakeClock(100.0), store=store)
    qtbot.addWidget(p)
    p.resize(1024, 700)
    p.show()
    return p


def trials(store):
    return store.query("SELECT kind, card, correct, answer, reaction_ms, fault, disturbed "
                       "FROM trials ORDER BY id")


def settle(panel, seconds=0.3):
    """Let the race close and its sound check come due."""
    panel.clock.set(panel.clock.now() + seconds + CHECK_AFTER_S)
    panel.tick()


def finish_card(panel, reader, poem):
    """The card's reading ends; the reader moves to the next card, a pause after now."""
    from trainer.games.chirashi_session import MA_S
    _, end = reader.marks(poem)
    panel.driver.card_finished.emit(poem)
    reader.index += 1
    reader.t = max(end, panel.clock.now() - panel.session.epoch) + MA_S


def first_read_in_reach(panel, reader):
    """Sound cards (untouched, put aside at their end) until the person races for one: a
    shimonoku player may take only their own cards and the facing opponent's."""
    s = panel.session
    for _ in range(100):
        poem = sound_next_card(panel, reader)
        if s.race is not None and 0 in s.race.touches \
                and panel.session.why_illegal(0, _press(poem, s.race.kimariji)) is None:
            return poem
        finish_card(panel, reader, poem)
    raise AssertionError("no card in reach in 100 reads")


def _press(card, stamp):
    from trainer.games.chirashi_session import Press
    return Press(card, stamp)


def test_the_game_kinds_are_the_race_games():
    assert RACE_KINDS == RACE_GAMES
    assert all(A.family_of(k) == A.REACTION for k in RACE_KINDS)


@pytest.mark.parametrize("game, players", [("chirashi", 2), ("sakasama", 2), ("genpei", 2),
                                           ("relay", 4), ("shimonoku", 6)])
def test_a_take_is_stored_with_its_card_time_and_outcome(qtbot, panel, store, game, players):
    s, reader = start(panel, game, players)
    before = len(trials(store))
    poem = first_read_in_reach(panel, reader)
    panel.clock.set(s.race.kimariji + 0.05)          # before a beginner CPU's hand lands
    click(qtbot, panel, poem)
    settle(panel)
    assert poem in s.state.taken[0] or any(poem in t for t in s.state.taken)
    new = trials(store)[before:]
    assert new[-1] == (game, poem, 1, "take", 50.0, None, None)


def test_a_fault_is_stored_as_a_fault(qtbot, panel, store):
    s, reader = start(panel, "chirashi", 2)
    poem = sound_next_card(panel, reader)
    wrong = next(c for c, _ in s.view(0).floor if c != poem)
    panel.clock.set(s.race.kimariji + 0.12)
    click(qtbot, panel, wrong)
    panel.driver.card_finished.emit(poem)          # the race closes with the reading
    settle(panel)
    ((kind, card, correct, answer, ms, fault, disturbed),) = trials(store)
    assert (kind, card, correct, answer, fault, disturbed) == ("chirashi", poem, 0, "fault", "otetsuki", None)
    assert ms == pytest.approx(120.0)
    (day,) = A.trend_by_day(store, "chirashi")
    assert day.n == 1 and day.accuracy == 0


def test_a_race_the_person_did_not_touch_is_stored_missed(qtbot, panel, store):
    s, reader = start(panel, "chirashi", 2)
    poem = sound_next_card(panel, reader)
    panel.driver.card_finished.emit(poem)
    settle(panel)
    (row,) = trials(store)
    assert row[:4] == ("chirashi", poem, 0, "missed") and row[4] is None


def test_a_stuttered_race_is_kept_marked_and_left_out_of_the_mean(qtbot, panel, store):
    s, reader = start(panel, "chirashi", 2)
    takes = []
    for k in range(3):
        poem = sound_next_card(panel, reader)
        panel.clock.set(s.race.kimariji + 0.05 + 0.1 * k)
        if k == 1:                                   # an underrun not re-derived, before the touch
            panel.driver.stalls.append(Stall(panel.clock.now() - 0.02, None, 1234, "underflow", False))
        click(qtbot, panel, poem)
        settle(panel)
        finish_card(panel, reader, poem)
        takes.append(poem)
        reader.t += 2.0                              # past the doubt a stall leaves
    rows = trials(store)
    assert [r[1] for r in rows] == takes and [r[3] for r in rows] == ["take"] * 3
    assert [r[6] for r in rows] == [None, "underflow", None]
    assert list(panel.disturbed) == [2]
    marked = [line for line in panel.log.toPlainText().splitlines() if DISTURBED in line]
    assert len(marked) == 1 and f"No. {takes[1]}" in marked[0]
    assert panel.trusted_mean() == round((50 + 250) / 2)
    (day,) = A.trend_by_day(store, "chirashi")
    assert day.n == 2 and day.mean_reaction_ms == pytest.approx(150.0)
    panel.stop_game()
    LANG.set("ja")                                    # the mark follows the language
    assert sum("音声が途切れた" in line for line in panel.log.toPlainText().splitlines()) == 1


@pytest.mark.parametrize("then", ["stop", "new genpei game"])
def test_a_check_still_waiting_when_the_game_stops_is_recorded(qtbot, panel, store, then):
    s, reader = start(panel, "chirashi", 2)
    poem = sound_next_card(panel, reader)
    panel.clock.set(s.race.kimariji + 0.05)
    click(qtbot, panel, poem)
    panel.clock.set(panel.clock.now() + 0.01)
    panel.driver.card_finished.emit(poem)            # judged; its sound check not yet due
    assert panel.race_checks.pending == 1 and not trials(store)
    if then == "stop":
        panel.stop_game()
    else:
        start(panel, "genpei", 2)
    assert [r[:4] for r in trials(store)] == [("chirashi", poem, 1, "take")]   # the game it was in


@pytest.mark.parametrize("lang, label", [("en", "Genpei-gassen"), ("ja", "源平合戦")])
def test_the_statistics_tab_lists_a_race(qtbot, panel, store, lang, label):
    from trainer.ui.stats_panel import StatsPanel
    s, reader = start(panel, "genpei", 2)
    poem = first_read_in_reach(panel, reader)
    panel.clock.set(s.race.kimariji + 0.05)
    click(qtbot, panel, poem)
    settle(panel)
    LANG.set(lang)
    stats = StatsPanel(store=store)
    qtbot.addWidget(stats)
    stats.resize(1280, 800)
    stats.show()
    texts = {stats.kind_box.itemData(k): stats.kind_box.itemText(k) for k in range(stats.kind_box.count())}
    assert all(k in texts for k in RACE_KINDS) and texts["genpei"] == label
    stats.kind_box.setCurrentIndex(stats.kind_box.findData("genpei"))
    assert stats.data is not None and stats.data.total_trials == 1
    stats.open_card(poem)
    history = stats.card_page.table.model()
    assert history.rowCount() == 1
    assert history.data(history.index(0, 1)) == label
    assert history.data(history.index(0, 4)) == "50 ms"


@pytest.mark.parametrize("game, players", [("chirashi", 3), ("sakasama", 2), ("genpei", 2),
                                           ("relay", 4), ("shimonoku", 6)])
def test_switching_to_japanese_mid_game_leaves_no_english(qtbot, panel, store, game, players):
    """Mid-game (takes, faults, a stutter-marked race in the log), then 日本語: the table, the
    log, the status and every choice of the setup row, CPU levels included, follow."""
    from legibility import LATIN_WORD, english_left
    s, reader = start(panel, game, players)
    for k in range(8):
        poem = sound_next_card(panel, reader)
        if s.race is not None and 0 in s.race.touches:
            panel.clock.set(s.race.kimariji + 0.04)
            if k == 2:
                panel.driver.stalls.append(Stall(panel.clock.now() - 0.01, None, 1, "underflow", False))
            wrong = next((c for c, _ in s.view(0).floor if c != poem), poem)
            panel.press(wrong if k % 3 == 0 else poem, panel.clock.now())
        settle(panel)
        while s.state.phase == "send":
            panel.press(next(c for c, sp in s.view(0).floor if sp.side == 0), panel.clock.now())
        finish_card(panel, reader, poem)
        reader.t += 2.0
    assert trials(store) and panel.disturbed
    LANG.set("ja")
    assert not english_left(panel)
    boxes = (panel.game, panel.level)
    items = [box.itemText(k) for box in boxes for k in range(box.count())]
    assert len(items) == len(RACE_TABLES) + panel.level.count()
    assert not [t for t in items if LATIN_WORD.search(t)], items
    log = panel.log.toPlainText()
    assert log and not LATIN_WORD.search(log.replace("ms", "")) and "音声が途切れた" in log
    panel.stop_game()
    assert not LATIN_WORD.search(panel.status.text())


def test_a_kind_this_version_does_not_know_does_not_stop_the_statistics_tab(qtbot, store):
    """A newer version may write kinds this one has no name for: the tab draws them as
    reactions under their raw name instead of failing ("online", issue 22's, now has a name)."""
    from trainer.stats.store import Trial
    from trainer.ui.stats_panel import StatsPanel
    store.record_many([Trial("hologram", 7, True, reaction_ms=310.0), Trial("online", 7, True, reaction_ms=300.0),
                       Trial("chirashi", 7, True, reaction_ms=290.0)])
    assert A.family_of("hologram") == A.REACTION == A.family_of("online")
    stats = StatsPanel(store=store)
    qtbot.addWidget(stats)
    stats.resize(1280, 800)
    stats.show()
    stats.refresh()
    assert stats.data is not None and stats.data.total_trials == 3
    stats.open_card(7)
    history = stats.card_page.table.model()
    assert sorted(history.data(history.index(r, 1)) for r in range(3)) == ["Chirashi-dori", "Online match", "hologram"]


def test_the_command_line_summary_takes_a_race_kind(tmp_path, capsys):
    from trainer.cli import main
    from trainer.stats.store import Trial
    db = tmp_path / "cli.sqlite3"
    with StatsStore.open(db) as s:
        s.record_many([Trial("shimonoku", 12, True, reaction_ms=400.0),
                       Trial("shimonoku", 13, False, answer="fault", reaction_ms=90.0, fault="otetsuki")])
    assert main(["stats", "summary", "--kind", "shimonoku", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "2 trials (shimonoku), 50.0% right." in out and "shimonoku" in out.split("day")[1]
