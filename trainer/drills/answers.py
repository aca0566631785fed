"""Typed kimariji answers: kana or romaji, historical or sound spelling.

A player may type the kimariji as printed (historical kana, あふこ), as heard
(おうこ, おーこ), in katakana, or in romaji (ouko, ōko, afuko). An answer is
right when, after normalising, it equals either the card's printed opening
or its opening as heard:

  - NFKC (full-width letters, half-width katakana), lower case, no spaces;
  - katakana -> hiragana; romaji runs -> hiragana (Hepburn or kunrei: shi/si,
    chi/ti, tsu/tu, fu/hu, ji/zi; nn, n' and n before a consonant -> ん;
    doubled consonants -> っ; macrons and circumflexes -> long vowels; - -> ー);
  - ゐ ゑ を ぢ づ -> い え お じ ず (as the cards' kimariji rules do);
  - as heard, a long ō written おう, おお or おー is one sound (``listening_key``).
"""
from __future__ import annotations

import unicodedata

from poems.kana import PLAIN, listening_key, morae

_VOWELS = "aeiou"
_LONG = {"ā": "aa", "ī": "ii", "ū": "uu", "ē": "ee", "ō": "ou",
         "â": "aa", "î": "ii", "û": "uu", "ê": "ee", "ô": "ou"}

_ROWS = {
    "": "あいうえお", "k": "かきくけこ", "g": "がぎぐげご", "s": "さしすせそ", "z": "ざじずぜぞ",
    "t": "たちつてと", "d": "だぢづでど", "n": "なにぬねの", "h": "はひふへほ", "b": "ばびぶべぼ",
    "p": "ぱぴぷぺぽ", "m": "まみむめも", "r": "らりるれろ",
}


def _romaji_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for cons, kana in _ROWS.items():
        for v, k in zip("aiueo", kana):
            table[cons + v] = k
    table.update({"ya": "や", "yu": "ゆ", "yo": "よ", "wa": "わ", "wo": "を", "wi": "ゐ",
                  "we": "ゑ", "shi": "し", "chi": "ち", "tsu": "つ", "fu": "ふ", "ji": "じ",
                  "l": "", "-": "ー"})
    youon = {"k": "き", "g": "ぎ", "s": "し", "z": "じ", "t": "ち", "d": "ぢ", "n": "に",
             "h": "ひ", "b": "び", "p": "ぴ", "m": "み", "r": "り"}
    small = {"a": "ゃ", "u": "ゅ", "o": "ょ"}
    for cons, i_kana in youon.items():
        for v, s in small.items():
            table[cons + "y" + v] = i_kana + s
    for v, s in small.items():
        table["sh" + v] = "し" + s
        table["ch" + v] = "ち" + s
        table["cy" + v] = "ち" + s
        table["j" + v] = "じ" + s
        table["jy" + v] = "じ" + s
    table["je"] = "じぇ"
    table["she"] = "しぇ"
    table["che"] = "ちぇ"
    del table["l"]
    return table


_TABLE = _romaji_table()
_LONGEST = max(len(k) for k in _TABLE)


def romaji_to_hiragana(text: str) -> str:
    """Convert romaji to hiragana; what cannot be read is kept as it is."""
    s = "".join(_LONG.get(c, c) for c in text.lower())
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "n" and (i + 1 == len(s) or s[i + 1] not in _VOWELS + "y"):
            out.append("ん")
            i += 2 if i + 1 < len(s) and s[i + 1] in "n'" else 1
            continue
        if c.isalpha() and c not in _VOWELS and i + 1 < len(s) and (
                s[i + 1] == c or (c == "t" and s[i + 1] == "c")):
            out.append("っ")  # kk, ss, tt, pp, tch
            i += 1
            continue
        for size in range(min(_LONGEST, len(s) - i), 0, -1):
            kana = _TABLE.get(s[i:i + size])
            if kana is not None:
                out.append(kana)
                i += size
                break
        else:
            out.append(c)
            i += 1
    return "".join(out)


def to_hiragana(text: str) -> str:
    """NFKC, katakana -> hiragana, romaji runs -> hiragana, spaces dropped."""
    text = unicodedata.normalize("NFKC", text).strip()
    out: list[str] = []
    run: list[str] = []

    def flush():
        if run:
            out.append(romaji_to_hiragana("".join(run)))
            run.clear()

    for ch in text:
        if ch.isspace() or ch in "・、。,.":
            continue
        if ("a" <= ch.lower() <= "z") or ch in "'-" or ch in _LONG:
            run.append(ch)
            continue
        flush()
        if "\u30a1" <= ch <= "\u30f6":
            ch = chr(ord(ch) - 0x60)
        out.append(ch)
    flush()
    return "".join(out)


def _plain(kana: str) -> str:
    return "".join(PLAIN.get(c, c) for c in kana)


def answer_keys(text: str) -> set[str]:
    """The normalised forms of a typed answer (as printed, and as heard)."""
    kana = _plain(to_hiragana(text))
    if not kana:
        return set()
    return {kana, "".join(listening_key(morae(kana)))}


def accepted_keys(no: int, n_kana: int | None = None) -> set[str]:
    """The normalised forms of card `no`'s opening of n_kana kana (default: kimariji)."""
    import poems
    poem = poems.get(no)
    n = poem.kimariji_len if n_kana is None else n_kana
    return {_plain(poem.kana_prefix(n)), "".join(poem.listening_key()[:n])}


def is_kimariji(text: str, no: int, n_kana: int | None = None) -> bool:
    """True if `text` names card no's kimariji (static, or of n_kana kana)."""
    return bool(answer_keys(text) & accepted_keys(no, n_kana))


def sound_form(no: int, n_kana: int | None = None) -> str:
    """The opening as heard, in hiragana (for showing the right answer)."""
    import poems
    poem = poems.get(no)
    return "".join(poem.kami_morae()[:poem.kimariji_mora_count(n_kana)])
