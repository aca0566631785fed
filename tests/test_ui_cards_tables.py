"""Games → Yomi and Games → Ume Botan through the UI: rounds played by clicks on a fake clock,
only legal cards clickable, hidden cards never drawn face-up, Ume Botan's two-match choice, the
score calculator against `umebotan_score`, both languages."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from trainer.games import registry  # noqa: E402
from trainer.games.umebotan_session import new_session as umebotan_session  # noqa: E402
from trainer.rules import decks  # noqa: E402
from trainer.rules.decks import HANAFUDA  # noqa: E402
from trainer.rules.umebotan import Captured, Play, RoundScored, Take, matches  # noqa: E402
from trainer.rules.umebotan_score import score_round  # noqa: E402
from trainer.rules.yomi import Discard, Lead, Pass, RoundWon  # noqa: E402
from trainer.ui.i18n import LANG, MESSAGES, tr  # noqa: E402
from trainer.ui.umebotan_panel import ScoreCalculator, UmebotanPanel  # noqa: E402
from trainer.text.umebotan import card_name  # noqa: E402
from trainer.ui.yomi_panel import YomiPanel, card_of  # noqa: E402


@pytest.fixture(autouse=True)
def english():
    before = LANG.code
    LANG.set("en")
    yield
    LANG.set(before)


def make(qtbot, cls, size=(1500, 950)):
    panel = cls(None, None, clock=FakeClock(100.0), cpu_delay_s=0)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    return panel


def click(qtbot, table, rect):
    qtbot.mouseClick(table, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())


def wait_for_person(qtbot, panel):
    s = panel.session
    qtbot.waitUntil(lambda: s.is_over() or bool(s.waiting_for()), timeout=5000)


# =========================================================================== Yomi

def yomi_rect(table, item):
    if item == "pass":
        return table._pass
    return next(r for r, card in table._hand if card == item)


def hidden_cards(session, me=0):
    state = session.state
    return {c for s, hand in enumerate(state.hands) if s != me for c in hand}


@pytest.mark.parametrize("variant,players", [("yomi/standard", 4), ("yomi/wild", 3), ("yomi37/standard", 4)])
def test_a_yomi_round_played_by_clicks(qtbot, variant, players):
    panel = make(qtbot, YomiPanel)
    panel.variant.setCurrentIndex(panel.variant.findData(variant))
    panel.players.setCurrentIndex(panel.players.findData(players))
    panel.rounds.setValue(1)
    panel.start_game(seed=4)
    s, table = panel.session, panel.table
    assert s.state.players == players
    assert s.state.options.ruleset == ("yomi37" if variant.startswith("yomi37") else "standard")
    assert s.state.options.wild == (variant == "yomi/wild")
    clicks = 0
    while True:
        wait_for_person(qtbot, panel)
        if s.is_over():
            break
        legal = s.legal(0)
        assert table.highlighted == {card_of(a) for a in legal}          # the outlined cards are the legal ones
        table.grab()                                                      # a paint: what is face-up
        assert not table.faces_painted & hidden_cards(s)                  # no other seat's card is drawn
        assert table.view == s.view(0) and not any(v is s.state for v in vars(table).values())
        assert set(s.view(0).hand) <= table.faces_painted
        # a card that may not be played does nothing
        wrong = [c for _, c in table._hand if c not in table.highlighted]
        if wrong:
            before = len(s.log)
            click(qtbot, table, yomi_rect(table, wrong[0]))
            assert len(s.log) == before and s.waiting_for() == (0,)
        choice = next((a for a in legal if not isinstance(a, Pass)), legal[0])
        before = len(s.log)
        click(qtbot, table, yomi_rect(table, card_of(choice)))
        first = s.log[before]                                             # the click played the chosen action
        assert first.seat == 0 and first.kind == {Lead: "yomi.lead", Discard: "yomi.discard",
                                                  Pass: "yomi.pass"}[type(choice)]
        assert getattr(first, "card", None) == getattr(choice, "card", None)
        clicks += 1
    assert clicks >= 3
    won = [e for e in s.log if isinstance(e, RoundWon)]
    assert len(won) == 1 and panel.shell.scores.rowCount() == 2            # the round and the total
    assert panel.shell.scores.totals() == list(s.state.scores)
    assert panel.shell.log.count() > 10
    assert "Game over" in panel.status.text()


def test_yomi_log_names_the_seats_and_hides_other_hands(qtbot):
    panel = make(qtbot, YomiPanel)
    panel.start_game(seed=9)
    wait_for_person(qtbot, panel)
    lines = [panel.shell.log.item(k).text() for k in range(panel.shell.log.count())]
    dealt = [line for line in lines if "dealt a hand" in line]
    assert len(dealt) == 1 and dealt[0].startswith("Seat 1 (you)")        # only the person's own hand
    assert any(line.startswith("CPU ") for line in lines) or panel.session.state.turn == 0


def test_yomi_face_styles_change_the_drawing_not_the_game(qtbot):
    panel = make(qtbot, YomiPanel, (1024, 700))
    panel.start_game(seed=2)
    wait_for_person(qtbot, panel)
    images = []
    for style in ("mekuri", "western", "hana"):
        panel.faces.setCurrentIndex(panel.faces.findData(style))
        assert panel.table.face_style == style
        images.append(panel.table.grab().toImage())
    assert images[0] != images[1] and images[1] != images[2]
    assert panel.session.legal(0)                                          # still the person's turn


def test_the_chosen_faces_are_remembered(qtbot, tmp_path):
    from PySide6.QtCore import QSettings
    from trainer.ui import settings as S
    ini = str(tmp_path / "s.ini")
    first = YomiPanel(S.Settings(QSettings(ini, QSettings.Format.IniFormat)), None, clock=FakeClock())
    qtbot.addWidget(first)
    first.faces.setCurrentIndex(first.faces.findData("western"))
    first.settings.sync()
    again = YomiPanel(S.Settings(QSettings(ini, QSettings.Format.IniFormat)), None, clock=FakeClock())
    qtbot.addWidget(again)
    assert again.faces.currentData() == "western" and again.table.face_style == "western"


# =========================================================================== Ume Botan

def ume_rect(table, item):
    where, card = item
    rows = table._hand if where == "hand" else table._field
    return next(r for r, c in rows if c == card)


def play_ume_turn(qtbot, panel):
    """The person's turn by clicks: a card from the hand, and the target when asked."""
    s, table = panel.session, panel.table
    legal = s.legal(0)
    assert table.highlighted == ({a.card for a in legal if isinstance(a, Play)}
                                 | {a.target for a in legal if isinstance(a, Take)})
    before = len(s.log)
    if isinstance(legal[0], Take):
        click(qtbot, table, ume_rect(table, ("field", legal[0].target)))
    else:
        a = legal[0]
        click(qtbot, table, ume_rect(table, ("hand", a.card)))
        if a.target is not None and len(s.log) == before:                  # a choice: click the target
            assert a.target in table.targets
            click(qtbot, table, ume_rect(table, ("field", a.target)))
    assert len(s.log) > before


def test_an_ume_botan_round_played_by_clicks(qtbot):
    panel = make(qtbot, UmebotanPanel)
    panel.rounds.setCurrentIndex(panel.rounds.findData(2))
    panel.players.setCurrentIndex(panel.players.findData(3))
    panel.start_game(seed=6)
    s, table = panel.session, panel.table
    turns = 0
    while True:
        wait_for_person(qtbot, panel)
        if any(isinstance(e, RoundScored) for e in s.log):
            break
        table.grab()
        hidden = {c for k, h in enumerate(s.state.hands) if k != 0 for c in h} | set(s.state.draw_pile)
        hidden |= set(s.state.reserved[1:] if s.state.reserved else ())
        assert not table.faces_painted & hidden                            # backs for what the person may not see
        assert table.view == s.view(0) and not any(v is s.state for v in vars(table).values())
        assert set(s.view(0).hand) <= table.faces_painted
        turns += isinstance(s.legal(0)[0], Play)                          # (not a drawn card's choice)
        play_ume_turn(qtbot, panel)
    assert turns == 7                                                      # 3 players: 7 cards each
    scored = next(e for e in s.log if isinstance(e, RoundScored))
    assert panel.shell.scores.rowCount() == 2 and panel.shell.scores.totals() == list(scored.scores)
    assert sum(scored.scores) == 0


def two_match_seed():
    """A seed whose person (seat 0) has, at its first turn, a hand card matching two field cards."""
    variant = registry.find("umebotan")
    for seed in range(300):
        s = umebotan_session(variant, seed, ("human", "cpu", "cpu", "cpu"), {"rounds": 2})
        s.run_cpus()
        if not s.waiting_for():
            continue
        field = s.view(0).field
        pairs = [c for c in s.view(0).hand if c != decks.LIGHTNING and len(matches(c, field)) == 2]
        if pairs:
            return seed, pairs[0]
    raise AssertionError("no seed in 0..299 gives a two-match hand")


def test_ume_botan_two_matches_the_person_chooses_by_clicking(qtbot):
    seed, card = two_match_seed()
    panel = make(qtbot, UmebotanPanel)
    panel.rounds.setCurrentIndex(panel.rounds.findData(2))
    panel.start_game(seed=seed)
    s, table = panel.session, panel.table
    wait_for_person(qtbot, panel)
    both = set(matches(card, s.view(0).field))
    before = len(s.log)
    click(qtbot, table, ume_rect(table, ("hand", card)))
    assert len(s.log) == before                                            # nothing played yet: a choice
    assert table.selected == card and table.targets == both
    assert "matches two field cards" in panel.status.text()
    other = next(c for c in s.view(0).field if c not in both)
    click(qtbot, table, ume_rect(table, ("field", other)))                 # not a candidate: nothing
    assert len(s.log) == before
    target = max(both)
    click(qtbot, table, ume_rect(table, ("field", target)))
    captured = next(e for e in s.log[before:] if isinstance(e, Captured))
    assert captured.seat == 0 and captured.card == card and captured.taken == (target,)
    assert table.selected is None


# =========================================================================== the score calculator

def test_the_calculator_scores_as_umebotan_score_and_refuses_bad_piles(qtbot):
    dialog = ScoreCalculator()
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_players(3)
    dialog.round.setValue(4)
    # by clicks: Player 2 takes the Crane, and gives it back
    dialog.pile_buttons.button(1).click()
    crane = next(r for r, c in dialog.grid._rects if c == decks.CRANE)
    click(qtbot, dialog.grid, crane)
    assert dialog.piles[1] == [decks.CRANE] and dialog.grid.owner[decks.CRANE] == [1]
    click(qtbot, dialog.grid, crane)
    assert dialog.piles[1] == []
    # a hand-made round: the brights and the Wisteria to player 1, the rest split
    p1 = [10, 30, 80, 120, 110, 40, 41, 42, 43]
    rest = [c for c in HANAFUDA if c not in p1]
    p2, p3 = rest[:20], rest[20:]
    dialog.set_piles([p1, p2, p3])
    dialog.doubled.setChecked(True)
    got = dialog.score()
    want = score_round([p1, p2, p3], round_no=4, doubled=True)
    assert got == want and dialog.error.text() == ""
    assert [dialog.table.item(k, 2).text() for k in range(3)] == [f"{v:+d}" for v in want.scores]
    assert "Five Brights" in dialog.table.item(0, 1).text() and "Wisteria Row" in dialog.table.item(0, 1).text()
    # the same piles through the buttons: Player 1 by clicks, Player 2 by clicks, the rest to Player 3
    dialog.clear()
    for pile, cards in ((0, p1), (1, p2)):
        dialog.pile_buttons.button(pile).click()
        for card in cards:
            click(qtbot, dialog.grid, next(r for r, c in dialog.grid._rects if c == card))
    dialog.pile_buttons.button(2).click()
    dialog.rest_button.click()
    assert sorted(dialog.piles[2]) == sorted(p3) and dialog.score() == want
    # piles that are not a partition of the 48: refused, with what is wrong
    dialog.set_piles([p1, p2, p3[:-1]])
    assert dialog.score() is None and dialog.table.rowCount() == 0
    assert dialog.error.text() == tr("refusal.umebotan.pile_missing", n=1, cards=f"{card_name(p3[-1])} ({p3[-1]})")
    dialog.set_piles([p1, p2 + [10], p3])
    assert dialog.score() is None and "more than one pile" in dialog.error.text()
    assert "Pine with Crane (10)" in dialog.error.text()
    dialog.set_piles([p1, p2, p3[:-1], [p3[-1]]])
    assert dialog.score() is None and "Pile 4" in dialog.error.text()
    LANG.set("ja")
    assert "4 人目" in dialog.error.text()                                 # the message follows the language


def test_the_calculator_opens_from_the_ume_botan_tab(qtbot):
    panel = make(qtbot, UmebotanPanel)
    dialog = panel.open_calculator()
    qtbot.addWidget(dialog)
    assert isinstance(dialog, ScoreCalculator) and dialog.isVisible()


# =========================================================================== both languages, the main window

@pytest.mark.parametrize("code", ["ja", "en"])
@pytest.mark.parametrize("cls", [YomiPanel, UmebotanPanel])
def test_the_tables_render_in_both_languages(qtbot, code, cls):
    LANG.set(code)
    panel = make(qtbot, cls, (1024, 700))
    panel.start_game(seed=3)
    wait_for_person(qtbot, panel)
    image = panel.grab().toImage()
    assert not image.isNull()
    assert panel.new_button.text() == MESSAGES["cards.new_game"][0 if code == "ja" else 1]
    last = panel.shell.log.item(panel.shell.log.count() - 1).text()
    has_kana = any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in last)
    assert has_kana == (code == "ja"), last
    LANG.set("en" if code == "ja" else "ja")                               # switching re-words the log
    relast = panel.shell.log.item(panel.shell.log.count() - 1).text()
    assert relast != last and panel.shell.log.count() > 0


def test_the_tables_are_registered_and_follow_the_mode_protocol(qtbot):
    from trainer.ui.modes import game_tables
    modes = {game: (module, cls) for game, module, cls in game_tables()}
    assert modes["yomi"] == ("trainer.ui.yomi_panel", "YomiPanel")
    assert modes["umebotan"] == ("trainer.ui.umebotan_panel", "UmebotanPanel")
    assert "yomi37" not in modes                                          # one panel serves all three variants
    assert {v.table for v in registry.variants("yomi") + registry.variants("yomi37")} == \
        {"trainer.ui.yomi_panel:YomiPanel"}
    for cls in (YomiPanel, UmebotanPanel):
        panel = make(qtbot, cls)
        assert not panel.available("pause") and not panel.available("start")
        panel.command("pause")                                             # ignored
        panel.settings_changed()
        panel.start_game(seed=1)
        panel.shutdown()
        assert panel.game is None


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("size", [(1150, 700), (700, 480), (688, 330)])   # the last: a table at 1024×700
def test_the_centre_the_games_draw_in_is_clear_of_every_seat(n, size):
    from PySide6.QtCore import QRectF
    from trainer.ui.card_game_panel import free_centre
    from trainer.ui.table_shell import RING, centre_of, seat_boxes
    area = QRectF(0, 0, *size)
    boxes = seat_boxes(n, area, 0)
    free = free_centre(centre_of(area, boxes, RING), boxes)
    assert free.width() > 100 and free.height() > 80
    assert not any(free.intersects(b) for b in boxes)


def test_table_text_shrinks_to_a_readable_floor_and_no_further(qapp):
    """`paint_fitted`'s size: the asked size when the text fits, smaller when it does not,
    never under MIN_TEXT_PX (a line still too long is elided, not shrunk to specks)."""
    from PySide6.QtCore import QRectF

    from trainer.ui.table_shell import MIN_TEXT_PX, fitted_font
    title = "Discarded this round, by number"
    roomy, _ = fitted_font(QRectF(0, 0, 400, 20), title, 12)
    tight, laid = fitted_font(QRectF(0, 0, 175, 20), title, 12)
    tiny, _ = fitted_font(QRectF(0, 0, 40, 20), title, 12)
    assert roomy.pixelSize() == 12
    assert MIN_TEXT_PX <= tight.pixelSize() < 12 and laid.width() <= 175.5
    assert tiny.pixelSize() == MIN_TEXT_PX


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_ume_botan_captures_stay_readable_late_in_a_round_on_a_small_screen(qtbot, lang):
    """The table as it is at 1024×700, played until the seats have captured many cards: each
    seat's captures are small cards whose month numbers read (no painted text under 9 px, none
    cut or overlapping), and the cards a box cannot show are counted ("+n")."""
    from legibility import painted_problems
    LANG.set(lang)
    panel = make(qtbot, UmebotanPanel, size=(700, 520))
    panel.start_game(seed=3)
    s = panel.session
    while not s.is_over() and sum(len(p) for p in s.view(panel.me).piles) < 26:
        wait_for_person(qtbot, panel)
        if s.is_over() or panel.me not in s.waiting_for():
            continue
        s.act(panel.me, s.legal(panel.me)[0])
        panel.game._changed()
    qtbot.wait(50)
    assert sum(len(p) for p in s.view(panel.me).piles) >= 26
    assert painted_problems(panel) == []
