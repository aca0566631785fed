"""Text for the games' structured events, in the interface language.

Engines report what happened as `trainer.games.protocol.GameEvent` values
(fields, no prose). Each event kind has exactly one message, id
``event.<kind>`` (e.g. ``event.mubeyama.pass``), with one text per language
whose ``{placeholders}`` are the event's fields, or values a game's table
prepares from them (a card's name, a seat's label). Rewording a text never
breaks a screen: nothing parses these strings back.
"""
from __future__ import annotations

from typing import Any, Iterable

from trainer.games.protocol import GameEvent
from trainer.text.messages import LANGUAGES, MESSAGES, add_messages, tr


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


def missing(kinds: Iterable[str]) -> list[str]:
    """Event kinds with no text (a test keeps this empty for every game)."""
    return [k for k in kinds if message_id(k) not in MESSAGES]


def texts(kind: str) -> dict[str, str]:
    """The text of one kind in every language, by language code."""
    return dict(zip(LANGUAGES, MESSAGES[message_id(kind)]))


add_messages({"table.seat": ("{n} 番席", "Seat {n}")})

# Events of the shared table itself (trainer.games.turn_session), not of one game.
add_event_messages({
    "table.timeout": ("{seat_name} の持ち時間（{seconds:.0f} 秒）が切れたので、代わりに CPU が打ちました",
                      "{seat_name}'s turn time ({seconds:.0f} s) ran out; the CPU played for them"),
})
