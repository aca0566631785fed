"""Mubeyama karuta (むべ山かるた): a pure, seeded rules engine for the four rulesets of seed 000.

    >>> from trainer.rules.mubeyama import READER, Okayama, new_game
    >>> game = new_game(Okayama(), players=4, seed=1)
    >>> while not game.is_over():
    ...     seat = game.to_act()
    ...     _ = game.apply(game.next_read() if seat == READER else game.legal_actions(seat)[0])
    >>> len(game.winners())
    1

`events` holds what happens (structured `GameEvent`s, `EVENT_TYPES`); `core`
the state machine, actions and views (it knows rulesets only through the
`Rules` protocol); `rulesets` the four rulesets (Okayama, Izumoji, Gambling4,
Gambling5), `new_game` and the one list of playable `VARIANTS`.
"""
from .core import (ALL_CARDS, READER, Action, AwaitFlip, AwaitPass, AwaitRead, AwaitReveal, Event, Flip,
                   GameOver, IllegalAction, Layout, LayoutError, MubeyamaError, MubeyamaState,
                   MubeyamaView, Pass, Payment, Pending, Read, Rules, SeatView, SlotView, Table,
                   deal_order, describe_pending, reading_order, waiting_for)
from .events import (ALL_FACE_DOWN, ALL_READ, ALL_ROWS, EVENT_TYPES, LINE, PAY_HIDDEN, PAY_MUBEYAMA,
                     PAY_ROW, PAY_TSUKI_YUKI_HANA, CardNo, CardRead, Dealt, Flipped, HiddenDealt, LineCompleted,
                     MubeyamaEvent, NotInPlay, Paid, Passed, Revealed, RowCompleted, ShortOfCards,
                     Won)
from .rulesets import (DEFAULT_PLAYERS, RULESETS, VARIANTS, Gambling, Gambling4, Gambling5,
                       Izumoji, Okayama, Ruleset, Stakes, VariantSpec, grid_lines, line_name,
                       make_ruleset, new_game)

__all__ = [
    "ALL_CARDS", "READER", "Action", "AwaitFlip", "AwaitPass", "AwaitRead", "AwaitReveal", "CardNo", "Event",
    "Flip", "GameOver", "IllegalAction", "Layout", "LayoutError", "MubeyamaError", "MubeyamaState",
    "MubeyamaView", "Pass", "Payment", "Pending", "Read", "Rules", "SeatView", "SlotView", "Table",
    "deal_order", "describe_pending", "reading_order", "waiting_for",
    "ALL_FACE_DOWN", "ALL_READ", "ALL_ROWS", "LINE", "PAY_HIDDEN", "PAY_MUBEYAMA", "PAY_ROW",
    "PAY_TSUKI_YUKI_HANA", "EVENT_TYPES", "CardRead", "Dealt", "Flipped", "HiddenDealt", "LineCompleted",
    "MubeyamaEvent",
    "NotInPlay", "Paid", "Passed", "Revealed", "RowCompleted", "ShortOfCards", "Won",
    "DEFAULT_PLAYERS", "RULESETS", "VARIANTS", "Gambling", "Gambling4", "Gambling5", "Izumoji",
    "Okayama", "Ruleset", "Stakes", "VariantSpec", "grid_lines", "line_name", "make_ruleset",
    "new_game",
]
