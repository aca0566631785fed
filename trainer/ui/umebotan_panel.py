"""Games → Ume Botan (梅牡丹ルール): the hanafuda fishing game at the shared table, and its score calculator.

The table draws the person's `trainer.rules.umebotan.UmeBotanView` only: the
field in the centre (the Lightning with its face-down card when it was dealt
there), the draw pile as a back with its count, the card just drawn, each
seat's captured cards grouped by kind (brights, animals, ribbons, chaff;
"kept face-up", so everyone sees them), the other hands as backs with
counts, and the person's hand along the bottom. When the person's card (or
the card they drew) matches two field cards, they choose by clicking: the
candidates are outlined, a click on one captures it. The round, the field
multiplier and the score sheet (one row per round, the zero-sum scores) are
shown; the log comes from `umebotan_text`.

`ScoreCalculator` is the same scoring as ``karuta score umebotan``
(`trainer.rules.umebotan_score.score_round`) for tables playing with real
cards: click the 48 faces into each player's pile, get the scores and yaku.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QDialog, QHBoxLayout, QHeaderView,
                               QLabel, QPushButton, QRadioButton, QSizePolicy, QSpinBox, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from trainer.games import registry
from trainer.games.protocol import GameEvent
from trainer.games.turn_session import TurnSession
from trainer.players.umebotan_cpu import LEVELS
from trainer.rules import decks
from trainer.rules.decks import ANIMAL, BRIGHT, CHAFF, HANAFUDA, RIBBON
from trainer.rules.umebotan import Dealt, Play, RoundScored, Take, UmeBotanView
from trainer.rules.umebotan_score import PileError, RoundScore, check_piles, score_round
from trainer.ui.card_game_panel import CardGamePanel, free_centre
from trainer.ui.cards_faces import ASPECT, MINI_ASPECT, paint_hana, paint_hana_mini
from trainer.ui.i18n import LANG, add_messages, tr
from trainer.ui.table_shell import RING, TableView, paint_card_back, paint_fitted, paint_outline
from trainer.text.refusals import describe_refusal
from trainer.text.umebotan import FIELD_EN, FIELD_JA, card_name, describe_umebotan, yaku_name

add_messages({
    "mode.umebotan": ("梅牡丹", "Ume Botan"),   # its tab inside Games (遊び)
    "ume.rounds": ("回戦数", "Rounds"),
    "ume.level.random": ("でたらめ", "Random"),
    "ume.level.greedy": ("欲張り", "Greedy"),
    "ume.calculator": ("点数計算…", "Score calculator…"),
    "ume.round": ("第{n}回戦 / {of}", "Round {n} of {of}"),
    "ume.draw_pile_label": ("山札", "Draw pile"),
    "ume.drawn": ("めくった札", "Drawn"),
    "ume.line": ("手札 {hand} · {points} 点 · 累計 {total:+d}", "Hand {hand} · {points} pts · total {total:+d}"),
    "ume.choose": ("{card} は場の2枚に合います: 取る札をクリック",
                   "{card} matches two field cards: click the one to capture"),
    "ume.choose_any": ("雷で取る札をクリック", "Click the card the Lightning captures"),
    "ume.play": ("手札から1枚出してください", "Play a card from your hand"),
    "ume.round_row": ("第{n}回戦", "Round {n}"),
    "ume.kind.bright": ("光", "Brights"),
    "ume.kind.animal": ("タネ", "Animals"),
    "ume.kind.ribbon": ("短冊", "Ribbons"),
    "ume.kind.chaff": ("カス", "Chaff"),
    # the calculator
    "calc.title": ("梅牡丹の点数計算", "Ume Botan score calculator"),
    "calc.help": ("山を選び、その人が取った札をクリックしてください（もう一度クリックで戻す）。"
                  "48枚すべてをどこかの山に入れてから「計算」。",
                  "Pick a pile, then click the cards that player captured (click again to take one back). "
                  "Put all 48 cards in a pile, then press Score."),
    "calc.pile": ("{n} 人目", "Player {n}"),
    "calc.round": ("回戦", "Round"),
    "calc.doubled": ("場の倍付け（×2）", "Field multiplier (×2)"),
    "calc.month": ("月役を数える", "Count Cards of the Month"),
    "calc.spring": ("松竹梅を光役と重複させない", "Spring is exclusive with the Bright yaku"),
    "calc.rest": ("残りをこの山へ", "Rest to this pile"),
    "calc.clear": ("全部戻す", "Clear"),
    "calc.score": ("計算", "Score"),
    "calc.close": ("閉じる", "Close"),
    "calc.cards": ("札の点", "Card points"),
    "calc.yaku": ("役", "Yaku"),
    "calc.score_col": ("得点", "Score"),
    "calc.none": ("なし", "none"),
    "calc.comma": ("、", ", "),            # between the names of the cards in no pile
    "calc.dandruff": ("頭垢: ほかの点と役はすべて無効", "Dandruff: every other score and yaku is cancelled"),
})

KINDS = (BRIGHT, ANIMAL, RIBBON, CHAFF)
CAPTURES = QColor("#d4a017")     # a hand card that captures something
TARGET = QColor("#1f5fbf")       # a field card the person may choose
FULL_CARD_H = 56.0               # a captured card under this height loses its printed aids: drawn small
MINI_STEP = 15.0                 # small captured cards overlap no further: the month number shows
MINI_GAP = 6.0                   # between kinds of small captured cards
MORE_W = 24.0                    # room for "+12" after a kind the box cannot show whole
CAPTURE_LABEL_H = 15.0           # the kind's label over captured cards shown whole
CAPTURE_GAP = 8.0
PILE_COLOURS = (QColor("#c0392b"), QColor("#1f5fbf"), QColor("#2e8b57"), QColor("#8e44ad"))


def field_kind_name(kind: str) -> str:
    return (FIELD_JA if LANG.code == "ja" else FIELD_EN)[kind]


def fan(p: QPainter, cards: Sequence[int], rect: QRectF, h: float, faces: set) -> None:
    """Cards overlapping left to right inside *rect*, each *h* high."""
    if not cards:
        return
    w = h * ASPECT
    step = min(w * 0.55, (rect.width() - w) / max(len(cards) - 1, 1))
    for k, card in enumerate(cards):
        paint_hana(p, QRectF(rect.left() + k * step, rect.top(), w, h), card, faces_painted=faces)


def _text(p: QPainter, rect: QRectF, text: str, px: int, bold: bool = False,
          colour: QColor = QColor("#333"), align: Any = Qt.AlignmentFlag.AlignCenter) -> None:
    p.save()
    f = QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    p.setFont(f)
    p.setPen(colour)
    p.drawText(rect, align, text)
    p.restore()


PILE_LABEL_H = 26.0        # room under the draw pile and the drawn card: two lines of small type


def _fitted(p: QPainter, rect: QRectF, text: str, px: int, bold: bool = False,
            colour: QColor = QColor("#333"), align: Any = Qt.AlignmentFlag.AlignLeft) -> None:
    """A one-line label in *rect*: smaller type when it would not fit, elided if still too long."""
    f = QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    while f.pixelSize() > 9 and QFontMetricsF(f).horizontalAdvance(text) > rect.width():
        f.setPixelSize(f.pixelSize() - 1)
    p.save()
    p.setFont(f)
    p.setPen(colour)
    fm = QFontMetricsF(f)
    if fm.horizontalAdvance(text) > rect.width() and rect.height() >= 2 * fm.lineSpacing():
        # a label given two lines' room ("Draw / pile" under a narrow pile) wraps rather than
        # losing its end: "Dr…" says nothing
        p.drawText(rect, align | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap, text)
    else:
        p.drawText(rect, align | Qt.AlignmentFlag.AlignTop,
                   fm.elidedText(text, Qt.TextElideMode.ElideRight, rect.width()))
    p.restore()


class UmebotanTable(TableView):
    """Ume Botan's drawing in the shared table (see the module docstring)."""

    def __init__(self, clock: Any, parent: Any = None):
        super().__init__(arrangement=RING, hand_height=150, clock=clock, parent=parent)
        self.view: UmeBotanView | None = None
        self.highlighted: set[int] = set()   # cards of the person's legal actions (hand cards, targets)
        self.captures: set[int] = set()      # hand cards that would capture something
        self.targets: set[int] = set()       # field cards the person may click now
        self.selected: int | None = None     # the hand card waiting for its target
        self.faces_painted: set[int] = set()
        self._hand: list[tuple[QRectF, int]] = []
        self._field: list[tuple[QRectF, int]] = []
        self._centre = self._pile = self._drawn = self._reserved = QRectF()
        self.setMinimumSize(560, 420)

    def place(self, seats: list[QRectF], centre: QRectF, hand: QRectF) -> None:
        self._hand, self._field = [], []
        v = self.view
        if v is None:
            return
        h = hand.height() - 30
        w = h * ASPECT
        step = min(w + 10, (hand.width() - 24 - w) / max(len(v.hand) - 1, 1))
        for k, card in enumerate(v.hand):
            raised = card == self.selected or (card in self.highlighted and self.selected is None)
            self._hand.append((QRectF(hand.left() + 12 + k * step, hand.top() + (6 if raised else 20), w, h), card))
        area = free_centre(centre, self.seat_rects())
        self._centre = area
        pile_w = min(90.0, area.width() * 0.18)
        grid = area.adjusted(pile_w + 16, 24, 0, 0)
        n = len(v.field) + (1 if v.reserved else 0)
        self._field = [(r, card) for r, card in zip(_grid(grid, n), v.field)]
        self._reserved = _grid(grid, n)[-1] if v.reserved else QRectF()
        ph = min(pile_w / ASPECT, area.height() * 0.42)
        self._pile = QRectF(area.left(), area.top() + 24, ph * ASPECT, ph)
        self._drawn = QRectF(area.left(), self._pile.bottom() + PILE_LABEL_H + 4, ph * ASPECT, ph)

    def paintEvent(self, event) -> None:
        self.faces_painted = set()
        super().paintEvent(event)

    # -- drawing ---------------------------------------------------------------------------------
    def paint_centre(self, p: QPainter, rect: QRectF) -> None:
        v = self.view
        if v is None:
            return
        area = self._centre
        head = tr("ume.round", n=v.round_no, of=v.rounds)
        if v.round_no:
            mult = 2 if v.field_kind != "normal" else 1
            head += f" · {field_kind_name(v.field_kind)} ×{mult}"
        _fitted(p, QRectF(area.left(), area.top(), area.width(), 20), head, 15, bold=True,
                colour=QColor("#7a2e12"), align=Qt.AlignmentFlag.AlignHCenter)
        if v.draw_pile:
            paint_card_back(p, self._pile)
            _text(p, self._pile, str(v.draw_pile), int(self._pile.width() * 0.45), bold=True,
                  colour=QColor(255, 235, 200))
        _fitted(p, QRectF(self._pile.left(), self._pile.bottom() + 1, self._pile.width() + 14, PILE_LABEL_H),
                tr("ume.draw_pile_label"), 12)
        if v.drawn is not None:
            paint_hana(p, self._drawn, v.drawn, highlight=CAPTURES, faces_painted=self.faces_painted)
            _fitted(p, QRectF(self._drawn.left(), self._drawn.bottom() + 1, self._drawn.width() + 14,
                              PILE_LABEL_H), tr("ume.drawn"), 12)
        for r, card in self._field:
            paint_hana(p, r, card, highlight=TARGET if card in self.targets else None,
                       faces_painted=self.faces_painted)
        if not self._reserved.isEmpty():     # the Lightning with a face-down card on it, for Player 1
            paint_hana(p, self._reserved, decks.LIGHTNING, faces_painted=self.faces_painted)
            paint_card_back(p, self._reserved.adjusted(self._reserved.width() * 0.35, self._reserved.height() * 0.35,
                                                       self._reserved.width() * 0.2, self._reserved.height() * 0.2))

    def paint_seat(self, p: QPainter, seat: int, rect: QRectF) -> None:
        v = self.view
        if v is None or seat >= v.players:
            return
        pile = v.piles[seat]
        groups = [[c for c in pile if decks.kind(c) == k] for k in KINDS]
        used = [(k, g) for k, g in zip(KINDS, groups) if g]
        if seat != self.me:                   # another seat's hand: backs only
            n = v.hand_counts[seat]
            bh = min(rect.height() * 0.55, 56.0)
            bw = bh * ASPECT
            beside = rect.adjusted(bw + 3 * bw * 0.3 + 10, 0, 0, 0)
            # the backs give way when the captures need the room (the seat's line says "Hand n")
            if not used or self._fits(beside, used):
                for k in range(n):
                    paint_card_back(p, QRectF(rect.left() + (k % 4) * bw * 0.3, rect.top() + (k // 4) * bh * 0.25,
                                              bw, bh))
                rect = beside
        if not used:
            return
        h = self._full_card_h(rect, used)
        if h >= FULL_CARD_H:
            self._paint_captured_cards(p, rect, used, h, CAPTURE_LABEL_H, CAPTURE_GAP)
        else:      # too small for a card's picture and printed aids: month and kind, readable
            self._paint_captured_minis(p, rect, used)

    @staticmethod
    def _full_card_h(rect: QRectF, used: list) -> float:
        """The height of captured cards fanned by kind so that every kind fits the box,
        each fanned card showing 3 px at least."""
        total = sum(len(g) for _, g in used)
        fit = (rect.width() - len(used) * CAPTURE_GAP - (total - len(used)) * 3.0) / len(used)
        return min(rect.height() - CAPTURE_LABEL_H, 84.0, fit / ASPECT)

    def _fits(self, rect: QRectF, used: list) -> bool:
        return self._full_card_h(rect, used) >= FULL_CARD_H or self._mini_plan(rect, used) is not None

    def _paint_captured_cards(self, p: QPainter, rect: QRectF, used: list, h: float, label_h: float,
                              gap: float) -> None:
        """Each kind's captures fanned under a label naming the kind and the count."""
        w = h * ASPECT
        total = sum(len(g) for _, g in used)
        spare = rect.width() - len(used) * (w + gap)
        step = max(3.0, min(w * 0.55, spare / max(total - len(used), 1)))
        x = rect.left()
        for kind, g in used:
            width = w + step * (len(g) - 1)
            fan(p, g, QRectF(x, rect.top() + label_h, width, h), h, self.faces_painted)
            paint_fitted(p, QRectF(x, rect.top(), width + gap - 2, label_h), f"{tr('ume.kind.' + kind)} {len(g)}",
                         11, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            x += width + gap

    @staticmethod
    def _mini_size(rect: QRectF) -> tuple[float, float]:
        h = min(rect.height(), 34.0)
        return h * MINI_ASPECT, h

    def _mini_plan(self, rect: QRectF, used: list) -> list[int] | None:
        """How many of each kind's captures the box shows as small cards (the rest counted
        "+n"): the largest kind gives way first; None when not even one card of each fits."""
        w, _ = self._mini_size(rect)
        shown = [len(g) for _, g in used]

        def width(counts: list[int]) -> float:
            return sum(w + (k - 1) * MINI_STEP + (MORE_W if k < len(g) else 0.0)
                       for k, (_, g) in zip(counts, used)) + MINI_GAP * (len(used) - 1)
        while width(shown) > rect.width():
            k = max(range(len(shown)), key=lambda i: shown[i])
            if shown[k] == 1:
                return None
            shown[k] -= 1
        return shown

    def _paint_captured_minis(self, p: QPainter, rect: QRectF, used: list) -> None:
        """Each kind's captures as small cards (month number, kind mark), side by side; when a
        seat has captured more than the box shows, each kind keeps what fits and says "+n"."""
        w, h = self._mini_size(rect)
        plan = self._mini_plan(rect, used) or [1] * len(used)
        step = MINI_STEP
        if plan == [len(g) for _, g in used]:      # all shown: spread them as the room allows
            spare = rect.width() - MINI_GAP * (len(used) - 1) - len(used) * w
            step = min(w + 2, max(MINI_STEP, spare / max(1, sum(plan) - len(used))))
        top = rect.top() + (rect.height() - h) / 2
        x = rect.left()
        for shown, (_, g) in zip(plan, used):
            for card in g[:shown]:
                paint_hana_mini(p, QRectF(x, top, w, h), card, self.faces_painted)
                x += step
            x += w - step
            if shown < len(g):
                paint_fitted(p, QRectF(x + 1, top, MORE_W - 1, h), f"+{len(g) - shown}", 11, bold=True,
                             align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
                x += MORE_W
            x += MINI_GAP

    def paint_hand(self, p: QPainter, rect: QRectF) -> None:
        v = self.view
        if v is None:
            return
        my_turn = bool(self.highlighted)
        for r, card in self._hand:
            colour = TARGET if card == self.selected else CAPTURES if card in self.captures and my_turn else None
            paint_hana(p, r, card, highlight=colour,
                       dimmed=my_turn and card not in self.highlighted, faces_painted=self.faces_painted)

    def item_at(self, pos: QPointF) -> tuple[int, Any] | None:
        if self.me is None:
            return None
        for r, card in reversed(self._hand):
            if r.contains(pos):
                return (self.me, ("hand", card))
        for r, card in self._field:
            if r.contains(pos):
                return (self.me, ("field", card))
        return None


def _grid(area: QRectF, n: int, gap: float = 8.0) -> list[QRectF]:
    """*n* card rects in rows filling *area* with the largest cards that fit."""
    if n <= 0 or area.width() <= 0 or area.height() <= 0:
        return []
    best: tuple[float, int] = (0.0, 1)
    for rows in range(1, 5):
        cols = math.ceil(n / rows)
        h = min(area.height() / rows - gap, (area.width() / cols - gap) / ASPECT, 130.0)
        if h > best[0]:
            best = (h, rows)
    h, rows = best
    w = h * ASPECT
    cols = math.ceil(n / rows)
    left = area.left() + (area.width() - cols * (w + gap)) / 2
    return [QRectF(left + (k % cols) * (w + gap), area.top() + (k // cols) * (h + gap), w, h) for k in range(n)]


class UmebotanPanel(CardGamePanel):
    """Games → Ume Botan (see the module docstring)."""

    table: UmebotanTable

    def make_table(self) -> UmebotanTable:
        return UmebotanTable(self.clock)

    def build_setup(self, row: QHBoxLayout) -> None:
        self.players_label, self.players = QLabel(), QComboBox()
        self.rounds_label, self.rounds = QLabel(), QComboBox()
        self.level_label, self.level = QLabel(), QComboBox()
        for n in (4, 3):
            self.players.addItem(str(n), n)
        for n in (12, 10, 8, 6, 4, 2):            # "as long as the number of rounds is even"
            self.rounds.addItem(str(n), n)
        for label, box in ((self.players_label, self.players), (self.rounds_label, self.rounds),
                           (self.level_label, self.level)):
            row.addWidget(label)
            row.addWidget(box)
            row.addSpacing(8)
        self.calc_button = QPushButton()
        self.calc_button.clicked.connect(self.open_calculator)
        self.calc_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row.addWidget(self.calc_button)

    def retranslate_setup(self) -> None:
        self.players_label.setText(tr("cards.players"))
        self.rounds_label.setText(tr("ume.rounds"))
        self.level_label.setText(tr("cards.level"))
        self.calc_button.setText(tr("ume.calculator"))
        keep = self.level.currentData() or "greedy"
        self.level.clear()
        for lv in LEVELS:
            self.level.addItem(tr(f"ume.level.{lv}"), lv)
        self.level.setCurrentIndex(max(0, self.level.findData(keep)))

    def open_calculator(self) -> "ScoreCalculator":
        dialog = ScoreCalculator(self)
        dialog.show()
        return dialog

    # -- the game ------------------------------------------------------------------------------------
    def new_session(self, seed: int | str) -> TurnSession:
        variant = registry.find("umebotan")
        players = variant.check_seats(self.players.currentData())
        from trainer.games.umebotan_session import new_session
        self.table.selected = None
        return new_session(variant, seed, self.seats(players),
                           {"level": self.level.currentData(), "rounds": self.rounds.currentData()},
                           clock=self.clock)

    def action_for(self, seat: int, item: Any, legal: Sequence[Any]) -> Any:
        where, card = item
        t = self.table
        if where == "hand":
            plays = [a for a in legal if isinstance(a, Play) and a.card == card]
            if len(plays) == 1:
                t.selected = None
                return plays[0]
            if plays:                            # two matches (or the Lightning's pick): choose
                t.selected = None if t.selected == card else card
                self._changed()
                return None
            return Play(card)                    # refused: the session says why
        if t.selected is not None:
            return next((a for a in legal if isinstance(a, Play) and a.card == t.selected and a.target == card),
                        Play(t.selected, card))
        return next((a for a in legal if isinstance(a, Take) and a.target == card), Take(card))

    def words(self, event: GameEvent) -> str | None:
        if isinstance(event, Dealt) and not event.cards:
            return None                  # another seat's hand: the person learns only its size
        return describe_umebotan(event, self.seat_names(in_log=True))

    def score_row(self, event: GameEvent) -> tuple[str, list[int]] | None:
        if isinstance(event, RoundScored):
            return tr("ume.round_row", n=event.round_no), list(event.scores)
        return None

    def show_view(self) -> None:
        s, t = self.playing, self.table
        v = t.view = s.view(self.me)
        legal = s.legal(self.me) if self.me in s.waiting_for() else []
        if t.selected is not None and not any(isinstance(a, Play) and a.card == t.selected for a in legal):
            t.selected = None
        t.highlighted = ({a.card for a in legal if isinstance(a, Play)}
                         | {a.target for a in legal if isinstance(a, Take)})
        t.captures = {a.card for a in legal if isinstance(a, Play) and (a.target is not None or v.captures(a.card))}
        t.targets = ({a.target for a in legal if isinstance(a, Take)}
                     | {a.target for a in legal
                        if isinstance(a, Play) and a.card == t.selected and a.target is not None})

    def seat_line(self, seat: int) -> str:
        v = self.table.view
        if v is None:
            return ""
        return tr("ume.line", hand=v.hand_counts[seat], points=v.pile_points[seat], total=v.totals[seat])

    def status_text(self) -> str:
        s, t = self.session, self.table
        if s is not None and s.waiting_for() and t.view is not None:
            v = t.view
            if v.drawn is not None:
                return tr("ume.choose_any" if v.drawn == decks.LIGHTNING else "ume.choose", card=card_name(v.drawn))
            if t.selected is not None:
                return tr("ume.choose_any" if t.selected == decks.LIGHTNING else "ume.choose",
                          card=card_name(t.selected))
            return tr("cards.your_turn") + " — " + tr("ume.play")
        return super().status_text()


# =========================================================================== the score calculator

def numbered_name(card: int) -> str:
    """A card's name and its number (the chaff of a month share a name): "Paulownia chaff (122)"."""
    return f"{card_name(card)} ({card})"


class CardGrid(QWidget):
    """The 48 faces, a month per column; each card tagged with the pile it is in."""

    card_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.owner: dict[int, list[int]] = {}    # card -> the piles (0-based) holding it
        self._rects: list[tuple[QRectF, int]] = []
        self.setMinimumSize(12 * 40, 4 * 66)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(12 * 62, 4 * 100)

    def resizeEvent(self, event) -> None:
        gap = 6.0
        h = min((self.height() - 5 * gap) / 4, ((self.width() - 13 * gap) / 12) / ASPECT)
        w = h * ASPECT
        self._rects = [(QRectF(gap + (k // 4) * (w + gap), gap + (k % 4) * (h + gap), w, h), card)
                       for k, card in enumerate(HANAFUDA)]
        super().resizeEvent(event)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for r, card in self._rects:
            piles = self.owner.get(card, [])
            paint_hana(p, r, card, dimmed=bool(piles))
            for k, pile in enumerate(piles):
                paint_outline(p, r.adjusted(2 * k, 2 * k, -2 * k, -2 * k), PILE_COLOURS[pile % 4])
                s = max(14.0, r.width() * 0.4)
                # over the picture, clear of the month chip, the name and the points
                tag = QRectF(r.center().x() - s / 2 + k * (s + 2), r.bottom() - r.height() * 0.22 - s, s, s)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(PILE_COLOURS[pile % 4])
                p.drawEllipse(tag)
                _text(p, tag, str(pile + 1), int(s * 0.65), bold=True, colour=QColor("white"))
        p.end()

    def mousePressEvent(self, event) -> None:
        for r, card in self._rects:
            if r.contains(event.position()):
                self.card_clicked.emit(card)
                return


class ScoreCalculator(QDialog):
    """Ume Botan's score calculator for real cards (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.piles: list[list[int]] = [[] for _ in range(4)]
        self.round_score: RoundScore | None = None     # not `result`: QDialog.result() is Qt's
        self.help = QLabel(wordWrap=True)
        self.players_label, self.players = QLabel(), QComboBox()
        for n in (4, 3):
            self.players.addItem(str(n), n)
        self.round_label, self.round = QLabel(), QSpinBox(minimum=1, maximum=24, value=1)
        self.doubled, self.month, self.spring = QCheckBox(), QCheckBox(), QCheckBox()
        self.month.setChecked(True)
        top = QHBoxLayout()
        for w in (self.players_label, self.players, self.round_label, self.round, self.doubled, self.month,
                  self.spring):
            top.addWidget(w)
        top.addStretch(1)
        self.pile_buttons = QButtonGroup(self)
        pick = QHBoxLayout()
        for k in range(4):
            radio = QRadioButton()
            radio.setStyleSheet(f"color: {PILE_COLOURS[k].name()}; font-weight: bold;")
            self.pile_buttons.addButton(radio, k)
            pick.addWidget(radio)
        self.pile_buttons.button(0).setChecked(True)
        self.rest_button = QPushButton()
        self.rest_button.clicked.connect(self.rest_to_pile)
        self.clear_button = QPushButton()
        self.clear_button.clicked.connect(self.clear)
        self.score_button = QPushButton()
        self.score_button.clicked.connect(self.score)
        self.close_button = QPushButton()
        self.close_button.clicked.connect(self.close)
        for b in (self.rest_button, self.clear_button):
            pick.addWidget(b)
        pick.addStretch(1)
        pick.addWidget(self.score_button)
        self.grid = CardGrid()
        self.grid.card_clicked.connect(self.toggle)
        self.error = QLabel(wordWrap=True)
        self.error.setStyleSheet("color: #c0392b; font-weight: bold;")
        self.summary = QLabel(wordWrap=True)
        self.table = QTableWidget(0, 3)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(110)
        v = QVBoxLayout(self)
        v.addWidget(self.help)
        v.addLayout(top)
        v.addLayout(pick)
        v.addWidget(self.grid, 1)
        v.addWidget(self.error)
        v.addWidget(self.summary)
        v.addWidget(self.table)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.close_button)
        v.addLayout(bottom)
        self.players.currentIndexChanged.connect(self._players_changed)
        LANG.changed.connect(self.retranslate)
        self.retranslate()
        room = self.screen().availableGeometry() if self.screen() is not None else None
        self.resize(min(900, room.width() - 40) if room else 900, min(760, room.height() - 60) if room else 760)

    # -- piles -------------------------------------------------------------------------------------
    def player_count(self) -> int:
        return int(self.players.currentData())

    def set_players(self, n: int) -> None:
        self.players.setCurrentIndex(self.players.findData(n))

    def current_pile(self) -> int:
        return max(0, self.pile_buttons.checkedId())

    def set_piles(self, piles: Sequence[Sequence[int]]) -> None:
        """The piles as given (also ones that are not a partition: `score` says what is wrong)."""
        self.piles = [list(p) for p in piles] + [[] for _ in range(4 - len(piles))]
        self._show_piles()

    def toggle(self, card: int) -> None:
        """A click on a card: into the chosen pile, or back out of it."""
        k = self.current_pile()
        if card in self.piles[k]:
            self.piles[k].remove(card)
        else:
            for pile in self.piles:
                if card in pile:
                    pile.remove(card)
            self.piles[k].append(card)
        self._show_piles()

    def rest_to_pile(self) -> None:
        placed = {c for pile in self.piles for c in pile}
        self.piles[self.current_pile()] += [c for c in HANAFUDA if c not in placed]
        self._show_piles()

    def clear(self) -> None:
        self.piles = [[] for _ in range(4)]
        self._show_piles()

    def _show_piles(self) -> None:
        owner: dict[int, list[int]] = {}
        for k, pile in enumerate(self.piles):
            for c in pile:
                owner.setdefault(c, []).append(k)
        self.grid.owner = owner
        self.grid.update()
        self.retranslate_piles()

    def _players_changed(self) -> None:
        n = self.player_count()
        self.pile_buttons.button(3).setEnabled(n == 4)
        if n == 3 and self.current_pile() == 3:
            self.pile_buttons.button(0).setChecked(True)
        self.retranslate_piles()

    # -- scoring --------------------------------------------------------------------------------------
    def problem(self) -> str | None:
        """What keeps the piles from being scored, in the interface language (None: nothing).
        The check is the scorer's (`check_piles`); only the cards' names are added here."""
        try:
            check_piles(self.piles, self.player_count())
        except PileError as exc:
            return describe_refusal(exc, **self._named(exc))
        return None

    @staticmethod
    def _named(exc: PileError) -> dict[str, str]:
        """The refusal's cards by their names in the interface language."""
        card = exc.fields.get("card")
        missing = exc.fields.get("missing") or ()
        comma = tr("calc.comma")
        named = {"cards": comma.join(numbered_name(c) for c in missing[:6]) + (" …" if len(missing) > 6 else "")}
        if isinstance(card, int) and card in HANAFUDA:
            named["card"] = numbered_name(card)
        return named if missing or "card" in named else {}

    def score(self) -> RoundScore | None:
        """Score the piles (`score_round`, as `karuta score umebotan`), or say what is wrong."""
        self.round_score = None
        self.table.setRowCount(0)
        self.summary.setText("")
        trouble = self.problem()
        self.error.setText(trouble or "")
        if trouble:
            return None
        n = self.player_count()
        self.round_score = score_round(self.piles[:n],
                                       round_no=self.round.value() if self.month.isChecked() else None,
                                       doubled=self.doubled.isChecked(), spring_exclusive=self.spring.isChecked())
        self._show_result()
        return self.round_score

    def _show_result(self) -> None:
        r = self.round_score
        if r is None:
            return
        self.table.setRowCount(len(r.scores))
        self.table.setVerticalHeaderLabels([tr("calc.pile", n=k + 1) for k in range(len(r.scores))])
        for k, score in enumerate(r.scores):
            yaku = ", ".join(f"{yaku_name(y.name)} {y.value}" for y in r.yaku[k]) or tr("calc.none")
            for c, text in enumerate((str(r.card_points[k]), yaku, f"{score:+d}")):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(k, c, item)
        notes = [tr("calc.dandruff")] if r.dandruff else []
        if r.multiplier == 2:
            notes.append("×2")
        self.summary.setText(" · ".join(notes))

    def retranslate_piles(self) -> None:
        for k in range(4):
            self.pile_buttons.button(k).setText(f"{tr('calc.pile', n=k + 1)} ({len(self.piles[k])})")

    def retranslate(self, *_) -> None:
        self.setWindowTitle(tr("calc.title"))
        self.help.setText(tr("calc.help"))
        self.players_label.setText(tr("cards.players"))
        self.round_label.setText(tr("calc.round"))
        self.doubled.setText(tr("calc.doubled"))
        self.month.setText(tr("calc.month"))
        self.spring.setText(tr("calc.spring"))
        self.rest_button.setText(tr("calc.rest"))
        self.clear_button.setText(tr("calc.clear"))
        self.score_button.setText(tr("calc.score"))
        self.close_button.setText(tr("calc.close"))
        self.table.setHorizontalHeaderLabels([tr("calc.cards"), tr("calc.yaku"), tr("calc.score_col")])
        self.retranslate_piles()
        self._show_result()
        if self.error.text():
            self.error.setText(self.problem() or "")
        self.grid.update()
