"""Texts of an online kyōgi race (the Online tab's race table, ``docs/online-races.md``).

The server judges; these word its judgements (``race.judged``), its okurifuda
call, holds and result, and the lobby's race tables and leaderboard, in both
languages. The times are the kyōgi match's (`trainer.text.kyogi.reaction_text`).
"""
from __future__ import annotations

from typing import Any, Sequence

from trainer.text.kyogi import reaction_text
from trainer.text.messages import add_messages, tr

RACE_MESSAGES: dict[str, tuple[str, str]] = {
    "race.online.game": ("競技かるた（オンライン対戦）", "Kyōgi (online race)"),
    "race.online.game_short": ("競技かるた", "Kyōgi"),
    "race.online.rated_short": ("レート戦", "rated"),
    "race.online.cards": ("一人の持ち札", "Cards a side"),
    "race.online.cards_n": ("{n} 枚", "{n} cards"),
    "race.online.private": ("非公開（招待コード、レーティングなし）", "Private (invitation code, unrated)"),
    "race.form.karafuda": ("空札の枚数", "Karafuda read"),
    "race.form.karafuda_all": ("すべて（公式戦）", "All (official)"),
    "race.form.hold": ("読み終えない相手を待つ", "Wait for a card to be read"),
    "race.form.wait": ("切断した相手を待つ", "Wait for a dropped player"),
    "race.form.floor": ("速すぎる取りの基準", "Flag takes faster than"),
    "race.form.seconds": ("秒", "s"),
    "race.form.ms": ("ms", "ms"),
    "race.online.status.open": ("募集中", "open"),
    "race.online.status.syncing": ("時計合わせ", "setting clocks"),
    "race.online.status.playing": ("対戦中", "playing"),
    "race.online.status.over": ("終了", "over"),
    "race.online.rated": ("レーティング対象", "rated"),
    "race.online.unrated": ("レーティングなし", "unrated"),
    "race.online.title": ("卓 {table} — 競技かるた（{rated}）", "Table {table} — kyōgi ({rated})"),
    "race.online.waiting_opponent": ("相手を待っています", "Waiting for an opponent"),
    "race.online.syncing": ("時計を合わせています…", "Setting the clocks…"),
    "race.online.clock": ("時計の差 {offset} ms（誤差 ±{error} ms）", "Clock offset {offset} ms (±{error} ms)"),
    "race.online.read": ("{number} 枚目", "Read {number}"),
    "race.online.opponent": ("相手", "Opponent"),
    "race.online.you": ("あなた", "You"),
    "race.online.left": ("{who}：残り {n} 枚", "{who}: {n} left"),
    "race.online.nobody": ("→ —", "→ —"),
    "race.online.karafuda_read": ("空札", "karafuda"),
    "race.online.fast": ("速すぎる取り（{ms} ms 未満）：{who}", "Faster than {ms} ms: {who}"),
    "race.online.stalled": ("音が止まった（打刻で判定）：{who}", "Sound stalled (judged by its stamp): {who}"),
    "race.online.timed_out": ("時間切れで判定", "judged on the time-out"),
    "race.online.okuri": ("送り札を選んでください（自陣の札をクリック、{cards} 枚）",
                          "Choose the okurifuda: click one of your cards ({cards})"),
    "race.online.okuri_other": ("相手が送り札を選んでいます", "The opponent is choosing the okurifuda"),
    "race.online.wait": ("待った", "Wait (待った)"),
    "race.online.go_on": ("再開", "Go on"),
    "race.online.held": ("待った：{who}", "Waiting: {who}"),
    "race.online.rearrange": ("待った：自陣の札をドラッグして並べ替えられます（「再開」で続けます）",
                              "Waiting: drag your own cards to rearrange them (Go on to continue)"),
    "race.online.resign": ("投了", "Resign"),
    "race.online.resign_ask": ("投了しますか？（負けになります）", "Resign this match? (it counts as a loss)"),
    "race.online.dropped": ("{who} の接続が切れました。{seconds} 秒待ちます",
                            "{who} dropped; the match waits {seconds} s"),
    "race.online.over": ("{winner}の勝ち（{by}）", "{winner} won ({by})"),
    "race.online.draw": ("引き分け（{by}）", "Draw ({by})"),
    "race.online.by.cards": ("札", "cards"),
    "race.online.by.abandonment": ("不在", "abandonment"),
    "race.online.by.resignation": ("投了", "resignation"),
    "race.online.by.no_clock": ("時計が合わず", "no clock"),
    "race.online.by.server_stopped": ("サーバー停止", "the server stopped"),
    "race.online.score": ("残り {mine} 対 {theirs}", "{mine} left against {theirs}"),
    "race.online.rating": ("レーティング {rating}（{change}）", "Rating {rating} ({change})"),
    "race.online.reading_failed": ("この札を読めませんでした（{error}）", "This card could not be read ({error})"),
    "race.mubeyama.game": ("むべ山（オンライン）", "Mubeyama (online)"),
    "race.mubeyama.title": ("卓 {table} — むべ山（{variant}）", "Table {table} — Mubeyama ({variant})"),
    "race.mubeyama.score": ("{n} 点", "{n} points"),
    "race.mubeyama.flip": ("あなたの札です：返してください（{kami}）", "Your card: flip it ({kami})"),
    "race.mubeyama.pass": ("{to} に {count} 枚渡してください（自分の表の札をクリック）",
                           "Give {count} card(s) to {to}: click one of your face-up cards"),
    "race.mubeyama.over": ("勝ち：{winners}（{by}）", "Won: {winners} ({by})"),
    "leaderboard.title": ("ランキング（競技かるた）", "Leaderboard (kyōgi)"),
    "leaderboard.rank": ("順位", "Rank"),
    "leaderboard.name": ("名前", "Name"),
    "leaderboard.rating": ("レーティング", "Rating"),
    "leaderboard.games": ("対戦数", "Games"),
    "online.your_rating": ("レーティング {rating}", "rating {rating}"),
}
add_messages(RACE_MESSAGES)


def who(seat: int | None, me: int | None, names: Sequence[str | None]) -> str:
    """"You" for `me`, the opponent's name (or "Opponent"), "—" for nobody."""
    if seat is None:
        return "—"
    if seat == me:
        return tr("race.online.you")
    name = names[seat] if seat < len(names) else None
    return name or tr("race.online.opponent")


def judged_line(frame: dict[str, Any], me: int | None, names: Sequence[str | None], kimariji: str = "") -> str:
    """One judged read (``race.judged``) as a log line from seat `me` (a spectator: seat 0):
    number, kimariji and card, the taker, both seats' times, faults and the flags:
    ``  3. これ（10） → You +250 ms （Opponent +400 ms） [Opponent: fault]``."""
    me_or_0 = 0 if me is None else me
    head = f"{frame['read']:>3}. {kimariji}（{frame['poem']}）"
    if "taker" not in frame:                      # a read judged with no summary (the match ended)
        return head
    faulted = {seat for seat, _ in frame.get("faults") or []}
    times = frame.get("reaction_ms") or [None, None]
    taker = frame.get("taker")
    said = {}
    for seat in (0, 1):
        text = reaction_text(times[seat], seat in faulted)
        said[seat] = f"{who(seat, me, names)} {text}" if text else ""
    if frame.get("karafuda"):
        what, others = tr("race.online.karafuda_read"), [said[me_or_0], said[1 - me_or_0]]
    elif taker is None:
        what, others = tr("race.online.nobody"), [said[me_or_0], said[1 - me_or_0]]
    else:
        what, others = f"→ {said[taker] or who(taker, me, names)}", [said[1 - taker]]
    rest = "　".join(t for t in others if t)
    parts = [head, what, f"（{rest}）" if rest else ""]
    parts += [f"[{who(seat, me, names)}: {tr('fault.' + kind)}]" for seat, kind in frame.get("faults") or []]
    flags = flag_lines(frame, me, names)
    if frame.get("timed_out"):
        flags.append(tr("race.online.timed_out"))
    parts += [f"⚠ {f}" for f in flags]
    return " ".join(p for p in parts if p)


def flag_lines(frame: dict[str, Any], me: int | None, names: Sequence[str | None],
               floor_ms: float | None = None) -> list[str]:
    """What both players are told beside the judgement: a stalled touch, a take under the floor."""
    out = []
    if frame.get("stalled"):
        out.append(tr("race.online.stalled", who="、".join(who(s, me, names) for s in frame["stalled"])))
    if frame.get("fast"):
        ms = f"{floor_ms:g}" if floor_ms is not None else "100"
        out.append(tr("race.online.fast", ms=ms, who="、".join(who(s, me, names) for s in frame["fast"])))
    return out


def result_text(over: dict[str, Any], me: int | None, names: Sequence[str | None]) -> str:
    """The end of the match (``race.over``): who won, how, the cards left."""
    named = ("cards", "abandonment", "resignation", "no_clock", "server_stopped")
    by = tr(f"race.online.by.{over.get('by')}") if over.get("by") in named else str(over.get("by", ""))
    winner = over.get("winner")
    head = tr("race.online.draw", by=by) if winner is None else tr("race.online.over", winner=who(winner, me, names),
                                                                     by=by)
    left = over.get("left")
    if isinstance(left, list) and len(left) == 2:
        mine = 0 if me is None else me
        head += "　" + tr("race.online.score", mine=left[mine], theirs=left[1 - mine])
    return head


FLOOR_MESSAGES: dict[str, tuple[str, str]] = {
    "race.floor.name.chirashi": ("散らし取り", "Chirashi-dori"),
    "race.floor.name.sakasama": ("逆さまかるた", "Sakasama karuta"),
    "race.floor.name.genpei": ("源平合戦", "Genpei-gassen"),
    "race.floor.name.relay": ("リレーかるた", "Relay karuta"),
    "race.floor.name.shimonoku": ("下の句かるた", "Shimonoku karuta"),
    "race.floor.name.shimonoku.nanae": ("下の句かるた（七飯）", "Shimonoku karuta (Nanae)"),
    "race.floor.game": ("{game}（オンライン）", "{game} (online)"),
    "race.floor.title": ("卓 {table} — {game}", "Table {table} — {game}"),
    "race.floor.players": ("人数", "Players"),
    "race.floor.cpu_seat": ("CPU（席{n}）", "CPU (seat {n})"),
    "race.floor.cpus": ("CPU の人数", "CPU players"),
    "race.floor.begin": ("空席を CPU にして始める", "Begin (CPUs in empty seats)"),
    "race.floor.waiting": ("参加者を待っています", "Waiting for players"),
    "race.floor.send": ("自陣の札を {cards} 枚クリックして送ってください",
                        "Click {cards} card(s) of your side to send"),
    "race.floor.sending_other": ("{who} が送る札を選んでいます", "{who} is choosing a card to send"),
    "race.floor.resting": ("{number} 枚目：お手つきのため休み", "Read {number}: you sit out (a fault)"),
    "race.floor.not_turn": ("{number} 枚目：あなたの番ではありません", "Read {number}: not your turn"),
    "race.floor.nobody": ("誰も取らず", "nobody took it"),
    "race.floor.fault": ("お手つき：{who}", "fault: {who}"),
    "race.floor.late": ("遅い：{who}", "late: {who}"),
    "race.floor.taken": ("取った札", "Cards taken"),
    "race.floor.side_left": ("組の陣の残り", "Cards left on the team's side"),
    "race.floor.score": ("{who}：{n}", "{who}: {n}"),
    "race.floor.over": ("終局（{by}）：勝ち {winners}", "Game over ({by}): won by {winners}"),
    "race.floor.by.side_empty": ("陣が空になった", "a side emptied"),
    "race.floor.by.stack_empty": ("札を読み終えた", "every card read"),
    "race.floor.by.floor_empty": ("場の札がなくなった", "the floor emptied"),
    "race.floor.by.stack_out": ("札を読み終えた", "every card read"),
    "race.floor.by.reads": ("読み数の上限", "the read limit"),
    "race.floor.stand_in": ("{who} の席は CPU が代わります", "A CPU plays {who}'s seat from now on"),
}
add_messages(FLOOR_MESSAGES)


def floor_game_name(game: str, variant: str | None = None) -> str:
    """A floor race's name with its variant when it is not the standard one (Nanae's shimonoku)."""
    key = f"race.floor.name.{game}"
    return tr(f"{key}.{variant}" if variant and variant != "standard" and f"{key}.{variant}" in FLOOR_MESSAGES
              else key)


def floor_judged_line(frame: dict[str, Any], me: int | None, names: Sequence[str | None],
                      kimariji: str = "") -> str:
    """One judged floor-race read (``race.judged``) as a log line: number, kimariji and card,
    the taker and their time, the people's other times, faults:
    ``  3. これ（10） → You +250 ms （Aki +400 ms） [fault: CPU (club)]``."""
    head = f"{frame['read']:>3}. {kimariji}（{frame['poem']}）"
    times = frame.get("reaction_ms") or []
    faulted = set(frame.get("faulted") or [])
    taker = frame.get("taker")
    if taker is None:
        what = f"→ {tr('race.floor.nobody')}"
    else:
        ms = frame.get("taker_ms")
        what = f"→ {who(taker, me, names)} {reaction_text(round(ms), False) if ms is not None else ''}".rstrip()
    others = [f"{who(s, me, names)} {reaction_text(round(ms), False)}" for s, ms in enumerate(times)
              if ms is not None and s != taker and s not in faulted]
    parts = [head, what, f"（{'　'.join(others)}）" if others else ""]
    if faulted:
        parts.append(f"[{tr('race.floor.fault', who='、'.join(who(s, me, names) for s in sorted(faulted)))}]")
    flags = flag_lines(frame, me, names)
    if frame.get("timed_out"):
        flags.append(tr("race.online.timed_out"))
    parts += [f"⚠ {f}" for f in flags]
    return " ".join(p for p in parts if p)


def floor_result_text(over: dict[str, Any], me: int | None, names: Sequence[str | None]) -> str:
    """The end of a floor race (``race.over``): how it ended and who won."""
    by = over.get("by")
    key = f"race.floor.by.{by}" if f"race.floor.by.{by}" in FLOOR_MESSAGES else f"race.online.by.{by}"
    how = tr(key) if key in FLOOR_MESSAGES or key in RACE_MESSAGES else str(by or "")
    winners = "、".join(who(s, me, names) for s in over.get("winners") or []) or "—"
    return tr("race.floor.over", by=how, winners=winners)


def rating_text(frame: dict[str, Any]) -> str:
    """A rated match's new rating (``rating``): "Rating 1532 (+32)"."""
    change = float(frame.get("change") or 0)
    sign = "+" if change >= 0 else "\u2212"
    return tr("race.online.rating", rating=f"{float(frame['rating']):.0f}", change=f"{sign}{abs(change):.0f}")


__all__ = ["RACE_MESSAGES", "FLOOR_MESSAGES", "floor_judged_line", "floor_result_text",
           "judged_line", "flag_lines", "result_text", "rating_text", "who"]
