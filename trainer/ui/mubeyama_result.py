"""Games → Mubeyama, the result page: who won and why, each seat's cards, Mon and
reaction times, the ledger and the final table (all read from the session)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QListWidget, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from trainer.text.mubeyama import seat_name, win_words
from trainer.ui.i18n import tr
from trainer.ui.mubeyama_play import flip_time, seat_line
from trainer.ui.mubeyama_table import TableWidget


class ResultPage(QWidget):
    """Who won and why, each seat's cards, Mon and reaction times, the ledger, the final table."""

    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel
        self.title = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        f = QFont()
        f.setPixelSize(38)
        f.setBold(True)
        self.title.setFont(f)
        self.verdict = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.verdict.setStyleSheet("font-size: 28px; color: #1f5fbf;")
        self.why = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.why.setStyleSheet("font-size: 17px; color: #333;")
        self.scores = QTableWidget(0, 6)
        self.scores.verticalHeader().setVisible(False)
        self.scores.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        # the mean flip time whole ("+0.3 秒…" at 1024×700 when six columns shared alike)
        self.scores.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.ResizeToContents)
        self.scores.setMaximumHeight(230)
        self.ledger = QListWidget()
        self.final = TableWidget()
        self.final.setMinimumSize(480, 320)
        self.again = QPushButton()
        self.again.clicked.connect(panel.play_again)
        self.back = QPushButton()
        self.back.clicked.connect(panel.to_setup)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.again)
        buttons.addWidget(self.back)
        buttons.addStretch(1)
        left = QVBoxLayout()
        left.addWidget(self.scores)
        left.addWidget(self.ledger, 1)
        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addWidget(self.final, 3)
        v = QVBoxLayout(self)
        v.addWidget(self.title)
        v.addWidget(self.verdict)
        v.addWidget(self.why)
        v.addLayout(body, 1)
        v.addLayout(buttons)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(tr("mubeyama.result"))
        self.again.setText(tr("mubeyama.again"))
        self.back.setText(tr("mubeyama.to_setup"))
        self.scores.setHorizontalHeaderLabels([tr(f"mubeyama.col.{c}") for c in
                                               ("seat", "kind", "up", "mon", "rt", "flips")])

    def show_result(self, panel) -> None:
        s = panel.session
        view = s.view(None)
        winners = "・".join(seat_name(w) for w in view.winners)
        self.verdict.setText(tr("mubeyama.winner", seats=winners))
        self.why.setText(tr("mubeyama.why", why=win_words(s.win_reason(), view.log), n=len(view.read)))
        self.scores.setRowCount(s.players)
        for seat in range(s.players):
            mean = s.mean_reaction(seat)
            cells = [seat_name(seat) + (" ★" if seat in view.winners else ""),
                     tr("mubeyama.cpu") if s.is_cpu(seat) else tr("mubeyama.player"),
                     str(view.tables[seat].face_up),
                     f"{view.tables[seat].balance:+d}" if s.config.gambling else "—",
                     f"{tr('mubeyama.seconds', s=flip_time(mean, signed=True))} ({len(s.counted_reactions(seat))})"
                     if mean is not None else "—",
                     str(s.flips(seat))]
            left_out = len(s.reactions[seat]) - len(s.counted_reactions(seat))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text + (" ⚠" if c == 4 and left_out else ""))
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                if c == 4 and left_out:
                    item.setToolTip(tr("mubeyama.rt_left_out", n=left_out))
                self.scores.setItem(seat, c, item)
        self.ledger.clear()
        self.ledger.setVisible(s.config.gambling)
        for k in range(panel.ledger.count()):
            self.ledger.addItem(panel.ledger.item(k).text())
        t = self.final
        t.titles = list(panel.table.titles)
        t.lines = [seat_line(s, k, view, times=False) for k in range(s.players)]   # times: in the table
        t.set_view(view)
