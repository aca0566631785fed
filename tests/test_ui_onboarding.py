"""The first five minutes: welcome (language, voice), the guide, Help → About, File → Import recordings…"""
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
import soundfile as sf  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from fixtures_audio import RATE, poem_reading  # noqa: E402
from ui_fakes import FakeDriver  # noqa: E402

from trainer import __version__  # noqa: E402
from trainer.ui import onboarding  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.about import AboutDialog  # noqa: E402
from trainer.ui.guide import GUIDE_SEEN, PAGES, GuideDialog  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.import_dialog import ImportDialog  # noqa: E402
from trainer.ui.main_window import MainWindow  # noqa: E402


class ReadyVoices:
    """A voice book whose voice is ready at once; records what the window asked of it."""

    def __init__(self):
        self.asked = 0
        self.forgotten = []

    def imported_names(self):
        from audio.recorded_voice import list_voices
        return list_voices()

    def needs_synthesis(self):
        return False

    def ensure_ready(self, parent, then=None):
        self.asked += 1
        if then:
            then()

    def forget(self, name):
        self.forgotten.append(name)


@pytest.fixture
def settings(tmp_path):
    return S.Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def window(qtbot, settings):
    LANG.set("en")
    w = MainWindow(settings, driver=FakeDriver(), voices=ReadyVoices())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    LANG.set("en")


def open_dialogs(window, cls):
    return [d for d in window.findChildren(cls) if d.isVisible()]


# -- first run ----------------------------------------------------------------------------------

def test_first_run_asks_the_language_and_the_choice_retranslates_the_window(window, settings, qtbot):
    welcome = onboarding.first_run(window)
    assert welcome is not None and welcome.isVisible()
    assert window.menuBar().actions()[0].text() == "&File"
    welcome.language_buttons["ja"].setChecked(True)
    assert LANG.code == "ja"
    assert welcome.windowTitle() == "ようこそ"
    assert window.menuBar().actions()[0].text() == "ファイル"
    assert window.help_menu.title() == "ヘルプ"
    welcome.accept()
    assert settings.get(S.LANGUAGE) == "ja"
    assert settings.get(onboarding.WELCOMED)


def test_first_run_with_the_synthesised_voice_shows_the_guide_once_and_synthesises_nothing_up_front(
        window, settings, qtbot):
    """Issue 25: no progress dialog before anything is read; the Reader makes the voice
    while it reads, the modes that must wait prepare it when they start."""
    welcome = onboarding.first_run(window)
    welcome.synth_button.setChecked(True)
    welcome.accept()
    assert window.voices.asked == 0
    assert settings.get(S.VOICE) == "synth"
    guides = open_dialogs(window, GuideDialog)
    assert len(guides) == 1
    guides[0].skip_button.click()           # skippable
    assert not guides[0].isVisible()
    assert settings.get(GUIDE_SEEN)
    # The next start neither welcomes nor guides again, nor synthesises.
    assert onboarding.first_run(window) is None
    assert window.voices.asked == 0
    assert len(open_dialogs(window, GuideDialog)) == 0


def test_closing_the_welcome_without_choosing_asks_again_next_time(window, settings):
    welcome = onboarding.first_run(window)
    welcome.reject()
    assert not settings.get(onboarding.WELCOMED)
    assert window.voices.asked == 0                   # nothing starts while the app may be quitting
    assert onboarding.first_run(window) is not None


def test_someone_who_already_chose_a_language_is_not_welcomed_again(window, settings):
    settings.set(S.LANGUAGE, "en")
    assert onboarding.first_run(window) is None
    assert window.voices.asked == 0
    assert len(open_dialogs(window, GuideDialog)) == 1     # the guide, once


def test_first_run_can_go_straight_to_importing_recordings(window, qtbot):
    welcome = onboarding.first_run(window)
    welcome.import_button.setChecked(True)
    welcome.accept()
    assert window.voices.asked == 0
    assert len(open_dialogs(window, ImportDialog)) == 1


# -- the guide ----------------------------------------------------------------------------------

def test_guide_is_in_the_help_menu_and_pages_through_to_the_end(window, settings, qtbot):
    settings.set(GUIDE_SEEN, True)
    assert window.guide_action in window.help_menu.actions()
    window.guide_action.trigger()
    guide = open_dialogs(window, GuideDialog)[0]
    assert guide.counter.text() == f"1 / {len(PAGES)}"
    assert not guide.back_button.isEnabled()
    for _ in PAGES[1:]:
        guide.next_button.click()
    assert guide.counter.text() == f"{len(PAGES)} / {len(PAGES)}"
    assert guide.next_button.text() == "Let's play"
    assert not guide.skip_button.isVisible()
    guide.back_button.click()
    assert guide.counter.text() == f"{len(PAGES) - 1} / {len(PAGES)}"
    guide.next_button.click()
    guide.next_button.click()
    assert not guide.isVisible()


def test_guide_pages_name_the_keys_of_the_reader(settings, qtbot):
    LANG.set("ja")
    try:
        guide = GuideDialog(settings)
        qtbot.addWidget(guide)
        first = guide.stack.widget(0).findChildren(type(guide.counter))
        text = " ".join(label.text() for label in first)
        assert "読手" in text and "待った" in text and "スペース" in text and "Enter" in text
    finally:
        LANG.set("en")


def test_guide_has_pages_for_games_and_statistics_each_picture_in_the_guides_language(settings, qtbot):
    from trainer.ui.guide import guide_image
    assert {"games", "stats"} <= set(PAGES)
    for page in PAGES:
        en, ja = guide_image(page, "en"), guide_image(page, "ja")
        assert en.exists() and ja.exists()
        if page != "voice":                         # the voice page's picture has no words to read
            assert (en.name, ja.name) == (f"{page}-en.jpg", f"{page}-ja.jpg")
    LANG.set("en")
    guide = GuideDialog(settings)
    qtbot.addWidget(guide)
    match_page = " ".join(label.text() for label in guide.stack.widget(PAGES.index("match"))
                          .findChildren(type(guide.counter)))
    assert "top of the Match tab" in match_page and "is in Settings" not in match_page


# -- About --------------------------------------------------------------------------------------

def test_about_gives_the_version_the_data_folders_and_the_licences(window, settings, qtbot):
    window.about_action.trigger()
    about = open_dialogs(window, AboutDialog)[0]
    assert __version__ in about.version_label.text()
    assert about.paths["about.data_dir"] == Path(os.environ["KARUTA_DATA_DIR"])
    assert about.paths["about.settings_file"] == Path(settings.store.fileName())
    rows = {about.table.item(r, 0).text(): about.table.item(r, 1).text()
            for r in range(about.table.rowCount())}
    assert rows["Qt 6 / PySide6"].startswith("LGPL")
    assert rows["Noto Sans CJK, Noto Serif CJK (fonts-noto-cjk)"] == "OFL-1.1"
    assert any("Open JTalk" in name for name in rows)


def test_about_speaks_japanese(settings, qtbot):
    LANG.set("ja")
    try:
        about = AboutDialog(settings)
        qtbot.addWidget(about)
        assert about.windowTitle() == "このアプリについて"
        assert about.table.item(0, 2).text() == "画面"
    finally:
        LANG.set("en")


def test_about_words_its_components_notes_in_japanese_and_keeps_the_english_rows(settings, qtbot):
    """The 1024×700 walk found About's notes English in the Japanese window ("PySide6's
    runtime", "imported by pyopenjtalk-plus", "each its own ..."): the rows that say more than
    a name are worded in Japanese; in English they are COMPONENTS' rows exactly."""
    import re

    from trainer.ui.about import COMPONENTS, LICENCE_IDS, NAME_IDS
    english = AboutDialog(settings)
    qtbot.addWidget(english)
    assert [(english.table.item(r, 0).text(), english.table.item(r, 1).text())
            for r in range(english.table.rowCount())] == [(n, lic) for n, lic, _ in COMPONENTS]
    assert set(NAME_IDS) <= {n for n, _, _ in COMPONENTS}
    assert set(LICENCE_IDS) <= {lic for _, lic, _ in COMPONENTS}
    LANG.set("ja")
    try:
        about = AboutDialog(settings)
        qtbot.addWidget(about)
        cells = [about.table.item(r, c).text() for r in range(about.table.rowCount()) for c in (0, 1)]
    finally:
        LANG.set("en")
    words = re.compile(r"\b(?:runtime|imported|used|support|inside|dictionary|voice|password|hashes|ratings|"
                       r"optional|standalone|libraries|from|each|licence|loudness)\b")
    assert not [c for c in cells if words.search(c)], [c for c in cells if words.search(c)]


def test_version_flag():
    from trainer.cli import main
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0


# -- File → Import recordings… -----------------------------------------------------------------

@pytest.fixture
def recordings(tmp_path):
    folder = tmp_path / "sensei"
    folder.mkdir()
    for no in (1, 2):
        reading = poem_reading(no)
        sf.write(str(folder / f"{no:03d}.flac"), reading.samples, RATE)
    (folder / "003.wav").write_bytes(b"not audio at all")
    (folder / "notes.txt").write_text("recorded in the club room")
    return folder


def test_import_dialog_imports_a_folder_off_the_gui_thread_and_reports_each_file(
        window, settings, recordings, qtbot):
    window.import_action.trigger()
    dialog = open_dialogs(window, ImportDialog)[0]
    dialog.set_folder(str(recordings))
    assert dialog.voice_name() == "sensei"
    progress = []
    dialog.progress.valueChanged.connect(progress.append)
    with qtbot.waitSignal(dialog.imported, timeout=60_000) as imported:
        dialog.start_button.click()
        assert dialog.running() and not dialog.close_button.isEnabled()
    assert imported.args == ["sensei"]
    qtbot.waitUntil(lambda: not dialog.running())
    lines = dialog.report_view.toPlainText().splitlines()
    assert any(line.startswith(("ok", "CHECK")) and "001.flac -> poem   1" in line for line in lines)
    assert any(line.startswith(("ok", "CHECK")) and "002.flac -> poem   2" in line for line in lines)
    assert any(line.startswith("FAILED  003.wav") for line in lines)
    assert any(line.startswith("Skipped 1 file") and "notes.txt" in line for line in lines)
    assert "Imported 2 poems" in dialog.status.text()
    assert progress and progress[-1] == dialog.progress.maximum()
    # The voice exists, reads those two poems, and is now the one chosen.
    from audio.recorded_voice import RecordedVoice, list_voices
    assert "sensei" in list_voices()
    voice = RecordedVoice("sensei")
    assert {1, 2} <= set(voice.available()) and 3 not in voice.available()
    assert voice.kami(1).samples.size > 0 and voice.shimo(2).samples.size > 0
    assert settings.get(S.VOICE) == "sensei"
    assert window.voices.forgotten == ["sensei"]
    # The recordings are untouched.
    assert sorted(p.name for p in recordings.iterdir()) == ["001.flac", "002.flac", "003.wav", "notes.txt"]


def test_import_dialog_refuses_a_missing_folder_and_keeps_the_voice(settings, tmp_path, qtbot):
    dialog = ImportDialog(settings)
    qtbot.addWidget(dialog)
    dialog.set_folder(str(tmp_path / "nowhere"))
    dialog.start_button.click()
    assert not dialog.running()
    assert dialog.status.text() == "Choose a folder"
    assert settings.get(S.VOICE) == "synth"


# -- the CJK font fallback of the standalone build ----------------------------------------------

NOTO_SANS = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


@pytest.mark.skipif(not NOTO_SANS.exists(), reason="fonts-noto-cjk is not installed")
def test_bundled_fonts_become_the_interface_font_only_where_no_japanese_font_exists(
        qapp, tmp_path, monkeypatch):
    from trainer.ui import fonts
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts" / NOTO_SANS.name).symlink_to(NOTO_SANS)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    before = qapp.font()
    try:
        monkeypatch.setattr(fonts, "has_japanese_font", lambda: True)
        assert fonts.register_bundled_fonts(qapp) == []          # the machine's own fonts win
        assert qapp.font().family() == before.family()
        monkeypatch.setattr(fonts, "has_japanese_font", lambda: False)
        assert fonts.INTERFACE_FAMILY in fonts.register_bundled_fonts(qapp)
        assert qapp.font().family() == fonts.INTERFACE_FAMILY
        assert qapp.font().pointSizeF() == before.pointSizeF()
    finally:
        qapp.setFont(before)


def test_no_bundled_fonts_when_run_from_python(qapp):
    from trainer.ui import fonts
    assert not hasattr(sys, "_MEIPASS")
    assert fonts.bundled_font_dir() is None and fonts.register_bundled_fonts(qapp) == []


def test_cancelling_an_import_keeps_what_was_imported_and_reports_it(settings, tmp_path, qtbot):
    folder = tmp_path / "many"
    folder.mkdir()
    for no in range(1, 13):
        sf.write(str(folder / f"{no:03d}.flac"), poem_reading(no).samples, RATE)
    dialog = ImportDialog(settings)
    qtbot.addWidget(dialog)
    dialog.set_folder(str(folder))
    # Cancel as soon as the first poem is done: the poems not yet started are left out.
    def first_progress(done):
        if done >= 1 and dialog.cancel_button.isEnabled():
            dialog.cancel_button.click()
    dialog.progress.valueChanged.connect(first_progress)
    dialog.start_button.click()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=60_000)
    report = dialog.report
    assert report is not None and report.cancelled
    assert dialog.status.text() == "Cancelled; the poems already imported stay."
    assert 1 <= len(report.poems) < 12
    lines = dialog.report_view.toPlainText().splitlines()
    assert sum(line.startswith(("ok", "CHECK")) for line in lines) == len(report.poems)
    from audio.recorded_voice import RecordedVoice
    assert set(RecordedVoice("many").available()) == {p.no for p in report.poems}
    assert dialog.start_button.isEnabled() and dialog.close_button.isEnabled()


def test_qts_own_buttons_follow_the_language(settings, qtbot):
    """The 1024×700 walk found "Cancel" in the Japanese Settings dialog, and every Yes/No
    question ("Stop the reading?", "Abandon the match?") asks "&Yes / &No": Qt's catalogue
    follows the interface language, and goes again on the way back to English."""
    from PySide6.QtCore import QLibraryInfo
    from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

    from trainer.ui.settings_dialog import SettingsDialog
    translations = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))
    if not (translations / "qtbase_ja.qm").exists():
        pytest.skip(f"Qt's Japanese catalogue is not installed in {translations}")

    def words():
        box = QMessageBox(QMessageBox.Icon.Question, "", "",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        dialog = SettingsDialog(settings, [])
        qtbot.addWidget(box)
        qtbot.addWidget(dialog)
        cancel = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Cancel)
        return (box.button(QMessageBox.StandardButton.Yes).text(),
                box.button(QMessageBox.StandardButton.No).text(), cancel.text())

    LANG.set("ja")
    try:
        yes, no, cancel = words()
        assert "Yes" not in yes and "No" not in no and cancel != "Cancel", (yes, no, cancel)
        assert "はい" in yes and "いいえ" in no
    finally:
        LANG.set("en")
    assert words() == ("&Yes", "&No", "Cancel")
