"""Interface text of the Mubeyama karuta (むべ山かるた) table, Japanese and English.

Merged into `trainer.text.messages.MESSAGES` at import, so ``tr("mubeyama.…")``
works like every other message of the app.
"""
from __future__ import annotations

from typing import Any

import poems
from trainer.rules.mubeyama import (EVENT_TYPES, LINE, CardRead, Dealt, LineCompleted,
                                    MubeyamaEvent, Paid, Payment, Won)
from trainer.games.protocol import GameEvent
from trainer.text.events import add_event_messages, describe
from trainer.text.messages import add_messages, current, tr, tr_in
from trainer.text.refusals import add_refusal_messages, describe_refusal

# id: (日本語, English)
TEXT: dict[str, tuple[str, str]] = {
    "mode.mubeyama": ("むべ山", "Mubeyama"),     # its tab inside Games (遊び)
    # -- setup ---------------------------------------------------------------------------------
    "mubeyama.setup": ("むべ山かるた — 準備", "Mubeyama karuta — setup"),
    "mubeyama.variant": ("遊び方", "Ruleset"),
    "mubeyama.variant.okayama4": ("岡山（4人・5×5）", "Okayama, 4 players (5×5)"),
    "mubeyama.variant.okayama6": ("岡山（6人・4×4）", "Okayama, 6 players (4×4)"),
    "mubeyama.variant.izumoji5": ("出雲路家「むべ山遊び」（5人）", "Izumoji \"Mubeyama asobi\", 5 players"),
    "mubeyama.variant.izumoji6": ("出雲路家「むべ山遊び」（6人）", "Izumoji \"Mubeyama asobi\", 6 players"),
    "mubeyama.variant.gambling4": ("賭け 4人（伏せ札あり 1-4-5-7-8）",
                                   "Gambling, 4 players, hidden card (1-4-5-7-8)"),
    "mubeyama.variant.gambling4open": ("賭け 4人（伏せ札なし 4-6-7-8）",
                                       "Gambling, 4 players, no hidden card (4-6-7-8)"),
    "mubeyama.variant.gambling5": ("賭け 5人（3-4-6-7）", "Gambling, 5 players (3-4-6-7)"),
    "mubeyama.about.okayama": ("縦・横・斜めのいずれか一列を全部伏せた人の勝ち。役札なし。",
                               "The first to turn a whole row, column or diagonal face-down wins. No yaku."),
    "mubeyama.about.izumoji": ("札を全部伏せた人の勝ち。役札で表向きの札を渡し合う。",
                               "The first with every card face-down wins. Yaku cards pass face-up cards."),
    "mubeyama.about.gambling": ("段を仕上げる・役札を返すと他の全員から文をもらう。"
                                "誰かが全段を仕上げたら終わり、文の多い人の勝ち。",
                                "Completing a row or flipping a yaku card is paid by every other player. "
                                "The game ends when someone has finished every row; most Mon wins."),
    "mubeyama.mode": ("進め方", "Play"),
    "mubeyama.mode.hotseat": ("この画面で遊ぶ（人とCPU）", "On this screen (people and CPU)"),
    "mubeyama.mode.scorekeeper": ("記録係（本物の札で遊ぶ。アプリは読むだけ）",
                                  "Scorekeeper (people play with real cards; the app only reads)"),
    "mubeyama.mode.scorekeeper_short": ("記録係", "Scorekeeper"),
    "mubeyama.seats": ("席", "Seats"),
    "mubeyama.seat": ("席{n}", "Seat {n}"),
    "mubeyama.human": ("人", "Person"),
    "mubeyama.cpu": ("CPU", "CPU"),
    "mubeyama.player": ("打ち手", "Player"),
    "mubeyama.seed": ("乱数の種", "Seed"),
    "mubeyama.seed_new": ("新しい種", "New seed"),
    "mubeyama.hint_delay": ("ヒントまで（秒）", "Hint after (s)"),
    "mubeyama.cpu_delay": ("CPUが返すまで（秒）", "CPU flips after (s)"),
    "mubeyama.stakes": ("支払い（文）— 他の全員が払う", "Payments (Mon) — paid by every other player"),
    "mubeyama.stake.hidden": ("伏せ札が読まれた", "Hidden card read"),
    "mubeyama.stake.row": ("{label}を仕上げた", "Completed {label}"),
    "mubeyama.stake.tyh": ("月・雪・花の札", "Tsuki / yuki / hana card"),
    "mubeyama.stake.mubeyama": ("むべ山（22番）— 最高額", "Mubeyama (#22) — the highest"),
    "mubeyama.stake.defaults": ("既定に戻す", "Defaults"),
    "mubeyama.row": ("{n}段目", "row {n}"),
    "mubeyama.mon_unit": (" 文", " Mon"),
    "mubeyama.yaku": ("役札（編集可 — 資料の編者も数を疑っている）",
                      "Yaku cards (editable: the source's editor doubts the lists)"),
    "mubeyama.yaku.kw": ("第一群「{kanji}」（右へ1枚）", "Set 1 “{kanji}” ({kw}): pass 1 right"),
    "mubeyama.yaku.set1_extra": ("第一群 その他（右へ1枚）", "Set 1, others (#1, #100): pass 1 right"),
    "mubeyama.yaku.mountains": ("第二群 山（全員へ1枚）", "Set 2, mountains: 1 to each"),
    "mubeyama.yaku.mountains_double": ("第二群 むべ山（全員へ2枚）", "Set 2, mubeyama: 2 to each"),
    "mubeyama.yaku.sadness": ("第三群 悲しみ（全員から1枚）", "Set 3, sadness: 1 from each"),
    "mubeyama.yaku.tsuki_yuki_hana": ("賭け: 月・雪・花", "Gambling: tsuki / yuki / hana"),
    "mubeyama.yaku.reset": ("資料の通りに戻す", "Reset to the source"),
    "mubeyama.start": ("始める", "Start"),
    "mubeyama.enter_layouts": ("並びを入力して始める…", "Enter the layouts and start…"),
    # -- scorekeeper layouts ---------------------------------------------------------------------
    "mubeyama.layouts": ("各席の並び（上の段から、左から右へ。伏せ札は最初）",
                         "Each seat's layout (top row first, left to right; the hidden card first)"),
    "mubeyama.layouts.hint": ("札番号か決まり字を空白かコンマで区切って。1段ごとに改行してもよい。",
                              "Poem numbers or kimariji, separated by spaces or commas; a line per row if you like."),
    "mubeyama.layouts.deal": ("配る（アプリの配りを見せる）", "Deal (show the app's deal)"),
    "mubeyama.layouts.count": ("{n} / {need} 枚", "{n} / {need} cards"),
    "mubeyama.layouts.back": ("戻る", "Back"),
    # -- the table ---------------------------------------------------------------------------------
    "mubeyama.reading": ("読み", "Reading"),
    "mubeyama.not_started": ("「始める」で読み始めます", "Press Start to begin the reading"),
    "mubeyama.preparing": ("読みを準備しています…", "Preparing the reading…"),
    "mubeyama.read_n": ("{n} 枚目", "card {n}"),
    "mubeyama.phase.kami": ("上の句を読んでいます", "Reading the kami-no-ku"),
    "mubeyama.phase.shimo": ("下の句", "Shimo-no-ku"),
    "mubeyama.phase.held": ("読み手は札が返されるのを待っています", "The reader waits for the card to be flipped"),
    "mubeyama.phase.paused": ("一時停止中", "Paused"),
    "mubeyama.wait.read": ("次の札を読みます", "The reader reads the next card"),
    "mubeyama.wait.flip_someone": ("「{kami}」— 持っている人は札を返してください",
                                   "“{kami}” — whoever holds it, flip it"),
    "mubeyama.wait.flip": ("{seat}が「{kami}」を返す", "{seat} flips “{kami}”"),
    "mubeyama.wait.reveal": ("{seat}が伏せ札「{kami}」を見せる", "{seat} shows the hidden card “{kami}”"),
    "mubeyama.wait.pass": ("{giver}が表向きの札を{count}枚選んで{to}に渡す",
                           "{giver} chooses {count} face-up card(s) to pass to {to}"),
    "mubeyama.wait.over": ("勝負あり", "The game is over"),
    "mubeyama.not_in_play": ("#{no} は使っていない札です。読み進めます", "#{no} is not in play; reading on"),
    "mubeyama.stats_failed": ("統計に記録できませんでした（ゲームは続きます）: {error}",
                               "Could not save to the statistics (the game goes on): {error}"),
    "mubeyama.mark_flip": ("返した", "Flipped"),
    "mubeyama.view_as": ("画面に見せる", "Screen shows"),
    "mubeyama.view_all": ("全員（伏せ札は伏せたまま）", "Everyone (hidden cards stay down)"),
    "mubeyama.view_seat": ("{seat}の視点（伏せ札が見える）", "{seat}'s view (sees its hidden card)"),
    "mubeyama.pause": ("一時停止 / 再開", "Pause / resume"),
    "mubeyama.confirm_stop": ("この対局をやめて準備に戻りますか？", "Stop this game and go back to the setup?"),
    "mubeyama.new": ("やめて準備へ", "Stop and set up"),
    "mubeyama.face_up": ("表 {n}", "{n} up"),
    "mubeyama.mon": ("{n} 文", "{n} Mon"),
    # Flip times in seconds, as Statistics shows them (trainer.stats.aggregates.UNIT["flip"]).
    "mubeyama.rt_last": ("反応 {s} 秒", "RT {s} s"),
    "mubeyama.rt_mean": ("平均 {s} 秒（{n}回）", "mean {s} s ({n})"),
    "mubeyama.rt_left_out": ("音声の途切れた {n} 回は除外", "{n} left out: the sound stuttered"),
    "mubeyama.seconds": ("{s} 秒", "{s} s"),
    "mubeyama.kimariji_now": ("決まり字 {now}", "kimariji {now}"),
    "mubeyama.kimariji_was": ("決まり字 {now}（元は {was}）", "kimariji {now} (was {was})"),
    "mubeyama.reactions": ("反応時間・秒（決まり字から。* はヒントの後）",
                           "Reaction times in s (from the kimariji; * after the hint)"),
    "mubeyama.ledger": ("支払い", "Ledger"),
    "mubeyama.ledger.line": ("{payer} → {payee}　{amount} 文　{reason}", "{payer} → {payee}  {amount} Mon  {reason}"),
    "mubeyama.log": ("記録", "Log"),
    "mubeyama.hidden": ("伏", "hid"),
    # -- words the event texts and errors use ------------------------------------------------------
    "mubeyama.column": ("{n}列目", "column {n}"),
    "mubeyama.diagonal": ("斜め", "diagonal"),
    "mubeyama.pay.hidden_card": ("伏せ札が読まれた", "hidden card read"),
    "mubeyama.pay.tsuki_yuki_hana": ("月・雪・花の札", "tsuki/yuki/hana card"),
    "mubeyama.pay.mubeyama": ("むべ山の札", "mubeyama card"),
    "mubeyama.pay.row": ("{row}を仕上げた", "completed {row}"),
    "mubeyama.won.line": ("一列伏せた: {where}", "a face-down {where}"),
    "mubeyama.won.all_face_down": ("札を全部伏せた", "every torifuda face-down"),
    "mubeyama.won.all_rows": ("{by}が全段を仕上げた。文の最も多い人", "{by} finished every row; most Mon"),
    "mubeyama.won.all_read": ("全部読み終えた", "every card read"),
    # -- the win screen ---------------------------------------------------------------------------------
    "mubeyama.result": ("勝負あり", "Game over"),
    "mubeyama.winner": ("{seats}の勝ち", "{seats} won"),
    "mubeyama.why": ("{why}　{n} 枚読んだところで", "{why} — after {n} cards read"),
    "mubeyama.col.seat": ("席", "Seat"),
    "mubeyama.col.kind": ("打ち手", "Player"),
    "mubeyama.col.up": ("表の札", "Face-up"),
    "mubeyama.col.mon": ("文", "Mon"),
    "mubeyama.col.rt": ("平均反応", "Mean RT"),
    "mubeyama.col.flips": ("返した札", "Flipped"),
    "mubeyama.again": ("同じ設定でもう一局", "Play again (same setup)"),
    "mubeyama.to_setup": ("準備に戻る", "Back to setup"),
    "mubeyama.error.stakes": ("支払いの設定: {err}", "Payments: {err}"),
    "mubeyama.error.yaku": ("役札「{what}」: 「{text}」は札番号ではありません",
                            "Yaku set “{what}”: “{text}” is not a poem number"),
}

# One text per Mubeyama event kind (`trainer.rules.mubeyama.events`), by kind: (日本語, English).
# Placeholders are the event's fields; `event_values` adds seat names ({seat}, {to}, {by}),
# the card's opening words ({kami}) and the worded reason ({where}, {reason}, {why}).
EVENT_TEXT: dict[str, tuple[str, str]] = {
    "mubeyama.deal": ("{seat}に{count}枚配った", "dealt {count} torifuda to {seat}"),
    "mubeyama.deal_hidden": ("{seat}に伏せ札 #{no} を配った", "dealt {seat} the hidden card #{no}"),
    "mubeyama.read": ("読み #{no}「{kami}」", "read #{no} “{kami}”"),
    "mubeyama.not_in_play": ("#{no} は場にない", "#{no} is not in play"),
    "mubeyama.flip": ("{seat}が #{no} を返した", "{seat} flipped #{no}"),
    "mubeyama.reveal": ("{seat}が伏せ札 #{no} を見せた", "{seat} showed the hidden card #{no}"),
    "mubeyama.pass": ("{seat}→{to} #{no} を渡した（役 第{yaku_set}群）",
                      "{seat} → {to}: passed #{no} (yaku set {yaku_set})"),
    "mubeyama.short": ("{seat}は表の札が足りない（{to}へ渡す分 {owed}、表 {has}枚。残りは免除）",
                       "{seat} is short of face-up cards (owes {to} {owed}, has {has} face-up; rest forgiven)"),
    "mubeyama.pay": ("{seat}が他の全員から {each} 文ずつ: {reason}", "{seat} is paid {each} Mon by each: {reason}"),
    "mubeyama.row": ("{seat}が{where}を仕上げた", "{seat} completed {where}"),
    "mubeyama.line": ("{seat}: 一列伏せた（{where}）", "{seat}: a face-down line ({where})"),
    "mubeyama.win": ("{seat}の勝ち（{why}）", "{seat} wins ({why})"),
}
assert EVENT_TEXT.keys() == EVENT_TYPES.keys(), "one text per Mubeyama event kind"

# The session's own events (`trainer.games.mubeyama_session.SESSION_EVENT_TYPES`): the
# reader's hold and release, the hint, a person's timed flip. Worded for a printed log;
# the table's log leaves them out (`event_line`): the screen shows them its own way.
SESSION_EVENT_TEXT: dict[str, tuple[str, str]] = {
    "mubeyama.reader_hold": ("読み手は #{no} の後で返されるのを待つ",
                             "the reader waits after #{no} until it is flipped"),
    "mubeyama.reader_release": ("#{no} が済んだ。読み進める", "#{no} is done; the reader reads on"),
    "mubeyama.hint": ("ヒント: {seat}が #{no} を持っている", "hint: {seat} holds #{no}"),
    # in seconds, as the table and Statistics show flips (a flip takes seconds, not ms)
    "mubeyama.reaction": ("{seat}の反応 {seconds} 秒（#{no}）", "{seat} flipped #{no} after {seconds} s"),
}


def seat_name(seat: int) -> str:
    """Seats count from 1 on the screen (席3 / Seat 3)."""
    return tr("mubeyama.seat", n=seat + 1)


def kami_words(no: int) -> str:
    """The opening phrase as players name a card: 吹くからに."""
    return poems.get(no).kami[0]


def line_words(line: str, index: int) -> str:
    """Okayama's line: 3段目 / row 3, 2列目 / column 2, 斜め / diagonal."""
    if line == "diagonal":
        return tr("mubeyama.diagonal")
    return tr("mubeyama.row" if line == "row" else "mubeyama.column", n=index)


def pay_words(why: str, no: int | None, row: int | None) -> str:
    """Why Mon was paid, with the card: 「3段目を仕上げた #12」."""
    text = tr(f"mubeyama.pay.{why}", row=tr("mubeyama.row", n=row) if row else "")
    return f"{text} #{no}" if no else text


def win_words(won: Won | None, log: tuple[MubeyamaEvent, ...] = ()) -> str:
    """Why the game ended (the line that won is taken from the *log*)."""
    if won is None:
        return ""
    where = ""
    if won.reason == LINE:
        line = next((e for e in reversed(log) if isinstance(e, LineCompleted)), None)
        where = line_words(line.line, line.index) if line else ""
    by = seat_name(won.by) if won.by is not None else ""
    return tr(f"mubeyama.won.{won.reason}", where=where, by=by)


def event_values(e: MubeyamaEvent, log: tuple[MubeyamaEvent, ...] = ()) -> dict[str, Any]:
    """The words an event's text needs beyond its raw fields."""
    values: dict[str, Any] = {}
    for name in ("seat", "to", "by"):
        seat = getattr(e, name, None)
        if isinstance(seat, int):
            values[name] = seat_name(seat)
    if isinstance(e, CardRead):
        values["kami"] = kami_words(e.no)
    elif isinstance(e, LineCompleted):
        values["where"] = line_words(e.line, e.index)
    elif isinstance(e, Paid):
        values["reason"] = pay_words(e.why, e.no, e.row)
    elif e.kind == "mubeyama.reaction":
        values["seconds"] = f"{e.fields()['ms'] / 1000:.1f}"
    elif e.kind == "mubeyama.row":
        values["where"] = tr("mubeyama.row", n=e.fields()["row"])
    elif isinstance(e, Won):
        values["why"] = win_words(e, log)
    return values


def event_line(e: MubeyamaEvent, log: tuple[MubeyamaEvent, ...] = ()) -> str | None:
    """One log line in the interface language (None: not shown, a public deal)."""
    if isinstance(e, Dealt) or e.kind in SESSION_EVENT_TEXT:
        return None
    return describe(e, **event_values(e, log))


def log_line(event: GameEvent, seat: int | None = None, log: tuple[GameEvent, ...] = ()) -> str | None:
    """The log's entry point (`trainer.text.events.log_lines`); *log*: the events before it."""
    return event_line(event, log)  # type: ignore[arg-type]


def ledger_line(pay: Payment) -> str:
    return tr("mubeyama.ledger.line", payer=seat_name(pay.payer), payee=seat_name(pay.payee),
              amount=pay.amount, reason=pay_words(pay.why, pay.no, pay.row))


# Every refusal of the engine and the session, by reason id (`REFUSALS` in
# `trainer.games.mubeyama_session`): (日本語, English). Placeholders are the refusal's
# fields; `error_text` words seats ({seat}, {seats}) and lists ({counts}) first.
REFUSAL_TEXT: dict[str, tuple[str, str]] = {
    "mubeyama.not_yours": ("その札は{seat}の番ではありません", "That is not {seat}'s card to move now"),
    "mubeyama.not_read": ("#{no} はまだ読まれていません", "#{no} has not been read"),
    "mubeyama.hidden_not_read": ("伏せ札はまだ読まれていません", "The hidden card has not been read"),
    "mubeyama.no_flip": ("返す札を待っていません", "No card is waiting to be flipped"),
    "mubeyama.reader_waits": ("読み手は札が返されるのを待っています。次の札はまだ読めません",
                              "The reader waits for the flip; no card may be read now"),
    "mubeyama.not_now": ("今はその操作はできません", "That is not allowed now"),
    "mubeyama.not_an_action": ("むべ山かるたの操作ではありません", "That is not a Mubeyama action"),
    "mubeyama.players": ("{ruleset}は{counts}人で遊びます（{players}人ではなく）",
                         "{ruleset} is played by {counts} players, not {players}"),
    "mubeyama.layouts": ("{players}人には{players}人分の並びが要ります（{got}人分）",
                         "{players} players need {players} layouts, got {got}"),
    "mubeyama.count": ("{seat}: {need}枚要ります（{got}枚）", "{seat} needs {need} torifuda, got {got}"),
    "mubeyama.not_a_card": ("{seat}: {value} は札番号（1〜100）ではありません",
                            "{seat}: {value} is not a poem number 1..100"),
    "mubeyama.not_a_kimariji": ("{seat}: 「{text}」は札番号でも決まり字でもありません",
                                "{seat}: “{text}” is neither a poem number nor a kimariji"),
    "mubeyama.twice": ("#{no} が二度並んでいます（{seats}）", "#{no} is laid out twice ({seats})"),
    "mubeyama.stake_rows": ("段の支払いは4つ要ります（{got}つ）", "the stakes need 4 row payments, got {got}"),
    "mubeyama.stake_amount": ("支払いは0以上の整数の文です（{value}）",
                              "a payment must be a whole number of Mon >= 0, got {value}"),
    "mubeyama.stake_not_highest": ("むべ山（22番）の支払いが最高額でなければなりません（{amount} 文は {top} 文以下）",
                                   "the #22 (mubeyama) payment must be the highest: {amount} Mon is not above {top}"),
}


def error_text(exc: BaseException, lang: str | None = None) -> str:
    """An engine or session refusal in the interface language (or *lang*), from its reason
    id and fields (never its English): seats by their names, lists joined."""
    fields: dict[str, Any] = dict(getattr(exc, "fields", {}) or {})

    def name(seat: int) -> str:
        return tr("mubeyama.seat", n=seat + 1) if lang is None else tr_in(lang, "mubeyama.seat", n=seat + 1)

    values: dict[str, Any] = {}
    if isinstance(fields.get("seat"), int):
        values["seat"] = name(fields["seat"])
    if "seats" in fields:
        sep = "・" if (lang or current()) == "ja" else " / "
        values["seats"] = sep.join(name(s) for s in fields["seats"])
    if "counts" in fields:
        values["counts"] = "・".join(map(str, fields["counts"]))
    return describe_refusal(exc, lang, **values)


add_messages(TEXT)
add_event_messages(EVENT_TEXT)
add_event_messages(SESSION_EVENT_TEXT)
add_refusal_messages(REFUSAL_TEXT)
