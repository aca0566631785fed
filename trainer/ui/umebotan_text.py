"""Text of Ume Botan's (梅牡丹ルール) events, Japanese and English, one per event kind of
`trainer.rules.umebotan`.

Placeholders are the events' fields; a table may pass readable values over
them (``describe(event, card="Pine with Crane")``).
"""
from __future__ import annotations

from trainer.ui.event_text import add_event_messages

EVENT_TEXT: dict[str, tuple[str, str]] = {
    "umebotan.seats": ("席決め: 引いた札 {draws}、順番 {order}",
                       "Seating draw: cards {draws}, turn order {order}"),
    "umebotan.redraw": ("同じ月・同じ点の札があったので引き直し（{draws}）",
                        "A full tie in the seating draw ({draws}): everybody draws again"),
    "umebotan.round": ("第{round_no}回戦: 親は席{player1}、配り手は席{dealer}",
                       "Round {round_no}: Player 1 is seat {player1}, seat {dealer} deals"),
    "umebotan.misdeal": ("場に{month}月の札が4枚: 席{dealer}が配り直す",
                         "Four cards of month {month} on the field: seat {dealer} deals again"),
    "umebotan.dealt": ("席{seat}に{count}枚配られた", "Seat {seat} is dealt {count} cards"),
    "umebotan.field": ("場札 {cards}（山札{draw_pile}枚）", "Field: {cards} ({draw_pile} in the draw pile)"),
    "umebotan.reserved": ("場に雷: 山札の一番上を伏せて重ね、席{seat}が最初の番に取る",
                          "The Lightning is on the field: the top card is laid on it face-down "
                          "for seat {seat}'s first turn"),
    "umebotan.multiplier": ("場: {field_kind}（×{multiplier}）", "Field: {field_kind} (×{multiplier})"),
    "umebotan.drew": ("席{seat}が山札から{card}をめくる", "Seat {seat} turns over {card} from the draw pile"),
    "umebotan.laid": ("席{seat}が{card}を場に出す", "Seat {seat} lays {card} on the field"),
    "umebotan.captured": ("席{seat}が{card}で{taken}を取る", "Seat {seat} captures {taken} with {card}"),
    "umebotan.lightning_alone": ("席{seat}: 柳以外の場札がないので雷だけを取る",
                                 "Seat {seat}: no non-Willow card on the field, the Lightning is taken alone"),
    "umebotan.reserved_taken": ("席{seat}が雷と伏せ札（{card}）を取る",
                                "Seat {seat} takes the Lightning and the face-down card ({card})"),
    "umebotan.swept": ("雷を使った席{seat}が残りの場札 {cards} を取る",
                       "Seat {seat}, who used the Lightning, takes the cards left on the field: {cards}"),
    "umebotan.scored": ("第{round_no}回戦の点: {scores}（累計 {totals}）",
                        "Round {round_no} scores: {scores} (totals {totals})"),
    "umebotan.end": ("終局: 累計 {totals}", "Game over: totals {totals}"),
}

add_event_messages(EVENT_TEXT)
