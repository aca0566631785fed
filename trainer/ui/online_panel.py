"""The Online tab: play Unsun, Yomi and Ume Botan with other people on a game server (`karuta serve`).

Three pages. **Sign in**: the server's address (``ws://127.0.0.1:8750/ws`` by
default, remembered), a name and password to log in or sign up, or play as a
guest. **Lobby**: the live list of tables (the server sends it again at every
change), join or watch the chosen one, create a table (game, rules, seats, CPU
level for the seats left empty, turn timer, public or private with an
invitation), or join a private table by its invitation (``TABLE/CODE``).
**Table**: the seats, sit, start (the host: empty seats get CPUs), leave, and
the game drawn by the same panel as local play (`trainer.ui.online_table`).

The connection (`trainer.online.client.Connection`) lives in a worker thread;
its frames and its state come here as queued signals. The connection's state
is always said in the status line (the main window's status bar when the tab
is in it): a dropped server or connection is said at once, the table waits
(nothing can be played), and when the connection is back (the client logs in
again with its token and rejoins) the game goes on from the server's view.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QMainWindow, QPushButton, QSpinBox, QStackedWidget,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from trainer.online.client import CLOSED, CONNECTING, DEFAULT_SERVER, LOST, ONLINE, AddressError, Connection
from trainer.online.games import DEFAULT_LEVEL, LENGTH, LEVELS, TABLE_KINDS, TURN_SECONDS, seat_range
from trainer.online.table import RemoteTable
from trainer.games.protocol import IllegalAction
from trainer.games.registry import variants as registry_variants
from trainer.text.online_race import floor_game_name
from trainer.text.refusals import describe_refusal
from trainer.ui.i18n import LANG, MESSAGES, add_messages, tr
from trainer.online.race import FLOOR_GAMES
from trainer.ui.online_floor import OnlineFloorPanel
from trainer.ui.online_mubeyama import OnlineMubeyamaPanel
from trainer.ui.online_race import OnlineRacePanel
from trainer.ui.online_table import OnlineTablePanel, panel_for
from trainer.ui.race_options import RaceOptionsForm
from trainer.ui.settings import Key

add_messages({
    "mode.online": ("オンライン", "Online"),
    "online.server": ("サーバー", "Server"),
    "online.name": ("名前", "Name"),
    "online.password": ("パスワード", "Password"),
    "online.log_in": ("ログイン", "Log in"),
    "online.sign_up": ("新規登録", "Sign up"),
    "online.guest": ("ゲストで参加", "Play as a guest"),
    "online.sign_out": ("ログアウト", "Sign out"),
    "online.signed_in": ("{name} としてログイン中", "Signed in as {name}"),
    "online.tables": ("テーブル一覧（自動更新）", "Tables (updated live)"),
    "online.col.table": ("卓", "Table"),
    "online.col.game": ("ゲーム", "Game"),
    "online.col.seats": ("席", "Seats"),
    "online.col.status": ("状態", "Status"),
    "online.col.timer": ("持ち時間", "Turn timer"),
    "online.join": ("参加", "Join"),
    "online.watch": ("観戦", "Watch"),
    "online.create": ("卓を作る", "Create a table"),
    "online.game": ("ゲーム", "Game"),
    "online.seats": ("人数", "Seats"),
    "online.level": ("空席の CPU", "CPU for empty seats"),
    "online.timer": ("持ち時間（分、0 = なし）", "Turn timer (minutes, 0 = none)"),
    "online.deals": ("局数（配り）", "Deals"),
    "online.rounds": ("局数", "Rounds"),
    "online.bozu_level.first": ("いちばん上の山から", "First stack"),
    "online.bozu_level.random": ("でたらめな山から", "Any stack"),
    "online.private": ("非公開（招待コードで参加）", "Private (join by invitation)"),
    "online.invitation": ("招待で参加", "Join by invitation"),
    "online.invitation_hint": ("卓/コード", "TABLE/CODE"),
    "online.invitation_is": ("招待: {code}", "Invitation: {code}"),
    "online.table_title": ("卓 {table} — {game}", "Table {table} — {game}"),
    "online.sit": ("この席に座る", "Sit here"),
    "online.start": ("開始（空席は CPU）", "Start (CPUs fill empty seats)"),
    "online.leave": ("退席", "Leave"),
    "online.status.open": ("募集中", "open"),
    "online.status.playing": ("対局中", "playing"),
    "online.status.over": ("終局", "over"),
    "online.private_mark": ("非公開", "private"),
    "online.no_timer": ("なし", "none"),
    "online.minutes": ("{n} 分", "{n} min"),
    "online.seconds": ("{n} 秒", "{n} s"),
    "online.seat_free": ("空", "free"),
    "online.seat_cpu": ("CPU", "CPU"),
    "online.spectating": ("観戦中", "Watching"),
    "online.conn.closed": ("未接続", "Not connected"),
    "online.conn.connecting": ("{url} に接続中…", "Connecting to {url}…"),
    "online.conn.online": ("{url} に接続済み", "Connected to {url}"),
    "online.conn.lost": ("サーバーとの接続が切れました。卓は待っています。再接続中…",
                         "The connection to the server was lost. The table waits; reconnecting…"),
    "online.conn.unreachable": ("{url} に接続できません。再試行中…", "Cannot reach {url}; trying again…"),
    "online.conn.bad_address": ("サーバーのアドレスは ws://ホスト:ポート の形です",
                                "The server address is ws://HOST:PORT"),
    "online.conn.need_name": ("名前とパスワードを入れてください", "Enter a name and a password"),
    "online.signed_out": ("サーバーがログインを受け付けません。もう一度ログインしてください",
                          "The server no longer knows this sign-in; please log in again"),
    "online.table.waits": ("サーバーを待っています（卓はそのまま）", "Waiting for the server (the table is kept)"),
    "online.bad_invitation": ("招待は「卓/コード」の形です", "An invitation is TABLE/CODE"),
    "online.error": ("サーバーが受け付けませんでした（{error}）", "The server refused that ({error})"),
    "online.error.bad_credentials": ("名前かパスワードが違います", "Wrong name or password"),
    "online.error.name_taken": ("その名前は使われています", "That name is taken"),
    "online.error.bad_name": ("名前は英数字・-・_ の 24 文字まで", "A name is up to 24 letters, digits, - or _"),
    "online.error.bad_password": ("パスワードは 8〜128 文字", "A password is 8 to 128 characters"),
    "online.error.bad_code": ("招待コードが違います", "That invitation code is wrong"),
    "online.error.no_such_table": ("その卓はありません", "No such table"),
    "online.error.race_elsewhere": ("この卓はこのロビーの別のサーバーにあります",
                                    "This race table is on another server process of this lobby"),
    "online.error.race_lost": ("この卓を持っていたサーバーが止まり、対局は結果なしで終わりました",
                               "The server process holding this race stopped; the match ended without a result"),
    "online.error.seat_taken": ("その席はふさがっています", "That seat is taken"),
    "online.error.not_open": ("対局が始まっています。観戦はできます", "The game has started; you may watch"),
    "online.error.not_host": ("開始できるのは卓の主催者だけです", "Only the table's host starts it"),
    "online.error.stale_seq": ("卓が先に進みました。もう一度どうぞ", "The table moved on; try again"),
    "online.error.rate_limited": ("送信が速すぎます", "Too many messages at once"),
})

SERVER = Key("online/server", DEFAULT_SERVER)
NAME = Key("online/name", "")
"""The server and the name last used, remembered between runs (never the password)."""

SIGN_IN, LOBBY, TABLE = 0, 1, 2
GAME_NAMES = {"unsun": "mode.unsun", "yomi": "mode.yomi", "yomi37": "mode.yomi", "umebotan": "mode.umebotan",
              "bozu": "mode.bozu"}


RACE = "kyogi"
MUBEYAMA = "mubeyama"
"""The kind box's entry for an online kyōgi race (``race.*`` messages, ``docs/online-races.md``)."""
LEADERS = 10
"""Rows of the lobby's leaderboard."""


def is_race_table(table: str) -> bool:
    """A race table's id ("r" and 8 hex digits; a turn table's is 8 hex digits)."""
    return len(table) == 9 and table.startswith("r")


def game_label(game: str, variant: str) -> str:
    if game == RACE:
        return tr("race.online.game")
    if game == MUBEYAMA:
        return f"{tr('race.mubeyama.game')} — {tr(f'mubeyama.variant.{variant}')}"
    if game in FLOOR_GAMES:
        return tr("race.floor.game", game=floor_game_name(game, variant))
    if game == "yomi37":
        return tr("yomi.variant.yomi37")
    if game == "yomi" and variant == "wild":
        return f"{tr('mode.yomi')} — {tr('yomi.variant.wild')}"
    return tr(GAME_NAMES.get(game, game))


def level_label(game: str, level: str) -> str:
    prefix = {"unsun": "unsun.ui.level", "umebotan": "ume.level", "bozu": "online.bozu_level"}.get(game, "yomi.level")
    return tr(f"{prefix}.{level}")


class _Bridge(QObject):
    """The worker thread's callbacks as signals (queued to the GUI thread by Qt)."""

    frame = Signal(object)
    status = Signal(str, str)


class OnlinePanel(QWidget):
    """The Online tab (see the module docstring)."""

    def __init__(self, settings: Any, voices: Any = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings, self.voices = settings, voices
        self.conn: Connection | None = None
        self.remote: RemoteTable | None = None
        self.game_panel: Any = None
        self.race_panel: OnlineRacePanel | OnlineMubeyamaPanel | OnlineFloorPanel | None = None
        self._race_games: dict[str, str] = {}           # race tables created here: their game
        self.race_tables: list[dict[str, Any]] = []     # race.list: the race tables in the lobby
        self.leaders: list[dict[str, Any]] = []
        self.account: dict[str, Any] = {}               # signed_in: name, guest, rating
        self._race_codes: dict[str, str] = {}
        self.race_options: dict[str, Any] = {}
        """More ``race.create`` fields for a race table made from the form (a test's ``karafuda: 0``)."""
        self._floor_kind = ""                 # the floor race the create form was last set for
        self._race_poll = QTimer(self, interval=3000)   # race tables are not in the lobby's pushes
        self._race_poll.timeout.connect(self.ask_race_tables)
        self.lobby: list[dict[str, Any]] = []
        self.invitation: str | None = None
        self._want_table: str | None = None          # a table created here: joined when `created` comes
        self._codes: dict[str, str] = {}
        self._conn_state, self._conn_url, self._ever_online = CLOSED, "", False
        self._bridge = _Bridge(self)
        self._bridge.frame.connect(self._on_frame)
        self._bridge.status.connect(self._on_status)
        self.pages = QStackedWidget()
        self.pages.addWidget(self._sign_in_page())
        self.pages.addWidget(self._lobby_page())
        self.pages.addWidget(self._table_page())
        self.notice = QLabel(wordWrap=True)
        self.notice.setStyleSheet("color: #c0392b;")
        self.connection_label = QLabel()
        """The connection's state: below the tab, or in the main window's status bar (`showEvent`)."""
        v = QVBoxLayout(self)
        v.setContentsMargins(4, 4, 4, 4)
        v.addWidget(self.pages, 1)
        v.addWidget(self.notice)
        self._status_row = QHBoxLayout()
        self._status_row.addWidget(self.connection_label, 1)
        v.addLayout(self._status_row)
        LANG.changed.connect(self.retranslate)
        self.retranslate()

    # -- pages ---------------------------------------------------------------------------------------
    def _sign_in_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout()
        self.server_edit = QLineEdit(str(self._setting(SERVER)))
        self.name_edit = QLineEdit(str(self._setting(NAME)))
        self.password_edit = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        self.server_label, self.name_label, self.password_label = QLabel(), QLabel(), QLabel()
        form.addRow(self.server_label, self.server_edit)
        form.addRow(self.name_label, self.name_edit)
        form.addRow(self.password_label, self.password_edit)
        self.log_in_button, self.sign_up_button, self.guest_button = QPushButton(), QPushButton(), QPushButton()
        self.log_in_button.clicked.connect(lambda: self.sign_in("log_in"))
        self.sign_up_button.clicked.connect(lambda: self.sign_in("sign_up"))
        self.guest_button.clicked.connect(lambda: self.sign_in("guest"))
        buttons = QHBoxLayout()
        for b in (self.log_in_button, self.sign_up_button, self.guest_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        v = QVBoxLayout(page)
        v.addLayout(form)
        v.addLayout(buttons)
        v.addStretch(1)
        return page

    def _lobby_page(self) -> QWidget:
        page = QWidget()
        self.who_label = QLabel()
        self.sign_out_button = QPushButton()
        self.sign_out_button.clicked.connect(self.sign_out)
        top = QHBoxLayout()
        top.addWidget(self.who_label, 1)
        top.addWidget(self.sign_out_button)
        self.tables_label = QLabel()
        self.table_list = QTableWidget(0, 5)
        self.table_list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table_list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table_list.verticalHeader().hide()
        header = self.table_list.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table_list.doubleClicked.connect(lambda _: self.join_selected())
        self.join_button, self.watch_button = QPushButton(), QPushButton()
        self.join_button.clicked.connect(self.join_selected)
        self.watch_button.clicked.connect(lambda: self.join_selected(watch=True))
        row = QHBoxLayout()
        row.addWidget(self.join_button)
        row.addWidget(self.watch_button)
        row.addStretch(1)
        left = QVBoxLayout()
        left.addLayout(top)
        left.addWidget(self.tables_label)
        left.addWidget(self.table_list, 1)
        left.addLayout(row)
        h = QHBoxLayout(page)
        h.addLayout(left, 3)
        h.addLayout(self._create_box(), 2)
        return page

    def _create_box(self) -> QVBoxLayout:
        self.create_box = QGroupBox()
        form = QFormLayout(self.create_box)
        self.create_form = form
        self.kind_box, self.seats_box, self.level_box = QComboBox(), QComboBox(), QComboBox()
        self.timer_spin = QSpinBox(minimum=0, maximum=60, value=TURN_SECONDS // 60)
        self.length_spin = QSpinBox()
        self.private_box = QCheckBox()
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.seats_box.currentIndexChanged.connect(self._floor_seats_changed)
        self.game_label, self.seats_label, self.level_label, self.timer_label = QLabel(), QLabel(), QLabel(), QLabel()
        form.addRow(self.game_label, self.kind_box)
        form.addRow(self.seats_label, self.seats_box)
        form.addRow(self.level_label, self.level_box)
        self.length_label = QLabel()
        form.addRow(self.length_label, self.length_spin)
        form.addRow(self.timer_label, self.timer_spin)
        self.race_form = RaceOptionsForm(form, self.create_box)   # karafuda and timings of a race table
        self.length_spin.valueChanged.connect(self.race_form.set_cards)
        form.addRow(self.private_box)
        self.create_button = QPushButton()
        self.create_button.clicked.connect(self.create_table)
        form.addRow(self.create_button)
        self.invite_box = QGroupBox()
        inv = QHBoxLayout(self.invite_box)
        self.invite_edit = QLineEdit()
        self.invite_button = QPushButton()
        self.invite_button.clicked.connect(self.join_invitation)
        inv.addWidget(self.invite_edit, 1)
        inv.addWidget(self.invite_button)
        self.leader_box = QGroupBox()
        lv = QVBoxLayout(self.leader_box)
        self.leader_list = QTableWidget(0, 4)
        self.leader_list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.leader_list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.leader_list.verticalHeader().hide()
        lh = self.leader_list.horizontalHeader()
        lh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        lh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        lv.addWidget(self.leader_list)
        v = QVBoxLayout()
        v.addWidget(self.create_box)
        v.addWidget(self.invite_box)
        v.addWidget(self.leader_box, 1)
        return v

    def _table_page(self) -> QWidget:
        page = QWidget()
        self.table_title = QLabel()
        self.table_title.setStyleSheet("font-weight: bold;")
        self.invitation_label = QLabel(textInteractionFlags=Qt.TextInteractionFlag.TextSelectableByMouse)
        self.seat_box = QComboBox()
        self.sit_button, self.start_button, self.leave_button = QPushButton(), QPushButton(), QPushButton()
        self.sit_button.clicked.connect(self.sit)
        self.start_button.clicked.connect(self.start)
        self.leave_button.clicked.connect(self.leave)
        top = QHBoxLayout()
        top.addWidget(self.table_title)
        top.addWidget(self.invitation_label)
        top.addStretch(1)
        for w in (self.seat_box, self.sit_button, self.start_button, self.leave_button):
            top.addWidget(w)
        self.game_area = QVBoxLayout()
        v = QVBoxLayout(page)
        v.setContentsMargins(0, 0, 0, 0)
        v.addLayout(top)
        v.addLayout(self.game_area, 1)
        return page

    # -- signing in -------------------------------------------------------------------------------------
    def sign_in(self, how: str) -> None:
        """Connect to the server in the address field and log in / sign up / come as a guest."""
        self.notice.clear()
        name, password = self.name_edit.text().strip(), self.password_edit.text()
        if how != "guest" and (not name or not password):
            self.notice.setText(tr("online.conn.need_name"))
            return
        try:
            self._connect(self.server_edit.text())
        except AddressError:
            self.notice.setText(tr("online.conn.bad_address"))
            return
        assert self.conn is not None
        if how == "guest":
            self.conn.send("guest")
        else:
            self.conn.send(how, name=name, password=password)
            self._save(NAME, name)
        self.password_edit.clear()

    def _connect(self, address: str) -> None:
        if self.conn is not None:
            self.conn.close()
        bridge = self._bridge
        self.conn = Connection(address, on_frame=bridge.frame.emit, on_status=bridge.status.emit)
        self._conn_url, self._ever_online = self.conn.url, False
        self._save(SERVER, address.strip())
        self.conn.open()

    def sign_out(self) -> None:
        self._race_poll.stop()
        self._close_table()
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        self.pages.setCurrentIndex(SIGN_IN)

    # -- the lobby ---------------------------------------------------------------------------------------
    def selected_table(self) -> str | None:
        rows = self.table_list.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table_list.item(rows[0].row(), 0)
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def join_selected(self, watch: bool = False) -> None:
        table = self.selected_table()
        if table is not None:
            self.join(table, watch=watch)

    def join(self, table: str, watch: bool = False, code: str | None = None) -> None:
        if self.conn is None:
            return
        self.notice.clear()
        if is_race_table(table):
            self.join_race(table, watch=watch, code=code)
            return
        self._want_table = table
        self.conn.send("spectate" if watch else "join", table=table, code=code)

    def join_invitation(self) -> None:
        text = self.invite_edit.text().strip()
        table, sep, code = text.partition("/")
        if not sep or not table or not code:
            self.notice.setText(tr("online.bad_invitation"))
            return
        self.join(table, code=code)

    def create_table(self) -> None:
        if self.conn is None:
            return
        game, variant = str(self.kind_box.currentData()).split("/")
        if game == RACE:
            self.notice.clear()
            self.conn.send("race.create", game=RACE, cards=self.length_spin.value(),
                           private=self.private_box.isChecked(),
                           **{**self.race_form.options(kyogi=True), **self.race_options})
            return
        if game == MUBEYAMA:
            self.notice.clear()
            self.conn.send("race.create", game=MUBEYAMA, variant=variant, private=self.private_box.isChecked(),
                           **{**self.race_form.options(kyogi=False), **self.race_options})
            return
        if game in FLOOR_GAMES:
            self.notice.clear()
            seats, cpus = int(self.seats_box.currentData()), self.length_spin.value()
            chosen = {} if variant == "standard" else {"variant": variant}
            self.conn.send("race.create", game=game, seats=seats, cpus=list(range(seats - cpus, seats)),
                           level=self.level_box.currentData(), private=self.private_box.isChecked(),
                           **chosen, **self.race_options)
            return
        minutes = self.timer_spin.value()
        length = {LENGTH[game][0]: self.length_spin.value()} if game in LENGTH else {}
        self.notice.clear()
        self.conn.send("create_table", game=game, variant=variant, seats=self.seats_box.currentData(),
                       level=self.level_box.currentData(), turn_seconds=minutes * 60 if minutes else None,
                       private=self.private_box.isChecked(), **length)

    def _kind_changed(self) -> None:
        data = self.kind_box.currentData()
        if data is None:
            return
        game, variant = str(data).split("/")
        race = game in (RACE, MUBEYAMA)
        for w in (self.seats_box, self.level_box, self.timer_spin):
            self.create_form.setRowVisible(w, not race)
        self.create_form.setRowVisible(self.length_spin, game != MUBEYAMA)
        self.race_form.show_for(race, kyogi=game == RACE)
        self.private_box.setText(tr("race.online.private" if game == RACE else "online.private"))
        if game == MUBEYAMA:
            return
        if game in FLOOR_GAMES:
            self._floor_form(game)
            return
        if race:
            self.length_label.setText(tr("race.online.cards"))
            self.length_spin.setSingleStep(1)
            self.length_spin.setRange(1, 25)
            self.length_spin.setValue(25)
            return
        low, high, usual = seat_range(game, variant)
        keep = self.seats_box.currentData()
        self.seats_box.clear()
        for n in range(low, high + 1):
            self.seats_box.addItem(str(n), n)
        self.seats_box.setCurrentIndex(max(0, self.seats_box.findData(keep if keep else usual)))
        keep_level = self.level_box.currentData()
        self.level_box.clear()
        for level in LEVELS[game]:
            self.level_box.addItem(level_label(game, level), level)
        k = self.level_box.findData(keep_level)
        self.level_box.setCurrentIndex(k if k >= 0 else self.level_box.findData(DEFAULT_LEVEL[game]))
        self.length_label.setVisible(game in LENGTH)      # bōzu-mekuri: one game, no length to set
        self.length_spin.setVisible(game in LENGTH)
        if game not in LENGTH:
            return
        field, low, high, usual = LENGTH[game]
        self.length_label.setText(tr(f"online.{field}"))
        self.length_spin.setRange(low, high)
        self.length_spin.setSingleStep(2 if game == "umebotan" else 1)     # Ume Botan: an even number
        self.length_spin.setValue(usual)

    def _floor_form(self, game: str) -> None:
        """A floor race's form: its seats (the registry's range), the CPUs among them, their level."""
        from trainer.games.registry import find
        from trainer.players.karuta_cpu import LEVELS as RACE_LEVELS
        self.create_form.setRowVisible(self.timer_spin, False)
        variant = find(game)
        keep = self.seats_box.currentData()
        self.seats_box.blockSignals(True)
        self.seats_box.clear()
        for n in range(variant.min_seats, variant.max_seats + 1):
            self.seats_box.addItem(str(n), n)
        fits = keep if keep and variant.min_seats <= keep <= variant.max_seats and self._floor_kind == game else None
        self.seats_box.setCurrentIndex(max(0, self.seats_box.findData(fits or variant.seats)))
        self.seats_box.blockSignals(False)
        keep_level = self.level_box.currentData()
        self.level_box.clear()
        for level in RACE_LEVELS:
            self.level_box.addItem(tr(f"level.{level}"), level)
        k = self.level_box.findData(keep_level)
        self.level_box.setCurrentIndex(k if k >= 0 else self.level_box.findData("club"))
        self.length_label.setVisible(True)
        self.length_spin.setVisible(True)
        self.length_label.setText(tr("race.floor.cpus"))
        self.length_spin.setSingleStep(1)
        if self._floor_kind != game:          # a new game: no CPUs until asked (the host may begin with them)
            self.length_spin.setMinimum(0)
            self.length_spin.setValue(0)
        self._floor_kind = game
        self._floor_seats_changed()

    def _floor_seats_changed(self) -> None:
        """A floor race keeps a seat for the person: at most seats − 1 CPUs."""
        game = str(self.kind_box.currentData() or "").split("/")[0]
        seats = self.seats_box.currentData()
        if game in FLOOR_GAMES and seats:
            keep = self.length_spin.value()
            self.length_spin.setRange(0, int(seats) - 1)
            self.length_spin.setValue(min(keep, int(seats) - 1))

    def _show_lobby(self, tables: list[dict[str, Any]]) -> None:
        keep = self.selected_table()
        self.lobby = tables
        listed = {t["table"] for t in tables}
        rows = [(t, self._lobby_cells(t)) for t in tables]
        rows += [(t, self._race_cells(t)) for t in self.race_tables if t["table"] not in listed]
        self.table_list.setRowCount(len(rows))
        for r, (t, cells) in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, t["table"])
                self.table_list.setItem(r, c, item)
            if t["table"] == keep:
                self.table_list.selectRow(r)

    def _lobby_cells(self, t: dict[str, Any]) -> list[str]:
        if is_race_table(t["table"]) and "seats" not in t:       # a race table listed with the lobby's
            return self._race_cells(t)
        return [t["table"] + (f" ({tr('online.private_mark')})" if t.get("private") else ""),
                game_label(t["game"], t.get("variant", "standard")), self._seats_text(t["seats"]),
                tr(f"online.status.{t['status']}"), self._timer_text(t.get("turn_seconds"))]

    @staticmethod
    def _race_cells(t: dict[str, Any]) -> list[str]:
        names = [n or tr("online.seat_free") for n in (t.get("names") or [None, None])]
        taken = sum(1 for n in t.get("names") or [] if n)
        if t.get("game") in FLOOR_GAMES:
            seats = t.get("seats") or []
            shown = [s.get("name") or "?" if isinstance(s, dict) and "name" in s else tr("online.seat_cpu")
                     if isinstance(s, dict) else tr("online.seat_free") for s in seats] or names
            status = f"race.online.status.{t.get('status')}"
            return [t["table"] + (f" ({tr('online.private_mark')})" if t.get("private") else ""),
                    game_label(t["game"], str(t.get("variant") or "")),
                    f"{sum(1 for s in seats if s)}/{len(shown)}: " + ", ".join(shown),
                    tr(status) if status in MESSAGES else str(t.get("status", "")), "—"]
        if t.get("game") == MUBEYAMA:
            return [t["table"] + (f" ({tr('online.private_mark')})" if t.get("private") else ""),
                    tr("race.mubeyama.game"), f"{taken}/{len(names)}: " + ", ".join(names),
                    tr(f"race.online.status.{t.get('status')}") if f"race.online.status.{t.get('status')}"
                    in MESSAGES else str(t.get("status", "")), "—"]
        status = f"race.online.status.{t.get('status')}"
        state = tr(status) if status in MESSAGES else str(t.get("status", ""))
        return [t["table"] + (f" ({tr('online.private_mark')})" if t.get("private") else ""),
                f"{tr('race.online.game_short')} · {tr('race.online.cards_n', n=t.get('cards', 25))}",
                f"{taken}/2: " + ", ".join(names),
                f"{state} · {tr('race.online.rated_short')}" if t.get("rated") else state, "—"]

    @staticmethod
    def _seats_text(seats: list[Any]) -> str:
        taken = sum(1 for s in seats if s)
        names = [s.get("name") or tr("online.seat_cpu") if s else tr("online.seat_free") for s in seats]
        return f"{taken}/{len(seats)}: " + ", ".join(names)

    @staticmethod
    def _timer_text(seconds: float | None) -> str:
        if not seconds:
            return tr("online.no_timer")
        if seconds >= 60 and seconds % 60 == 0:
            return tr("online.minutes", n=int(seconds // 60))
        return tr("online.seconds", n=f"{seconds:g}")

    # -- a table -------------------------------------------------------------------------------------------
    def sit(self) -> None:
        if self.conn is not None and self.remote is not None and self.seat_box.currentData() is not None:
            self.conn.send("sit", table=self.remote.id, seat=self.seat_box.currentData())

    def start(self) -> None:
        if self.conn is not None and self.remote is not None:
            self.conn.send("start", table=self.remote.id)

    def leave(self) -> None:
        race = self.race_panel
        if race is not None:
            if race.race.started and race.race.over is None and race.race.seat is not None:
                race.resign()                 # a match in play is left by resigning (asked first)
                if race.race.over is None:
                    return
            self._close_table()
            self.pages.setCurrentIndex(LOBBY)
            self.ask_race_tables()
            return
        if self.conn is not None and self.remote is not None:
            self.conn.send("leave", table=self.remote.id)
        self._close_table()
        self.pages.setCurrentIndex(LOBBY)

    def _open_table(self, frame: dict[str, Any]) -> None:
        self._close_table()
        assert self.conn is not None
        conn = self.conn
        self.remote = RemoteTable(frame, send=conn.send)
        self.invitation = f"{frame['table']}/{self._codes[frame['table']]}" if frame["table"] in self._codes else None
        self.game_panel = panel_for(self.remote, self.settings, self.voices)
        self.game_area.addWidget(self.game_panel, 1)
        self.pages.setCurrentIndex(TABLE)
        self._table_changed()

    def _close_table(self) -> None:
        if self.race_panel is not None:
            panel, self.race_panel = self.race_panel, None
            panel.shutdown()
            self.game_area.removeWidget(panel)
            panel.hide()
            panel.setParent(None)
            panel.deleteLater()
            if self.conn is not None:
                self.conn.races.discard(panel.table)
        if self.game_panel is not None:
            self.game_panel.shutdown()
            self.game_area.removeWidget(self.game_panel)
            self.game_panel.hide()
            self.game_panel.setParent(None)
            self.game_panel.deleteLater()
            self.game_panel = None
        self.remote = None

    def _table_changed(self) -> None:
        """The table's header (seats, what may be done) and the game's drawing, from the remote table."""
        if self.race_panel is not None:
            self.table_title.setText(self.race_panel.title_text())
            self.invitation_label.setText(tr("online.invitation_is", code=self.invitation) if self.invitation else "")
            for w in (self.seat_box, self.sit_button, self.start_button):
                w.setVisible(False)
            return
        remote = self.remote
        if remote is None:
            return
        summary = remote.summary
        self.table_title.setText(tr("online.table_title", table=remote.id,
                                    game=game_label(remote.game, remote.variant_name)))
        self.invitation_label.setText(tr("online.invitation_is", code=self.invitation) if self.invitation else "")
        is_open = remote.status == "open"
        self.seat_box.clear()
        for s, info in enumerate(summary.get("seats") or []):
            if not info:
                self.seat_box.addItem(tr("table.seat", n=s + 1), s)
        for w in (self.seat_box, self.sit_button, self.start_button):
            w.setVisible(is_open)
        self.sit_button.setEnabled(self.seat_box.count() > 0)
        panel: OnlineTablePanel = self.game_panel
        panel.refresh()
        if remote.seat is None and remote.started:
            self.game_panel.status.setText(tr("online.spectating") + " — " + self.game_panel.status.text())

    # -- frames and the connection -----------------------------------------------------------------------
    def _on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if isinstance(kind, str) and (kind.startswith("race.") or kind == "rating"):
            self._race_frame(frame)
            return
        if kind == "leaderboard":
            self._show_leaders(list(frame.get("players") or []))
            return
        if kind == "signed_in":
            self.account = {"name": frame.get("name", ""), "guest": frame.get("guest"),
                            "rating": frame.get("rating")}
            self._show_account()
            if self.pages.currentIndex() == SIGN_IN:
                self.pages.setCurrentIndex(LOBBY)
                assert self.conn is not None
                self.conn.send("lobby")
                self.ask_race_tables()
                self.conn.send("leaderboard", game=RACE, limit=LEADERS)
                self._race_poll.start()
        elif kind == "lobby":
            self._show_lobby(list(frame.get("tables") or []))
            self.ask_race_tables()
            self._seats_from_lobby()
        elif kind == "created":
            if frame.get("code"):
                self._codes[frame["table"]] = frame["code"]
            self.join(frame["table"])
        elif kind == "table":
            self._table_frame(frame)
        elif kind in ("events", "view", "over"):
            if self.remote is not None and frame.get("table") == self.remote.id:
                self.remote.apply(frame)
                self._table_changed()
        elif kind == "left":
            if self.remote is not None and frame.get("table") == self.remote.id:
                self._close_table()
                self.pages.setCurrentIndex(LOBBY)
        elif kind == "refusal" and self.race_panel is not None:
            fields = frame.get("fields") if isinstance(frame.get("fields"), dict) else {}
            self.race_panel.flags.setText(describe_refusal(
                IllegalAction(str(frame.get("reason", "")), "refused by the server", **(fields or {}))))
        elif kind == "refusal":
            if self.remote is not None and self.game_panel is not None:
                refusal = self.remote.refusal(frame)
                self._table_changed()         # (a redraw clears the panel's notice: worded after it)
                self.game_panel.notice.setText(describe_refusal(refusal))
        elif kind == "error":
            self._error(frame)

    # -- race tables (kyōgi online) ---------------------------------------------------------------------
    def ask_race_tables(self) -> None:
        """Ask for the race tables (``race.list``): the lobby's pushes list turn tables only."""
        if self.conn is not None and self.pages.currentIndex() == LOBBY:
            self.conn.send("race.list")

    def join_race(self, table: str, watch: bool = False, code: str | None = None) -> None:
        assert self.conn is not None
        code = code or self._race_codes.get(table)
        if code:
            self._race_codes[table] = code
        self.conn.send("race.watch" if watch else "race.join", table=table, **({"code": code} if code else {}))

    def _race_frame(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "race.tables":
            self.race_tables = list(frame.get("tables") or [])
            self._show_lobby(self.lobby)
            return
        if kind == "race.created":
            if frame.get("code"):
                self._race_codes[frame["table"]] = frame["code"]
            kind_game = str(self.kind_box.currentData() or "").split("/")[0]
            self._race_games[frame["table"]] = kind_game if kind_game == MUBEYAMA or kind_game in FLOOR_GAMES \
                else RACE
            self.join_race(frame["table"])
            return
        if kind in ("race.joined", "race.watching", "race.resumed") and (
                self.race_panel is None or self.race_panel.table != frame["table"]):
            self._open_race(frame["table"], self._game_of(frame["table"]))
        elif kind == "race.start" and frame.get("game") == MUBEYAMA and self.race_panel is not None \
                and not isinstance(self.race_panel, OnlineMubeyamaPanel):
            self._race_games[frame["table"]] = MUBEYAMA      # joined by invitation: the start says the game
            self._open_race(frame["table"], MUBEYAMA)
        elif kind == "race.start" and frame.get("game") in FLOOR_GAMES and self.race_panel is not None \
                and not isinstance(self.race_panel, OnlineFloorPanel):
            self._race_games[frame["table"]] = frame["game"]
            self._open_race(frame["table"], frame["game"])
        panel = self.race_panel
        if panel is not None:
            panel.apply(frame)
            if kind == "race.start":
                self._table_changed()          # the title says whether the match is rated
        if kind == "rating":
            self.account["rating"] = {"game": frame.get("game"), "rating": frame.get("rating"),
                                      "games": frame.get("games")}
            self._show_account()
            if self.conn is not None:
                self.conn.send("leaderboard", game=RACE, limit=LEADERS)

    def _game_of(self, table: str) -> str:
        listed = next((t for t in self.race_tables if t["table"] == table), None)
        return self._race_games.get(table) or (listed or {}).get("game") or RACE

    def _open_race(self, table: str, game: str = RACE) -> None:
        self._close_table()
        assert self.conn is not None
        panel_type = OnlineMubeyamaPanel if game == MUBEYAMA else OnlineFloorPanel if game in FLOOR_GAMES \
            else OnlineRacePanel
        self.race_panel = panel_type(table, self.conn.send, self.settings, self.voices)
        if isinstance(self.race_panel, OnlineFloorPanel):
            self.race_panel.race.game = game
        code = self._race_codes.get(table)
        self.invitation = f"{table}/{code}" if code else None
        self.game_area.addWidget(self.race_panel, 1)
        self.pages.setCurrentIndex(TABLE)
        self._table_changed()

    def _show_account(self) -> None:
        name, rating = self.account.get("name", ""), self.account.get("rating")
        text = tr("online.signed_in", name=name)
        if rating:
            text += "　" + tr("online.your_rating", rating=f"{float(rating['rating']):.0f}")
        self.who_label.setText(text)

    def _show_leaders(self, players: list[dict[str, Any]]) -> None:
        self.leaders = players
        self.leader_list.setRowCount(len(players))
        for r, p in enumerate(players):
            for c, text in enumerate((str(p.get("rank", r + 1)), str(p.get("name", "")),
                                      f"{float(p.get('rating', 0)):.0f}", str(p.get("games", 0)))):
                item = QTableWidgetItem(text)
                if c != 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.leader_list.setItem(r, c, item)

    def _seats_from_lobby(self) -> None:
        """The open table's seats as the lobby lists them: a start fills the empty seats with CPUs
        and the server says so in the lobby, not in a ``table`` frame (protocol 1)."""
        remote = self.remote
        listed = next((t for t in self.lobby if remote is not None and t["table"] == remote.id), None)
        if remote is not None and listed is not None and listed["seats"] != remote.summary.get("seats"):
            remote.summary = {**remote.summary, "seats": listed["seats"]}
            self._table_changed()

    def _table_frame(self, frame: dict[str, Any]) -> None:
        if self.remote is not None and frame["table"] == self.remote.id:
            self.remote.apply(frame)
            self._table_changed()
        elif frame["table"] == self._want_table:
            self._want_table = None
            self._open_table(frame)

    def _error(self, frame: dict[str, Any]) -> None:
        error = str(frame.get("error", ""))
        if self.remote is not None and self.remote.answered(frame):
            self._table_changed()          # the action was not taken: the view may be acted on again
        msg = f"online.error.{error}"
        self.notice.setText(tr(msg) if msg in MESSAGES else tr("online.error", error=error))
        if error == "no_such_table" and self.remote is not None:
            self._close_table()            # coming back, the server no longer has our table
            self.pages.setCurrentIndex(LOBBY)
        elif error == "race_lost" and self.race_panel is not None and self.race_panel.table == frame.get("table"):
            self._close_table()            # coming back, the process that held our race is gone
            self.pages.setCurrentIndex(LOBBY)
            self.ask_race_tables()
        elif error == "bad_credentials" and self.pages.currentIndex() != SIGN_IN:
            self.sign_out()                # coming back, the server no longer knows our token
            self.notice.setText(tr("online.signed_out"))

    def _on_status(self, state: str, detail: str) -> None:
        self._conn_state = state
        self._ever_online = self._ever_online or state == ONLINE
        self._show_connection()

    def _show_connection(self) -> None:
        state = self._conn_state
        text = {CLOSED: tr("online.conn.closed"), CONNECTING: tr("online.conn.connecting", url=self._conn_url),
                ONLINE: tr("online.conn.online", url=self._conn_url),
                LOST: tr("online.conn.lost") if self._ever_online
                else tr("online.conn.unreachable", url=self._conn_url)}[state]
        self.connection_label.setText(text)
        self.connection_label.setStyleSheet("color: #c0392b; font-weight: bold;" if state == LOST else "")
        self.connection_label.setVisible(state != CLOSED)
        if state == LOST and self.game_panel is not None:     # the view comes again once back
            self.game_panel.status.setText(tr("online.table.waits"))

    def showEvent(self, event: Any) -> None:
        """In a main window the connection's state moves to its status bar (a permanent widget
        there: seen from every tab, never covered by the window's passing messages)."""
        window = self.window()
        if isinstance(window, QMainWindow) and self.connection_label.parent() is not window.statusBar():
            self._status_row.removeWidget(self.connection_label)
            window.statusBar().addPermanentWidget(self.connection_label)
        super().showEvent(event)

    # -- the main window's mode protocol -------------------------------------------------------------------
    def available(self, name: str) -> bool:
        return False

    def command(self, name: str) -> bool:
        return False

    def settings_changed(self) -> None:
        self.retranslate()

    def shutdown(self) -> None:
        self._race_poll.stop()
        self._close_table()
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def retranslate(self, *_: Any) -> None:
        for label, key in ((self.server_label, "online.server"), (self.name_label, "online.name"),
                           (self.password_label, "online.password"), (self.game_label, "online.game"),
                           (self.seats_label, "online.seats"), (self.level_label, "online.level"),
                           (self.timer_label, "online.timer"), (self.tables_label, "online.tables")):
            label.setText(tr(key))
        for button, key in ((self.log_in_button, "online.log_in"), (self.sign_up_button, "online.sign_up"),
                            (self.guest_button, "online.guest"), (self.sign_out_button, "online.sign_out"),
                            (self.join_button, "online.join"), (self.watch_button, "online.watch"),
                            (self.create_button, "online.create"), (self.invite_button, "online.join"),
                            (self.sit_button, "online.sit"), (self.start_button, "online.start"),
                            (self.leave_button, "online.leave")):
            button.setText(tr(key))
        self.create_box.setTitle(tr("online.create"))
        self.leader_box.setTitle(tr("leaderboard.title"))
        self.leader_list.setHorizontalHeaderLabels([tr(f"leaderboard.{c}")
                                                    for c in ("rank", "name", "rating", "games")])
        self._show_leaders(self.leaders)
        if self.account:
            self._show_account()
        self.invite_box.setTitle(tr("online.invitation"))
        self.invite_edit.setPlaceholderText(tr("online.invitation_hint"))
        self.table_list.setHorizontalHeaderLabels([tr(f"online.col.{c}") for c in
                                                   ("table", "game", "seats", "status", "timer")])
        keep = self.kind_box.currentData()
        self.kind_box.blockSignals(True)
        self.kind_box.clear()
        for game, variant in TABLE_KINDS:
            self.kind_box.addItem(game_label(game, variant), f"{game}/{variant}")
        self.kind_box.addItem(game_label(RACE, "standard"), f"{RACE}/standard")
        from trainer.rules.mubeyama import VARIANTS
        for variant in VARIANTS:
            self.kind_box.addItem(game_label(MUBEYAMA, variant), f"{MUBEYAMA}/{variant}")
        for game in FLOOR_GAMES:
            for floor_variant in registry_variants(game):          # shimonoku: standard, Nanae's
                self.kind_box.addItem(game_label(game, floor_variant.variant), f"{game}/{floor_variant.variant}")
        self.kind_box.setCurrentIndex(max(0, self.kind_box.findData(keep)))
        self.kind_box.blockSignals(False)
        self._kind_changed()
        self._show_lobby(self.lobby)
        self._show_connection()
        self._table_changed()

    # -- settings -------------------------------------------------------------------------------------------
    def _setting(self, key: Key) -> Any:
        return self.settings.get(key) if self.settings is not None else key.default

    def _save(self, key: Key, value: Any) -> None:
        if self.settings is not None:
            self.settings.set(key, value)


__all__ = ["OnlinePanel", "SERVER", "NAME"]
