"""Games → floor races: chirashi-dori (散らし取り), sakasama karuta (逆さまかるた), Genpei-gassen
(源平合戦) and relay karuta (リレーかるた), the person at seat 1 against CPUs.

One table for the four games of `trainer.games.chirashi_session` (the game is
chosen in the setup row). The floor is drawn from the person's view only:

- chirashi and sakasama: the 100 cards scattered at their seeded places and
  angles, the seats round the floor with their counts, the person's at the
  bottom. Each card lies in its own cell of the engine's jittered grid, as
  large as the cell allows; the angles are the engine's (up to ±35°) scaled
  down to what the room allows (`ScatterPlan`): a card's border may lie over
  the next cards' borders, as on a floor (the card last touched on top), never
  over their text, and every card's kana stand at least 9 px tall: about ±12°
  in the window at 1024×700, ±30° at 1600×1000. Sakasama lays the yomifuda on
  the floor: the poet's drawn figure (bōzu-mekuri's, `paint_poet`) under the
  kami-no-ku in kanji and kana, as much of it as reads at 9 px;
- Genpei and relay: the two sides, Genji's (the person's team) at the bottom in
  its three rows of 17/17/16, Heiji's upside down at the top; the seats on turn
  (relay) are marked.

The reading is the app's reader (`trainer.ui.reading.ReadingDriver`): the
kami-no-ku, or in sakasama the shimo-no-ku only (the Reader's shimo-only
programme). A click on a card is a touch stamped on the clock at the press;
while the person owes a Genpei card, a click on their side sends it (the
reader holds before the next card). Views draw; the session decides.

Each read the person raced in (a take, a fault, a late or no touch) is a statistics
trial of the game's own kind (``chirashi``, ``sakasama``, ``genpei``, ``relay``,
``shimonoku``), recorded as Match mode records its reads: once the player can say
whether the sound left on time around it (`trainer.ui.race_checks`); a disturbed race
is kept with its reason, marked in the log and left out of the mean shown at the end.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QTransform
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSpinBox,
                               QVBoxLayout, QWidget)

import poems
from audio.clock import SYSTEM, Clock
from trainer.games import registry
from trainer.games.chirashi_session import (HUMAN, CPU, OVER, PLAY, ChirashiSession, Press, Reaction,
                                            ReaderHeld, ReaderReleased, ReadSummary, SendNeeded,
                                            new_session, verse_mark_names)
from trainer.games.protocol import GameEvent, IllegalAction
from trainer.players.karuta_cpu import LEVELS
from trainer.players.race_cpu import seat_position
from trainer.rules.chirashi import SCATTER_ANGLE, SCATTER_JITTER, ReadStarted, View, scatter_grid
from trainer.rules.shimonoku import AREA_ROWS, NANAE_ROWS, OPPOSITE, column_widths, screen_column
from trainer.text.chirashi import log_line
from trainer.text.refusals import describe_refusal
from trainer.ui import settings as S
from trainer.ui.bozu_panel import FACE, FACE_EDGE, paint_poet
from trainer.ui.i18n import LANG, add_messages, tr
from trainer.ui.race_checks import RaceChecks
from trainer.ui.stats_store import UsesStatsStore
from trainer.ui.torifuda import (ASPECT, card_face, kana_px_on, paint_kana, paint_torifuda, torifuda_columns,
                                 torifuda_layout)

RACE_GAMES = ("chirashi", "sakasama", "genpei", "relay", "shimonoku")
RACE_VARIANTS = {"nanae": ("shimonoku", "nanae")}      # the setup's other choices: (game, registry variant)
RACE_TABLES = RACE_GAMES + tuple(RACE_VARIANTS)

add_messages({
    "mode.chirashi": ("散らし取り・源平", "Chirashi · Genpei"),
    "race.game": ("遊び方", "Game"),
    "race.game.chirashi": ("散らし取り", "Chirashi-dori"),
    "race.game.sakasama": ("逆さまかるた", "Sakasama karuta"),
    "race.game.genpei": ("源平合戦", "Genpei-gassen"),
    "race.game.relay": ("リレーかるた", "Relay karuta"),
    "race.players": ("人数", "Players"),
    "race.level": ("相手", "CPU level"),
    "race.start": ("始める", "Start"),
    "race.stop": ("やめる", "Stop"),
    "race.you": ("あなた", "You"),
    "race.seat": ("席{n}", "Seat {n}"),
    "race.count": ("{n}枚", "{n} cards"),
    "race.ready": ("遊び方と人数を選んで「始める」を押してください",
                   "Choose a game and the players, then press Start"),
    "race.reading": ("{number}枚目を読んでいます。札をクリックして取ってください",
                     "Reading card {number}: click the card to take it"),
    "race.resting": ("お手つきのため、この札は休み", "You sit out this card (a fault)"),
    "race.not_turn": ("この札はあなたの番ではありません", "It is not your turn for this card"),
    "race.send": ("自陣の札を{cards}枚クリックして相手陣へ送ってください",
                  "Click {cards} card(s) of your side to send to the other side"),
    "race.over": ("終局: {result}", "Game over: {result}"),
    "race.won": ("あなたの勝ち", "you won"),
    "race.lost": ("勝ちは{winners}", "won by {winners}"),
    "race.mean": ("あなたの平均 {ms} ms", "your mean take {ms} ms"),
    "race.side.0": ("源氏（あなたの組）{n}枚", "Genji (your team): {n}"),
    "race.side.1": ("平氏 {n}枚", "Heiji: {n}"),
    "race.on_turn": ("番", "on turn"),
    "race.stats_failed": ("統計に記録できませんでした: {error}", "Could not record the statistics: {error}"),
    "race.game.shimonoku": ("下の句かるた", "Shimonoku karuta"),
    "race.game.nanae": ("下の句かるた（七飯）", "Shimonoku (Nanae)"),
    "race.role.0": ("攻め", "offence"),
    "race.role.1": ("中堅", "midfield"),
    "race.role.2": ("守り", "defence"),
    "race.left": ("抜けた", "left the floor"),
    "race.team.0": ("あなたの組 {n}枚", "Your team: {n}"),
    "race.team.1": ("相手の組 {n}枚", "Other team: {n}"),
})

FLOOR = QColor("#c9b48a")
TATAMI_LINE = QColor("#b09a6c")
LAST_TAKEN = QColor("#c0392b")
SEND_MARK = QColor("#d4a017")
REACH = QColor("#d4a017")


LEGIBLE_KANA_PX = 9          # the smallest kana a player is asked to read (the legibility walk's floor)
TILT_KEEPS = 0.7             # lying askew may cost a scattered card at most 30 % of its kana size
CELL_GAP = 3.0               # px kept clear between one card's text and the next cell's cards
TEXT_PAD = 0.04              # the blank round a torifuda's text inside its face (`torifuda_layout`'s)
TYPICAL_TORIFUDA = ["あ" * 5, "あ" * 5, "あ" * 4]      # 14 kana: 88 of the 100 shimo-no-ku


def turned_box(w: float, h: float, tilt: float) -> tuple[float, float]:
    """The upright box a w×h card turned by `tilt` degrees covers."""
    c, s = abs(math.cos(math.radians(tilt))), abs(math.sin(math.radians(tilt)))
    return w * c + h * s, w * s + h * c


def text_size(card_w: float) -> tuple[float, float]:
    """The box a card `card_w` wide keeps its kana in: its face less the text's blank."""
    face = card_face(QRectF(0, 0, card_w, card_w / ASPECT))
    return face.width() * (1 - 2 * TEXT_PAD), face.height() * (1 - 2 * TEXT_PAD)


def _fits(card_w: float, tilt: float, cell_w: float, cell_h: float) -> bool:
    """A card `card_w` wide lying at `tilt` may lie in a cell: in each direction some reach `a`
    into the next cells exists with its outline within the cell and `a` on each side, and its
    text within the cell less `a` and the gap on each side (so a neighbour's edge never covers
    it: cards overlap at their borders, as on a floor, never over text)."""
    outer = turned_box(card_w, card_w / ASPECT, tilt)
    text = turned_box(*text_size(card_w), tilt)
    return all(o + t <= 2 * cell - CELL_GAP and t <= cell - CELL_GAP
               for o, t, cell in zip(outer, text, (cell_w, cell_h)))


@lru_cache(maxsize=512)
def widest_card(cell_w: float, cell_h: float, tilt: float) -> float:
    """The widest card (px) that `_fits` a cell at `tilt` (to a tenth of a pixel)."""
    low, high = 1.0, max(1.0, cell_w * 1.5)
    while high - low > 0.1:
        mid = (low + high) / 2
        low, high = (mid, high) if _fits(mid, tilt, cell_w, cell_h) else (low, mid)
    return low


@dataclass(frozen=True)
class ScatterPlan:
    """How a scattered floor is drawn in the room it has: the engine's grid cells, one card
    size, and the widest angle the cards may lie at. The angle is the widest (up to the
    engine's ±35°) at which a card still fits its cell (`_fits`: its border may lie over the
    next cells' borders, never over their text) and a typical card's kana stay at least
    `LEGIBLE_KANA_PX` tall and no less than `TILT_KEEPS` of what a straight card would show."""
    cell_w: float
    cell_h: float
    card_w: float
    tilt: float

    @staticmethod
    def for_room(cell_w: float, cell_h: float) -> "ScatterPlan":
        straight = widest_card(cell_w, cell_h, 0.0)
        want = max(LEGIBLE_KANA_PX, TILT_KEEPS * kana_px_on(straight, TYPICAL_TORIFUDA))
        for tilt in range(int(SCATTER_ANGLE), 0, -1):
            w = widest_card(cell_w, cell_h, float(tilt))
            if kana_px_on(w, TYPICAL_TORIFUDA, tilt) >= want:
                return ScatterPlan(cell_w, cell_h, w, float(tilt))
        return ScatterPlan(cell_w, cell_h, straight, 0.0)

    def reach(self) -> tuple[float, float]:
        """How far (px) the most askew card's outline reaches past its cell, across and down."""
        outer = turned_box(self.card_w, self.card_w / ASPECT, self.tilt)
        return max(0.0, (outer[0] - self.cell_w) / 2), max(0.0, (outer[1] - self.cell_h) / 2)

    def card_tilt(self, columns: list[str]) -> float:
        """The widest angle this card may lie at: the floor's, less if its own text (a longer
        shimo-no-ku) would fall under the legible size when turned."""
        return _card_tilt(self.card_w, self.tilt, tuple(columns))

    def place(self, x: float, y: float, angle: float, widest: float) -> tuple[float, float, float]:
        """A card's centre (in floor pixels from the floor's corner) and angle, from the engine's
        spot: in its own cell, off the centre by the engine's jitter scaled to the room left
        (its outline within the floor's reach past the cell, its text clear of the next cells'
        by the gap), at the engine's angle scaled to the card's `widest` (see `card_tilt`)."""
        cols, rows = scatter_grid(100)
        c, r = min(cols - 1, int(x * cols)), min(rows - 1, int(y * rows))
        tilt = angle / SCATTER_ANGLE * widest
        outer = turned_box(self.card_w, self.card_w / ASPECT, tilt)
        text = turned_box(*text_size(self.card_w), tilt)
        slack = [max(0.0, min(cell + 2 * a - o, cell - CELL_GAP - 2 * a - t)) / 2
                 for cell, a, o, t in zip((self.cell_w, self.cell_h), self.reach(), outer, text)]
        jx, jy = SCATTER_JITTER
        fx = max(-1.0, min(1.0, (x * cols - c - 0.5) / jx))
        fy = max(-1.0, min(1.0, (y * rows - r - 0.5) / jy))
        return (c + 0.5) * self.cell_w + fx * slack[0], (r + 0.5) * self.cell_h + fy * slack[1], tilt


@lru_cache(maxsize=256)
def _card_tilt(w: float, widest: float, columns: tuple[str, ...]) -> float:
    for tilt in range(int(widest), 0, -1):
        if kana_px_on(w, list(columns), tilt) >= LEGIBLE_KANA_PX:
            return float(tilt)
    return 0.0


def _yomifuda_columns(no: int) -> list[str]:
    """Sakasama's floor card: the kami-no-ku as printed on the yomifuda, one column per phrase."""
    return list(poems.get(no).kami)


YOMIFUDA_TEXT = 0.58         # the top of a sakasama floor card holds the poem, the rest the poet


def poet_figure(no: int) -> str:
    """The figure bōzu-mekuri draws for the poet of poem `no` (Semimaru has his own)."""
    from poems.poets import poets
    poet = poets()[no]
    return "semimaru" if "semimaru" in poet.marks else poet.kind


def paint_floor_yomifuda(p: QPainter, rect: QRectF, no: int, *, tilt: float = 0.0,
                         highlight: QColor | None = None) -> None:
    """Sakasama's floor card, a yomifuda: the kami-no-ku in columns at the top (its beginning
    only when the card is too small to show all of it at `LEGIBLE_KANA_PX`), the poet's drawn
    figure below, as on a real yomifuda."""
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    radius = rect.width() * 0.06
    p.setPen(QPen(FACE_EDGE, max(1.0, rect.width() * 0.03)))
    p.setBrush(FACE)
    p.drawRoundedRect(rect, radius, radius)
    face = card_face(rect)
    text = QRectF(face.left(), face.top(), face.width(), face.height() * YOMIFUDA_TEXT)
    paint_kana(p, torifuda_layout(text, _yomifuda_columns(no), legible_px=LEGIBLE_KANA_PX, tilt=tilt))
    picture = QRectF(face.left() + face.width() * 0.12, text.bottom(), face.width() * 0.76,
                     face.bottom() - text.bottom())
    paint_poet(p, picture, poet_figure(no))
    if highlight is not None:
        p.setPen(QPen(highlight, max(2.0, rect.width() * 0.06)))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(rect, radius, radius)
    p.restore()


class FloorView(QWidget):
    """The floor: cards at their spots, the seats round it; a press on a card is `touched`."""

    touched = Signal(int, float)            # card, clock stamp of the press

    def __init__(self, clock: Clock = SYSTEM, parent=None):
        super().__init__(parent)
        self.clock = clock
        self.view: View | None = None
        self.players = 0
        self.teams = False
        self.areas = False                   # shimonoku karuta: each seat's own area
        self.area_rows = AREA_ROWS           # rows an area's cards are laid in (Nanae: 3)
        self.sakasama = False
        self.names: list[str] = []
        self.last: int | None = None
        self.sending = False
        self.me = 0                          # the person's seat (online it may be any)
        self.own_side = 0                    # the side a send marks (Genpei: the giver's)
        self.turned = False                  # the floor turned half round toward the person (`turn_toward`)
        self.setMinimumSize(520, 420)
        self.plan: ScatterPlan | None = None     # a scattered floor's geometry in the room it has
        self.on_top: int | None = None           # the card last touched: drawn over its neighbours' borders
        self._rects: dict[int, tuple[QPointF, float, float, float]] = {}   # card: centre, w, h, angle

    def turn_toward(self, me: int) -> None:
        """The person sits at seat `me` (online it may be any): the floor is turned half round
        when that brings their seat to the bottom edge, their own side (Genpei, relay), their
        own area (shimonoku) or their place in the circle (a scattered floor) nearest them.
        A seat at the left or right of a scattered floor keeps it as it is: the cards always
        read upright, whichever way the floor is turned."""
        self.me = me
        if self.teams and not self.areas:
            self.turned = me % 2 == 1
        elif self.areas:
            self.turned = me >= 3
        else:
            self.turned = seat_position(me, self.players, False)[1] < 0.5 - 1e-9

    # -- geometry -----------------------------------------------------------------------------------
    def floor_rect(self) -> QRectF:
        m = 34.0                          # room for the seats' labels round the floor
        mx = 6.0 if self.teams or self.areas else m     # Genpei and shimonoku: players above and below only
        return QRectF(mx, m, self.width() - 2 * mx, self.height() - 2 * m)

    def card_size(self) -> tuple[float, float]:
        f = self.floor_rect()
        if self.areas and self.view is not None:
            total = sum(column_widths(self.view.side_counts, self.area_rows))
            w = min(f.width() / total * 0.92, f.height() / (2 * self.area_rows) * 0.9 * ASPECT)
        elif self.teams:
            w = min(f.width() / 17 * 0.94, f.height() / 6 * 0.9 * ASPECT)
        else:
            w = self.scatter_plan().card_w
        return w, w / ASPECT

    def scatter_plan(self) -> ScatterPlan:
        f = self.floor_rect()
        cols, rows = scatter_grid(100)
        return ScatterPlan.for_room(f.width() / cols, f.height() / rows)

    def columns(self, card: int) -> list[str]:
        """The text a floor card carries: the torifuda's shimo-no-ku, or sakasama's yomifuda."""
        return _yomifuda_columns(card) if self.sakasama else torifuda_columns(poems.get(card).shimo_kana)

    def _layout(self) -> None:
        self._rects = {}
        v = self.view
        if v is None:
            return
        f = self.floor_rect()
        scattered = not (self.teams or self.areas)
        self.plan = self.scatter_plan() if scattered else None
        w, h = self.card_size()
        for card, spot in v.floor:
            if self.plan is not None:
                # a yomifuda shows as much of its poem as reads at any angle: the floor's widest
                widest = self.plan.tilt if self.sakasama else self.plan.card_tilt(self.columns(card))
                sx, sy = (1 - spot.x, 1 - spot.y) if self.turned else (spot.x, spot.y)   # cell for cell
                x, y, angle = self.plan.place(sx, sy, spot.angle, widest)
                self._rects[card] = (QPointF(f.left() + x, f.top() + y), w, h, angle)
                continue
            x, y, angle = spot.x, spot.y, spot.angle
            if self.turned:                   # the whole floor turned half round: its far side upside down
                x, y, angle = 1 - x, 1 - y, (0.0 if abs(angle) == 180.0 else 180.0)
            centre = QPointF(f.left() + x * f.width(), f.top() + y * f.height())
            self._rects[card] = (centre, w, h, angle)
        if self.on_top in self._rects:           # drawn last, found first
            self._rects[self.on_top] = self._rects.pop(self.on_top)

    def card_at(self, pos: QPointF) -> int | None:
        """The topmost card under `pos` (cards drawn later lie on top)."""
        for card in reversed(list(self._rects)):
            centre, w, h, angle = self._rects[card]
            local = QTransform().rotate(-angle).map(pos - centre)
            if abs(local.x()) <= w / 2 and abs(local.y()) <= h / 2:
                return card
        return None

    def card_rect(self, card: int) -> QRectF:
        """The card's unrotated rect around its centre (tests click its centre)."""
        centre, w, h, _ = self._rects[card]
        return QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h)

    # -- events ------------------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        stamp = self.clock.now()
        card = self.card_at(event.position())
        if card is not None:
            self.on_top = card                   # as a hand on a floor: the touched card lies on top
            self._rects[card] = self._rects.pop(card)
            self.update()
            self.touched.emit(card, stamp)

    def resizeEvent(self, event) -> None:
        self._layout()
        super().resizeEvent(event)

    def refresh(self) -> None:
        self._layout()
        self.update()

    # -- painting ----------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#e8dcc0"))
        f = self.floor_rect()
        p.fillRect(f, FLOOR)
        p.setPen(QPen(TATAMI_LINE, 1))
        if self.teams:
            p.setPen(QPen(QColor("#6b5a3a"), 2))
            p.drawLine(QPointF(f.left(), f.center().y()), QPointF(f.right(), f.center().y()))
        v = self.view
        if v is not None and self.areas:
            self._paint_areas(p, v)
        if v is not None:
            self._paint_cards(p, v)
            self._paint_seats(p, v)
        p.end()

    def area_rect(self, seat: int) -> QRectF:
        """A shimonoku seat's area on the floor (its screen column, its team's half)."""
        f = self.floor_rect()
        widths = column_widths(self.view.side_counts, self.area_rows) if self.view is not None else [5, 5, 5]
        total, c = sum(widths), screen_column(seat)
        x = f.left() + f.width() * sum(widths[:c]) / total
        half = f.height() / 2
        area = QRectF(x, f.top() + (half if seat < 3 else 0), f.width() * widths[c] / total, half)
        if self.turned:                       # half round: the far team's areas below
            area.moveTopLeft(QPointF(f.left() + f.right() - area.right(), f.top() + f.bottom() - area.bottom()))
        return area

    def _paint_areas(self, p: QPainter, v: View) -> None:
        """Each player's area, the person's reach (own and the opponent facing) outlined."""
        reach = {self.me, OPPOSITE[self.me]}
        for seat in range(self.players):
            rect = self.area_rect(seat).adjusted(3, 3, -3, -3)
            gone = seat not in v.eligible
            p.setBrush(QColor(0, 0, 0, 40) if gone else QColor(255, 255, 255, 30))
            p.setPen(QPen(REACH if seat in reach and not gone else TATAMI_LINE, 3 if seat in reach else 1))
            p.drawRoundedRect(rect, 6, 6)

    def _paint_cards(self, p: QPainter, v: View) -> None:
        own_side = self.own_side
        for card, (centre, w, h, angle) in self._rects.items():
            p.save()
            p.translate(centre)
            flipped = abs(angle) == 180.0       # the other side's cards: drawn upside down, not turned
            tilt = 0.0 if flipped else angle
            p.rotate(tilt)
            spot = v.spot(card)
            mark = SEND_MARK if self.sending and spot is not None and spot.side == own_side else None
            if self.sakasama:
                paint_floor_yomifuda(p, QRectF(-w / 2, -h / 2, w, h), card, tilt=tilt, highlight=mark)
                p.restore()
                continue
            paint_torifuda(p, QRectF(-w / 2, -h / 2, w, h), self.columns(card), highlight=mark,
                           upside_down=flipped, legible_px=LEGIBLE_KANA_PX, tilt=tilt)
            p.restore()

    def _seat_place(self, seat: int) -> tuple[float, float, bool]:
        if self.areas:                        # under (or over) the seat's own area
            r, f = self.area_rect(seat), self.floor_rect()
            return r.center().x(), (f.bottom() + 17 if r.center().y() > f.center().y() else f.top() - 17), False
        x, y = seat_position(seat, self.players, self.teams)
        if self.turned:
            x, y = 1 - x, 1 - y
        return self._label_place(x, y)

    def _label_place(self, x: float, y: float) -> tuple[float, float, bool]:
        """Where a seat's label goes: in the margin round the floor, in the seat's direction from
        the floor's centre (on a scattered floor) or along its team's edge (Genpei); and whether
        it lies along a left or right edge (then it is drawn turned)."""
        f = self.floor_rect()
        if self.teams:
            return f.left() + x * f.width(), (f.top() - 17 if y < 0.5 else f.bottom() + 17), False
        half_w, half_h = f.width() / 2 + 17, f.height() / 2 + 17
        dx, dy = (x - 0.5) * f.width(), (y - 0.5) * f.height()
        tx = half_w / abs(dx) if dx else math.inf
        ty = half_h / abs(dy) if dy else math.inf
        t = min(tx, ty)
        return f.center().x() + dx * t, f.center().y() + dy * t, tx < ty

    def _paint_seats(self, p: QPainter, v: View) -> None:
        font = QFont(self.font())
        font.setPixelSize(13)
        font.setBold(True)
        p.setFont(font)
        for seat in range(self.players):
            x, _ = seat_position(seat, self.players, self.teams)
            x = 1 - x if self.turned else x
            cx, cy, along_side = self._seat_place(seat)
            name = self.names[seat] if seat < len(self.names) else str(seat + 1)
            n = len(v.taken[seat])
            if self.areas:
                text = f"{name} · {tr(f'race.role.{seat % 3}')}  {tr('race.count', n=v.side_counts[seat])}"
                if seat not in v.eligible:
                    text = f"{name} · {tr('race.left')}"
            else:
                text = name if self.teams else f"{name}  {tr('race.count', n=n)}"
            if seat in v.resting:
                text += " ✕"
            if self.teams and not self.areas and seat in v.on_turn and v.on_turn:
                text += f" ◆{tr('race.on_turn')}"
            width = p.fontMetrics().horizontalAdvance(text) + 16
            if along_side:                   # the whole label stays on screen, corners too
                cy = min(max(cy, width / 2 + 2), self.height() - width / 2 - 2)
            else:
                cx = min(max(cx, width / 2 + 2), self.width() - width / 2 - 2)
            p.save()
            p.translate(cx, cy)
            if along_side:                   # a seat at the side: its label runs along the edge
                p.rotate(-90 if x < 0.5 else 90)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(255, 255, 255, 200) if seat != self.me else QColor("#fff3c4"))
            p.drawRoundedRect(QRectF(-width / 2, -11, width, 22), 6, 6)
            p.setPen(QColor("#222"))
            p.drawText(QRectF(-width / 2, -11, width, 22), Qt.AlignmentFlag.AlignCenter, text)
            p.restore()


class ChirashiPanel(UsesStatsStore, QWidget):
    """Games → the floor races (see the module docstring)."""

    def __init__(self, settings, voices, driver=None, clock: Clock = SYSTEM, parent=None, store=None):
        super().__init__(parent)
        self.settings = settings
        self.voices = voices
        self.clock = clock
        self._store = store                  # statistics store; the shared one on first use
        if driver is None:
            from trainer.ui.reading import ReadingDriver
            driver = ReadingDriver(voices, parent=self)
        self.driver = driver
        self.session: ChirashiSession | None = None
        self.kind = RACE_GAMES[0]            # the statistics kind of the game in play
        self.race_checks = RaceChecks(self.driver, clock)
        self.disturbed: dict[int, str] = {}      # read number -> why its race is not counted
        self._race_at: tuple[int, float | None] = (0, None)   # the open read: number, kimariji time
        self._takes: list[tuple[int, int]] = []                # the person's takes: number, ms
        self._showing = self._relog_due = False
        self.message = ""
        self._build()
        self.driver.card_started.connect(self._on_card_started)
        self.driver.card_finished.connect(self._on_card_finished)
        self.driver.finished.connect(self._on_reading_finished)
        self.driver.error.connect(self._on_error)
        self.floor.touched.connect(self.press)
        self.timer = QTimer(self, interval=10)
        self.timer.timeout.connect(self.tick)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def _build(self) -> None:
        self.game_label, self.game = QLabel(), QComboBox()
        self.players_label, self.players = QLabel(), QSpinBox(minimum=1, maximum=8, value=4)
        self.level_label, self.level = QLabel(), QComboBox()
        self.start_button, self.stop_button = QPushButton(), QPushButton()
        self.start_button.clicked.connect(lambda: self.start_game())
        self.stop_button.clicked.connect(self.stop_game)
        self.game.currentIndexChanged.connect(self._game_changed)
        row = QHBoxLayout()
        for label, box in ((self.game_label, self.game), (self.players_label, self.players),
                           (self.level_label, self.level)):
            row.addWidget(label)
            row.addWidget(box)
            row.addSpacing(6)
        row.addStretch(1)
        row.addWidget(self.start_button)
        row.addWidget(self.stop_button)
        self.floor = FloorView(self.clock)
        self.status = QLabel(wordWrap=True)
        self.scores = QLabel(wordWrap=True)
        self.scores.setTextFormat(Qt.TextFormat.RichText)
        self.log = QPlainTextEdit(readOnly=True)
        side = QVBoxLayout()
        side.addWidget(self.status)
        side.addWidget(self.scores)
        side.addWidget(self.log, 1)
        side_box = QWidget()
        side_box.setLayout(side)
        side_box.setFixedWidth(230)
        body = QHBoxLayout()
        body.addWidget(self.floor, 1)
        body.addWidget(side_box)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addLayout(row)
        outer.addLayout(body, 1)

    # -- setup -------------------------------------------------------------------------------------
    def chosen_table(self) -> str:
        """The setup's choice: a game, or one of its variants (`RACE_VARIANTS`)."""
        return self.game.currentData() or RACE_GAMES[0]

    def chosen_game(self) -> str:
        """The game chosen (a variant's game): the statistics kind."""
        return RACE_VARIANTS.get(self.chosen_table(), (self.chosen_table(),))[0]

    def chosen_variant(self) -> registry.Variant:
        return registry.find(*RACE_VARIANTS.get(self.chosen_table(), (self.chosen_table(), None)))

    def _game_changed(self, *_) -> None:
        v = self.chosen_variant()
        self.players.setRange(v.min_seats, min(v.max_seats, 8))
        self.players.setValue(max(v.min_seats, min(self.players.value(), 8)))

    def retranslate(self, *_) -> None:
        self.game_label.setText(tr("race.game"))
        self.players_label.setText(tr("race.players"))
        self.level_label.setText(tr("race.level"))
        self.start_button.setText(tr("race.start"))
        self.stop_button.setText(tr("race.stop"))
        current = self.chosen_table() if self.game.count() else None
        self.game.blockSignals(True)
        self.game.clear()
        for g in RACE_TABLES:
            self.game.addItem(tr(f"race.game.{g}"), g)
        if current:
            self.game.setCurrentIndex(RACE_TABLES.index(current))
        self.game.blockSignals(False)
        level = self.level.currentData() or (str(self.settings.get(S.CPU_LEVEL)) if self.settings else "club")
        self.level.clear()
        for name in LEVELS:
            self.level.addItem(tr(f"level.{name}"), name)
        self.level.setCurrentIndex(max(0, list(LEVELS).index(level) if level in LEVELS else 2))
        self.show_state()
        self._relog()

    # -- the game ----------------------------------------------------------------------------------
    def seat_names(self) -> list[str]:
        n = len(self.session.seats) if self.session else 0
        return [tr("race.you") if s == 0 else tr("race.seat", n=s + 1) for s in range(n)]

    def start_game(self, seed: Any = None) -> None:
        self.stop_game()
        game = self.chosen_game()
        variant = self.chosen_variant()
        players = variant.check_seats(self.players.value())
        seed = random.randrange(1 << 30) if seed is None else seed
        seats = (HUMAN,) + (CPU,) * (players - 1)
        self.session = new_session(variant, seed, seats, {"clock": self.clock,
                                                           "cpu_level": self.level.currentData() or "club"})
        self.kind = game
        self.disturbed, self._race_at, self._takes = {}, (0, None), []
        self.log.clear()
        self.floor.players = players
        self.floor.teams = self.session.options.teams
        self.floor.areas = self.session.options.game == "shimonoku"
        self.floor.area_rows = NANAE_ROWS if self.session.options.nanae else AREA_ROWS
        self.floor.sakasama = game == "sakasama"      # the yomifuda lie on the floor
        self.floor.names = self.seat_names()
        self.floor.last = None
        self.message = ""
        self._show(self.session.begin())
        if self.settings is not None:
            from trainer.reader.session import ReadingTiming
            g = self.settings.get
            timing = ReadingTiming(ma=g(S.MA), pause=g(S.PAUSE), speed=g(S.SPEED), voice=g(S.VOICE),
                                   joka=False, shimo_only=self.session.verse == "shimo")
        else:
            from trainer.reader.session import ReadingTiming
            timing = ReadingTiming(joka=False, shimo_only=self.session.verse == "shimo")
        self.driver.start(self.session.order, timing=timing, joka=False)
        self.timer.start()

    def stop_game(self) -> None:
        if self.session is not None and self.session.phase != OVER:
            self._show(self.session.abandon())
        self.driver.stop()
        self.timer.stop()
        self.race_checks.flush()             # the game's races are recorded, not dropped

    def shutdown(self) -> None:
        self.stop_game()

    def _on_card_started(self, poem: int) -> None:
        s = self.session
        if s is None or poem not in s.order:
            return
        index = s.order.index(poem)
        self._show(s.verse_started(poem, {name: self._mark_time(index, name)
                                          for name in verse_mark_names(poem, s.verse)}))

    def _mark_time(self, index: int, name: str) -> float | None:
        """When a mark sounded; None when the voice's clip has no such mark (an imported reading
        without mora marks): the session then places it by the nominal pace."""
        try:
            return self.driver.mark_time(index, name)
        except KeyError:
            return None

    def _on_card_finished(self, poem: int) -> None:
        if self.session is not None:
            self._show(self.session.card_finished(poem))

    def _on_reading_finished(self) -> None:
        if self.session is not None:
            self._show(self.session.reading_finished())

    def _on_error(self, message: str) -> None:
        self.message = message
        self.show_state()

    def tick(self) -> None:
        if self.session is not None:
            self._show(self.session.tick(paused=self.driver.state == "paused"))
        self.race_checks.poll()

    def press(self, card: int, stamp: float) -> None:
        """A click on a card: a touch (or a Genpei send); a refusal is said in the status line."""
        s = self.session
        if s is None or s.phase != PLAY:
            return
        try:
            self._show(s.act(0, Press(card, stamp)))
        except IllegalAction as exc:
            self.message = describe_refusal(exc)
            self.show_state()

    def _show(self, events: list[GameEvent]) -> None:
        s = self.session
        if s is None:
            return
        self._showing = True
        try:
            self._show_events(s, events)
        finally:
            self._showing = False
        if self._relog_due:                  # a race marked disturbed while its line was being written
            self._relog_due = False
            self._relog()
        if s.phase == OVER:
            self.timer.stop()
            self.driver.stop()
            self.race_checks.flush()
        if events:
            self.show_state()

    def _show_events(self, s: ChirashiSession, events: list[GameEvent]) -> None:
        for e in events:
            if isinstance(e, ReadStarted):
                self._race_at = (e.number, None if e.kimariji_ms is None
                                 else s.epoch + e.kimariji_ms / 1000)
            elif isinstance(e, Reaction) and e.seat == 0 and e.record is not None:
                self._check_then_record(e)
            elif isinstance(e, ReaderHeld):
                self.driver.hold_before_next_card()
            elif isinstance(e, ReaderReleased):
                self.driver.release()
            elif isinstance(e, ReadSummary):
                self.floor.last = e.poem
                self.message = ""
            elif isinstance(e, SendNeeded):
                self.message = ""
            line = self._log_line(e)
            if line:
                self.log.appendPlainText(line)

    def _log_line(self, e: GameEvent) -> str | None:
        line = log_line(e, 0)
        if line and isinstance(e, ReadSummary) and e.number in self.disturbed:
            return f"{line}　⚠ {tr('race.disturbed')}"
        return line

    # -- statistics --------------------------------------------------------------------------------
    def _check_then_record(self, r: Reaction) -> None:
        """Record the person's read once the player can say whether the sound left on time
        between its kimariji and their touch (the judging time when they did not touch)."""
        number, kimariji_t = self._race_at
        if r.taken and r.ms is not None:
            self._takes.append((number, r.ms))
        touch_t = None if kimariji_t is None or r.ms is None else kimariji_t + r.ms / 1000
        kind = self.kind
        self.race_checks.add(kimariji_t, touch_t, lambda reason: self._record(r, reason, number, kind))

    def _record(self, r: Reaction, disturbed: str | None, number: int, kind: str) -> None:
        """One trial of the game's kind; a disturbed one is marked in the log, kept with its reason."""
        from trainer.stats.store import Trial
        record = r.record
        assert record is not None
        if disturbed is not None:
            self.disturbed[number] = disturbed
            if self._showing:
                self._relog_due = True       # `_show` rewrites the log once its lines are in
            else:
                self._relog()
                self.show_state()
        try:
            self.store.record(Trial(
                kind=kind, card=record.card, correct=record.correct, answer=record.answer,
                reaction_ms=record.reaction_ms, fault=record.fault,
                voice=self.settings.get(S.VOICE) if self.settings is not None else None,
                disturbed=disturbed))
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a game
            self.message = tr("race.stats_failed", error=str(exc))
            self.show_state()

    def trusted_mean(self) -> int | None:
        """The person's mean take, leaving out disturbed races (as Match mode's result does)."""
        times = [ms for number, ms in self._takes if number not in self.disturbed]
        return round(sum(times) / len(times)) if times else None

    def _relog(self) -> None:
        """The log again in the interface language."""
        if self.session is None:
            return
        self.log.clear()
        for e in self.session.log:
            line = self._log_line(e)
            if line:
                self.log.appendPlainText(line)

    def show_state(self) -> None:
        s = self.session
        if s is None:
            self.floor.view = None
            self.status.setText(tr("race.ready"))
            self.scores.setText("")
            self.floor.refresh()
            return
        v = s.view(0)
        self.floor.view = v
        self.floor.names = self.seat_names()
        self.floor.sending = v.owing is not None and v.owing[0] == 0
        self.floor.refresh()
        self.status.setText(self.message or self._status(s, v))
        self.scores.setText(self._scores(s, v))

    def _status(self, s: ChirashiSession, v: View) -> str:
        if s.phase == OVER:
            out = s.outcome()
            if out is None:
                return tr("race.stop")
            names = self.seat_names()
            result = tr("race.won") if 0 in out.winners else tr(
                "race.lost", winners=tr("log.list_separator").join(names[w] for w in out.winners))
            mean = self.trusted_mean()
            return tr("race.over", result=result) + ("" if mean is None else "\n" + tr("race.mean", ms=mean))
        if v.owing is not None and v.owing[0] == 0:
            return tr("race.send", cards=v.owing[2])
        if v.current is not None:
            if 0 not in v.eligible:
                return tr("race.not_turn") if s.options.relay else tr("race.resting")
            return tr("race.reading", number=v.current.number)
        return ""

    def _scores(self, s: ChirashiSession, v: View) -> str:
        if s.options.teams:
            return "<br>".join(tr(f"race.side.{t}", n=v.side_counts[t]) for t in (0, 1))
        if s.options.game == "shimonoku":
            return "<br>".join(tr(f"race.team.{t}", n=sum(v.side_counts[3 * t:3 * t + 3])) for t in (0, 1))
        names = self.seat_names()
        rows = sorted(range(len(names)), key=lambda k: -len(v.taken[k]))
        return "<br>".join(f"{'<b>' if k == 0 else ''}{names[k]}: {len(v.taken[k])}{'</b>' if k == 0 else ''}"
                           for k in rows)

    # -- the mode protocol ---------------------------------------------------------------------------
    def available(self, name: str) -> bool:
        playing = self.session is not None and self.session.phase == PLAY
        return (name == "start" and not playing) or (name in ("pause", "stop") and playing)

    def command(self, name: str) -> None:
        if not self.available(name):
            return
        if name == "start":
            self.start_game()
        elif name == "stop":
            self.stop_game()
        elif self.driver.state == "paused":
            self.driver.resume()
        else:
            self.driver.pause()

    def settings_changed(self) -> None:
        self.retranslate()
