"""Games → Bōzu-mekuri (坊主めくり): the yomifuda stack, every seat's kept cards and the pot, the
person against CPUs at the shared table.

The table draws only the person's view (`trainer.rules.bozu.BozuView`): the
face-down stack(s) in the centre as backs with their counts (their order is
hidden from everyone), the pot face-up beside them, the card drawn last large,
and in each seat's box the number of cards kept and the top one. A card's
face is the poet's name over a drawn figure (`paint_poet`: no images from
elsewhere) whose kind is told apart by shape: a man's tall black cap, a monk's
bare head and kesa, a woman's long hair and layered robes, an emperor on the
striped dais, Semimaru's hood. The person draws by clicking a stack; the
session decides everything else.
"""
from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSpinBox

from poems.poets import poets
from trainer.games import registry
from trainer.games.protocol import GameEvent
from trainer.games.turn_session import TurnSession
from trainer.rules.bozu import EMPEROR_RULES, SEMIMARU_RULES, BozuCard, BozuView, Draw, GameEnded
from trainer.text.bozu import describe_bozu, kind_name
from trainer.ui.card_game_panel import CardGamePanel, fill_choices, free_centre
from trainer.ui.i18n import add_messages, tr
from trainer.ui.table_shell import RING, TableView, fitted_font, paint_card_back, paint_label, paint_outline

add_messages({
    "mode.bozu": ("坊主めくり", "Bōzu-mekuri"),
    "bozu.semimaru": ("蝉丸", "Semimaru"),
    "bozu.semimaru.disqualified": ("引いたら失格", "Drawer is out"),
    "bozu.semimaru.all_to_pot": ("全員の札を場へ", "All hands to the pot"),
    "bozu.semimaru.monk": ("坊主と同じ", "Like a monk"),
    "bozu.semimaru.man": ("殿と同じ", "Like a man"),
    "bozu.emperor": ("天皇", "Emperors"),
    "bozu.emperor.man": ("殿と同じ", "Like a man"),
    "bozu.emperor.draw_again": ("もう1枚", "Draw again"),
    "bozu.emperor.take_hands": ("全員の札をもらう", "Take every hand"),
    "bozu.stacks": ("山の数", "Stacks"),
    "bozu.stack": ("山札 {n}枚", "Stack: {n}"),
    "bozu.pot": ("場 {n}枚", "Pot: {n}"),
    "bozu.kept": ("{n}枚", "{n} cards"),
    "bozu.kept_one": ("{n}枚", "{n} card"),
    "bozu.out": ("失格", "out"),
    "bozu.click_stack": ("山札をクリックしてめくってください", "Click a stack to draw"),
    "bozu.last": ("いまめくった札", "Just drawn"),
    "bozu.final": ("終局", "Final"),
})

CARD_ASPECT = 0.72       # a yomifuda's width over its height (about 53 x 74 mm)
FACE = QColor("#fbf5e6")
FACE_EDGE = QColor("#a8916a")
SKIN = QColor("#f3d9b8")
INK = QColor("#1d1d1d")
CLICKABLE = QColor("#d4a017")
ROBE = {"man": QColor("#2f4f8f"), "emperor": QColor("#c98a1b"), "monk": QColor("#55504a"),
        "woman": QColor("#b8324a"), "empress": QColor("#b8324a"), "semimaru": QColor("#7a5a3a")}


def figure_kind(card: BozuCard) -> str:
    """What the picture shows: the card's kind, or Semimaru's own figure."""
    return "semimaru" if "semimaru" in poets()[card.no].marks else card.kind


# --------------------------------------------------------------------------- the drawn figure

def paint_poet(p: QPainter, rect: QRectF, kind: str) -> None:
    """The poet as a small drawn figure filling `rect` (seated, from the front)."""
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    w, h = rect.width(), rect.height()
    cx = rect.center().x()
    on_dais = kind in ("emperor", "empress")
    base = rect.bottom() - (h * 0.16 if on_dais else h * 0.02)
    if on_dais:                      # the imperial dais: a tatami with a striped (繧繝) edge
        dais = QRectF(rect.left() + w * 0.04, base, w * 0.92, h * 0.14)
        p.setPen(QPen(INK, 1))
        p.setBrush(QColor("#d8c690"))
        p.drawRect(dais)
        for k, colour in enumerate(("#c0392b", "#f1c40f", "#27ae60", "#2e6da4")):
            stripe = QRectF(dais.left(), dais.top() + dais.height() * (0.45 + 0.13 * k), dais.width(),
                            dais.height() * 0.13)
            p.fillRect(stripe, QColor(colour))
    head_r = min(w * 0.17, h * 0.14)
    head = QPointF(cx, base - h * 0.50)
    # the robe: a wide seated triangle
    robe = QPolygonF([QPointF(cx - w * 0.42, base), QPointF(cx + w * 0.42, base),
                      QPointF(cx + w * 0.16, head.y() + head_r * 0.9),
                      QPointF(cx - w * 0.16, head.y() + head_r * 0.9)])
    woman = kind in ("woman", "empress")
    if woman:                        # long black hair falling behind the shoulders
        hair = QPainterPath()
        hair.moveTo(cx - head_r * 1.05, head.y())
        hair.cubicTo(cx - head_r * 1.5, head.y() + h * 0.25, cx - w * 0.34, base - h * 0.08,
                     cx - w * 0.30, base - h * 0.02)
        hair.lineTo(cx + w * 0.30, base - h * 0.02)
        hair.cubicTo(cx + w * 0.34, base - h * 0.08, cx + head_r * 1.5, head.y() + h * 0.25,
                     cx + head_r * 1.05, head.y())
        hair.closeSubpath()
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(INK)
        p.drawPath(hair)
    p.setPen(QPen(INK, 1))
    p.setBrush(ROBE.get(kind, ROBE["man"]))
    p.drawPolygon(robe)
    if woman:                        # the layered robes' edges (十二単)
        for k, colour in enumerate(("#f5b041", "#27ae60", "#f7dc6f")):
            inset = w * (0.05 + 0.05 * k)
            p.setPen(QPen(QColor(colour), max(1.5, w * 0.025)))
            p.drawLine(QPointF(cx - w * 0.42 + inset, base - 1), QPointF(cx - w * 0.16 + inset * 0.4,
                                                                           head.y() + head_r * 1.2))
            p.drawLine(QPointF(cx + w * 0.42 - inset, base - 1), QPointF(cx + w * 0.16 - inset * 0.4,
                                                                           head.y() + head_r * 1.2))
    if kind == "monk":               # the kesa: an orange sash across the robe
        p.setPen(QPen(QColor("#e67e22"), max(2.0, w * 0.07)))
        p.drawLine(QPointF(cx - w * 0.14, head.y() + head_r * 1.1), QPointF(cx + w * 0.30, base - 2))
    # the face
    p.setPen(QPen(INK, 1))
    p.setBrush(SKIN)
    p.drawEllipse(head, head_r, head_r * 1.1)
    if woman:                        # hair parted over the forehead
        fringe = QPainterPath()
        fringe.moveTo(head.x() - head_r * 1.02, head.y() + head_r * 0.2)
        fringe.arcTo(QRectF(head.x() - head_r * 1.02, head.y() - head_r * 1.12, head_r * 2.04, head_r * 1.6),
                     180, -180)
        fringe.quadTo(head.x(), head.y() - head_r * 0.55, head.x() - head_r * 1.02, head.y() + head_r * 0.2)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(INK)
        p.drawPath(fringe)
    elif kind == "monk":             # a bare, shining head
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(255, 255, 255, 170))
        p.drawEllipse(QPointF(head.x() - head_r * 0.35, head.y() - head_r * 0.55), head_r * 0.28, head_r * 0.16)
    elif kind == "semimaru":         # a hood (頭巾) over head and shoulders
        hood = QPainterPath()
        hood.addEllipse(head, head_r * 1.35, head_r * 1.45)
        face = QPainterPath()
        face.addEllipse(QPointF(head.x(), head.y() + head_r * 0.25), head_r * 0.75, head_r * 0.8)
        p.setPen(QPen(INK, 1))
        p.setBrush(QColor("#8e8e86"))
        p.drawPath(hood.subtracted(face))
    else:                            # a man's tall black cap; an emperor's crown with its upright tail
        cap = QRectF(head.x() - head_r * 0.6, head.y() - head_r * 2.3, head_r * 1.2, head_r * 1.5)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(INK)
        if kind == "emperor":
            p.drawRect(QRectF(head.x() - head_r * 0.75, head.y() - head_r * 1.55, head_r * 1.5, head_r * 0.75))
            p.drawRect(QRectF(head.x() - head_r * 0.15, head.y() - head_r * 2.6, head_r * 0.3, head_r * 1.2))
        else:
            p.drawRoundedRect(cap, head_r * 0.3, head_r * 0.3)
    # eyes: two short strokes
    p.setPen(QPen(INK, max(1.0, head_r * 0.12)))
    for dx in (-0.38, 0.38):
        x, y = head.x() + head_r * dx, head.y() + head_r * 0.15
        p.drawLine(QPointF(x - head_r * 0.15, y), QPointF(x + head_r * 0.15, y))
    p.restore()


def paint_yomifuda(p: QPainter, rect: QRectF, card: BozuCard, highlight: QColor | None = None) -> None:
    """A yomifuda face up: the poet's name along the top, the figure below."""
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QPen(FACE_EDGE, 1.5))
    p.setBrush(FACE)
    radius = rect.width() * 0.06
    p.drawRoundedRect(rect, radius, radius)
    name_h = rect.height() * 0.24
    name = poets()[card.no].name
    band = QRectF(rect.left() + 3, rect.top() + 3, rect.width() - 6, name_h - 3)
    px = min(rect.width() / 5.5, name_h * 0.42)
    font, laid = fitted_font(band, name, px, wrap=True)
    if laid.height() > band.height() + 0.5:
        # a small card: the name keeps readable type and takes the lines it needs, the figure
        # the rest (never a name too small to read)
        band.setHeight(min(rect.height() * 0.5, laid.height() + 1))
        name_h = band.bottom() - rect.top() + 1
    p.setFont(font)
    p.setPen(INK)
    p.drawText(band, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, name)
    p.restore()
    paint_poet(p, rect.adjusted(rect.width() * 0.06, name_h, -rect.width() * 0.06, -rect.height() * 0.03),
               figure_kind(card))
    if highlight is not None:
        paint_outline(p, rect, highlight)


def _card_in(rect: QRectF, height_cap: float = 1e9) -> QRectF:
    """The largest yomifuda that fits `rect`, centred."""
    h = min(rect.height(), rect.width() / CARD_ASPECT, height_cap)
    w = h * CARD_ASPECT
    return QRectF(rect.center().x() - w / 2, rect.center().y() - h / 2, w, h)


# --------------------------------------------------------------------------- the table

class BozuTable(TableView):
    """Bōzu-mekuri's drawing in the shared table (see the module docstring)."""

    def __init__(self, clock: Any, parent: Any = None):
        super().__init__(arrangement=RING, hand_height=0, clock=clock, parent=parent)
        self.view: BozuView | None = None
        self.clickable: set[int] = set()         # the stacks the person may draw from now
        self._stacks: list[tuple[QRectF, int]] = []
        self._pot = self._last = QRectF()
        self.slot_width = 100.0
        self.two_rows = False          # crowded: the red outline alone marks the card just drawn
        self.setMinimumSize(560, 420)

    def stack_rects(self) -> list[tuple[QRectF, int]]:
        return list(self._stacks)

    def place(self, seats: list[QRectF], centre: QRectF, hand: QRectF) -> None:
        """The stacks, then the pot, then the card drawn last, one size: side by side, or the
        stacks over the pot and the last card when one row would make them too small."""
        self._stacks, self._pot, self._last = [], QRectF(), QRectF()
        v = self.view
        if v is None:
            return
        free = free_centre(centre, self.seat_rects())
        n = len(v.stacks)
        area = QRectF(free.left(), free.top() + 18, free.width(), free.height() - 40)
        one_row = _card_in(QRectF(0, 0, area.width() / (n + 2) - 14, area.height()), 170)
        rows = [list(range(n + 2))]
        if n > 1 and one_row.height() < area.height() * 0.5:
            rows = [list(range(n)), [n, n + 1]]
        row_h = (area.height() - 40 * (len(rows) - 1)) / len(rows)
        slot = area.width() / max(len(r) for r in rows)
        size = _card_in(QRectF(0, 0, slot - 14, row_h), 170).size()
        self.slot_width = slot
        self.two_rows = len(rows) > 1
        spots: dict[int, QRectF] = {}
        for i, row in enumerate(rows):
            top = area.top() + i * (row_h + 40) + (row_h - size.height()) / 2
            left = area.center().x() - slot * len(row) / 2
            for j, k in enumerate(row):
                spots[k] = QRectF(QPointF(left + j * slot + (slot - size.width()) / 2, top), size)
        self._stacks = [(spots[k], k) for k in range(n)]
        self._pot, self._last = spots[n], spots[n + 1]

    def paint_centre(self, p: QPainter, rect: QRectF) -> None:
        v = self.view
        if v is None:
            return
        for r, k in self._stacks:
            left = v.stacks[k]
            if left:
                depth = min(6, left // 12 + 1)      # a stack looks thicker with more cards
                for d in range(depth, 0, -1):
                    paint_card_back(p, r.translated(d * 1.5, -d * 1.5))
                paint_card_back(p, r, highlight=CLICKABLE if k in self.clickable else None)
            else:
                p.save()
                p.setPen(QPen(QColor("#b8ab88"), 2, Qt.PenStyle.DashLine))
                p.drawRoundedRect(r, 6, 6)
                p.restore()
            self._caption(p, r, tr("bozu.stack", n=left))
        pot = self._pot
        if v.pot:
            for d in range(min(5, len(v.pot) // 10 + 1), 0, -1):
                paint_yomifuda(p, pot.translated(d * 1.5, -d * 1.5), v.pot[-1])
            paint_yomifuda(p, pot, v.pot[-1])
        else:
            p.save()
            p.setPen(QPen(QColor("#b8ab88"), 2, Qt.PenStyle.DashLine))
            p.drawRoundedRect(pot, 6, 6)
            p.restore()
        self._caption(p, pot, tr("bozu.pot", n=len(v.pot)))
        if v.last is not None:
            last = self._last
            paint_yomifuda(p, last, v.last, highlight=QColor("#c0392b"))
            if not self.two_rows:
                self._caption(p, last, tr("bozu.last"), above=True)
            self._caption(p, last, kind_name(figure_kind(v.last)), bold=True, colour=QColor("#7a2e12"))

    def _caption(self, p: QPainter, card: QRectF, text: str, above: bool = False, bold: bool = False,
                 colour: QColor = QColor("#333")) -> None:
        """A line under (or over) a card in the centre, as wide as its slot."""
        w = self.slot_width
        px = int(max(10, min(13, w / 7)))
        y = card.top() - px - 6 if above else card.bottom() + 2
        paint_label(p, QRectF(card.center().x() - w / 2, y, w, px + 6), text, px, bold=bold, colour=colour)

    def paint_seat(self, p: QPainter, seat: int, rect: QRectF) -> None:
        v = self.view
        if v is None or seat >= len(v.hands):
            return
        hand = v.hands[seat]
        if v.out[seat]:
            paint_label(p, rect, tr("bozu.out"), int(min(28, rect.height() * 0.4)), bold=True, colour=QColor("#c0392b"))
            return
        if not hand:
            return
        card = _card_in(QRectF(rect.left(), rect.top(), rect.width() * 0.5, rect.height()))
        depth = min(5, len(hand) // 8)
        for d in range(depth, 0, -1):
            paint_yomifuda(p, card.translated(d * 1.5, -d * 1.5), hand[-1])
        paint_yomifuda(p, card, hand[-1])
        paint_label(p, QRectF(card.right() + 8, rect.top(), rect.right() - card.right() - 8, rect.height()),
               str(len(hand)), int(min(40, rect.height() * 0.45)), bold=True)

    def item_at(self, pos: QPointF) -> tuple[int, Any] | None:
        if self.me is None:
            return None
        for r, k in self._stacks:
            if r.adjusted(-4, -12, 12, 4).contains(pos):
                return (self.me, ("stack", k))
        return None


class BozuPanel(CardGamePanel):
    """Games → Bōzu-mekuri (see the module docstring)."""

    table: BozuTable
    pause_after = {"bozu.to_pot": 1.0, "bozu.take_pot": 1.0, "bozu.disqualified": 1.5,
                   "bozu.all_to_pot": 1.5, "bozu.take_hands": 1.5}

    def make_table(self) -> BozuTable:
        return BozuTable(self.clock)

    def build_setup(self, row: QHBoxLayout) -> None:
        self.players_label, self.players = QLabel(), QSpinBox(minimum=2, maximum=8, value=4)
        self.semimaru_label, self.semimaru = QLabel(), QComboBox()
        self.emperor_label, self.emperor = QLabel(), QComboBox()
        self.stacks_label, self.stacks = QLabel(), QSpinBox(minimum=1, maximum=4, value=1)
        for label, box in ((self.players_label, self.players), (self.semimaru_label, self.semimaru),
                           (self.emperor_label, self.emperor), (self.stacks_label, self.stacks)):
            row.addWidget(label)
            row.addWidget(box)
            row.addSpacing(8)

    def retranslate_setup(self) -> None:
        self.players_label.setText(tr("cards.players"))
        self.semimaru_label.setText(tr("bozu.semimaru"))
        self.emperor_label.setText(tr("bozu.emperor"))
        self.stacks_label.setText(tr("bozu.stacks"))
        fill_choices(self.semimaru, [(tr(f"bozu.semimaru.{r}"), r) for r in SEMIMARU_RULES])
        fill_choices(self.emperor, [(tr(f"bozu.emperor.{r}"), r) for r in EMPEROR_RULES])

    # -- the game ------------------------------------------------------------------------------------
    def new_session(self, seed: int | str) -> TurnSession:
        variant = registry.find("bozu")
        players = variant.check_seats(self.players.value())
        from trainer.games.bozu_session import new_session
        return new_session(variant, seed, self.seats(players),
                           {"semimaru": self.semimaru.currentData(), "emperor": self.emperor.currentData(),
                            "stacks": self.stacks.value()}, clock=self.clock)

    def action_for(self, seat: int, item: Any, legal: Sequence[Any]) -> Any:
        """A click on a stack draws from it; an empty one goes to the session, which says why."""
        if isinstance(item, tuple) and item and item[0] == "stack":
            return Draw(item[1])
        return None

    def words(self, event: GameEvent) -> str | None:
        return describe_bozu(event, self.seat_names(in_log=True))

    def score_row(self, event: GameEvent) -> tuple[str, list[int]] | None:
        if isinstance(event, GameEnded):
            return tr("bozu.final"), list(event.scores)
        return None

    def show_view(self) -> None:
        s = self.playing
        t = self.table
        t.view = s.view(self.me)
        legal = s.legal(self.me) if self.me in s.waiting_for() else []
        t.clickable = {a.stack for a in legal}

    def seat_line(self, seat: int) -> str:
        v = self.table.view
        if v is None:
            return ""
        n = len(v.hands[seat])
        return tr("bozu.out") if v.out[seat] else tr("bozu.kept_one" if n == 1 else "bozu.kept", n=n)

    def status_text(self) -> str:
        s = self.session
        if s is not None and s.waiting_for():
            return tr("cards.your_turn") + " — " + tr("bozu.click_stack")
        return super().status_text()
