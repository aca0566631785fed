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
from trainer.ui.i18n import LANGUAGES, MESSAGES, add_messages, tr


def message_id(kind: str) -> str:
    return f"event.{kind}"


def add_event_messages(table: dict[str, tuple[str, str]]) -> None:
    """Register texts by event kind: ``{"mubeyama.pass": ("…", "…")}``."""
    add_messages({message_id(kind): texts for kind, texts in table.items()})


def describe(event: GameEvent, **values: Any) -> str:
    """The event as one line in the interface language; `values` add or override fields."""
    return tr(message_id(event.kind), **{**event.fields(), **values})


def missing(kinds: Iterable[str]) -> list[str]:
    """Event kinds with no text (a test keeps this empty for every game)."""
    return [k for k in kinds if message_id(k) not in MESSAGES]


def texts(kind: str) -> dict[str, str]:
    """The text of one kind in every language, by language code."""
    return dict(zip(LANGUAGES, MESSAGES[message_id(kind)]))
