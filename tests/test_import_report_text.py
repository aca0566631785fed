"""The import report as message ids (audio side) worded in either language (trainer/text):
the command prints English, the import dialog the interface language."""
from __future__ import annotations

import io
import re
from types import SimpleNamespace


from audio.import_report import ranges, report_lines
from trainer.commands.import_cmd import print_report
from trainer.text.import_report import report_text

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def poem(no, files, warnings=(), uncertain=(), candidate=False, kimariji=1.25):
    return SimpleNamespace(no=no, files=list(files), kami_start_s=0.1, kami_end_s=2.5, shimo_start_s=3.0,
                           shimo_end_s=6.25, kimariji_mark_s=kimariji, warnings=list(warnings),
                           uncertain=list(uncertain), candidate=candidate)


def a_report():
    return SimpleNamespace(
        name="club", folder="/tmp/rec", voice_dir="/v/club",
        poems=[poem(0, ["joka.wav"]), poem(1, ["001.wav"]), poem(2, ["002.wav"], warnings=["short pause"],
                                                                 uncertain=["kami phrase 2"]),
               poem(7, ["007.wav"], warnings=["loud"], candidate=True)],
        failed=[SimpleNamespace(file="004.mp3", error="cannot decode")], skipped=["notes.txt"],
        missing=[3, 4, 5, 6] + list(range(8, 101)), stored=[0, 1, 2, 7], joka=True)


def test_the_command_prints_the_english_report():
    out = io.StringIO()
    print_report(a_report(), out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "ok      001.wav -> poem   1: kami 0.10-2.50 s, shimo 3.00-6.25 s, kimariji at 1.25 s"
    assert "FAILED  004.mp3: cannot decode" in lines
    assert "          = NOT used yet: the stored take of poem   7 stays, this one is kept beside it as a " \
           "candidate" in lines
    assert "Missing poem numbers (97): 3-6, 8-100" in lines
    assert not any(JAPANESE.search(line) for line in lines)


def test_every_line_has_a_japanese_text():
    ja = report_text(a_report(), "ja").splitlines()
    en = report_text(a_report(), "en").splitlines()
    assert len(ja) == len(en) == len(report_lines(a_report()))
    worded = [line for line in ja if line and not line.startswith("          !")]  # a warning is the importer's
    assert all(JAPANESE.search(line) for line in worded if not line.startswith("ok")), worded
    assert "失敗    004.mp3: cannot decode" in ja


def test_ranges():
    assert ranges([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10"
    assert ranges([]) == ""


def test_the_import_dialog_shows_the_report_in_the_interface_language(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from trainer.ui import settings as S
    from trainer.ui.i18n import LANG
    from trainer.ui.import_dialog import ImportDialog
    LANG.set("ja")
    try:
        dialog = ImportDialog(S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)))
        qtbot.addWidget(dialog)
        report = a_report()
        report.poems, report.cancelled = [], False      # nothing to adopt as the voice
        dialog._finished(report)
        shown = dialog.report_view.toPlainText()
        assert "失敗    004.mp3" in shown and "何も取り込めませんでした。" in shown
        assert "FAILED" not in shown and "Nothing was imported" not in shown
    finally:
        LANG.set("en")
