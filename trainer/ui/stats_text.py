"""Interface text of Statistics mode (Japanese, English), merged into the shared table at import."""
from __future__ import annotations

from trainer.ui.drills_text import make_bools_immortal
from trainer.ui.i18n import MESSAGES

# id: (日本語, English)
STATS_MESSAGES: dict[str, tuple[str, str]] = {
    "mode.stats": ("統計", "Statistics"),
    "stats.kind": ("種類", "Kind"),
    "stats.kind_all": ("すべて", "All"),
    "kind.fuda_nagashi": ("札流し", "Fuda-nagashi"),
    "kind.kami_to_torifuda": ("上の句→取り札", "Kami → torifuda"),
    "kind.listening_reflex": ("聞き分け反応", "Listening reflex"),
    "kind.kimariji_henka": ("決まり字の変化", "Kimariji henka"),
    "kind.positional": ("位置の暗記", "Positional memory"),
    "kind.match": ("対戦", "Match"),
    "stats.refresh": ("更新", "Refresh"),
    "stats.export": ("CSV に書き出す…", "Export CSV…"),
    "stats.exported": ("{n} 件を {path} に書き出しました", "Wrote {n} trials to {path}"),
    "stats.export_failed": ("書き出せません: {err}", "Export failed: {err}"),
    "stats.summary": ("試行 {n} 件 ・ 正解率 {acc} ・ 復習時期 {due} 枚 ・ 未学習 {new} 枚",
                      "{n} trials · {acc} right · {due} cards due · {new} new"),
    "stats.empty": ("まだ記録がありません。練習か対戦をすると、ここに表示されます。",
                    "No trials yet. Play a drill or a match and they appear here."),
    "stats.trend": ("日ごとの平均反応時間（ms）", "Mean reaction time by day (ms)"),
    "stats.heat": ("百首の苦手度（クリックで反応時間、ダブルクリックで札の記録）",
                   "The 100 cards by weakness (click: reactions; double click: history)"),
    "stats.heat_legend": ("緑 = 得意、赤 = 苦手、灰 = 記録不足", "green = strong, red = weak, grey = too few trials"),
    "stats.dist": ("{card}番 {kimariji}: 最近 {n} 回の反応時間", "Card {card} {kimariji}: last {n} reactions"),
    "stats.dist_none": ("札を選ぶと最近の反応時間を表示します", "Select a card to see its recent reactions"),
    "stats.weakest": ("苦手な札", "Weakest cards"),
    "stats.faults": ("お手つきの種類", "Faults by kind"),
    "stats.no_faults": ("お手つきなし", "No faults"),
    "stats.day": ("日付", "day"),
    "stats.recovery_title": ("統計データベース", "Statistics database"),
    "stats.dismiss": ("閉じる", "Dismiss"),
    "stats.back": ("← ダッシュボードへ", "← Dashboard"),
    "stats.card_title": ("{card}番 {poet}", "Card {card} — {poet}"),
    "stats.card_totals": ("試行 {n} 件 ・ 正解率 {acc} ・ 平均 {ms}", "{n} trials · {acc} right · mean {ms}"),
    "stats.history_plot": ("反応時間の推移（○ 正解、× 誤り）", "Reaction over time (o right, x wrong)"),
    "col.time": ("日時", "Time"),
    "col.kind": ("種類", "Kind"),
    "col.answer": ("答え", "Answer"),
    "col.correct": ("正誤", "Right"),
    "col.reaction": ("反応 ms", "Reaction ms"),
    "col.fault": ("お手つき", "Fault"),
    "col.voice": ("声", "Voice"),
    "col.card": ("札", "Card"),
    "col.weakness": ("苦手度", "Weakness"),
    "col.accuracy": ("正解率", "Right"),
    "col.mean": ("平均 ms", "Mean ms"),
    "fault.otetsuki": ("お手つき", "otetsuki"),
    "fault.karafuda": ("空札に触れた", "touched on a karafuda"),
    "fault.wrong_card": ("違う札", "wrong card"),
    "fault.wrong_place": ("場所違い", "wrong place"),
}

MESSAGES.update(STATS_MESSAGES)
make_bools_immortal()   # see its docstring: the same PySide6 6.12 bug
