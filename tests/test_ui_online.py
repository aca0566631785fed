"""The Online tab against a real game server started by the test (uvicorn in a thread on a free
port, a SQLite file in tmp_path, stopped at the end): a guest signs in, the lobby updates live
when another client creates a table, a table is created from the form and started with CPU
fill-ins, and the game is played to its end by clicks on the same table panels as local play
(Unsun, Yomi, Ume Botan). Then the server is stopped mid-game: the status line says the
connection is lost and the table waits; the server comes back on the same database and port,
the tab logs in again with its token, and the game goes on to its end."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import urllib.request  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from trainer.online.client import ONLINE, Connection, socket_url  # noqa: E402
from trainer.rules import umebotan, unsun, yomi  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG, tr  # noqa: E402
from trainer.ui.online_panel import LOBBY, TABLE, OnlinePanel  # noqa: E402
from tests.server_fixtures import free_port  # noqa: E402


@pytest.fixture(autouse=True)
def english():
    before = LANG.code
    LANG.set("en")
    yield
    LANG.set(before)


class Served:
    """`karuta serve`'s application under uvicorn in a thread, on a port and database that
    survive a stop (`stop`, `start` again: the tables come back from the database)."""

    def __init__(self, db: str, port: int):
        self.db, self.port = db, port
        self.url = f"ws://127.0.0.1:{port}/ws"
        self.server = None
        self.thread = None

    def start(self) -> None:
        import uvicorn

        from trainer.server.app import Hub, ServerConfig, create_app
        hub = Hub(ServerConfig(db=self.db))
        self.server = uvicorn.Server(uvicorn.Config(create_app(hub=hub), host="127.0.0.1", port=self.port,
                                                    log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "the test server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(timeout=20)
            assert not self.thread.is_alive(), "the test server did not stop"
            self.server = None


@pytest.fixture
def served(tmp_path):
    s = Served(f"sqlite:///{tmp_path / 'online.sqlite'}", free_port())
    s.start()
    yield s
    s.stop()


@pytest.fixture
def tab(qtbot, tmp_path):
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    panel = OnlinePanel(settings)
    qtbot.addWidget(panel)
    panel.resize(1024, 700)
    panel.show()
    yield panel
    panel.shutdown()


def sign_in_as_guest(qtbot, tab, served) -> None:
    tab.server_edit.setText(served.url)
    tab.guest_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentIndex() == LOBBY, timeout=10_000)
    assert tab.conn is not None and tab.conn.token
    assert tr("online.conn.online", url=served.url) == tab.connection_label.text()


def create_from_form(qtbot, tab, game, variant, seats, length, minutes=0) -> None:
    tab.kind_box.setCurrentIndex(tab.kind_box.findData(f"{game}/{variant}"))
    tab.seats_box.setCurrentIndex(tab.seats_box.findData(seats))
    tab.length_spin.setValue(length)
    tab.timer_spin.setValue(minutes)
    tab.create_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentIndex() == TABLE and tab.remote is not None, timeout=10_000)
    assert tab.remote.seat == 0 and tab.remote.status == "open"


def start_with_cpus(qtbot, tab) -> None:
    tab.start_button.click()
    qtbot.waitUntil(lambda: tab.remote is not None and tab.remote.started, timeout=10_000)
    # every empty seat got a CPU (the lobby says so), and the table names it
    qtbot.waitUntil(lambda: all(tab.remote.summary["seats"]), timeout=10_000)
    assert "CPU" in " ".join(tab.game_panel.table.titles)


def clicks_for(game, action, legal):
    """The items a person clicks for `action` in that game's table (what the view sends on)."""
    if game == "unsun":
        if isinstance(action, unsun.Robau):
            return ["robau"]
        if isinstance(action, unsun.HideRobai):
            return ["hide"]
        return [action.card]
    if game in ("yomi", "yomi37"):
        return ["pass"] if isinstance(action, yomi.Pass) else [action.card]
    if game == "bozu":
        return [("stack", action.stack)]
    if isinstance(action, umebotan.Take):
        return [("field", action.target)]
    same = [a for a in legal if isinstance(a, umebotan.Play) and a.card == action.card]
    return [("hand", action.card)] if len(same) == 1 else [("hand", action.card), ("field", action.target)]


def play_my_turns(qtbot, tab, until=None, limit=2000) -> int:
    """Click the first legal action at every turn of ours until the game ends (or `until()`)."""
    moves = 0
    remote = tab.remote
    for _ in range(limit):
        qtbot.waitUntil(lambda: remote.is_over() or bool(remote.waiting_for()) or (until and until()),
                        timeout=15_000)
        if remote.is_over() or (until and until()):
            return moves
        panel = tab.game_panel
        legal = list(remote.legal())
        seq = remote.seq
        for item in clicks_for(remote.game, legal[0], legal):
            panel.table.clicked.emit(remote.seat, item, 0.0)
        moves += 1
        # the server's answer: the next view, or (clicking faster than its rate allows, as a
        # test does) the action given back to be made again
        qtbot.waitUntil(lambda seq=seq: remote.seq != seq or remote.is_over() or bool(remote.waiting_for()),
                        timeout=15_000)
    raise AssertionError("the game did not end")


def other_client_creates(url, game) -> str:
    """Another person (a bare protocol client) creates a public table: the tab's lobby must show it."""
    from trainer.server.bot import Client

    async def go():
        client, _ = await Client.connect(url, "other")
        reply = await client.call("create_table", game=game)
        await client.close()
        return reply["table"]
    return asyncio.run(go())


@pytest.mark.parametrize("game, variant, seats, length", [
    ("yomi", "standard", 3, 1), ("umebotan", "standard", 3, 2), ("unsun", "standard", 8, 1),
    ("bozu", "standard", 3, 1)])
def test_a_guest_plays_a_table_with_cpus_to_its_end(qtbot, tab, served, game, variant, seats, length):
    sign_in_as_guest(qtbot, tab, served)
    other = other_client_creates(served.url, "yomi")
    qtbot.waitUntil(lambda: any(t["table"] == other for t in tab.lobby), timeout=10_000)
    assert tab.table_list.rowCount() == len(tab.lobby) >= 1     # the list drawn from the live lobby
    create_from_form(qtbot, tab, game, variant, seats, length)
    start_with_cpus(qtbot, tab)
    moves = play_my_turns(qtbot, tab)
    # the last view may say "over" a moment before the `over` frame brings the outcome
    qtbot.waitUntil(lambda: tab.remote.outcome() is not None, timeout=10_000)
    assert moves > 0 and tab.remote.is_over()
    panel = tab.game_panel
    lines = [panel.shell.log.item(k).text() for k in range(panel.shell.log.count())]
    assert len(lines) >= moves                          # the seat's log, worded by trainer.text
    assert not any(c in line for line in lines for c in ("U:", "M:", "H:", "B:", "{")), lines[:5]
    assert panel.game is not None and panel.session is tab.remote


def test_a_dropped_server_is_said_and_the_table_waits_then_goes_on(qtbot, tab, served):
    sign_in_as_guest(qtbot, tab, served)
    create_from_form(qtbot, tab, "yomi", "standard", 3, 2)
    start_with_cpus(qtbot, tab)
    remote = tab.remote
    first = play_my_turns(qtbot, tab, until=lambda: len(remote.log) > 12)
    assert not remote.is_over()
    qtbot.waitUntil(lambda: bool(remote.waiting_for()), timeout=10_000)
    seq, logged = remote.seq, len(remote.log)
    served.stop()
    qtbot.waitUntil(lambda: tab.connection_label.text() == tr("online.conn.lost"), timeout=15_000)
    # the table waits: a click now sends nothing the server could lose; nothing moved
    qtbot.wait(300)
    assert remote.seq == seq and len(remote.log) == logged and tab.pages.currentIndex() == TABLE
    served.start()
    qtbot.waitUntil(lambda: tab.conn.state == ONLINE, timeout=20_000)
    qtbot.waitUntil(lambda: remote.seq == seq and bool(remote.waiting_for()), timeout=10_000)
    assert len(remote.log) == logged            # the whole log again from 0: the same entries
    rest = play_my_turns(qtbot, tab)
    assert first + rest > 0 and remote.is_over()


def test_the_address_is_checked_before_connecting(qtbot, tab):
    tab.server_edit.setText("ftp://nowhere")
    tab.guest_button.click()
    assert tab.notice.text() == tr("online.conn.bad_address") and tab.conn is None
    assert socket_url("127.0.0.1:8750") == "ws://127.0.0.1:8750/ws"


def test_a_connection_says_lost_while_nothing_listens_and_stops_when_closed():
    states = []
    conn = Connection(f"ws://127.0.0.1:{free_port()}", on_frame=lambda f: None,
                      on_status=lambda s, d: states.append(s))
    conn.open()
    deadline = time.monotonic() + 10
    while "lost" not in states and time.monotonic() < deadline:
        time.sleep(0.05)
    conn.close()
    assert "lost" in states and states[-1] == "closed" and not conn._thread.is_alive()


def make_tab(qtbot, tmp_path, name):
    settings = S.Settings(QSettings(str(tmp_path / f"{name}.ini"), QSettings.Format.IniFormat))
    panel = OnlinePanel(settings)
    qtbot.addWidget(panel)
    panel.resize(1024, 700)
    panel.show()
    return panel


def test_two_people_at_a_private_table_each_see_their_own_hand(qtbot, tmp_path, tab, served):
    """The host signs up, creates a private table and reads its invitation; a second person (a
    second tab, its own connection) logs in, does not see the table in the lobby, joins by the
    invitation, and the host starts: two people and a CPU play Yomi to its end, each drawing only
    their own hand (the other person's cards are a count)."""
    tab.server_edit.setText(served.url)
    tab.name_edit.setText("hanako")
    tab.password_edit.setText("karuta-club-1")
    tab.sign_up_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentIndex() == LOBBY, timeout=10_000)
    assert tab.password_edit.text() == ""               # the password is not kept in the form
    tab.private_box.setChecked(True)
    create_from_form(qtbot, tab, "yomi", "standard", 3, 1)
    qtbot.waitUntil(lambda: bool(tab.invitation), timeout=5_000)
    assert tab.invitation in tab.invitation_label.text()

    guest = make_tab(qtbot, tmp_path, "guest")
    try:
        sign_in_as_guest(qtbot, guest, served)
        qtbot.wait(200)
        assert all(t["table"] != tab.remote.id for t in guest.lobby)     # private: not listed
        guest.invite_edit.setText(tab.remote.id + "/wrong")
        guest.invite_button.click()
        qtbot.waitUntil(lambda: guest.notice.text() == tr("online.error.bad_code"), timeout=5_000)
        guest.invite_edit.setText(tab.invitation)
        guest.invite_button.click()
        qtbot.waitUntil(lambda: guest.remote is not None and guest.remote.seat == 1, timeout=5_000)
        qtbot.waitUntil(lambda: "hanako" in " ".join(guest.game_panel.table.titles), timeout=5_000)
        yomi_panel = guest.game_panel        # the table's own choices are the server's; the faces are ours
        assert yomi_panel.faces.isVisible() and not yomi_panel.level.isVisible()
        assert not yomi_panel.new_button.isVisible() and not yomi_panel.rounds.isVisible()
        guest.seat_box.setCurrentIndex(guest.seat_box.findData(2))     # move to the other free seat
        guest.sit_button.click()
        qtbot.waitUntil(lambda: guest.remote.seat == 2, timeout=5_000)
        qtbot.waitUntil(lambda: tab.remote.summary["seats"][2] is not None, timeout=5_000)
        assert tab.remote.summary["seats"][1] is None
        start_with_cpus(qtbot, tab)
        qtbot.waitUntil(lambda: guest.remote.started, timeout=5_000)
        for _ in range(500):
            if tab.remote.is_over() and guest.remote.is_over():
                break
            for person in (tab, guest):
                remote = person.remote
                mine = set(remote.view().hand)
                other = guest.remote if person is tab else tab.remote
                assert not mine & set(other.view().hand) or remote.seq != other.seq
                if remote.waiting_for():
                    legal = list(remote.legal())
                    seq = remote.seq
                    for item in clicks_for("yomi", legal[0], legal):
                        person.game_panel.table.clicked.emit(remote.seat, item, 0.0)
                    qtbot.waitUntil(lambda r=remote, s=seq: r.seq != s or r.is_over(), timeout=10_000)
            qtbot.wait(20)
        assert tab.remote.is_over() and guest.remote.is_over()
        assert tab.remote.outcome() == guest.remote.outcome()
    finally:
        guest.shutdown()


def test_an_illegal_card_is_refused_by_the_server_and_worded_in_japanese(qtbot, tab, served):
    LANG.set("ja")
    sign_in_as_guest_ja(qtbot, tab, served)
    create_from_form(qtbot, tab, "yomi", "standard", 3, 1)
    start_with_cpus(qtbot, tab)
    remote = tab.remote
    wrong = None
    for _ in range(50):        # the seeds are the server's: play on until a card of the hand may not go
        qtbot.waitUntil(lambda: bool(remote.waiting_for()) or remote.is_over(), timeout=10_000)
        assert not remote.is_over(), "no turn with a card that may not be played"
        playable = {getattr(a, "card", None) for a in remote.legal()}
        wrong = next((c for c in remote.view().hand if c not in playable), None)
        if wrong is not None:
            break
        play_my_turns(qtbot, tab, until=lambda seq=remote.seq: remote.seq != seq)
    seq = remote.seq
    tab.game_panel.table.clicked.emit(remote.seat, wrong, 0.0)
    panel = tab.game_panel
    qtbot.waitUntil(lambda: panel.notice.text() != "", timeout=5_000)
    assert remote.seq == seq and bool(remote.waiting_for())       # nothing moved; still our turn
    assert any("\u3040" <= ch <= "\u30ff" for ch in panel.notice.text()), panel.notice.text()
    lines = [panel.shell.log.item(k).text() for k in range(panel.shell.log.count())]
    assert lines and all(any("\u3040" <= ch <= "\u9fff" for ch in line) for line in lines)


def sign_in_as_guest_ja(qtbot, tab, served):
    tab.server_edit.setText(served.url)
    tab.guest_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentIndex() == LOBBY, timeout=10_000)
    assert tab.connection_label.text() == tr("online.conn.online", url=served.url) and "接続" in tr(
        "online.conn.online", url="")


def test_a_spectator_sees_the_public_view_and_no_hand(qtbot, tmp_path, tab, served):
    sign_in_as_guest(qtbot, tab, served)
    create_from_form(qtbot, tab, "umebotan", "standard", 3, 2)
    start_with_cpus(qtbot, tab)
    watcher = make_tab(qtbot, tmp_path, "watcher")
    try:
        sign_in_as_guest(qtbot, watcher, served)
        qtbot.waitUntil(lambda: any(t["table"] == tab.remote.id for t in watcher.lobby), timeout=5_000)
        row = next(r for r in range(watcher.table_list.rowCount())
                   if watcher.table_list.item(r, 0).data(0x0100) == tab.remote.id)
        watcher.table_list.selectRow(row)
        watcher.watch_button.click()
        qtbot.waitUntil(lambda: watcher.remote is not None and watcher.remote.started, timeout=5_000)
        assert watcher.remote.seat is None and watcher.remote.view().hand == ()
        assert not watcher.remote.legal() and not watcher.remote.waiting_for()
        assert tr("online.spectating") in watcher.game_panel.status.text()
        watcher.leave_button.click()
        qtbot.waitUntil(lambda: watcher.pages.currentIndex() == LOBBY, timeout=5_000)
    finally:
        watcher.shutdown()


def test_a_server_not_there_yet_is_said_and_signing_in_waits_for_it(qtbot, tab, tmp_path):
    """Nothing listens at the address: the status says it cannot reach it (not "the table
    waits": there is none); once a server starts there, the guest's sign-in goes through."""
    later = Served(f"sqlite:///{tmp_path / 'later.sqlite'}", free_port())
    tab.server_edit.setText(later.url)
    tab.guest_button.click()
    unreachable = tr("online.conn.unreachable", url=later.url)
    qtbot.waitUntil(lambda: tab.connection_label.text() == unreachable, timeout=10_000)
    assert tab.pages.currentIndex() != LOBBY
    later.start()
    try:
        qtbot.waitUntil(lambda: tab.pages.currentIndex() == LOBBY, timeout=15_000)
    finally:
        tab.shutdown()
        later.stop()


class KarutaServe:
    """`karuta serve` as its own process (a kill -9 is a real crash: no close frame, no goodbye)."""

    def __init__(self, db: str, port: int):
        self.db, self.port, self.proc = db, port, None
        self.url = f"ws://127.0.0.1:{port}/ws"

    def start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "trainer.cli", "serve", "--port", str(self.port),
                                      "--db", self.db], cwd=Path(__file__).resolve().parents[1],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=1):
                    return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"karuta serve did not start: {self.proc.stderr.read()}") from None
                time.sleep(0.1)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def test_a_killed_server_process_is_said_and_the_game_goes_on_when_it_is_back(qtbot, tab, tmp_path):
    """kill -9 of `karuta serve` mid-game: the status bar says the connection is lost, the
    table waits with the same view; a new `karuta serve` on the same database and port
    replays the table, the tab logs in again with its token, and Ume Botan goes on to its end."""
    server = KarutaServe(f"sqlite:///{tmp_path / 'killed.sqlite'}", free_port())
    server.start()
    try:
        sign_in_as_guest(qtbot, tab, server)
        create_from_form(qtbot, tab, "umebotan", "standard", 3, 2)
        start_with_cpus(qtbot, tab)
        remote = tab.remote
        play_my_turns(qtbot, tab, until=lambda: len(remote.log) > 30)
        qtbot.waitUntil(lambda: bool(remote.waiting_for()), timeout=10_000)
        seq, logged, hand = remote.seq, list(remote.log), remote.view().hand
        server.kill()
        qtbot.waitUntil(lambda: tab.connection_label.text() == tr("online.conn.lost"), timeout=20_000)
        assert tab.pages.currentIndex() == TABLE and remote.view().hand == hand
        assert tab.game_panel.status.text() == tr("online.table.waits")
        server.start()
        qtbot.waitUntil(lambda: tab.conn.state == ONLINE, timeout=20_000)
        qtbot.waitUntil(lambda: remote.seq == seq and bool(remote.waiting_for()), timeout=10_000)
        assert remote.log == logged and remote.view().hand == hand     # replayed: the very same table
        play_my_turns(qtbot, tab)
        assert remote.is_over()
    finally:
        tab.shutdown()
        server.stop()
