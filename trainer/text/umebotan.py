"""Text of Ume Botan's (梅牡丹ルール) events, Japanese and English, one per event kind of
`trainer.rules.umebotan`, with the cards' and yaku's names.

Placeholders are the events' fields; `describe_umebotan(event)` passes readable
values over them (seat names, card names such as 松に鶴 / "Pine with Crane").
"""
from __future__ import annotations

from typing import Any, Sequence

from trainer.games.protocol import GameEvent
from trainer.rules.decks import MONTHS_JA, hana_name, month
from trainer.text.events import Wording, add_event_messages, describe, join, seat_label, seat_words, word_fields
from trainer.text.messages import add_messages, is_ja, tr

EVENT_TEXT: dict[str, tuple[str, str]] = {
    "umebotan.seats": ("席決め: 引いた札 {draws}、順番 {order}",
                       "Seating draw: {draws}; turn order {order}"),
    "umebotan.redraw": ("同じ月・同じ点の札があったので引き直し（{draws}）",
                        "A full tie in the seating draw ({draws}): everybody draws again"),
    "umebotan.round": ("第{round_no}回戦: 親は{player1}、配り手は{dealer}",
                       "Round {round_no}: Player 1 is {player1}, {dealer} deals"),
    "umebotan.misdeal": ("場に{month}の札が4枚: {dealer}が配り直す",
                         "Four {month} cards on the field: {dealer} deals again"),
    "umebotan.dealt": ("{seat}に{count}枚配られた {cards}", "{seat} is dealt {count} cards {cards}"),
    "umebotan.field": ("場札: {cards}（山札{draw_pile}枚）", "Field: {cards} ({draw_pile} in the draw pile)"),
    "umebotan.reserved": ("場に雷: 山札の一番上を伏せて重ね、{seat}が最初の番に取る",
                          "The Lightning is on the field: the top card is laid on it face-down "
                          "for {seat}'s first turn"),
    "umebotan.multiplier": ("場: {field_kind}（×{multiplier}）", "Field: {field_kind} (×{multiplier})"),
    "umebotan.drew": ("{seat}が山札から{card}をめくる", "{seat} turns over {card} from the draw pile"),
    "umebotan.laid": ("{seat}が{card}を場に出す", "{seat} lays {card} on the field"),
    "umebotan.captured": ("{seat}が{card}で{taken}を取る", "{seat} captures {taken} with {card}"),
    "umebotan.lightning_alone": ("{seat}: 柳以外の場札がないので雷だけを取る",
                                 "{seat}: no non-Willow card on the field, the Lightning is taken alone"),
    "umebotan.reserved_taken": ("{seat}が雷と伏せ札（{card}）を取る",
                                "{seat} takes the Lightning and the face-down card ({card})"),
    "umebotan.swept": ("雷を使った{seat}が残りの場札を取る: {cards}",
                       "{seat}, who used the Lightning, takes the cards left on the field: {cards}"),
    "umebotan.scored": ("第{round_no}回戦の点: {scores}（累計 {totals}）{yaku}",
                        "Round {round_no} scores: {scores} (totals {totals}){yaku}"),
    "umebotan.end": ("終局: 累計 {totals}、勝ち {winners}", "Game over: totals {totals}; winner {winners}"),
}

add_event_messages(EVENT_TEXT)

CARD_JA: dict[int, str] = {
    10: "松に鶴", 11: "松に赤短", 20: "梅に鶯", 21: "梅に赤短", 30: "桜に幕", 31: "桜に赤短",
    40: "藤に不如帰", 41: "藤に短冊", 50: "菖蒲に八橋", 51: "菖蒲に短冊", 60: "牡丹に蝶",
    61: "牡丹に青短", 70: "萩に猪", 71: "萩に短冊", 80: "芒に月", 81: "芒に雁", 90: "菊に盃",
    91: "菊に青短", 100: "紅葉に鹿", 101: "紅葉に青短", 110: "柳に小野道風", 111: "柳に燕",
    112: "柳に短冊", 113: "柳に雷", 120: "桐に鳳凰",
}
FIELD_JA = {"normal": "平場", "pine": "松場", "midterm": "半期場", "final": "締め場"}
FIELD_EN = {"normal": "normal field", "pine": "pine field", "midterm": "midterm field",
            "final": "final field"}
YAKU_JA = {"Five Brights": "五光", "Four Brights": "四光", "Rainy Four Brights": "雨四光",
           "Three Brights": "三光", "Spring": "松竹梅", "Poetry Ribbons": "裏だんこ",
           "Blue Ribbons": "青短", "Plain Ribbons": "赤短", "Boar, Deer, Butterflies": "猪鹿蝶",
           "Flower Viewing": "花見", "Moon Viewing": "月見", "Wisteria Row": "藤島",
           "Paulownia Row": "桐島", "Cards of the Month": "月役", "Dandruff": "頭垢"}


# the words the log's lines are made of, beyond the events' own texts
add_messages({"umebotan.log.yaku": (" 役: {made}", "; yaku: {made}")})


def _ja() -> bool:
    return is_ja()


def card_name(card: int) -> str:
    if _ja():
        return CARD_JA.get(card) or f"{MONTHS_JA[month(card) - 1]}のカス"
    return hana_name(card)


def seat_name(seat: int) -> str:
    return seat_label(seat)


def yaku_name(name: str) -> str:
    return YAKU_JA.get(name, name) if _ja() else name


WORDING = Wording(seat=seat_name, card=card_name, seats=("seat", "dealer", "player1"),
                  card_lists=("cards", "taken", "draws"))


def _values(event: GameEvent, names: Sequence[str] | None = None,
            reader: int | None = None) -> dict[str, Any]:
    f = event.fields()
    out = word_fields(event, WORDING, names, reader)

    def who(seat: int) -> str:
        return seat_words(seat, WORDING, names, reader)

    if "order" in f:
        out["order"] = " → ".join(who(s) for s in f["order"])
    if "month" in f:
        out["month"] = MONTHS_JA[f["month"] - 1] if _ja() else f"{f['month']}"
    if "field_kind" in f:
        out["field_kind"] = (FIELD_JA if _ja() else FIELD_EN)[f["field_kind"]]
    if event.kind == "umebotan.scored":
        made = [f"{who(s)} {join(yaku_name(y) for y in ys)}" for s, ys in enumerate(f["yaku"]) if ys]
        out["yaku"] = tr("umebotan.log.yaku", made="; ".join(made)) if made else ""
    if event.kind == "umebotan.dealt" and not f["cards"]:
        out["cards"] = ""
    return out


def describe_umebotan(event: GameEvent, names: Sequence[str] | None = None,
                      reader: int | None = None) -> str:
    """One line of the log in the interface language; *names*: the seats' names at the table."""
    return describe(event, **_values(event, names, reader))


def log_line(event: GameEvent, seat: int | None = None, log: tuple[GameEvent, ...] = ()) -> str:
    """The log's entry point (`trainer.text.events.log_lines`)."""
    return describe_umebotan(event, reader=seat)



# -- refusals (trainer.rules.umebotan.REFUSALS) -----------------------------------------------
import trainer.text.turn  # noqa: E402,F401  (the table's turn.* refusals)
from trainer.text.refusals import add_refusal_messages  # noqa: E402

add_refusal_messages({
    "umebotan.not_dealing": ("札は回と回の間にだけ配られます", "Cards are dealt only between rounds"),
    "umebotan.not_in_hand": ("その札は手札にありません", "That card is not in your hand"),
    "umebotan.take_first": ("めくった札で取る場札を選んでください",
                            "Choose the field card the drawn card captures"),
    "umebotan.play_first": ("先に手札から1枚出してください", "Play a card from your hand first"),
    "umebotan.choose_target": ("同じ月の場札が2枚あります: 取る札を選んでください",
                               "Two cards of its month are on the field: choose the one to capture"),
    "umebotan.not_a_match": ("その場札は取れません", "That field card cannot be captured with it"),
    # the score calculator's piles
    "umebotan.pile_extra": ("{n} 人目の山は使えません（{players} 人の勝負）",
                            "Pile {n} cannot be used: this is a {players}-player game"),
    "umebotan.pile_not_card": ("{pile} 人目の山: {card} は札の番号ではありません",
                               "Pile {pile}: {card} is not a card number"),
    "umebotan.pile_twice": ("{card} が2つ以上の山に入っています（{piles}）",
                            "{card} is in more than one pile ({piles})"),
    "umebotan.pile_missing": ("どの山にも入っていない札（{n} 枚）: {cards}", "Cards in no pile ({n}): {cards}"),
})
