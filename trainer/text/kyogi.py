"""Texts of the kyōgi match: its events (engine and session), one per kind and language,
its refusals by reason id, and the Match tab's own words.

Placeholders are the event's fields (`trainer.text.events`); seats are 0 (the
person) and 1 (the CPU) in the app. `tests/test_ui_match.py` renders every
kind in both languages; `tests/test_kyogi_session_protocol.py` every refusal.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from trainer.text.events import add_event_messages, describe
from trainer.text.messages import add_messages, tr
from trainer.text.refusals import add_refusal_messages

if TYPE_CHECKING:
    from trainer.games.kyogi_session import ReadSummary
    from trainer.games.protocol import GameEvent

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
    "kyogi.swings": ("素振りができます（残り{seconds:.0f}秒）",
                     "Practice swings allowed (last {seconds:.0f} s)"),
    "kyogi.memorised": ("暗記時間が終わりました", "Memorisation is over"),
    "kyogi.summary": ("{number} 枚目：決まり字 {kimariji}（{poem}）", "Read {number}: kimariji {kimariji} ({poem})"),
}
add_event_messages(KYOGI_EVENT_TEXTS)

# reason id: (日本語, English); placeholders are the refusal's fields
KYOGI_REFUSALS: dict[str, tuple[str, str]] = {
    "kyogi.over": ("試合は終わっています", "The match is over"),
    "kyogi.read_unsettled": ("前の札の判定が済むまで次は読めません",
                             "The reader waits until the last read is settled"),
    "kyogi.stack_empty": ("読む札が残っていません", "The reader's stack is empty"),
    "kyogi.mark_before_start": ("決まり字の位置が読み始めより前になっています",
                                "The kimariji mark cannot come before the reading starts"),
    "kyogi.read_out_of_order": ("前の札より先に読み始めることはできません",
                                "A read cannot start before the one before it"),
    "kyogi.no_such_seat": ("席は 0 か 1 です（{seat}）", "The seat is 0 or 1, not {seat}"),
    "kyogi.not_reading": ("札が読まれている間だけ払えます", "Touches count only while a card is being read"),
    "kyogi.already_reported": ("席 {seat} はこの札の払いをもう報告しています",
                               "Seat {seat} has already reported its touches for this read"),
    "kyogi.not_on_floor": ("{card} 番の札は場にありません", "Card {card} is not on the floor"),
    "kyogi.nothing_to_send": ("今は送る札がありません", "There is no card to send now"),
    "kyogi.not_on_side": ("{card} 番の札は自陣にありません。自陣の札を選んでください",
                          "Card {card} is not on your side: choose one of your own cards"),
    "kyogi.layout": ("その並べ方はできません（1 段に置けるのは限られた枚数です）",
                     "That layout is not possible (a row holds only so many cards)"),
    "kyogi.between_reads": ("札を並べ替えられるのは読みと読みの間だけです",
                            "Cards are rearranged between reads only"),
    "kyogi.wrong_cards": ("並びには自陣の札をちょうどすべて入れてください",
                          "An arrangement must hold exactly the cards of your side"),
    "kyogi.not_an_action": ("競技かるたの操作ではありません", "Not a kyogi action"),
    "kyogi.not_a_person": ("この席は人の席ではありません", "That seat is not a person's"),
    "kyogi.not_playing": ("試合中ではありません", "The match is not being played"),
    "kyogi.setup_over": ("試合はもう始まっています", "The match has already begun"),
    "kyogi.not_a_session_action": ("対戦の操作ではありません", "Not an action of the match"),
}
add_refusal_messages(KYOGI_REFUSALS)

# id: (日本語, English): the Match tab's own words
MATCH_MESSAGES: dict[str, tuple[str, str]] = {
    "match.kimariji_now": ("決まり字 {now}", "kimariji {now}"),
    "match.kimariji_was": ("決まり字 {now}（元は {was}）", "kimariji {now} (was {was})"),
    "match.kimariji_short": ("{now}（元 {was}）", "{now} (was {was})"),
    # Where the reader holds (ReadingDriver.hold): see reader.held.*
    "match.waiting.shimo": ("待った：この札の下の句の前で読みを止めます（W で再開）",
                            "Wait: the reader holds before this card's shimo-no-ku (W to go on)"),
    "match.waiting.kami": ("待った：次の上の句の前で読みを止めます（W で再開）",
                           "Wait: the reader holds before the next kami-no-ku (W to go on)"),
    "match.waiting.card": ("待った：次の札の前で読みを止めます（W で再開）",
                           "Wait: the reader holds before the next card (W to go on)"),
    "match.stats_failed": ("統計に記録できませんでした（試合は続きます）: {error}",
                           "Could not save to the statistics (the match goes on): {error}"),
    "match.abandon_ask": ("この試合をやめますか？", "Abandon this match?"),
    "match.abandon_detail": ("ここまでの結果を表示します。", "Its result so far is shown."),
    "match.quit_ask": ("試合の途中です。終了しますか？", "Quit with a match in progress?"),
    "match.quit_detail": ("試合はここで終わります（ここまでの札は統計に記録済みです）。",
                          "The match ends here (the reads so far are already in the statistics)."),
    "match.abandoned": ("途中で終了（残り あなた {mine} 枚・相手 {theirs} 枚）",
                        "Abandoned (cards left: you {mine}, opponent {theirs})"),
    "match.stopped": ("試合を終了しました：{why}", "The match ended: {why}"),
    "match.arrange_save_failed": ("並びを保存できませんでした（{error}）", "Could not save the arrangement: {error}"),
    "match.arrange_load_failed": ("並びを読み込めませんでした（{error}）", "Could not load the arrangement: {error}"),
    "match.review": ("札ごとの振り返り", "Card by card"),
    "review.no": ("#", "#"),
    "review.card": ("札", "Card"),
    "review.side": ("陣", "Side"),
    "review.taker": ("取り", "Taken by"),
    "review.you_ms": ("あなた", "You"),
    "review.cpu_ms": ("相手", "Opponent"),
    "review.faults": ("お手つき", "Faults"),
    "review.lost": ("取られた", "Lost"),
    "review.sent": ("送り", "Sent"),
    "review.karafuda": ("空札", "karafuda"),
    "match.late": ("遅れ {ms} ms", "late {ms} ms"),
    "review.own": ("自陣", "yours"),
    "review.opp": ("敵陣", "theirs"),
    "review.nobody": ("—", "—"),
    "review.sent_by": ("{who}→{n}", "{who} sent {n}"),
}
add_messages(MATCH_MESSAGES)


def signed_ms(ms: int) -> str:
    """+312 / −40 (a real minus sign)."""
    return f"+{ms}" if ms >= 0 else f"\u2212{-ms}"


def reaction_text(ms: int | None, fault: bool) -> str:
    """'+312 ms', '−40 ms anticipated', 'fault +85 ms' (in the interface language)."""
    if ms is None:
        return ""
    if fault:
        return tr("match.fault", ms=signed_ms(ms))
    if ms < 0:
        return tr("match.anticipated", ms=-ms)
    return tr("match.reaction", ms=ms)


def late_text(ms: int | None) -> str:
    """A touch after the other seat took the card: "late +620 ms" ("" for none)."""
    return "" if ms is None else tr("match.late", ms=signed_ms(ms))


def seat_label(seat: int | None, me: int) -> str:
    """"You" for `me`, "Opponent (CPU)" for the other seat, "—" for nobody."""
    if seat is None:
        return tr("review.nobody")
    return tr("match.you") if seat == me else tr("match.cpu")


def summary_line(e: "ReadSummary", me: int, kimariji: str | None = None) -> str:
    """A judged read as one log line seen from seat `me`: number, kimariji (`kimariji`: as the
    screen spells it, else the event's), card, the taker and their time first, the other
    seat's time after it in brackets, then the faults:
    ``  3. これ（10） → You +250 ms （Opponent (CPU) +400 ms）``."""
    times = [reaction_text(e.reaction_ms[s], e.faulted[s]) or late_text(e.late_ms[s]) for s in (0, 1)]
    said = [f"{seat_label(s, me)} {times[s]}" if times[s] else "" for s in (0, 1)]
    head = f"{e.number:>3}. {kimariji or e.kimariji}（{e.poem}）"
    if e.karafuda:
        what, others = tr("match.karafuda"), [said[me], said[1 - me]]
    elif e.taker is None:
        what, others = "→ —", [said[me], said[1 - me]]
    else:
        what, others = f"→ {said[e.taker]}", [said[1 - e.taker]]
    rest = "　".join(t for t in others if t)
    faults = " ".join(f"[{seat_label(s, me)}: {tr('fault.' + kind)}]" for s, kind in e.faults)
    return " ".join(t for t in (head, what, f"（{rest}）" if rest else "", faults) if t)


def log_line(event: "GameEvent", seat: int | None = None, log: tuple["GameEvent", ...] = ()) -> str | None:
    """The log's entry point (`trainer.text.events.log_lines`). A seat's log is the Match tab's:
    one line per judged read (`summary_line`, from that seat); the full log (seat None)
    words every event."""
    if event.kind == "kyogi.summary":
        return summary_line(event, 0 if seat is None else seat)  # type: ignore[arg-type]
    return describe(event) if seat is None else None
