"""What the app offers when it creates a table on a server: the games the server plays and their CPU levels.

The same lists as the server's (protocol 1: the turn games), read from the
registry and the CPU players, so the create form offers nothing the server
would refuse as ``bad_option``.
"""
from __future__ import annotations

from trainer.games.registry import find
from trainer.players import bozu_cpu, umebotan_cpu, unsun_cpu, yomi_cpu

TABLE_KINDS = (("unsun", "standard"), ("yomi", "standard"), ("yomi", "wild"), ("yomi37", "standard"),
               ("umebotan", "standard"), ("bozu", "standard"))
"""(game, variant) of every table the server plays (``docs/server-protocol.md``)."""

LEVELS: dict[str, tuple[str, ...]] = {"unsun": unsun_cpu.LEVELS, "yomi": yomi_cpu.LEVELS,
                                      "yomi37": yomi_cpu.LEVELS, "umebotan": umebotan_cpu.LEVELS,
                                      "bozu": bozu_cpu.LEVELS}
DEFAULT_LEVEL = {"unsun": "medium", "yomi": "sample", "yomi37": "sample", "umebotan": "greedy", "bozu": "first"}
LENGTH: dict[str, tuple[str, int, int, int]] = {"unsun": ("deals", 1, 8, 8), "yomi": ("rounds", 1, 10, 3),
                                                "yomi37": ("rounds", 1, 10, 3), "umebotan": ("rounds", 2, 12, 12)}
"""A table's length: (the create_table field, fewest, most, the usual), as the server bounds it
(bōzu-mekuri has none: one game through the stack)."""
TURN_SECONDS = 300
"""The seed's turn timer: 5 minutes (the server's default too)."""


def seat_range(game: str, variant: str) -> tuple[int, int, int]:
    """(fewest, most, usual) seats of a table of `game`/`variant`."""
    v = find(game, variant)
    return v.min_seats, v.max_seats, v.seats
