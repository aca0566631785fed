"""A live table: its seats, its session (through `adapter.Driver`), its action log and what each seat may see.

The table decides nothing about the game: the session does. The table keeps
who sits where, records every confirmed action (a person's, or a time-out)
before anybody hears of it, and words what each audience receives:
``view(seat)`` and ``log_for(seat)`` for a seat, a public view and the
spectators' log (`adapter.SPECTATOR`) for everyone else.
"""
from __future__ import annotations

import asyncio
import dataclasses
import secrets
from typing import Any

from trainer.games.protocol import GameEvent, IllegalAction
from trainer.games.registry import Variant, find
from trainer.server import codec
from trainer.server.adapter import DEFAULT_LEVEL, SPECTATOR, Driver, TableClock
from trainer.server.store import StoredAction

OPEN, PLAYING, OVER = "open", "playing", "over"


def rules_module(variant: Variant) -> Any:
    """The engine module of a turn game (the registry's ``events`` names it)."""
    import importlib
    assert variant.events is not None
    return importlib.import_module(variant.events.partition(":")[0])


def public_view(game: str, view: Any) -> Any:
    """A seat's view with everything private to that seat removed: what a spectator sees."""
    if game == "unsun":
        from trainer.rules.unsun import ROBAI_CHOICE, SeenCard
        trick = tuple(SeenCard(t.seat, None if t.face_down else t.card, t.face_down) for t in view.trick)
        return dataclasses.replace(view, seat=SPECTATOR, hand=(), discard=None, trick=trick,
                                   to_act=None if view.phase == ROBAI_CHOICE else view.to_act)
    if game in ("yomi", "yomi37"):
        return dataclasses.replace(view, seat=SPECTATOR, hand=(), teyaku=())
    if game == "umebotan":
        return dataclasses.replace(view, seat=SPECTATOR, hand=())
    if game == "bozu":      # hands and pot lie face up; the stacks' order is in no view
        return dataclasses.replace(view, seat=SPECTATOR)
    raise KeyError(game)


class LiveTable:
    """One table of the lobby (see the module docstring)."""

    def __init__(self, row: dict[str, Any], base_clock: Any):
        self.id: str = row["id"]
        self.variant = find(row["game"], row["variant"])
        self.game = self.variant.game
        self.seed: str = row["seed"]
        self.options: dict[str, Any] = dict(row["options"])
        self.seats: list[dict[str, Any]] = [dict(s) for s in row["seats"]]
        """Per seat: ``{"user": id, "name": ...}`` for a person, ``{"cpu": level}``, or ``{}`` (empty)."""
        self.status: str = row["status"]
        self.private: bool = bool(row["private"])
        self.code: str | None = row.get("code")
        self.host: int | None = row.get("host")
        self.owner: str | None = row.get("owner")
        """The server process that runs this table's timers (see `trainer.server.cluster`)."""
        self.rules = rules_module(self.variant)
        self.wall = base_clock
        self.clock = TableClock()
        self.changed_at = base_clock.now()
        """Wall-clock time of the last change (a turn has run since then)."""
        self.driver: Driver | None = None
        self.seq = 0
        """Records in the action log (persons' actions and time-outs)."""
        self.away: dict[int, float] = {}
        """Seats whose person has no connection to the table, since when (wall clock): after
        `ServerConfig.seat_hold` seconds their stand-in CPU plays their turns until they return."""
        self.lock = asyncio.Lock()
        """Held while the table changes or catches up with the database (the database calls
        run off the event loop, so two messages for one table could otherwise interleave)."""

    @staticmethod
    def new_row(variant: Variant, seats: int, level: str, cpus: list[int], turn_seconds: float | None,
                private: bool, host: int, seed: str | None, rules: dict[str, int]) -> dict[str, Any]:
        return {"id": secrets.token_hex(4), "game": variant.game, "variant": variant.variant,
                "seed": seed or secrets.token_hex(8),
                "options": {"level": level, "turn_seconds": turn_seconds, **rules},
                "seats": [{"cpu": level} if s in cpus else {} for s in range(seats)],
                "status": OPEN, "private": private,
                "code": secrets.token_urlsafe(6) if private else None, "host": host}

    # -- seats ---------------------------------------------------------------------------------
    def seat_of(self, user_id: int) -> int | None:
        for s, info in enumerate(self.seats):
            if info.get("user") == user_id:
                return s
        return None

    def free_seats(self) -> list[int]:
        return [s for s, info in enumerate(self.seats) if not info]

    def is_full(self) -> bool:
        return not self.free_seats()

    def summary(self) -> dict[str, Any]:
        """The table as the lobby lists it (no seed, no code, nothing of the game's cards)."""
        return {"table": self.id, "game": self.game, "variant": self.variant.variant,
                "seats": [self._seat_summary(s, n in self.away) for n, s in enumerate(self.seats)],
                "status": self.status,
                "private": self.private, "level": self.options.get("level"),
                "turn_seconds": self.options.get("turn_seconds")}

    @staticmethod
    def _seat_summary(info: dict[str, Any], away: bool) -> dict[str, Any] | None:
        if "cpu" in info:
            return {"cpu": info["cpu"]}
        if "user" in info:
            return {"name": info["name"], "away": True} if away else {"name": info["name"]}
        return None

    # -- play ----------------------------------------------------------------------------------
    def filled(self, seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`seats` with every empty one given a CPU at the table's level (what a start does)."""
        level = self.options.get("level") or DEFAULT_LEVEL[self.game]
        return [info or {"cpu": level} for info in seats]

    def start(self) -> list[GameEvent]:
        """Fill the empty seats with CPUs at the table's level and deal."""
        self.seats = self.filled(self.seats)
        self.status = PLAYING
        self.changed_at = self.wall.now()
        self._build()
        assert self.driver is not None
        events = self.driver.settle()
        self._check_over()
        return events

    def _build(self) -> None:
        kinds = ["cpu" if "cpu" in info else "human" for info in self.seats]
        levels = [info.get("cpu") or DEFAULT_LEVEL[self.game] for info in self.seats]
        opts: dict[str, Any] = {"levels": levels, "cpu_level": self.options.get("level"),
                                "turn_seconds": self.options.get("turn_seconds")}
        for key in ("deals", "rounds"):
            if self.options.get(key):
                opts[key] = self.options[key]
        self.driver = Driver(self.variant, self.seed, kinds, opts, self.clock)

    def act(self, seat: int, action: Any) -> list[GameEvent]:
        """A person's action (IllegalAction when refused: nothing changed), then whatever the CPUs do."""
        if self.driver is None or self.status != PLAYING:
            raise IllegalAction("table.not_playing", "the table is not playing")
        events = self.driver.act(seat, action)
        self.changed_at = self.wall.now()
        return events

    def after_action(self) -> list[GameEvent]:
        assert self.driver is not None
        events = self.driver.settle()
        if events:
            self.changed_at = self.wall.now()
        self._check_over()
        return events

    def time_out(self) -> list[GameEvent]:
        """The running turn is over on the table's clock: its stand-in plays (then the CPUs)."""
        assert self.driver is not None
        due = self.driver.next_due()
        if due is None:
            return []
        self.clock.advance_to(due + 0.001)
        return self.after_action()

    def turn_left(self) -> float | None:
        """Seconds until the table moves by itself (a turn's time-out), on the wall clock."""
        if self.driver is None:
            return None
        due = self.driver.next_due()
        if due is None:
            return None
        return max(0.0, due - self.clock.now() - (self.wall.now() - self.changed_at))

    def _check_over(self) -> None:
        if self.driver is not None and self.driver.session.is_over():
            self.status = OVER

    def restore(self, actions: list[StoredAction]) -> None:
        """Rebuild a started table by replaying its action log on its seeded session."""
        if self.status == OPEN:
            return
        self._build()
        self.replay(actions)

    def replay(self, actions: list[StoredAction]) -> None:
        """Apply records of the action log this table has not applied yet (a restore, or
        catching up with what another server process recorded)."""
        assert self.driver is not None
        for record in actions:
            if record.seq < self.seq:
                continue
            if record.seq != self.seq:
                raise RuntimeError(f"table {self.id}: record {record.seq} where {self.seq} was next")
            self.driver.settle()
            if record.kind == "act":
                assert record.action is not None
                self.driver.act(record.seat, codec.decode_action(self.game, self.rules, record.action,
                                                                 record.seat))
            else:
                due = self.driver.next_due()
                if due is None:
                    raise RuntimeError(f"table {self.id}: a time-out where no turn runs")
                self.clock.advance_to(due + 0.001)
            self.seq = record.seq + 1
            self.changed_at = self.wall.now()
        self.driver.settle()
        self._check_over()

    # -- what each audience receives -----------------------------------------------------------
    def view_for(self, seat: int | None) -> Any:
        """`view(seat)` of a seat; the public view for a spectator (None)."""
        assert self.driver is not None
        if seat is None:
            return public_view(self.game, self.driver.session.view(0))
        return self.driver.session.view(seat)

    def full_log(self) -> list[GameEvent]:
        """Every entry of the game, every seat's private ones included (for the players, once over)."""
        assert self.driver is not None and self.status == OVER
        return list(self.driver.session.log)

    def log_for(self, seat: int | None) -> list[GameEvent]:
        assert self.driver is not None
        return self.driver.session.log_for(SPECTATOR if seat is None else seat)

    def outcome(self) -> Any:
        return None if self.driver is None else self.driver.outcome()

