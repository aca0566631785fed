"""Kana: from the historical spelling printed on the cards to the sound read aloud.

Torifuda and yomifuda are printed in historical kana (歴史的仮名遣い); a reader
reads them in today's pronunciation. The conversion works one historical kana
at a time, so every kana keeps its own "sound unit" and a prefix of the written
verse always maps to a prefix of the spoken one (kimariji need this).

Rules, in the order they apply:
  1. ゐ→い, ゑ→え, を→お, ぢ→じ, づ→ず.
  2. は-row kana inside a word are heard as わ-row: は→わ, ひ→い, ふ→う, へ→え,
     ほ→お (かりほ→かりお, こひ→こい, おもふ→おもう). A word's first kana keeps
     its sound (あまのはら, ひとを); which kana start a word is data, decided
     when the database is built.
  3. Vowel fusion with a う that was written ふ: a-row+う → o-row+う (あふ→おう,
     まがふ→まごう), e-row+う → i-row+ょう (けふ→きょう, てふ→ちょう). A う
     written as う begins a word in these poems (うきよ, うつ, うら) and fuses
     with nothing.
  4. The auxiliary む is read ん (ねむ→ねん, らむ→らん); which む are
     auxiliaries is data too.
"""
from __future__ import annotations

import re

HIRAGANA_RE = re.compile(r"^[\u3041-\u3096\u30fc]+$")
SMALL = set("ゃゅょぁぃぅぇぉゎ")
HA_ROW = dict(zip("はひふへほ", "わいうえお"))
PLAIN = {"ゐ": "い", "ゑ": "え", "を": "お", "ぢ": "じ", "づ": "ず"}
A_TO_O = dict(zip("あかさたなはまやらわがざだばぱ", "おこそとのほもよろおごぞどぼぽ"))
E_TO_YO = {
    "え": "よ", "け": "きょ", "せ": "しょ", "て": "ちょ", "ね": "にょ", "へ": "ひょ",
    "め": "みょ", "れ": "りょ", "げ": "ぎょ", "ぜ": "じょ", "で": "じょ", "べ": "びょ",
}
O_ROW = set("おこそとのほもよろをごぞどぼぽょ")


def is_hiragana(text: str) -> bool:
    return bool(HIRAGANA_RE.match(text))


def sound_units(kana: str, word_starts: frozenset[int] | set[int] = frozenset({0}),
                hatsuon: frozenset[int] | set[int] = frozenset()) -> list[str]:
    """One sound unit per historical kana of one phrase.

    `word_starts`: indices of kana that begin a word (は-row keeps its sound).
    `hatsuon`: indices of the auxiliary む read as ん.
    """
    units: list[str] = []
    for i, c in enumerate(kana):
        if i in hatsuon and c == "む":
            units.append("ん")
            continue
        written = c
        c = PLAIN.get(c, c)
        if c in HA_ROW and i not in word_starts:
            c = HA_ROW[c]
        if written == "ふ" and c == "う" and units:
            _fuse_before_u(units)
        units.append(c)
    return units


def _fuse_before_u(units: list[str]) -> None:
    prev = units[-1]
    last = prev[-1]
    if last in A_TO_O and prev not in ("わ",):
        units[-1] = prev[:-1] + A_TO_O[last]
    elif last in E_TO_YO:
        units[-1] = prev[:-1] + E_TO_YO[last]


def morae(text: str) -> list[str]:
    """Split sound kana into morae: small ゃゅょ join the kana before; っ, ん, ー stand alone."""
    out: list[str] = []
    for c in text:
        if c in SMALL and out:
            out[-1] += c
        elif c.strip():
            out.append(c)
    return out


def listening_key(units: list[str]) -> list[str]:
    """What a listener can tell apart, one item per historical kana.

    A vowel that only lengthens the o before it (おう, おお) is heard as the
    same long ō, so あふこと (おうこと) shares "ō" with おほけなく (おおけなく).
    """
    key: list[str] = []
    for u in units:
        if u in ("う", "お") and key and key[-1] and key[-1][-1] in O_ROW:
            key.append("ー")
        else:
            key.append(u)
    return key


# --- Hepburn romaji of sound kana ---------------------------------------------------------

_ROMAJI = {
    **dict(zip("あいうえお", ["a", "i", "u", "e", "o"])),
    **dict(zip("かきくけこ", ["ka", "ki", "ku", "ke", "ko"])),
    **dict(zip("がぎぐげご", ["ga", "gi", "gu", "ge", "go"])),
    **dict(zip("さしすせそ", ["sa", "shi", "su", "se", "so"])),
    **dict(zip("ざじずぜぞ", ["za", "ji", "zu", "ze", "zo"])),
    **dict(zip("たちつてと", ["ta", "chi", "tsu", "te", "to"])),
    **dict(zip("だぢづでど", ["da", "ji", "zu", "de", "do"])),
    **dict(zip("なにぬねの", ["na", "ni", "nu", "ne", "no"])),
    **dict(zip("はひふへほ", ["ha", "hi", "fu", "he", "ho"])),
    **dict(zip("ばびぶべぼ", ["ba", "bi", "bu", "be", "bo"])),
    **dict(zip("ぱぴぷぺぽ", ["pa", "pi", "pu", "pe", "po"])),
    **dict(zip("まみむめも", ["ma", "mi", "mu", "me", "mo"])),
    **dict(zip("やゆよ", ["ya", "yu", "yo"])),
    **dict(zip("らりるれろ", ["ra", "ri", "ru", "re", "ro"])),
    **dict(zip("わゐゑを", ["wa", "i", "e", "o"])),
    "ん": "n", "ゔ": "vu",
}
_YOON = {"ゃ": "a", "ゅ": "u", "ょ": "o"}
_MACRON = {"o": "ō", "u": "ū", "a": "ā", "e": "ē", "i": "ī"}


def _mora_romaji(mora: str) -> str:
    if len(mora) == 2 and mora[1] in _YOON:
        base = _ROMAJI[mora[0]]
        stem = base[:-1]
        if stem in ("sh", "ch", "j"):
            return stem + _YOON[mora[1]]
        return stem + "y" + _YOON[mora[1]] if stem else "y" + _YOON[mora[1]]
    if mora not in _ROMAJI:
        raise ValueError(f"no romaji for {mora!r}")
    return _ROMAJI[mora]


def romaji(text: str) -> str:
    """Modified Hepburn with macrons: おう/おお → ō, うう → ū; っ doubles the next consonant."""
    out: list[str] = []
    geminate = False
    for m in morae(text):
        if m == "っ":
            geminate = True
            continue
        if m == "ー":
            if out:
                out[-1] = out[-1][:-1] + _MACRON.get(out[-1][-1], out[-1][-1])
            continue
        r = _mora_romaji(m)
        if out and ((r == "u" and out[-1][-1] in "ou") or (r == "o" and out[-1][-1] == "o")) \
                and not out[-1].endswith("n"):
            out[-1] = out[-1][:-1] + _MACRON[out[-1][-1]]
            continue
        if geminate:
            r = ("t" + r) if r.startswith("ch") else (r[0] + r)
            geminate = False
        if r[0] in "aeiouy" and out and out[-1] == "n":
            out[-1] = "n'"
        out.append(r)
    return "".join(out)
