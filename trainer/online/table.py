"""A table of the game server as one member sees it: built from the server's frames, no Qt.

`RemoteTable` keeps what the server last said about one table (its summary,
the member's seat, the newest view, the legal actions, the log, the outcome)
decoded into the engines' own objects with the server's codec
(`trainer.server.codec`), and offers the face of a `TurnSession` that the
app's table panels read (`view`, `legal`, `log_for`, `waiting_for`, `to_act`,
`turn_left`, `is_over`, `outcome`, `act` ...). So the local tables draw an
online game unchanged; the server decides every rule: `why_illegal` is never
answered here, `act` only sends the action with the view's ``seq``, and a
refusal comes back as a frame, worded by the app (`trainer.text.refusals`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence, cast

from trainer.games.protocol import GameEvent, GameOutcome, IllegalAction
from trainer.games.registry import find, resolve
from trainer.games.turn_session import TurnTimedOut
from trainer.server import codec

SPECTATING = None
"""A spectator's seat."""


def event_types(game: str, variant: str | None = None) -> dict[str, type[GameEvent]]:
    """The event classes a table of `game` may log, by kind (the engine's and the table's time-out)."""
    found = find(game, variant)
    assert found.events is not None
    kinds: dict[str, type[GameEvent]] = dict(cast(Any, resolve(found.events)))
    return {**kinds, TurnTimedOut.kind: TurnTimedOut}


def decode_event(game: str, kinds: dict[str, type[GameEvent]], payload: Any) -> GameEvent:
    """An ``events`` frame's entry as the engine's own event (the codec's JSON form, read back)."""
    if not isinstance(payload, dict) or payload.get("kind") not in kinds:
        raise codec.CodecError("not an event of this game")
    return codec._from_json(game, kinds[payload["kind"]], payload)  # the codec's one reader of its JSON


@dataclass
class Shape:
    """What the app's panels read of a local session's state: the number of seats."""

    players: int


class RemoteTable:
    """One table (see the module docstring). `send(type, **fields)` sends a message to the server."""

    def __init__(self, summary: dict[str, Any], send: Callable[..., Any], now: Callable[[], float] = time.monotonic):
        self.id: str = summary["table"]
        self.game: str = summary["game"]
        self.variant_name: str = summary.get("variant") or "standard"
        self.variant = find(self.game, self.variant_name)
        self.rules = _rules(self.variant)
        self.kinds = event_types(self.game, self.variant_name)
        self._send, self._now = send, now
        self.summary: dict[str, Any] = dict(summary)
        self.seat: int | None = summary.get("you")
        self.status: str = summary.get("status", "open")
        self.seq: int | None = None
        self._view: Any = None
        self._legal: list[Any] = []
        self._legal_json: list[dict[str, Any]] = []
        self.log: list[GameEvent] = []
        self._outcome: GameOutcome | None = None
        self._turn_left: tuple[float, float] | None = None    # (seconds the server said, when we heard it)
        self._acted_on: int | None = None                     # the seq of a view already answered
        self.act_id: Any = None                               # the message id of the last action sent
        self.refusals: list[str] = []
        self.state = Shape(len(summary.get("seats") or ()))
        # what a local session's pace controls read; a server table has no local pace
        self.cpu_delay = 0.0
        self.turn_seconds: float | None = summary.get("turn_seconds")
        self.clock = _Clock(now)

    # -- frames ----------------------------------------------------------------------------------
    def apply(self, frame: dict[str, Any]) -> bool:
        """Take one frame about this table; True when what a panel draws changed."""
        kind = frame.get("type")
        if kind == "table":
            self.summary = {k: v for k, v in frame.items() if k not in ("type", "id")}
            self.seat, self.status = frame.get("you"), frame.get("status", self.status)
            self.state = Shape(len(frame.get("seats") or ()))
            self.turn_seconds = frame.get("turn_seconds")
            return True
        if kind == "events":
            start = int(frame.get("from", len(self.log)))
            got = [decode_event(self.game, self.kinds, e) for e in frame.get("events", [])]
            self.log = self.log[:start] + got       # a rejoin sends the whole log again from 0
            return True
        if kind == "view":
            self.seq, self.seat, self.status = frame.get("seq"), frame.get("seat"), frame.get("status", self.status)
            self._fill_cpus()
            self._view = codec.decode_view(self.game, frame["view"])
            self._legal_json = list(frame.get("legal") or [])
            me = self.seat if self.seat is not None else -1
            self._legal = [codec.decode_action(self.game, self.rules, a, me) for a in self._legal_json]
            left = frame.get("turn_left")
            self._turn_left = None if left is None else (float(left), self._now())
            self._acted_on = None
            return True
        if kind == "over":
            out = frame.get("outcome") or {}
            self.status = "over"
            self._outcome = GameOutcome(tuple(out.get("scores", ())), tuple(out.get("winners", ())),
                                        out.get("reason", ""))
            return True
        return False

    def _fill_cpus(self) -> None:
        """Once dealt, a seat the summary still lists empty is a CPU at the table's level (the
        protocol's `start`); the server's next `table` or `lobby` list says the same."""
        seats = list(self.summary.get("seats") or [])
        if self.status != "open" and not all(seats):
            level = self.summary.get("level")
            self.summary = {**self.summary, "seats": [s or {"cpu": level} for s in seats]}

    def refusal(self, frame: dict[str, Any]) -> IllegalAction:
        """A ``refusal`` frame as the session layer's refusal (worded by `describe_refusal`);
        the action it refused is answered, so the view may be acted on again."""
        self._acted_on = None
        fields = frame.get("fields") or {}
        return IllegalAction(str(frame.get("reason", "")), "refused by the server",
                             **(fields if isinstance(fields, dict) else {}))

    @property
    def started(self) -> bool:
        return self._view is not None

    # -- the session face the app's table panels read -----------------------------------------------
    def view(self, seat: int | None = None) -> Any:
        return self._view

    def legal(self, seat: int | None = None) -> Sequence[Any]:
        return [] if self._acted_on is not None and self._acted_on == self.seq else list(self._legal)

    def waiting_for(self) -> tuple[int, ...]:
        """This member's seat while the server waits for its action (and it has not answered yet)."""
        return (self.seat,) if self.seat is not None and self.legal() else ()

    def to_act(self, seat: int | None = None) -> int | None:
        for name in ("to_act", "turn"):
            if hasattr(self._view, name):
                return getattr(self._view, name)
        return None

    def log_for(self, seat: int | None = None) -> list[GameEvent]:
        return list(self.log)

    def is_over(self) -> bool:
        return self.status == "over"

    def outcome(self) -> GameOutcome | None:
        return self._outcome

    def turn_left(self) -> float | None:
        if self._turn_left is None or not self.waiting_for():
            return None
        said, at = self._turn_left
        return max(0.0, said - (self._now() - at))

    def why_illegal(self, seat: int, action: Any) -> IllegalAction | None:
        """Never answered here: the server decides (its refusal comes back as a frame)."""
        return None

    def act(self, seat: int, action: Any) -> list[GameEvent]:
        """Send `action` on the newest view; the events come back from the server."""
        if self.seq is None or self._acted_on == self.seq:
            return []
        self._acted_on = self.seq
        self.act_id = self._send("act", table=self.id, seq=self.seq, action=codec.encode_action(action))
        return []

    def answered(self, frame: dict[str, Any]) -> bool:
        """True when an ``error`` frame answers this table's last action (nothing was played:
        the view may be acted on again)."""
        if frame.get("id") is not None and frame.get("id") == self.act_id:
            self._acted_on = None
            return True
        if frame.get("error") == "rate_limited" and self._acted_on is not None:
            # over its rate the server drops a message unread, so the answer names no id: the
            # dropped one may be this action. Acting again is safe (on a moved table: stale_seq)
            self._acted_on = None
            return True
        return False

    # the pace and clock calls a local session answers: the server's table keeps its own time
    def set_pace(self, cpu_delay: float, pause_after: Any = None) -> None:
        self.cpu_delay = cpu_delay

    def step(self) -> list[GameEvent]:
        return []

    def tick(self) -> list[GameEvent]:
        return []

    def next_due(self) -> float | None:
        return None


class _Clock:
    def __init__(self, now: Callable[[], float]):
        self.now = now


def _rules(variant: Any) -> Any:
    import importlib
    assert variant.events is not None
    return importlib.import_module(variant.events.partition(":")[0])


__all__ = ["RemoteTable", "decode_event", "event_types", "Shape", "SPECTATING"]
