"""Text of Unsun karuta's events, Japanese and English (registered with `trainer.text.events`).

Engine events carry cards, seats and teams as values; `describe_unsun`
turns them into names (パオのロバイ / "Pao Robai", 席3 / "seat 3") before
the message is filled, and writes a face-down card the reader may not see
as 伏せ札 / "a face-down card".
"""
from __future__ import annotations

from typing import Any

from trainer.games.protocol import GameEvent
from trainer.rules.unsun import COURT_KANA, SUIT_KANA, TENKA, Card
from trainer.text.events import Wording, add_event_messages, describe, join, seat_label, word_fields
from trainer.text.messages import add_messages, is_ja, tr

COURT_ROMAJI = {10: "Kaba", 11: "Rei", 12: "Robai", 13: "Sōta", 14: "Un", 15: "Sun"}
SUIT_ROMAJI = {"pao": "Pao", "isu": "Isu", "kotsu": "Kotsu", "ori": "Ori", "guru": "Guru"}

# kind: (日本語, English)
EVENT_TEXT: dict[str, tuple[str, str]] = {
    "unsun.deal": ("第{deal}局: 親は{dealer}。オキエは{okie}、切り札は{trump}",
                   "Deal {deal}: {dealer} deals. The Okié is {okie}; {trump} is trump"),
    "unsun.hand": ("{seat}の手札: {cards}", "{seat}'s hand: {cards}"),
    "unsun.robau": ("{seat}がロバう", "{seat} holds the Robai and takes the Okié (robau)"),
    "unsun.hidden_robai": ("{seat}がロバイを隠した（隠しロバイ: 役は5点）",
                           "{seat} hid the Robai (hidden Robai: every yaku is worth 5)"),
    "unsun.no_robai": ("切り札のロバイは誰の手にもない（親は{dealer}）",
                       "Nobody holds the trump Robai ({dealer} deals)"),
    "unsun.okie_taken": ("{seat}がオキエ（{card}）を取る", "{seat} takes the Okié ({card})"),
    "unsun.discard": ("{seat}が{card}を伏せて捨てる", "{seat} discards {card} face-down"),
    "unsun.play": ("{seat}: {card}{how}", "{seat}: {card}{how}"),
    "unsun.meri": ("{seat}が{card}を打ち出して「メリ！」", "{seat} leads {card}: \"Meri!\""),
    "unsun.monchi": ("第{trick}手からモンチ（台札に付ける）",
                     "Monchi from trick {trick}: follow the led suit or play trump"),
    "unsun.trick": ("第{trick}手は{seat}（{team}組）が{card}で取る{revealed}",
                    "Trick {trick} goes to {seat} (team {team}) with {card}{revealed}"),
    "unsun.yaku": ("役: {seat}の{card}が{over_seat}の{over_card}に勝つ（{team}組 {points}点）",
                   "Yaku: {seat}'s {card} over {over_seat}'s {over_card} (team {team}, {points} points)"),
    "unsun.yaku_void": ("役なし: {seat}の{card}より上の札はもう出ている（{over_seat}の{over_card}）",
                        "No yaku: every card above {seat}'s {card} was already played "
                        "(over {over_seat}'s {over_card})"),
    "unsun.deal_scored": ("第{deal}局: 手数 A {tricks_a}・B {tricks_b}、役 A {yaku_a}・B {yaku_b} → "
                          "A {points_a}点・B {points_b}点（計 A {total_a}・B {total_b}）",
                          "Deal {deal}: tricks A {tricks_a}, B {tricks_b}; yaku A {yaku_a}, "
                          "B {yaku_b} → A {points_a}, B {points_b} (totals A {total_a}, B {total_b})"),
    "unsun.game_over": ("終局: A {total_a}点・B {total_b}点。{result}",
                        "Game over: A {total_a}, B {total_b}. {result}"),
}
add_event_messages(EVENT_TEXT)

# the words the log's lines are made of, beyond the events' own texts
add_messages({
    "unsun.log.someone": ("誰か", "someone"),
    "unsun.log.a_card": ("札1枚", "a card"),
    "unsun.log.face_down": ("（伏せ）", " (face-down)"),
    "unsun.log.revealed": ("（伏せ札: {shown}）", " (face-down: {shown})"),
    "unsun.log.tie": ("引き分け", "A tie"),
    "unsun.log.won": ("{team}組の勝ち", "Team {team} wins"),
})


def _ja() -> bool:
    return is_ja()


def card_name(card: Card | None) -> str:
    """パオのロバイ / "Pao Robai"; テンカ; a face-down card as 伏せ札."""
    if card is None:
        return tr("log.face_down_card")
    if _ja():
        return card.kana()
    if card == TENKA:
        return "Tenka (Pao Sōta)"
    return f"{SUIT_ROMAJI[card.suit]} {COURT_ROMAJI.get(card.rank, str(card.rank))}"


def suit_name(suit: str) -> str:
    return SUIT_KANA[suit] if _ja() else SUIT_ROMAJI[suit]


def seat_name(seat: int | None) -> str:
    return tr("unsun.log.someone") if seat is None else seat_label(seat)


def rank_name(rank: int) -> str:
    return COURT_KANA.get(rank, str(rank)) if _ja() else COURT_ROMAJI.get(rank, str(rank))


WORDING = Wording(seat=seat_name, card=card_name, seats=("seat", "dealer", "over_seat"),
                  cards=("card", "okie", "over_card"))


def _values(event: GameEvent, reader: int | None = None) -> dict[str, Any]:
    f = event.fields()
    out = word_fields(event, WORDING, reader=reader)
    if event.kind == "unsun.discard" and f["card"] is None:
        out["card"] = tr("unsun.log.a_card")
    if "trump" in f:
        out["trump"] = suit_name(f["trump"])
    if "team" in f:
        out["team"] = "AB"[f["team"]]
    for key in ("deal", "trick"):
        if key in f:
            out[key] = f[key] + 1  # people count deals and tricks from 1
    if "face_down" in f:
        # a card the reader may not see is already worded "face-down": say it once
        out["how"] = tr("unsun.log.face_down") if f["face_down"] and f.get("card") else ""
    if "revealed" in f:
        shown = [f"{seat_name(s)} {card_name(c)}" for s, c in f["revealed"]]
        out["revealed"] = tr("unsun.log.revealed", shown=join(shown)) if shown else ""
    if "winner" in f:
        w = f["winner"]
        out["result"] = tr("unsun.log.tie") if w is None else tr("unsun.log.won", team="AB"[w])
    return out


def describe_unsun(event: GameEvent, reader: int | None = None) -> str:
    """One line of the log in the interface language (`reader`'s seat named "(you)")."""
    return describe(event, **_values(event, reader))


def log_line(event: GameEvent, seat: int | None = None, log: tuple[GameEvent, ...] = ()) -> str:
    """The log's entry point (`trainer.text.events.log_lines`)."""
    return describe_unsun(event, seat)


# -- refusals (trainer.rules.unsun.REFUSALS) --------------------------------------------------
import trainer.text.turn  # noqa: E402,F401  (the table's turn.* refusals)
from trainer.text.refusals import add_refusal_messages  # noqa: E402

add_refusal_messages({
    "unsun.not_dealing": ("札は局と局の間にだけ配られます", "Cards are dealt only between deals"),
    "unsun.choose_robai": ("先にロバうか隠すかを選んでください", "First choose: robau or hide the Robai"),
    "unsun.no_robai_choice": ("いまはロバイの選択はありません", "There is no Robai choice to make now"),
    "unsun.discard_first": ("オキエを取った人は先に1枚伏せて捨てます",
                            "Whoever took the Okié first discards a card face-down"),
    "unsun.not_in_hand": ("その札は手札にありません", "That card is not in your hand"),
    "unsun.first_lead_trump": ("最初の手は切り札で打ち出せません（手札がすべて切り札なら別）",
                               "The first trick may not be led with a trump (unless every card you hold is trump)"),
    "unsun.meri_trump": ("メリの手: 切り札を持っていれば切り札を出します",
                         "Meri trick: while you hold trump you must play trump"),
    "unsun.trump_led": ("切り札が打ち出されました: 切り札を持っていれば切り札を出します",
                        "Trump was led: while you hold trump you must play trump"),
    "unsun.must_follow": ("モンチ: 台札のスートを持っていれば、そのスートか切り札を出します",
                          "Monchi: you hold the led suit, so play that suit or a trump"),
})
