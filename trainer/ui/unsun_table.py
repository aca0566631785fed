"""The Unsun karuta table (うんすんカルタ, 八人メリ): card faces and the eight seats, drawn for one seat.

A `trainer.ui.table_shell.TableView` that draws one `UnsunView` — what the
person's seat may see, nothing else (the engine's view already holds a
face-down card of another seat as ``None``, so the widget never learns it):

- card faces drawn here with QPainter: the five suits told apart by shape
  AND colour (seed 004's colours: パオ green baton, イス blue sword, コツ red
  cup, オリ gold coin, グル purple drum), the rank in the corner, the courts
  named (カバ レイ ロバイ ソウタ ウン スン, テンカ), trumps marked 切;
- the centre: a status card (deal, trick, phase Meiraf / Meri / Monchi, the
  trump, the Okié and who took it, hidden ロバイ, tricks per team), and below
  it the trick in play order, face-down cards as the shell's backs (the
  person's own face-down card face up with a 伏 seal); between tricks the
  trick just won, turned up, the winner's card outlined;
- each seat: its card count as backs and a team badge (A filled, B hollow);
- the hand: the person's cards, the ones they may play outlined, the others
  dimmed.

The item a click hits is a `Card` in the hand (the panel turns it into the
action, or says why not).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF

from trainer.rules.unsun import (COURT_KANA, MERI, RANKINGS, SUIT_KANA, TENKA, Card,
                                 UnsunView, team_of)
from trainer.ui.i18n import LANG, add_messages, tr
from trainer.ui.table_shell import MIN_TEXT_PX, TableView, paint_card_back, paint_outline, paint_seal
from trainer.text.unsun import COURT_ROMAJI, SUIT_ROMAJI, card_name

SUIT_COLOURS = {"pao": QColor("#237a36"), "isu": QColor("#1f55b5"), "kotsu": QColor("#c0392b"),
                "ori": QColor("#b07d0c"), "guru": QColor("#7b3a9a")}
"""Seed 004: パオ green, イス blue, コツ red, オリ gold, グル purple (dark enough to read on cream)."""
FACE = QColor("#fffaf0")
FACE_EDGE = QColor("#5a4a2a")
PLAYABLE = QColor("#1f8f4e")
LAST_WINNER = QColor("#d35400")
TEAM_COLOURS = (QColor("#2b2b2b"), QColor("#2b2b2b"))
TRUMP_MARK = QColor("#b03a2e")

add_messages({
    "unsun.ui.tenka": ("テンカ", "Tenka"),
    "unsun.ui.trump_tag": ("切", "T"),       # the trump mark on a card's corner
    "unsun.ui.deal": ("第{deal}局 / 8　第{trick}手 / 9", "Deal {deal} of 8 · trick {trick} of 9"),
    "unsun.ui.deal_short": ("第{deal}/8局・{trick}/9手", "Deal {deal}/8 · trick {trick}/9"),
    "unsun.ui.phase.meiraf": ("メイラフ", "Meiraf"),
    "unsun.ui.phase.meri": ("メリ！", "Meri!"),
    "unsun.ui.phase.monchi": ("モンチ", "Monchi"),
    "unsun.ui.phase.robai": ("ロバイ", "Robai"),
    "unsun.ui.phase.discard": ("捨て札", "Discard"),
    "unsun.ui.phase.deal": ("配り", "Dealing"),
    "unsun.ui.phase.over": ("終局", "Game over"),
    "unsun.ui.phase_hint.meiraf": ("自由に出す", "free play"),
    "unsun.ui.phase_hint.meri": ("切り札を持つ人は切り札", "who holds trump plays trump"),
    "unsun.ui.phase_hint.monchi": ("台札か切り札を出す", "follow suit or trump"),
    "unsun.ui.phase_hint.robai": ("ロバうか、隠すか", "take the Okié or hide it"),
    "unsun.ui.phase_hint.discard": ("オキエを取った人が1枚伏せる", "the Okié taker discards"),
    "unsun.ui.phase_hint.deal": ("次の局を配る", "the next deal is dealt"),
    "unsun.ui.phase_hint.over": ("8局すべて終わった", "all 8 deals played"),
    "unsun.ui.your_discard": ("あなたの捨て札", "Your discard"),
    "unsun.ui.time_left": ("残り {time}", "{time} left"),
    "unsun.ui.trump": ("切り札", "Trump"),
    "unsun.ui.okie": ("オキエ", "Okié"),
    "unsun.ui.okie_on_table": ("場にある", "on the table"),
    "unsun.ui.okie_taken": ("{seat}が取った", "taken by {seat}"),
    "unsun.ui.okie_card": ("オキエ {card}: {where}", "Okié {card}: {where}"),
    "unsun.ui.hidden_robai": ("隠しロバイ: 役は5点", "Hidden Robai: yaku 5 points"),
    "unsun.ui.tricks": ("この局の手 A {a} ・ B {b}", "Tricks A {a} · B {b}"),
    "unsun.ui.totals": ("合計 A {a} ・ B {b}", "Totals A {a} · B {b}"),
    "unsun.ui.last_trick": ("前の手: {seat}（{team}組）の勝ち", "Last trick: {seat} (team {team}) won"),
    "unsun.ui.this_trick": ("第{trick}手", "Trick {trick}"),
    "unsun.ui.no_game": ("「新しいゲーム」で始めます", "Press New game to start"),
    "unsun.ui.team": ("{team}組", "Team {team}"),
})


def suit_colour(suit: str) -> QColor:
    return SUIT_COLOURS[suit]


def rank_label(card: Card) -> str:
    """The corner of a card: 1–9, or the court's name (short in English)."""
    if card.rank < 10:
        return str(card.rank)
    if LANG.code == "ja":
        return COURT_KANA[card.rank]
    return COURT_ROMAJI[card.rank]


def court_name(card: Card) -> str:
    """The court named in the middle of the card: テンカ for パオのソウタ when it is trump-able."""
    if card == TENKA:
        return tr("unsun.ui.tenka")
    return COURT_KANA[card.rank] if LANG.code == "ja" else COURT_ROMAJI[card.rank]


# --------------------------------------------------------------------------- the suit marks

def paint_suit(p: QPainter, suit: str, rect: QRectF) -> None:
    """The suit's mark in *rect* (square-ish): a baton, a sword, a cup, a coin, a drum.
    Each is a different silhouette, so the suit reads without its colour."""
    colour = suit_colour(suit)
    s = min(rect.width(), rect.height())
    r = QRectF(rect.center().x() - s / 2, rect.center().y() - s / 2, s, s)
    p.save()
    p.setPen(QPen(colour.darker(140), max(1.0, s * 0.06)))
    p.setBrush(colour)
    {"pao": _baton, "isu": _sword, "kotsu": _cup, "ori": _coin, "guru": _drum}[suit](p, r, s)
    p.restore()


def _baton(p: QPainter, r: QRectF, s: float) -> None:
    """パオ (棍棒): an upright club, thick at the top, with a knob."""
    cx = r.center().x()
    body = QPolygonF([QPointF(cx - s * 0.09, r.bottom()), QPointF(cx + s * 0.09, r.bottom()),
                      QPointF(cx + s * 0.2, r.top() + s * 0.22), QPointF(cx - s * 0.2, r.top() + s * 0.22)])
    p.drawPolygon(body)
    p.drawEllipse(QRectF(cx - s * 0.2, r.top(), s * 0.4, s * 0.34))


def _sword(p: QPainter, r: QRectF, s: float) -> None:
    """イス (剣): a blade pointing up, a cross-guard and a hilt."""
    cx = r.center().x()
    blade = QPolygonF([QPointF(cx, r.top()), QPointF(cx + s * 0.11, r.top() + s * 0.16),
                       QPointF(cx + s * 0.11, r.top() + s * 0.68), QPointF(cx - s * 0.11, r.top() + s * 0.68),
                       QPointF(cx - s * 0.11, r.top() + s * 0.16)])
    p.drawPolygon(blade)
    p.drawRect(QRectF(cx - s * 0.32, r.top() + s * 0.68, s * 0.64, s * 0.1))
    p.drawRect(QRectF(cx - s * 0.06, r.top() + s * 0.78, s * 0.12, s * 0.22))


def _cup(p: QPainter, r: QRectF, s: float) -> None:
    """コツ (杯): a chalice — a wide bowl on a stem and a foot."""
    cx = r.center().x()
    bowl = QPainterPath()
    bowl.moveTo(r.left() + s * 0.1, r.top() + s * 0.08)
    bowl.lineTo(r.right() - s * 0.1, r.top() + s * 0.08)
    bowl.cubicTo(r.right() - s * 0.1, r.top() + s * 0.45, cx + s * 0.15, r.top() + s * 0.58,
                 cx, r.top() + s * 0.58)
    bowl.cubicTo(cx - s * 0.15, r.top() + s * 0.58, r.left() + s * 0.1, r.top() + s * 0.45,
                 r.left() + s * 0.1, r.top() + s * 0.08)
    p.drawPath(bowl)
    p.drawRect(QRectF(cx - s * 0.05, r.top() + s * 0.58, s * 0.1, s * 0.26))
    p.drawRoundedRect(QRectF(cx - s * 0.26, r.top() + s * 0.84, s * 0.52, s * 0.12), s * 0.04, s * 0.04)


def _coin(p: QPainter, r: QRectF, s: float) -> None:
    """オリ (貨): a round coin with a square hole."""
    ring = QPainterPath()
    ring.addEllipse(r.adjusted(s * 0.04, s * 0.04, -s * 0.04, -s * 0.04))
    hole = QPainterPath()
    h = s * 0.26
    hole.addRect(QRectF(r.center().x() - h / 2, r.center().y() - h / 2, h, h))
    p.drawPath(ring.subtracted(hole))


def _drum(p: QPainter, r: QRectF, s: float) -> None:
    """グル (太鼓): a drum seen from the side — a wide barrel with its lacing."""
    body = r.adjusted(s * 0.04, s * 0.2, -s * 0.04, -s * 0.2)
    p.drawRoundedRect(body, s * 0.12, s * 0.12)
    rim = s * 0.09       # the two heads' rims, darker, top and bottom
    p.setBrush(p.brush().color().darker(135))
    p.drawRect(QRectF(body.left(), body.top(), body.width(), rim))
    p.drawRect(QRectF(body.left(), body.bottom() - rim, body.width(), rim))
    p.save()
    p.setPen(QPen(FACE, max(1.0, s * 0.07)))
    n = 3
    step = body.width() / n
    for k in range(n):    # the lacing: a zigzag across the barrel
        x = body.left() + k * step
        p.drawLine(QPointF(x + step * 0.15, body.top() + s * 0.08), QPointF(x + step * 0.5, body.bottom() - s * 0.08))
        p.drawLine(QPointF(x + step * 0.5, body.bottom() - s * 0.08), QPointF(x + step * 0.85, body.top() + s * 0.08))
    p.restore()


# --------------------------------------------------------------------------- a card face

def paint_card(p: QPainter, rect: QRectF, card: Card, *, trump: str | None = None,
               dim: bool = False, outline: QColor | None = None, seal: str | None = None) -> None:
    """One card face up: rank and suit mark in the corner, pips or the court's name in the middle.

    *trump* (the deal's trump suit) adds the 切 mark to trumps (テンカ too);
    *dim* greys a card the person may not play; *outline* frames it; *seal*
    (伏) marks the person's own face-down card."""
    colour = suit_colour(card.suit)
    w, h = rect.width(), rect.height()
    p.save()
    radius = w * 0.07
    p.setPen(QPen(FACE_EDGE, 1.2))
    p.setBrush(FACE)
    p.drawRoundedRect(rect, radius, radius)
    p.setPen(QPen(colour, max(1.5, w * 0.04)))
    p.setBrush(Qt.BrushStyle.NoBrush)
    inset = w * 0.05
    p.drawRoundedRect(rect.adjusted(inset, inset, -inset, -inset), radius * 0.7, radius * 0.7)
    # corner: the rank and a small mark of the suit
    f = QFont()
    f.setBold(True)
    corner = rank_label(card) if card.rank < 10 else ""
    size = w * (0.3 if card.rank < 10 else 0.2)
    f.setPixelSize(max(MIN_TEXT_PX, int(size)))
    p.setFont(f)
    p.setPen(colour.darker(120))
    top = QRectF(rect.left() + w * 0.1, rect.top() + h * 0.05, w * 0.8, f.pixelSize() * 1.2)
    p.drawText(top, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, corner)
    is_trump = trump is not None and RANKINGS[trump].is_trump(card)
    if is_trump:     # 切 where the small suit mark was: the pips or the court's mark show the suit
        _paint_trump_mark(p, rect)
    else:
        mark = w * 0.22
        paint_suit(p, card.suit, QRectF(rect.right() - w * 0.1 - mark, rect.top() + h * 0.06, mark, mark))
    if card.rank < 10:
        _paint_pips(p, card, QRectF(rect.left() + w * 0.14, top.bottom() + h * 0.03,
                                    w * 0.72, rect.bottom() - top.bottom() - h * 0.12))
    else:
        _paint_court(p, card, QRectF(rect.left() + w * 0.1, top.bottom() + h * 0.02, w * 0.8,
                                     rect.bottom() - top.bottom() - h * 0.08))
    p.restore()
    if seal:      # top-left on a court (no rank there); bottom-left on a pip card, clear of its rank
        size = max(10.0, w * 0.34)
        seal_rect = rect if card.is_court else QRectF(rect.left(), rect.bottom() - size - 4, w, size + 4)
        paint_seal(p, seal_rect, seal, QColor("#5a4a2a"))
    if dim:
        p.save()
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(120, 120, 120, 130))
        p.drawRoundedRect(rect, radius, radius)
        p.restore()
    if outline is not None:
        paint_outline(p, rect.adjusted(-2, -2, 2, 2), outline)


def _paint_pips(p: QPainter, card: Card, area: QRectF) -> None:
    """1–9 suit marks in a grid (one, two, three in a column; then two columns; then three)."""
    n = card.rank
    cols = 1 if n <= 3 else (2 if n <= 6 else 3)
    rows = math.ceil(n / cols)
    cell = min(area.width() / cols, area.height() / max(rows, 1))
    mark = cell * 0.82
    used_w, used_h = cols * cell, rows * cell
    left = area.left() + (area.width() - used_w) / 2
    top = area.top() + (area.height() - used_h) / 2
    for k in range(n):
        row, col = divmod(k, cols)
        in_row = min(cols, n - row * cols)            # centre a short last row
        x = left + (cols - in_row) * cell / 2 + col * cell
        y = top + row * cell
        paint_suit(p, card.suit, QRectF(x + (cell - mark) / 2, y + (cell - mark) / 2, mark, mark))


def _paint_court(p: QPainter, card: Card, area: QRectF) -> None:
    """A court: a large suit mark and the court's name below it."""
    name = court_name(card)
    f = QFont()
    f.setBold(True)
    f.setPixelSize(max(MIN_TEXT_PX, int(area.width() * 0.28)))
    fit = area.width() + 8       # the 切 mark is in the top corner: the name has the card's width
    while f.pixelSize() > MIN_TEXT_PX and QFontMetricsF(f).horizontalAdvance(name) > fit:
        f.setPixelSize(f.pixelSize() - 1)
    text_h = f.pixelSize() * 1.3
    mark = min(area.width() * 0.8, area.height() - text_h)
    paint_suit(p, card.suit, QRectF(area.center().x() - mark / 2, area.top() + (area.height() - text_h - mark) / 2,
                                    mark, mark))
    p.setFont(f)
    p.setPen(QColor("#222"))
    p.drawText(QRectF(area.left() - 4, area.bottom() - text_h, area.width() + 8, text_h),
               Qt.AlignmentFlag.AlignCenter, name)


def _paint_trump_mark(p: QPainter, rect: QRectF) -> None:
    """切 in the top-right corner of a trump, at readable type on the smallest card."""
    s = max(MIN_TEXT_PX / 0.72, rect.width() * 0.2)
    tag = QRectF(rect.right() - s - 2, rect.top() + 2, s, s)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(TRUMP_MARK)
    p.drawRoundedRect(tag, s * 0.2, s * 0.2)
    f = QFont()
    f.setPixelSize(max(MIN_TEXT_PX, round(s * 0.72)))
    f.setBold(True)
    p.setFont(f)
    p.setPen(QColor("white"))
    p.drawText(tag, Qt.AlignmentFlag.AlignCenter, tr("unsun.ui.trump_tag"))


STATUS_MIN_PX = 9
STATUS_PITCH = 1.3                 # a line's height: 1.3 × its pixel size, so 9-px lines never overlap


class _Line:
    """One line of the status card: its words, its size before fitting, bold, colour, and
    whether the trump's suit mark goes before it."""

    def __init__(self, words: str, size: int, bold: bool = False, colour: QColor | None = None,
                 suit: str | None = None):
        self.words, self.size, self.bold, self.colour, self.suit = words, size, bold, colour, suit

    def width(self, px: int) -> float:
        f = QFont()
        f.setBold(self.bold)
        f.setPixelSize(px)
        return QFontMetricsF(f).horizontalAdvance(self.words) + (px * 1.1 + 4 if self.suit else 0)


def _fit_lines(lines: list[_Line], height: float) -> list[int] | None:
    """Each line's pixel size so the lines fit `height` one under the other, scaled down to 9 px
    at least; None when even 9-px lines do not fit."""
    scale = min(1.0, height / sum(line.size * STATUS_PITCH for line in lines))
    sizes = [max(STATUS_MIN_PX, int(line.size * scale)) for line in lines]
    return sizes if sum(px * STATUS_PITCH for px in sizes) <= height + 0.5 else None


def _rows_in(rows: list[list[_Line]], width: float, gap: float) -> list[list[_Line]]:
    """The compact card's rows, a pair split onto two rows where both do not fit `width` at 9 px."""
    out: list[list[_Line]] = []
    for row in rows:
        if len(row) > 1 and sum(line.width(STATUS_MIN_PX) for line in row) + gap * (len(row) - 1) > width:
            out.extend([line] for line in row)
        else:
            out.append(row)
    return out


def paint_team_badge(p: QPainter, rect: QRectF, team: int) -> None:
    """Team A: a filled dark disc with A; team B: a hollow disc with B (no colour needed)."""
    p.save()
    p.setPen(QPen(TEAM_COLOURS[team], 2))
    p.setBrush(TEAM_COLOURS[team] if team == 0 else QColor("white"))
    p.drawEllipse(rect)
    f = QFont()
    f.setBold(True)
    f.setPixelSize(max(9, int(rect.height() * 0.62)))     # a letter under 9 px is a smudge
    p.setFont(f)
    p.setPen(QColor("white") if team == 0 else TEAM_COLOURS[team])
    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, "AB"[team])
    p.restore()


# --------------------------------------------------------------------------- the table

class UnsunTable(TableView):
    """Eight seats round the felt, drawn from the person's `UnsunView` (see the module docstring)."""

    def __init__(self, clock=None, parent=None):
        kw = {"clock": clock} if clock is not None else {}
        super().__init__(hand_height=140, parent=parent, **kw)
        self.view: UnsunView | None = None
        self.playable: frozenset[Card] = frozenset()   # the cards the person may play now
        self.seat_name: Callable[[int], str] = lambda s: f"{s}"
        self.turn_seconds: float | None = None           # the turn timer's length, for the time left
        self._hand: list[tuple[QRectF, Card]] = []
        self._seats: list[QRectF] = []
        self._status = QRectF()
        self._trick = QRectF()
        self.trick_slots: list[tuple[QRectF, int, bool]] = []   # as last drawn: rect, seat, drawn as a back

    # -- state ---------------------------------------------------------------------------------
    def show_view(self, view: UnsunView | None, playable: Sequence[Card] = ()) -> None:
        """Draw *view* (the person's), outlining *playable* in the hand."""
        self.view = view
        self.playable = frozenset(playable)
        self.refresh()

    def hand_cards(self) -> list[Card]:
        return [c for _, c in self._hand]

    def hand_rects(self) -> list[tuple[QRectF, Card]]:
        return list(self._hand)

    # -- layout --------------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:
        self.hand_height = max(96.0, min(150.0, self.height() * 0.16))
        super().resizeEvent(event)

    def place(self, seats, centre, hand) -> None:
        self._seats = seats
        self._status, self._trick = self._centre_areas()
        self._hand = []
        if self.view is None:
            return
        cards = list(self.view.hand)
        h = hand.height() - 16
        w = min(h * 0.66, (hand.width() - 20) / max(len(cards), 1) - 6)
        h = min(h, w / 0.66)
        total = len(cards) * (w + 6) - 6
        left = hand.center().x() - total / 2
        top = hand.center().y() - h / 2
        self._hand = [(QRectF(left + k * (w + 6), top, w, h), c) for k, c in enumerate(cards)]

    def _centre_areas(self) -> tuple[QRectF, QRectF]:
        """The free middle of the ring: a status card above the trick row, both clear of the boxes."""
        boxes = self.seat_rects()
        if not boxes:
            return QRectF(), QRectF()
        cx = sum(b.center().x() for b in boxes) / len(boxes)
        cy = sum(b.center().y() for b in boxes) / len(boxes)
        gap = 8.0
        # the horizontal band: between the side boxes, below/above the nearest boxes over/under the middle
        left = max((b.right() for b in boxes if b.top() < cy < b.bottom() and b.center().x() < cx), default=0.0)
        right = min((b.left() for b in boxes if b.top() < cy < b.bottom() and b.center().x() > cx),
                    default=float(self.width()))
        top = max((b.bottom() for b in boxes if b.bottom() < cy), default=0.0)
        bottom = min((b.top() for b in boxes if b.top() > cy), default=float(self.height()))
        band = QRectF(left + gap, top + gap, right - left - 2 * gap, bottom - top - 2 * gap)
        # the vertical band: between the inner boxes, from the top box to the bottom box
        vl = max((b.right() for b in boxes if b.right() < cx), default=0.0)
        vr = min((b.left() for b in boxes if b.left() > cx), default=float(self.width()))
        vt = max((b.bottom() for b in boxes if b.left() < cx < b.right() and b.center().y() < cy), default=0.0)
        trick_h = min(band.height() * 0.72, band.width() / 8 * 1.9)
        trick = QRectF(band.left(), band.bottom() - trick_h, band.width(), trick_h)
        status = QRectF(vl + gap, vt + gap, vr - vl - 2 * gap, trick.top() - vt - 2 * gap)
        return status, trick

    # -- drawing -------------------------------------------------------------------------------
    def paint_seat(self, p: QPainter, seat: int, rect: QRectF) -> None:
        badge = min(26.0, max(15.0, rect.height() * 0.3))      # its letter stays 9 px or more
        paint_team_badge(p, QRectF(rect.right() - badge, rect.top(), badge, badge), team_of(seat))
        room = rect.adjusted(0, 0, -badge - 6, 0)
        if self.view is None or self.view.deal < 0:
            return
        if seat == self.me:
            self._paint_own_seat(p, room)
            return
        n = self.view.hand_sizes[seat]
        ch = min(room.height() - 4, 90.0)
        cw = ch * 0.66
        step = min(cw * 0.45, (room.width() - cw) / max(n - 1, 1))
        for k in range(n):       # another seat's cards: only their number, as backs
            paint_card_back(p, QRectF(room.left() + k * step, room.top() + 2, cw, ch))

    def _paint_own_seat(self, p: QPainter, room: QRectF) -> None:
        """The person's own box: their discard (only they know it) and the time left on their turn."""
        v = self.view
        assert v is not None
        ch = min(room.height() - 4, 90.0)
        p.save()
        p.setPen(QColor("#444"))
        x = room.left()
        if v.discard is not None:
            card = QRectF(x, room.top() + 2, ch * 0.66, ch)
            paint_card(p, card, v.discard, trump=v.trump, seal="伏")
            _text(p, QRectF(card.right() + 6, room.top(), room.width() / 2, 18), tr("unsun.ui.your_discard"), 12)
            x = card.right() + 6
        if self.timer_fraction is not None and self.turn_seconds:
            left = max(0, round(self.timer_fraction * self.turn_seconds))
            p.setPen(QColor("#c0392b") if self.timer_fraction < 0.25 else QColor("#1f5fbf"))
            _text(p, QRectF(x, room.top() + 22, room.right() - x, 22),
                  tr("unsun.ui.time_left", time=f"{left // 60}:{left % 60:02d}"), 16, bold=True)
        p.restore()

    def paint_centre(self, p: QPainter, rect: QRectF) -> None:
        if self._status.isEmpty():
            return
        self._paint_status(p, self._status)
        if self.view is not None:
            self._paint_trick(p, self._trick)

    def _paint_status(self, p: QPainter, r: QRectF) -> None:
        """The deal, the phase and its hint, the trump, where the Okié is, the tricks and totals:
        one under the other beside the Okié's picture where there is room; otherwise (1024×700)
        every line still shows, at 9 px, the Okié named in words and short lines paired."""
        p.save()
        p.setPen(QPen(QColor("#cfc4a8"), 1))
        p.setBrush(QColor(255, 252, 242, 230))
        p.drawRoundedRect(r, 8, 8)
        v = self.view
        if v is None:
            _text(p, r, tr("unsun.ui.no_game"), 16, align=Qt.AlignmentFlag.AlignCenter)
            p.restore()
            return
        pad = 8.0
        inner = r.adjusted(pad, pad, -pad, -pad)
        # the Okié on the left, face up (it is public wherever it goes)
        okie_h = min(inner.height(), 110.0, inner.width() * 0.3 / 0.66)
        okie = QRectF(inner.left(), inner.top() + (inner.height() - okie_h) / 2, okie_h * 0.66, okie_h)
        text = QRectF(okie.right() + pad, inner.top(), inner.right() - okie.right() - pad, inner.height())
        lines = self._status_lines(v, compact=False)
        sizes = _fit_lines(lines, text.height())
        if sizes is not None:
            if v.okie is not None:
                paint_card(p, okie, v.okie, trump=v.trump, dim=v.okie_holder is not None)
            self._paint_rows(p, text, [([line], px) for line, px in zip(lines, sizes)])
        else:
            text = r.adjusted(5, 5, -5, -5)
            deal, phase, hint, *rest = self._status_lines(v, compact=True)
            trump = [rest.pop(0)] if v.trump is not None else []
            okie_line, *robai, tricks, totals = rest
            rows = _rows_in([[deal, *trump], [phase, hint], [okie_line], *([x] for x in robai), [tricks, totals]],
                            text.width(), 12)
            self._paint_rows(p, text, [(row, STATUS_MIN_PX) for row in rows])
        p.restore()

    def _status_lines(self, v: UnsunView, compact: bool) -> list[_Line]:
        red = QColor("#8e2c1b")
        deal = tr("unsun.ui.deal_short" if compact else "unsun.ui.deal", deal=v.deal + 1, trick=min(v.trick_no + 1, 9))
        lines = [_Line(deal, 13),
                 _Line(tr(f"unsun.ui.phase.{v.phase}"), 18, True, red if v.phase == MERI else None),
                 _Line(tr(f"unsun.ui.phase_hint.{v.phase}"), 12)]
        if v.trump is not None:
            lines.append(_Line(f"{tr('unsun.ui.trump')}: {_suit_word(v.trump)}", 17, True,
                               suit_colour(v.trump), suit=v.trump))
        where = (tr("unsun.ui.okie_on_table") if v.okie_holder is None
                 else tr("unsun.ui.okie_taken", seat=self.seat_name(v.okie_holder)))
        if compact and v.okie is not None:       # no picture: the card in words
            lines.append(_Line(tr("unsun.ui.okie_card", card=card_name(v.okie), where=where), 13))
        else:
            lines.append(_Line(f"{tr('unsun.ui.okie')}: {where}", 13))
        if v.hidden_robai:
            lines.append(_Line(tr("unsun.ui.hidden_robai"), 13, True, red))
        lines.append(_Line(tr("unsun.ui.tricks", a=v.tricks[0], b=v.tricks[1]), 13))
        lines.append(_Line(tr("unsun.ui.totals", a=v.totals[0], b=v.totals[1]), 13))
        return lines

    def _paint_rows(self, p: QPainter, r: QRectF, rows: list[tuple[list[_Line], int]]) -> None:
        """Rows of lines centred in `r` vertically; a row's second line starts in a column shared
        by the paired rows where they all fit it, else just after its first."""
        pairs = [row for row, px in rows if len(row) > 1]
        column = max((row[0].width(px) for row, px in rows if len(row) > 1), default=0.0) + 12
        if any(column + row[1].width(px) > r.width() for row, px in rows if len(row) > 1):
            column = 0.0
        y = r.top() + max(0.0, (r.height() - sum(px * STATUS_PITCH for _, px in rows)) / 2)
        for row, px in rows:
            x = r.left()
            for k, line in enumerate(row):
                if k and pairs:
                    x = max(x, r.left() + column)
                cell = QRectF(x, y, r.right() - x, px * STATUS_PITCH)
                if line.suit is not None:           # the trump line: the suit's mark before its name
                    mark = px * 1.1
                    paint_suit(p, line.suit, QRectF(cell.left(), cell.center().y() - mark / 2, mark, mark))
                    cell = cell.adjusted(mark + 4, 0, 0, 0)
                p.setPen(line.colour or QColor("#222"))
                _text(p, cell, line.words, px, bold=line.bold)
                x += line.width(px) + 12
            y += px * STATUS_PITCH                  # spaced as drawn: 9-px lines never overlap

    def _paint_trick(self, p: QPainter, r: QRectF) -> None:
        """The trick in play order; between tricks, the one just won (all turned up)."""
        v = self.view
        assert v is not None
        label_h = max(12.0, min(16.0, r.height() * 0.14))
        slot_w = r.width() / 8
        ch = min(r.height() - label_h * 2 - 4, (slot_w - 8) / 0.66)
        cw = ch * 0.66
        if v.trick or not v.history:
            plays = [(c.seat, c.card, c.face_down) for c in v.trick]
            title = tr("unsun.ui.this_trick", trick=v.trick_no + 1)
            leader = v.leader if v.leader is not None else (plays[0][0] if plays else None)
            winner = None
        else:
            plays = [(s, c, False) for s, c in v.history[-1]]   # turned up: every card is known now
            winner = v.winners[-1]
            title = tr("unsun.ui.last_trick", seat=self.seat_name(winner), team="AB"[team_of(winner)])
            leader = plays[0][0]
        p.save()
        p.setPen(QColor("#5a4a2a"))
        _text(p, QRectF(r.left(), r.top(), r.width(), label_h), title, int(label_h * 0.85), bold=True,
              align=Qt.AlignmentFlag.AlignCenter)
        order = [(leader + k) % 8 for k in range(8)] if leader is not None else list(range(8))
        by_seat = {s: (c, down) for s, c, down in plays}
        self.trick_slots = []
        top = r.top() + label_h + 2
        for k, seat in enumerate(order):
            slot = QRectF(r.left() + k * slot_w + (slot_w - cw) / 2, top, cw, ch)
            if seat in by_seat:
                card, face_down = by_seat[seat]
                self.trick_slots.append((slot, seat, card is None))
                if card is None:
                    paint_card_back(p, slot)            # another seat's face-down trump
                else:
                    paint_card(p, slot, card, trump=v.trump, seal="伏" if face_down else None,
                               outline=LAST_WINNER if seat == winner else None)
            else:
                p.setPen(QPen(QColor("#b9ab88"), 1, Qt.PenStyle.DashLine))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(slot, 5, 5)
            p.setPen(QColor("#222") if seat != self.me else QColor("#8e2c1b"))
            _text(p, QRectF(r.left() + k * slot_w, slot.bottom() + 2, slot_w, label_h),
                  f"{self.seat_name(seat)} {'AB'[team_of(seat)]}", int(label_h * 0.8),
                  bold=seat == self.me, align=Qt.AlignmentFlag.AlignCenter)
        p.restore()

    def paint_hand(self, p: QPainter, rect: QRectF) -> None:
        if self.view is None:
            return
        for r, card in self._hand:
            ok = card in self.playable
            lift = -6 if ok else 0
            paint_card(p, r.translated(0, lift), card, trump=self.view.trump,
                       dim=bool(self.playable) and not ok, outline=PLAYABLE if ok else None)

    def item_at(self, pos: QPointF):
        for r, card in reversed(self._hand):
            if r.adjusted(0, -6, 0, 0).contains(pos):
                return (self.me, card)
        return None


def _suit_word(suit: str) -> str:
    return SUIT_KANA[suit] if LANG.code == "ja" else SUIT_ROMAJI[suit]


def _text(p: QPainter, rect: QRectF, text: str, px: int, bold: bool = False,
          align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter) -> None:
    """One line, smaller type if it does not fit, elided if still too long."""
    f = QFont()
    f.setBold(bold)
    f.setPixelSize(max(8, px))
    while f.pixelSize() > 9 and QFontMetricsF(f).horizontalAdvance(text) > rect.width():
        f.setPixelSize(f.pixelSize() - 1)
    p.setFont(f)
    text = QFontMetricsF(f).elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    p.drawText(rect, align, text)


__all__ = ["UnsunTable", "paint_card", "paint_suit", "paint_team_badge", "SUIT_COLOURS"]
