"""The Unsun karuta table as a session, for the app and `karuta simulate unsun`.

The turn games' one factory (`trainer.games.card_table.new_turn_session`) with
Unsun's engine and CPUs: the same seed deals the same cards in the app and in
the simulator. Options: those of `card_table` (``level`` for every CPU,
default "medium", the platform's "CPU: Medium"; ``against`` with
``test_seat``: the test seat's *team* plays ``level``, the other team
``against``), ``turn_seconds`` (off unless given; the platform's is
`TURN_SECONDS`), and the rules settings of `trainer.rules.unsun.UnsunRules`
(``deals``, ``first_lead``, ``unheld_robai``, ``yaku_order``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from trainer.games.card_table import new_turn_session
from trainer.games.turn_session import TurnSession
from trainer.players.unsun_cpu import make_cpu
from trainer.rules.unsun import PLAYERS, UnsunRules, new_game, team_of

TURN_SECONDS = 300.0
"""The platform's turn timer: "5m/turn"."""
DEFAULT_LEVEL = BEST_LEVEL = "medium"


def new_session(variant: Any, seed: int | str, seats: Sequence[str],
                options: Mapping[str, Any] | None = None) -> TurnSession:
    """A table for `seats` (eight of "human"/"cpu"); the variant's options, then `options`, apply."""
    if len(seats) != PLAYERS:
        raise ValueError(f"Unsun karuta is played by {PLAYERS} players, not {len(seats)}")
    return new_turn_session(
        variant, seed, seats, options, best=BEST_LEVEL, side_of=team_of,
        new_state=lambda players, opts: new_game(seed, UnsunRules.from_options(dict(opts))),
        make_cpu=lambda seat, level: make_cpu(level, seat, seed))
