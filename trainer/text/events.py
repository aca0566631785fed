"""Text for the games' structured events, in the interface language.

Engines report what happened as `trainer.games.protocol.GameEvent` values
(fields, no prose). Each event kind has exactly one message, id
``event.<kind>`` (e.g. ``event.mubeyama.pass``), with one text per language
whose ``{placeholders}`` are the event's fields, or values a game's table
prepares from them (a card's name, a seat's label). Rewording a text never
breaks a screen: nothing parses these strings back.
"""
from __future__ import annotations

import importlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from trainer.games.protocol import GameEvent
from trainer.text.messages import LANGUAGES, MESSAGES, add_messages, current, set_language, tr


def message_id(kind: str) -> str:
    return f"event.{kind}"


def add_event_messages(table: dict[str, tuple[str, str]]) -> None:
    """Register texts by event kind: ``{"mubeyama.pass": ("…", "…")}``."""
    add_messages({message_id(kind): texts for kind, texts in table.items()})


def describe(event: GameEvent, **values: Any) -> str:
    """The event as one line in the interface language; `values` add or override fields.
    A ``seat_name`` placeholder defaults to "Seat N" (1-based) when the table names none."""
    fields = event.fields()
    if "seat" in fields and "seat_name" not in values and isinstance(fields["seat"], int):
        values["seat_name"] = tr("table.seat", n=fields["seat"] + 1)
    return tr(message_id(event.kind), **{**fields, **values})


@dataclass(frozen=True)
class Wording:
    """How one game names what its events carry: a seat, a card, and which fields hold them.

    `word_fields` is the one formatter every game's text module starts from; a
    game adds only what is its own (a suit, a month, a yaku's name)."""

    seat: Callable[[Any], str]
    card: Callable[[Any], str]
    seats: tuple[str, ...] = ("seat",)
    """Fields holding one seat."""
    cards: tuple[str, ...] = ("card",)
    """Fields holding one card."""
    card_lists: tuple[str, ...] = ("cards",)
    """Fields holding several cards (joined into one phrase)."""
    seat_lists: tuple[str, ...] = ("winners",)
    """Fields holding several seats (joined into one phrase)."""
    per_seat: tuple[str, ...] = ("scores", "totals")
    """Fields holding one number per seat, in seat order: "seat 1 0, seat 2 (you) 12"."""


def join(items: Iterable[str]) -> str:
    """A list as people write it: 「A、B」 / "A, B"."""
    return tr("log.list_separator").join(items)


def seat_label(seat: int) -> str:
    """A seat as the card games' logs name it, counted from 1 as on screen: seat 1 → 席2 / "seat 2"."""
    return tr("log.seat", n=seat + 1)


def seat_words(seat: Any, wording: Wording, names: Sequence[str] | None = None,
               reader: int | None = None) -> str:
    """A seat as the log names it: the table's name for it ("CPU 2") when `names` gives
    one, else the game's; the `reader`'s own seat is marked "(you)"."""
    if names is not None and isinstance(seat, int) and 0 <= seat < len(names):
        name = names[seat]
    else:
        name = wording.seat(seat)
    return tr("table.you", name=name) if reader is not None and seat == reader else name


def word_fields(event: GameEvent, wording: Wording, names: Sequence[str] | None = None,
                reader: int | None = None) -> dict[str, Any]:
    """The event's seats and cards as words (seats by `seat_words`)."""
    f = event.fields()

    def who(seat: Any) -> str:
        return seat_words(seat, wording, names, reader)

    out: dict[str, Any] = {}
    for key in wording.seats:
        if key in f:
            out[key] = who(f[key])
    for key in wording.cards:
        if key in f:
            out[key] = wording.card(f[key])
    for key in wording.card_lists:
        if key in f:
            out[key] = join(wording.card(c) for c in f[key])
    for key in wording.seat_lists:
        if key in f:
            out[key] = join(who(s) for s in f[key])
    for key in wording.per_seat:
        if isinstance(f.get(key), (tuple, list)):   # a raw tuple "(0, 0, 1)" names no one
            out[key] = join(tr("log.seat_points", seat=who(s), points=n) for s, n in enumerate(f[key]))
    return out


# -- a whole log, for any registered game -----------------------------------------------------

@contextmanager
def language(lang: str | None) -> Iterator[None]:
    """Word in `lang` inside the block (None: the current language), then restore it."""
    before = current()
    set_language(lang or before)
    try:
        yield
    finally:
        set_language(before)


def log_lines(texts: str, log: Sequence[GameEvent], seat: int | None = None,
              lang: str | None = None) -> list[str]:
    """A game's log as lines, worded by its text module (the registry's ``texts``).

    Every game's text module defines ``log_line(event, seat=None, log=()) -> str | None``
    (None: an event the log does not show); `seat` is the seat reading the log,
    `log` the events before this one (for a text that names an earlier event)."""
    module = importlib.import_module(texts)
    lines: list[str] = []
    with language(lang):
        for i, event in enumerate(log):
            line = module.log_line(event, seat, tuple(log[:i]))
            if line is not None:
                lines.append(line)
    return lines


def missing(kinds: Iterable[str]) -> list[str]:
    """Event kinds with no text (a test keeps this empty for every game)."""
    return [k for k in kinds if message_id(k) not in MESSAGES]


def texts(kind: str) -> dict[str, str]:
    """The text of one kind in every language, by language code."""
    return dict(zip(LANGUAGES, MESSAGES[message_id(kind)]))


add_messages({"table.seat": ("{n} 番席", "Seat {n}"),
              "table.you": ("{name}（あなた）", "{name} (you)"),
              "log.seat": ("席{n}", "seat {n}"),
              "log.list_separator": ("、", ", "),
              "log.seat_points": ("{seat} {points}", "{seat} {points}"),
              "log.face_down_card": ("伏せ札", "a face-down card")})

# Events of the shared table itself (trainer.games.turn_session), not of one game.
add_event_messages({
    "table.timeout": ("{seat_name} の持ち時間（{seconds:.0f} 秒）が切れたので、代わりに CPU が打ちました",
                      "{seat_name}'s turn time ({seconds:.0f} s) ran out; the CPU played for them"),
})
