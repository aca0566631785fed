"""Refusals worded from their reason id, in the interface language.

Engines and sessions refuse an action with `trainer.games.protocol.IllegalAction`
(a reason id and fields). Each reason has one message, id ``refusal.<reason>``,
with one text per language whose ``{placeholders}`` are the refusal's fields.
A screen shows `describe_refusal(exc)`, never ``str(exc)``.
"""
from __future__ import annotations

from typing import Any

from trainer.text.messages import MESSAGES, add_messages, tr, tr_in

add_messages({
    "refusal.unknown": ("この操作はできません", "That is not allowed now"),
})


def message_id(reason: str) -> str:
    return f"refusal.{reason}"


def add_refusal_messages(table: dict[str, tuple[str, str]]) -> None:
    """Register texts by reason id: ``{"unsun.must_follow": ("…", "…")}``."""
    add_messages({message_id(reason): texts for reason, texts in table.items()})


def has_text(reason: str) -> bool:
    return message_id(reason) in MESSAGES


def describe_refusal(exc: BaseException, lang: str | None = None, **values: Any) -> str:
    """The refusal as one line in the interface language (or `lang`); `values` add fields.
    An exception without a worded reason gets the generic "not allowed now"."""
    reason = getattr(exc, "reason", None)
    fields = {**dict(getattr(exc, "fields", {}) or {}), **values}
    msg = message_id(reason) if reason and has_text(reason) else "refusal.unknown"
    if msg == "refusal.unknown":
        fields = {}
    return tr(msg, **fields) if lang is None else tr_in(lang, msg, **fields)
