"""Kimariji (決まり字): the opening that decides which card is being read.

A poem's kimariji is the shortest opening of its kami-no-ku, counted in
historical kana, that no other poem still to be read shares as heard
(see Poem.listening_key). With all 100 in play these are the static kimariji;
as cards are read they can only get shorter (kimariji henka, 決まり字の変化).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from poems import database


@lru_cache(maxsize=1)
def opening_table() -> tuple[list[list[int]], list[int]]:
    """For every pair of poems, how many kana their openings share as heard; and
    each poem's key length. Built once (a game asks at every read)."""
    keys: list[list[str]] = [[]] + [p.listening_key() for p in database.ALL]  # index 0: the joka's place
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


@lru_cache(maxsize=1)
def _mora_counts() -> list[list[int]]:
    """Per poem: how many kami-no-ku morae it takes to hear its first n historical kana."""
    return [[]] + [[p.kimariji_mora_count(n) for n in range(len(p.listening_key()) + 1)]
                   for p in database.ALL]


def length_among(no: int, unread: Iterable[int]) -> int:
    """Kimariji length of `no` (in historical kana) while the poems in `unread` may still be read."""
    shared, key_len = opening_table()
    longest = max((shared[no][g] for g in unread if g != no), default=0)
    return min(longest + 1, key_len[no])


def mora_index(no: int, n_kana: int) -> int:
    """Index of the kami-no-ku mora in which the `n_kana`-th historical kana is heard:
    its onset (the programme's ``kami:mora:K`` mark) is when those kana have sounded."""
    return _mora_counts()[no][n_kana] - 1


SPELLINGS = ("sound", "historical")
"""How kimariji are written: as read aloud, in modern kana (おうこ, なにわが; what players,
printed competition kimariji and peer trainers use) or in historical kana (あふこ, なにはが)."""

# The particles は and を inside a kimariji: read わ and お, but modern kana (現代仮名遣い)
# still writes them は and を (ひとは, not ひとわ), as players do. Poem → index of the particle
# among its kami-no-ku's historical kana. Only kimariji-length openings matter (a dynamic
# kimariji is never longer than the static one); `tests/test_kimariji_cli.py` checks every
# は/を/へ of every kimariji is either here or read as written in modern kana.
PARTICLES = {35: 2, 48: 2, 62: 1, 63: 2, 93: 4}


def sound(no: int, n_kana: int) -> str:
    """The first `n_kana` historical kana of poem `no`'s kami-no-ku as they are read aloud,
    written in modern kana: the sound form of the morae that carry them (あふこ → おうこ,
    をぐ → おぐ), the particles は/を kept as written (ひとは, よを)."""
    poem = database.get(no)
    morae = poem.kami_morae()

    def read(a: int, b: int) -> str:       # the morae carrying historical kana a..b-1
        return "".join(morae[poem.kimariji_mora_count(a):poem.kimariji_mora_count(b)])

    k = PARTICLES.get(no)
    if k is None or n_kana <= k:
        return read(0, n_kana)
    return read(0, k) + poem.kana_prefix(k + 1)[-1] + read(k + 1, n_kana)


def spelled(no: int, n_kana: int, spelling: str = "sound") -> str:
    """The kimariji of `n_kana` historical kana in `spelling` (see SPELLINGS)."""
    if spelling not in SPELLINGS:
        raise ValueError(f"unknown spelling {spelling!r}; known: {', '.join(SPELLINGS)}")
    return sound(no, n_kana) if spelling == "sound" else database.get(no).kana_prefix(n_kana)


@dataclass(frozen=True)
class Current:
    """Poem `no`'s kimariji now: the zero point of every reaction time."""

    no: int
    kana: str
    """The kimariji in historical kana (あさぼ after あさぼらけあ was read)."""
    length: int
    """Its length in historical kana."""
    mora: int
    """The kami-no-ku mora whose onset completes it (programme mark ``kami:mora:{mora}``)."""

    @property
    def sound(self) -> str:
        """The kimariji as read aloud (おうこ for あふこ)."""
        return sound(self.no, self.length)

    @property
    def changed(self) -> bool:
        """Shorter than the static kimariji (kimariji henka)."""
        return self.length < database.get(self.no).kimariji_len


def current(no: int, read: Iterable[int] = (), in_play: Iterable[int] | None = None) -> Current:
    """The kimariji of `no` once the poems in `read` have been read (every yomifuda,
    karafuda too), among `in_play` (default all 100): what sessions, CPU players and
    the UI all use to place the kimariji mark."""
    no = database.check_no(no)
    pool = set(range(1, 101)) if in_play is None else {database.check_no(n) for n in in_play}
    unread = pool - {database.check_no(n) for n in read if n != no}
    n = length_among(no, unread)
    return Current(no, database.get(no).kana_prefix(n), n, mora_index(no, n))


def lengths(in_play: Iterable[int]) -> dict[int, int]:
    """Kimariji length (in historical kana) of each poem among `in_play`."""
    nos = sorted(set(in_play))
    return {no: length_among(no, nos) for no in nos}


def dynamic(read: Iterable[int] = (), in_play: Iterable[int] | None = None,
            spelling: str = "historical") -> dict[int, str]:
    """Current kimariji of every unread poem, after the poems in `read` were read.

    `in_play` limits the poems considered (default all 100): in a reading of a
    chosen set, only the cards of the set can still be read. Every yomifuda
    is read in a real game, karafuda too, so `read` may name any poem.
    `spelling`: "historical" (あふこ) or "sound" (おうこ), see SPELLINGS.
    """
    read_set = {database.check_no(n) for n in read}
    pool = set(range(1, 101) if in_play is None else (database.check_no(n) for n in in_play))
    unread = pool - read_set
    return {no: spelled(no, n, spelling) for no, n in lengths(unread).items()}


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
