"""Interface text in Japanese and English, worded without Qt.

One table keyed by message id (Qt's .ts/.qm machinery would need a build step
for two languages; a table is easier to review and to test). Engines report
events and refusals as ids with fields; this package words them, so the app,
`karuta simulate --log` and a server all word the same thing the same way.

The process has one current language (`current()`, `set_language()`); the Qt
layer (`trainer.ui.i18n.LANG`) only adds a signal when it changes. `tr_in`
words a message in a given language whatever the current one is.
"""
from __future__ import annotations

from typing import Any

LANGUAGES = ("ja", "en")

# id: (日本語, English)
MESSAGES: dict[str, tuple[str, str]] = {
    "app.title": ("競技かるた 読手・審判", "Kyōgi karuta reader and judge"),
    "mode.reader": ("読手", "Reader"),
    "mode.match": ("対戦", "Match"),
    "mode.kyogi": ("対戦", "Match"),
    "menu.file": ("ファイル", "&File"),
    "menu.reading": ("読み", "&Reading"),
    "menu.view": ("表示", "&View"),
    "menu.settings": ("設定", "&Settings"),
    "menu.language": ("言語", "&Language"),
    "action.quit": ("終了", "&Quit"),
    "action.settings": ("設定…", "Settings…"),
    "action.start": ("読み始め", "Start reading"),
    "action.pause": ("一時停止 / 再開", "Pause / resume"),
    "action.wait": ("待った（上の句の途中なら下の句の前、下の句が始まっていれば次の上の句の前で止める）",
                    "Wait (hold before the shimo-no-ku, or before the next kami-no-ku once the "
                    "shimo-no-ku has begun)"),
    "action.release": ("待ったを解く", "Release the wait"),
    "action.repeat": ("下の句をもう一度", "Repeat the shimo-no-ku"),
    "action.skip": ("次の札へ", "Skip to the next card"),
    "action.stop": ("読みをやめる", "Stop"),
    "action.new_session": ("新しい読み", "New reading"),
    "action.kimariji": ("決まり字を表示", "Show kimariji"),
    "action.show_poem": ("読んでいる歌を表示", "Show the poem being read"),
    "reader.count": ("{n} / {total}", "{n} / {total}"),
    "reader.ready": ("「読み始め」で序歌から読みます", "Press Start: the joka is read first"),
    "reader.joka": ("序歌", "Joka (introductory poem)"),
    "reader.paused": ("一時停止中", "Paused"),
    # Where a 待った holds (ReadingDriver.hold): this card's shimo-no-ku, the next kami-no-ku,
    # or the next card when each card is one verse.
    "reader.held.shimo": ("待った — この札の下の句の前で待っています",
                          "Waiting — held before this card's shimo-no-ku"),
    "reader.held.kami": ("待った — 次の上の句の前で待っています", "Waiting — held before the next kami-no-ku"),
    "reader.held.card": ("待った — 次の札の前で待っています", "Waiting — held before the next card"),
    "reader.finished": ("すべて読み終えました", "All cards have been read"),
    "reader.read_list": ("読んだ札", "Cards read"),
    "reader.dynamic": ("今の決まり字", "Kimariji now"),
    "reader.resumed": ("前回の読みを続けます（{n} 枚目から）", "Resuming the last reading (from card {n})"),
    "reader.set": ("読む札", "Cards to read"),
    "reader.set_all": ("百首すべて（空札を含む）", "All 100 (with the karafuda)"),
    "reader.set_given": ("指定した札のみ", "Only these cards"),
    "reader.set_hint": ("札番号を空白かコンマで区切って（例: 1 5 22-30）",
                        "Poem numbers, separated by spaces or commas (e.g. 1 5 22-30)"),
    "refusal.reader.too_many_karafuda": (
        "空札を {asked} 枚にはできません: 選んだ {chosen} 枚の外には {outside} 首しかありません",
        "{asked} karafuda asked for but only {outside} poems lie outside the set of {chosen}"),
    "reader.voice_partial": ("声「{voice}」には {poems} 番の読みがありません。ある {n} 首を読みます",
                             "Voice {voice!r} has no reading of poem(s) {poems}; reading the {n} it has"),
    "reader.no_sound": ("音声出力がありません: 無音で進みます", "No sound device: running silently"),
    # The sound device (trainer/ui/reading.py): a stall is waited out, a lost device pauses.
    "sound.stalled": ("音声が途切れました。読みはその場で待ち、音が戻ればそのまま続きます",
                      "The sound stuttered: the reading waits where it was and goes on when the sound does"),
    "sound.flowing": ("音声が {seconds:.1f} 秒途切れましたが、読みはそのまま続いています",
                      "The sound stuttered for {seconds:.1f} s; the reading went on by itself"),
    # Short stalls (issue 23): a race around one the stream's time did not show is not counted.
    "sound.stuttered": ("音声が途切れました（{n} 回、{ms} ミリ秒）。その間の取りの反応時間は集計しません",
                        "The sound stuttered ({n}×, {ms} ms): reaction times around it are not counted"),
    "sound.stuttered_allowed": ("音声が途切れました（{n} 回、{ms} ミリ秒）。反応時間はこれを差し引いて測っています",
                                "The sound stuttered ({n}×, {ms} ms); reaction times allow for it"),
    "race.disturbed": ("音声が途切れた：集計しません", "sound stuttered: not counted"),
    "sound.lost": ("音声出力が止まりました（{problem}）。読みはその場で一時停止しています。"
                   "出力が戻れば自動で再開します",
                   "The sound device was lost ({problem}). The reading is paused where it was "
                   "and goes on by itself when the device comes back"),
    "settings.title": ("設定", "Settings"),
    "settings.language": ("表示言語", "Interface language"),
    "settings.ma": ("間（下の句の後の間、秒）", "Ma (silence after the shimo-no-ku, s)"),
    "settings.pause": ("上の句と下の句の間（秒）", "Pause between kami and shimo (s)"),
    "settings.pitch": ("合成音声の読みの高さ（Hz）", "Synthesised reader's reciting pitch (Hz)"),
    "settings.speed": ("読む速さ", "Reading speed"),
    "settings.voice": ("声", "Voice"),
    "settings.voice_synth": ("合成音声", "Synthesised voice"),
    "settings.joka": ("序歌で始める（下の句を繰り返す）", "Official start: joka, shimo-no-ku repeated"),
    "settings.kimariji": ("取り札に決まり字を小さく表示（初心者向け）",
                          "Print kimariji small on the torifuda (beginner aid)"),
    "settings.dakuten": ("取り札に濁点を付ける", "Print dakuten on the torifuda"),
    "settings.memorise": ("暗記時間（分）", "Memorisation time (min)"),
    "settings.cpu": ("相手の強さ", "Opponent strength"),
    "synth.title": ("声の準備", "Preparing the voice"),
    "synth.label": ("初回のみ: 百首を合成しています…", "First run only: synthesising the 100 poems…"),
    "synth.cancelled": ("合成を中止しました", "Synthesis cancelled"),
    "synth.failed": ("声を用意できません: {err}", "The voice could not be prepared: {err}"),
    "territory.own": ("自陣", "Your territory"),
    "territory.opponent": ("敵陣", "Opponent's territory"),
    "match.deal": ("配り直す", "Deal again"),
    "match.arrange_save": ("並びを保存", "Save arrangement"),
    "match.arrange_load": ("並びを読み込む", "Load arrangement"),
    "match.arrange_name": ("並びの名前", "Arrangement name"),
    "match.memorise": ("暗記時間", "Memorisation"),
    "match.memorise_left": ("暗記 残り {mm}:{ss}", "Memorise: {mm}:{ss} left"),
    "match.swing": ("素振りができます（残り2分）", "Practice swings allowed (last 2 minutes)"),
    "match.preparing": ("読みの声を用意しています…", "Preparing the reader's voice…"),
    "match.begin": ("試合開始", "Begin the match"),
    "match.skip_memorise": ("暗記を終えて開始", "End memorisation and begin"),
    "match.arrange_hint": ("札をドラッグして自陣を並べ替えられます", "Drag cards to arrange your territory"),
    "match.you": ("あなた", "You"),
    "match.cpu": ("相手（CPU）", "Opponent (CPU)"),
    "match.left": ("残り {n} 枚", "{n} cards left"),
    "match.reaction": ("+{ms} ms", "+{ms} ms"),
    "match.anticipated": ("\u2212{ms} ms 早押し", "\u2212{ms} ms anticipated"),
    "match.fault": ("お手つき {ms} ms", "fault {ms} ms"),
    "match.karafuda": ("空札", "Karafuda (not on the floor)"),
    "match.okuri": ("送り札を選んでください（敵陣へ送る札をクリック）",
                    "Choose the okurifuda: click one of your cards to send across"),
    "match.log": ("記録", "Log"),
    "match.result": ("試合結果", "Match result"),
    "match.won": ("あなたの勝ち（{n} 枚差）", "You won (by {n})"),
    "match.lost": ("あなたの負け（{n} 枚差）", "You lost (by {n})"),
    "match.mean_rt": ("平均反応時間 {ms} ms", "Mean reaction time {ms} ms"),
    "match.faults": ("お手つき {n} 回", "{n} faults"),
    "match.taken": ("取った札　あなた {you}　相手 {cpu}", "Cards taken: you {you}, opponent {cpu}"),
    "match.again": ("もう一度", "Play again"),
    "match.abandon": ("試合をやめる", "Abandon the match"),
    "match.not_ready": ("対戦モードは規則エンジンが必要です", "Match mode needs the rules engine"),
    "common.cancel": ("中止", "Cancel"),
    "level.beginner": ("初心者（E級）", "beginner (E class)"),
    "level.novice": ("D級", "novice (D class)"),
    "level.club": ("C級（一般の会員）", "club player (C class)"),
    "level.strong": ("B級", "strong club player (B class)"),
    "level.a-class": ("A級", "A class"),
    "level.meijin": ("名人・クイーン級", "top (Meijin / Queen contender)"),
    "fault.otetsuki": ("お手つき", "fault"),
    "fault.dabu": ("ダブ（2枚）", "double fault"),
    "fault.karafuda": ("空札でお手つき", "fault on a karafuda"),
    "fault.karadabu": ("空ダブ（2枚）", "karadabu (double fault)"),
    "fault.early": ("読み前のお手つき", "touched before the reading"),
    "error.title": ("エラー", "Error"),
    "error.bad_numbers": ("札番号が正しくありません: {text}", "Not valid poem numbers: {text}"),
}



def add_messages(table: dict[str, tuple[str, str]]) -> None:
    """Merge a module's own strings into MESSAGES. An id may be defined once: two
    modules giving one id different texts would make the label depend on which
    module happened to be imported first."""
    for key, text in table.items():
        if MESSAGES.get(key, text) != text:
            raise ValueError(f"message id {key!r} is defined twice with different texts: "
                             f"{MESSAGES[key]} and {text}")
    MESSAGES.update(table)


_current = "en"


def current() -> str:
    """The process's interface language ("ja" or "en")."""
    return _current


def set_language(code: str) -> None:
    global _current
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}; known: {', '.join(LANGUAGES)}")
    _current = code


def is_ja() -> bool:
    return _current == "ja"


def tr_in(lang: str, msg_id: str, **values: Any) -> str:
    """Message `msg_id` in language `lang`, its ``{placeholders}`` filled from `values`."""
    ja, en = MESSAGES[msg_id]
    text = ja if lang == "ja" else en
    return text.format(**values) if values else text


def tr(msg_id: str, **values: Any) -> str:
    """Message `msg_id` in the current language."""
    return tr_in(_current, msg_id, **values)
