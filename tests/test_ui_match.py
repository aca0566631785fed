"""Match mode: memorisation on a fake clock, the race wired to the engine, okurifuda, result."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from audio.clock import FakeClock  # noqa: E402

from trainer.rules.kyogi import Phase  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.match_panel import HUMAN, MatchPanel, reaction_text  # noqa: E402

from test_ui_app import FakeDriver, FakeVoices  # noqa: E402


@pytest.fixture
def panel(qtbot, tmp_path):
    LANG.set("en")
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    p = MatchPanel(settings, FakeVoices(), driver=FakeDriver(), clock=FakeClock(1000.0))
    qtbot.addWidget(p)
    p.new_match(11)
    return p


def test_memorisation_gives_the_swing_notice_then_ends_on_the_sessions_clock(qtbot):
    """The session keeps the memorisation period (it was the panel's Qt timer)."""
    from trainer.games import kyogi_session as K
    clock = FakeClock(1000.0)
    session = K.KyogiSession(3, clock=clock)
    assert session.act(HUMAN, K.Memorise(15 * 60)) == [K.PhaseChanged(K.MEMORISE)]
    assert session.memorise_left() == pytest.approx(900)
    assert session.next_due() == pytest.approx(1000.0 + 900 - K.SWING_NOTICE_S)
    clock.advance(779)
    assert not session.tick() and not session.swings_allowed        # 2:01 left: no swings yet
    clock.advance(2)
    events = session.tick()
    assert events == [K.SwingsAllowed(K.SWING_NOTICE_S)]              # the last 2 minutes
    assert session.next_due() == pytest.approx(1900.0)
    clock.advance(60)
    assert session.tick() == []
    clock.advance(60)
    assert session.tick() == [K.MemorisationOver()]
    assert session.memorise_left() is None and session.next_due() is None


def test_memorisation_length_comes_from_the_settings(panel):
    panel.settings.set(S.MEMORISE_MIN, 5)
    panel.start_memorisation()
    assert panel.session.memorise_left() == pytest.approx(300)
    assert "05:00" in panel.banner.text()
    panel.clock.advance(181)
    panel.tick()
    assert "swing" in panel.banner.text()
    panel.clock.advance(200)
    panel.tick()
    assert panel.phase == "play"            # memorisation over: the match begins
    assert panel.driver.calls[-1][0] == "start"


def test_reaction_texts():
    LANG.set("en")
    assert reaction_text(312, False) == "+312 ms"
    assert reaction_text(-40, False) == "\u221240 ms anticipated"
    assert reaction_text(85, True) == "fault +85 ms"
    assert reaction_text(-20, True) == "fault \u221220 ms"
    LANG.set("ja")
    assert reaction_text(-40, False).startswith("\u221240 ms")
    LANG.set("en")


def _read(panel, poem):
    panel.driver.card_started.emit(poem)
    assert panel.session.race is not None and panel.session.race.poem == poem


def test_reading_starts_from_the_engines_order_and_the_player_arrangement_counts(panel):
    own_before = panel.own.rows()
    panel.begin_match()
    assert panel.driver.calls[-1][1] == panel.order
    assert panel.state.side(HUMAN).rows() == own_before
    assert not panel.floor.arranging


def test_a_take_from_the_opponents_side_asks_for_the_okurifuda(panel):
    panel.begin_match()
    poem = next(p for p in panel.order if panel.state.side_of(p) == 1)
    # Read karafuda and own cards until that card comes up is not needed: the engine reads
    # in `order`, so drive the race for whatever comes first, then for that card.
    for p in panel.order[:panel.order.index(poem)]:
        _read(panel, p)
        panel.judge()
        while panel.state.phase is Phase.OKURI:
            panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
        panel.driver.card_finished.emit(p)
        if panel.phase == "over":
            pytest.skip("the match ended first")
    before = len(panel.state.side(HUMAN))
    _read(panel, poem)
    panel.route_touch(poem, panel.clock.now())
    panel.judge()
    outcome = panel.state.outcomes[-1]
    assert outcome.taker == HUMAN and outcome.take_from_opponent
    assert panel.reaction.text().startswith("+")
    assert panel.state.phase is Phase.OKURI
    assert "okurifuda" in panel.banner.text()
    assert panel.driver.calls[-1] == ("hold_before_next_card",)
    sent = panel.state.side(HUMAN).cards()[0]
    panel.route_touch(sent, panel.clock.now())
    assert panel.state.side_of(sent) == 1
    assert len(panel.state.side(HUMAN)) == before - 1
    assert panel.driver.calls[-1] == ("release",)


def test_touching_during_a_karafuda_is_a_fault(panel):
    panel.begin_match()
    poem = panel.order[0]
    while panel.state.side_of(poem) is not None:
        _read(panel, poem)
        panel.judge()
        while panel.state.phase is Phase.OKURI:
            panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
        poem = panel.order[len(panel.state.read)]
    faults_before = sum(1 for o in panel.state.outcomes for f in o.faults if f.seat == HUMAN)
    _read(panel, poem)
    panel.route_touch(panel.state.side(1).cards()[0], panel.clock.now())
    panel.judge()
    outcome = panel.state.outcomes[-1]
    assert outcome.karafuda
    assert sum(1 for f in outcome.faults if f.seat == HUMAN) == 1
    assert panel.reaction.text().startswith("fault")
    assert sum(1 for o in panel.state.outcomes for f in o.faults if f.seat == HUMAN) == faults_before + 1


def test_a_whole_match_ends_on_the_result_screen(panel):
    panel.begin_match()
    for poem in panel.order:
        if panel.phase == "over":
            break
        _read(panel, poem)
        if panel.state.side_of(poem) is not None:
            panel.route_touch(poem, panel.clock.now())
        panel.judge()
        while panel.state.phase is Phase.OKURI:
            panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
        panel.driver.card_finished.emit(poem)
        panel.state.check_invariants()
    assert panel.phase == "over"
    assert panel.pages.currentIndex() == 1
    assert panel.state.winner() == HUMAN
    assert panel.result.verdict.text().startswith("You won")
    assert panel.result.log.count() == len(panel.state.read)
    assert ("stop",) in panel.driver.calls


def test_the_same_seed_deals_arranges_and_reads_alike_in_the_panel_and_the_simulator(panel):
    """One deal and reading order per seed: the app against the CPU and `karuta simulate kyogi`."""
    from trainer.sim.kyogi_sim import new_game
    for seed in (11, 12345):
        panel.level.setCurrentIndex(panel.level.findData("strong"))
        panel.new_match(seed)
        sim = new_game(seed, ("strong", "strong"))
        assert sorted(panel.state.side(HUMAN).cards()) == sorted(sim.state.side(HUMAN).cards())
        assert panel.state.side(1).rows() == sim.state.side(1).rows()      # the CPU's own layout
        assert panel.order == sim.order == sim.state.reader_order()
        panel.begin_match()
        assert panel.driver.calls[-1][1] == sim.order                      # what the reader reads
        assert panel.state.side(1).rows() == sim.state.side(1).rows()


def test_a_cpu_level_chosen_after_the_deal_plays_the_match_about_to_start(panel):
    panel.level.setCurrentIndex(panel.level.findData("beginner"))
    assert panel.cpu.level.name == "beginner"
    panel.level.setCurrentIndex(panel.level.findData("meijin"))
    assert panel.cpu.level.name == "meijin" and panel.settings.get(S.CPU_LEVEL) == "meijin"
    from trainer.sim.kyogi_sim import new_game
    assert panel.state.side(1).rows() == new_game(11, ("meijin", "meijin")).state.side(1).rows()


def _sample(event_cls):
    """An instance of an event class with plausible values for its fields."""
    import dataclasses

    from trainer.games.kyogi_session import ReadRecord
    from trainer.rules.kyogi import Fault, FaultKind, Outcome
    outcome = Outcome(poem=5, karafuda=False, owner=1, taker=0, take_ms=2300, simultaneous=False,
                      unclaimed=False, reaction_ms=(300, None),
                      faults=(Fault(1, FaultKind.WRONG_SIDE, (0,), 1),), cancelled=True, giver=None,
                      cards_owed=0)
    by_type = {"int": 3, "str": "otetsuki", "bool": True, "int | None": 120, "Outcome": outcome,
               "'Outcome'": outcome, "ReadRecord": ReadRecord(5, True, "take", 300.0, None),
               "float": 120.0, "tuple[int | None, int | None]": (250, None),
               "tuple[bool, bool]": (False, True), "tuple[tuple[int, str], ...]": ((1, "otetsuki"),)}
    return event_cls(**{f.name: by_type[str(f.type)] for f in dataclasses.fields(event_cls)})


def test_every_kyogi_event_kind_has_a_text_in_both_languages():
    from trainer.games.kyogi_session import EVENT_TYPES
    from trainer.text import kyogi as kyogi_text  # noqa: F401  (registers the texts)
    from trainer.text.events import describe, missing, texts
    assert missing(EVENT_TYPES) == []
    for kind, cls in EVENT_TYPES.items():
        event = _sample(cls)
        rendered = {}
        for lang in ("ja", "en"):
            LANG.set(lang)
            rendered[lang] = describe(event)
            assert rendered[lang] and "{" not in rendered[lang], (kind, lang, rendered[lang])
        assert rendered["ja"] != rendered["en"] or kind == "kyogi.reaction", kind
        assert set(texts(kind)) == {"ja", "en"}
    LANG.set("en")


def test_the_judge_window_is_a_setting_the_match_is_judged_by(panel, qtbot):
    from trainer.rules.kyogi import JUDGE_WINDOW_MS
    from trainer.ui.settings_dialog import SettingsDialog
    assert panel.settings.get(S.JUDGE_WINDOW_MS) == JUDGE_WINDOW_MS
    assert panel.session.rules.simultaneous_ms == JUDGE_WINDOW_MS
    dialog = SettingsDialog(panel.settings, [])
    qtbot.addWidget(dialog)
    assert dialog.judge_window.value() == JUDGE_WINDOW_MS
    dialog.judge_window.setValue(55)
    dialog.apply()
    assert panel.settings.get(S.JUDGE_WINDOW_MS) == 55
    panel.new_match(4)
    assert panel.session.rules.simultaneous_ms == 55


# -- issue 10: abandoning asks and shows the result; end-game practice; the review ------------------

def test_esc_asks_before_throwing_the_match_away_and_shows_its_result(panel):
    panel.begin_match()
    _read(panel, panel.order[0])
    answers = [False]
    panel.confirm_abandon = lambda: answers.pop(0)
    panel.command("stop")                                 # Esc
    assert panel.phase == "play" and panel.pages.currentIndex() == 0
    assert panel.driver.calls[-2:] == [("pause",), ("resume",)]   # nothing sounded meanwhile
    answers.append(True)
    panel.abandon_button.click()
    assert panel.phase == "over" and panel.pages.currentIndex() == 1
    assert panel.result.verdict.text() == "Abandoned (cards left: you 25, opponent 25)"
    assert panel.result.why.isHidden()


def test_a_reading_that_stops_ends_the_match_on_its_result_with_the_reason(panel):
    panel.begin_match()
    panel.driver.error.emit("Stopped: Drills began a reading (one reading at a time)")
    assert panel.phase == "over" and panel.pages.currentIndex() == 1
    assert "Drills began a reading" in panel.result.why.text()


def test_cards_per_side_and_no_memorisation_give_a_4_v_4_endgame_at_once(panel):
    panel.settings.set(S.CARDS_PER_SIDE, 4)
    panel.settings.set(S.MEMORISE_MIN, 0)
    panel.new_match(3)
    assert [len(panel.session.side(s).cards()) for s in (0, 1)] == [4, 4]
    panel.start_memorisation()
    assert panel.phase == "play" and panel.driver.calls[-1][0] == "start"


def test_the_review_shows_every_read_with_both_times_faults_and_lost_cards(panel):
    panel.settings.set(S.CARDS_PER_SIDE, 3)
    panel.new_match(8)
    panel.begin_match()
    faulted = False
    for poem in panel.order:
        if panel.phase == "over":
            break
        _read(panel, poem)
        panel.clock.advance(0.05)                           # quicker than any CPU level
        side = panel.state.side_of(poem)
        if side == HUMAN:
            panel.route_touch(poem, panel.clock.now())     # our own cards we take
        elif side is None and not faulted:
            faulted = True                                  # one fault, on the first karafuda
            panel.route_touch(panel.state.side(1).cards()[0], panel.clock.now())
        panel.clock.advance(3.0)
        panel.tick()                                        # the CPU takes theirs
        panel.judge()
        while panel.state.phase is Phase.OKURI:
            panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
        panel.driver.card_finished.emit(poem)
    assert panel.phase == "over"
    table, rows = panel.result.review, panel.session.review
    assert table.rowCount() == len(rows) == len(panel.state.read)
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers == ["#", "Card", "Side", "Taken by", "You", "Opponent", "Faults", "Lost", "Sent"]
    for r, row in enumerate(rows):
        cells = [table.item(r, c).text() for c in range(table.columnCount())]
        assert cells[0] == str(r + 1) and f"（{row.poem}）" in cells[1]
        if row.taker == HUMAN:
            assert cells[3] == "You" and cells[4].endswith(" ms") and cells[7] == ""
        if row.lost(HUMAN):
            assert cells[3] == "Opponent (CPU)" and cells[5].endswith(" ms") and cells[7] == "✗"
        if row.faults[HUMAN]:
            assert "You: fault on a karafuda" in cells[6]
    assert any(r.lost(HUMAN) for r in rows) and any(r.taker == HUMAN for r in rows)
    assert any(r.faults[HUMAN] for r in rows)


def test_at_1024_by_700_the_floor_fills_the_window_and_log_lines_are_never_cut(qtbot, tmp_path):
    """Issue 10: cards were 36×50 px with 8 px kana at 1024×700 while space was wasted."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QFontMetrics

    from test_ui_app import FakeDriver as AppDriver
    from trainer.ui.main_window import MainWindow
    from trainer.ui.torifuda import ASPECT
    settings = S.Settings(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    w = MainWindow(settings, driver=AppDriver(), voices=FakeVoices())
    qtbot.addWidget(w)
    w.resize(1024, 700)
    w.show()
    qtbot.waitExposed(w)
    w.set_mode([m for m, _ in w.modes].index("mode.kyogi"))
    panel = w.match
    qtbot.waitUntil(lambda: panel.floor.width() > 0)
    assert w.width() <= 1024 and w.height() <= 700                 # it fits
    rects = [r for _, r in panel.floor.card_rects().values()]
    assert rects and all(r.width() >= 42 and r.height() >= 59 for r in rects)
    assert all(abs(r.width() / r.height() - ASPECT) < 0.01 for r in rects)
    for line in ("12. わたのはらや（11）　Karafuda (not on the floor) (You fault +200 ms) [You: fault on a karafuda]",
                 "3. む（87）→ Opponent (CPU) +665 ms [Opponent (CPU): fault]"):
        panel.log.addItem(line)
    qtbot.wait(50)
    view = panel.log
    width = view.viewport().width()
    for k in range(view.count()):
        item = view.item(k)
        rect = view.visualItemRect(item)
        assert rect.right() <= width                                      # nothing off to the side
        need = QFontMetrics(view.font()).boundingRect(QRect(0, 0, rect.width() - 10, 100_000),
                                                     int(Qt.TextFlag.TextWordWrap), item.text())
        assert rect.height() >= need.height()                             # every wrapped line shown
    assert view.visualItemRect(view.item(0)).height() > QFontMetrics(view.font()).height() * 1.5


def test_a_refusal_on_the_match_tab_is_shown_in_japanese(panel):
    """A press on the opponent's card while the player owes an okurifuda is refused by the
    session; the banner words the refusal in the interface language (it showed str(exc))."""
    LANG.set("ja")
    try:
        panel.begin_match()
        poem = next(p for p in panel.order if panel.state.side_of(p) == 1)
        for p in panel.order[:panel.order.index(poem)]:
            _read(panel, p)
            panel.judge()
            while panel.state.phase is Phase.OKURI:
                panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
            panel.driver.card_finished.emit(p)
            if panel.phase == "over":
                pytest.skip("the match ended first")
        _read(panel, poem)
        panel.route_touch(poem, panel.clock.now())
        panel.judge()
        assert panel.state.phase is Phase.OKURI
        theirs = panel.state.side(1).cards()[0]
        panel.route_touch(theirs, panel.clock.now())
        assert panel.state.phase is Phase.OKURI                  # refused: nothing sent
        assert panel.banner.text() == f"{theirs} 番の札は自陣にありません。自陣の札を選んでください"
    finally:
        LANG.set("en")


def test_the_deal_button_deals_from_a_fresh_seed(panel):
    """Qt's clicked passes `checked` (False); taken for the seed, every deal was seed 0's."""
    seeds = set()
    for _ in range(3):
        panel.deal_button.click()
        seeds.add(panel.seed)
    assert panel.seed is not False and len(seeds) > 1


# --- issue 28: the review and the result in the spelling and language in use -----------------

def test_the_review_writes_kimariji_as_the_log_does_in_the_chosen_spelling():
    from trainer.games.kyogi_session import ReviewRow
    from trainer.ui.kimariji_text import SPELLING
    from trainer.ui.match_panel import review_cells
    LANG.set("en")
    row = ReviewRow(3, 44, "あふこ", HUMAN, HUMAN, (300, None), ((), ()), None, 0)
    assert SPELLING.code == "sound"
    assert review_cells(row)[1] == "おうこ（44）"                 # as read aloud, not あふこ
    shortened = ReviewRow(9, 19, "なにはが", HUMAN, HUMAN, (300, None), ((), ()), None, 0)
    assert review_cells(shortened)[1].startswith("なにわが")
    short = ReviewRow(9, 44, "あふ", HUMAN, HUMAN, (300, None), ((), ()), None, 0)   # あふこ, shortened
    assert review_cells(short)[1] == "おう (was おうこ)（44）"


def _play_to_the_end(panel):
    panel.settings.set(S.CARDS_PER_SIDE, 3)
    panel.new_match(8)
    panel.begin_match()
    for poem in panel.order:
        if panel.phase == "over":
            break
        _read(panel, poem)
        panel.clock.advance(0.05)
        if panel.state.side_of(poem) == HUMAN:
            panel.route_touch(poem, panel.clock.now())
        panel.clock.advance(3.0)
        panel.tick()
        panel.judge()
        while panel.state.phase is Phase.OKURI:
            panel.route_touch(panel.state.side(HUMAN).cards()[0], panel.clock.now())
        panel.driver.card_finished.emit(poem)
    assert panel.phase == "over"


def test_the_result_lines_log_and_review_follow_a_language_switch(panel):
    import re
    _play_to_the_end(panel)
    res = panel.result
    r = next(k for k, row in enumerate(panel.session.review) if row.taker is not None)

    def lines():
        return [res.verdict.text(), res.details.text(), res.log.item(r).text(), res.review.item(r, 3).text()]
    english = lines()
    LANG.set("ja")
    try:
        now = lines()
        assert all(a != b for a, b in zip(english, now)), now
        for text in now + [panel.log.item(k).text() for k in range(panel.log.count())]:
            assert not re.search(r"\b(You|Opponent|taken|faults?|won|lost|mean)\b", text), text
    finally:
        LANG.set("en")
