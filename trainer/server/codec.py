"""Cards, actions, views and events as JSON (the server protocol's payloads).

A card is a short tagged string, the same in every frame, so a client (and the
hidden-information test) can find every card of a frame without its schema:

- Unsun karuta: ``"U:<suit>-<rank>"`` (``"U:pao-9"``, ranks 1–15);
- mekurifuda (Yomi, Yomi37): ``"M:<suit>-<rank>"`` (``"M:clubs-1"``, the
  Onifuda ``"M:oni-0"``, the Shirofuda ``"M:shiro-0"``);
- hanafuda (Ume Botan): ``"H:<number>"`` (``"H:113"``, month × 10 + k). The
  engine keeps these as plain ints; a field is a card field when its type
  annotation names ``Hana``, so the codec never guesses from the value;
- the yomifuda of bōzu-mekuri: ``"B:<poem number>"`` (``"B:99"``); who is drawn on
  it (man, monk, woman ...) is the poem's, read back from `poems.poets`.

An action's field is a card unless its annotation says ``int`` (bōzu-mekuri's stack
number), which must then be a plain integer. Views and events are frozen dataclasses (named tuples inside them become
objects); an event is ``{"kind": ..., **fields}``. An action is
``{"action": "<snake_case class name>", **fields}`` without the ``seat`` field
some engines carry: the server fills it with the sender's own seat.
"""
from __future__ import annotations

import dataclasses
import json
import re
import typing
from types import ModuleType
from typing import Any

from trainer.games.protocol import GameEvent
from trainer.rules.bozu import BozuCard
from trainer.rules.decks import HANAFUDA, ONIFUDA, SHIROFUDA, MekuriCard, mekurifuda
from trainer.rules.unsun import DECK as UNSUN_DECK
from trainer.rules.unsun import Card as UnsunCard

_UNSUN = frozenset(UNSUN_DECK)
_MEKURI = frozenset(mekurifuda()) | {ONIFUDA, SHIROFUDA}
_HANA = frozenset(HANAFUDA)
_CARD_RE = re.compile(r"^[UM]:[a-z]{1,8}-[0-9]{1,2}$|^[HB]:[0-9]{1,3}$")

CARD_PREFIX = {"unsun": "U", "yomi": "M", "yomi37": "M", "umebotan": "H", "bozu": "B"}
"""The card tag of each game the server plays."""


class CodecError(ValueError):
    """A payload that is not a well-formed card or action (the protocol's ``bad_action``)."""


# -- cards --------------------------------------------------------------------------------------

def encode_card(card: Any, hana: bool = False) -> str:
    if isinstance(card, UnsunCard):
        return f"U:{card.suit}-{card.rank}"
    if isinstance(card, MekuriCard):
        return f"M:{card.suit}-{card.rank}"
    if isinstance(card, BozuCard):
        return f"B:{card.no}"
    if hana and isinstance(card, int) and not isinstance(card, bool):
        return f"H:{card}"
    raise TypeError(f"not a card: {card!r}")


def decode_card(game: str, text: Any) -> Any:
    """The card `text` names, if it is a card of `game`'s deck; CodecError otherwise."""
    if not isinstance(text, str) or len(text) > 16:
        raise CodecError("a card is a short string such as 'U:pao-9', 'M:clubs-1' or 'H:113'")
    prefix = CARD_PREFIX.get(game)
    if prefix == "H":
        m = re.fullmatch(r"H:([0-9]{1,3})", text)
        if m and int(m.group(1)) in _HANA:
            return int(m.group(1))
    elif prefix == "B":
        m = re.fullmatch(r"B:([0-9]{1,3})", text)
        if m:
            return _bozu_card(int(m.group(1)))
    elif prefix is not None:
        m = re.fullmatch(prefix + r":([a-z]{1,8})-([0-9]{1,2})", text)
        if m:
            card: Any = (UnsunCard if prefix == "U" else MekuriCard)(m.group(1), int(m.group(2)))
            if card in (_UNSUN if prefix == "U" else _MEKURI):
                return card
    raise CodecError(f"{text!r} is not a card of {game}")


def _bozu_card(no: int) -> BozuCard:
    from poems.poets import poets
    poet = poets().get(no)
    if poet is None:
        raise CodecError(f"'B:{no}' is not a card of bozu (poems 1 to 100)")
    return BozuCard(no, poet.kind)


def is_card_text(text: str) -> bool:
    return bool(_CARD_RE.match(text))


# -- views and events ---------------------------------------------------------------------------

def _is_hana(annotation: Any) -> bool:
    return "Hana" in (annotation if isinstance(annotation, str) else repr(annotation))


def to_json(obj: Any, hana: bool = False) -> Any:
    """`obj` (a view, an event, their parts) as JSON-ready values; cards as tagged strings."""
    if obj is None or isinstance(obj, (bool, str, float)):
        return obj
    if isinstance(obj, int):
        return encode_card(obj, True) if hana else obj
    if isinstance(obj, (UnsunCard, MekuriCard, BozuCard)):
        return encode_card(obj)
    if isinstance(obj, GameEvent):
        return {"kind": obj.kind, **_fields_json(obj)}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _fields_json(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        notes = getattr(type(obj), "__annotations__", {})
        return {name: to_json(getattr(obj, name), _is_hana(notes.get(name, "")))
                for name in obj._fields}
    if isinstance(obj, (list, tuple)):
        return [to_json(x, hana) for x in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((to_json(x, hana) for x in obj), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(obj, dict):
        return {str(k): to_json(v, hana) for k, v in obj.items()}
    raise TypeError(f"no JSON form for {type(obj).__name__}")


_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}
"""Each dataclass's (field name, holds hana cards) pairs, worked out once per type: every view
and event the server sends goes through here, and `dataclasses.fields` with the annotation
test per object was a large share of the server's time per action."""


def _fields_json(obj: Any) -> dict[str, Any]:
    fields = _FIELDS.get(type(obj))
    if fields is None:
        fields = _FIELDS[type(obj)] = tuple((f.name, _is_hana(f.type)) for f in dataclasses.fields(obj))
    return {name: to_json(getattr(obj, name), hana) for name, hana in fields}


# -- actions ------------------------------------------------------------------------------------

def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def person_actions(rules: ModuleType) -> dict[str, type]:
    """The actions a person may send in a game, by protocol name (the reader's `Deal` is not one)."""
    classes = typing.get_args(rules.Action) or (rules.Action,)    # a game of one action (bōzu's Draw)
    return {_snake(c.__name__): c for c in classes if c.__name__ != "Deal"}


def encode_action(action: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"action": _snake(type(action).__name__)}
    for f in dataclasses.fields(action):
        if f.name != "seat":
            out[f.name] = to_json(getattr(action, f.name), _is_hana(f.type))
    return out


def decode_action(game: str, rules: ModuleType, payload: Any, seat: int) -> Any:
    """The engine action `payload` describes, played by `seat`; CodecError when malformed.

    A ``seat`` in the payload must be the sender's own (an action for another
    seat is refused); card fields must name cards of the game's deck."""
    if not isinstance(payload, dict):
        raise CodecError("an action is an object such as {\"action\": \"play\", \"card\": \"U:pao-9\"}")
    name = payload.get("action")
    classes = person_actions(rules)
    if not isinstance(name, str) or name not in classes:
        raise CodecError(f"unknown action; {game} knows: {', '.join(sorted(classes))}")
    cls = classes[name]
    fields = {f.name: f for f in dataclasses.fields(cls)}
    extra = set(payload) - set(fields) - {"action"}
    if extra:
        raise CodecError(f"{name} has no field {sorted(extra)[0]!r}")
    if "seat" in payload and payload["seat"] != seat:
        raise CodecError("an action may only be played for your own seat")
    values: dict[str, Any] = {}
    for fname, f in fields.items():
        if fname == "seat":
            values[fname] = seat
            continue
        raw = payload.get(fname)
        if f.type in (int, "int"):
            values[fname] = _number_field(name, fname, raw, f.default)
            continue
        optional = f.default is None
        if raw is None:
            if not optional:
                raise CodecError(f"{name} needs {fname!r}")
            values[fname] = None
            continue
        values[fname] = decode_card(game, raw)
    return cls(**values)


def _number_field(action: str, name: str, raw: Any, default: Any) -> int:
    """An integer field of an action (the engine judges its range: a refusal, not a codec error)."""
    if raw is None and isinstance(default, int):
        return default
    if not isinstance(raw, int) or isinstance(raw, bool) or abs(raw) > 1_000:
        raise CodecError(f"{action}'s {name!r} is a small whole number")
    return raw


# -- views back from JSON (the bot's CPU players read them) -------------------------------------

VIEW_CLASSES = {"unsun": "trainer.rules.unsun:UnsunView", "yomi": "trainer.rules.yomi:YomiView",
                "yomi37": "trainer.rules.yomi:YomiView", "umebotan": "trainer.rules.umebotan:UmeBotanView",
                "bozu": "trainer.rules.bozu:BozuView"}


def decode_view(game: str, payload: Any) -> Any:
    """A ``view`` frame's view as the engine's own view object (what a CPU player reads)."""
    from trainer.games.registry import resolve
    return _from_json(game, resolve(VIEW_CLASSES[game]), payload)


def _from_json(game: str, tp: Any, value: Any) -> Any:
    import types
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is not type(None):
                try:
                    return _from_json(game, arg, value)
                except (CodecError, TypeError, ValueError, KeyError):
                    continue
        raise CodecError(f"no form of {tp} fits {value!r:.40}")
    if tp in (UnsunCard, MekuriCard, BozuCard) or (tp is int and isinstance(value, str)):
        return decode_card(game, value)
    if tp in (int, str, bool, float) or tp is Any:
        return value
    if isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields"):
        hints = typing.get_type_hints(tp)
        return tp(**{name: _from_json(game, hints[name], value[name]) for name in tp._fields})
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: _from_json(game, hints[f.name], value[f.name]) for f in dataclasses.fields(tp)})
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(game, args[0], v) for v in value)
        return tuple(_from_json(game, a, v) for a, v in zip(args, value))
    if origin in (frozenset, set):
        return frozenset(_from_json(game, args[0], v) for v in value)
    if origin is list:
        return [_from_json(game, args[0], v) for v in value]
    if origin is dict:
        return {_from_json(game, args[0], int(k) if args[0] is int else k): _from_json(game, args[1], v)
                for k, v in value.items()}
    raise TypeError(f"no JSON form for {tp}")
