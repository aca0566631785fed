"""Text of Yomi's (読み) events, Japanese and English, one per event kind of `trainer.rules.yomi`,
with the cards' names.

Placeholders are the events' fields; `describe_yomi(event)` passes readable
values over them (seat names, card names such as コップの5 / "5 of Cups").
"""
from __future__ import annotations

from typing import Any, Sequence

from trainer.games.protocol import GameEvent
from trainer.rules.decks import MekuriCard
from trainer.text.events import Wording, add_event_messages, describe, seat_label, word_fields
from trainer.text.messages import add_messages, is_ja, tr

EVENT_TEXT: dict[str, tuple[str, str]] = {
    "yomi.deal": ("第{round_no}局: 親は{dealer}、{hand_size}枚ずつ配る{undealt}",
                  "Round {round_no}: {dealer} deals {hand_size} cards each{undealt}"),
    "yomi.hand": ("{seat}に手札が配られた {cards}", "{seat} is dealt a hand {cards}"),
    "yomi.teyaku": ("{seat}の手役: {name}", "{seat} holds the teyaku {name}"),
    "yomi.lead": ("{seat}が{card}を出して始める", "{seat} starts the pile with {card}"),
    "yomi.discard": ("{seat}が{card}を出す（残り{left}枚）", "{seat} discards {card} ({left} left)"),
    "yomi.pass": ("{seat}は出せない（{needed}がない）", "{seat} passes (no {needed})"),
    "yomi.blocked": ("誰も続けられない: {seat}が好きな札で始め直す",
                     "Nobody can follow: {seat} starts afresh with any card"),
    "yomi.won": ("{seat}が上がり（第{round_no}局、{points}点）{undealt}",
                 "{seat} is out and wins round {round_no} ({points} points){undealt}"),
    "yomi.end": ("終局: 得点 {scores}、勝ち {winners}", "Game over: scores {scores}; winner {winners}"),
}

add_event_messages(EVENT_TEXT)

# the words the log's lines are made of, beyond the events' own texts
add_messages({
    "yomi.log.after_wild": ("続けられる札", "card to follow the wild card with"),
    "yomi.log.undealt": ("、1枚を伏せて置く", ", one card face-down"),
    "yomi.log.undealt_was": (" 伏せ札は{card}", "; the face-down card was {card}"),
})

SUIT_JA = {"clubs": "ハウ", "swords": "イス", "cups": "コップ", "coins": "オウル"}
RANK_JA = {1: "ピン", 10: "ソウタ", 11: "ウマ", 12: "キリ"}
TEYAKU = {"sanko": ("三光（団十郎）", "Sanko (Danjūrō)")}
add_messages({f"yomi.teyaku.{name}": texts for name, texts in TEYAKU.items()})


def _ja() -> bool:
    return is_ja()


def card_name(card: MekuriCard | None) -> str:
    if card is None:
        return tr("log.face_down_card")
    if card.rank == 0:
        return {"oni": "鬼札", "shiro": "白札"}[card.suit] if _ja() else str(card)
    if _ja():
        return f"{SUIT_JA[card.suit]}の{RANK_JA.get(card.rank, str(card.rank))}"
    return str(card)


def seat_name(seat: int) -> str:
    return seat_label(seat)


WORDING = Wording(seat=seat_name, card=card_name, seats=("seat", "dealer"))


def _values(event: GameEvent, names: Sequence[str] | None = None,
            reader: int | None = None) -> dict[str, Any]:
    f = event.fields()
    out = word_fields(event, WORDING, names, reader)
    if "needed" in f and f["needed"] == 0:
        out["needed"] = tr("yomi.log.after_wild")
    if "name" in f:
        out["name"] = tr(f"yomi.teyaku.{f['name']}") if f["name"] in TEYAKU else f["name"]
    if event.kind == "yomi.deal":
        out["undealt"] = tr("yomi.log.undealt") if f["undealt"] else ""
    if event.kind == "yomi.won":
        out["undealt"] = tr("yomi.log.undealt_was", card=card_name(f["undealt"])) if f["undealt"] else ""
    return out


def describe_yomi(event: GameEvent, names: Sequence[str] | None = None,
                  reader: int | None = None) -> str:
    """One line of the log in the interface language; *names*: the seats' names at the table."""
    return describe(event, **_values(event, names, reader))


def log_line(event: GameEvent, seat: int | None = None, log: tuple[GameEvent, ...] = ()) -> str:
    """The log's entry point (`trainer.text.events.log_lines`)."""
    return describe_yomi(event, reader=seat)



# -- refusals (trainer.rules.yomi.REFUSALS) ---------------------------------------------------
import trainer.text.turn  # noqa: E402,F401  (the table's turn.* refusals)
from trainer.text.refusals import add_refusal_messages  # noqa: E402

add_refusal_messages({
    "yomi.not_dealing": ("札は回と回の間にだけ配られます", "Cards are dealt only between rounds"),
    "yomi.not_in_hand": ("その札は手札にありません", "That card is not in your hand"),
    "yomi.must_lead": ("新しい列を始めます: どの札でも1枚出してください",
                       "Start a new sequence: lead any one card"),
    "yomi.wrong_number": ("出せるのは {needed} の札（または鬼札）です",
                          "Only a {needed} (or the wild card) can be discarded now"),
    "yomi.must_discard": ("{needed} の札を持っているのでパスできません",
                          "You hold a {needed}, so you cannot pass"),
})
