"""Helpers for the Mubeyama tests (no tests here): entered layouts, forced readings, plain cards."""
from __future__ import annotations

from poems.yaku import SEED
from trainer.rules.mubeyama import (READER, AwaitFlip, AwaitRead, Flip, MubeyamaState, Read,
                                    Ruleset, new_game)

# Cards that no ruleset treats as yaku: reading them does nothing but a flip.
PLAIN = [n for n in range(1, 101)
         if not (n in SEED.set1 or n in SEED.mountains or n in SEED.mountains_double
                 or n in SEED.sadness or n in SEED.tsuki_yuki_hana or n == 22)]


def layouts(ruleset: Ruleset, players: int, placed: dict[int, list[int]],
            unused: tuple[int, ...] = ()) -> list[list[int]]:
    """Each seat's slots: *placed* first (slot order), then plain cards, then the rest."""
    n = ruleset.cards_per_seat(players)
    taken = {no for cards in placed.values() for no in cards} | set(unused)
    fill = [no for no in PLAIN if no not in taken]
    fill += [no for no in range(1, 101) if no not in taken and no not in fill]
    out = []
    for seat in range(players):
        cards = list(placed.get(seat, []))
        while len(cards) < n:
            cards.append(fill.pop(0))
        out.append(cards)
    return out


def game(ruleset: Ruleset, players: int, placed: dict[int, list[int]] | None = None,
         seed: int = 0, unused: tuple[int, ...] = ()) -> MubeyamaState:
    return new_game(ruleset, players, seed, layouts(ruleset, players, placed or {}, unused))


def read_and_flip(state: MubeyamaState, no: int) -> None:
    """The reader reads *no*; its owner flips it (if anyone holds it)."""
    assert isinstance(state.pending, AwaitRead), state.pending
    state.apply(Read(no))
    if isinstance(state.pending, AwaitFlip):
        assert state.pending.no == no
        state.apply(Flip(state.pending.seat, no))


def face_up(state: MubeyamaState, seat: int) -> set[int]:
    return set(state.tables[seat].face_up)


def holder(state: MubeyamaState, no: int) -> int | None:
    return state.where[no]


__all__ = ["PLAIN", "READER", "layouts", "game", "read_and_flip", "face_up", "holder"]
