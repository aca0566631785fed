"""Card sets a drill can be limited to.

    all                       every card
    by first sound            cards whose kami-no-ku starts with a sound as heard
                              (あ, あさ; お also finds を)
    by kimariji length        一字決まり (1) ... 六字決まり (6), one or several lengths
    a confusable group        cards sharing an opening that only its last kimariji kana
                              splits (友札): あき = {1 あきの, 79 あきか}; the group of a
                              card is the cards sharing its kimariji minus the last kana
    the weakest N             by the statistics (trainer.stats.aggregates, weakness)
    hand-picked               a list of numbers, e.g. "1, 5-9, 87"

``from_spec`` reads a one-line description of any of these (settings files,
the command line): ``all``, ``first:あさ``, ``length:1,2``, ``group:あき``,
``group-of:79``, ``weakest:10``, ``pick:1,5-9,87``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from trainer.drills.common import DrillError


@dataclass(frozen=True)
class CardSet:
    label: str
    cards: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self):
        return iter(self.cards)


def all_cards() -> CardSet:
    return CardSet("all 100 cards", tuple(range(1, 101)))


def by_first_sound(sound: str) -> CardSet:
    import poems
    from trainer.drills.answers import to_hiragana
    kana = to_hiragana(sound)
    cards = tuple(p.no for p in poems.by_first_sound(kana)) if kana else ()
    if not cards:
        raise DrillError(f"no card starts with {sound!r}")
    return CardSet(f"cards starting with {kana}", cards)


def by_kimariji_length(*lengths: int) -> CardSet:
    import poems
    bad = [n for n in lengths if not isinstance(n, int) or not 1 <= n <= 6]
    if not lengths or bad:
        raise DrillError("kimariji lengths go from 1 to 6")
    cards = tuple(p.no for p in poems.ALL if p.kimariji_len in lengths)
    names = ", ".join(str(n) for n in sorted(set(lengths)))
    return CardSet(f"kimariji of {names} kana", cards)


def _key(no: int) -> tuple[str, ...]:
    import poems
    return tuple(poems.get(no).listening_key())


def confusable_groups() -> dict[str, tuple[int, ...]]:
    """Every confusable group, by its shared opening as printed on most of its cards.

    Groups nest: あ (the rivals of the 2-kana あ cards: every あ card), あき, あさ,
    あさぼらけ ... The ō group (あふこ 44, おほえ 60, おほけ 95) is labelled おほ.
    """
    import poems
    from collections import Counter
    groups: dict[tuple[str, ...], tuple[int, ...]] = {}
    for poem in poems.ALL:
        n = poem.kimariji_len - 1
        prefix = _key(poem.no)[:n]
        if n >= 1 and prefix not in groups:
            groups[prefix] = tuple(p.no for p in poems.ALL if _key(p.no)[:n] == prefix)
    out = {}
    for prefix in sorted(groups):
        printed = Counter(poems.get(c).kana_prefix(len(prefix)) for c in groups[prefix])
        out[printed.most_common(1)[0][0]] = groups[prefix]
    return out


def confusable_group(opening: str) -> CardSet:
    """The group sharing `opening` (kana or romaji, as printed or as heard); an
    opening that starts a longer group's label (あさぼ) picks the shortest such group."""
    from trainer.drills.answers import answer_keys
    wanted = answer_keys(opening)
    if not wanted:
        raise DrillError("name the shared opening of a confusable group, e.g. あき")
    best: tuple[int, str, tuple[int, ...]] | None = None
    for label, cards in confusable_groups().items():
        forms = answer_keys(label) | {"".join(_key(cards[0])[:len(label)])}
        if forms & wanted:
            return CardSet(f"confusable group {label}", cards)
        if any(f.startswith(w) for f in forms for w in wanted):
            if best is None or len(label) < best[0]:
                best = (len(label), label, cards)
    if best is None:
        raise DrillError(f"{opening!r} is not the shared opening of a confusable group")
    return CardSet(f"confusable group {best[1]}", best[2])


def group_of(no: int) -> CardSet:
    """The card and its rivals: every card sharing its kimariji but the last kana."""
    import poems
    poem = poems.get(poems.check_no(no))
    n = poem.kimariji_len - 1
    if n < 1:
        raise DrillError(f"card {poem.no} ({poem.kimariji}) is decided by its first sound: "
                         "it has no confusable cards")
    prefix = _key(poem.no)[:n]
    cards = tuple(p.no for p in poems.ALL if _key(p.no)[:n] == prefix)
    label = next(lb for lb, c in confusable_groups().items() if c == cards)
    return CardSet(f"confusable group {label}", cards)


def weakest(store, n: int, kind: str | None = None) -> CardSet:
    """The n weakest cards by the statistics (fewer if fewer have enough trials)."""
    from trainer.stats.aggregates import weakest_cards
    if n < 1:
        raise DrillError("ask for at least one card")
    cards = tuple(weakest_cards(store, n, kind))
    if not cards:
        raise DrillError("no card has enough trials yet to tell which are weakest")
    return CardSet(f"the {len(cards)} weakest cards", cards)


def hand_picked(cards: Iterable[int] | str) -> CardSet:
    """A hand-picked list: numbers, or text like "1, 5-9, 87"."""
    import poems
    if isinstance(cards, str):
        cards = _parse_numbers(cards)
    try:
        picked = tuple(dict.fromkeys(poems.check_no(c) for c in cards))
    except ValueError as exc:
        raise DrillError(str(exc)) from None
    if not picked:
        raise DrillError("pick at least one card")
    return CardSet(f"{len(picked)} hand-picked cards", picked)


def _parse_numbers(text: str) -> list[int]:
    from poems.numbers import PoemListError, poem_list
    try:
        return poem_list(text, ranges=True)
    except PoemListError as exc:
        raise DrillError(str(exc)) from None


def from_spec(spec: str, store=None) -> CardSet:
    """Read a one-line card set description (see the module docstring)."""
    spec = spec.strip()
    name, _, arg = spec.partition(":")
    name = name.strip().lower()
    arg = arg.strip()
    if name == "all" and not arg:
        return all_cards()
    if name == "first" and arg:
        return by_first_sound(arg)
    if name == "length" and arg:
        try:
            lengths = [int(x) for x in arg.replace(" ", "").split(",") if x]
        except ValueError:
            raise DrillError(f"{arg!r}: kimariji lengths are numbers 1 to 6") from None
        return by_kimariji_length(*lengths)
    if name == "group" and arg:
        return confusable_group(arg)
    if name == "group-of" and arg:
        try:
            return group_of(int(arg))
        except ValueError:
            raise DrillError(f"{arg!r} is not a card number") from None
    if name == "weakest":
        if store is None:
            raise DrillError("the weakest cards need the statistics store")
        try:
            n = int(arg or 10)
        except ValueError:
            raise DrillError(f"{arg!r} is not a number of cards") from None
        return weakest(store, n)
    if name == "pick" and arg:
        return hand_picked(arg)
    raise DrillError(f"unknown card set {spec!r}; try all, first:あ, length:1, group:あき, "
                     "group-of:79, weakest:10 or pick:1,5-9")
