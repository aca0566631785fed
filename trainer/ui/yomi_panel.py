"""Games → Yomi (読み): the mekurifuda sequence game at the shared table, the person against CPUs.

One panel serves the registry's three variants (``yomi/standard``,
``yomi/wild``, ``yomi37/standard``). The table draws only the person's view
(`trainer.rules.yomi.YomiView`): the other hands are backs with their counts,
the discard pile is in the centre with the number to follow next, the
person's hand along the bottom with the cards they may play now raised and
outlined (exactly ``session.legal(me)``), and a Pass button when passing is
allowed. Faces: mekurifuda (default), western or hanafuda
(`trainer.ui.cards_faces`), as the seed allows.
"""
from __future__ import annotations

from typing import Any, Sequence, cast

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSpinBox

from trainer.games import registry
from trainer.games.protocol import GameEvent
from trainer.games.turn_session import TurnSession
from trainer.players.yomi_cpu import LEVELS
from trainer.rules.yomi import Discard, HandDealt, Lead, Pass, RoundWon, YomiView
from trainer.ui.card_game_panel import CardGamePanel, fill_choices, free_centre
from trainer.ui.cards_faces import ASPECT, FACE_STYLES, paint_mekuri
from trainer.ui.i18n import add_messages, tr
from trainer.ui.settings import Key
from trainer.ui.table_shell import MIN_TEXT_PX, RING, TableView, paint_card_back, paint_fitted, paint_label
from trainer.text.yomi import describe_yomi

add_messages({
    "mode.yomi": ("よみ", "Yomi"),               # its tab inside Games (遊び)
    "yomi.variant": ("ルール", "Rules"),
    "yomi.variant.standard": ("標準（1→10）", "Standard (1→10)"),
    "yomi.variant.wild": ("鬼札入り", "With a wild card"),
    "yomi.variant.yomi37": ("37枚（1→12、手役）", "37 cards (1→12, teyaku)"),
    "yomi.rounds": ("局数", "Rounds"),
    "yomi.faces": ("札の絵柄", "Card faces"),
    "yomi.faces.mekuri": ("めくり札", "Mekurifuda"),
    "yomi.faces.western": ("トランプ", "Western"),
    "yomi.faces.hana": ("花札", "Hanafuda"),
    "yomi.level.random": ("でたらめ", "Random"),
    "yomi.level.chain": ("連続重視", "Runs"),
    "yomi.level.sample": ("読み（強い）", "Sampling (strong)"),
    "yomi.pass": ("パス", "Pass"),
    "yomi.next": ("次は {n}", "Next: {n}"),
    "yomi.next_any": ("次は何でも", "Next: any card"),
    "yomi.lead": ("好きな札で始める", "Lead any card"),
    "yomi.pile": ("捨て札 {n} 枚", "{n} discarded"),
    "yomi.undealt": ("伏せ札", "Undealt"),
    "yomi.discarded_so_far": ("この局に出た札（数ごと）", "Discarded this round, by number"),
    "yomi.wild_is": ("鬼札（万能）", "Wild card"),
    "yomi.cards": ("{n} 枚", "{n} cards"),
    "yomi.card_one": ("{n} 枚", "{n} card"),
    "yomi.dealer": ("親", "dealer"),
    "yomi.round_row": ("第{n}局", "Round {n}"),
    "yomi.won_points": ("{n} 点", "{n} pts"),
    "yomi.rounds_won": ("{n} 勝", "{n} won"),
    "yomi.play_hint": ("{n} を出してください", "Play a {n}"),
})

FACES = Key("games/yomi_faces", "mekuri", choices=FACE_STYLES)
"""The card faces the person chose, remembered between runs."""
VARIANTS = ("yomi/standard", "yomi/wild", "yomi37/standard")
"""The registry's Yomi variants this one panel plays."""
PLAYABLE = QColor("#d4a017")
PASS_COLOUR = QColor("#2e6da4")


class YomiTable(TableView):
    """Yomi's drawing in the shared table (see the module docstring)."""

    def __init__(self, clock: Any, parent: Any = None):
        super().__init__(arrangement=RING, hand_height=150, clock=clock, parent=parent)
        self.view: YomiView | None = None
        self.face_style = "mekuri"         # not `style`: QWidget.style() is Qt's
        self.highlighted: set[Any] = set()   # cards the person may play now, "pass" if they may pass
        self.faces_painted: set[Any] = set()  # what the last paint showed face-up (tests)
        self._hand: list[tuple[QRectF, Any]] = []
        self._pass = QRectF()
        self.setMinimumSize(560, 420)

    # -- layout ------------------------------------------------------------------------------------
    def place(self, seats: list[QRectF], centre: QRectF, hand: QRectF) -> None:
        self._hand, self._pass = [], QRectF()
        if self.view is None:
            return
        cards = self.view.hand
        h = hand.height() - 30
        w = h * ASPECT
        right = hand.right() - 12
        if "pass" in self.highlighted:
            self._pass = QRectF(right - 110, hand.center().y() - 24, 110, 48)
            right = self._pass.left() - 14
        room = right - hand.left() - 12
        step = min(w + 8, (room - w) / max(len(cards) - 1, 1)) if cards else 0
        for k, card in enumerate(cards):
            raised = card in self.highlighted
            top = hand.top() + (6 if raised else 20)
            self._hand.append((QRectF(hand.left() + 12 + k * step, top, w, h), card))

    # -- drawing -------------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        self.faces_painted = set()
        super().paintEvent(event)

    def paint_seat(self, p: QPainter, seat: int, rect: QRectF) -> None:
        v = self.view
        if v is None or seat >= len(v.hand_counts):
            return
        if seat == self.me:               # the person's hand is in the strip below
            self._paint_discarded(p, rect, v)
            return
        n = v.hand_counts[seat]
        h = min(rect.height(), 96.0)
        w = h * ASPECT
        step = min(w * 0.45, (rect.width() - w) / max(n - 1, 1))
        left = rect.center().x() - (w + step * (n - 1)) / 2
        for k in range(n):                     # another seat's cards: backs only
            paint_card_back(p, QRectF(left + k * step, rect.top(), w, h))

    def _paint_discarded(self, p: QPainter, rect: QRectF, v: YomiView) -> None:
        """What has gone onto the pile this round, number by number (everyone saw it): a chip
        per number with a dot per discarded card. On a small screen the title takes one line of
        smaller type and the chips keep numbers a player can read."""
        if not v.discard:
            return
        title = paint_fitted(p, QRectF(rect.left(), rect.top(), rect.width(), 18), tr("yomi.discarded_so_far"),
                             12, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        out = [c.rank for c in v.discard if c != v.wild_card]
        gap = 3.0 if rect.width() / v.loop > 20 else 2.0
        w = min(30.0, (rect.width() - gap * (v.loop - 1)) / v.loop)
        top = title.bottom() + 2
        hgt = min(rect.bottom() - top, 44.0)
        number_px = max(MIN_TEXT_PX, min(15.0, w * 0.6, hgt * 0.5))
        number_h = max(hgt * 0.5, number_px + 2)
        dot = max(1.2, min(2.6, w * 0.09, (hgt - number_h) / 2 - 1))
        for k, n in enumerate(range(1, v.loop + 1)):
            chip = QRectF(rect.left() + k * (w + gap), top, w, hgt)
            p.save()
            p.setPen(QPen(QColor("#cfc4a8"), 1))
            p.setBrush(QColor("#fffaf0") if n != v.needed else QColor("#ffe9a8"))
            p.drawRoundedRect(chip, 4, 4)
            p.restore()
            paint_fitted(p, QRectF(chip.left(), chip.top(), w, number_h), str(n), number_px, bold=True)
            p.save()
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("#7a2e12"))
            dots_y = chip.top() + number_h + (hgt - number_h) / 2
            for d in range(out.count(n)):       # up to four suits: four dots across the chip
                p.drawEllipse(QPointF(chip.left() + w * (0.16 + 0.225 * d), dots_y), dot, dot)
            p.restore()

    def paint_centre(self, p: QPainter, rect: QRectF) -> None:
        v = self.view
        if v is None:
            return
        rect = free_centre(rect, self.seat_rects())
        # the pile on the left half of the centre, what to play next on the right half
        h = min(rect.height() * 0.85, 180.0, rect.width() * 0.3 / ASPECT)
        w = h * ASPECT
        pile = QRectF(rect.left() + rect.width() * 0.32 - w / 2, rect.center().y() - h / 2, w, h)
        shown = v.discard[-3:]
        for k, card in enumerate(shown):       # the last cards peek out under the top one
            off = (len(shown) - 1 - k) * w * 0.22
            paint_mekuri(p, pile.translated(-off, -off * 0.3), card, self.face_style,
                         wild=card == v.wild_card, faces_painted=self.faces_painted)
        if not shown:
            p.save()
            p.setPen(QPen(QColor("#b8ab88"), 2, Qt.PenStyle.DashLine))
            p.drawRoundedRect(pile, 8, 8)
            p.restore()
        info = QRectF(rect.center().x() + 8, pile.top(), rect.width() / 2 - 8, h)
        if v.phase == "lead":
            big = tr("yomi.lead")
        elif v.needed == 0:
            big = tr("yomi.next_any")
        elif v.needed is not None:
            big = tr("yomi.next", n=v.needed)
        else:
            big = ""
        # what to play next, as large as its half of the centre allows on one line, and the
        # pile's count under it (never painted over it)
        said = paint_fitted(p, QRectF(info.left(), info.top(), info.width(), max(h * 0.36, 20.0)), big,
                            min(30.0, max(14.0, info.width() / 6)), bold=True, colour=QColor("#7a2e12"))
        below = max(said.bottom(), info.top()) + 2
        counted = paint_fitted(p, QRectF(info.left(), below, info.width(), 22), tr("yomi.pile", n=len(v.discard)), 14)
        # small legends: the wild card (a rule, the same for every seat: not a card in play, so
        # not counted in faces_painted) and the undealt card, face-down
        row_h = min(52.0, h * 0.24)
        y = counted.bottom() + 6
        legends = ([("wild", tr("yomi.wild_is"))] if v.wild_card is not None else []) + \
                  ([("undealt", tr("yomi.undealt"))] if v.undealt else [])
        for what, text in legends:
            r = QRectF(info.left() + 6, y, row_h * ASPECT, row_h)
            if what == "wild" and v.wild_card is not None:
                paint_mekuri(p, r, v.wild_card, self.face_style, wild=True)
            else:
                paint_card_back(p, r)
            paint_label(p, QRectF(r.right() + 6, r.top(), info.right() - r.right() - 6, r.height()), text, 13,
                   align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            y += row_h + 6

    def paint_hand(self, p: QPainter, rect: QRectF) -> None:
        v = self.view
        if v is None:
            return
        my_turn = bool(self.highlighted)
        for r, card in self._hand:
            playable = card in self.highlighted
            paint_mekuri(p, r, card, self.face_style, wild=card == v.wild_card,
                         highlight=PLAYABLE if playable else None, dimmed=my_turn and not playable,
                         faces_painted=self.faces_painted)
        if not self._pass.isEmpty():
            p.save()
            p.setPen(QPen(PASS_COLOUR.darker(130), 2))
            p.setBrush(PASS_COLOUR)
            p.drawRoundedRect(self._pass, 10, 10)
            p.restore()
            paint_label(p, self._pass, tr("yomi.pass"), 20, bold=True, colour=QColor("white"))

    def item_at(self, pos: QPointF) -> tuple[int, Any] | None:
        if self.me is None:
            return None
        if self._pass.contains(pos):
            return (self.me, "pass")
        for r, card in reversed(self._hand):   # the topmost of overlapping cards
            if r.contains(pos):
                return (self.me, card)
        return None


def card_of(action: Any) -> Any:
    """The card an action plays, "pass" for a pass."""
    return "pass" if isinstance(action, Pass) else getattr(action, "card", None)


class YomiPanel(CardGamePanel):
    """Games → Yomi (see the module docstring)."""

    table: YomiTable

    def make_table(self) -> YomiTable:
        return YomiTable(self.clock)

    def build_setup(self, row: QHBoxLayout) -> None:
        self.variant_label, self.variant = QLabel(), QComboBox()
        self.players_label, self.players = QLabel(), QComboBox()
        self.rounds_label, self.rounds = QLabel(), QSpinBox(minimum=1, maximum=20, value=3)
        self.level_label, self.level = QLabel(), QComboBox()
        self.faces_label, self.faces = QLabel(), QComboBox()
        for n in (4, 3):
            self.players.addItem(str(n), n)
        self.variant.currentIndexChanged.connect(self._variant_changed)
        self.faces.currentIndexChanged.connect(self._faces_changed)
        for label, box in ((self.variant_label, self.variant), (self.players_label, self.players),
                           (self.rounds_label, self.rounds), (self.level_label, self.level),
                           (self.faces_label, self.faces)):
            row.addWidget(label)
            row.addWidget(box)
            row.addSpacing(8)

    def retranslate_setup(self) -> None:
        self.variant_label.setText(tr("yomi.variant"))
        self.players_label.setText(tr("cards.players"))
        self.rounds_label.setText(tr("yomi.rounds"))
        self.level_label.setText(tr("cards.level"))
        self.faces_label.setText(tr("yomi.faces"))
        fill_choices(self.variant, [(tr("yomi.variant." + ("yomi37" if k.startswith("yomi37") else k.split("/")[1])), k)
                                    for k in VARIANTS], announce=True)
        fill_choices(self.level, [(tr(f"yomi.level.{lv}"), lv) for lv in LEVELS], default="chain", announce=True)
        remembered = self.settings.get(FACES) if self.settings is not None else FACES.default
        fill_choices(self.faces, [(tr(f"yomi.faces.{s}"), s) for s in FACE_STYLES], default=remembered,
                     announce=True)

    def _variant_changed(self) -> None:
        key = self.variant.currentData()
        if key is None:
            return
        v = registry.find(*key.split("/"))
        for k in range(self.players.count()):
            n = self.players.itemData(k)
            model = cast(QStandardItemModel, self.players.model())   # a QComboBox's own model
            model.item(k).setEnabled(v.min_seats <= n <= v.max_seats)
        if not v.min_seats <= self.players.currentData() <= v.max_seats:
            self.players.setCurrentIndex(self.players.findData(v.seats))

    def _faces_changed(self) -> None:
        self.table.face_style = self.faces.currentData() or FACES.default
        if self.settings is not None:
            self.settings.set(FACES, self.table.face_style)
        self.table.refresh()

    # -- the game ------------------------------------------------------------------------------------
    def new_session(self, seed: int | str) -> TurnSession:
        variant = registry.find(*self.variant.currentData().split("/"))
        players = variant.check_seats(self.players.currentData())
        from trainer.games.yomi_session import new_session
        return new_session(variant, seed, self.seats(players),
                           {"level": self.level.currentData(), "rounds": self.rounds.value()}, clock=self.clock)

    def action_for(self, seat: int, item: Any, legal: Sequence[Any]) -> Any:
        """What a click means; a card the rules refuse goes to the session, which says why."""
        found = next((a for a in legal if isinstance(a, (Lead, Discard, Pass)) and card_of(a) == item), None)
        if found is not None or item is None or self.session is None:
            return found
        if item == "pass":
            return Pass()
        return Lead(item) if self.session.view(seat).phase == "lead" else Discard(item)

    def words(self, event: GameEvent) -> str | None:
        if isinstance(event, HandDealt) and not event.cards:
            return None                  # another seat's hand: the person learns only its size
        return describe_yomi(event, self.seat_names(in_log=True))

    def score_row(self, event: GameEvent) -> tuple[str, list[int]] | None:
        if not isinstance(event, RoundWon):
            return None
        n = self.session.state.players if self.session else 4
        return tr("yomi.round_row", n=event.round_no), [event.points if s == event.seat else 0 for s in range(n)]

    def show_view(self) -> None:
        s = self.playing
        t = self.table
        t.view = s.view(self.me)
        legal = s.legal(self.me) if self.me in s.waiting_for() else []
        t.highlighted = {card_of(a) for a in legal}

    def seat_line(self, seat: int) -> str:
        v = self.table.view
        if v is None:
            return ""
        n = v.hand_counts[seat]
        line = tr("yomi.card_one" if n == 1 else "yomi.cards", n=n)
        if seat == v.dealer:
            line += " · " + tr("yomi.dealer")
        # the standard game counts rounds won; the 37-card variation scores points
        score = "yomi.won_points" if v.ruleset == "yomi37" else "yomi.rounds_won"
        return line + " · " + tr(score, n=v.scores[seat])

    def status_text(self) -> str:
        s = self.session
        if s is not None and s.waiting_for() and self.table.view is not None:
            v = self.table.view
            if v.phase == "follow" and v.needed:
                return tr("cards.your_turn") + " — " + tr("yomi.play_hint", n=v.needed)
            if v.phase == "lead":
                return tr("cards.your_turn") + " — " + tr("yomi.lead")
        return super().status_text()
