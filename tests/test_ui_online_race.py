"""An online kyōgi race in the Online tab against a real server (uvicorn in a thread, a SQLite file
in tmp_path): the tab joins a seeded 5-card race table a bot client (`trainer.server.race_bot`)
created, reads each card the server releases with the tone voice on the player's silent clock,
and its presses are clicks on the floor widget at a chosen time after the kimariji as it
sounded here. The server judges; the tab shows each judgement, sends the okurifuda it owes,
records every read in the statistics as kind "online", and shows the result.

What is simulated here: the clicks are Qt events sent by the test (offscreen), not an X
server's; `tests/test_xvfb_online_race.py` is the two-window test with real presses."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio  # noqa: E402
import threading  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QSettings, Qt, QTimer  # noqa: E402

from tests.server_fixtures import running_server  # noqa: E402
from tests.ui_fakes import ToneVoices  # noqa: E402
from trainer.online.race import RaceState  # noqa: E402
from trainer.server.app import ServerConfig  # noqa: E402
from trainer.server.bot import Client  # noqa: E402
from trainer.server.race_bot import RaceBot  # noqa: E402
from trainer.stats.store import StatsStore  # noqa: E402
from trainer.text.online_race import judged_line  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG, tr  # noqa: E402
from trainer.ui.online_panel import LOBBY, TABLE, OnlinePanel  # noqa: E402

MATCH = {"game": "kyogi", "seed": "11", "cards": 3, "karafuda": 3, "speed": 20.0, "hold_seconds": 20.0}
MY_MS = 300          # the tab's presses: this long after the kimariji as it sounded here
BOT_MS = 650         # the bot's: later, so the tab takes every card it presses


@pytest.fixture(autouse=True)
def english():
    before = LANG.code
    LANG.set("en")
    yield
    LANG.set(before)


class BotThread:
    """A bot client on its own asyncio loop in a thread: it creates the table, later sits at seat 1."""

    def __init__(self, url: str):
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client: Client | None = None
        self.bot: RaceBot | None = None
        self.result: Any = None

    def run(self, coro: Any, timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def create(self, account: str | None = None) -> str:
        """Connect (as a guest, or signed up as `account`) and create the seeded race table."""
        async def go() -> str:
            self.client, _ = await Client.connect(self.url, "bot", sign_up=(account, "a good password")
                                                  if account else None)
            created = await self.client.call("race.create", **MATCH)
            return created["table"]
        return self.run(go())

    def join_and_wait(self, table: str, code: str | None = None) -> None:
        """Sit at seat 1 (of a private table with its invitation code), pressing nothing."""
        async def go() -> None:
            assert self.client is not None
            self.bot = RaceBot(self.client, table, lambda *_: [])
            await self.bot.send("race.join", table=table, seat=1, **({"code": code} if code else {}))
            self.result = await self.bot.play()
        self.future = asyncio.run_coroutine_threadsafe(go(), self.loop)

    def connect(self) -> None:
        async def go() -> None:
            self.client, _ = await Client.connect(self.url, "bot")
        self.run(go())

    def sit_and_play(self, table: str) -> None:
        def plan(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[tuple[int, float]]:
            return [(poem, float(BOT_MS))] if any(poem in side for side in sides) else []

        async def go() -> None:
            assert self.client is not None
            self.bot = RaceBot(self.client, table, plan)
            await self.bot.join(1)
            self.result = await self.bot.play()
        self.future = asyncio.run_coroutine_threadsafe(go(), self.loop)

    def stop(self) -> None:
        async def close() -> None:
            if self.client is not None:
                await self.client.close()
        try:
            self.run(close(), 10)
        except Exception:  # noqa: BLE001 - already closed
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def server():
    with running_server(ServerConfig(allow_seeds=True)) as s:
        yield s


@pytest.fixture
def store(tmp_path):
    st = StatsStore.open(tmp_path / "stats.sqlite")
    yield st
    st.close()


def make_tab(qtbot, tmp_path, store) -> OnlinePanel:
    """The tab with a quick tone voice (0.04 s a mora, as the Mubeyama and floor tabs here) and the
    shortest ma and joka gap: the server waits for each client's reading, so the tab's own reading
    sets the pace of a match."""
    from audio.fake_voice import ToneVoice
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    for key, value in ((S.LANGUAGE, "en"), (S.PAUSE, 0.3), (S.SPEED, 1.0), (S.MA, 0.3), (S.JOKA_GAP, 0.3)):
        settings.set(key, value)
    tab = OnlinePanel(settings, voices=ToneVoices(backend="silent", voice=ToneVoice(mora_s=0.04, yoin_s=0.1)))
    qtbot.addWidget(tab)
    tab.resize(1024, 700)
    tab.show()
    return tab


class Played:
    """What the tab sent and what the test meant to press, read by read."""

    def __init__(self) -> None:
        self.sent: dict[int, float] = {}       # read -> the reaction the tab sent for the read card
        self.clicked: dict[int, float] = {}    # read -> when the test clicked (ms after the kimariji here)


def click(qtbot, panel, card: int) -> None:
    centre = panel.floor.card_centre(card)
    qtbot.mouseClick(panel.floor, Qt.MouseButton.LeftButton, pos=QPoint(round(centre.x()), round(centre.y())))


def sign_in(qtbot, tab, url: str, account: str | None = None) -> None:
    tab.server_edit.setText(url)
    if account:
        tab.name_edit.setText(account)
        tab.password_edit.setText("a good password")
        tab.sign_up_button.click()
    else:
        tab.guest_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentIndex() == LOBBY, timeout=10_000)


def play_to_the_end(qtbot, tab, bot: BotThread, table: str, during: Any = None) -> Played:
    """The tab joins `table` at seat 0 from the lobby's list, the bot sits at seat 1, and the tab
    presses every read card on the floor MY_MS after its kimariji (and sends the okurifuda it owes);
    `during(panel)` is called every 100 ms meanwhile."""
    qtbot.waitUntil(lambda: any(t["table"] == table for t in tab.race_tables), timeout=10_000)
    tab.join(table)
    qtbot.waitUntil(lambda: tab.race_panel is not None and tab.race_panel.race.seat == 0, timeout=10_000)
    assert tab.pages.currentIndex() == TABLE
    panel = tab.race_panel
    played = Played()
    original = panel.send

    def send(kind: str, **fields: Any) -> Any:
        if kind == "race.touch" and panel.race.read is not None and fields["card"] == panel.race.read.poem:
            played.sent.setdefault(fields["read"], fields["reaction_ms"])
        return original(kind, **fields)
    panel.send = send

    def on_card(poem: int) -> None:
        read = panel.race.read
        if read is None or read.poem != poem or not any(poem in s for s in panel.race.sides):
            return
        due = panel.kimariji_time(read) + MY_MS / 1000 - panel.clock.now()

        def press() -> None:
            played.clicked[read.number] = (panel.clock.now() - panel.kimariji_time(read)) * 1000
            click(qtbot, panel, poem)
        timer = QTimer(panel, singleShot=True, timerType=Qt.TimerType.PreciseTimer)
        timer.timeout.connect(press)
        timer.start(max(0, round(due * 1000)))
    panel.driver.card_started.connect(on_card)

    def okuri() -> None:
        race = panel.race
        if race.okuri is not None and race.sides[race.seat]:
            click(qtbot, panel, race.sides[race.seat][0])
        if during is not None:
            during(panel)
    okuri_timer = QTimer(panel, interval=100)
    okuri_timer.timeout.connect(okuri)
    bot.sit_and_play(table)
    okuri_timer.start()
    qtbot.waitUntil(lambda: panel.race.over is not None, timeout=120_000)
    okuri_timer.stop()
    bot.future.result(20)
    return played


def test_the_tab_plays_a_race_against_a_bot_and_shows_what_it_pressed(qtbot, tmp_path, server, store,
                                                                        monkeypatch):
    monkeypatch.setattr("trainer.ui.online_race.OnlineRacePanel.store", property(lambda self: store))
    tab = make_tab(qtbot, tmp_path, store)
    bot = BotThread(server.url)
    try:
        table = bot.create()
        sign_in(qtbot, tab, server.url)
        played = play_to_the_end(qtbot, tab, bot, table)
    finally:
        bot.stop()
    panel = tab.race_panel
    race = panel.race
    assert race.over["winner"] == 0 and race.over["by"] == "cards"
    assert tr("race.online.over", winner=tr("race.online.you"), by=tr("race.online.by.cards")) in panel.banner.text()
    takes = [j for j in race.judged if j.get("taker") == 0]
    assert len(takes) >= 3                                           # every card of the tab's side
    for j in takes:
        shown = panel.shown_for(j["read"])[0]["reaction_ms"][0]
        assert abs(shown - played.sent[j["read"]]) <= 1, (j, played.sent)   # the server judged what the tab sent
        assert abs(shown - played.clicked[j["read"]]) < 5, (shown, played.clicked)   # what the test pressed
        assert j["reaction_ms"][1] is None                                   # the bot's 650 ms came too late
    # the log says each read from this side, with the names
    assert panel.log.count() == len(race.judged)
    assert panel.log.item(0).text() == judged_line(race.judged[0], 0, race.names, panel._kimariji[1])
    # statistics: one "online" trial per read that concerned the person
    trials = store.query("SELECT card, answer, reaction_ms FROM trials WHERE kind = 'online'")
    records = [r for r in (RaceState.record_of(race, j) for j in race.judged) if r is not None]
    assert len(trials) == len(records) >= 3
    assert {card for card, answer, _ in trials if answer == "take"} == {j["poem"] for j in takes}
    assert sorted(round(ms) for card, answer, ms in trials if answer == "take") == \
        sorted(panel.shown_for(j["read"])[0]["reaction_ms"][0] for j in takes)


def test_a_rated_match_shows_the_new_rating_and_the_leaderboard(qtbot, tmp_path, server, store, monkeypatch):
    monkeypatch.setattr("trainer.ui.online_race.OnlineRacePanel.store", property(lambda self: store))
    tab = make_tab(qtbot, tmp_path, store)
    bot = BotThread(server.url)
    try:
        table = bot.create(account="bob")
        sign_in(qtbot, tab, server.url, account="alice")
        assert tr("online.your_rating", rating="1500") in tab.who_label.text()
        play_to_the_end(qtbot, tab, bot, table)
        panel = tab.race_panel
        assert panel.race.rated and tr("race.online.rated") in tab.table_title.text()
        qtbot.waitUntil(lambda: panel.race.rating is not None, timeout=10_000)
        qtbot.waitUntil(lambda: len(tab.leaders) == 2, timeout=10_000)
    finally:
        bot.stop()
    rating = panel.race.rating
    assert rating["change"] > 0 and rating["rating"] > 1500           # alice won every card
    assert panel.rating.text() == tr("race.online.rating", rating=f"{rating['rating']:.0f}",
                                     change=f"+{rating['change']:.0f}")
    assert f"{rating['rating']:.0f}" in tab.who_label.text()
    assert [p["name"] for p in tab.leaders] == ["alice", "bob"]
    assert tab.leader_list.item(0, 1).text() == "alice"
    assert tab.leader_list.item(0, 2).text() == f"{rating['rating']:.0f}"


def test_a_private_table_from_the_form_is_joined_by_invitation_and_resigned(qtbot, tmp_path, server, store):
    tab = make_tab(qtbot, tmp_path, store)
    bot = BotThread(server.url)
    try:
        bot.connect()
        sign_in(qtbot, tab, server.url)
        tab.kind_box.setCurrentIndex(tab.kind_box.findData("kyogi/standard"))
        assert not tab.seats_box.isVisible() and tab.length_label.text() == tr("race.online.cards")
        tab.length_spin.setValue(3)
        assert tab.race_form.karafuda_spin.maximum() == 94          # the cards not dealt
        tab.race_form.karafuda_spin.setValue(0)
        tab.race_form.spins["floor_ms"].setValue(150)
        tab.private_box.setChecked(True)
        tab.create_button.click()
        qtbot.waitUntil(lambda: tab.race_panel is not None and tab.race_panel.race.seat == 0, timeout=10_000)
        assert tab.invitation and tab.invitation_label.text() == tr("online.invitation_is", code=tab.invitation)
        table, code = tab.invitation.split("/")
        bot.join_and_wait(table, code)
        panel = tab.race_panel
        qtbot.waitUntil(lambda: panel.race.started, timeout=10_000)
        assert [len(s) for s in panel.race.sides] == [3, 3] and not panel.race.rated
        assert panel.race.floor_ms == 150.0                         # the form's option, as the server took it
        assert len(panel.floor.floor.own) == 3 and len(panel.floor.floor.opp) == 3
        panel.confirm_resign = lambda: True
        panel.resign_button.click()
        qtbot.waitUntil(lambda: panel.race.over is not None, timeout=10_000)
        bot.future.result(10)
    finally:
        bot.stop()
    assert panel.race.over["winner"] == 1 and panel.race.over["by"] == "resignation"
    assert panel.banner.text().startswith(tr("race.online.over", winner=panel.race.names[1],
                                             by=tr("race.online.by.resignation")))
    assert not panel.resign_button.isEnabled()
    tab.leave_button.click()
    assert tab.pages.currentIndex() == LOBBY and tab.race_panel is None


def test_wait_rearranges_between_reads_and_a_spectator_sees_the_floor(qtbot, tmp_path, server, store,
                                                                      monkeypatch):
    """待った from the tab: after the read being raced is judged the reader holds, the person drags a
    card of their side, the server takes the layout and both the tab and a spectator's tab draw it;
    going on releases the next card. Then the tab resigns."""
    from trainer.rules.territory import Place
    monkeypatch.setitem(MATCH, "cards", 5)          # a side with room to rearrange
    monkeypatch.setattr("trainer.ui.online_race.OnlineRacePanel.store", property(lambda self: store))
    tab = make_tab(qtbot, tmp_path, store)
    (tmp_path / "w").mkdir()
    watcher = make_tab(qtbot, tmp_path / "w", store)
    bot = BotThread(server.url)
    try:
        table = bot.create()
        sign_in(qtbot, tab, server.url)
        sign_in(qtbot, watcher, server.url)
        tab.join(table)
        qtbot.waitUntil(lambda: tab.race_panel is not None and tab.race_panel.race.seat == 0, timeout=10_000)
        panel = tab.race_panel
        bot.join_and_wait(table)
        qtbot.waitUntil(lambda: panel.race.read is not None, timeout=10_000)
        watcher.join(table, watch=True)
        qtbot.waitUntil(lambda: watcher.race_panel is not None and watcher.race_panel.race.started, timeout=10_000)
        seen = watcher.race_panel
        assert seen.race.seat is None and not seen.floor.interactive and not seen.resign_button.isEnabled()
        panel.wait_button.click()
        qtbot.waitUntil(lambda: panel.race.may_rearrange, timeout=30_000)
        assert panel.banner.text() == tr("race.online.rearrange") and panel.floor.arranging
        assert panel.wait_button.text() == tr("race.online.go_on")
        held_at = panel.race.read.number
        card = panel.floor.floor.own.rows()[0][0][0]
        assert panel.floor.move_card(card, Place(2, "right", 0))
        qtbot.waitUntil(lambda: 0 in panel.race.layouts and 0 in seen.race.layouts, timeout=10_000)
        rows = [[list(left), list(right)] for left, right in panel.floor.floor.own.rows()]
        assert panel.race.layouts[0] == rows == seen.race.layouts[0]
        assert [[list(left), list(right)] for left, right in seen.floor.floor.own.rows()] == rows   # seat 0 below
        assert panel.race.read.number == held_at                 # nothing released while holding
        panel.wait_button.click()
        qtbot.waitUntil(lambda: panel.race.read.number == held_at + 1, timeout=10_000)
        assert not panel.floor.arranging
        panel.confirm_resign = lambda: True
        panel.resign_button.click()
        qtbot.waitUntil(lambda: panel.race.over is not None and seen.race.over is not None, timeout=10_000)
        bot.future.result(10)
    finally:
        bot.stop()
        watcher.shutdown()
    assert seen.log.count() == len(seen.race.judged) == len(panel.race.judged)
    # the spectator's log has each read's kimariji as the players' reads named it, and both sides' names
    assert [kana for _, kana in seen.lines] == [panel._kimariji[j["read"]] for j in panel.race.judged]
    assert all(kana for _, kana in seen.lines)
    assert seen.log.item(0).text() == judged_line(seen.race.judged[0], None, seen.race.names, seen.lines[0][1])
    assert (seen.top_name.text(), seen.bottom_name.text()) == (seen.race.names[1], seen.race.names[0])
    assert not seen.top_name.isHidden() and panel.top_name.isHidden()
    assert seen.banner.text().startswith(tr("race.online.over", winner=panel.race.names[1],
                                            by=tr("race.online.by.resignation")))


def test_the_tab_plays_mubeyama_online_its_flips_timed_here(qtbot, tmp_path, server, store, monkeypatch):
    """Mubeyama (Okayama, 4 seats): three bots and the tab. The tab reads each card released, and
    when the card is its own it is clicked MY_MS after the kimariji as it sounded here: the
    server's judgement carries that flip time. After two of its own flips the tab resigns (seed 16
    deals the tab the 3rd and 4th cards read: seed 5's came at the 12th and 22nd, a minute at 2.9 s
    a read)."""
    from audio.fake_voice import ToneVoice
    from trainer.server.race_bot import MubeyamaBot, fixed_flip
    from trainer.ui.online_mubeyama import OnlineMubeyamaPanel
    monkeypatch.setattr(OnlineMubeyamaPanel, "store", property(lambda self: store))
    settings = S.Settings(QSettings(str(tmp_path / "m.ini"), QSettings.Format.IniFormat))
    settings.set(S.PAUSE, 0.3)
    tab = OnlinePanel(settings, voices=ToneVoices(backend="silent", voice=ToneVoice(mora_s=0.04, yoin_s=0.1)))
    qtbot.addWidget(tab)
    tab.resize(1024, 700)
    tab.show()
    loop = BotThread(server.url)
    clients: list[Client] = []
    futures = []
    try:
        async def create() -> str:
            first, _ = await Client.connect(server.url, "m0")
            clients.append(first)
            created = await first.call("race.create", game="mubeyama", variant="okayama4", seed="16", speed=20.0,
                                       hold_seconds=20.0)
            return created["table"]
        table = loop.run(create())
        sign_in(qtbot, tab, server.url)
        qtbot.waitUntil(lambda: any(t["table"] == table for t in tab.race_tables), timeout=10_000)
        tab.join(table)
        qtbot.waitUntil(lambda: isinstance(tab.race_panel, OnlineMubeyamaPanel), timeout=10_000)
        panel = tab.race_panel
        assert panel.race.seat == 0

        async def sit(seat: int) -> Any:
            client = clients[0] if seat == 1 else (await Client.connect(server.url, f"m{seat}"))[0]
            if seat != 1:
                clients.append(client)
            bot = MubeyamaBot(client, table, fixed_flip)
            await bot.join(seat)
            return await bot.play()
        futures = [asyncio.run_coroutine_threadsafe(sit(s), loop.loop) for s in (1, 2, 3)]
        clicked: dict[int, float] = {}

        def on_card(poem: int) -> None:
            read = panel.race.read
            if read is None or read.poem != poem:
                return
            due = panel.kimariji_time(read) + MY_MS / 1000 - panel.clock.now()

            def press() -> None:
                if not panel.race.owes_flip() or panel.race.view.pending.no != poem:
                    return
                clicked[read.number] = (panel.clock.now() - panel.kimariji_time(read)) * 1000
                centre = panel.table_view.slot_centre(0, poem)
                qtbot.mouseClick(panel.table_view, Qt.MouseButton.LeftButton,
                                 pos=QPoint(round(centre.x()), round(centre.y())))
            timer = QTimer(panel, singleShot=True, timerType=Qt.TimerType.PreciseTimer)
            timer.timeout.connect(press)
            timer.start(max(0, round(due * 1000)))
        panel.driver.card_started.connect(on_card)

        def mine_judged() -> list[dict[str, Any]]:
            return [f for j in panel.race.judged for f in j.get("flips") or [] if f["seat"] == 0]
        qtbot.waitUntil(lambda: len(mine_judged()) >= 2 or panel.race.over is not None, timeout=150_000)
        assert panel.race.over is None
        mine = mine_judged()
        panel.confirm_resign = lambda: True
        panel.resign_button.click()
        qtbot.waitUntil(lambda: panel.race.over is not None, timeout=10_000)
        for future in futures:
            future.result(20)
    finally:
        async def close() -> None:
            for c in clients:
                await c.close()
        try:
            loop.run(close(), 10)
        except Exception:  # noqa: BLE001 - already closed
            pass
        loop.stop()
        tab.shutdown()
    sent = {m["read"]: m for m in panel.flips_sent}
    for flip in mine:
        assert flip["reaction_ms"] == round(sent[flip["read"]]["reaction_ms"])      # the server took the tab's time
        assert abs(flip["reaction_ms"] - clicked[flip["read"]]) < 5, (flip, clicked)   # what the test pressed
    assert panel.race.over["by"] == "resignation" and 0 not in panel.race.over["winners"]
    assert panel.log.count() == len(panel.race.judged)
    # each flip the tab sent is in the person's statistics as a local game keeps it
    kept = store.query("SELECT card, reaction_ms FROM trials WHERE kind = 'mubeyama' ORDER BY id")
    assert [round(row[1]) for row in kept] == [round(m["reaction_ms"]) for m in panel.flips_sent]
    poem_of = {j["read"]: j.get("poem") for j in panel.race.judged}
    checked = [(row[0], poem_of[m["read"]]) for row, m in zip(kept, panel.flips_sent) if m["read"] in poem_of]
    assert len(checked) >= 2 and all(card == poem for card, poem in checked), checked
    assert tab.table_title.text() == tr("race.mubeyama.title", table=table, variant=tr("mubeyama.variant.okayama4"))


def test_a_dropped_connection_resumes_the_race_with_the_same_floor(qtbot, tmp_path, server, store, monkeypatch):
    """The tab's connection drops after the first read is judged: the bot is told the tab dropped,
    the tab reconnects with its token and resumes (``race.resume``), gets the same floor back and
    plays the match to its end."""
    monkeypatch.setattr("trainer.ui.online_race.OnlineRacePanel.store", property(lambda self: store))
    tab = make_tab(qtbot, tmp_path, store)
    bot = BotThread(server.url)
    dropped: dict[str, Any] = {}

    def drop(panel: Any) -> None:
        if panel.race.judged and panel.race.owing is None and "sides" not in dropped:
            dropped["sides"] = [list(s) for s in panel.race.sides]
            conn = tab.conn
            conn._loop.call_soon_threadsafe(lambda: asyncio.ensure_future(conn._ws.close()))
    statuses: list[str] = []
    starts: list[dict[str, Any]] = []
    tab._bridge.status.connect(lambda state, detail: statuses.append(state))
    tab._bridge.frame.connect(lambda frame: starts.append(frame) if frame.get("type") == "race.start" else None)
    try:
        table = bot.create()
        sign_in(qtbot, tab, server.url)
        play_to_the_end(qtbot, tab, bot, table, during=drop)
    finally:
        bot.stop()
    race = tab.race_panel.race
    assert "sides" in dropped and race.over["by"] == "cards" and race.over["winner"] == 0
    assert "lost" in statuses and statuses[-1] == "online"
    assert len(starts) == 2 and starts[1]["sides"] == dropped["sides"]        # the same floor back
    numbers = [j["read"] for j in race.judged]
    assert numbers == sorted(set(numbers)) and numbers[0] == 1       # every read judged once, in order
    assert race.offset_ms is not None and tab.conn.races == set()


def test_the_joka_is_read_before_card_1_and_a_press_during_it_is_a_fault_at_read_1(qtbot, tmp_path, server,
                                                                                   store, monkeypatch):
    """Card 1's ``race.read`` names the joka read before it (``joka_s``): the tab reads the joka with
    its own voice, so that card 1's kami-no-ku begins at the moment the server set, and a press on
    the floor while the joka sounds is sent in the part "joka" and judged seat 0's fault at read 1.
    The server reads at speed 2 here: its joka (13.8 s of programme) leaves 6.9 s, the tone voice's
    joka and ma take 4.3 s."""
    from audio.fake_voice import ToneVoice
    monkeypatch.setattr("trainer.ui.online_race.OnlineRacePanel.store", property(lambda self: store))
    monkeypatch.setitem(MATCH, "speed", 2.0)
    settings = S.Settings(QSettings(str(tmp_path / "j.ini"), QSettings.Format.IniFormat))
    for key, value in ((S.PAUSE, 0.3), (S.SPEED, 1.0), (S.MA, 0.3), (S.JOKA_GAP, 0.3)):
        settings.set(key, value)
    tab = OnlinePanel(settings, voices=ToneVoices(backend="silent", voice=ToneVoice(mora_s=0.04, yoin_s=0.1)))
    qtbot.addWidget(tab)
    tab.show()
    bot = BotThread(server.url)
    started: list[tuple[int, float]] = []        # (poem, when its kami-no-ku began here); 0 is the joka
    touches: list[dict[str, Any]] = []
    try:
        table = bot.create()
        sign_in(qtbot, tab, server.url)
        qtbot.waitUntil(lambda: any(t["table"] == table for t in tab.race_tables), timeout=10_000)
        tab.join(table)
        qtbot.waitUntil(lambda: tab.race_panel is not None and tab.race_panel.race.seat == 0, timeout=10_000)
        panel = tab.race_panel
        original = panel.send

        def send(kind: str, **fields: Any) -> Any:
            if kind == "race.touch":
                touches.append(fields)
            return original(kind, **fields)
        panel.send = send

        first: dict[str, Any] = {}

        def on_card(poem: int) -> None:
            started.append((poem, panel.clock.now()))
            if poem == 0:               # the joka began: a press on one's own side a moment into it
                first["read"] = panel.race.read
                QTimer.singleShot(300, lambda: click(qtbot, panel, panel.race.sides[0][0]))
            elif "kami" not in first:
                first["kami"] = panel.driver.mark_time(0, "kami_start")
        panel.driver.card_started.connect(on_card)
        bot.sit_and_play(table)
        qtbot.waitUntil(lambda: bool(panel.race.judged), timeout=60_000)
        read, kami_here = first["read"], first["kami"]
        assert read.number == 1 and read.joka_s > 5.0
        panel.confirm_resign = lambda: True
        panel.resign_button.click()
        qtbot.waitUntil(lambda: panel.race.over is not None, timeout=10_000)
        bot.future.result(20)
    finally:
        bot.stop()
        tab.shutdown()
    assert [poem for poem, _ in started[:2]] == [0, read.poem], "the joka, then card 1"
    assert started[0][1] < read.start_at - 3.0, "the joka sounded seconds before card 1"
    assert abs(kami_here - read.start_at) < 0.03, "card 1's kami-no-ku began when the server set it"
    assert touches and touches[0]["part"] == "joka" and touches[0]["read"] == 1
    assert touches[0]["reaction_ms"] < -3000              # from card 1's kimariji, seconds before it
    judged = panel.race.judged[0]
    assert judged["read"] == 1 and any(seat == 0 for seat, _ in judged["faults"]), judged


class SentFrames:
    """A connection that keeps what the tab sends (no server: the create form's message only)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.races: set[str] = set()

    def send(self, kind: str, **fields: Any) -> None:
        self.sent.append((kind, fields))

    def close(self) -> None:
        pass


def test_the_create_form_sends_the_karafuda_and_the_timings_of_a_race_table(qtbot, tmp_path, store):
    """The form's karafuda and timing rows: shown for a race table (karafuda for kyōgi only), sent
    only when changed from the server's defaults, the karafuda bounded by the cards not dealt,
    and worded in both languages."""
    tab = make_tab(qtbot, tmp_path, store)
    conn = SentFrames()
    tab.conn = conn
    form = tab.race_form
    tab.kind_box.setCurrentIndex(tab.kind_box.findData("kyogi/standard"))
    assert not form.karafuda_spin.isHidden() and not form.spins["hold_seconds"].isHidden()   # (lobby not shown)
    tab.create_button.click()
    assert conn.sent[-1] == ("race.create", {"game": "kyogi", "cards": 25, "private": False})   # the standard table
    assert form.karafuda_spin.text() == tr("race.form.karafuda_all") and form.karafuda_spin.maximum() == 50
    tab.length_spin.setValue(5)
    assert form.karafuda_spin.maximum() == 90
    form.karafuda_spin.setValue(4)
    form.spins["hold_seconds"].setValue(30)
    form.spins["wait_seconds"].setValue(120)
    form.spins["floor_ms"].setValue(80)
    tab.create_button.click()
    assert conn.sent[-1] == ("race.create", {"game": "kyogi", "cards": 5, "private": False, "karafuda": 4,
                                             "hold_seconds": 30, "wait_seconds": 120, "floor_ms": 80})
    tab.race_options = {"karafuda": 0}                  # a test's own options still win
    tab.create_button.click()
    assert conn.sent[-1][1]["karafuda"] == 0
    mubeyama = next(i for i in range(tab.kind_box.count()) if str(tab.kind_box.itemData(i)).startswith("mubeyama/"))
    tab.kind_box.setCurrentIndex(mubeyama)
    assert not form.spins["hold_seconds"].isHidden() and form.karafuda_spin.isHidden()
    tab.race_options = {}
    tab.create_button.click()
    kind, fields = conn.sent[-1]
    assert kind == "race.create" and fields["game"] == "mubeyama" and "karafuda" not in fields
    assert fields["hold_seconds"] == 30 and fields["floor_ms"] == 80
    turn = next(i for i in range(tab.kind_box.count())
                if str(tab.kind_box.itemData(i)).split("/")[0] not in ("kyogi", "mubeyama"))
    tab.kind_box.setCurrentIndex(turn)
    assert all(spin.isHidden() for spin in (form.karafuda_spin, *form.spins.values()))
    LANG.set("ja")
    assert form.karafuda_label.text() == "空札の枚数" and form.spins["hold_seconds"].suffix() == " 秒"
    LANG.set("en")
    assert form.karafuda_label.text() == "Karafuda read" and form.labels["floor_ms"].text() == tr("race.form.floor")
    tab.conn = None


def test_a_race_whose_server_process_is_gone_is_closed_with_a_clear_notice(qtbot, tmp_path, store):
    """Several processes: resuming a race whose process stopped is answered ``race_lost``; the tab
    closes the race, says why and shows the lobby (an error naming another table changes nothing)."""
    tab = make_tab(qtbot, tmp_path, store)
    conn = SentFrames()
    tab.conn = conn
    tab._on_frame({"type": "race.joined", "table": "r00000001", "seat": 0})
    assert tab.race_panel is not None and tab.pages.currentIndex() == TABLE
    tab._on_frame({"type": "error", "error": "race_lost", "message": "-", "table": "r99999999"})
    assert tab.race_panel is not None and tab.pages.currentIndex() == TABLE
    tab._on_frame({"type": "error", "error": "race_lost", "message": "-", "table": "r00000001"})
    assert tab.race_panel is None and tab.pages.currentIndex() == LOBBY
    assert tab.notice.text() == tr("online.error.race_lost") and "stopped" in tab.notice.text()
    assert ("race.list", {}) in conn.sent, "the lobby's race tables asked again"
