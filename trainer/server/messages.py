"""A client message checked before anything acts on it: size, JSON, depth, its fields and their types.

`SCHEMA` is the protocol's list of client messages and their fields
(``docs/server-protocol.md``); `parse_message` returns a message that fits it
or raises `ClientError` (the ``error`` frame's id and one fixed English line).
"""
from __future__ import annotations

import json
from typing import Any

from trainer.server.race_protocol import RACE_SCHEMA


class ClientError(Exception):
    """A message the server answers with an ``error`` frame (an id and a fixed English line;
    `fields`: what a client acts on, such as the ``url`` of the process holding a race table)."""

    def __init__(self, error: str, message: str, **fields: Any):
        super().__init__(message)
        self.error = error
        self.message = message
        self.fields = fields


_STR, _INT, _NUM, _BOOL, _OBJ, _LIST = "str", "int", "num", "bool", "obj", "list"
SCHEMA: dict[str, dict[str, tuple[str, bool]]] = {
    "hello": {"version": (_INT, True), "client": (_STR, False)},
    "sign_up": {"name": (_STR, True), "password": (_STR, True)},
    "log_in": {"name": (_STR, False), "password": (_STR, False), "token": (_STR, False)},
    "guest": {},
    "lobby": {},
    "create_table": {"game": (_STR, True), "variant": (_STR, False), "seats": (_INT, False),
                     "level": (_STR, False), "cpus": (_LIST, False), "turn_seconds": (_NUM, False),
                     "private": (_BOOL, False), "seed": (_STR, False), "deals": (_INT, False),
                     "rounds": (_INT, False)},
    "join": {"table": (_STR, True), "code": (_STR, False), "seat": (_INT, False)},
    "spectate": {"table": (_STR, True), "code": (_STR, False)},
    "sit": {"table": (_STR, True), "seat": (_INT, True)},
    "leave": {"table": (_STR, True)},
    "start": {"table": (_STR, True)},
    "act": {"table": (_STR, True), "seq": (_INT, True), "action": (_OBJ, True)},
    "leaderboard": {"game": (_STR, False), "limit": (_INT, False)},
}
SCHEMA.update(RACE_SCHEMA)   # kyōgi judged on reaction times (trainer.server.race)
MAX_STR = 200


def _type_ok(value: Any, kind: str) -> bool:
    if kind == _STR:
        return isinstance(value, str) and len(value) <= MAX_STR
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**31
    if kind == _NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _OBJ:
        return isinstance(value, dict)
    return isinstance(value, list) and len(value) <= 16


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(item, dict):
            stack += [(v, d + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, d + 1) for v in item]
    return deepest


def parse_message(text: Any, max_message: int, max_depth: int) -> dict[str, Any]:
    """A checked client message, or ClientError saying what is wrong with it."""
    if not isinstance(text, str):
        raise ClientError("bad_message", "messages are JSON text")
    if len(text.encode("utf-8", "surrogatepass")) > max_message:
        raise ClientError("too_large", f"a message is at most {max_message} bytes")
    try:
        msg = json.loads(text)
    except RecursionError:
        raise ClientError("too_deep", "the message is nested too deeply") from None
    except ValueError:
        raise ClientError("malformed_json", "the message is not valid JSON") from None
    if _depth(msg) > max_depth:
        raise ClientError("too_deep", "the message is nested too deeply")
    try:
        # a "\ud800" escape parses into a lone surrogate, which no frame can carry back: the
        # reply echoing the id (or anything else) would fail to send and drop the connection
        json.dumps(msg, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ClientError("bad_message", "a string holds a lone surrogate (not Unicode text)") from None
    if not isinstance(msg, dict):
        raise ClientError("bad_message", "a message is a JSON object with a \"type\"")
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise ClientError("bad_message", "a message is a JSON object with a \"type\"")
    if kind not in SCHEMA:
        raise ClientError("unknown_type", "unknown message type")
    ident = msg.get("id")
    if ident is not None and not (_type_ok(ident, _INT) or (isinstance(ident, str) and len(ident) <= 64)):
        raise ClientError("bad_message", "\"id\" is an integer or a short string")
    fields = SCHEMA[kind]
    for name in msg:
        if name not in fields and name not in ("type", "id"):
            raise ClientError("bad_message", f"{kind} has no field {name!r}"[:120])
    for name, (ftype, required) in fields.items():
        if name not in msg or (msg[name] is None and not required):
            if required:
                raise ClientError("bad_message", f"{kind} needs {name!r}")
            continue
        if not _type_ok(msg[name], ftype):
            raise ClientError("bad_message", f"{kind}: {name!r} has the wrong type")
    return msg
