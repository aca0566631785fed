#!/usr/bin/env python3
"""Build poems/data/poems.json from the cross-checked source (shared/data/hyakunin_isshu.json).

    python tools/build_poems.py [SOURCE] [--review]

What this adds to the source is the sound form: which historical kana start a
word (so は-row kana keep their sound) and which む are the auxiliary read ん.
Word starts come from aligning the kanji-kana text with the kana (the first
kana under a kanji is a word start); the alignment cannot see words written in
kana, so WORD_STARTS and NOT_WORD_STARTS below fix those by hand, each checked
against how readers read the card. `--review` prints every decision on a は-row
kana and every む so a person can check them.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from poems.kana import HA_ROW, is_hiragana, sound_units  # noqa: E402

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "hyakunin_isshu.json"
TARGET = ROOT / "poems" / "data" / "poems.json"

# (poem, part, phrase index, kana index) → word start the alignment misses.
# part is "kami" or "shimo"; poem 0 is the joka.
# A run of kanji is one group to the alignment, so 紅葉踏み, 風吹け, 小夜更け need
# their second word named here too.
WORD_STARTS = {
    (2, "shimo", 0, 3),   # ころも|ほす (衣干す)
    (5, "kami", 1, 3),    # もみぢ|ふみわけ (紅葉踏み分け)
    (6, "shimo", 1, 2),   # よぞ|ふけにける (夜ぞ更けにける)
    (9, "shimo", 0, 5),   # よに|ふる (世に経る)
    (17, "kami", 0, 1),   # ち|はやぶる (千早振る, read chihayaburu)
    (23, "shimo", 0, 3),  # わがみ|ひとつの (身ひとつ)
    (26, "shimo", 0, 2),  # いま|ひとたびの
    (39, "kami", 1, 5),   # しの|はら (篠原, read shinohara)
    (56, "kami", 1, 4),   # このよの|ほかの (外)
    (56, "shimo", 0, 2),  # いま|ひとたびの
    (58, "kami", 1, 5),   # ささ|はら (笹原, read sasahara)
    (58, "kami", 2, 2),   # かぜ|ふけば (風吹けば)
    (59, "kami", 2, 2),   # さよ|ふけて (小夜更けて)
    (60, "shimo", 0, 2),  # まだ|ふみもみず
    (66, "shimo", 0, 4),  # はなより|ほかに
    (69, "kami", 0, 3),   # あらし|ふく (嵐吹く)
    (85, "shimo", 0, 3),  # ねやの|ひま (閨の隙)
    (87, "kami", 1, 5),   # つゆもまだ|ひぬ (まだ干ぬ)
    (92, "kami", 1, 2),   # しほ|ひに (潮干, read shiohi)
    (94, "kami", 2, 2),   # さよ|ふけて (小夜ふけて)
    (97, "kami", 1, 2),   # まつ|ほの (松帆の浦)
}
# Kana the alignment takes for a word start, but read inside a word.
NOT_WORD_STARTS = {
    (73, "kami", 1, 2),   # をのへ (尾上, read onoe): the lazy match gives 尾上 only を
}
# Words in kana whose む is a verb ending, not the auxiliary: read む.
MU_KEPT = {
    (8, "kami", 2, 4),    # しかぞ|すむ (住む)
    (15, "kami", 2, 4),   # わかな|つむ (摘む)
}


def aligned_word_starts(kanji: str, kana: str) -> set[int] | None:
    """Kana indices that are the first kana under a run of kanji (None if no alignment)."""
    pattern, runs = "", []
    for chunk in re.findall(r"[\u3041-\u3096]+|[^\u3041-\u3096]+", kanji):
        if is_hiragana(chunk):
            pattern += re.escape(chunk)
        else:
            pattern += "(.+?)"
            runs.append(chunk)
    match = re.fullmatch(pattern, kana)
    if not match:
        return None
    return {match.start(g) for g in range(1, len(runs) + 1)}


def auxiliary_mu(kana: str) -> set[int]:
    """む at the end of a phrase or before と/ぞ is the auxiliary (む, らむ, けむ, なむ)."""
    out = set()
    for i, c in enumerate(kana):
        if c == "む" and i > 0 and (i == len(kana) - 1 or kana[i + 1] in "とぞ"):
            out.add(i)
    return out


def phrase_sound(no: int, part: str, k: int, kanji: str, kana: str, review: list[str]):
    starts = aligned_word_starts(kanji, kana)
    if starts is None:
        review.append(f"#{no} {part}{k} {kanji} / {kana}: no alignment, only the phrase start counts")
        starts = set()
    starts |= {0}
    starts |= {i for (n, p, q, i) in WORD_STARTS if (n, p, q) == (no, part, k)}
    starts -= {i for (n, p, q, i) in NOT_WORD_STARTS if (n, p, q) == (no, part, k)}
    hatsuon = auxiliary_mu(kana) - {i for (n, p, q, i) in MU_KEPT if (n, p, q) == (no, part, k)}
    units = sound_units(kana, frozenset(starts), frozenset(hatsuon))
    for i, c in enumerate(kana):
        if c in HA_ROW or c == "む":
            mark = kana[:i] + "[" + c + "]" + kana[i + 1:]
            review.append(f"#{no:3} {part:5}{k} {mark:16} → {units[i]:3} ({kanji})")
    return units


def build_entry(no: int, src: dict, review: list[str]) -> dict:
    entry = {"no": no, "poet": src.get("poet", ""), "kami": src["kami"], "shimo": src["shimo"],
             "kami_kana": src["kami_kana"], "shimo_kana": src["shimo_kana"]}
    for part in ("kami", "shimo"):
        units = [phrase_sound(no, part, k, kanji, kana, review)
                 for k, (kanji, kana) in enumerate(zip(src[part], src[part + "_kana"]))]
        entry[part + "_units"] = units
    if no:
        entry["kimariji"] = src["kimariji"]
    return entry


def build(source: Path) -> tuple[dict, list[str]]:
    data = json.loads(source.read_text(encoding="utf-8"))
    review: list[str] = []
    out = {
        "about": "Built by tools/build_poems.py from the project's cross-checked source. "
                 "Historical kana as printed on the cards; *_units: the sound of each kana as read aloud.",
        "joka": build_entry(0, dict(data["joka"], poet=""), review),
        "poems": [build_entry(p["no"], p, review) for p in data["poems"]],
    }
    return out, review


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    source = Path(args[0]) if args else DEFAULT_SOURCE
    out, review = build(source)
    if "--review" in argv:
        print("\n".join(review))
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(out['poems'])} poems + joka", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
