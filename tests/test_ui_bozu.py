"""Games → Bōzu-mekuri through the UI: a whole game drawn by clicking the stack on a fake clock,
only the person's turn clickable (and why not), the view drawn (the stack as a count, never a
card), both languages, and the figures of man, monk, woman, emperor and Semimaru told apart."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QRectF, Qt  # noqa: E402
from PySide6.QtGui import QColor, QImage, QPainter  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from trainer.rules.bozu import BozuCard, Draw, GameEnded  # noqa: E402
from trainer.ui.bozu_panel import BozuPanel, paint_poet  # noqa: E402
from trainer.ui.i18n import LANG, MESSAGES  # noqa: E402


@pytest.fixture(autouse=True)
def english():
    before = LANG.code
    LANG.set("en")
    yield
    LANG.set(before)


@pytest.fixture
def panel(qtbot):
    p = BozuPanel(None, None, clock=FakeClock(100.0), cpu_delay_s=0)
    qtbot.addWidget(p)
    p.resize(1024, 700)
    p.show()
    return p


def mine_or_over(panel):
    s = panel.session
    return s.is_over() or bool(s.waiting_for())


def click_stack(qtbot, panel, k=0):
    rect = next(r for r, i in panel.table.stack_rects() if i == k)
    qtbot.mouseClick(panel.table, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())


def test_a_whole_game_drawn_by_clicking_the_stack(qtbot, panel):
    panel.players.setValue(3)
    panel.semimaru.setCurrentIndex(panel.semimaru.findData("monk"))     # nobody leaves the table
    panel.start_game(seed=5)
    draws = 0
    while True:
        qtbot.waitUntil(lambda: mine_or_over(panel), timeout=5000)
        if panel.session.is_over():
            break
        assert panel.table.clickable == {0}
        assert "Click a stack" in panel.status.text()
        before = len(panel.session.log)
        click_stack(qtbot, panel)
        assert len(panel.session.log) > before
        draws += 1
    assert draws >= 25                       # about a third of the 100 cards, by the person
    view = panel.session.view(0)
    assert view.stacks == (0,) and panel.table.view == view
    ended = [e for e in panel.session.log if isinstance(e, GameEnded)]
    assert ended and panel.shell.scores.rowCount() >= 1
    assert "Game over" in panel.status.text()


def test_a_click_out_of_turn_draws_nothing_and_says_why(qtbot, panel):
    panel.start_game(seed=2)
    qtbot.waitUntil(lambda: mine_or_over(panel), timeout=5000)
    s = panel.session
    assert s.why_illegal(1, Draw(0)).reason == "turn.not_your_turn"
    panel.table.clickable = set()
    panel.game._clicked(0, ("stack", 3), 0.0)            # a stack that is not there
    assert panel.notice.text() == MESSAGES["refusal.bozu.no_such_stack"][1].format(stack=4)


def test_the_view_never_holds_a_stacked_card(qtbot, panel):
    panel.start_game(seed=9)
    qtbot.waitUntil(lambda: mine_or_over(panel), timeout=5000)
    v = panel.table.view
    hidden = {c for stack in panel.session.state.stacks for c in stack}
    shown = set(v.pot) | {c for h in v.hands for c in h} | ({v.last} if v.last else set())
    assert not shown & hidden and isinstance(v.stacks[0], int)


@pytest.mark.parametrize("code", ["ja", "en"])
def test_the_table_renders_in_both_languages(qtbot, panel, code):
    LANG.set(code)
    panel.start_game(seed=3)
    qtbot.waitUntil(lambda: mine_or_over(panel), timeout=5000)
    click_stack(qtbot, panel)
    qtbot.waitUntil(lambda: mine_or_over(panel), timeout=5000)
    assert not panel.grab().toImage().isNull()
    last = panel.shell.log.item(panel.shell.log.count() - 1).text()
    has_kanji_or_kana = any("\u3040" <= ch <= "\u30ff" for ch in last)     # 枚 / をめくる ...
    assert has_kanji_or_kana == (code == "ja"), last
    LANG.set("en" if code == "ja" else "ja")
    assert panel.shell.log.item(panel.shell.log.count() - 1).text() != last


def _figure(kind: str) -> QImage:
    img = QImage(60, 90, QImage.Format.Format_ARGB32)
    img.fill(QColor("white"))
    p = QPainter(img)
    paint_poet(p, QRectF(0, 0, 60, 90), kind)
    p.end()
    return img


def test_each_kind_is_drawn_differently():
    kinds = ("man", "monk", "woman", "emperor", "empress", "semimaru")
    images = {k: _figure(k) for k in kinds}
    for i, a in enumerate(kinds):
        for b in kinds[i + 1:]:
            assert images[a] != images[b], f"{a} and {b} look the same"


def test_semimaru_wears_his_own_figure():
    from trainer.ui.bozu_panel import figure_kind
    assert figure_kind(BozuCard(10, "man")) == "semimaru" and figure_kind(BozuCard(3, "man")) == "man"
