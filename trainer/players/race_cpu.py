"""CPU players for the floor races (chirashi-dori, sakasama, Genpei, relay): kyōgi's reaction model
on an open floor.

The levels, their ex-Gaussian reactions, per-game form, known cards, search
time, tomofuda confusions and anticipation are kyōgi's (`trainer.players.karuta_cpu`,
numbers and sources in docs/cpu-levels.md); only where the hand goes differs:

- **reach**: a seat sits at the floor's edge (`seat_position`); the hand's
  travel grows with the card's distance from it (``TRAVEL_MS`` per floor width),
  so nearer cards are taken faster, and any card is within everyone's reach.
  A shimonoku player kneels at the near edge of their own area (`area_position`),
  and touches only their own and the facing opponent's cards;
- **search**: on a scattered floor of up to 100 cards even a card it knows must
  be found (``SCATTER_SEARCH_MS``, a uniform draw scaled by how full the floor is);
- the verse heard may be the shimo-no-ku (sakasama karuta): identification,
  the decisive mora and confusions follow the verse read (`verse_morae`).

Seeded: the same seed, level, seat and inputs give the same touches.
"""
from __future__ import annotations

import functools
import math
import random
from typing import Iterable, Sequence

import poems
from poems import kimariji as _kimariji
from trainer.players.karuta_cpu import CORRECT_MS, GUESS_GROUP, Heard, Level, confusion_weight, level
from trainer.rules.chirashi import Send, Touch, View
from trainer.rules.shimonoku import column_widths, screen_column

TRAVEL_MS = 260            # the hand's travel across the whole floor (on top of the reaction)
SCATTER_SEARCH_MS = 220    # finding a known card on a full scattered floor (uniform 0..this)


# -- the verse heard ------------------------------------------------------------------------------

@functools.cache
def verse_morae(poem: int, verse: str) -> tuple[str, ...]:
    """The morae of the verse read: the kami-no-ku, or the shimo-no-ku (sakasama karuta)."""
    p = poems.get(poem)
    return tuple(p.kami_morae() if verse == "kami" else p.shimo_morae())


@functools.cache
def _by_sound(verse: str) -> dict[tuple[str, ...], int]:
    return {verse_morae(p.no, verse): p.no for p in poems.ALL}


def identify(morae: Sequence[str], verse: str = "kami") -> int:
    """The poem whose verse sounds like this."""
    return _by_sound(verse)[tuple(morae)]


@functools.cache
def shared_morae(a: int, b: int, verse: str) -> int:
    """How many leading morae the two poems' verses share."""
    n = 0
    for x, y in zip(verse_morae(a, verse), verse_morae(b, verse)):
        if x != y:
            break
        n += 1
    return n


def decisive_mora(poem: int, read: Iterable[int], verse: str = "kami") -> int:
    """Index of the mora that completes the verse's *current* kimariji, given the yomifuda read
    so far: kyōgi's dynamic kimariji for the kami-no-ku (`poems.kimariji.current`); for the
    shimo-no-ku, the shortest opening no unread card's shimo-no-ku shares."""
    return _decisive(poem, tuple(read), verse)


@functools.lru_cache(maxsize=4096)
def _decisive(poem: int, read: tuple[int, ...], verse: str) -> int:
    """(every CPU at the table asks for the same read: worked out once)"""
    if verse == "kami":
        return _kimariji.current(poem, read).mora
    done = set(read)
    longest = max((shared_morae(poem, g, verse) for g in range(1, 101) if g != poem and g not in done),
                  default=0)
    return min(longest, len(verse_morae(poem, verse)) - 1)


def seat_position(seat: int, players: int, teams: bool) -> tuple[float, float]:
    """Where a seat kneels, in floor units: round a scattered floor; on Genpei's floor each
    team along its own edge (Genji at the bottom, y = 1)."""
    if teams:
        mates = [s for s in range(players) if s % 2 == seat % 2]
        x = (mates.index(seat) + 0.5) / len(mates)
        return (x, 1.08) if seat % 2 == 0 else (x, -0.08)
    angle = math.pi / 2 + 2 * math.pi * seat / max(players, 1)
    return 0.5 + 0.58 * math.cos(angle), 0.5 + 0.58 * math.sin(angle)


def area_position(seat: int, counts: Sequence[int], rows: int) -> tuple[float, float]:
    """Where a shimonoku player kneels, in floor units: at the middle of their own area's near
    edge (the engine's `area_spots`: team 0's areas along the bottom, team 1's along the top,
    each screen column a facing pair, as wide as its fuller area)."""
    widths = column_widths(counts, rows)
    column = screen_column(seat)
    x = (sum(widths[:column]) + widths[column] / 2) / sum(widths)
    return x, (1.0 if seat < 3 else 0.0)


class RaceCpu:
    """One CPU seat at a floor race."""

    def __init__(self, lvl: Level | str, seat: int, seed: object, players: int, teams: bool = False,
                 verse: str = "kami"):
        self.level = level(lvl) if isinstance(lvl, str) else lvl
        self.seat = seat
        self.verse = verse
        self.teams = teams
        self.position = seat_position(seat, players, teams)
        self.rng = random.Random(f"race-cpu:{self.level.name}:{seat}:{seed}")
        cards = list(range(1, 101))
        self.rng.shuffle(cards)
        self.known = frozenset(cards[:round(self.level.knows * 100)])
        self.form = self.rng.gauss(0.0, self.level.form_ms) if self.level.form_ms else 0.0
        self.reach: tuple[int, ...] | None = None   # shimonoku: the areas (seats) its hand may touch
        self.area_rows: int | None = None            # shimonoku: its area's rows (it kneels at its area)

    def _travel_ms(self, view: View, card: int) -> float:
        spot = view.spot(card)
        assert spot is not None, f"card {card} is not on the floor"
        px, py = self.kneels_at(view)
        return TRAVEL_MS * math.hypot(spot.x - px, spot.y - py)

    def kneels_at(self, view: View) -> tuple[float, float]:
        """Where its hand starts from: its seat round the floor, or in shimonoku its own area
        (which moves as the areas widen and narrow)."""
        if self.area_rows is None:
            return self.position
        return area_position(self.seat, view.side_counts, self.area_rows)

    def _search_ms(self, view: View) -> float:
        return self.rng.uniform(0, SCATTER_SEARCH_MS) * len(view.floor) / 100

    def touches(self, view: View, heard: Heard) -> tuple[Touch, ...]:
        """This seat's touches of the current read (the sound as it unfolds decides each step)."""
        lv, rng = self.level, self.rng
        poem = identify(heard.morae, self.verse)
        floor = {c for c, sp in view.floor if self.reach is None or sp.side in self.reach}
        unread = set(range(1, 101)) - set(view.read)
        early = self._anticipation(view, heard, poem, unread, floor)
        if early is not None and early.card == poem:
            return (early,)
        t = heard.kimariji_ms + lv.reaction(rng, self.form) + self._search_ms(view)
        found = poem in floor
        if poem not in self.known:
            found = found and rng.random() >= lv.miss
            t += rng.uniform(*lv.search_ms)
        out: list[Touch] = []
        if early is not None:
            out.append(early)
            t = max(t, early.time_ms + rng.uniform(*CORRECT_MS))
        else:
            slip = self._confusion(view, heard, poem, floor, before=t + (self._travel_ms(view, poem) if found else 0))
            if slip is not None:
                out.append(slip)
                t = max(t, slip.time_ms + rng.uniform(*CORRECT_MS) - self._travel_ms(view, poem))
        if found:
            out.append(Touch(poem, round(t + self._travel_ms(view, poem))))
        return tuple(out)

    def _anticipation(self, view: View, heard: Heard, poem: int, unread: set[int],
                      floor: set[int]) -> Touch | None:
        """Going before the decisive mora when the sound so far leaves a pair, one on the floor."""
        lv, rng = self.level, self.rng
        decisive = decisive_mora(poem, view.read, self.verse)
        if decisive < 1:
            return None
        group = [g for g in unread if g == poem or shared_morae(poem, g, self.verse) >= decisive]
        on_floor = [g for g in group if g in floor and g in self.known]
        if not on_floor or len(group) > GUESS_GROUP or rng.random() >= lv.anticipate:
            return None
        if rng.random() < lv.ear:
            if poem not in on_floor:
                return None
            guess = poem
        else:
            guess = rng.choice(sorted(on_floor))
        go = heard.mora_ms[decisive - 1] + rng.uniform(60, 160) + self._travel_ms(view, guess)
        return Touch(guess, round(min(go, heard.kimariji_ms - 1)))

    def _confusion(self, view: View, heard: Heard, poem: int, floor: set[int], before: float) -> Touch | None:
        """A hasty touch on a floor card sharing the sound so far (its closest tomofuda)."""
        lv, rng = self.level, self.rng
        others = [c for c in floor if c != poem]
        shared = max((shared_morae(poem, c, self.verse) for c in others), default=0)
        if shared == 0:
            return None
        for card in sorted(c for c in others if shared_morae(poem, c, self.verse) == shared):
            if rng.random() >= lv.confusable * confusion_weight(shared, True):
                continue
            onset = heard.mora_ms[min(shared, len(heard.mora_ms) - 1)]
            lands = onset + 0.6 * lv.reaction(rng, self.form) + self._travel_ms(view, card)
            if lands >= before - 40:
                return None
            return Touch(card, round(lands))
        return None

    def choose_send(self, view: View) -> Send:
        """Genpei: which card of its side to send: the one farthest from its own reach, a card it
        does not know first (it keeps what it can defend)."""
        giver, side, _ = view.owing  # type: ignore[misc]
        own = sorted(c for c, sp in view.floor if sp.side == side)

        def score(c: int) -> tuple[int, float, float]:
            return (c not in self.known, self._travel_ms(view, c), self.rng.random())

        return Send(self.seat, max(own, key=score))
