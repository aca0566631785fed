"""Texts of the kyōgi match's events (engine and session), one per kind and language.

Placeholders are the event's fields (`trainer.text.events`); seats are 0 (the
person) and 1 (the CPU) in the app. `tests/test_kyogi_session.py` renders every
kind in both languages.
"""
from __future__ import annotations

from trainer.games.protocol import GameEvent
from trainer.text.events import add_event_messages, describe

# id: (日本語, English), by event kind
KYOGI_EVENT_TEXTS: dict[str, tuple[str, str]] = {
    "kyogi.read": ("{number} 枚目の読み", "Read {number}"),
    "kyogi.touches": ("席 {seat}：{count} 回触れた", "Seat {seat}: {count} touches"),
    "kyogi.take": ("席 {seat} が {card} を取った（{reaction_ms} ms）",
                   "Seat {seat} took {card} ({reaction_ms} ms)"),
    "kyogi.unclaimed": ("{card} は誰も取らず、陣から外す", "Nobody took {card}: it is put aside"),
    "kyogi.fault": ("席 {seat} のお手つき（{fault}、{penalty} 枚）",
                    "Seat {seat} faulted ({fault}, {penalty} card(s))"),
    "kyogi.cancel": ("お手つきが相殺（{owed_by_0} 対 {owed_by_1}）",
                     "Penalties cancel out ({owed_by_0} against {owed_by_1})"),
    "kyogi.judged": ("{poem} 番の判定", "Card {poem} judged"),
    "kyogi.owed": ("席 {giver} が {cards} 枚送る", "Seat {giver} sends {cards} card(s)"),
    "kyogi.send": ("席 {seat} が {card} を送った", "Seat {seat} sent {card}"),
    "kyogi.move": ("席 {seat} が {card} を動かした", "Seat {seat} moved {card}"),
    "kyogi.arrange": ("席 {seat} が並べ替えた", "Seat {seat} rearranged their side"),
    "kyogi.over": ("席 {winner} の勝ち（{left} 枚差）", "Seat {winner} won (by {left})"),
    "kyogi.phase": ("場面：{phase}", "Phase: {phase}"),
    "kyogi.race": ("{number} 枚目：決まり字 {kimariji}", "Read {number}: kimariji {kimariji}"),
    "kyogi.touch": ("席 {seat} が {card} に触れた", "Seat {seat} touched {card}"),
    "kyogi.early": ("読み前に {card} に触れた（お手つき）",
                    "Touched {card} before the reading (a fault)"),
    "kyogi.reaction": ("{ms} ms", "{ms} ms"),
    "kyogi.record": ("統計に記録：{record.answer}", "Kept for the statistics: {record.answer}"),
    "kyogi.okuri_needed": ("送り札を選んでください（敵陣へ送る札をクリック、{cards} 枚）",
                           "Choose the okurifuda: click one of your cards to send across ({cards})"),
    "kyogi.hold": ("読みを止めます", "The reader holds"),
    "kyogi.release": ("読みを再開します", "The reader goes on"),
    "kyogi.rearrange": ("待った：自陣の札をドラッグして並べ替えられます（W で再開）",
                        "Wait: drag your own cards to rearrange them (W to go on)"),
}
add_event_messages(KYOGI_EVENT_TEXTS)


def log_line(event: GameEvent, seat: int | None = None, log: tuple[GameEvent, ...] = ()) -> str:
    """The log's entry point (`trainer.text.events.log_lines`): the texts name seats by number."""
    return describe(event)
