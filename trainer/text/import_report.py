"""The words of an import's report (`audio.import_report`), Japanese and English.

`report_text(report, lang)` is what `karuta import-readings` prints (English)
and what the import dialog shows (the interface language).
"""
from __future__ import annotations

from typing import Any

from audio.import_report import Line, report_lines
from trainer.text.messages import add_messages, current, tr_in

# id: (日本語, English)
REPORT_TEXT: dict[str, tuple[str, str]] = {
    "import.report.failed": ("失敗    {file}: {error}", "FAILED  {file}: {error}"),
    "import.report.ok": ("ok    ", "ok"),       # Japanese pads by hand: 要確認 is six columns wide
    "import.report.check": ("要確認", "CHECK"),
    "import.report.joka": ("序歌    ", "joka    "),
    "import.report.joka_bare": ("序歌", "joka"),
    "import.report.poem_no": ("{no:3d} 番", "poem {no:3d}"),
    "import.report.poem": ("{status}  {files} → {label}: 上の句 {kami_start:.2f}-{kami_end:.2f} 秒、"
                           "下の句 {shimo_start:.2f}-{shimo_end:.2f} 秒",
                           "{status:6}  {files} -> {label}: kami {kami_start:.2f}-{kami_end:.2f} s, "
                           "shimo {shimo_start:.2f}-{shimo_end:.2f} s"),
    "import.report.poem_kimariji": (
        "{status}  {files} → {label}: 上の句 {kami_start:.2f}-{kami_end:.2f} 秒、"
        "下の句 {shimo_start:.2f}-{shimo_end:.2f} 秒、決まり字 {kimariji:.2f} 秒",
        "{status:6}  {files} -> {label}: kami {kami_start:.2f}-{kami_end:.2f} s, "
        "shimo {shimo_start:.2f}-{shimo_end:.2f} s, kimariji at {kimariji:.2f} s"),
    "import.report.warning": ("          ! {warning}", "          ! {warning}"),
    "import.report.uncertain": ("          ? 印が不確か: {doubt}", "          ? marks uncertain: {doubt}"),
    "import.report.candidate": ("          = まだ使いません: {label} は今の録音のまま、これは候補として横に残します",
                                "          = NOT used yet: the stored take of {label} stays, this one is kept "
                                "beside it as a candidate"),
    "import.report.imported": ("{n} 首を声 {name}（{dir}）に取り込みました。この声は {stored} 首です。",
                               "Imported {n} poems into voice {name} ({dir}); the voice now holds {stored}."),
    "import.report.imported_one": ("{n} 首を声 {name}（{dir}）に取り込みました。この声は {stored} 首です。",
                                   "Imported {n} poem into voice {name} ({dir}); the voice now holds {stored}."),
    "import.report.missing": ("ない札番号（{n}）: {which}", "Missing poem numbers ({n}): {which}"),
    "import.report.no_joka": ("このフォルダに序歌がありません。joka.* か 000.* という名前で加えられます。",
                              "No joka (序歌) in this folder: name its file joka.* or 000.* to add it."),
    "import.report.skipped": ("名前から音声ではないファイル {n} 個を飛ばしました: {files}",
                              "Skipped {n} file(s) that are not audio by their name: {files}"),
    "import.report.some_failed": (
        "{n} 個のファイルが失敗しました。直すか名前を変えるか録り直してから、もう一度 `{command}` を"
        "実行してください。取り込み済みの歌は残ります。",
        "{n} file(s) failed: fix, rename or re-record them, then run `{command}` again; "
        "poems already imported stay."),
    "import.report.doubtful": (
        "{n} 首（{which}）の印が不確かです。--labels DIR で Audacity で確かめてから --read-labels DIR で戻せます。",
        "Marks uncertain on {n} poem(s) ({which}): check them with --labels DIR in Audacity, "
        "then --read-labels DIR."),
    "import.report.checks": ("要確認の {n} 首も取り込みましたが、聞いて確かめてください。"
                             "区切りや印がずれているかもしれません。",
                             "{n} poem(s) marked CHECK were imported, but listen to them: the split or the "
                             "marks may be off."),
    "import.report.candidates": (
        "注意のある新しい録音 {n} 首（{which}）は今の録音を置き換えていません。"
        "両方を聞き、新しい方を使うには: `{command}`",
        "{n} new take(s) with warnings did not replace the stored ones (poem(s) {which}). Listen to both; "
        "to use the new ones: `{command}`"),
    "import.report.nothing": ("何も取り込めませんでした。", "Nothing was imported."),
}
add_messages(REPORT_TEXT)


def word(line: Line, lang: str) -> str:
    """One line in `lang`; a value that is itself a `Line` is worded first."""
    if not line.id:
        return ""
    values: dict[str, Any] = {k: word(v, lang) if isinstance(v, Line) else v
                              for k, v in line.values.items()}
    return tr_in(lang, line.id, **values) if values else tr_in(lang, line.id)


def report_text(report: Any, lang: str | None = None) -> str:
    """The whole report in `lang` (None: the interface language), one line per `Line`."""
    lang = lang or current()
    return "\n".join(word(line, lang) for line in report_lines(report))
