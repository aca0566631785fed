"""Card faces drawn by the app (QPainter only, no images): mekurifuda (めくり札) and hanafuda (花札).

Mekurifuda (`trainer.rules.decks.MekuriCard`, the reference page's suits
Clubs / Swords / Cups / Coins, ranks Dragon, 2–9, Maid, Horse, King), in
three styles for Yomi (its seed: "you may use western playing cards ... You
may also use hanafuda"):

- ``mekuri``: the suit's emblem drawn as pips (a baton, a blade, a cup, a
  coin) in the suit's colour (Clubs are "Ao", blue; Swords "Aka", red), the
  number large in the corner; the Dragon, the Maid, the Horse and the King as
  drawn figures on a coloured court panel; the Onifuda a red demon card, the
  Shirofuda blank;
- ``western``: a white card with the western suit symbol (Swords are spades,
  Cups hearts, Coins diamonds, Clubs clubs) and A, 2–10, J, K; Joker for the wild card;
- ``hana``: the hanafuda card of the same month (standard month sequence,
  `decks.hanafuda_month_of_rank`), suits as the month's four cards.

Hanafuda (cards are the reference pages' numbers, month × 10 + k): each
month's colour and a simple motif of its plant, a month chip in the corner,
the card's kind readable at a glance (a gold disc for a Bright, a ribbon band
for a Ribbon, a badge for an Animal, nothing for a chaff) with its points, and
the special cards named (Crane, Rain Man, Lightning ...).

Faces are drawn once per card, size and language into a pixmap cache, like the
shell's card back. ``faces_painted`` (a set the caller may pass) records what
was drawn face-up, so tests can check no hidden card reaches the screen.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

from trainer.rules import decks
from trainer.rules.decks import ANIMAL, BRIGHT, RIBBON, MekuriCard
from trainer.ui.i18n import LANG
from trainer.ui.table_shell import MIN_TEXT_PX, paint_outline

ASPECT = 0.62
"""Width / height of a card (hanafuda are 35 × 56 mm, mekurifuda a little narrower)."""
MEKURI, WESTERN, HANA = "mekuri", "western", "hana"
FACE_STYLES = (MEKURI, WESTERN, HANA)

PAPER = QColor("#fbf6ea")
EDGE = QColor("#6d5d42")
INK = QColor("#1c1a17")
GOLD = QColor("#d4a017")
SUIT_COLOUR = {"clubs": QColor("#1f4e8c"), "swords": QColor("#b0302a"),
               "cups": QColor("#7a3f8f"), "coins": QColor("#b8860b")}
"""Clubs "Ao" (blue), Swords "Aka" (red) as the reference page nicknames them; cups, coins ours."""
WESTERN_SYMBOL = {"clubs": "♣", "swords": "♠", "cups": "♥", "coins": "♦"}
WESTERN_RED = QColor("#c0392b")
RANK_MARK = {1: "1", 10: "10", 11: "11", 12: "12"}
COURT_JA = {1: "ピン", 10: "ソウタ", 11: "ウマ", 12: "キリ"}
COURT_EN = {1: "Dragon", 10: "Maid", 11: "Horse", 12: "King"}
WESTERN_RANK = {1: "A", 11: "J", 12: "K"}

MONTH_COLOUR = (
    QColor("#2f6b3a"), QColor("#c2185b"), QColor("#e57fa1"), QColor("#7b4fa0"),
    QColor("#3f51b5"), QColor("#c62828"), QColor("#a0522d"), QColor("#5d5d5d"),
    QColor("#d8a31a"), QColor("#d2571c"), QColor("#4e7d3a"), QColor("#6d4c7d"),
)
"""Pine green, plum crimson, cherry pink, wisteria purple, iris blue, peony red, bush clover
russet, susuki grey (the black hill), chrysanthemum yellow, maple orange, willow green,
paulownia purple."""

SPECIAL_EN = {10: "Crane", 20: "Warbler", 30: "Curtain", 40: "Cuckoo", 50: "Bridge",
              60: "Butterflies", 70: "Boar", 80: "Moon", 81: "Geese", 90: "Sake cup", 100: "Deer",
              110: "Rain Man", 111: "Swallow", 113: "Lightning", 120: "Phoenix"}
SPECIAL_JA = {10: "鶴", 20: "鶯", 30: "幕", 40: "不如帰", 50: "八橋", 60: "蝶", 70: "猪", 80: "月",
              81: "雁", 90: "盃", 100: "鹿", 110: "雨", 111: "燕", 113: "雷", 120: "鳳凰"}
POETRY_RIBBONS = {11, 21, 31}
BLUE_RIBBONS = {61, 91, 101}

_CACHE: dict[tuple, QPixmap] = {}


# --------------------------------------------------------------------------- the entry points

def paint_mekuri(p: QPainter, rect: QRectF, card: MekuriCard, style: str = MEKURI, *,
                 wild: bool = False, highlight: QColor | None = None, dimmed: bool = False,
                 faces_painted: set | None = None) -> None:
    """One mekurifuda card face-up in *rect*; *wild* marks the game's wild card."""
    if style == HANA and card.rank:
        paint_hana(p, rect, mekuri_as_hana(card), highlight=highlight, dimmed=dimmed)
        if wild:
            _wild_star(p, rect)
    else:
        draw = _western if style == WESTERN else _mekuri
        _blit(p, rect, ("m", style, card, wild, LANG.code), lambda q, r: draw(q, r, card, wild), dimmed)
        if highlight is not None:
            paint_outline(p, rect, highlight)
    if faces_painted is not None:
        faces_painted.add(card)


def paint_hana(p: QPainter, rect: QRectF, card: int, *, highlight: QColor | None = None,
               dimmed: bool = False, faces_painted: set | None = None) -> None:
    """One hanafuda card face-up in *rect*."""
    _blit(p, rect, ("h", card, LANG.code), lambda q, r: _hana(q, r, card), dimmed)
    if highlight is not None:
        paint_outline(p, rect, highlight)
    if faces_painted is not None:
        faces_painted.add(card)


MINI_ASPECT = 0.62
"""Width over height of a captured card drawn small (`paint_hana_mini`)."""


def paint_hana_mini(p: QPainter, rect: QRectF, card: int, faces_painted: set | None = None) -> None:
    """A captured hanafuda card too small for its picture: its month's colour, its month number
    at readable size and its kind's mark below (the gold disc of a Bright, the dark badge of an
    Animal, the red or blue slip of a Ribbon; nothing on a Chaff) — month and kind say which card
    it is."""
    m = decks.month(card)
    colour = MONTH_COLOUR[m - 1]
    kind = decks.kind(card)
    w, h = rect.width(), rect.height()
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QPen(colour.darker(150), 1))
    p.setBrush(colour)
    p.drawRoundedRect(rect, w * 0.18, w * 0.18)
    number = QRectF(rect.left(), rect.top() + 1, w, h * 0.5)
    f = _font(max(MIN_TEXT_PX, min(w * 0.62, h * 0.42)), bold=True)
    p.setFont(f)
    p.setPen(QColor("white"))
    p.drawText(number, Qt.AlignmentFlag.AlignCenter, str(m))
    mark = QRectF(rect.left() + w * 0.2, rect.top() + h * 0.56, w * 0.6, h * 0.34)
    if kind == BRIGHT:
        p.setPen(QPen(QColor("#b3261e"), 1.2))
        p.setBrush(GOLD)
        d = min(mark.width(), mark.height())
        p.drawEllipse(QRectF(mark.center().x() - d / 2, mark.center().y() - d / 2, d, d))
    elif kind == ANIMAL:
        p.setPen(QPen(QColor("white"), 1))
        p.setBrush(QColor("#3b2f2f"))
        p.drawRoundedRect(mark, 2, 2)
    elif kind == RIBBON:
        p.setPen(QPen(QColor("#222"), 1))
        p.setBrush(QColor("#2e4fa3") if card in BLUE_RIBBONS else QColor("#d0312d"))
        p.drawRect(QRectF(mark.center().x() - w * 0.12, mark.top(), w * 0.24, mark.height()))
    p.restore()
    if faces_painted is not None:
        faces_painted.add(card)


def mekuri_as_hana(card: MekuriCard) -> int:
    """The hanafuda card standing for a mekurifuda card: its month (standard sequence), the
    suits as the month's four cards in order (clubs the highest, coins a chaff)."""
    return decks.hanafuda_month_of_rank(card.rank) * 10 + decks.SUITS.index(card.suit)


def card_size(height: float) -> tuple[float, float]:
    return height * ASPECT, height


# --------------------------------------------------------------------------- caching

def _blit(p: QPainter, rect: QRectF, key: tuple, draw: Callable[[QPainter, QRectF], None],
          dimmed: bool) -> None:
    device: Any = p.device()
    ratio = device.devicePixelRatioF() if hasattr(device, "devicePixelRatioF") else 1.0
    size = (round(rect.width() * ratio), round(rect.height() * ratio))
    full = key + size
    pix = _CACHE.get(full)
    if pix is None:
        if len(_CACHE) > 600:
            _CACHE.clear()
        pix = QPixmap(max(1, size[0]), max(1, size[1]))
        pix.setDevicePixelRatio(ratio)
        pix.fill(Qt.GlobalColor.transparent)
        q = QPainter(pix)
        q.setRenderHint(QPainter.RenderHint.Antialiasing)
        q.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        draw(q, QRectF(0.5, 0.5, rect.width() - 1, rect.height() - 1))
        q.end()
        _CACHE[full] = pix
    p.save()
    if dimmed:
        p.setOpacity(0.45)
    p.drawPixmap(rect.topLeft(), pix)
    p.restore()


def _font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(6, int(px)))
    f.setBold(bold)
    return f


def _card(q: QPainter, r: QRectF, fill: QColor, edge: QColor = EDGE) -> None:
    q.setPen(QPen(edge, max(1.0, r.width() * 0.025)))
    q.setBrush(fill)
    radius = r.width() * 0.07
    q.drawRoundedRect(r, radius, radius)


def _text(q: QPainter, r: QRectF, text: str, px: float, colour: QColor, bold: bool = True,
          align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter) -> None:
    """Text that fits *r*: smaller type if needed."""
    f = _font(px, bold)
    while f.pixelSize() > 6 and QFontMetricsF(f).horizontalAdvance(text) > r.width():
        f.setPixelSize(f.pixelSize() - 1)
    q.setFont(f)
    q.setPen(colour)
    q.drawText(r, align, text)


def _mark(q: QPainter, r: QRectF, text: str, px: float, colour: QColor, bold: bool = True,
          align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter) -> bool:
    """A hanafuda card's printed aid (month, points, name): at `px` or smaller down to the
    readable `MIN_TEXT_PX`, or not at all on a card too small for it (the card's colour and
    drawing still say what it is; a small card's month and kind are shown beside it)."""
    f = _font(max(px, MIN_TEXT_PX), bold)
    while f.pixelSize() > MIN_TEXT_PX and QFontMetricsF(f).horizontalAdvance(text) > r.width():
        f.setPixelSize(f.pixelSize() - 1)
    fm = QFontMetricsF(f)
    if fm.horizontalAdvance(text) > r.width() + 1 or fm.ascent() > r.height() + 1:
        return False
    q.setFont(f)
    q.setPen(colour)
    q.drawText(r, align, text)
    return True


def _wild_star(q: QPainter, r: QRectF) -> None:
    """The wild card's mark: a gold star in the bottom-right corner."""
    s = max(8.0, r.width() * 0.3)
    c = QPointF(r.right() - s * 0.6, r.bottom() - s * 0.6)
    pts = [QPointF(c.x() + (s / 2 if k % 2 == 0 else s / 5) * math.sin(k * math.pi / 5),
                   c.y() - (s / 2 if k % 2 == 0 else s / 5) * math.cos(k * math.pi / 5)) for k in range(10)]
    q.save()
    q.setPen(QPen(QColor("#7a5a00"), 1))
    q.setBrush(GOLD)
    q.drawPolygon(QPolygonF(pts))
    q.restore()


# --------------------------------------------------------------------------- mekurifuda

def _mekuri(q: QPainter, r: QRectF, card: MekuriCard, wild: bool) -> None:
    if card.suit == "oni":
        _onifuda(q, r)
    elif card.suit == "shiro":
        _card(q, r, QColor("white"))
        _text(q, r, "白", r.width() * 0.35, QColor("#d8d2c4"))
    else:
        colour = SUIT_COLOUR[card.suit]
        _card(q, r, PAPER)
        w = r.width()
        corner = QRectF(r.left() + w * 0.05, r.top() + w * 0.02, w * 0.5, w * 0.38)
        _text(q, corner, str(card.rank), w * 0.34, colour,
              align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        body = r.adjusted(w * 0.1, w * 0.42, -w * 0.1, -w * 0.1)
        if card.rank in COURT_EN:
            _court(q, body, card, colour)
        else:
            _pips(q, body, card.suit, card.rank, colour)
        # the suit small in the opposite corner, so a fanned hand shows suit and number
        s = w * 0.26
        _suit_symbol(q, QRectF(r.right() - s - w * 0.06, r.top() + w * 0.06, s, s), card.suit, colour)
    if wild:
        _wild_star(q, r)


def _pips(q: QPainter, body: QRectF, suit: str, n: int, colour: QColor) -> None:
    cols = 1 if n == 1 else 2 if n <= 6 else 3
    rows = math.ceil(n / cols)
    cw, ch = body.width() / cols, body.height() / rows
    s = min(cw, ch) * 0.86
    k = 0
    for row in range(rows):
        in_row = min(cols, n - k)
        offset = (cols - in_row) * cw / 2
        for col in range(in_row):
            cx = body.left() + offset + col * cw + cw / 2
            cy = body.top() + row * ch + ch / 2
            _suit_symbol(q, QRectF(cx - s / 2, cy - s / 2, s, s), suit, colour)
            k += 1


def _suit_symbol(q: QPainter, r: QRectF, suit: str, colour: QColor) -> None:
    """The suit's emblem: a baton (clubs), a blade (swords), a cup, a coin."""
    q.save()
    pen = QPen(colour.darker(140), max(1.0, r.width() * 0.06))
    q.setPen(pen)
    q.setBrush(colour)
    x, y, w, h = r.left(), r.top(), r.width(), r.height()
    if suit == "coins":
        q.drawEllipse(r.adjusted(w * 0.08, h * 0.08, -w * 0.08, -h * 0.08))
        q.setBrush(PAPER)
        q.drawRect(QRectF(x + w * 0.4, y + h * 0.4, w * 0.2, h * 0.2))
    elif suit == "cups":
        bowl = QPainterPath()
        bowl.moveTo(x + w * 0.15, y + h * 0.1)
        bowl.lineTo(x + w * 0.85, y + h * 0.1)
        bowl.quadTo(x + w * 0.85, y + h * 0.55, x + w * 0.5, y + h * 0.58)
        bowl.quadTo(x + w * 0.15, y + h * 0.55, x + w * 0.15, y + h * 0.1)
        q.drawPath(bowl)
        q.drawRect(QRectF(x + w * 0.45, y + h * 0.58, w * 0.1, h * 0.22))
        q.drawRoundedRect(QRectF(x + w * 0.25, y + h * 0.8, w * 0.5, h * 0.1), 2, 2)
    elif suit == "swords":
        blade = QPolygonF([QPointF(x + w * 0.5, y + h * 0.02), QPointF(x + w * 0.62, y + h * 0.2),
                           QPointF(x + w * 0.6, y + h * 0.68), QPointF(x + w * 0.4, y + h * 0.68),
                           QPointF(x + w * 0.38, y + h * 0.2)])
        q.drawPolygon(blade)
        q.drawRoundedRect(QRectF(x + w * 0.2, y + h * 0.68, w * 0.6, h * 0.09), 2, 2)
        q.drawRect(QRectF(x + w * 0.45, y + h * 0.77, w * 0.1, h * 0.2))
    else:   # clubs: a knotted baton, slanted
        q.translate(r.center())
        q.rotate(-30)
        q.drawRoundedRect(QRectF(-w * 0.15, -h * 0.45, w * 0.3, h * 0.9), w * 0.12, w * 0.12)
        q.setBrush(colour.darker(130))
        for t in (-0.25, 0.05, 0.3):
            q.drawEllipse(QPointF(0, h * t), w * 0.19, h * 0.06)
    q.restore()


def _court(q: QPainter, body: QRectF, card: MekuriCard, colour: QColor) -> None:
    """The Dragon and the three courts, drawn distinctly on a panel of the suit's colour."""
    q.save()
    q.setPen(QPen(colour.darker(150), 1.2))
    q.setBrush(colour.lighter(175))
    q.drawRoundedRect(body, 4, 4)
    named = body.width() >= 34          # room for the name under the figure
    fig = body.adjusted(0, 0, 0, -body.height() * 0.2) if named else body
    x, y, w, h = fig.left(), fig.top(), fig.width(), fig.height()
    q.setBrush(colour)
    q.setPen(QPen(INK, max(1.0, w * 0.03)))
    if card.rank == 1:      # the Dragon: a winding body and a head
        path = QPainterPath(QPointF(x + w * 0.15, y + h * 0.85))
        path.cubicTo(x + w * 0.9, y + h * 0.8, x + w * 0.1, y + h * 0.4, x + w * 0.7, y + h * 0.3)
        q.setBrush(Qt.BrushStyle.NoBrush)
        q.setPen(QPen(colour, max(2.0, w * 0.12), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        q.drawPath(path)
        q.setPen(QPen(INK, 1))
        q.setBrush(colour.darker(120))
        q.drawEllipse(QPointF(x + w * 0.72, y + h * 0.25), w * 0.14, h * 0.09)
        q.setBrush(GOLD)
        q.drawEllipse(QPointF(x + w * 0.76, y + h * 0.23), w * 0.035, w * 0.035)
    else:
        head = QPointF(x + w * 0.5, y + h * (0.42 if card.rank == 11 else 0.25))
        if card.rank == 11:   # the Horse: a horse's body with its rider
            q.drawEllipse(QRectF(x + w * 0.12, y + h * 0.55, w * 0.7, h * 0.2))
            q.drawPolygon(QPolygonF([QPointF(x + w * 0.75, y + h * 0.6), QPointF(x + w * 0.92, y + h * 0.42),
                                     QPointF(x + w * 0.95, y + h * 0.5), QPointF(x + w * 0.82, y + h * 0.68)]))
            for lx in (0.2, 0.35, 0.6, 0.72):
                q.drawLine(QPointF(x + w * lx, y + h * 0.72), QPointF(x + w * lx, y + h * 0.92))
            q.drawRect(QRectF(x + w * 0.4, y + h * 0.47, w * 0.2, h * 0.12))
        else:                 # the Maid (a robe) and the King (a robe and a crown)
            robe = QPolygonF([QPointF(x + w * 0.5, y + h * 0.34), QPointF(x + w * 0.82, y + h * 0.92),
                              QPointF(x + w * 0.18, y + h * 0.92)])
            q.drawPolygon(robe)
        q.setBrush(QColor("#f3dcc0"))
        q.drawEllipse(head, w * 0.13, w * 0.13)
        if card.rank == 12:
            cx, top = head.x(), head.y() - w * 0.13
            crown = QPolygonF([QPointF(cx - w * 0.16, top), QPointF(cx - w * 0.16, top - h * 0.12),
                               QPointF(cx - w * 0.06, top - h * 0.05), QPointF(cx, top - h * 0.14),
                               QPointF(cx + w * 0.06, top - h * 0.05), QPointF(cx + w * 0.16, top - h * 0.12),
                               QPointF(cx + w * 0.16, top)])
            q.setBrush(GOLD)
            q.drawPolygon(crown)
        elif card.rank == 10:   # the Maid's hair
            q.setBrush(INK)
            q.drawChord(QRectF(head.x() - w * 0.14, head.y() - w * 0.15, w * 0.28, w * 0.24), 0, 180 * 16)
    q.restore()
    label = (COURT_JA if LANG.code == "ja" else COURT_EN)[card.rank]
    if named:
        _text(q, QRectF(body.left(), fig.bottom(), body.width(), body.height() * 0.2),
              label, body.width() * 0.2, INK)


def _onifuda(q: QPainter, r: QRectF) -> None:
    """The "demon" card: red, a horned face, 鬼."""
    _card(q, r, QColor("#b22222"), QColor("#5a0f0f"))
    w, h = r.width(), r.height()
    c = QPointF(r.center().x(), r.top() + h * 0.45)
    q.setPen(QPen(INK, max(1.0, w * 0.03)))
    q.setBrush(QColor("#f4d03f"))
    for side in (-1, 1):
        q.drawPolygon(QPolygonF([QPointF(c.x() + side * w * 0.12, c.y() - w * 0.2),
                                 QPointF(c.x() + side * w * 0.3, c.y() - w * 0.5),
                                 QPointF(c.x() + side * w * 0.25, c.y() - w * 0.15)]))
    q.setBrush(QColor("#e74c3c"))
    q.drawEllipse(c, w * 0.28, w * 0.3)
    q.setBrush(QColor("white"))
    for side in (-1, 1):
        q.drawEllipse(QPointF(c.x() + side * w * 0.1, c.y() - w * 0.05), w * 0.06, w * 0.05)
    q.drawLine(QPointF(c.x() - w * 0.12, c.y() + w * 0.15), QPointF(c.x() + w * 0.12, c.y() + w * 0.15))
    _text(q, QRectF(r.left(), r.bottom() - h * 0.28, w, h * 0.25), "鬼", w * 0.3, QColor("white"))


def _western(q: QPainter, r: QRectF, card: MekuriCard, wild: bool) -> None:
    w = r.width()
    _card(q, r, QColor("white"), QColor("#555"))
    if card.rank == 0:
        _text(q, r.adjusted(2, 0, -2, 0), "JOKER", w * 0.24, QColor("#6a1b9a"))
        _wild_star(q, QRectF(r.left(), r.top(), r.width() * 0.9, r.height() * 0.4))
        return
    colour = WESTERN_RED if card.suit in ("cups", "coins") else INK
    rank = WESTERN_RANK.get(card.rank, str(card.rank))
    symbol = WESTERN_SYMBOL[card.suit]
    _text(q, QRectF(r.left() + w * 0.06, r.top() + w * 0.02, w * 0.55, w * 0.36), rank, w * 0.32, colour,
          align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    _text(q, QRectF(r.left() + w * 0.06, r.top() + w * 0.36, w * 0.35, w * 0.3), symbol, w * 0.26, colour,
          bold=False, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    _text(q, r.adjusted(0, r.height() * 0.25, 0, 0), symbol, w * 0.62, colour, bold=False)
    if wild:
        _wild_star(q, r)


# --------------------------------------------------------------------------- hanafuda

def _hana(q: QPainter, r: QRectF, card: int) -> None:
    m = decks.month(card)
    colour = MONTH_COLOUR[m - 1]
    kind = decks.kind(card)
    _card(q, r, QColor("#fffaf0"), colour.darker(150))
    w, h = r.width(), r.height()
    art = r.adjusted(w * 0.06, w * 0.06, -w * 0.06, -h * 0.2)
    q.save()
    clip = QPainterPath()
    clip.addRoundedRect(art, 3, 3)
    q.setClipPath(clip)
    q.fillRect(art, colour.lighter(185) if m != 8 else QColor("#f2e6c8"))
    _MOTIFS[m - 1](q, art, colour)
    if card == decks.LIGHTNING:
        _lightning(q, art)
    if kind == RIBBON:
        _ribbon(q, art, card)
    elif kind == BRIGHT:
        _bright(q, art, card)
    q.restore()
    # the month chip (top left) and the points (bottom strip)
    # a chip large enough for a readable month number (a third of a small card)
    side = min(max(w * 0.36, MIN_TEXT_PX + 5), w * 0.5)
    chip = QRectF(r.left() + w * 0.04, r.top() + w * 0.04, side, side)
    q.setPen(QPen(QColor("white"), 1))
    q.setBrush(colour)
    q.drawEllipse(chip)
    _mark(q, chip, str(m), w * 0.22, QColor("white"))
    strip = QRectF(r.left() + w * 0.05, r.bottom() - h * 0.2, w * 0.9, h * 0.19)
    names = SPECIAL_JA if LANG.code == "ja" else SPECIAL_EN
    name = names.get(card, "")
    pts = str(decks.points(card))
    if kind == ANIMAL:
        _badge(q, art, colour)
    named = bool(name) and w >= 44 and _mark(q, strip.adjusted(0, 0, -w * 0.28, 0), name, h * 0.12, INK,
                                             align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    _mark(q, strip.adjusted(w * 0.6 if named else 0, 0, 0, 0), pts, h * 0.14,
          colour.darker(130), align=Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
          if named else Qt.AlignmentFlag.AlignCenter)


def _bright(q: QPainter, art: QRectF, card: int) -> None:
    """A Bright: a large gold disc with a red ring (the moon over the hill, the sun)."""
    w = art.width()
    c = QPointF(art.right() - w * 0.3, art.top() + w * 0.32)
    q.setPen(QPen(QColor("#b3261e"), max(1.5, w * 0.05)))
    q.setBrush(QColor(255, 250, 235) if card == decks.MOON else GOLD)
    q.drawEllipse(c, w * 0.22, w * 0.22)
    if w * 0.24 >= MIN_TEXT_PX:      # on a small card the disc alone (光 would cover the month)
        _mark(q, QRectF(c.x() - w * 0.2, c.y() - w * 0.2, w * 0.4, w * 0.4), "光", w * 0.24, QColor("#b3261e"))


def _ribbon(q: QPainter, art: QRectF, card: int) -> None:
    """A Ribbon: a slanted tanzaku across the card, red (poetry ribbons with writing) or blue."""
    w, h = art.width(), art.height()
    blue = card in BLUE_RIBBONS
    q.save()
    q.translate(art.center().x(), art.top() + h * 0.5)
    q.rotate(-12)
    band = QRectF(-w * 0.14, -h * 0.42, w * 0.28, h * 0.8)
    q.setPen(QPen(QColor("#222"), 1))
    q.setBrush(QColor("#2e4fa3") if blue else QColor("#d0312d"))
    q.drawRect(band)
    if card in POETRY_RIBBONS:   # the poem's writing, as strokes
        q.setPen(QPen(INK, max(1.0, w * 0.035)))
        for k in range(4):
            yy = band.top() + band.height() * (0.15 + k * 0.18)
            q.drawLine(QPointF(-w * 0.06, yy), QPointF(w * 0.06, yy + band.height() * 0.08))
    q.restore()


def _badge(q: QPainter, art: QRectF, colour: QColor) -> None:
    """An Animal: a dark rounded badge (the creature's name is in the strip below)."""
    s = art.width() * 0.34
    rect = QRectF(art.right() - s - 2, art.top() + 2, s, s)
    q.setPen(QPen(QColor("white"), 1))
    q.setBrush(QColor("#3b2f2f"))
    q.drawRoundedRect(rect, s * 0.25, s * 0.25)
    _mark(q, rect, "10", s * 0.5, QColor("white"))


# -- the twelve motifs: simple, drawn, each in its month's colour -------------------------------

def _at(a: QRectF, fx: float, fy: float) -> QPointF:
    """The point at fractions (fx, fy) of the art rect."""
    return QPointF(a.left() + a.width() * fx, a.top() + a.height() * fy)


def _pine(q: QPainter, a: QRectF, c: QColor) -> None:
    q.setPen(Qt.PenStyle.NoPen)
    q.setBrush(QColor("#6b4423"))
    q.drawRect(QRectF(_at(a, 0.45, 0.55), _at(a, 0.55, 1.0)))
    q.setBrush(c)
    for k in range(3):
        top = a.top() + a.height() * (0.25 + k * 0.17)
        half = a.width() * (0.22 + k * 0.08)
        q.drawPolygon(QPolygonF([QPointF(a.center().x(), top), QPointF(a.center().x() + half, top + a.height() * 0.22),
                                 QPointF(a.center().x() - half, top + a.height() * 0.22)]))


def _blossoms(q: QPainter, a: QRectF, petal: QColor, centre: QColor, spots: tuple, size: float) -> None:
    q.setPen(QPen(QColor("#4a2f1a"), max(1.0, a.width() * 0.05)))
    q.drawLine(QPointF(a.left(), a.bottom()), QPointF(a.right(), a.top() + a.height() * 0.3))
    for fx, fy in spots:
        ctr = QPointF(a.left() + a.width() * fx, a.top() + a.height() * fy)
        r = a.width() * size
        q.setPen(Qt.PenStyle.NoPen)
        q.setBrush(petal)
        for k in range(5):
            ang = k * 2 * math.pi / 5
            petal_at = QPointF(ctr.x() + r * 0.6 * math.cos(ang), ctr.y() + r * 0.6 * math.sin(ang))
            q.drawEllipse(petal_at, r * 0.5, r * 0.5)
        q.setBrush(centre)
        q.drawEllipse(ctr, r * 0.25, r * 0.25)


def _plum(q, a, c):
    _blossoms(q, a, c, QColor("#ffd54f"), ((0.3, 0.7), (0.6, 0.55), (0.8, 0.85)), 0.16)


def _cherry(q, a, c):
    _blossoms(q, a, c, QColor("#fff"), ((0.2, 0.5), (0.45, 0.75), (0.7, 0.45), (0.85, 0.8)), 0.18)


def _wisteria(q, a, c):
    q.setPen(Qt.PenStyle.NoPen)
    q.setBrush(c)
    for fx in (0.22, 0.5, 0.78):
        for k in range(5):
            q.drawEllipse(QPointF(a.left() + a.width() * fx, a.top() + a.height() * (0.1 + k * 0.13)),
                          a.width() * (0.09 - k * 0.01), a.width() * 0.07)


def _iris(q, a, c):
    q.setPen(QPen(QColor("#2e7d32"), max(1.5, a.width() * 0.05)))
    for fx in (0.25, 0.5, 0.75):
        q.drawLine(_at(a, fx, 1.0), _at(a, fx + 0.05, 0.35))
    q.setPen(Qt.PenStyle.NoPen)
    q.setBrush(c)
    for fx in (0.3, 0.72):
        ctr = QPointF(a.left() + a.width() * fx, a.top() + a.height() * 0.3)
        for ang in (-40, 0, 40):
            q.save()
            q.translate(ctr)
            q.rotate(ang)
            q.drawEllipse(QRectF(-a.width() * 0.05, -a.width() * 0.2, a.width() * 0.1, a.width() * 0.2))
            q.restore()


def _peony(q, a, c):
    ctr = QPointF(a.left() + a.width() * 0.45, a.top() + a.height() * 0.55)
    q.setPen(QPen(c.darker(140), 1))
    q.setBrush(c)
    for k in range(6):
        ang = k * math.pi / 3
        q.drawEllipse(QPointF(ctr.x() + a.width() * 0.14 * math.cos(ang), ctr.y() + a.width() * 0.14 * math.sin(ang)),
                      a.width() * 0.16, a.width() * 0.16)
    q.setBrush(QColor("#ffcdd2"))
    q.drawEllipse(ctr, a.width() * 0.12, a.width() * 0.12)


def _bush_clover(q, a, c):
    q.setPen(QPen(QColor("#5d4037"), max(1.0, a.width() * 0.03)))
    q.setBrush(Qt.BrushStyle.NoBrush)
    for k in range(3):
        path = QPainterPath(QPointF(a.left() + a.width() * 0.1, a.bottom()))
        path.quadTo(a.left() + a.width() * (0.3 + 0.2 * k), a.top(), a.right() - a.width() * (0.25 - 0.1 * k),
                    a.top() + a.height() * (0.25 + 0.15 * k))
        q.drawPath(path)
        for t in (0.45, 0.65, 0.85):
            pt = path.pointAtPercent(t)
            q.setPen(Qt.PenStyle.NoPen)
            q.setBrush(c)
            q.drawEllipse(pt, a.width() * 0.05, a.width() * 0.05)
            q.setPen(QPen(QColor("#5d4037"), max(1.0, a.width() * 0.03)))
            q.setBrush(Qt.BrushStyle.NoBrush)


def _susuki(q, a, c):
    q.setPen(Qt.PenStyle.NoPen)
    q.setBrush(QColor("#2b2b2b"))
    hill = QPainterPath(QPointF(a.left(), a.bottom()))
    hill.quadTo(a.center().x(), a.top() + a.height() * 0.35, a.right(), a.bottom())
    q.drawPath(hill)
    q.setPen(QPen(QColor("#efe7d0"), max(1.0, a.width() * 0.025)))
    for k in range(6):
        x = a.left() + a.width() * (0.15 + 0.14 * k)
        q.drawLine(QPointF(x, a.bottom()), QPointF(x + a.width() * 0.06, a.top() + a.height() * 0.62))


def _chrysanthemum(q, a, c):
    ctr = QPointF(a.left() + a.width() * 0.42, a.top() + a.height() * 0.6)
    q.setPen(QPen(c.darker(150), 1))
    q.setBrush(c)
    for k in range(12):
        ang = k * math.pi / 6
        q.save()
        q.translate(ctr)
        q.rotate(math.degrees(ang))
        q.drawEllipse(QRectF(-a.width() * 0.05, 0, a.width() * 0.1, a.width() * 0.26))
        q.restore()
    q.setBrush(QColor("#8d6e63"))
    q.drawEllipse(ctr, a.width() * 0.08, a.width() * 0.08)


def _maple(q, a, c):
    q.setPen(QPen(c.darker(160), 1))
    q.setBrush(c)
    for fx, fy, s in ((0.3, 0.35, 0.2), (0.68, 0.6, 0.22), (0.35, 0.8, 0.16)):
        ctr = QPointF(a.left() + a.width() * fx, a.top() + a.height() * fy)
        r = a.width() * s
        pts = []
        for k in range(10):
            rr = r if k % 2 == 0 else r * 0.45
            ang = -math.pi / 2 + k * math.pi / 5
            pts.append(QPointF(ctr.x() + rr * math.cos(ang), ctr.y() + rr * math.sin(ang)))
        q.drawPolygon(QPolygonF(pts))


def _willow(q, a, c):
    q.setPen(QPen(c, max(1.5, a.width() * 0.04)))
    q.setBrush(Qt.BrushStyle.NoBrush)
    for k in range(5):
        x = a.left() + a.width() * (0.1 + 0.2 * k)
        path = QPainterPath(QPointF(x, a.top()))
        end = a.top() + a.height() * (0.6 + 0.06 * (k % 2))
        path.quadTo(x + a.width() * 0.12, a.top() + a.height() * 0.4, x - a.width() * 0.02, end)
        q.drawPath(path)


def _paulownia(q, a, c):
    q.setPen(QPen(QColor("#33691e"), 1))
    q.setBrush(QColor("#558b2f"))
    q.drawEllipse(QRectF(a.left() + a.width() * 0.1, a.top() + a.height() * 0.5, a.width() * 0.8, a.height() * 0.42))
    q.setPen(Qt.PenStyle.NoPen)
    q.setBrush(c)
    for fx in (0.3, 0.5, 0.7):
        for k in range(3):
            q.drawEllipse(QPointF(a.left() + a.width() * fx, a.top() + a.height() * (0.18 + 0.1 * k)),
                          a.width() * 0.06, a.width() * 0.06)


_MOTIFS = (_pine, _plum, _cherry, _wisteria, _iris, _peony, _bush_clover, _susuki, _chrysanthemum,
           _maple, _willow, _paulownia)


def _lightning(q: QPainter, a: QRectF) -> None:
    """The Lightning (柳に雷): the willow chaff's dark storm shape and a red bolt, so the card
    that captures anything stands out."""
    q.setPen(Qt.PenStyle.NoPen)
    q.setBrush(QColor("#3a3a3a"))
    q.drawRect(QRectF(a.left(), a.top() + a.height() * 0.45, a.width(), a.height() * 0.55))
    bolt = QPolygonF([_at(a, fx, fy) for fx, fy in ((0.55, 0.05), (0.3, 0.5), (0.5, 0.5), (0.35, 0.95),
                                                    (0.75, 0.4), (0.55, 0.4), (0.75, 0.05))])
    q.setPen(QPen(QColor("#5a0f0f"), 1))
    q.setBrush(QColor("#d32f2f"))
    q.drawPolygon(bolt)


__all__ = ["ASPECT", "FACE_STYLES", "MEKURI", "WESTERN", "HANA", "paint_mekuri", "paint_hana", "paint_hana_mini",
           "mekuri_as_hana", "card_size"]
