"""The Online tab's create-form rows for a race table: the karafuda read and the table's timings.

What the server's ``race.create`` takes beside the game and the cards a side
(``docs/online-races.md``, "Messages"):

- ``karafuda`` (kyōgi only): how many dead cards are read shuffled among the floor
  cards; "all" (the default, as an official match: every card of the 100 not dealt)
  sends nothing and the server reads its full seeded order;
- ``hold_seconds``: how long the next card waits for a client that has not said
  its card is done;
- ``wait_seconds``: how long the match waits for a player who dropped out before
  the absent side loses by abandonment;
- ``floor_ms``: a take faster than this is flagged to both players.

The defaults are the server's own, and only a changed value is sent, so a table
made with the form untouched is the server's standard table. `speed` and `seed`
are left out: a real server takes neither (tests and test servers only).
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFormLayout, QLabel, QSpinBox, QWidget

from trainer.ui.i18n import LANG, tr

ALL = -1                     # the karafuda spin's "all" (nothing sent)
CARDS_DEALT = 2              # sides: a count of cards a side leaves 100 − 2·cards dead cards
TIMINGS = (                  # option, message id, low, high, the server's default, unit message id
    ("hold_seconds", "race.form.hold", 1, 600, 10, "race.form.seconds"),
    ("wait_seconds", "race.form.wait", 1, 3600, 60, "race.form.seconds"),
    ("floor_ms", "race.form.floor", 0, 1000, 100, "race.form.ms"),
)


class RaceOptionsForm(QObject):
    """The rows (see the module docstring), added to the create form `form` (so their labels
    line up with its own); `options(kyogi)` gives the ``race.create`` fields set."""

    def __init__(self, form: QFormLayout, parent: QWidget):
        super().__init__(parent)
        self.form = form
        self.karafuda_label = QLabel()
        self.karafuda_spin = QSpinBox(minimum=ALL, maximum=100 - CARDS_DEALT * 25, value=ALL)
        self.form.addRow(self.karafuda_label, self.karafuda_spin)
        self.labels: dict[str, QLabel] = {}
        self.spins: dict[str, QSpinBox] = {}
        for option, _msg, low, high, usual, _unit in TIMINGS:
            self.labels[option] = QLabel()
            self.spins[option] = QSpinBox(minimum=low, maximum=high, value=usual)
            self.form.addRow(self.labels[option], self.spins[option])
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    def retranslate(self, *_: Any) -> None:
        self.karafuda_label.setText(tr("race.form.karafuda"))
        self.karafuda_spin.setSpecialValueText(tr("race.form.karafuda_all"))
        for option, msg, *_rest, unit in TIMINGS:
            self.labels[option].setText(tr(msg))
            self.spins[option].setSuffix(" " + tr(unit))

    def set_cards(self, cards: int) -> None:
        """Cards a side changed: at most the cards not dealt can be read as karafuda."""
        self.karafuda_spin.setMaximum(100 - CARDS_DEALT * cards)

    def show_for(self, race: bool, kyogi: bool) -> None:
        """The rows for a race table; the karafuda row for kyōgi (Mubeyama reads its own deck)."""
        self.form.setRowVisible(self.karafuda_spin, race and kyogi)
        for spin in self.spins.values():
            self.form.setRowVisible(spin, race)

    def options(self, kyogi: bool) -> dict[str, Any]:
        """The fields of ``race.create`` the person set away from the server's defaults."""
        out: dict[str, Any] = {}
        if kyogi and self.karafuda_spin.value() != ALL:
            out["karafuda"] = self.karafuda_spin.value()
        for option, _msg, _low, _high, usual, _unit in TIMINGS:
            if self.spins[option].value() != usual:
                out[option] = self.spins[option].value()
        return out


__all__ = ["RaceOptionsForm", "ALL", "TIMINGS"]
