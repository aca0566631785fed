"""Games → Mubeyama, the table page: draws a `MubeyamaSession` and sends nothing back.

The card layouts (`mubeyama_table.TableWidget`) inside the shared
`table_shell.TableShell`, the banner saying what the game waits for, the card
being read and how far its reading has got, reaction times, the gambling
ledger and the log. Everything shown comes from the session (its `view`,
`log_for`, reactions) and the reading driver's marks; the panel
(`mubeyama_panel`) owns the buttons' meaning and feeds the session.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QListWidget, QProgressBar,
                               QPushButton, QVBoxLayout, QWidget)

import poems
from trainer.games.mubeyama_session import MubeyamaSession
from trainer.games.protocol import GameEvent
from trainer.rules.mubeyama import AwaitPass, AwaitRead, GameOver, MubeyamaView
from trainer.text.mubeyama import kami_words, log_line, ledger_line, seat_name
from trainer.ui import settings as S
from trainer.ui.i18n import tr
from trainer.ui.kimariji_text import changed_note
from trainer.ui.mubeyama_table import TableWidget
from trainer.ui.table_shell import TableShell


def kimariji_note(no: int, kimariji: str) -> str:
    """'kimariji あさぼ (was あさぼらけう)' once cards read have shortened it."""
    now, was = changed_note(no, kimariji)
    if was is None:
        return tr("mubeyama.kimariji_now", now=now)
    return tr("mubeyama.kimariji_was", now=now, was=was)


def flip_time(ms: float | None, signed: bool = False) -> str:
    """A flip time as Statistics shows flips (one unit for both: trainer.stats.aggregates),
    signed for a single flip (a flip before the kimariji is negative)."""
    from trainer.stats.aggregates import FLIP, UNIT, time_text
    if not signed or ms is None:
        return time_text(ms, UNIT[FLIP])
    return ("+" if ms >= 0 else "\u2212") + time_text(abs(ms), UNIT[FLIP])


def seat_line(s: MubeyamaSession, seat: int, view: MubeyamaView, times: bool = True) -> str:
    """A seat box's second line: face-up cards, Mon, the last and mean reaction (not `times`:
    the result page, whose score table beside it gives them)."""
    tv = view.tables[seat]
    parts = [tr("mubeyama.face_up", n=tv.face_up)]
    if s.config.gambling:
        parts.append(tr("mubeyama.mon", n=f"{tv.balance:+d}"))
    rts = s.reactions[seat]
    if rts and times:
        parts.append(tr("mubeyama.rt_last", s=flip_time(rts[-1].ms, signed=True)))
        mean = s.mean_reaction(seat)          # short: the reactions box says what was left out
        parts.append(tr("mubeyama.rt_mean", s=flip_time(mean) if mean is not None else "—",
                        n=len(s.counted_reactions(seat))))
    return "　".join(parts)


def mean_text(s: MubeyamaSession, seat: int) -> str:
    """A seat's mean flip time over the flips it is made of, and how many the sound's
    stutters left out (issue 23: as in the statistics)."""
    counted = len(s.counted_reactions(seat))
    mean = s.mean_reaction(seat)
    text = tr("mubeyama.rt_mean", s=flip_time(mean) if mean is not None else "—", n=counted)
    left_out = len(s.reactions[seat]) - counted
    return f"{text} {tr('mubeyama.rt_left_out', n=left_out)}" if left_out else text


def waiting_text(s: MubeyamaSession, viewer: int | None, reading: bool) -> str:
    """What the game waits for, as the banner says it (the owner only once it is named)."""
    p = s.state.pending
    if s.is_over() or isinstance(p, GameOver):
        return tr("mubeyama.wait.over")
    if isinstance(p, AwaitRead):
        if not s.state.read:
            return tr("mubeyama.preparing") if reading else tr("mubeyama.not_started")
        last = s.state.read[-1]
        return tr("mubeyama.not_in_play", no=last) if s.state.where.get(last) is None \
            else tr("mubeyama.wait.read")
    if isinstance(p, AwaitPass):
        return tr("mubeyama.wait.pass", giver=seat_name(p.giver), count=p.count, to=seat_name(p.to))
    if s.named_owner() is None:
        return tr("mubeyama.wait.flip_someone", kami=kami_words(p.no))
    shown = any(slot.no == p.no for row in s.view(viewer).tables[p.seat].rows for slot in row)
    return tr("mubeyama.wait.flip" if shown else "mubeyama.wait.reveal",
              seat=seat_name(p.seat), kami=kami_words(p.no))


class PlayPage(QWidget):
    """The table page. `show_session` redraws everything from the session."""

    def __init__(self, settings: S.Settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.table = TableWidget()
        self.banner = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.banner.setStyleSheet("font-size: 19px; color: #222; padding: 2px;")
        self.notice = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.notice.setStyleSheet("font-size: 14px; color: #c0392b;")
        self.view_as = QComboBox()
        self.view_as_label = QLabel()
        self.pause_button, self.mark_button, self.stop_button = QPushButton(), QPushButton(), QPushButton()
        self.mark_button.setToolTip("F")
        self.game_title = QLabel()
        self.game_title.setStyleSheet("font-weight: bold; color: #5a4a2a;")
        bar = QHBoxLayout()
        bar.addWidget(self.game_title)
        bar.addSpacing(16)
        for w in (self.view_as_label, self.view_as, self.pause_button, self.mark_button, self.stop_button):
            if isinstance(w, QPushButton):
                w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            bar.addWidget(w)
        bar.addStretch(1)
        self.shell = TableShell(self.table, side=self._build_side())  # one deal: no score sheet
        self.log, self.log_title = self.shell.log, self.shell.log_title
        pv = QVBoxLayout(self)
        pv.setContentsMargins(4, 4, 4, 4)
        pv.addLayout(bar)
        pv.addWidget(self.banner)
        pv.addWidget(self.notice)
        pv.addWidget(self.shell, 1)
        self._logged = 0

    def _build_side(self) -> QWidget:
        self.yomifuda = QLabel(alignment=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                               wordWrap=True)
        self.yomifuda.setMinimumHeight(150)
        self.yomifuda.setStyleSheet("background: #fbf8ef; border: 1px solid #cbbf9e; "
                                    "border-radius: 6px; padding: 8px; font-size: 17px;")
        self.phase = QLabel()
        self.phase.setStyleSheet("color: #555;")
        self.progress = QProgressBar(minimum=0, maximum=1000, textVisible=False)
        self.progress.setFixedHeight(8)
        self.reaction = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(26)
        f.setBold(True)
        self.reaction.setFont(f)
        self.reactions_title = QLabel(wordWrap=True)
        self.reactions = QLabel(wordWrap=True)
        self.ledger_title = QLabel()
        self.ledger = QListWidget()
        self.ledger.setWordWrap(True)
        self.ledger.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.ledger.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        side = QWidget()
        sv = QVBoxLayout(side)
        sv.setContentsMargins(0, 0, 0, 0)
        for w in (self.yomifuda, self.phase, self.progress, self.reaction, self.reactions_title,
                  self.reactions, self.ledger_title):
            sv.addWidget(w)
        sv.addWidget(self.ledger, 1)
        return side

    def retranslate(self) -> None:
        self.view_as_label.setText(tr("mubeyama.view_as"))
        self.pause_button.setText(tr("mubeyama.pause"))
        self.mark_button.setText(tr("mubeyama.mark_flip"))
        self.stop_button.setText(tr("mubeyama.new"))
        self.reactions_title.setText(tr("mubeyama.reactions"))
        self.ledger_title.setText(tr("mubeyama.ledger"))
        self.log_title.setText(tr("mubeyama.log"))

    def clear(self, gambling: bool, scorekeeper: bool) -> None:
        """A new game: nothing drawn yet; the ledger only for the gambling games."""
        self._logged = 0
        for w in (self.log, self.ledger, self.reaction, self.notice):
            w.clear()
        self.table.highlights.clear()
        self.table.hint = None
        self.mark_button.setVisible(scorekeeper)
        self.ledger_title.setVisible(gambling)
        self.ledger.setVisible(gambling)
        self.shell.set_side_stretch(1 if gambling else 0)   # the ledger grows with the log

    # -- drawing -------------------------------------------------------------------------------------
    def show_session(self, s: MubeyamaSession, viewer: int | None, reading: bool,
                     events: Sequence[GameEvent] = ()) -> None:
        view = s.view(viewer)
        t = self.table
        t.titles = [f"{seat_name(k)}　{tr('mubeyama.cpu') if s.is_cpu(k) else tr('mubeyama.player')}"
                    for k in range(s.players)]
        t.lines = [seat_line(s, k, view) for k in range(s.players)]
        t.active_seat = s.named_owner()
        t.set_view(view, list(events))
        self.banner.setText(waiting_text(s, viewer, reading))
        self.show_yomifuda(s, reading)
        self._show_reactions(s)
        for pay in view.ledger[self.ledger.count():]:
            self.ledger.addItem(ledger_line(pay))
        self.ledger.scrollToBottom()
        log = s.log_for(None)     # one screen for every seat: the public lines only
        self.log.add_lines([log_line(e, log=view.log) for e in log[self._logged:]])
        self._logged = len(log)

    def show_yomifuda(self, s: MubeyamaSession, reading: bool = False) -> None:
        no = s.current
        if no is None:       # as the banner says it: no "Press Start" while the reading is on its way
            waiting = tr("mubeyama.preparing") if reading else tr("mubeyama.not_started")
            self.yomifuda.setText(f"<b>{tr('mubeyama.reading')}</b><br>{waiting}")
            return
        poem = poems.get(no)
        count = tr('mubeyama.read_n', n=len(s.state.read))
        head = f"<b>#{no}</b>　{poem.poet}　<span style='color:#777'>{count}</span>"
        if s.reading_flipped() or (self.settings.get(S.SHOW_POEM) and s.kimariji_time is not None):
            body = (f"<div style='font-size:19px'>{' '.join(poem.kami)}</div>"
                    f"<div style='font-size:19px; margin-left:1.5em'>{' '.join(poem.shimo)}</div>"
                    f"<div style='color:#888; font-size:13px'>{' '.join(poem.kami_romaji)} / "
                    f"{' '.join(poem.shimo_romaji)}</div>"
                    f"<div style='color:#b3261e; font-size:14px'>{kimariji_note(no, s.kimariji)}</div>")
        else:
            body = "<div style='font-size:20px'>…</div>"
        self.yomifuda.setText(f"{head}<br>{body}")

    def show_reaction(self, seat: int, ms: int) -> None:
        self.reaction.setText(f"{seat_name(seat)}  {tr('mubeyama.seconds', s=flip_time(ms, signed=True))}")
        self.reaction.setStyleSheet(f"color: {'#1f5fbf' if ms >= 0 else '#c0392b'};")

    def mark_disturbed(self, seat: int, ms: int) -> None:
        """The sound stuttered around that flip: its time is shown marked, not counted."""
        self.show_reaction(seat, ms)
        self.reaction.setText(f"{self.reaction.text()}　{tr('race.disturbed')}")

    def show_progress(self, s: MubeyamaSession, driver, now: float) -> None:
        """How far the current card's reading has got (kami-no-ku start to shimo-no-ku end)."""
        if s.current is None:                 # nothing read yet
            return
        index = s.order.index(s.current)
        start, shimo, end = (mark(driver, index, n) for n in ("kami_start", "shimo_start", "shimo_end"))
        if driver.state == "paused":
            text = tr("mubeyama.phase.paused")
        elif end is not None and now >= end and not s.waits_for_reader():
            text = tr("mubeyama.phase.held")
        elif shimo is not None and now >= shimo:
            text = tr("mubeyama.phase.shimo")
        else:
            text = tr("mubeyama.phase.kami")
        self.phase.setText(text)
        if start is not None and end is not None and end > start:
            self.progress.setValue(int(1000 * min(1.0, max(0.0, (now - start) / (end - start)))))
        elif end is not None and now >= end:
            self.progress.setValue(1000)

    def _show_reactions(self, s: MubeyamaSession) -> None:
        lines = []
        for seat in range(s.players):
            rts = s.reactions[seat]
            if rts:
                recent = "  ".join(f"{flip_time(r.ms, signed=True)}{'*' if r.hinted else ''}"
                                   f"{'⚠' if r.disturbed else ''}" for r in rts[-6:])
                lines.append(f"<b>{seat_name(seat)}</b> {mean_text(s, seat)}"
                             f"<br><span style='color:#555'>{recent}</span>")
        self.reactions.setText("<br>".join(lines) or "—")


def mark(driver, index: int, name: str) -> float | None:
    """When the reader's player plays mark *name* of card *index* (None: not known)."""
    try:
        return driver.mark_time(index, name)
    except (KeyError, AttributeError, RuntimeError):
        return None
