"""The words of an import's report (`audio.import_report`), Japanese and English.

`report_text(report, lang)` is what `karuta import-readings` prints (English)
and what the import dialog shows (the interface language).
"""
from __future__ import annotations

import re
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
    "import.report.no_joka": ("このフォルダに序歌がありません。序歌.* か 000.* という名前で加えられます。",
                              "No joka (序歌) in this folder: name its file joka.* or 000.* to add it."),
    "import.report.skipped": ("名前から音声ではないファイル {n} 個を飛ばしました: {files}",
                              "Skipped {n} file(s) that are not audio by their name: {files}"),
    "import.report.some_failed": (
        "{n} 個のファイルが失敗しました。直すか名前を変えるか録り直してから、もう一度 `{command}` を"
        "実行してください。取り込み済みの歌は残ります。",
        "{n} file(s) failed: fix, rename or re-record them, then run `{command}` again; "
        "poems already imported stay."),
    "import.report.doubtful": (
        "{n} 首（{which}）の決まり字の印が不確かです。--labels DIR で Audacity で確かめてから "
        "--read-labels DIR で戻せます。",
        "Kimariji marks uncertain on {n} poem(s) ({which}): check them with --labels DIR in Audacity, "
        "then --read-labels DIR."),
    "import.report.other_marks": (
        "ほかに {n} 首（{which}）で、句の始まりなどの印が間合いだけによります（決まり字の印は確かです）。",
        "On {n} more poem(s) ({which}) a phrase or mora mark rests on the pace alone (the kimariji "
        "mark is sure)."),
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


_PROSE = ("warning", "doubt", "error")      # values that are the importer's own English lines


def word(line: Line, lang: str) -> str:
    """One line in `lang`; a value that is itself a `Line` is worded first."""
    if not line.id:
        return ""
    values: dict[str, Any] = {k: word(v, lang) if isinstance(v, Line)
                              else detail(v, lang) if k in _PROSE and isinstance(v, str) else v
                              for k, v in line.values.items()}
    return tr_in(lang, line.id, **values) if values else tr_in(lang, line.id)


def report_text(report: Any, lang: str | None = None) -> str:
    """The whole report in `lang` (None: the interface language), one line per `Line`."""
    lang = lang or current()
    return "\n".join(word(line, lang) for line in report_lines(report))


# --- the importer's own lines -------------------------------------------------------------
# A warning, a doubt about a mark and the reason a file failed are prose the importer
# (`audio.importer`, `audio.onsets`) writes in English, numbers and names inside. The
# Japanese window words them by their shape; a line of another shape (a library's own
# error) is shown as the importer wrote it.

_PART = {"kami-no-ku": "上の句", "shimo-no-ku": "下の句", "kami": "上の句", "shimo": "下の句"}
_CUE = {"noise": "摩擦音", "closure and release": "閉鎖と破裂", "murmur": "鼻音"}
_WHAT = {"a folder": "フォルダ", "a named pipe (FIFO)": "名前付きパイプ（FIFO）",
         "a device or socket": "デバイスかソケット", "the joka": "序歌"}


def _label(text: str) -> str:
    """"the joka" / "poem 17" → 序歌 / 17 番."""
    m = re.fullmatch(r"poem (\d+)", text)
    return f"{m.group(1)} 番" if m else _WHAT.get(text, text)


# (English shape, Japanese words); a group named t_… is itself a line worded again,
# p_… a part (kami-no-ku), c_… a consonant's cue, l_… a poem's label, w_… a kind of file,
# o_… commands joined by "or".
_DETAILS: list[tuple[str, str]] = [
    (r"the numbers? in the name \((?P<n>.+)\) is not a poem number 0-100",
     "名前の数字（{n}）は札番号 0～100 ではありません"),
    (r"no poem number in the name \(expected e\.g\. (?P<e>.+)\)", "名前に札番号がありません（例: {e}）"),
    (r"ambiguous: several poem numbers in the name \((?P<n>.+?)\); rename it to the poem it holds: (?P<o_mv>.+)",
     "あいまい: 名前に札番号が複数あります（{n}）。中の歌の番号の名前に変えてください: {o_mv}"),
    (r"cannot be read: (?P<e>.+)", "読めません: {e}"),
    (r"unreadable: the file is empty \(0 bytes\)", "読めません: ファイルが空です（0 バイト）"),
    (r"too long: over (?P<m>\d+) minutes is not one poem; cut it into one file per poem "
     r"\(or per kami-/shimo-no-ku\)",
     "長すぎます: {m} 分を超えるものは一首ではありません。一首（または上の句・下の句）ごとのファイルに分けてください"),
    (r"too long \((?P<len>\d+) min\): over (?P<m>\d+) minutes is not one poem; cut it into one file per poem "
     r"\(or per kami-/shimo-no-ku\)",
     "長すぎます（{len} 分）: {m} 分を超えるものは一首ではありません。"
     "一首（または上の句・下の句）ごとのファイルに分けてください"),
    (r"unreadable: the file holds no audio frames", "読めません: 音声のフレームがありません"),
    (r"damaged or cut off: only (?P<s>[\d.]+) s of audio in (?P<kb>\d+) KB \(its header promises more\)",
     "壊れているか途中で切れています: {kb} KB に音声が {s} 秒しかありません（ヘッダーではもっと長いはず）"),
    (r"damaged or cut off: only (?P<s>[\d.]+) s of audio in (?P<kb>\d+) KB",
     "壊れているか途中で切れています: {kb} KB に音声が {s} 秒しかありません"),
    (r"truncated: the file is shorter than its header says \(an interrupted copy\?\)",
     "途中で切れています: ヘッダーより短いファイルです（コピーが途中で止まった？）"),
    (r"clipped: (?P<n>\d+) samples at full scale; the loudest sounds are distorted",
     "音割れ: {n} サンプルが最大値に達しています。いちばん大きい音がひずんでいます"),
    (r"long: (?P<s>\d+) s; one poem is usually 15-30 s", "長い: {s} 秒。一首はふつう 15～30 秒です"),
    (r"unreadable: not audio in a format soundfile can decode, or damaged",
     "読めません: soundfile が読める形式の音声ではないか、壊れています"),
    (r"unreadable: damaged or not audio \((?P<e>.*)\)", "読めません: 壊れているか音声ではありません（{e}）"),
    (r"silent: nothing louder than -80 dBFS", "無音: -80 dBFS より大きい音がありません"),
    (r"no reading found: the level varies only (?P<db>\d+) dB \(noise or a steady tone, not a voice\)",
     "読みが見つかりません: 音量の幅が {db} dB しかありません（声ではなく雑音か一定の音）"),
    (r"too short: less than half a second of sound", "短すぎます: 音が 0.5 秒もありません"),
    (r"too short: the (?P<p_part>\S+) lasts only (?P<s>[\d.]+) s", "短すぎます: {p_part}が {s} 秒しかありません"),
    (r"(?P<p_part>\S+): (?P<s>[\d.]+) s for (?P<n>\d+) morae is not a plausible pace; "
     r"is this the right poem, read whole\?",
     "{p_part}: {n} 拍に {s} 秒はありえない速さです。正しい歌を最後まで読んだものですか？"),
    (r"no pause found between kami-no-ku and shimo-no-ku; split at the quietest point "
     r"\((?P<s>[\d.]+) s\) - listen to check",
     "上の句と下の句の間に間が見つかりません。いちばん静かなところ（{s} 秒）で分けました。聞いて確かめてください"),
    (r"short pause: the longest silence in the middle lasts only (?P<s>[\d.]+) s \(at (?P<at>[\d.]+) s\); "
     r"it may be a breath between phrases - listen to check the split",
     "短い間: 中ほどのいちばん長い無音が {s} 秒（{at} 秒）しかありません。句の間の息かもしれません。"
     "分け目を聞いて確かめてください"),
    (r"two pauses of similar length \(at (?P<a>[\d.]+) s and (?P<b>[\d.]+) s\); split at the first named "
     r"- listen to check",
     "同じくらいの長さの間が二つあります（{a} 秒と {b} 秒）。先の方で分けました。聞いて確かめてください"),
    (r"cut at the start\? the voice is already sounding when the file begins",
     "頭が切れている？ ファイルの始まりで声がもう出ています"),
    (r"cut at the end\? the voice is still sounding when the file ends",
     "終わりが切れている？ ファイルの終わりで声がまだ出ています"),
    (r"not imported: its (?P<p_part>\S+)-no-ku file for poem (?P<no>\d+) failed",
     "取り込みませんでした: {no} 番の{p_part}のファイルが失敗しました"),
    (r"(?P<p_part>kami|shimo)-no-ku phrase (?P<k>\d+) start at (?P<s>[\d.]+) s: no breath or pitch drop there",
     "{p_part}の第{k}句の始まり（{s} 秒）: 息つぎも音の下がりもありません"),
    (r"the kimariji mark may be off", "決まり字の印もずれているかもしれません"),
    (r"kimariji mark at (?P<s>[\d.]+) s: (?P<t_why>.+)", "決まり字の印（{s} 秒）: {t_why}"),
    (r"(?P<p_part>kami|shimo)-no-ku morae (?P<i>\d+) and (?P<j>\d+) only (?P<ms>\d+) ms apart "
     r"\(under (?P<min>\d+) ms\): one of them is misplaced",
     "{p_part}の {i} 拍目と {j} 拍目が {ms} ms しか離れていません（{min} ms 未満）: どちらかの位置が違います"),
    (r"its mora (?P<k>\S+) follows (?P<prev>\S+) with no consonant and no clear change there; "
     r"it rests on the pace",
     "その拍「{k}」は子音なしで「{prev}」に続き、音にはっきりした変わり目がありません。読む速さから置いた印です"),
    (r"its (?P<k>\S+) moved (?P<ms>[+-]\d+) ms: (?P<t_why>.+)", "その「{k}」を {ms} ms 動かしました: {t_why}"),
    (r"mora (?P<n>\d+) (?P<k>\S+) moved (?P<ms>[+-]\d+) ms: (?P<t_why>.+)",
     "{n} 拍目「{k}」を {ms} ms 動かしました: {t_why}"),
    (r"the (?P<k>\S+)'s (?P<c_cue>.+) starts (?P<ms>\d+) ms after where the alignment put it",
     "「{k}」の{c_cue}が、合わせた位置より {ms} ms 後に始まります"),
    (r"no (?P<c_cue>.+) of its (?P<k>\S+) is heard at it", "そこに「{k}」の{c_cue}が聞こえません"),
    (r"listen to check", "聞いて確かめてください"),
    (r"not read: (?P<ext>\.\w+) \(AAC\) cannot be decoded here; convert it first, e\.g\. (?P<cmd>`.+`), "
     r"and import the \.flac",
     "読みません: {ext}（AAC）はここでは読めません。先に変換して（例: {cmd}）.flac を取り込んでください"),
    (r"not read: cannot be looked at \((?P<e>.+)\), not an audio file",
     "読みません: 調べられません（{e}）。音声ファイルではありません"),
    (r"not read: (?P<w_what>.+), not an audio file", "読みません: {w_what}で、音声ファイルではありません"),
    (r"duplicate: (?P<l_poem>the joka|poem \d+) is already taken from (?P<f>.+)",
     "重複: {l_poem}はもう {f} から取っています"),
    (r"no (?P<p_part>kami|shimo)-no-ku file for (?P<l_poem>the joka|poem \d+) \(expected a name like (?P<e>.+)\)",
     "{l_poem}の{p_part}のファイルがありません（{e} のような名前のはず）"),
    (r"internal error while analysing \((?P<e>.+)\); please report it",
     "解析中の内部エラー（{e}）。報告してください"),
    (r"not stored: (?P<t_why>.+)", "保存できませんでした: {t_why}"),
    (r"the disk holding (?P<d>.+) is full \((?P<mb>[\d.]+) MB free\); free some space and import again",
     "{d} のディスクがいっぱいです（空き {mb} MB）。空きを作ってからもう一度取り込んでください"),
    (r"the disk holding (?P<d>.+) is full; free some space and import again",
     "{d} のディスクがいっぱいです。空きを作ってからもう一度取り込んでください"),
    (r"cannot write in (?P<d>.+?): (?P<e>.+)", "{d} に書き込めません: {e}"),
    (r"cannot write in (?P<d>.+) \((?P<e>.+)\)", "{d} に書き込めません（{e}）"),
]
_SHAPES = [(re.compile(shape), words) for shape, words in _DETAILS]
_FILE_FIRST = re.compile(r"(?P<file>[^:;]+\.[A-Za-z0-9]{2,5}): (?P<rest>.+)")


def _japanese(text: str) -> str | None:
    """One of the importer's lines in Japanese, or None if its shape is not known."""
    for shape, words in _SHAPES:
        m = shape.fullmatch(text)
        if m is None:
            continue
        values = {}
        for key, value in m.groupdict().items():
            if key.startswith("t_"):
                value = _japanese(value)
                if value is None:
                    break
            elif key.startswith("p_"):
                value = _PART.get(value, value)
            elif key.startswith("c_"):
                value = _CUE.get(value, value)
            elif key.startswith("o_"):             # commands joined by "or"
                value = value.replace(" or mv ", " または mv ")
            elif key.startswith(("l_", "w_")):
                value = _label(value)
            values[key] = value
        else:
            return words.format(**values)
    m = _FILE_FIRST.fullmatch(text)              # a file's own warning: "kami_017.wav: clipped: …"
    if m and (rest := _japanese(m.group("rest"))) is not None:
        return f"{m.group('file')}: {rest}"
    parts = text.split("; ")                     # doubts joined: "its ち moved …; listen to check"
    for cut in range(1, len(parts)):
        head, tail = _japanese("; ".join(parts[:cut])), _japanese("; ".join(parts[cut:]))
        if head is not None and tail is not None:
            return f"{head}。{tail}"
    return None


def detail(text: str, lang: str) -> str:
    """An importer's warning, doubt or failure in `lang` (English: as the importer wrote it)."""
    if lang != "ja":
        return text
    return _japanese(text) or text
