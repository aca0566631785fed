"""Kimariji on every screen as read aloud (おうこ, なにわが) by default, in historical kana
(あふこ, なにはが) with the setting; the reader's live kimariji over the chosen set (issue 10)."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402

import poems  # noqa: E402
import poems.kimariji  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.kimariji_text import (SPELLING, by_static, changed_note, current_text,  # noqa: E402
                                      dynamic_text, static_text)
from trainer.reader.session import ReaderSession  # noqa: E402

SOUND = {44: "おうこ", 19: "なにわが", 26: "おぐ", 50: "きみがためお", 71: "ゆう"}
HISTORICAL = {44: "あふこ", 19: "なにはが", 26: "をぐ", 50: "きみがためを", 71: "ゆふ"}


@pytest.fixture(autouse=True)
def english_sound():
    """Every test starts in English with the default spelling, and leaves them so."""
    LANG.set("en")
    SPELLING.set("sound")
    yield
    SPELLING.set("sound")
    LANG.set("en")


@pytest.fixture
def settings(tmp_path):
    return S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


def same_opening(no: int, n: int) -> list[int]:
    """Every other poem that shares `no`'s first `n` kana as heard."""
    key = poems.get(no).listening_key()[:n]
    return [p.no for p in poems.ALL if p.no != no and p.listening_key()[:n] == key]


# -- the helper and the setting ------------------------------------------------------------------

def test_static_kimariji_as_heard_by_default_historical_on_request(settings):
    assert {no: static_text(no) for no in SOUND} == SOUND
    settings.set(S.KIMARIJI_SPELLING, "historical")
    SPELLING.load(settings)
    assert {no: static_text(no) for no in SOUND} == HISTORICAL


def test_a_foreign_spelling_setting_falls_back_to_the_sound(settings, capsys):
    settings.set(S.KIMARIJI_SPELLING, "romaji")
    SPELLING.load(settings)
    assert SPELLING.code == "sound" and static_text(44) == "おうこ"
    assert "ui/kimariji_spelling" in capsys.readouterr().err


def test_a_dynamic_kimariji_never_shows_a_where_the_reader_says_o():
    read = same_opening(44, 1)                 # every other あ card, and nothing else
    assert read and poems.kimariji.current(44, read).kana == "あ"
    assert dynamic_text(read)[44] == "お"
    assert current_text(poems.kimariji.current(44, read)) == "お"
    assert changed_note(44, "あ") == ("お", "おうこ")
    SPELLING.set("historical")
    assert dynamic_text(read)[44] == "あ" and changed_note(44, "あ") == ("あ", "あふこ")


def test_the_sound_form_at_every_length_opens_what_the_reader_says():
    """Kana for kana what the reader says, but for the particles は/を, which modern kana keeps."""
    from poems.kimariji import PARTICLES
    for p in poems.ALL:
        said = "".join(p.kami_morae())
        for n in range(1, p.kimariji_len + 1):
            shown = poems.kimariji.sound(p.no, n)
            if p.no in PARTICLES and n > PARTICLES[p.no]:
                k = PARTICLES[p.no]
                shown = shown[:k] + {"は": "わ", "を": "お"}[shown[k]] + shown[k + 1:]
            assert said.startswith(shown), (p.no, n)


def test_either_spelling_names_a_card_in_a_mubeyama_layout():
    from trainer.ui.mubeyama_setup import parse_layout
    assert parse_layout("おうこ あふこ 19 なにわが なにはが", 0) == [44, 44, 19, 19, 19]
    assert all(by_static(static_text(no)) == no for no in range(1, 101))


def test_the_settings_dialog_offers_the_spelling_in_both_languages(qtbot, settings):
    from trainer.ui.settings_dialog import SettingsDialog
    for lang, words in (("en", ("As read aloud", "In historical kana")), ("ja", ("読む音で", "歴史的仮名遣いで"))):
        LANG.set(lang)
        dialog = SettingsDialog(settings, [])
        qtbot.addWidget(dialog)
        items = [dialog.spelling.itemText(k) for k in range(dialog.spelling.count())]
        assert [w in t for w, t in zip(words, items)] == [True, True], items
        assert dialog.spelling.currentData() == "sound"
    LANG.set("en")
    dialog.spelling.setCurrentIndex(dialog.spelling.findData("historical"))
    dialog.apply()
    assert settings.get(S.KIMARIJI_SPELLING) == "historical" and SPELLING.code == "historical"


# -- the reader -----------------------------------------------------------------------------------

@pytest.fixture
def reader(qtbot, settings):
    from test_ui_app import FakeDriver
    from trainer.ui.reader_panel import ReaderPanel
    settings.set(S.SHOW_KIMARIJI, True)
    p = ReaderPanel(settings, FakeDriver())
    qtbot.addWidget(p)
    return p


def cell(no: int, kimariji: str) -> str:
    return f"{kimariji}</span><span style=\" font-size:10px; color:#999999;\">{no}</span>"


def test_the_readers_live_kimariji_as_heard_then_historical(reader):
    reader.session = ReaderSession(seed=0, order=list(range(1, 101)))
    reader._refresh()
    html = reader.dynamic.toHtml()
    assert ">おうこ<" in html and ">なにわが<" in html and "あふこ" not in html
    SPELLING.set("historical")
    reader.retranslate()                        # what the main window's settings_changed does
    html = reader.dynamic.toHtml()
    assert ">あふこ<" in html and ">なにはが<" in html and "おうこ" not in html


def test_the_reader_shows_a_changed_kimariji_as_heard(reader):
    read = same_opening(44, 1)
    reader.session = ReaderSession(seed=0, order=read + [n for n in range(1, 101) if n not in read],
                                   read=len(read))
    reader._refresh()
    html = reader.dynamic.toHtml()
    assert cell(44, "お") in html and ">あ<" not in html
    # changed kimariji come first, in red: 44 shortened from three kana to one
    assert "#b3261e;\">お<" in html


def test_a_chosen_set_has_its_own_kimariji(reader):
    reader.set_given.setChecked(True)
    reader.set_text.setText("1,5,22-30")
    assert reader.new_session()
    s = reader.session
    s.order = [22] + [n for n in s.order if n != 22]
    s.read = 1
    reader._refresh()
    html = reader.dynamic.toHtml()
    # Over the set, 25 なにしおはば is decided by な (19, 20 and 88 will never be read)...
    assert ">な<" in html
    assert "なにし" not in html
    # ...and only the cards of the set still to be read are listed.
    numbers = {n for n in range(1, 101) if f"color:#999999;\">{n}</span>" in html}
    assert numbers == {1, 5, 23, 24, 25, 26, 27, 28, 29, 30}
    # The reader's poem display names the card's kimariji within the set, as heard.
    reader.current, reader.revealed = 26, True
    reader._show_poem()
    assert "【おぐ】" in reader.poem_view.text()


def test_all_100_keep_the_static_kimariji_before_anything_is_read(reader):
    reader.session = ReaderSession(seed=0, order=list(range(1, 101)))
    reader._refresh()
    assert "なにし<" in reader.dynamic.toHtml()


# -- the match ------------------------------------------------------------------------------------

def test_match_kimariji_label_and_log_line_as_heard():
    from trainer.games.kyogi_session import ReadSummary
    from trainer.text.kyogi import summary_line
    from trainer.ui.match_panel import HUMAN, kimariji_note, kimariji_short
    assert kimariji_note(44, "あふこ") == "kimariji おうこ"
    assert kimariji_note(44, "あ") == "kimariji お (was おうこ)"
    summary = ReadSummary(2, 19, "なには", False, 1, (None, 310), (False, False), ())
    line = summary_line(summary, HUMAN, kimariji_short(19, summary.kimariji))
    assert line.startswith("  2. なにわ (was なにわが)（19）")
    SPELLING.set("historical")
    assert kimariji_note(44, "あ") == "kimariji あ (was あふこ)"
    line = summary_line(summary, HUMAN, kimariji_short(19, summary.kimariji))
    assert line.startswith("  2. なには (was なにはが)（19）")


def painted(monkeypatch, module, draw) -> list:
    """The kimariji a torifuda painter was given while `draw()` ran."""
    seen = []
    real = module.paint_torifuda

    def spy(*args, **kwargs):
        seen.append(kwargs.get("kimariji"))
        return real(*args, **kwargs)
    monkeypatch.setattr(module, "paint_torifuda", spy)
    draw()
    return seen


def test_the_match_floor_prints_the_spelling_chosen(qtbot, monkeypatch):
    import trainer.ui.territory as T
    floor = T.TerritoryWidget()
    qtbot.addWidget(floor)
    floor.set_options(show_kimariji=True)
    assert painted(monkeypatch, T, lambda: floor._card_pixmap(44, 60, 84, False)) == ["おうこ"]
    SPELLING.set("historical")     # the drawn card is cached: a new spelling draws it again
    assert painted(monkeypatch, T, lambda: floor._card_pixmap(44, 60, 84, False)) == ["あふこ"]


# -- Mubeyama -------------------------------------------------------------------------------------

def test_mubeyama_note_and_table_as_heard(qtbot, monkeypatch):
    import trainer.ui.mubeyama_table as MT
    from trainer.ui.mubeyama_play import kimariji_note
    assert kimariji_note(19, "な") == "kimariji な (was なにわが)"
    assert kimariji_note(44, "あふこ") == "kimariji おうこ"
    table = MT.TableWidget()
    qtbot.addWidget(table)
    table.show_kimariji = True
    assert painted(monkeypatch, MT, lambda: table._face_pixmap(19, 60, 84, False)) == ["なにわが"]
    SPELLING.set("historical")
    assert kimariji_note(44, "あふこ") == "kimariji あふこ"
    assert painted(monkeypatch, MT, lambda: table._face_pixmap(19, 60, 84, False)) == ["なにはが"]


# -- the drills -----------------------------------------------------------------------------------

@pytest.fixture
def drills(qtbot, tmp_path, monkeypatch):
    from test_ui_drills import FakeClock
    from trainer.stats.store import StatsStore
    from trainer.ui.drills_panel import DrillsPanel
    from trainer.ui.drills_reading import TextReading
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))
    store = StatsStore.open(tmp_path / "stats.sqlite3")
    clock = FakeClock()
    p = DrillsPanel(None, None, store, clock=clock,
                    reading_factory=lambda _aloud: TextReading(clock, mora_s=0.2, after_s=1.0, gap_s=1.0),
                    seed=7)
    qtbot.addWidget(p)
    p.resize(1400, 850)
    p.show()
    p.clock = clock
    yield p
    p.stop()
    store.close()


@pytest.mark.parametrize("spelling, words", [("sound", SOUND), ("historical", HISTORICAL)])
def test_fuda_nagashi_buttons_and_feedback_in_the_spelling(qtbot, drills, spelling, words):
    from test_ui_drills import choose
    SPELLING.set(spelling)
    choose(drills, "fuda_nagashi", "pick", "19 44")
    assert drills.start()
    screen = drills.drill_screen
    for _ in range(2):
        card = screen.model.current.card
        button = next(b for b in screen.pick_buttons if b.property("card") == card)
        assert button.text() == words[card]
        for b in screen.pick_buttons:
            assert b.text() == static_text(b.property("card"))
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert words[card] in screen.status.text()


def test_kimariji_henka_feedback_as_heard(qtbot, drills):
    from test_ui_drills import choose
    choose(drills, "kimariji_henka", "pick", "44 19", field=2, rounds=3)
    assert drills.start()
    screen = drills.drill_screen
    for rnd in range(3):
        qtbot.mouseClick(screen.ask_button, Qt.MouseButton.LeftButton)
        for card in list(screen.queue):
            e = screen.expected[card]
            qtbot.keyClicks(screen.edit, poems.romaji(e.kimariji))
            qtbot.keyClick(screen.edit, Qt.Key.Key_Return)
            text = screen.status.text()
            now = poems.kimariji.sound(card, len(e.kimariji))
            assert now in text
            assert e.kimariji == now or e.kimariji not in text     # あ… never where お… is said
            if e.changed:
                assert SOUND[card] in text
        if rnd < 2:
            qtbot.mouseClick(screen.next_button, Qt.MouseButton.LeftButton)
    # the cards read are listed with their kimariji as heard
    listed = [screen.read_list.item(k).text() for k in range(screen.read_list.count())]
    assert listed and all(t.split("　")[0] == static_text(int(t.rsplit("（", 1)[1][:-1])) for t in listed)


# -- the statistics -------------------------------------------------------------------------------

def test_statistics_card_page_weakest_table_and_grid(qtbot, tmp_path, monkeypatch):
    from trainer.stats.store import StatsStore, Trial
    from trainer.ui.stats_panel import StatsPanel
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "data"))
    store = StatsStore.open(tmp_path / "stats.sqlite3")
    store.record_many(Trial("fuda_nagashi", card, card in (5, 6), reaction_ms=900.0, at=1_700_000_000.0 + k)
                      for k, card in enumerate([44, 19, 44, 19, 5, 6] * 3))
    panel = StatsPanel(store=store)
    qtbot.addWidget(panel)
    panel.resize(1400, 860)
    panel.show()
    qtbot.waitUntil(lambda: panel.data is not None)

    def weakest() -> dict[int, str]:
        t = panel.weak_table
        return {int(t.item(r, 0).text()): t.item(r, 1).text() for r in range(t.rowCount())}

    def grid() -> dict[int, str]:
        import trainer.ui.stats_charts as C
        texts = []
        real = C.QPainter.drawText
        monkeypatch.setattr(C.QPainter, "drawText", lambda self, *a: (texts.append(a[-1]), real(self, *a))[1])
        panel.heat.grab()
        monkeypatch.setattr(C.QPainter, "drawText", real)
        return set(texts)

    assert weakest()[44] == "おうこ" and weakest()[19] == "なにわが"
    assert {"おうこ", "なにわが"} <= grid() and "あふこ" not in grid()
    panel.open_card(44)
    assert "【おうこ】" in panel.card_page.title.text()
    SPELLING.set("historical")
    panel.settings_changed()
    assert weakest()[44] == "あふこ" and weakest()[19] == "なにはが"
    assert {"あふこ", "なにはが"} <= grid()
    panel.open_card(19)
    assert "【なにはが】" in panel.card_page.title.text()
    store.close()


# -- switching the setting in the window ----------------------------------------------------------

def test_the_window_redraws_when_the_spelling_changes(qtbot, tmp_path):
    from test_ui_app import FakeVoices
    from trainer.ui.main_window import MainWindow
    from ui_fakes import FakeDriver
    settings = S.Settings(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    settings.set(S.SHOW_KIMARIJI, True)
    settings.set(S.KIMARIJI_SPELLING, "historical")
    w = MainWindow(settings, driver=FakeDriver(), voices=FakeVoices())
    qtbot.addWidget(w)
    assert SPELLING.code == "historical"        # taken from the settings at start
    w.reader.session = ReaderSession(seed=0, order=list(range(1, 101)))
    w.reader._refresh()
    assert ">あふこ<" in w.reader.dynamic.toHtml()
    settings.set(S.KIMARIJI_SPELLING, "sound")   # what the dialog's OK does
    SPELLING.load(settings)
    assert ">おうこ<" in w.reader.dynamic.toHtml() and "あふこ" not in w.reader.dynamic.toHtml()


def test_karuta_stats_lists_the_weakest_cards_as_heard(tmp_path, monkeypatch, capsys):
    from trainer.cli import main
    from trainer.stats.store import StatsStore, Trial
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path))
    with StatsStore.open() as store:
        store.record_many(Trial("fuda_nagashi", card, False, reaction_ms=900.0) for card in (44, 19) * 3)
    assert main(["stats", "summary"]) == 0
    out = capsys.readouterr().out
    assert " 44 おうこ" in out and " 19 なにわが" in out and "あふこ" not in out
