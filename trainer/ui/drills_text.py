"""Interface text of Drills mode (Japanese, English), merged into the shared table at import."""
from __future__ import annotations

from trainer.ui.i18n import MESSAGES

# id: (日本語, English)
DRILLS_MESSAGES: dict[str, tuple[str, str]] = {
    "mode.drills": ("練習", "Drills"),
    "drill.choose": ("練習の種類", "Drill"),
    "drill.fuda_nagashi": ("札流し", "Fuda-nagashi (name the kimariji)"),
    "drill.kami_to_torifuda": ("上の句から取り札", "Kami-no-ku → torifuda"),
    "drill.listening_reflex": ("聞き分け反応", "Listening reflex"),
    "drill.kimariji_henka": ("決まり字の変化", "Kimariji henka (changing kimariji)"),
    "drill.positional": ("位置の暗記", "Positional memory"),
    "drill.set": ("札の範囲", "Cards"),
    "set.all": ("百首すべて", "All 100 cards"),
    "set.first": ("頭の音で", "By first sound"),
    "set.length": ("決まり字の字数で", "By kimariji length"),
    "set.group": ("友札のグループ", "A confusable group"),
    "set.weakest": ("苦手な札（統計から）", "The weakest N (statistics)"),
    "set.due": ("復習の時期の札（FSRS）", "Cards due for review (FSRS)"),
    "set.pick": ("札番号を指定", "Hand-picked numbers"),
    "set.hint.all": ("", ""),
    "set.hint.first": ("例: あ / あさ / asa", "e.g. あ / あさ / asa"),
    "set.hint.length": ("例: 1 または 1,2", "e.g. 1 or 1,2"),
    "set.hint.group": ("例: あき / おほ / 79 番の友札なら 79", "e.g. あき / おほ, or a card number: 79"),
    "set.hint.weakest": ("枚数（例: 10）", "how many (e.g. 10)"),
    "set.hint.due": ("新しい札の上限（例: 10）", "at most this many new cards (e.g. 10)"),
    "set.hint.pick": ("例: 1, 5-9, 87", "e.g. 1, 5-9, 87"),
    "set.no_due": ("今は復習の時期の札がありません", "No card is due for review now"),
    "drill.audio": ("読み上げる（切ると上の句を文字で表示）", "Read aloud (off: the kami-no-ku is shown as text)"),
    "drill.upside": ("札の向きをランダムに（逆さも）", "Random orientation (some upside down)"),
    "drill.choices": ("並べる取り札の数", "Torifuda on show"),
    "drill.territory": ("陣の札の数", "Cards on the field"),
    "drill.karafuda": ("空札の数", "Karafuda read"),
    "drill.memorise_s": ("暗記時間（秒）", "Memorising time (s)"),
    "drill.field": ("場の札の数", "Field cards"),
    "drill.rounds": ("回数", "Rounds"),
    "drill.start": ("開始", "Start"),
    "drill.stop": ("やめる", "Stop"),
    "drill.again": ("もう一度", "Again"),
    "drill.intro": ("左で練習と札の範囲を選び、「開始」を押してください。\n結果はすべて統計に記録されます。",
                    "Choose a drill and a card set on the left and press Start.\n"
                    "Every result goes to the statistics."),
    "drill.error": ("この練習を始められません: {err}", "This drill cannot start: {err}"),
    "drill.store_error": ("統計に記録できません: {err}", "Cannot write to the statistics: {err}"),
    "drill.progress": ("{n} / {total}", "{n} / {total}"),
    "drill.ok": ("○ {text}", "✓ {text}"),
    "drill.ng": ("× {text}", "✗ {text}"),
    "drill.ms": ("{ms} ms", "{ms} ms"),
    "drill.anticipated": ("{ms} ms（決まり字より前）", "{ms} ms (before the kimariji)"),
    "drill.done": ("終了", "Finished"),
    "drill.mean": ("平均 {ms} ms", "mean {ms} ms"),
    "drill.best": ("最速 {ms} ms", "best {ms} ms"),
    "drill.faults": ("お手つき {n}", "faults {n}"),
    "drill.correct": ("正解 {n} / {total}", "right {n} / {total}"),
    "drill.reading": ("読んでいます…", "Reading…"),
    "drill.listen": ("よく聞いて、取り札に触れてください", "Listen, then touch the torifuda"),
    "drill.missed": ("取れませんでした（正解は {kimariji}）", "Not taken (it was {kimariji})"),
    "drill.karafuda_read": ("空札: {kimariji}", "Karafuda: {kimariji}"),
    "drill.karafuda_ok": ("空札 — 触らずに正解", "Karafuda — rightly left alone"),
    "fuda.prompt": ("この取り札の決まり字は？（かな / ローマ字、Enter）",
                    "Kimariji of this torifuda? (kana or romaji, Enter)"),
    "fuda.or_pick": ("または選ぶ:", "or pick:"),
    "fuda.card_time": ("この札 {s} 秒", "this card {s} s"),
    "fuda.total_time": ("合計 {s} 秒", "total {s} s"),
    "fuda.rank": ("段位 {rank}（最近の平均から）", "Rank {rank} (recent average)"),
    "fuda.wrong": ("正しくは {kimariji}", "it is {kimariji}"),
    "henka.read_now": ("読まれた札（この回）", "Cards read this round"),
    "henka.read_total": ("これまでに読まれた札: {n} 枚", "Read so far: {n} cards"),
    "henka.ask": ("決まり字を答える", "Name the kimariji"),
    "henka.prompt": ("光っている札の今の決まり字は？", "Current kimariji of the highlighted card?"),
    "henka.changed": ("{static} → {now}（変化）", "{static} → {now} (changed)"),
    "henka.same": ("{now}（変わらず）", "{now} (unchanged)"),
    "henka.next_round": ("次の回へ", "Next round"),
    "pos.memorise": ("覚えてください: 残り {s} 秒", "Memorise: {s} s left"),
    "pos.ready": ("覚えた（札を伏せる）", "Ready (turn the cards over)"),
    "pos.recall": ("読まれた札のあった場所に触れてください", "Touch the place where the card read lies"),
    "pos.right": ("○ 正しい場所 {ms} ms", "✓ right place {ms} ms"),
    "pos.wrong": ("× 場所違い（{kimariji}）", "✗ wrong place ({kimariji})"),
}

MESSAGES.update(DRILLS_MESSAGES)


def make_bools_immortal() -> None:
    """PySide6 6.12 on Python 3.11 drops a reference to True/False on every signal
    emit (the abi3 bug ``trainer.ui._none_refcount`` works around for None); a drill
    emits several signals per card, so True and False get the 2**40 extra references
    immortality amounts to. Nothing on 3.12+. Belongs beside the None fix."""
    import sys
    if sys.version_info >= (3, 12) or getattr(make_bools_immortal, "done", False):
        return
    import ctypes
    for obj in (True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    make_bools_immortal.done = True


make_bools_immortal()
