"""Games → Unsun karuta through the UI: a deal played by clicking the person's cards on a fake
clock, only legal cards clickable (and why not), the highlight equal to the session's legal
cards, other seats' face-down cards drawn as backs and never in the widget, the turn timer,
the score sheet per deal, both languages, and the suit marks told apart by shape alone."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import dataclasses  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QRectF, QSettings, Qt  # noqa: E402
from PySide6.QtGui import QColor, QImage, QPainter  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from trainer.games import registry  # noqa: E402
from trainer.games.turn_session import TurnTimedOut  # noqa: E402
from trainer.rules.unsun import (DECK, PLAYERS, ROBAI_CHOICE, SUITS, Card, DealStarted,  # noqa: E402
                                 Discard, Play)
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG, MESSAGES  # noqa: E402
from trainer.ui.table_shell import BACK  # noqa: E402
from trainer.text.refusals import describe_refusal  # noqa: E402
from trainer.ui.unsun_panel import UnsunPanel  # noqa: E402
from trainer.ui.unsun_table import paint_card, paint_suit  # noqa: E402
from trainer.text.unsun import card_name, describe_unsun  # noqa: E402

ME = 0


@pytest.fixture(autouse=True)
def english():
    before = LANG.code
    LANG.set("en")
    yield
    LANG.set(before)


@pytest.fixture
def clock():
    return FakeClock(100.0)


@pytest.fixture
def panel(qtbot, tmp_path, clock):
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    p = UnsunPanel(settings, None, clock=clock, cpu_delay_s=0)
    qtbot.addWidget(p)
    p.resize(1500, 950)
    p.show()
    return p


def my_turn(panel):
    s = panel.session
    return s.is_over() or bool(s.waiting_for())


def wait_for_me(qtbot, panel):
    qtbot.waitUntil(lambda: my_turn(panel), timeout=5000)


def legal_cards(panel):
    return {a.card for a in panel.session.legal(ME) if isinstance(a, (Play, Discard))}


def click_card(qtbot, panel, card):
    rect = next(r for r, c in panel.table.hand_rects() if c == card)
    qtbot.mouseClick(panel.table, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())


def take_turn(qtbot, panel, pick=min):
    """The person's turn: choose about the Robai by button, or click a playable card."""
    view = panel.session.view(ME)
    if view.phase == ROBAI_CHOICE:
        assert panel.robau_button.isVisible() and panel.hide_button.isVisible()
        qtbot.mouseClick(panel.robau_button, Qt.MouseButton.LeftButton)
        return
    assert not panel.robau_button.isVisible()
    # the outlined cards are exactly the session's legal ones, and the drawn hand is the view's
    assert panel.table.playable == legal_cards(panel) and legal_cards(panel)
    assert panel.table.hand_cards() == list(view.hand)
    before = len(panel.session.log)
    click_card(qtbot, panel, pick(legal_cards(panel)))
    assert len(panel.session.log) > before


def test_a_whole_deal_played_by_clicking_fills_the_score_sheet(qtbot, panel):
    panel.new_game(seed=11, me=ME)
    turns = 0
    while not panel.session.view(ME).results:
        wait_for_me(qtbot, panel)
        if panel.session.view(ME).results:
            break
        take_turn(qtbot, panel)
        turns += 1
    assert turns >= 9                                       # at least one card per trick
    qtbot.waitUntil(lambda: panel.shell.scores.rowCount() == 2, timeout=5000)
    result = panel.session.view(ME).results[0]
    sheet = panel.shell.scores
    assert sheet.columnCount() == 2 and sheet.horizontalHeaderItem(0).text() == "Team A"
    assert sheet.horizontalHeaderItem(1).toolTip() == "Team B: seat 2, seat 4, seat 6, seat 8"
    assert [sheet.item(0, c).text() for c in (0, 1)] == [str(p) for p in result.points]
    assert sheet.verticalHeaderItem(0).text() == f"Deal 1 ({result.tricks[0]}–{result.tricks[1]})"
    assert sheet.totals() == list(result.points) and sum(result.tricks) == 9
    # the log is the person's log, worded, line for line
    lines = [describe_unsun(e) for e in panel.session.log_for(ME)]
    shown = [panel.shell.log.item(k).text() for k in range(panel.shell.log.count())]
    assert shown == lines[:len(shown)] and len(shown) >= len(lines) - 1


def test_an_illegal_card_does_nothing_and_says_why(qtbot, panel):
    panel.new_game(seed=5, me=ME)
    for _ in range(400):                 # play on until the rules forbid one of the person's cards
        wait_for_me(qtbot, panel)
        assert not panel.session.is_over()
        view = panel.session.view(ME)
        illegal = [c for c in view.hand if c not in legal_cards(panel)]
        if view.phase != ROBAI_CHOICE and illegal:
            break
        take_turn(qtbot, panel)
    before = len(panel.session.log)
    click_card(qtbot, panel, illegal[0])
    assert len(panel.session.log) == before                       # nothing happened
    refusal = panel.session.why_illegal(ME, Play(ME, illegal[0]))       # the engine says why
    assert refusal is not None and refusal.reason.startswith("unsun.")
    assert panel.notice.text() == describe_refusal(refusal) != ""
    assert any(w in panel.notice.text() for w in ("Monchi", "trump", "first trick"))
    # a click when it is not the person's turn: nothing, and it says so
    panel.game.cpu_delay_s = 60                                    # the CPUs wait
    take_turn(qtbot, panel)
    assert not panel.session.waiting_for()
    before = len(panel.session.log)
    click_card(qtbot, panel, panel.table.hand_cards()[0])
    assert len(panel.session.log) == before and panel.notice.text() == "It is not your turn yet"


def cards_in(obj, seen=None):
    """Every `Card` reachable from *obj* (attributes, containers, dataclasses, named tuples)."""
    seen = set() if seen is None else seen
    found: set[Card] = set()
    if id(obj) in seen:
        return found
    seen.add(id(obj))
    if isinstance(obj, Card):
        return {obj}
    if isinstance(obj, (list, tuple, set, frozenset)):
        for x in obj:
            found |= cards_in(x, seen)
    elif isinstance(obj, dict):
        for k, x in obj.items():
            found |= cards_in(k, seen) | cards_in(x, seen)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            found |= cards_in(getattr(obj, f.name), seen)
    return found


def test_other_seats_face_down_cards_are_backs_and_never_reach_the_widget(qtbot, panel):
    panel.new_game(seed=2, me=ME)
    for _ in range(400):       # until another seat's face-down trump lies in the trick
        wait_for_me(qtbot, panel)
        assert not panel.session.is_over()
        view = panel.session.view(ME)
        hidden = [c for c in view.trick if c.card is None]
        if hidden:
            break
        take_turn(qtbot, panel, pick=max)
    state = panel.session.state
    secret = next(t.card for t in state.trick if t.seat == hidden[0].seat)
    assert hidden[0].seat != ME and secret not in view.cards_seen()
    # drawn as the shell's back in its trick slot
    image = panel.table.grab().toImage()
    slots = {seat: (rect, back) for rect, seat, back in panel.table.trick_slots}
    rect, back = slots[hidden[0].seat]
    assert back
    assert QColor(image.pixel(int(rect.left() + max(3, rect.width() * 0.07)), int(rect.center().y()))) == BACK
    # no card another seat keeps secret is anywhere in the table widget's state
    others = set().union(*(state.secrets_of(s) for s in range(PLAYERS) if s != ME))
    assert secret in others
    held = cards_in(vars(panel.table))
    assert held and not (held & others)
    assert held <= view.cards_seen()
    # nor in the log as this seat reads it since the deal began
    log = panel.session.log_for(ME)
    start = max(k for k, e in enumerate(log) if isinstance(e, DealStarted))
    assert not any(secret in cards_in(e) for e in log[start + 1:])
    lines = [panel.shell.log.item(k).text() for k in range(panel.shell.log.count())]
    first = lines.index(describe_unsun(log[start]))
    assert not any(card_name(secret) in line for line in lines[first + 1:])


def test_the_turn_timer_is_off_by_default_and_the_stand_in_plays_after_five_minutes(qtbot, panel, clock):
    assert not panel.timer_box.isChecked()
    panel.new_game(seed=4, me=ME)
    wait_for_me(qtbot, panel)
    assert panel.session.turn_seconds is None and panel.table.timer_fraction is None
    panel.timer_box.setChecked(True)
    panel.new_game(seed=4, me=ME)
    wait_for_me(qtbot, panel)
    assert panel.session.turn_seconds == 300
    before = len(panel.session.log)
    clock.advance(299)
    qtbot.waitUntil(lambda: panel.table.timer_fraction == pytest.approx(1 / 300), timeout=2000)
    assert len(panel.session.log) == before              # one second left: nobody played for them
    assert not panel.grab().isNull()                     # the box draws "0:01 left"
    clock.advance(1.5)
    qtbot.waitUntil(lambda: len(panel.session.log) > before, timeout=2000)
    timed_out = panel.session.log[before]
    assert isinstance(timed_out, TurnTimedOut) and timed_out.seat == ME and timed_out.seconds == 300
    assert "ran out" in "\n".join(panel.shell.log.item(k).text() for k in range(panel.shell.log.count()))


def test_both_languages_render(qtbot, panel):
    panel.new_game(seed=9, me=3)
    wait_for_me(qtbot, panel)
    assert panel.table.me == 3 and panel.new_button.text() == "New game"
    english_log = panel.shell.log.item(0).text()
    LANG.set("ja")
    assert panel.new_button.text() == "新しいゲーム" and panel.shell.log_title.text() == "記録"
    assert panel.level.currentText() == "普通" and panel.seat.currentText() == "席4（B組）"
    assert panel.shell.scores.horizontalHeaderItem(0).text() == "A組"
    assert panel.shell.log.item(0).text() != english_log and "第1局" in panel.shell.log.item(0).text()
    assert all("席" in t for t in panel.table.titles)
    assert not panel.table.grab().toImage().isNull()
    LANG.set("en")
    assert panel.new_button.text() == "New game" and panel.shell.log.item(0).text() == english_log
    assert panel.table.titles[3].startswith("seat 4")          # seats 1..8 on screen


def test_the_panel_is_the_registered_unsun_table_and_ignores_reader_commands(qtbot, panel):
    variant = registry.find("unsun")
    assert registry.resolve(variant.table) is UnsunPanel
    assert MESSAGES["mode.unsun"] == ("うんすん", "Unsun")     # its tab inside Games
    for name in ("start", "pause", "stop", "repeat", "skip"):
        assert panel.available(name) is False and panel.command(name) is False
    panel.settings_changed()
    panel.shutdown()


def mask(suit, size=48):
    """The suit mark's silhouette, colour thrown away."""
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    paint_suit(p, suit, QRectF(0, 0, size, size))
    p.end()
    return {(x, y) for x in range(size) for y in range(size) if image.pixelColor(x, y).alpha() > 128}


def test_the_five_suits_differ_in_shape_not_only_in_colour(qtbot):
    marks = {s: mask(s) for s in SUITS}
    for i, a in enumerate(SUITS):
        for b in SUITS[i + 1:]:
            differ = len(marks[a] ^ marks[b]) / len(marks[a] | marks[b])
            assert differ > 0.25, (a, b, differ)   # measured: 0.32 (coin, drum) to 0.67


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_card_face_paints(qtbot, lang):
    LANG.set(lang)
    image = QImage(80, 120, QImage.Format.Format_ARGB32)
    for card in DECK:
        image.fill(Qt.GlobalColor.transparent)
        p = QPainter(image)
        paint_card(p, QRectF(2, 2, 66, 100), card, trump="kotsu", dim=card.rank == 5)
        p.end()
        assert image.pixelColor(40, 60).alpha() == 255 and image.pixelColor(0, 0).alpha() == 0


def test_the_robai_choice_by_buttons_and_the_discard_by_a_click(qtbot, panel):
    panel.new_game(seed=7, me=ME)                  # seat 0 deals and holds the trump's ロバイ
    wait_for_me(qtbot, panel)
    assert panel.session.view(ME).phase == ROBAI_CHOICE and panel.robau_button.isVisible()
    assert panel.status.text().startswith("You hold the trump Robai")
    click_card(qtbot, panel, panel.table.hand_cards()[0])         # a card now: refused, with the reason
    assert panel.notice.text() == "First choose: robau or hide the Robai"
    qtbot.mouseClick(panel.hide_button, Qt.MouseButton.LeftButton)
    view = panel.session.view(ME)
    assert view.hidden_robai and view.okie_holder == ME and view.phase == "discard"
    assert not panel.hide_button.isVisible() and panel.table.playable == set(view.hand)
    mine = [e for e in panel.session.log_for(ME) if e.kind == "unsun.hidden_robai"]
    assert [e.seat for e in mine] == [ME]                         # the holder's own log names them
    theirs = [e for e in panel.session.log_for(1) if e.kind == "unsun.hidden_robai"]
    assert [e.seat for e in theirs] == [None]                     # another seat's does not
    discard = max(view.hand)
    click_card(qtbot, panel, discard)
    assert panel.table.view.discard == discard and discard not in panel.table.hand_cards()


def test_while_a_cpu_decides_about_the_robai_nobody_is_shown_as_deciding(qtbot, panel):
    panel.cpu_delay_s = 60                          # the CPUs wait: the test steps the table
    panel.new_game(seed=1, me=ME)                  # seat 5 holds the trump's ロバイ
    panel.game._step()                              # the deal
    assert panel.session.state.phase == ROBAI_CHOICE and panel.session.state.to_act == 5
    assert panel.table.active_seat is None and panel.status.text() == "The Robai holder is deciding"
    panel.game._step()
    assert panel.session.state.phase != ROBAI_CHOICE and panel.table.active_seat is not None


def test_a_whole_game_ends_with_eight_rows_and_the_result(qtbot, panel):
    panel.cpu_delay_s = 60
    panel.new_game(seed=6, me=2)
    s = panel.session
    while not s.is_over():                          # the person's moves straight to the session
        s.run_cpus()
        if s.waiting_for():
            s.act(2, s.legal(2)[0])
    panel.game._changed()
    sheet = panel.shell.scores
    assert sheet.rowCount() == 9 and sheet.verticalHeaderItem(8).text() == "Σ"
    a, b = s.state.totals
    assert sheet.totals() == [a, b]
    assert panel.result.isVisible() and panel.result.text().startswith("Game over")
    assert f"A {a}" in panel.result.text() and f"B {b}" in panel.result.text()
    assert (("your team won" in panel.result.text()) == (a > b)) or a == b


def test_the_time_left_is_shown_in_the_persons_box(qtbot, panel, clock):
    panel.timer_box.setChecked(True)
    panel.new_game(seed=4, me=ME)
    wait_for_me(qtbot, panel)
    clock.advance(100)
    qtbot.waitUntil(lambda: panel.table.timer_fraction is not None
                    and panel.table.timer_fraction < 0.7, timeout=2000)
    assert panel.table.turn_seconds == 300
    assert round(panel.table.timer_fraction * 300) == 200          # drawn as "3:20 left"
