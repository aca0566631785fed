"""Text of the floor races' events (chirashi-dori, sakasama, Genpei, relay; `trainer.rules.chirashi`
and `trainer.games.chirashi_session`), Japanese and English; cards named by number and kimariji."""
from __future__ import annotations

from typing import Any, Sequence

import poems
from trainer.games.protocol import GameEvent
from trainer.text.events import Wording, add_event_messages, describe, seat_label, seat_words, word_fields
from trainer.text.messages import add_messages, tr

EVENT_TEXT: dict[str, tuple[str, str]] = {
    "chirashi.start": ("{players}人で開始、場に{cards}枚", "{players} players begin; {cards} cards on the floor"),
    "chirashi.phase": ("{phase}", "{phase}"),
    "chirashi.read": ("{number}枚目の読み", "Card {number} is read"),
    "chirashi.touches": ("{seat}の手 {count}回", "{seat} touched {count} times"),
    "chirashi.touch": ("{seat}が{card}に触れる", "{seat} touches {card}"),
    "chirashi.take": ("{seat}が{card}を取る（{reaction_ms} ms）", "{seat} takes {card} ({reaction_ms} ms)"),
    "chirashi.unclaimed": ("{card}は誰も取らず、脇へ", "Nobody took {card}; it is set aside"),
    "chirashi.fault": ("お手つき: {seat}が{card}に触れた", "Fault: {seat} touched {card}"),
    "chirashi.rest": ("{seat}は一回休み", "{seat} sits out the next card"),
    "chirashi.judged": ("{number}枚目 {poem}: {taker}", "Card {number}, {poem}: {taker}"),
    "chirashi.owed": ("{giver}が{side}から{cards}枚送る", "{giver} sends {cards} from {side}"),
    "chirashi.send": ("{seat}が{card}を{to}へ送る", "{seat} sends {card} to {to}"),
    "chirashi.turn": ("{team}は{seat}の番（{why}）", "{team}: {seat}'s turn ({why})"),
    "chirashi.over": ("終局: {scores}、勝ち {winners}", "Game over: {scores}; winner {winners}"),
    "chirashi.reaction": ("{seat}: {ms} ms", "{seat}: {ms} ms"),
    "chirashi.summary": ("{number}枚目 {poem}〔{kimariji}〕: {taker}{faults}",
                         "Card {number}, {poem} 〔{kimariji}〕: {taker}{faults}"),
    "chirashi.send_needed": ("{seat}は自陣の札を{cards}枚選んで送る",
                             "{seat}: choose {cards} of your side's cards to send"),
    "chirashi.hold": ("読手は待つ", "The reader waits"),
    "chirashi.release": ("読みを続ける", "The reading goes on"),
    "shimonoku.pass": ("{seat}が{card}を味方の{to}へ渡す", "{seat} passes {card} to team-mate {to}"),
    "shimonoku.leave": ("{seat}と向かいの{opposite}が抜ける", "{seat} and {opposite}, facing, leave the floor"),
    "shimonoku.owed": ("{seat}は{to}へ{cards}枚送る", "{seat} sends {cards} to {to}"),
}
add_event_messages(EVENT_TEXT)

add_messages({
    "chirashi.card": ("{no}番〔{kimariji}〕", "No. {no} 〔{kimariji}〕"),
    "chirashi.no": ("{no}番", "No. {no}"),
    "chirashi.nobody": ("取り手なし", "nobody took it"),
    "chirashi.took": ("{seat}が取る（{ms} ms）", "{seat} took it ({ms} ms)"),
    "chirashi.took_tie": ("{seat}が取る（同時、じゃんけん）", "{seat} took it (a tie, settled by a draw)"),
    "chirashi.faults": ("、お手つき {seats}", "; fault: {seats}"),
    "chirashi.team.0": ("源氏", "Genji"),
    "chirashi.team.1": ("平氏", "Heiji"),
    "chirashi.why.every": ("10枚ごとの交代", "the change every 10 cards"),
    "chirashi.why.taken": ("自陣から取られた", "a card was taken from its side"),
    "chirashi.phase.play": ("読み始め", "The reading begins"),
    "chirashi.phase.over": ("終わり", "The game is over"),
    "chirashi.phase.ready": ("用意", "Ready"),
    "chirashi.reason.floor_empty": ("場の札がなくなった", "the floor is empty"),
    "chirashi.reason.stack_empty": ("読み札がなくなった", "the reader's stack ran out"),
    "chirashi.reason.side_empty": ("自陣の札がなくなった", "a side is empty"),
})


def card_name(card: int) -> str:
    return tr("chirashi.card", no=card, kimariji=poems.get(card).kimariji)


def team_name(team: int) -> str:
    return tr(f"chirashi.team.{team}")


WORDING = Wording(seat=seat_label, card=card_name, seats=("seat", "giver", "opposite"), cards=("card", "poem"),
                  card_lists=())


def _values(event: GameEvent, names: Sequence[str] | None, reader: Any,
            log: tuple[GameEvent, ...] = ()) -> dict[str, Any]:
    f = event.fields()
    out = word_fields(event, WORDING, names, reader)

    def who(seat: int) -> str:      # the person's own seat marked "(you)", as word_fields does
        return seat_words(seat, WORDING, names, reader)

    if event.kind == "chirashi.owed":
        out["side"] = team_name(f["side"])
    if event.kind == "chirashi.send":
        out["to"] = who(f["to"]) if f["to_seat"] else team_name(f["to"])
    if event.kind in ("shimonoku.pass", "shimonoku.owed"):
        out["to"] = who(f["to"])
    if event.kind == "chirashi.turn":
        out["team"] = team_name(f["team"])
        out["why"] = tr(f"chirashi.why.{f['why']}")
    if event.kind == "chirashi.phase":
        out["phase"] = tr(f"chirashi.phase.{f['phase']}")
    if "taker" in f:
        out["taker"] = tr("chirashi.nobody") if f["taker"] is None else who(f["taker"])
    if event.kind == "chirashi.summary":
        out["poem"] = tr("chirashi.no", no=f["poem"])     # its kimariji as it stood follows
        if f["taker"] is not None:
            out["taker"] = tr("chirashi.took", seat=who(f["taker"]), ms=f["reaction_ms"])
        out["faults"] = (tr("chirashi.faults", seats=tr("log.list_separator").join(who(s) for s in f["faulted"]))
                         if f["faulted"] else "")
    if event.kind == "chirashi.reaction" and f["ms"] is None:
        out["ms"] = "—"
    if event.kind == "chirashi.over":
        out["scores"] = tr("log.list_separator").join(f"{who(s)} {n}" for s, n in enumerate(f["scores"]))
        out["winners"] = tr("log.list_separator").join(who(s) for s in f["winners"])
    return out


def describe_chirashi(event: GameEvent, names: Sequence[str] | None = None, reader: int | None = None,
                      log: tuple[GameEvent, ...] = ()) -> str:
    return describe(event, **_values(event, names, reader, log))


QUIET = ("chirashi.touch", "chirashi.touches", "chirashi.read", "chirashi.reaction", "chirashi.judged",
         "chirashi.take", "chirashi.hold", "chirashi.release", "chirashi.owed", "shimonoku.owed")
"""Kinds the log leaves out: the summary line of each read and the sends say it all."""


def log_line(event: GameEvent, seat: int | None = None, log: tuple[GameEvent, ...] = ()) -> str | None:
    """The log's entry point (`trainer.text.events.log_lines`): the summaries, faults, sends,
    turns and the end; the touch-by-touch detail stays out of the log."""
    if event.kind in QUIET:
        return None
    return describe_chirashi(event, reader=seat, log=log)


# -- refusals ----------------------------------------------------------------------------------
from trainer.text.refusals import add_refusal_messages  # noqa: E402

add_refusal_messages({
    "chirashi.over": ("この対戦は終わりました", "The game is over"),
    "chirashi.read_unsettled": ("前の札がまだ決まっていません", "The last card is not settled yet"),
    "chirashi.stack_empty": ("読み札はもうありません", "The reader's stack is empty"),
    "chirashi.mark_before_start": ("決まり字が読み始めより前にはなりません",
                                   "The kimariji mark cannot come before the reading starts"),
    "chirashi.read_out_of_order": ("前の札より前には読めません", "A card cannot be read before the one before it"),
    "chirashi.no_such_seat": ("その席はありません", "There is no such seat"),
    "chirashi.not_reading": ("いまは読まれている札がありません", "No card is being read now"),
    "chirashi.already_reported": ("この札の手はもう報告済みです", "This seat's touches are already in"),
    "chirashi.not_on_floor": ("その札は場にありません", "That card is not on the floor"),
    "chirashi.sitting_out": ("この札は休みか、番ではありません", "You sit out this card, or it is not your turn"),
    "chirashi.nothing_to_send": ("いまは送る札がありません", "You have no card to send now"),
    "chirashi.not_on_side": ("送るのは自陣の札です", "Send a card from your own side"),
    "chirashi.not_an_action": ("この遊びの操作ではありません", "Not an action of this game"),
    "chirashi.not_a_person": ("その席は人ではありません", "That seat is not a person's"),
    "chirashi.not_playing": ("対戦はまだ始まっていないか、終わりました", "The game has not begun or is over"),
    "chirashi.not_a_session_action": ("この卓の操作ではありません", "Not an action of this table"),
    "shimonoku.out_of_reach": ("取れるのは自分の札と向かいの相手の札だけです",
                               "You may take only your own cards and those of the opponent facing you"),
})
