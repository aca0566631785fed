"""Kimariji (決まり字): the opening that decides which card is being read.

A poem's kimariji is the shortest opening of its kami-no-ku, counted in
historical kana, that no other poem still to be read shares as heard
(see Poem.listening_key). With all 100 in play these are the static kimariji;
as cards are read they can only get shorter (kimariji henka, 決まり字の変化).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from poems import database


@lru_cache(maxsize=1)
def opening_table() -> tuple[list[list[int]], list[int]]:
    """For every pair of poems, how many kana their openings share as heard; and
    each poem's key length. Built once (a game asks at every read)."""
    keys = [[]] + [p.listening_key() for p in database.ALL]
    shared = [[0] * 101 for _ in range(101)]
    for a in range(1, 101):
        for b in range(a + 1, 101):
            n = 0
            for x, y in zip(keys[a], keys[b]):
                if x != y:
                    break
                n += 1
            shared[a][b] = shared[b][a] = n
    return shared, [len(k) for k in keys]


def shared_opening(a: int, b: int) -> int:
    """How many historical kana poems `a` and `b` share at the start, as heard."""
    return opening_table()[0][database.check_no(a)][database.check_no(b)]


def lengths(in_play: Iterable[int]) -> dict[int, int]:
    """Kimariji length (in historical kana) of each poem among `in_play`."""
    nos = sorted(set(in_play))
    shared, key_len = opening_table()
    return {no: min(max((shared[no][o] for o in nos if o != no), default=0) + 1, key_len[no])
            for no in nos}


def dynamic(read: Iterable[int] = (), in_play: Iterable[int] | None = None) -> dict[int, str]:
    """Current kimariji of every unread poem, after the poems in `read` were read.

    `in_play` limits the poems considered (default all 100). Every yomifuda
    is read in a real game, karafuda too, so `read` may name any poem.
    """
    read_set = {database.check_no(n) for n in read}
    pool = set(range(1, 101) if in_play is None else (database.check_no(n) for n in in_play))
    unread = pool - read_set
    return {no: database.get(no).kana_prefix(n) for no, n in lengths(unread).items()}


def static(no: int) -> str:
    return database.get(no).kimariji


def confusable(no: int, read: Iterable[int] = ()) -> list[int]:
    """The tomofuda (友札) group of `no` among unread poems: those sharing its opening.

    The group is every unread poem whose opening, as heard, equals `no`'s up to
    (not including) its current decisive kana; `no` itself is included. A card
    decided by its first kana (むすめふさほせ) stands alone.
    """
    read_set = {database.check_no(n) for n in read} - {database.check_no(no)}
    unread = set(range(1, 101)) - read_set
    shared = lengths(unread)[no] - 1
    if shared == 0:
        return [no]
    key = database.get(no).listening_key()[:shared]
    return sorted(p for p in unread if database.get(p).listening_key()[:shared] == key)
