"""Setting up a Mubeyama table: ruleset, seats, payments, yaku lists, seed; layouts for the scorer.

`SetupPage.config()` turns the form into a `GameConfig` (or a one-line
`SetupError` saying what is wrong; the form keeps what was typed).
`LayoutPage` is the scorekeeper's: each seat's real layout typed in (poem
numbers or kimariji), or the app's own deal shown for the players to lay out.
"""
from __future__ import annotations

import random
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QButtonGroup, QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit,
                               QPushButton, QRadioButton, QScrollArea, QSpinBox, QVBoxLayout,
                               QWidget)

from poems.numbers import whole_number
from poems.yaku import KEYWORD_KANJI, SEED, YakuSets
from trainer.rules.mubeyama import LayoutError, Stakes, new_game
from trainer.text.mubeyama import error_text, seat_name
from trainer.ui import settings as S
from trainer.ui.i18n import LANG, tr
from trainer.ui.kimariji_text import by_static
from trainer.games.mubeyama_session import CPU, HUMAN, GameConfig
from trainer.rules.mubeyama import VARIANTS, VariantSpec

VARIANT_KEY = S.Key("mubeyama/variant", "okayama4")
SEATS_KEY = S.Key("mubeyama/seats", "human,cpu,cpu,cpu,cpu,cpu")
HINT_KEY = S.Key("mubeyama/hint_delay", 5.0, 0.0, 60.0)
CPU_DELAY_KEY = S.Key("mubeyama/cpu_delay", 0.8, 0.0, 10.0)
MAX_SEATS = max(v.players for v in VARIANTS.values())   # the setup form has a row per seat
YAKU_FIELDS = ("set1_extra", "mountains", "mountains_double", "sadness", "tsuki_yuki_hana")


class SetupError(ValueError):
    """Something wrong in the form, worded in the interface language (`text`) for the page to show."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


def parse_numbers(text: str, what: str) -> list[int]:
    """'1 5, 22' → [1, 5, 22], order kept; `SetupError` naming the bad part."""
    out = []
    for part in re.split(r"[\s,、，]+", text.strip()):
        if not part:
            continue
        no = whole_number(part)    # never int() of "²" or of 5,000 digits
        if no is None or not 1 <= no <= 100:
            raise SetupError(tr("mubeyama.error.yaku", what=what, text=part))
        out.append(no)
    return out


def parse_layout(text: str, seat: int) -> list[int]:
    """One seat's torifuda in slot order: poem numbers or static kimariji (むべ is not one; ふ is)."""
    out = []
    for part in re.split(r"[\s,、，]+", text.strip()):
        if not part:
            continue
        if (number := whole_number(part)) is not None:
            out.append(number)
            continue
        no = by_static(part)           # either spelling: おうこ as heard, あふこ as written
        if no is None:
            raise LayoutError(f"seat {seat}: {part!r} is neither a poem number nor a kimariji",
                              "not_a_kimariji", seat=seat, text=part)
        out.append(no)
    return out


def format_layout(cards, row_sizes) -> str:
    lines, at = [], 0
    for size in row_sizes:
        lines.append(" ".join(str(no) for no in cards[at:at + size]))
        at += size
    return "\n".join(lines)


class SetupPage(QWidget):
    start_requested = Signal()        # hot-seat: start now
    layouts_requested = Signal()      # scorekeeper: go on to enter the layouts

    def __init__(self, settings: S.Settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self._build()
        self._load()
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    # -- form -----------------------------------------------------------------------------------
    def _build(self) -> None:
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 22px; font-weight: bold;")
        self.variant = QComboBox()
        for variant_id in VARIANTS:
            self.variant.addItem("", variant_id)
        self.variant.currentIndexChanged.connect(self._variant_changed)
        self.about = QLabel(wordWrap=True)
        self.about.setStyleSheet("color: #444;")

        self.hotseat = QRadioButton()
        self.scorekeeper = QRadioButton()
        self.hotseat.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.hotseat)
        group.addButton(self.scorekeeper)
        self.hotseat.toggled.connect(self._mode_changed)

        self.seat_labels, self.seat_kinds = [], []
        seats = QGridLayout()
        for s in range(MAX_SEATS):
            label, kind = QLabel(), QComboBox()
            kind.addItem("", HUMAN)
            kind.addItem("", CPU)
            seats.addWidget(label, s // 3, 2 * (s % 3))
            seats.addWidget(kind, s // 3, 2 * (s % 3) + 1)
            self.seat_labels.append(label)
            self.seat_kinds.append(kind)

        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1)
        self.new_seed = QPushButton()
        self.new_seed.clicked.connect(self.randomise_seed)
        seed_row = QHBoxLayout()
        seed_row.addWidget(self.seed, 1)
        seed_row.addWidget(self.new_seed)
        self.hint_delay = QDoubleSpinBox(minimum=0.0, maximum=60.0, singleStep=1.0, decimals=1)
        self.cpu_delay = QDoubleSpinBox(minimum=0.0, maximum=10.0, singleStep=0.1, decimals=1)

        self.form = QFormLayout()
        self.form.addRow(self.title)
        self.variant_label = QLabel()
        self.form.addRow(self.variant_label, self.variant)
        self.form.addRow("", self.about)
        self.mode_label = QLabel()
        modes = QVBoxLayout()
        modes.addWidget(self.hotseat)
        modes.addWidget(self.scorekeeper)
        self.form.addRow(self.mode_label, modes)
        self.seats_label = QLabel()
        self.form.addRow(self.seats_label, seats)
        self.seed_label = QLabel()
        self.form.addRow(self.seed_label, seed_row)
        self.hint_label = QLabel()
        self.form.addRow(self.hint_label, self.hint_delay)
        self.cpu_label = QLabel()
        self.form.addRow(self.cpu_label, self.cpu_delay)

        self.stakes_box = QGroupBox()
        sf = QFormLayout(self.stakes_box)
        self.stake_hidden = self._mon()
        self.stake_rows = [self._mon() for _ in range(4)]
        self.stake_tyh = self._mon()
        self.stake_mubeyama = self._mon()
        self.stake_labels = [QLabel() for _ in range(7)]
        for label, box in zip(self.stake_labels, [self.stake_hidden, *self.stake_rows,
                                                  self.stake_tyh, self.stake_mubeyama]):
            sf.addRow(label, box)
        self.stake_defaults = QPushButton()
        self.stake_defaults.clicked.connect(lambda: self.set_stakes(Stakes()))
        sf.addRow("", self.stake_defaults)

        self.yaku_box = QGroupBox(checkable=True, checked=False)
        self.yaku_box.toggled.connect(self._yaku_toggled)
        yf = QFormLayout()
        self.yaku_edits: dict[str, QLineEdit] = {}
        self.yaku_labels: dict[str, QLabel] = {}
        for name in (*(f"kw:{k}" for k in KEYWORD_KANJI), *YAKU_FIELDS):
            edit, label = QLineEdit(), QLabel()
            self.yaku_edits[name] = edit
            self.yaku_labels[name] = label
            yf.addRow(label, edit)
        self.yaku_reset = QPushButton()
        self.yaku_reset.clicked.connect(lambda: self.set_yaku(SEED))
        yf.addRow("", self.yaku_reset)
        self.yaku_inner = QWidget()
        self.yaku_inner.setLayout(yf)
        self.yaku_inner.setVisible(False)
        QVBoxLayout(self.yaku_box).addWidget(self.yaku_inner)

        self.error = QLabel(wordWrap=True)
        self.error.setStyleSheet("color: #c0392b; font-weight: bold;")
        self.start = QPushButton()
        self.start.clicked.connect(self._start_clicked)
        self.start.setMinimumHeight(40)
        self.start.setStyleSheet("font-size: 16px;")

        inner = QWidget()
        inner.setMaximumWidth(1100)
        v = QVBoxLayout(inner)
        v.addLayout(self.form)
        v.addWidget(self.stakes_box)
        v.addWidget(self.yaku_box)
        v.addWidget(self.error)
        v.addWidget(self.start, 0, Qt.AlignmentFlag.AlignLeft)
        v.addStretch(1)
        scroll = QScrollArea(widgetResizable=True)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    @staticmethod
    def _mon() -> QSpinBox:
        return QSpinBox(minimum=0, maximum=1_000_000, singleStep=10)   # its unit: `retranslate`

    def _load(self) -> None:
        g = self.settings.get
        k = self.variant.findData(g(VARIANT_KEY))
        self.variant.setCurrentIndex(max(0, k))
        kinds = g(SEATS_KEY).split(",")
        for s, box in enumerate(self.seat_kinds):
            box.setCurrentIndex(1 if s < len(kinds) and kinds[s] == CPU else 0)
        self.hint_delay.setValue(g(HINT_KEY))
        self.cpu_delay.setValue(g(CPU_DELAY_KEY))
        self.randomise_seed()
        self.set_stakes(Stakes())
        self.set_yaku(SEED)
        self._variant_changed()

    def randomise_seed(self) -> None:
        self.seed.setValue(random.SystemRandom().randrange(2**31 - 1))

    def set_stakes(self, stakes: Stakes) -> None:
        self.stake_hidden.setValue(stakes.hidden_card)
        for box, v in zip(self.stake_rows, stakes.rows):
            box.setValue(v)
        self.stake_tyh.setValue(stakes.tsuki_yuki_hana)
        self.stake_mubeyama.setValue(stakes.mubeyama)

    def set_yaku(self, yaku: YakuSets) -> None:
        for k in KEYWORD_KANJI:
            self.yaku_edits[f"kw:{k}"].setText(" ".join(map(str, sorted(yaku.keywords.get(k, ())))))
        for name in YAKU_FIELDS:
            self.yaku_edits[name].setText(" ".join(map(str, sorted(getattr(yaku, name)))))

    def set_variant(self, variant: str) -> None:
        self.variant.setCurrentIndex(self.variant.findData(variant))

    def _yaku_toggled(self, on: bool) -> None:
        self.yaku_inner.setVisible(on)

    # -- reading the form ---------------------------------------------------------------------------
    def variant_id(self) -> str:
        return self.variant.currentData()

    def spec(self) -> VariantSpec:
        return VARIANTS[self.variant_id()]

    def players(self) -> int:
        return self.spec().players

    def stakes(self) -> Stakes:
        first, second, third, fourth = (b.value() for b in self.stake_rows)
        try:
            return Stakes(hidden_card=self.stake_hidden.value(), rows=(first, second, third, fourth),
                          tsuki_yuki_hana=self.stake_tyh.value(), mubeyama=self.stake_mubeyama.value())
        except ValueError as exc:
            raise SetupError(tr("mubeyama.error.stakes", err=error_text(exc))) from None

    def yaku(self) -> YakuSets:
        if not self.yaku_box.isChecked():
            return SEED
        keywords = {k: frozenset(parse_numbers(self.yaku_edits[f"kw:{k}"].text(), KEYWORD_KANJI[k]))
                    for k in KEYWORD_KANJI}
        sets = {name: parse_numbers(self.yaku_edits[name].text(), self.yaku_labels[name].text())
                for name in YAKU_FIELDS}
        return SEED.override(keywords=keywords, **sets)

    def config(self, layouts=None) -> GameConfig:
        """The chosen game; `SetupError` (one line, in the interface language) if something is wrong."""
        variant = self.variant_id()
        seats = tuple(self.seat_kinds[s].currentData() for s in range(self.players()))
        stakes = self.stakes() if self.spec().gambling else Stakes()
        yaku = self.yaku()
        try:
            return GameConfig(variant=variant, seats=seats, stakes=stakes, yaku=yaku,
                              seed=self.seed.value(), scorekeeper=self.scorekeeper.isChecked(),
                              layouts=layouts, hint_delay_s=self.hint_delay.value(),
                              cpu_delay_s=self.cpu_delay.value())
        except ValueError as exc:        # the session's own checks (the form offers only valid seats)
            raise SetupError(error_text(exc)) from None

    def remember(self) -> None:
        s = self.settings
        s.set(VARIANT_KEY, self.variant_id())
        s.set(SEATS_KEY, ",".join(b.currentData() for b in self.seat_kinds))
        s.set(HINT_KEY, self.hint_delay.value())
        s.set(CPU_DELAY_KEY, self.cpu_delay.value())

    def _start_clicked(self) -> None:
        try:
            self.config()
        except SetupError as exc:
            self.error.setText(exc.text)
            return
        self.error.setText("")
        self.remember()
        if self.scorekeeper.isChecked():
            self.layouts_requested.emit()
        else:
            self.start_requested.emit()

    # -- showing what applies ---------------------------------------------------------------------------
    def _variant_changed(self, *_) -> None:
        spec = self.spec()
        for s in range(MAX_SEATS):
            self.seat_labels[s].setVisible(s < spec.players)
            self.seat_kinds[s].setVisible(s < spec.players)
        self.stakes_box.setVisible(spec.gambling)
        self.stake_hidden.setEnabled(spec.hidden_card)
        self.retranslate()

    @staticmethod
    def _paid_rows(spec: VariantSpec) -> list[int]:
        """The book's numbers of the four rows that pay (from the ruleset's layout)."""
        if not spec.gambling:
            return [1, 2, 3, 4]
        layout = spec.make_ruleset().layout(spec.players)
        return list(layout.row_numbers[1:] if layout.has_peak else layout.row_numbers)

    def _mode_changed(self, *_) -> None:
        hot = self.hotseat.isChecked()
        for box in self.seat_kinds:
            box.setEnabled(hot)
        self.cpu_delay.setEnabled(hot)
        self.hint_delay.setEnabled(hot)
        self.retranslate()

    def retranslate(self, *_) -> None:
        self.title.setText(tr("mubeyama.setup"))
        for box in (self.stake_hidden, *self.stake_rows, self.stake_tyh, self.stake_mubeyama):
            box.setSuffix(tr("mubeyama.mon_unit"))
        self.variant_label.setText(tr("mubeyama.variant"))
        for k in range(self.variant.count()):
            self.variant.setItemText(k, tr(f"mubeyama.variant.{self.variant.itemData(k)}"))
        spec = self.spec()
        self.about.setText(tr(f"mubeyama.about.{'gambling' if spec.gambling else spec.ruleset}"))
        self.mode_label.setText(tr("mubeyama.mode"))
        self.hotseat.setText(tr("mubeyama.mode.hotseat"))
        self.scorekeeper.setText(tr("mubeyama.mode.scorekeeper"))
        self.seats_label.setText(tr("mubeyama.seats"))
        for s in range(MAX_SEATS):
            self.seat_labels[s].setText(seat_name(s))
            self.seat_kinds[s].setItemText(0, tr("mubeyama.human"))
            self.seat_kinds[s].setItemText(1, tr("mubeyama.cpu"))
        self.seed_label.setText(tr("mubeyama.seed"))
        self.new_seed.setText(tr("mubeyama.seed_new"))
        self.hint_label.setText(tr("mubeyama.hint_delay"))
        self.cpu_label.setText(tr("mubeyama.cpu_delay"))
        self.stakes_box.setTitle(tr("mubeyama.stakes"))
        labels = [tr("mubeyama.stake.hidden")]
        labels += [tr("mubeyama.stake.row", label=tr("mubeyama.row", n=n)) for n in self._paid_rows(spec)]
        labels += [tr("mubeyama.stake.tyh"), tr("mubeyama.stake.mubeyama")]
        for label, text in zip(self.stake_labels, labels):
            label.setText(text)
        self.stake_defaults.setText(tr("mubeyama.stake.defaults"))
        self.yaku_box.setTitle(tr("mubeyama.yaku"))
        for kw, kanji in KEYWORD_KANJI.items():
            self.yaku_labels[f"kw:{kw}"].setText(tr("mubeyama.yaku.kw", kanji=kanji, kw=kw))
        for name_ in YAKU_FIELDS:
            self.yaku_labels[name_].setText(tr(f"mubeyama.yaku.{name_}"))
        self.yaku_reset.setText(tr("mubeyama.yaku.reset"))
        self.start.setText(tr("mubeyama.enter_layouts" if self.scorekeeper.isChecked() else "mubeyama.start"))


class LayoutPage(QWidget):
    """Scorekeeper: each seat's layout, typed in or dealt by the app, checked by the engine."""

    start_requested = Signal()
    back_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.config: GameConfig | None = None
        self.title = QLabel(wordWrap=True)
        self.title.setStyleSheet("font-size: 18px; font-weight: bold;")
        self.hint = QLabel(wordWrap=True)
        self.grid = QGridLayout()
        self.edits: list[QPlainTextEdit] = []
        self.counts: list[QLabel] = []
        self.names: list[QLabel] = []
        for s in range(MAX_SEATS):
            name, edit, count = QLabel(), QPlainTextEdit(), QLabel()
            edit.setMinimumHeight(120)
            edit.textChanged.connect(self._count)
            box = QVBoxLayout()
            head = QHBoxLayout()
            head.addWidget(name)
            head.addStretch(1)
            head.addWidget(count)
            box.addLayout(head)
            box.addWidget(edit)
            self.grid.addLayout(box, s // 3, s % 3)
            self.edits.append(edit)
            self.counts.append(count)
            self.names.append(name)
        self.error = QLabel(wordWrap=True)
        self.error.setStyleSheet("color: #c0392b; font-weight: bold;")
        self.deal = QPushButton()
        self.deal.clicked.connect(self.deal_from_seed)
        self.back = QPushButton()
        self.back.clicked.connect(self.back_requested.emit)
        self.start = QPushButton()
        self.start.clicked.connect(self._start_clicked)
        self.start.setMinimumHeight(36)
        bar = QHBoxLayout()
        for b in (self.back, self.deal, self.start):
            bar.addWidget(b)
        bar.addStretch(1)
        v = QVBoxLayout(self)
        v.addWidget(self.title)
        v.addWidget(self.hint)
        v.addLayout(self.grid)
        v.addWidget(self.error)
        v.addLayout(bar)
        v.addStretch(1)
        LANG.changed.connect(self.retranslate)

    def show_for(self, config: GameConfig) -> None:
        """Show the form for *config*'s seats (what was typed before stays, if it still fits)."""
        changed = self.config is None or self.config.variant != config.variant
        self.config = config
        for s in range(MAX_SEATS):
            for w in (self.edits[s], self.counts[s], self.names[s]):
                w.setVisible(s < config.players)
            if changed:
                self.edits[s].clear()
        self.error.setText("")
        self.retranslate()

    @property
    def game(self) -> GameConfig:
        """The game whose layouts are typed in (set by `show_for` before the page is shown)."""
        assert self.config is not None, "layouts page shown for no game"
        return self.config

    def deal_from_seed(self) -> None:
        ruleset = self.game.ruleset()
        sizes = ruleset.row_sizes(self.game.players)
        for s, cards in enumerate(ruleset.deal(self.game.players, self.game.seed)):
            self.edits[s].setPlainText(format_layout(cards, sizes))

    def layouts(self) -> tuple[tuple[int, ...], ...]:
        """The typed layouts, checked by the engine (LayoutError: one readable line)."""
        game = self.game
        layouts = tuple(tuple(parse_layout(self.edits[s].toPlainText(), s)) for s in range(game.players))
        new_game(game.ruleset(), game.players, game.seed, layouts=layouts)
        return layouts

    def _start_clicked(self) -> None:
        try:
            self.layouts()
        except LayoutError as exc:
            self.error.setText(error_text(exc))
            return
        self.error.setText("")
        self.start_requested.emit()

    def _count(self) -> None:
        if self.config is None:
            return
        need = self.config.ruleset().cards_per_seat(self.config.players)
        for s in range(self.config.players):
            try:
                n = len(parse_layout(self.edits[s].toPlainText(), s))
                text = tr("mubeyama.layouts.count", n=n, need=need)
                colour = "#2e8b57" if n == need else "#c0392b"
            except LayoutError:
                text, colour = "?", "#c0392b"
            self.counts[s].setText(text)
            self.counts[s].setStyleSheet(f"color: {colour};")

    def retranslate(self, *_) -> None:
        self.title.setText(tr("mubeyama.layouts"))
        self.hint.setText(tr("mubeyama.layouts.hint"))
        for s in range(MAX_SEATS):
            self.names[s].setText(seat_name(s))
        self.deal.setText(tr("mubeyama.layouts.deal"))
        self.back.setText(tr("mubeyama.layouts.back"))
        self.start.setText(tr("mubeyama.start"))
        self._count()
