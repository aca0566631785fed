"""An online floor race (chirashi-dori) in the Online tab against a real server (uvicorn in a thread):
the tab creates a seeded 3-seat table from the create form (one seat the table's CPU), a bot client
(`trainer.server.race_bot.FloorBot`) sits at seat 1, and the tab reads each card the server
releases with the tone voice on the player's silent clock. Its presses are clicks on the floor
widget at a chosen time after the kimariji as it sounded here. The server judges; the tab shows
each judgement (taker, times, faults) and the result.

What is simulated here: the clicks are Qt events sent by the test (offscreen), not an X server's."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QSettings, Qt, QTimer  # noqa: E402

from tests.server_fixtures import running_server  # noqa: E402
from tests.test_ui_online_race import BotThread, sign_in  # noqa: E402
from tests.ui_fakes import ToneVoices  # noqa: E402
from trainer.server.app import ServerConfig  # noqa: E402
from trainer.server.bot import Client  # noqa: E402
from trainer.server.race_bot import FloorBot  # noqa: E402
from trainer.text.online_race import floor_judged_line, floor_result_text  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG, tr  # noqa: E402
from trainer.ui.online_floor import OnlineFloorPanel  # noqa: E402
from trainer.ui.online_panel import TABLE, OnlinePanel  # noqa: E402

READS = 4
MY_MS = 300          # the tab's touches: this long after the kimariji as it sounded here
BOT_MS = 700         # the bot's: later


@pytest.fixture(autouse=True)
def english():
    before = LANG.code
    LANG.set("en")
    yield
    LANG.set(before)


@pytest.fixture
def server():
    with running_server(ServerConfig(allow_seeds=True)) as s:
        yield s


def make_tab(qtbot, tmp_path) -> OnlinePanel:
    from audio.fake_voice import ToneVoice
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    for key, value in ((S.LANGUAGE, "en"), (S.PAUSE, 0.3), (S.SPEED, 1.0)):
        settings.set(key, value)
    tab = OnlinePanel(settings, voices=ToneVoices(backend="silent", voice=ToneVoice(mora_s=0.04, yoin_s=0.1)))
    qtbot.addWidget(tab)
    tab.resize(1024, 700)
    tab.show()
    return tab


def create_from_form(tab: OnlinePanel, game: str, seats: int, cpus: int, level: str) -> None:
    tab.kind_box.setCurrentIndex(tab.kind_box.findData(f"{game}/standard"))
    tab.seats_box.setCurrentIndex(tab.seats_box.findData(seats))
    tab.length_spin.setValue(cpus)
    tab.level_box.setCurrentIndex(tab.level_box.findData(level))
    tab.create_button.click()


def click_card(qtbot, panel: OnlineFloorPanel, card: int) -> None:
    centre = panel.floor.card_rect(card).center()
    assert panel.floor.card_at(centre) == card
    qtbot.mouseClick(panel.floor, Qt.MouseButton.LeftButton, pos=QPoint(round(centre.x()), round(centre.y())))


def test_the_form_offers_the_floor_races_with_seats_cpus_and_level(qtbot, tmp_path):
    tab = make_tab(qtbot, tmp_path)
    tab.kind_box.setCurrentIndex(tab.kind_box.findData("genpei/standard"))
    assert tab.length_spin.value() == 0                 # no CPUs until asked: the host may begin with them
    assert tab.kind_box.currentText() == tr("race.floor.game", game=tr("race.floor.name.genpei"))
    seats = [tab.seats_box.itemData(i) for i in range(tab.seats_box.count())]
    assert seats[0] == 2 and seats[-1] == 12
    tab.seats_box.setCurrentIndex(tab.seats_box.findData(4))
    assert tab.length_spin.maximum() == 3               # a seat is kept for the person
    assert tab.length_label.text() == tr("race.floor.cpus")
    assert tab.level_box.findData("meijin") >= 0


@pytest.mark.parametrize("game,seats,cpus,reads", [("chirashi", 3, 1, READS), ("sakasama", 3, 1, READS),
                                                   ("shimonoku", 6, 4, 12)])   # at 8 reads no card in reach
def test_the_tab_plays_a_floor_race_online_with_a_bot_and_cpus(qtbot, tmp_path, server, game, seats, cpus, reads):
    """Sakasama and shimonoku read the shimo-no-ku alone: the tab's times run from its kimariji."""
    tab = make_tab(qtbot, tmp_path)
    bot = BotThread(server.url)
    clicked: dict[int, float] = {}
    try:
        sign_in(qtbot, tab, server.url)
        tab.race_options = {"seed": "7", "speed": 20.0, "reads": reads, "hold_seconds": 20.0}
        create_from_form(tab, game, seats=seats, cpus=cpus, level="beginner")
        qtbot.waitUntil(lambda: isinstance(tab.race_panel, OnlineFloorPanel) and tab.race_panel.race.seat == 0,
                        timeout=10_000)
        assert tab.pages.currentIndex() == TABLE
        panel: OnlineFloorPanel = tab.race_panel
        table = panel.table
        assert tab.table_title.text() == tr("race.floor.title", table=table,
                                            game=tr("race.floor.game", game=tr(f"race.floor.name.{game}")))

        def on_card(poem: int) -> None:
            read = panel.race.read
            if read is None or read.poem != poem:
                return
            due = panel.kimariji_time(read) + MY_MS / 1000 - panel.clock.now()

            def press() -> None:
                race = panel.race
                spot = None if race.view is None else race.view.spot(poem)
                if spot is None or not race.races_now or (race.reach is not None and spot.side not in race.reach):
                    return
                clicked[read.number] = (panel.clock.now() - panel.kimariji_time(read)) * 1000
                click_card(qtbot, panel, poem)
            timer = QTimer(panel, singleShot=True, timerType=Qt.TimerType.PreciseTimer)
            timer.timeout.connect(press)
            timer.start(max(0, round(due * 1000)))
        panel.driver.card_started.connect(on_card)

        def plan(seat: int, number: int, poem: int, sides: list[list[int]]) -> list[tuple[int, float]]:
            return [(poem, float(BOT_MS))] if any(poem in side for side in sides) else []

        async def sit() -> Any:
            bot.client, _ = await Client.connect(server.url, "bot")
            bot.bot = FloorBot(bot.client, table, plan)
            await bot.bot.join(1)
            return await bot.bot.play()
        future = asyncio.run_coroutine_threadsafe(sit(), bot.loop)
        owed: set[int] = set()

        def owe() -> None:                 # a shimonoku send owed: the first card of the side (not the hold's wait)
            race = panel.race
            if race.owe is not None and race.view is not None and race.view.owing is not None:
                mine = [card for card, spot in race.view.floor if spot.side == race.view.owing[1]]
                if mine and mine[0] not in owed:
                    owed.add(mine[0])
                    click_card(qtbot, panel, mine[0])
        timer = QTimer(panel, interval=100)
        timer.timeout.connect(owe)
        timer.start()
        qtbot.waitUntil(lambda: panel.race.over is not None, timeout=120_000)
        timer.stop()
        future.result(20)
    finally:
        bot.stop()
        tab.shutdown()
    race = panel.race
    assert race.cpus == list(range(seats - cpus, seats)) and race.over["by"] == "reads" and len(race.judged) == reads
    assert race.read is not None and race.read.verse == ("kami" if game == "chirashi" else "shimo")
    sent = {m["read"]: m for m in panel.touches_sent}
    mine = [j for j in race.judged if j["reaction_ms"][0] is not None]
    assert len(mine) == len(clicked) >= (1 if game == "shimonoku" else reads - 1)   # out of reach: not touched
    for j in mine:
        assert j["reaction_ms"][0] == pytest.approx(sent[j["read"]]["reaction_ms"], abs=1)   # what the tab sent
        assert abs(j["reaction_ms"][0] - clicked[j["read"]]) < 5, (j, clicked)             # what the test pressed
        if j["reaction_ms"][1] is not None:
            assert j["taker"] != 1                      # the bot's 700 ms came after the tab's 300 ms
    assert any(j["taker"] == 0 for j in race.judged)
    # what the tab showed: every judgement in the log, its scores, the result
    assert panel.log.count() == reads
    assert panel.log.item(0).text() == floor_judged_line(race.judged[0], 0, panel.names(), panel._kimariji[1])
    assert panel.banner.text() == floor_result_text(race.over, 0, panel.names())
    assert race.scores == race.judged[-1]["scores"]
    assert tr("race.floor.score", who=tr("race.online.you"), n=race.scores[0]) in panel.scores.text()
    # the person's statistics: a trial of the game's kind for each card the seat raced (the server's `raced`)
    raced = [j for j in race.judged if 0 in j["raced"]]
    trials = panel.store.query("SELECT kind, card, answer, reaction_ms FROM trials ORDER BY id")
    assert [(k, c) for k, c, _, _ in trials] == [(game, j["poem"]) for j in raced]
    takes = {j["poem"]: j["reaction_ms"][0] for j in raced if j["taker"] == 0}
    assert takes and all(ms == pytest.approx(takes[c]) for _, c, answer, ms in trials if answer == "take")


def test_the_tab_plays_genpei_online_and_sends_when_it_owes(qtbot, tmp_path, server):
    """Genpei, the tab against the table's CPU: the tab takes from the CPU's side, so it owes a
    send (``race.owe``); a click on a card of its own side sends it and the game goes on."""
    tab = make_tab(qtbot, tmp_path)
    try:
        sign_in(qtbot, tab, server.url)
        tab.race_options = {"seed": "3", "speed": 20.0, "reads": READS, "hold_seconds": 20.0}
        create_from_form(tab, "genpei", seats=2, cpus=1, level="beginner")
        qtbot.waitUntil(lambda: isinstance(tab.race_panel, OnlineFloorPanel) and tab.race_panel.race.view is not None,
                        timeout=10_000)
        panel: OnlineFloorPanel = tab.race_panel
        sent: list[dict[str, Any]] = []
        original = panel.send

        def send(kind: str, **fields: Any) -> Any:
            sent.append({"type": kind, **fields})
            return original(kind, **fields)
        panel.send = send

        def on_card(poem: int) -> None:
            read = panel.race.read
            if read is None or read.poem != poem:
                return
            due = panel.kimariji_time(read) + MY_MS / 1000 - panel.clock.now()

            def press() -> None:
                if panel.race.view is not None and panel.race.view.spot(poem) is not None and panel.race.races_now:
                    click_card(qtbot, panel, poem)
            QTimer.singleShot(max(0, round(due * 1000)), panel, press)
        panel.driver.card_started.connect(on_card)

        def owe() -> None:
            race = panel.race
            if race.owe is not None and race.view is not None and race.view.owing is not None:
                side = race.view.owing[1]
                mine = [card for card, spot in race.view.floor if spot.side == side]
                if mine and not any(m["type"] == "race.send" and m["card"] == mine[0] for m in sent):
                    assert panel.banner.text() == tr("race.floor.send", cards=race.owe["cards"])
                    click_card(qtbot, panel, mine[0])
        timer = QTimer(panel, interval=100)
        timer.timeout.connect(owe)
        timer.start()
        qtbot.waitUntil(lambda: panel.race.over is not None, timeout=120_000)
        timer.stop()
    finally:
        tab.shutdown()
    race = panel.race
    sends = [m for m in sent if m["type"] == "race.send"]
    takes_over = [j for j in race.judged if j["taker"] == 0]
    assert takes_over and sends                          # it took, it owed, it sent
    assert race.over["by"] == "reads" and len(race.judged) == READS
    assert panel.floor.teams and race.scores == race.judged[-1]["scores"]


@pytest.mark.parametrize("seat", [0, 1])
def test_a_genpei_seat_sees_its_own_team_at_the_bottom(qtbot, seat):
    """Heiji's seat (team 1) online sees the floor turned half round: its own side at the bottom,
    upright, as Genji's seat does; the seats' labels turn with it."""
    from audio.clock import FakeClock
    from trainer.games.chirashi_session import HUMAN, new_session
    from trainer.games.registry import find
    from trainer.server import codec
    game = new_session(find("genpei"), 3, (HUMAN, HUMAN), {"clock": FakeClock(0.0)})
    game.begin()
    panel = OnlineFloorPanel("r00000001", lambda *a, **k: None, None, None, driver=_NoDriver())
    qtbot.addWidget(panel)
    panel.resize(1024, 640)
    panel.show()
    panel.apply({"type": "race.start", "table": panel.table, "game": "genpei", "seat": seat, "names": ["a", "b"],
                 "cpus": [], "speed": 1, "floor_ms": 100, "verse": "kami", "reach": None})
    panel.apply({"type": "race.view", "table": panel.table, "seat": seat, "view": codec.to_json(game.view(seat)),
                 "scores": [50, 50]})
    floor = panel.floor
    mid = floor.floor_rect().center().y()
    for card, spot in game.view(seat).floor:
        centre, _, _, angle = floor._rects[card]
        assert (centre.y() > mid) == (spot.side == seat % 2), (card, spot)   # own side below the line
        assert (angle == 0.0) == (spot.side == seat % 2)                      # and upright
    assert floor._seat_place(seat)[1] > mid                                  # the person's label below too


class _NoDriver:
    """A reading driver that reads nothing (the table is only drawn here)."""

    programme = None
    order: list[int] = []

    class _Signal:
        def connect(self, *_: Any) -> None:
            pass

    card_finished = error = card_started = _Signal()

    def stop(self) -> None:
        pass


def test_the_host_begins_with_a_cpu_and_a_spectator_watches_from_the_lobby(qtbot, tmp_path, server):
    """A 2-seat chirashi table with no CPU asked for: its host's Begin fills seat 1 with a CPU.
    A second tab finds the table in the lobby's list (its game and seats shown), watches it:
    the floor, every judgement and the end, never a card before it is judged."""
    host = make_tab(qtbot, tmp_path / "a")
    watcher = make_tab(qtbot, tmp_path / "b")
    try:
        sign_in(qtbot, host, server.url)
        sign_in(qtbot, watcher, server.url)
        host.race_options = {"seed": "5", "speed": 20.0, "reads": 40, "hold_seconds": 20.0}
        create_from_form(host, "chirashi", seats=2, cpus=0, level="club")
        qtbot.waitUntil(lambda: isinstance(host.race_panel, OnlineFloorPanel) and host.race_panel.race.seat == 0,
                        timeout=10_000)
        panel: OnlineFloorPanel = host.race_panel
        assert panel.begin_button.isVisible() and panel.banner.text() == tr("race.floor.waiting")
        panel.begin_button.click()
        qtbot.waitUntil(lambda: panel.race.view is not None, timeout=10_000)
        assert panel.race.cpus == [1] and not panel.begin_button.isVisible()
        row = {}

        def listed() -> bool:
            for r in range(watcher.table_list.rowCount()):
                item = watcher.table_list.item(r, 0)
                if item is not None and item.data(Qt.ItemDataRole.UserRole) == panel.table:
                    row["r"] = r
                    return True
            return False
        qtbot.waitUntil(listed, timeout=10_000)
        assert watcher.table_list.item(row["r"], 1).text() == tr("race.floor.game",
                                                                 game=tr("race.floor.name.chirashi"))
        watcher.table_list.selectRow(row["r"])
        watcher.watch_button.click()
        qtbot.waitUntil(lambda: isinstance(watcher.race_panel, OnlineFloorPanel)
                        and watcher.race_panel.race.view is not None, timeout=10_000)
        seen: OnlineFloorPanel = watcher.race_panel
        qtbot.waitUntil(lambda: len(seen.race.judged) >= 2, timeout=60_000)
        panel.confirm_resign = lambda: True
        panel.resign_button.click()
        qtbot.waitUntil(lambda: seen.race.over is not None and panel.race.over is not None, timeout=20_000)
    finally:
        host.shutdown()
        watcher.shutdown()
    assert seen.race.seat is None and seen.race.read is None          # a spectator never gets race.read
    assert seen.log.count() == len(seen.race.judged) and seen.race.judged[-1] == panel.race.judged[-1]
    assert seen.race.over["by"] == panel.race.over["by"] == "resignation"
    assert seen.banner.text() == floor_result_text(seen.race.over, None, seen.names())
    assert not seen.begin_button.isVisible() and not seen.resign_button.isEnabled()


def test_the_persons_floor_reads_go_into_their_statistics_as_the_games_own_kind(qtbot, tmp_path):
    """Each judged read the seat raced is a trial of the game's kind (as the Games tab records
    it); a card it sat out is none; a race whose sound stuttered is kept with its reason, marked
    in the log and left out of the mean."""
    from trainer.stats import aggregates as A
    from trainer.stats.store import StatsStore
    store = StatsStore.open(tmp_path / "stats.sqlite3")
    panel = OnlineFloorPanel("r00000001", lambda *a, **k: None, None, None, driver=_NoDriver(), store=store)
    qtbot.addWidget(panel)
    panel.settings = _Settings()
    panel.apply({"type": "race.start", "table": panel.table, "game": "sakasama", "seat": 0,
                 "names": ["a", "b", "c"], "cpus": [2], "speed": 1, "floor_ms": 100, "verse": "shimo", "reach": None})

    def judged(read, poem, **kw):
        frame = {"type": "race.judged", "table": panel.table, "read": read, "poem": poem, "kimariji": "あ",
                 "taker": None, "taker_ms": None, "reaction_ms": [None, None, None], "faulted": [],
                 "raced": [0, 1, 2], "scores": [0, 0, 0], "owing": None, "stalled": [], "fast": [], "timed_out": False}
        panel.apply({**frame, **kw})

    judged(1, 10, taker=0, taker_ms=300, reaction_ms=[300, None, None])
    judged(2, 11, faulted=[0], taker=2, reaction_ms=[150, None, None])
    judged(3, 12, raced=[1, 2], taker=1, reaction_ms=[None, 500, None])      # sat out after the fault
    panel.disturbed[4] = "sound stuttered"                                      # as the touch's sound check says
    judged(4, 13, taker=0, taker_ms=900, reaction_ms=[900, None, None])
    rows = store.query("SELECT kind, card, correct, answer, reaction_ms, fault, disturbed FROM trials ORDER BY id")
    assert rows == [("sakasama", 10, 1, "take", 300.0, None, None),
                    ("sakasama", 11, 0, "fault", 150.0, "otetsuki", None),
                    ("sakasama", 13, 1, "take", 900.0, None, "sound stuttered")]
    (day,) = A.trend_by_day(store, "sakasama")
    assert day.mean_reaction_ms == pytest.approx(300.0)                       # the disturbed take left out
    assert tr("race.disturbed") in panel.log.item(3).text()
    store.close()


class _Settings:
    def get(self, key: str) -> Any:
        return None


def test_the_form_offers_nanae_shimonoku_and_its_table_is_drawn_with_nanaes_areas(qtbot, tmp_path):
    """The create form lists Nanae-town shimonoku beside the standard game and asks the server
    for ``variant: "nanae"``; its table lays each area in Nanae's three rows."""
    from trainer.rules.shimonoku import NANAE_ROWS
    tab = make_tab(qtbot, tmp_path)
    sent: list[tuple[str, dict[str, Any]]] = []

    class Conn:
        def send(self, kind: str, **fields: Any) -> None:
            sent.append((kind, fields))
    tab.conn = Conn()  # type: ignore[assignment]
    tab.kind_box.setCurrentIndex(tab.kind_box.findData("shimonoku/nanae"))
    assert tab.kind_box.currentText() == "Shimonoku karuta (Nanae) (online)"
    tab.create_table()
    tab.kind_box.setCurrentIndex(tab.kind_box.findData("shimonoku/standard"))
    tab.create_table()
    (_, nanae), (_, standard) = sent
    assert nanae["game"] == "shimonoku" and nanae["variant"] == "nanae" and nanae["seats"] == 6
    assert "variant" not in standard
    assert "Nanae" in tab._race_cells({"table": "r00000001", "game": "shimonoku", "variant": "nanae",
                                        "status": "open", "seats": [None] * 6})[1]
    panel = OnlineFloorPanel("r00000001", lambda *a, **k: None, None, None, driver=_NoDriver())
    qtbot.addWidget(panel)
    panel.apply({"type": "race.start", "table": panel.table, "game": "shimonoku", "variant": "nanae", "seat": 0,
                 "names": ["a"] + [None] * 5, "cpus": [1, 2, 3, 4, 5], "speed": 1, "floor_ms": 100,
                 "verse": "shimo", "reach": [0, 3]})
    from trainer.games.chirashi_session import CPU, HUMAN, new_session
    from trainer.games.registry import find
    from trainer.server import codec
    from audio.clock import FakeClock
    game = new_session(find("shimonoku", "nanae"), 3, (HUMAN,) + (CPU,) * 5, {"clock": FakeClock(0.0)})
    game.begin()
    panel.apply({"type": "race.view", "table": panel.table, "seat": 0, "view": codec.to_json(game.view(0)),
                 "scores": [50] * 6})
    assert panel.floor.area_rows == NANAE_ROWS and "Nanae" in panel.title_text()


def test_matta_at_a_floor_table_asks_the_server_to_hold_and_to_go_on(qtbot):
    """The 待った button sends ``race.wait``; while the server says the seat holds, the banner
    names who holds and the button goes on."""
    from audio.clock import FakeClock
    from trainer.games.chirashi_session import CPU, HUMAN, new_session
    from trainer.games.registry import find
    from trainer.server import codec
    sent: list[tuple[str, dict[str, Any]]] = []
    panel = OnlineFloorPanel("r00000001", lambda kind, **f: sent.append((kind, f)), None, None, driver=_NoDriver())
    qtbot.addWidget(panel)
    panel.show()
    panel.apply({"type": "race.start", "table": panel.table, "game": "chirashi", "seat": 0, "names": ["a", "b"],
                 "cpus": [1], "speed": 1, "floor_ms": 100, "verse": "kami", "reach": None})
    game = new_session(find("chirashi"), 3, (HUMAN, CPU), {"clock": FakeClock(0.0)})
    game.begin()
    panel.apply({"type": "race.view", "table": panel.table, "seat": 0, "view": codec.to_json(game.view(0)),
                 "scores": [0, 0]})
    assert panel.wait_button.isEnabled() and panel.wait_button.text() == tr("race.online.wait")
    panel.wait_button.click()
    panel.apply({"type": "race.held", "table": panel.table, "seats": [0]})
    assert panel.banner.text() == tr("race.online.held", who=tr("race.online.you"))
    assert panel.wait_button.text() == tr("race.online.go_on")
    panel.wait_button.click()
    panel.apply({"type": "race.held", "table": panel.table, "seats": []})
    assert sent == [("race.wait", {"table": panel.table, "hold": True}),
                    ("race.wait", {"table": panel.table, "hold": False})]
    assert panel.wait_button.text() == tr("race.online.wait")


@pytest.mark.parametrize("game,seats,seat,turned", [("chirashi", 4, 2, True), ("chirashi", 4, 1, False),
                                                    ("sakasama", 3, 0, False), ("shimonoku", 6, 4, True),
                                                    ("shimonoku", 6, 1, False)])
def test_a_floor_is_turned_toward_the_persons_seat(qtbot, game, seats, seat, turned):
    """A scattered floor turns half round when the person sits across it (their place in the
    circle comes to the bottom; every card keeps its cell, mirrored, and still reads upright);
    a shimonoku seat of the second team sees its own area at the bottom, its cards upright
    and the opponents' upside down. A seat at the side keeps the floor as it is."""
    from audio.clock import FakeClock
    from trainer.games.chirashi_session import HUMAN, new_session
    from trainer.games.registry import find
    from trainer.server import codec
    game_session = new_session(find(game), 3, (HUMAN,) * seats, {"clock": FakeClock(0.0)})
    game_session.begin()
    panel = OnlineFloorPanel("r00000001", lambda *a, **k: None, None, None, driver=_NoDriver())
    qtbot.addWidget(panel)
    panel.resize(1024, 640)
    panel.show()
    panel.apply({"type": "race.start", "table": panel.table, "game": game, "seat": seat,
                 "names": [f"p{k}" for k in range(seats)], "cpus": [], "speed": 1, "floor_ms": 100,
                 "verse": "kami", "reach": None})
    view = game_session.view(seat)
    panel.apply({"type": "race.view", "table": panel.table, "seat": seat, "view": codec.to_json(view),
                 "scores": [0] * seats})
    floor = panel.floor
    assert floor.turned == turned
    f, mid = floor.floor_rect(), floor.floor_rect().center()
    label_x, label_y, _ = floor._seat_place(seat)
    if turned:
        assert label_y > f.bottom(), "the person's label below the floor"
    for card, spot in view.floor:
        centre, _, _, angle = floor._rects[card]
        assert floor.card_at(centre) == card
        if game == "shimonoku":
            assert (angle == 0.0) == (spot.side // 3 == seat // 3), (card, spot)   # own team's cards upright
            if spot.side == seat:
                assert floor.area_rect(seat).contains(centre) and centre.y() > mid.y()
        elif turned:                      # mirrored: a card in the top half lies in the bottom half now
            assert (centre.y() > mid.y()) == (spot.y < 0.5) or abs(spot.y - 0.5) < 0.07
            assert abs(angle) <= 35
