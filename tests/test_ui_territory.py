"""The floor widget: geometry, touches with perf_counter stamps, drag-and-drop, arrangements."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QEvent, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QMouseEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from trainer.rules.territory import COLUMNS, Territory  # noqa: E402
from trainer.ui.territory import (ArrangementError, Floor, TerritoryWidget, list_arrangements,  # noqa: E402
                                  load_arrangement, reuse_arrangement, save_arrangement)


def _floor(seed=1):
    deck = list(range(1, 101))
    random.Random(seed).shuffle(deck)
    return Floor(own=Territory.arranged(deck[:25]), opp=Territory.arranged(deck[25:50]))


@pytest.fixture
def floor_widget(qtbot):
    w = TerritoryWidget()
    qtbot.addWidget(w)
    w.resize(1200, 760)
    w.set_floor(_floor())
    w.show()
    return w


def _mouse(widget, kind, pos, buttons=Qt.MouseButton.LeftButton):
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    ev = QMouseEvent(kind, QPointF(pos), widget.mapToGlobal(QPointF(pos)), button, buttons,
                     Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, ev)


def test_own_side_below_the_centre_line_opponent_above(floor_widget):
    rects = floor_widget.card_rects()
    mid = floor_widget.height() / 2
    for card, (own, rect) in rects.items():
        assert (rect.top() > mid) if own else (rect.bottom() < mid), card
    # Rows never overlap and cards never overlap.
    items = list(rects.values())
    for i, (_, a) in enumerate(items):
        for _, b in items[i + 1:]:
            assert not a.intersects(b)


def test_opponents_left_is_drawn_on_our_right(floor_widget):
    opp = floor_widget.floor.opp
    left_card = opp.group(0, "left")[0]
    right_card = opp.group(0, "right")[0]
    x_left = floor_widget.card_centre(left_card).x()
    x_right = floor_widget.card_centre(right_card).x()
    assert x_left > x_right


def test_a_press_emits_the_card_and_a_perf_counter_stamp(qtbot, floor_widget):
    card = floor_widget.floor.own.group(2, "left")[0]
    before = time.perf_counter()
    with qtbot.waitSignal(floor_widget.touched) as sig:
        qtbot.mouseClick(floor_widget, Qt.MouseButton.LeftButton, pos=floor_widget.card_centre(card).toPoint())
    after = time.perf_counter()
    touched, stamp = sig.args
    assert touched == card
    assert before <= stamp <= after


def test_opponent_cards_are_touchable_too(qtbot, floor_widget):
    card = floor_widget.floor.opp.group(1, "right")[0]
    with qtbot.waitSignal(floor_widget.touched) as sig:
        qtbot.mouseClick(floor_widget, Qt.MouseButton.LeftButton, pos=floor_widget.card_centre(card).toPoint())
    assert sig.args[0] == card


def test_drag_and_drop_moves_an_own_card_to_another_row(qtbot, floor_widget):
    w = floor_widget
    w.arranging = True
    card = w.floor.own.group(0, "left")[0]
    # Drop it at the far right end of the 下段 (row 2).
    target_card = w.floor.own.group(2, "right")[0]
    target = w.card_centre(target_card)
    src = w.card_centre(card)
    with qtbot.waitSignal(w.arranged):
        _mouse(w, QEvent.Type.MouseButtonPress, src)
        _mouse(w, QEvent.Type.MouseMove, (src + target) / 2)
        _mouse(w, QEvent.Type.MouseMove, target)
        _mouse(w, QEvent.Type.MouseButtonRelease, target, Qt.MouseButton.NoButton)
    place = w.floor.own.locate(card)
    assert (place.row, place.end, place.index) == (2, "right", 0)
    assert len(w.floor.own) == 25


def test_no_drag_and_no_touch_of_opponent_cards_while_arranging(qtbot, floor_widget):
    w = floor_widget
    w.arranging = True
    before = w.floor.opp.rows()
    card = w.floor.opp.group(0, "left")[0]
    with qtbot.assertNotEmitted(w.touched):
        _mouse(w, QEvent.Type.MouseButtonPress, w.card_centre(card))
        _mouse(w, QEvent.Type.MouseButtonRelease, w.card_centre(w.floor.own.cards()[0]), Qt.MouseButton.NoButton)
    assert w.floor.opp.rows() == before


def test_a_full_row_refuses_another_card(floor_widget):
    w = floor_widget
    cards = list(range(1, COLUMNS + 1)) + [60]
    w.set_floor(Floor(own=Territory([(cards[:8], cards[8:16]), ([60], []), ([], [])])))
    from trainer.rules.territory import Place
    assert not w.move_card(60, Place(0, "left", 0))
    assert w.floor.own.locate(60).row == 1


def test_arrangements_round_trip_and_reuse_on_a_new_deal():
    side = Territory([([1, 2, 3], [4, 5]), ([6], [7, 8]), ([9, 10], [11])])
    save_arrangement("my layout", side)
    assert "my layout" in list_arrangements()
    assert load_arrangement("my layout") == side
    # A new deal shares 1..5 and brings 20..25: the shape stays, newcomers fill the slots.
    dealt = [1, 2, 3, 4, 5, 20, 21, 22, 23, 24, 25]
    reused = reuse_arrangement(side, dealt)
    assert sorted(reused.cards()) == sorted(dealt)
    assert reused.group(0, "left") == [1, 2, 3]
    assert [len(g) for row in reused.rows() for g in row] == [3, 2, 1, 2, 2, 1]


def test_a_damaged_arrangement_file_is_refused_clearly():
    from trainer.paths import sub_dir
    (sub_dir("arrangements") / "broken.json").write_text(json.dumps({"rows": [{"left": [1]}]}))
    with pytest.raises(ArrangementError):
        load_arrangement("broken")
    with pytest.raises(ArrangementError):
        save_arrangement("   ", Territory())
