"""The shared card-table shell: seats round the table, clicks, the turn timer, the score
sheet, the log, and a small game written the way the module docstring shows."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QPointF, QRectF, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from trainer.games.protocol import GameEvent  # noqa: E402
from trainer.games.turn_session import TurnSession  # noqa: E402
from trainer.ui.table_shell import (BACK, BOX_ACTIVE, ROWS, LogPanel, ScoreSheet, TableShell,  # noqa: E402
                                    TableView, TurnTable, paint_card_back, seat_boxes)

AREA = QRectF(0, 0, 1000, 700)


@pytest.mark.parametrize("n", range(2, 9))
def test_the_persons_seat_is_at_the_bottom_and_play_goes_round_to_its_right(n):
    for me in range(n):
        boxes = seat_boxes(n, AREA, me)
        assert len(boxes) == n
        bottom = max(boxes, key=lambda b: b.center().y())
        assert boxes[me] == bottom and abs(bottom.center().x() - AREA.center().x()) < 1
        if n > 2:
            assert boxes[(me + 1) % n].center().x() > AREA.center().x()    # next in play: the right
            assert boxes[(me - 1) % n].center().x() < AREA.center().x()    # previous: the left
        assert all(AREA.contains(b) for b in boxes)
        for i in range(n):                                               # no two boxes overlap
            for j in range(i + 1, n):
                assert not boxes[i].intersects(boxes[j]), (n, me, i, j)


def test_a_table_seats_two_to_eight():
    for n in (1, 9):
        with pytest.raises(ValueError, match="2 to 8"):
            seat_boxes(n, AREA)
    rows = seat_boxes(5, AREA, arrangement=ROWS)
    assert [b.top() for b in rows].count(rows[0].top()) == 3                # 3 over 2


class Demo(TableView):
    """The module docstring's example game: backs for other seats, the hand to click."""

    def __init__(self, clock):
        super().__init__(hand_height=120, clock=clock)
        self.counts = [3, 4, 5, 2]
        self.hand = [17, 22, 61]
        self._hand: list[tuple[QRectF, int]] = []
        self.centre_painted = False

    def place(self, seats, centre, hand):
        w = min(70.0, hand.width() / max(len(self.hand), 1))
        self._hand = [(QRectF(hand.left() + k * w, hand.top() + 6, w - 6, hand.height() - 12), no)
                      for k, no in enumerate(self.hand)]

    def paint_seat(self, p, seat, rect):
        if seat != self.me:
            for k in range(self.counts[seat]):
                paint_card_back(p, QRectF(rect.left() + k * 12, rect.top(), 40, 60))

    def paint_centre(self, p, rect):
        self.centre_painted = True

    def paint_hand(self, p, rect):
        for r, no in self._hand:
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, str(no))

    def item_at(self, pos):
        return next(((self.me, no) for r, no in self._hand if r.contains(pos)), None)


def test_a_small_game_in_the_shell(qtbot):
    clock = FakeClock(50.0)
    table = Demo(clock)
    shell = TableShell(table, clock=clock)
    qtbot.addWidget(shell)
    shell.resize(1400, 900)
    shell.show()
    table.set_seats(["You", "CPU 1", "CPU 2", "CPU 3"], ["3 cards", "", "", ""], me=0)
    table.active_seat = 2
    image = table.grab().toImage()
    assert table.centre_painted and not table.centre_rect().isEmpty()
    hand = table.hand_rect()
    assert hand.bottom() > max(b.bottom() for b in table.seat_rects())       # the hand strip is lowest
    # hidden cards are the shell's back; the active seat's box is highlighted
    top = table.seat_rects()[2]
    inner = top.adjusted(8, 40, -8, -6)
    assert QColor(image.pixel(int(inner.left() + 20), int(inner.top() + 30))) == BACK
    assert QColor(image.pixel(int(top.right() - 10), int(top.bottom() - 10))) == BOX_ACTIVE
    got = []
    table.clicked.connect(lambda seat, item, at: got.append((seat, item, at)))
    r, no = table._hand[1]
    qtbot.mouseClick(table, Qt.MouseButton.LeftButton, pos=r.center().toPoint())
    assert got == [(0, 22, 50.0)]                                            # stamped on the clock
    qtbot.mouseClick(table, Qt.MouseButton.LeftButton, pos=QPointF(3, 3).toPoint())
    assert len(got) == 1                                                     # nothing hit: nothing said


def test_the_table_draws_the_timer_bar_in_the_active_seat(qtbot):
    clock = FakeClock()
    table = Demo(clock)
    shell = TableShell(table, clock=clock)
    qtbot.addWidget(shell)
    table.set_seats(["a", "b", "c", "d"], me=0)
    table.active_seat, table.timer_fraction = 1, 0.75
    assert not shell.grab().isNull()


def test_score_sheet_rows_per_deal_columns_per_seat_and_totals(qtbot):
    sheet = ScoreSheet()
    qtbot.addWidget(sheet)
    sheet.set_columns(["East", "South", "West"])
    sheet.add_row("Deal 1", [5, -2, -3])
    sheet.add_row("Deal 2", [-1, 4, -3])
    assert sheet.rowCount() == 3 and sheet.totals() == [4, 2, -6]
    assert [sheet.item(2, c).text() for c in range(3)] == ["+4", "+2", "-6"]
    assert sheet.verticalHeaderItem(1).text() == "Deal 2"
    with pytest.raises(ValueError, match="3 columns"):
        sheet.add_row("Deal 3", [1, 2])


def test_log_panel_adds_lines_and_skips_events_without_one(qtbot):
    log = LogPanel()
    qtbot.addWidget(log)
    log.add_lines(["read #12", None, "Seat 2 flipped #12"])
    assert [log.item(k).text() for k in range(log.count())] == ["read #12", "Seat 2 flipped #12"]


# =========================================================================== a turn game wired up

@dataclass(frozen=True)
class Took(GameEvent):
    kind: ClassVar[str] = "toy.took"
    seat: int
    n: int


class TakeAway:
    """A toy turn game (a `GameState`): a pile of cards, each turn a seat takes 1 or 2,
    who takes the last wins."""

    def __init__(self, players, pile):
        self.players, self.pile, self.turn = players, pile, 0

    def actors(self):
        return () if self.pile == 0 else (self.turn,)

    def legal_actions(self, seat):
        return [n for n in (1, 2) if n <= self.pile] if seat in self.actors() else []

    def apply(self, n):
        seat = self.turn
        self.pile -= n
        self.turn = (seat + 1) % self.players
        return [Took(seat, n)]

    def is_over(self):
        return self.pile == 0

    def outcome(self):
        return None

    def view(self, seat):
        return self.pile

    def clone(self):
        return self

    def check_invariants(self):
        assert self.pile >= 0


class TakeOne:
    def choose(self, view, legal):
        return 1


class PileTable(TableView):
    """Two buttons in the hand strip: take 1, take 2."""

    def __init__(self):
        super().__init__(hand_height=80)
        self.buttons: list[tuple[QRectF, int]] = []

    def place(self, seats, centre, hand):
        self.buttons = [(QRectF(hand.left() + 10 + k * 90, hand.top() + 10, 80, 60), k + 1) for k in range(2)]

    def item_at(self, pos):
        return next(((self.me, n) for r, n in self.buttons if r.contains(pos)), None)


def test_turn_table_plays_cpus_takes_clicks_logs_and_times_out(qtbot):
    clock = FakeClock()
    session = TurnSession(TakeAway(3, pile=7), ("human", "cpu", "cpu"), {1: TakeOne(), 2: TakeOne()},
                          clock=clock, turn_seconds=30, stand_in=lambda seat: TakeOne())
    table = PileTable()
    shell = TableShell(table, clock=clock)
    qtbot.addWidget(shell)
    shell.resize(900, 600)
    shell.show()
    table.set_seats(["You", "CPU 1", "CPU 2"], me=0)
    words = lambda e: f"seat {e.seat + 1} took {e.n}" if e.kind == "toy.took" else None  # noqa: E731
    game = TurnTable(shell, session, me=0, action_for=lambda seat, n, legal: n if n in legal else None,
                     words=words, cpu_delay_s=0)
    refused, done = [], []
    game.refused.connect(refused.append)
    game.finished.connect(lambda: done.append(True))
    game.start()
    assert table.active_seat == 0 and table.timer_fraction == 1.0           # the person's turn, timed
    qtbot.mouseClick(table, Qt.MouseButton.LeftButton, pos=table.buttons[1][0].center().toPoint())
    qtbot.waitUntil(lambda: session.state.turn == 0, timeout=2000)          # both CPUs took 1
    assert [shell.log.item(k).text() for k in range(shell.log.count())] == \
        ["seat 1 took 2", "seat 2 took 1", "seat 3 took 1"]
    clock.advance(30)
    game._tick()                                                              # the timer ran out: take 1
    qtbot.waitUntil(lambda: bool(done), timeout=2000)
    assert session.is_over() and shell.log.item(3).text() == "seat 1 took 1" and not refused
