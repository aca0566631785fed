"""Text of Yomi's (読み) events, Japanese and English, one per event kind of `trainer.rules.yomi`.

Placeholders are the events' fields; a table may pass readable values over
them (``describe(event, card="Maid of Cups", seat="Seat 2")``).
"""
from __future__ import annotations

from trainer.ui.event_text import add_event_messages

EVENT_TEXT: dict[str, tuple[str, str]] = {
    "yomi.deal": ("第{round_no}局: 親は席{dealer}、{hand_size}枚ずつ配る",
                  "Round {round_no}: seat {dealer} deals {hand_size} cards each"),
    "yomi.hand": ("席{seat}に手札が配られた", "Seat {seat} is dealt a hand"),
    "yomi.teyaku": ("席{seat}の手役: {name}", "Seat {seat} holds the teyaku {name}"),
    "yomi.lead": ("席{seat}が{card}を出して始める", "Seat {seat} starts the pile with {card}"),
    "yomi.discard": ("席{seat}が{card}を出す（残り{left}枚）", "Seat {seat} discards {card} ({left} left)"),
    "yomi.pass": ("席{seat}は出せない（{needed}がない）", "Seat {seat} passes (no {needed})"),
    "yomi.blocked": ("誰も続けられない: 席{seat}が好きな札で始め直す",
                     "Nobody can follow: seat {seat} starts afresh with any card"),
    "yomi.won": ("席{seat}が上がり（第{round_no}局、{points}点）",
                 "Seat {seat} is out and wins round {round_no} ({points} points)"),
    "yomi.end": ("終局: 得点 {scores}", "Game over: scores {scores}"),
}

add_event_messages(EVENT_TEXT)
