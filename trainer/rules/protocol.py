"""The protocol every game's rules engine follows (the sessions' is `trainer.games.protocol`).

Modelled on OpenSpiel's ``State`` and python-chess's ``Board``:

- `actors()`: who may act now: seats, `READER` (the reader / chance: a card
  to read, a deal to make), or nobody once the game is over. Several seats
  at once is a simultaneous move (the kyōgi race);
- `legal_actions(seat)`: the actions that seat may take now (small frozen
  dataclasses; "malformed" raises `ValueError`, "not allowed now" raises
  `IllegalAction` (below: a reason id and fields, worded by `trainer.text.refusals`));
- `apply(action)`: changes the state and returns what happened (at least
  one event per action) as `GameEvent` values: frozen dataclasses with fields, never prose. The UI
  turns each event kind into text in the player's language
  (`trainer.text.events`); the log, statistics and tests read the fields;
- `is_over()` / `outcome()`: the result as a value (`GameOutcome`);
- `view(seat)`: only what that seat may see (hidden cards stay hidden);
- `clone()`: an independent copy (CPU look-ahead, tests);
- optional ``redact(event, seat) -> GameEvent | None``: the event as that
  seat may see it (a face-down card hidden), None when the seat does not
  learn of it; without it every event is public;
- `check_invariants()`: raises `AssertionError` when the state is inconsistent
  (cards conserved, scores consistent); tests and simulators call it after
  every step.

A state is deterministic: everything random comes from the seed it was made
with, so the same seed gives the same deal and reading order in the app and
in the simulator.

It lives in the rules package, the lowest game layer: engines import it, and
the sessions (`trainer.games`) import the engines, never the other way round.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Sequence, TypeVar, runtime_checkable

READER = -1
"""The reader / chance pseudo-seat (OpenSpiel's CHANCE): reads a card, deals."""


class IllegalAction(ValueError):
    """An action the rules do not allow now, explained as data.

    `reason` is an id (``"unsun.must_follow"``, ``"turn.not_your_turn"`` ...) and
    `fields` its values; every screen words it from the id in its own language
    (`trainer.text.refusals.describe_refusal`), a server sends both as they are.
    ``str(exc)`` is one English line for logs and the command line."""

    def __init__(self, reason: str, message: str = "", **fields: Any):
        super().__init__(message or reason)
        self.reason = reason
        self.fields = fields


@dataclass(frozen=True)
class GameEvent:
    """Base of every event an engine reports. Subclasses are frozen dataclasses whose
    fields say everything (seat, card, amount ...); `kind` names the event for the
    message table (``"<game>.<what>"``, e.g. ``"kyogi.take"``)."""

    kind: ClassVar[str] = "event"

    def fields(self) -> dict[str, Any]:
        """The event's fields by name (for messages, logs and JSON)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class GameOutcome:
    """The result of a finished game."""

    scores: tuple[int, ...]
    """Per seat, in the game's own unit (cards left in kyōgi, Mon or points elsewhere)."""
    winners: tuple[int, ...]
    """The winning seat(s); several for a shared win or a team."""
    reason: str = ""
    """Why it ended, as an id (``"side_empty"``, ``"line"``, ``"hand_empty"`` ...), not prose."""


A = TypeVar("A")
V = TypeVar("V", covariant=True)


@runtime_checkable
class GameState(Protocol[A, V]):
    """What every game's state offers (see the module docstring)."""

    @property
    def players(self) -> int: ...

    def actors(self) -> tuple[int, ...]: ...

    def legal_actions(self, seat: int) -> Sequence[A]: ...

    def apply(self, action: A) -> Sequence[GameEvent]: ...

    def is_over(self) -> bool: ...

    def outcome(self) -> GameOutcome | None: ...

    def view(self, seat: int) -> V: ...

    def clone(self) -> "GameState[A, V]": ...

    def check_invariants(self) -> None: ...


def event_kinds(*classes: type[GameEvent]) -> dict[str, type[GameEvent]]:
    """A game's event classes by kind; refuses two classes with one kind."""
    out: dict[str, type[GameEvent]] = {}
    for cls in classes:
        if cls.kind in out:
            raise ValueError(f"two event classes share the kind {cls.kind!r}")
        out[cls.kind] = cls
    return out
