"""Text of bōzu-mekuri's (坊主めくり) events, Japanese and English, one per event kind of
`trainer.rules.bozu`, with the cards named by their poet and the kind drawn on them."""
from __future__ import annotations

from typing import Any, Sequence

from poems.poets import poets
from trainer.games.protocol import GameEvent
from trainer.rules.bozu import BozuCard
from trainer.text.events import Wording, add_event_messages, describe, seat_label, word_fields
from trainer.text.messages import add_messages, tr

EVENT_TEXT: dict[str, tuple[str, str]] = {
    "bozu.start": ("坊主めくり開始: {first}から、山札 {stacks}", "Bōzu-mekuri begins with {first}; stacks {stacks}"),
    "bozu.draw": ("{seat}が{card}をめくる（{effect}）", "{seat} draws {card} ({effect})"),
    "bozu.keep": ("{seat}は手札にする（{hand}枚）", "{seat} keeps it ({hand} in hand)"),
    "bozu.to_pot": ("坊主! {seat}の{cards}枚が場へ（場に{pot}枚）",
                    "A monk! {seat} gives {cards} to the pot ({pot} in the pot)"),
    "bozu.take_pot": ("姫! {seat}が場の{cards}枚をもらう（{hand}枚）",
                      "A woman! {seat} takes the pot's {cards} ({hand} in hand)"),
    "bozu.disqualified": ("蝉丸! {seat}は失格、{cards}枚が場へ（場に{pot}枚）",
                          "Semimaru! {seat} is out; the pot gets {cards} ({pot} in the pot)"),
    "bozu.all_to_pot": ("蝉丸! 全員の手札{cards}枚が場へ（場に{pot}枚）",
                        "Semimaru! The pot gets everybody's hands, {cards} ({pot} in the pot)"),
    "bozu.take_hands": ("天皇! {seat}が全員の手札{cards}枚をもらう（{hand}枚）",
                        "An emperor! {seat} takes everybody's hands, {cards} ({hand} in hand)"),
    "bozu.draw_again": ("{seat}はもう{draws}枚めくる", "{seat} draws {draws} more"),
    "bozu.pot_end": ("山札がなくなった: 場の{cards}枚は{seat}", "The stack is empty: {seat} ({cards})"),
    "bozu.end": ("終局: 枚数 {scores}、勝ち {winners}", "Game over: cards {scores}; winner {winners}"),
}
add_event_messages(EVENT_TEXT)

KIND_TEXT = {"man": ("殿", "a man"), "monk": ("坊主", "a monk"), "woman": ("姫", "a woman"),
             "emperor": ("天皇", "an emperor"), "empress": ("女帝", "an empress"),
             "semimaru": ("蝉丸", "Semimaru")}
add_messages({f"bozu.kind.{k}": v for k, v in KIND_TEXT.items()})
add_messages({
    "bozu.card": ("{no}番 {poet}", "No. {no} {poet}"),
    "bozu.log.pot_stays": ("場に残る", "the pot stays on the table"),
    "bozu.log.pot_to": ("{seat}のもの", "{seat} takes the pot"),
    # a number of cards: 枚 is in each Japanese line; English says card or cards
    "bozu.log.cards": ("{n}", "{n} cards"),
    "bozu.log.one_card": ("{n}", "{n} card"),
    "bozu.log.stack": ("{n}枚", "{n} cards"),
    "bozu.log.take_empty_pot": ("姫! {seat}は手札にする（場は空、{hand}枚）",
                                "A woman! {seat} keeps her; the pot is empty ({hand} in hand)"),
})


def card_name(card: BozuCard | None) -> str:
    if card is None:
        return tr("log.face_down_card")
    return tr("bozu.card", no=card.no, poet=poets()[card.no].name)


def kind_name(kind: str) -> str:
    return tr(f"bozu.kind.{kind}")


WORDING = Wording(seat=seat_label, card=card_name, seats=("seat", "first"), card_lists=())  # `cards` is a count


def _values(event: GameEvent, names: Sequence[str] | None = None,
            reader: int | None = None) -> dict[str, Any]:
    f = event.fields()
    out = word_fields(event, WORDING, names, reader)
    if "effect" in f:
        out["effect"] = kind_name(f["effect"])
    if isinstance(f.get("cards"), int):           # "1 card", not "1 cards"
        out["cards"] = tr("bozu.log.one_card" if f["cards"] == 1 else "bozu.log.cards", n=f["cards"])
    if event.kind == "bozu.start":
        out["stacks"] = tr("log.list_separator").join(tr("bozu.log.stack", n=n) for n in f["stacks"])
    if event.kind == "bozu.pot_end":
        out["seat"] = (tr("bozu.log.pot_stays") if f["seat"] < 0
                       else tr("bozu.log.pot_to", seat=out["seat"]))
    return out


def log_line(event: GameEvent, seat: int | None = None, log: tuple[GameEvent, ...] = ()) -> str:
    """The log's entry point (`trainer.text.events.log_lines`)."""
    return describe_bozu(event, reader=seat)


def describe_bozu(event: GameEvent, names: Sequence[str] | None = None, reader: int | None = None) -> str:
    """One line of the log in the interface language; *names*: the seats' names at the table."""
    values = _values(event, names, reader)
    if event.kind == "bozu.take_pot" and not event.fields()["cards"]:
        return tr("bozu.log.take_empty_pot", seat=values["seat"], hand=event.fields()["hand"])
    return describe(event, **values)


# -- refusals (trainer.rules.bozu.REFUSALS) ---------------------------------------------------
import trainer.text.turn  # noqa: E402,F401  (the table's turn.* refusals)
from trainer.text.refusals import add_refusal_messages  # noqa: E402

add_refusal_messages({
    "bozu.no_such_stack": ("{stack}番目の山札はありません", "There is no stack {stack}"),
    "bozu.stack_empty": ("{stack}番目の山札はもうありません", "Stack {stack} is empty"),
})
