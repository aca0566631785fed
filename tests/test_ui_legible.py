"""Every screen legible on a small and a large screen, in both languages (issue 28).

The walk opens every tab of the real window and every game table of the Games tab, each
with something in play (a reading, a match, a drill, a dealt game, statistics with trials),
at 1024×700 and 1600×1000 in English and Japanese, and fails on text under 9 px, a label
or button narrower than its text, a widget the window cuts off, text painted shortened to
less than half, or a window that asks for more room than the screen has
(`tests/legibility.py` says how each is found).

``KARUTA_WALK_SHOTS=DIR`` also saves each screen as DIR/<screen>-<lang>-<W>x<H>.png to look at.
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from audio.player import Player  # noqa: E402
from legibility import english_left, problems  # noqa: E402
from trainer.stats.store import StatsStore, Trial, default_path  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from ui_fakes import main_window_on  # noqa: E402

SIZES = [(1024, 700), (1600, 1000)]
LONGEST_TORIFUDA = 21     # ありあけのつきをまちいでつるかな: the one shimo-no-ku with a six-kana column
LANGS = ["en", "ja"]

# Screens still failing, each with what fails; the walk says so when one is fixed (remove it then).
KNOWN: dict[tuple, str] = {
    # none left: chirashi's scattered floor was the last (issue 27: each card in its own cell,
    # its angle scaled down to what the room allows)
}


def _known(name, size, lang):
    return KNOWN.get((name, size)) or KNOWN.get((name, size, lang))


def _trials():
    """A few weeks of play of every kind, so Statistics draws its grid, charts and lists."""
    kinds = ("match", "kami_to_torifuda", "positional", "mubeyama")
    with StatsStore.open(default_path()) as store:
        store.record_many(Trial(kinds[i % 4], 1 + i % 100, i % 3 != 0, reaction_ms=300.0 + i % 700,
                                at=1_700_000_000.0 + 3600 * i) for i in range(600))


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    LANG.set("en")
    _trials()
    player = Player(backend="silent").open()
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.set(S.JOKA, False)
    for w in main_window_on(qtbot, monkeypatch, settings, player):
        w.match.confirm_quit = lambda: True        # a match in play asks before the window closes
        yield w


def _tab(w, msg):
    w.set_mode([m for m, _ in w.modes].index(msg))
    return w.mode(msg)


def _settle(qtbot, ms=150):
    qtbot.wait(ms)
    QApplication.processEvents()


# -- the screens, each put in play ---------------------------------------------------------------

def reader(qtbot, w):
    panel = _tab(w, "mode.reader")
    started = []
    w.driver.card_started.connect(started.append)
    panel.command("start")
    qtbot.waitUntil(lambda: bool(started), timeout=10_000)


def match(qtbot, w):
    _tab(w, "mode.kyogi")
    w.match.new_match(5)
    w.match.begin_match()
    qtbot.waitUntil(lambda: w.match.session.race is not None, timeout=10_000)


def match_stopped(qtbot, w):
    """A match stopped because a drill took the reader: its result page says why."""
    from trainer.ui.drills_panel import DRILLS, SETS
    match(qtbot, w)
    w.ask_stop_reading = lambda mode: True
    panel = _tab(w, "mode.drills")
    panel.drill_box.setCurrentIndex(DRILLS.index("kami_to_torifuda"))
    panel.set_box.setCurrentIndex(SETS.index("all"))
    panel.audio_box.setChecked(True)
    panel.start()
    qtbot.waitUntil(lambda: w.match.phase != "play", timeout=10_000)
    panel.command("stop")
    _tab(w, "mode.kyogi")
    assert w.match.result.why.isVisible()


def drills(qtbot, w):
    from trainer.ui.drills_panel import DRILLS
    panel = _tab(w, "mode.drills")
    panel.drill_box.setCurrentIndex(DRILLS.index("kami_to_torifuda"))
    panel.audio_box.setChecked(False)
    panel.start()


def drill(name):
    """Each other drill in play, shown as text (fuda-nagashi's six picks in a row once forced
    a 1024-px window to 1130 px in Japanese). The listening reflex's floor holds its largest
    territory, with 21 in it: its torifuda's six-kana column painted 7 px at 1024×700 whenever
    a random deal put it on the floor (the walk looked flaky)."""
    def open_drill(qtbot, w):
        from trainer.ui.drills_panel import DRILLS, SETS
        panel = _tab(w, "mode.drills")
        panel.drill_box.setCurrentIndex(DRILLS.index(name))
        if name == "listening_reflex":
            panel.set_box.setCurrentIndex(SETS.index("pick"))
            panel.set_arg.setText(f"{LONGEST_TORIFUDA}, 1-11")
            panel.spins["territory"].setValue(panel.spins["territory"].maximum())
        if panel.audio_box.isEnabled():
            panel.audio_box.setChecked(False)
        assert panel.start()
        if name == "listening_reflex":
            assert LONGEST_TORIFUDA in panel.drill_screen.floor.card_rects()
        _settle(qtbot, 600)
    return open_drill


def stats(qtbot, w):
    _tab(w, "mode.stats")


def game(name):
    def open_game(qtbot, w):
        _tab(w, "mode.games")
        panel = w.games.show_game(name)
        if name == "mubeyama":
            panel.start_from_setup()
            return
        panel.cpu_delay_s = 0
        panel.pause_after = {}
        if hasattr(panel, "new_game"):
            panel.new_game(seed=3)
        else:
            panel.start_game(seed=3)
        if hasattr(panel, "me"):                  # a turn game (the racing tables follow the reader)
            _play_turns(qtbot, panel, 10)         # mid-game: hands played, cards captured
    return open_game


def race(name):
    """The floor race table with another of its games chosen (chirashi is the table's default)."""
    def open_race(qtbot, w):
        from trainer.ui.chirashi_panel import RACE_TABLES
        _tab(w, "mode.games")
        panel = w.games.show_game("chirashi")
        panel.game.setCurrentIndex(RACE_TABLES.index(name))
        panel.players.setValue(6)
        panel.start_game(seed=3)
    return open_race


def online_sign_in(qtbot, w):
    """The Online tab as a new player first meets it: server, name, password, three ways in."""
    from trainer.ui.online_panel import SIGN_IN
    tab = _tab(w, "mode.online")
    assert tab.pages.currentIndex() == SIGN_IN


def online_lobby(qtbot, w):
    """(Account names are Latin letters, digits, - and _: short ones here, which the walk's
    check for English left on a Japanese screen does not take for words.)
    The Online tab's lobby as a server fills it: turn and race tables, the leaderboard, a rating."""
    from trainer.ui.online_panel import LOBBY
    tab = _tab(w, "mode.online")
    tab.pages.setCurrentIndex(LOBBY)
    tab.account = {"name": "emi", "rating": {"game": "kyogi", "rating": 1532.4, "games": 3}}
    tab._show_account()
    tab.race_tables = [{"table": "r1a2b3c4d", "status": "open", "names": ["ken", None], "cards": 25,
                        "private": False, "rated": True},
                       {"table": "r5e6f7a8b", "status": "playing", "names": ["emi", "aki"], "cards": 5,
                        "private": True, "rated": False}]
    tab._show_lobby([{"table": "0a1b2c3d", "game": "yomi", "variant": "standard", "status": "open",
                      "seats": [{"name": "ken"}, None, None, None], "turn_seconds": 300}])
    tab._show_leaders([{"rank": k + 1, "name": n, "rating": 1650 - 40 * k, "games": 12 - k}
                       for k, n in enumerate(("emi", "ken", "aki", "yu"))])
    tab.kind_box.setCurrentIndex(tab.kind_box.findData("kyogi/standard"))


def online_race(qtbot, w):
    """An online kyōgi race mid-match (the server's frames handed to the table as they come)."""
    from trainer.rules import kyogi
    from trainer.ui.online_panel import TABLE
    from trainer.ui.online_race import OnlineRacePanel
    tab = _tab(w, "mode.online")
    panel = OnlineRacePanel("r1a2b3c4d", lambda *a, **k: None, tab.settings, tab.voices)
    tab.race_panel = panel
    tab.game_area.addWidget(panel, 1)
    tab.pages.setCurrentIndex(TABLE)
    sides = [sorted(h[:25]) for h in kyogi.deal(7)]
    panel.apply({"type": "race.joined", "table": panel.table, "seat": 0})
    panel.apply({"type": "race.start", "table": panel.table, "seat": 0, "sides": sides, "names": ["emi", "ken"],
                 "speed": 1, "cards": 25, "karafuda": None, "floor_ms": 100, "rated": True,
                 "offset_ms": 12.3, "error_ms": 0.8})
    reads = [(0, [312, None], [], {}), (1, [None, 288], [[0, "otetsuki"]], {}),
             (None, [None, None], [], {"karafuda": True}), (0, [85, None], [], {"fast": [0], "stalled": [1]})]
    for n, (taker, times, faults, extra) in enumerate(reads, start=1):
        card = sides[n % 2][n]
        sides[n % 2].remove(card)
        panel._kimariji[n] = "あきの"
        panel.apply({"type": "race.judged", "table": panel.table, "read": n, "poem": card, "taker": taker,
                     "reaction_ms": times, "faults": faults, "karafuda": False, "stalled": [], "fast": [],
                     "timed_out": False, "sides": sides, "left": [len(s) for s in sides], "owing": None, **extra})
    panel.apply({"type": "rating", "game": "kyogi", "table": panel.table, "rating": 1532.4, "change": 32.4,
                 "games": 3})
    tab._table_changed()


def online_mubeyama(qtbot, w):
    """An online Mubeyama table (Okayama, 4 seats) waiting for the person's flip, three reads judged."""
    from trainer.games.mubeyama_session import HUMAN, new_session
    from trainer.rules.mubeyama import AwaitFlip, AwaitRead, Flip
    from trainer.server import codec
    from trainer.ui.online_mubeyama import OnlineMubeyamaPanel
    from trainer.ui.online_panel import TABLE
    tab = _tab(w, "mode.online")
    panel = OnlineMubeyamaPanel("r1a2b3c4d", lambda *a, **k: None, tab.settings, tab.voices)
    tab.race_panel = panel
    tab.game_area.addWidget(panel, 1)
    tab.pages.setCurrentIndex(TABLE)
    game = new_session("okayama4", 5, (HUMAN,) * 4, {})
    panel.apply({"type": "race.start", "table": panel.table, "game": "mubeyama", "variant": "okayama4", "seat": 0,
                 "names": ["emi", "ken", "aki", "yu"], "speed": 1})
    for n in range(1, 5):
        poem = game.next_yomifuda()
        game.card_started(poem)
        game.kimariji_sounded(poem, at=game.clock.now())
        p = game.state.pending
        if n < 4 and isinstance(p, AwaitFlip):
            game.act(p.seat, Flip(p.seat, p.no))
        if n < 4:
            panel.apply({"type": "race.judged", "table": panel.table, "read": n, "poem": poem, "timed_out": False,
                         "flips": [{"read": n, "seat": n % 4, "card": poem, "reaction_ms": 380 + 40 * n}],
                         "left": list(game.state.scores())})
    view = game.view(0)
    panel.apply({"type": "race.view", "table": panel.table, "seat": 0, "pending": type(view.pending).__name__,
                 "view": codec.to_json(view)})
    assert not isinstance(view.pending, AwaitRead)
    tab._table_changed()


def online_floor(qtbot, w):
    """An online chirashi-dori table (4 seats, two the table's CPUs) with three reads judged."""
    from audio.clock import FakeClock
    from trainer.games.chirashi_session import CPU, HUMAN, new_session
    from trainer.games.registry import find
    from trainer.server import codec
    from trainer.ui.online_floor import OnlineFloorPanel
    from trainer.ui.online_panel import TABLE
    tab = _tab(w, "mode.online")
    panel = OnlineFloorPanel("r1a2b3c4d", lambda *a, **k: None, tab.settings, tab.voices)
    tab.race_panel = panel
    tab.game_area.addWidget(panel, 1)
    tab.pages.setCurrentIndex(TABLE)
    game = new_session(find("chirashi"), 7, (HUMAN, HUMAN, CPU, CPU), {"clock": FakeClock(0.0), "cpu_level": "club"})
    game.begin()
    names = ["emi", "ken", "CPU (club)", "CPU (strong)"]
    panel.apply({"type": "race.start", "table": panel.table, "game": "chirashi", "seat": 0, "names": names,
                 "cpus": [2, 3], "speed": 1, "floor_ms": 100, "verse": "kami", "reach": None})
    on_floor = [card for card, _ in game.view(0).floor]
    reads = [(0, [312, 455, None, None], []), (2, [None, 520, None, None], [1]), (None, [None, None, None, None], [])]
    for n, (taker, times, faulted) in enumerate(reads, start=1):
        panel._kimariji[n] = "あきの"
        panel.apply({"type": "race.judged", "table": panel.table, "read": n, "poem": on_floor[n], "kimariji": "あきの",
                     "taker": taker, "taker_ms": 312 if taker == 0 else 498 if taker == 2 else None,
                     "reaction_ms": times, "faulted": faulted, "scores": [1, 0, 1, 0], "owing": None,
                     "stalled": [], "fast": [], "timed_out": False})
    panel.apply({"type": "race.view", "table": panel.table, "seat": 0, "view": codec.to_json(game.view(0)),
                 "scores": [1, 0, 1, 0]})
    tab._table_changed()


def _whole_score_sheet(w):
    """Unsun's score sheet filled to its 8 deals (after the screenshot: the rows are made up)."""
    sheet = w.games.show_game("unsun").shell.scores
    for deal in range(len(sheet._rows) + 1, 9):
        sheet.add_row(str(deal), [deal - 4] * sheet.columnCount())
    w.games.show_game("unsun").shell.show_scores(True)
    QApplication.processEvents()


def _status_card_missing(w):
    """Lines of Unsun's status card not painted whole: the phase's hint, where the Okié is, the
    tricks and the totals (at 1024×700 they once fell off the card's end)."""
    from legibility import painted_texts
    from trainer.ui.i18n import tr
    table = w.games.show_game("unsun").table
    v = table.view
    where = (tr("unsun.ui.okie_on_table") if v.okie_holder is None
             else tr("unsun.ui.okie_taken", seat=table.seat_name(v.okie_holder)))
    wanted = [tr(f"unsun.ui.phase_hint.{v.phase}"), where, tr("unsun.ui.tricks", a=v.tricks[0], b=v.tricks[1]),
              tr("unsun.ui.totals", a=v.totals[0], b=v.totals[1])]
    painted = painted_texts(w)
    return [f"missing: the status card does not show {line!r}" for line in wanted
            if not any(line in text for text in painted)]


def _play_turns(qtbot, panel, turns):
    """The person plays their first legal action `turns` times; the CPUs play at once."""
    s = panel.session
    for _ in range(turns):
        qtbot.waitUntil(lambda: s.is_over() or panel.me in s.waiting_for(), timeout=5000)
        if s.is_over():
            return
        s.act(panel.me, s.legal(panel.me)[0])
        panel.game._changed()


def _games():
    from trainer.games.registry import table_views
    return [g for g, _, _ in table_views() if g != "kyogi"]


SCREENS = [("reader", reader), ("match", match), ("match_stopped", match_stopped), ("drills", drills),
           ("stats", stats), ("online_sign_in", online_sign_in), ("online_lobby", online_lobby),
           ("online_race", online_race), ("online_mubeyama", online_mubeyama), ("online_floor", online_floor)] + \
    [(f"drill_{d}", drill(d)) for d in ("fuda_nagashi", "listening_reflex", "kimariji_henka", "positional")] + \
    [(g, game(g)) for g in _games()] + [(g, race(g)) for g in ("sakasama", "genpei", "shimonoku", "nanae")]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name,open_screen", SCREENS, ids=[n for n, _ in SCREENS])
def test_every_screen_is_legible(qtbot, window, name, open_screen, size, lang):
    w = window
    LANG.set(lang)
    w.resize(*size)
    w.show()
    open_screen(qtbot, w)
    w.resize(*size)
    _settle(qtbot)
    shots = os.environ.get("KARUTA_WALK_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        w.grab().save(str(Path(shots) / f"{name}-{lang}-{size[0]}x{size[1]}.png"))
    found = _status_card_missing(w) if name == "unsun" else []
    if name == "unsun":                           # a whole game's score sheet shows without scrolling
        _whole_score_sheet(w)
    found += problems(w, size)
    if name == "unsun":
        sheet = w.games.show_game("unsun").shell.scores
        rows = sum(sheet.rowHeight(r) for r in range(sheet.rowCount()))
        if rows > sheet.viewport().height():
            found.append(f"cut: the score sheet shows {sheet.viewport().height()} of its {rows} px of rows")
    known = _known(name, size, lang)
    if known:
        assert found, f"fixed: {known!r} — remove it from KNOWN"
        pytest.xfail(f"{known}: {found[0]}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name,open_screen", SCREENS, ids=[n for n, _ in SCREENS])
def test_switching_to_japanese_mid_use_leaves_no_english(qtbot, window, name, open_screen):
    """Each screen in use in English (a reading, a match, a drill, a dealt game), then 日本語:
    every text on screen, the tables' painted ones included, follows."""
    w = window
    LANG.set("en")
    w.resize(1600, 1000)
    w.show()
    open_screen(qtbot, w)
    _settle(qtbot)
    LANG.set("ja")
    _settle(qtbot)
    left = english_left(w)
    assert not left, "\n".join(left)


def settings_dialog(w):
    from trainer.ui.settings_dialog import SettingsDialog
    return SettingsDialog(w.settings, ["my reader"], w, devices=["pulse", "default"])


def import_dialog(w):
    from trainer.ui.import_dialog import ImportDialog
    return ImportDialog(w.settings, w.voices, w)


def welcome_dialog(w):
    from trainer.ui.onboarding import WelcomeDialog
    return WelcomeDialog(w)


def guide_dialog(w):
    from trainer.ui.guide import GuideDialog
    return GuideDialog(w.settings, w)


def about_dialog(w):
    from trainer.ui.about import AboutDialog
    return AboutDialog(w.settings, w)


DIALOGS = [("settings", settings_dialog), ("import", import_dialog), ("welcome", welcome_dialog),
           ("guide", guide_dialog), ("about", about_dialog)]
SMALL_SCREEN = (1024, 700)   # the dialogs' screen: its available room is patched to this size
TITLE_BAR_PX = 40            # what a window manager's frame takes from the screen's height


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name,open_dialog", DIALOGS, ids=[n for n, _ in DIALOGS])
def test_dialogs_fit_a_small_screen_and_speak_its_language(qtbot, window, name, open_dialog, lang, monkeypatch):
    """The dialogs a new player opens from the menus (Settings, with the reading's pauses, the
    joka's gap and the own-pauses box; File → Import recordings) at their own size on a
    1024×700 screen: whole on it, legible, and in Japanese with no English left (the import's
    intro once named its example files in English)."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen
    monkeypatch.setattr(QScreen, "availableGeometry", lambda _screen: QRect(0, 0, *SMALL_SCREEN))
    w = window
    LANG.set(lang)
    w.resize(*SMALL_SCREEN)
    w.show()
    dialog = open_dialog(w)
    dialog.show()
    _settle(qtbot)
    found = []
    for page in range(dialog.stack.count() if name == "guide" else 1):    # the guide: every page
        if name == "guide":
            dialog.show_page(page)
            _settle(qtbot, 50)
        shots = os.environ.get("KARUTA_WALK_SHOTS")
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            dialog.grab().save(str(Path(shots) / f"dialog_{name}{page or ''}-{lang}.png"))
        size = dialog.size()
        found += problems(dialog, (size.width(), size.height()))
        if size.width() > SMALL_SCREEN[0] or size.height() > SMALL_SCREEN[1] - TITLE_BAR_PX:
            found.append(f"forced: the dialog is {size.width()}×{size.height()} on a 1024×700 screen")
        if lang == "ja" and name != "about":      # About names components, licences and paths
            found += [f"english: {t!r}" for t in english_left(dialog)]
    dialog.close()
    assert not found, "\n".join(sorted(set(found)))
