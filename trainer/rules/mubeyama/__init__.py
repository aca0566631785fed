"""Mubeyama karuta (むべ山かるた): a pure, seeded rules engine for the four rulesets of seed 000.

    >>> from trainer.rules.mubeyama import READER, Okayama, new_game
    >>> game = new_game(Okayama(), players=4, seed=1)
    >>> while not game.is_over():
    ...     seat = game.to_act()
    ...     _ = game.apply(game.next_read() if seat == READER else game.legal_actions(seat)[0])
    >>> len(game.winners())
    1

`core` holds the state machine, actions and views; `rulesets` the four
rulesets (Okayama, Izumoji, Gambling4, Gambling5) and `new_game`.
"""
from .core import (ALL_CARDS, READER, Action, AwaitFlip, AwaitPass, AwaitRead, CardNo, Event,
                   Flip, GameOver, IllegalAction, LayoutError, MubeyamaError, MubeyamaState,
                   MubeyamaView, Pass, Payment, Pending, Read, SeatView, SlotView, Table)
from .rulesets import (DEFAULT_PLAYERS, RULESETS, Gambling, Gambling4, Gambling5, Izumoji, Okayama,
                       Ruleset, Stakes, grid_lines, new_game)

__all__ = [
    "ALL_CARDS", "READER", "Action", "AwaitFlip", "AwaitPass", "AwaitRead", "CardNo", "Event",
    "Flip", "GameOver", "IllegalAction", "LayoutError", "MubeyamaError", "MubeyamaState",
    "MubeyamaView", "Pass", "Payment", "Pending", "Read", "SeatView", "SlotView", "Table",
    "DEFAULT_PLAYERS", "RULESETS", "Gambling", "Gambling4", "Gambling5", "Izumoji", "Okayama",
    "Ruleset", "Stakes", "grid_lines", "new_game",
]
