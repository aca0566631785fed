"""An online table in the app: the local table panels (Unsun, Yomi, Ume Botan, bōzu-mekuri) fed by the server.

Each game's panel (`UnsunPanel`, `YomiPanel`, `UmebotanPanel`) draws a
`TurnSession`; here it draws a `trainer.online.table.RemoteTable` instead,
which answers the same calls from the server's frames. So an online table
looks and plays exactly like a local one: the same drawing, the same clicks
turned into the same actions, the same log lines (`trainer.text.<game>`,
both languages). What differs is only who decides: the click's action goes to
the server, and its refusal (or its events and the next view) come back.

`OnlineTablePanel` mixes into a game's panel: it hides the local setup row,
names the seats from the table's summary (people by name, CPUs, empty seats),
and redraws on every frame (`refresh`).
"""
from __future__ import annotations

from typing import Any, cast

from PySide6.QtWidgets import QWidget

from trainer.online.table import RemoteTable
from trainer.text.unsun import seat_name as unsun_seat_name
from trainer.ui.bozu_panel import BozuPanel
from trainer.ui.card_game_panel import CardGamePanel
from trainer.ui.i18n import add_messages, tr
from trainer.ui.umebotan_panel import UmebotanPanel
from trainer.ui.unsun_panel import UnsunPanel
from trainer.ui.yomi_panel import YomiPanel

add_messages({
    "online.seat.empty": ("空席", "Empty seat"),
    "online.seat.you_named": ("{name}（あなた）", "{name} (you)"),
    "online.table.waiting_start": ("席がそろうか、主催者が開始するのを待っています",
                                   "Waiting for the seats to fill or the host to start"),
})


class OnlineTablePanel:
    """The mixin (see the module docstring); use `panel_for` to get one."""

    remote: RemoteTable | None = None

    def bind(self, remote: RemoteTable) -> None:
        """Draw `remote` from now on (its game starts drawing once the server sent a view)."""
        panel = cast(CardGamePanel, self)
        self.remote = remote
        _hide_layout(panel.setup_row, keep=self.view_choices())
        panel.new_button.hide()
        self.refresh()

    def view_choices(self) -> list[QWidget]:
        """Setup widgets that change only the drawing (kept online; the rest is the table's)."""
        return []

    # -- CardGamePanel hooks ----------------------------------------------------------------------
    def person_seat(self) -> int:
        seat = self.remote.seat if self.remote is not None else None
        return 0 if seat is None else seat

    def new_session(self, seed: int | str) -> Any:
        remote = self.remote
        assert remote is not None
        table: Any = cast(CardGamePanel, self).table
        if hasattr(table, "turn_seconds"):            # Unsun's table draws the timer from it
            table.turn_seconds = remote.turn_seconds
        return remote

    def seat_names(self, in_log: bool = False) -> list[str]:
        return [self.online_name(s, in_log) for s in range(self._seat_count())]

    def online_name(self, seat: int, in_log: bool = False) -> str:
        """A seat's name: the person's (you: "Seat n (you)" in the log), "CPU (level)", or empty."""
        remote = self.remote
        seats = (remote.summary.get("seats") or []) if remote is not None else []
        info = seats[seat] if seat < len(seats) else None
        if remote is not None and seat == remote.seat:
            if in_log:
                return tr("cards.you_in_log", n=seat + 1)
            return tr("online.seat.you_named", name=info["name"]) if info and "name" in info else tr("cards.you")
        if not info:
            return tr("online.seat.empty")
        if "cpu" in info:
            return self.cpu_name(seat)
        return str(info.get("name", "?"))

    def cpu_name(self, seat: int) -> str:
        return tr("cards.cpu", n=seat)

    def score_columns(self) -> list[str]:
        """Short column titles (the full names are the tooltips): a long name would be cut."""
        return [tr("cards.you") if self.remote is not None and s == self.remote.seat
                else tr("table.seat", n=s + 1) for s in range(self._seat_count())]

    def score_tooltips(self) -> list[str]:
        return self.seat_names()

    def _seat_count(self) -> int:
        remote = self.remote
        return max(2, len(remote.summary.get("seats") or ())) if remote is not None else 4

    # -- frames ------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Redraw from the remote table (after every frame about it)."""
        panel = cast(CardGamePanel, self)
        remote = self.remote
        if remote is None:
            return
        if panel.session is None or panel.me != self.person_seat():
            if not remote.started:
                panel.table.set_seats(self.seat_names(), me=self.person_seat())
                panel.status.setText(tr("online.table.waiting_start"))
                return
            panel.start_game(seed=remote.id)
            return
        names = self.seat_names()
        if names != panel.table.titles:      # a seat changed hands: the log and sheet say it anew
            panel.table.titles = names
            panel.retranslate()
        assert panel.game is not None
        panel.game.start()        # start() redraws from the session: the log's new lines, the view


class OnlineUnsun(OnlineTablePanel, UnsunPanel):
    def seat_names(self, in_log: bool = False) -> list[str]:
        # the seat's A/B badge says the team; the box has room for the seat and a name
        return [f"{unsun_seat_name(s)}　{self.online_name(s, in_log)}" for s in range(self._seat_count())]

    def cpu_name(self, seat: int) -> str:
        return tr("unsun.ui.cpu")

    def score_columns(self) -> list[str]:
        return UnsunPanel.score_columns(self)        # by team

    def score_tooltips(self) -> list[str]:
        return UnsunPanel.score_tooltips(self)


class OnlineYomi(OnlineTablePanel, YomiPanel):
    def view_choices(self) -> list[QWidget]:
        return [self.faces_label, self.faces]          # mekurifuda, western or hanafuda faces


class OnlineUmebotan(OnlineTablePanel, UmebotanPanel):
    pass


class OnlineBozu(OnlineTablePanel, BozuPanel):
    pass


PANELS: dict[str, type[CardGamePanel]] = {"unsun": OnlineUnsun, "yomi": OnlineYomi, "yomi37": OnlineYomi,
                                          "umebotan": OnlineUmebotan, "bozu": OnlineBozu}


def panel_for(remote: RemoteTable, settings: Any, voices: Any = None) -> CardGamePanel:
    """The local table panel of `remote`'s game, drawing `remote`."""
    panel = PANELS[remote.game](settings, voices, cpu_delay_s=0.0)
    cast(OnlineTablePanel, panel).bind(remote)
    return panel


def _hide_layout(layout: Any, keep: list[QWidget]) -> None:
    for k in range(layout.count()):
        widget: QWidget | None = layout.itemAt(k).widget()
        if widget is not None and widget not in keep:
            widget.hide()


__all__ = ["panel_for", "OnlineTablePanel", "PANELS"]
