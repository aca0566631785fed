"""CPU opponent for kyōgi karuta: when and where it touches, which card it sends.

The CPU plays from its seat's view plus what it hears (``Heard``: the
kami-no-ku's morae and their onset times), never from the engine's hidden
state. Its touch time is the kimariji mark plus a reaction drawn from its
level's ex-Gaussian distribution (normal + exponential tail, the usual shape
of human reaction times), plus the hand's travel to the card. Faults and
misses come from per-level rates. Every number and its provenance is in
docs/cpu-levels.md; most are estimates, said so there.

Seeded: the same seed, level and inputs give the same touches.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import Iterable, Sequence

from poems import kimariji as _kimariji
from trainer.rules.kyogi import Send, Touch, Touches, View, other
from trainer.rules.territory import COLUMNS, Territory

REACTION_FLOOR_MS = 100   # nobody touches sooner than this after the decisive sound begins


@dataclass(frozen=True)
class Level:
    """One CPU strength. Times in ms, rates are probabilities per read where they apply."""
    name: str
    label: str
    mu: float                 # ex-Gaussian: mean of the normal part (kimariji mark -> touch)
    sigma: float              # ... its standard deviation
    tau: float                # ... mean of the exponential tail (hesitations)
    attack_ms: float          # extra time to reach the opponent's side (beyond plain travel)
    knows: float              # fraction of the 100 cards it reliably recognises
    search_ms: tuple[int, int]  # extra time to find a card it does not know
    miss: float               # chance it never finds a card it does not know
    wrong_side: float         # per read of a floor card: goes first to the wrong territory
    confusable: float         # per read whose tomofuda lies in the other territory: jumps on it
    karafuda: float           # per karafuda read that sounds like a floor card: touches it
    karadabu_share: float     # share of karafuda faults that touch both territories

    def reaction(self, rng: random.Random) -> float:
        return max(REACTION_FLOOR_MS, rng.gauss(self.mu, self.sigma) + rng.expovariate(1 / self.tau))


LEVELS: dict[str, Level] = {lv.name: lv for lv in (
    Level("beginner", "beginner (E class)", 700, 180, 350, 120, 0.55, (800, 3000), 0.35,
          0.06, 0.25, 0.20, 0.15),
    Level("novice", "novice (D class)", 520, 130, 220, 90, 0.80, (600, 2200), 0.25,
          0.04, 0.20, 0.14, 0.12),
    Level("club", "club player (C class)", 400, 90, 140, 70, 0.93, (500, 1600), 0.15,
          0.025, 0.14, 0.09, 0.10),
    Level("strong", "strong club player (B class)", 320, 65, 90, 55, 0.98, (400, 1200), 0.10,
          0.015, 0.10, 0.06, 0.08),
    Level("a-class", "A class", 260, 45, 60, 40, 0.995, (300, 900), 0.05,
          0.008, 0.07, 0.04, 0.06),
    Level("meijin", "top (Meijin / Queen contender)", 210, 35, 40, 30, 1.0, (300, 600), 0.0,
          0.004, 0.05, 0.03, 0.05),
)}
ALIASES = {"e": "beginner", "d": "novice", "c": "club", "b": "strong", "a": "a-class",
           "top": "meijin", "queen": "meijin"}


def level(name: str) -> Level:
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in LEVELS:
        raise ValueError(f"unknown CPU level {name!r}; levels: {', '.join(LEVELS)}")
    return LEVELS[key]


@dataclass(frozen=True)
class Heard:
    """What a player hears of the current read: kami-no-ku morae with their onsets (ms)."""
    morae: tuple[str, ...]
    mora_ms: tuple[int, ...]
    kimariji_ms: int


# -- what every player knows of the 100 poems ------------------------------------------------

@functools.lru_cache(maxsize=1)
def _by_sound() -> dict[tuple[str, ...], int]:
    """Poem by its kami-no-ku morae, as heard."""
    import poems
    return {tuple(p.kami_morae()): p.no for p in poems.ALL}


# The current-kimariji arithmetic has one home, `poems.kimariji`; these names stay for callers.
shared_opening = _kimariji.shared_opening
kimariji_length = _kimariji.length_among
kimariji_mora_index = _kimariji.mora_index


def identify(morae: Sequence[str]) -> int:
    """The poem whose kami-no-ku sounds like this."""
    return _by_sound()[tuple(morae)]


# -- the player ----------------------------------------------------------------------------------

class KarutaCPU:
    """A CPU seat of a given level. `seed` fixes which cards it knows and all its draws."""

    def __init__(self, lvl: Level | str, seat: int, seed: int = 0):
        self.level = level(lvl) if isinstance(lvl, str) else lvl
        self.seat = seat
        self.rng = random.Random(f"karuta-cpu:{self.level.name}:{seat}:{seed}")
        cards = list(range(1, 101))
        self.rng.shuffle(cards)
        self.known = frozenset(cards[:round(self.level.knows * 100)])

    # -- before the game --------------------------------------------------------------------
    def arrange(self, cards: Iterable[int]) -> Territory:
        """Long-kimariji cards to the 上段, short ones to the 下段 nearest the hand (easiest
        to defend), shuffled within each length."""
        cards = list(cards)
        self.rng.shuffle(cards)
        static = {c: kimariji_length(c, range(1, 101)) for c in cards}
        cards.sort(key=lambda c: -static[c])
        return Territory.arranged(cards)

    # -- during a read ------------------------------------------------------------------------
    def touches(self, view: View, heard: Heard) -> Touches:
        """The touches this CPU makes during the current read."""
        poem = identify(heard.morae)
        unread = set(range(1, 101)) - set(view.read)
        owner = view.side_of(poem)
        if owner is None:
            return Touches(self.seat, self._karafuda_touches(view, heard, poem, unread))
        return Touches(self.seat, self._race(view, heard, poem, owner, unread))

    def _travel_ms(self, view: View, card: int) -> float:
        """Hand travel from the ready position (just behind one's own 下段) to the card."""
        side = view.side_of(card)
        place = view.side(side).locate(card)  # type: ignore[arg-type]
        assert place is not None, f"card {card} is not on the floor"
        lateral = abs(place.column - (COLUMNS - 1) / 2) * 3
        if side == self.seat:
            return (2 - place.row) * 10 + lateral
        return 35 + place.row * 15 + lateral + self.level.attack_ms

    def _race(self, view: View, heard: Heard, poem: int, owner: int, unread: set[int]) -> tuple[Touch, ...]:
        lv, rng = self.level, self.rng
        t = heard.kimariji_ms + lv.reaction(rng) + self._travel_ms(view, poem)
        if poem not in self.known:
            if rng.random() < lv.miss:
                return ()
            t += rng.uniform(*lv.search_ms)
        out: list[Touch] = []
        dead = other(owner)
        confuser = self._confuser(view, heard, poem, unread, side=dead)
        if confuser is not None and rng.random() < lv.confusable * confuser[1]:
            card, closeness, jump_ms = confuser
            out.append(Touch(card, round(min(jump_ms, t - 40))))
            t += 120                       # it sees its mistake and goes on
        elif len(view.side(dead)) and rng.random() < lv.wrong_side:
            card = rng.choice(view.side(dead).cards())
            out.append(Touch(card, round(t - 30)))
            t += rng.uniform(150, 300)     # memory of the layout failed; it corrects
        out.append(Touch(poem, round(t)))
        return tuple(out)

    def _confuser(self, view: View, heard: Heard, poem: int, unread: set[int],
                  side: int | None) -> tuple[int, float, float] | None:
        """The floor card (on `side`, or anywhere if None) that sounds most like `poem`:
        (card, closeness 0..1, when a hasty hand would land on it)."""
        best = None
        for c in view.floor():
            if c == poem or (side is not None and view.side_of(c) != side):
                continue
            shared = shared_opening(poem, c)
            if shared == 0:
                continue
            if best is None or shared > best[1]:
                best = (c, shared)
        if best is None:
            return None
        card, shared = best
        # a true tomofuda: the two part exactly at the card's own decisive kana
        closeness = 1.0 if kimariji_length(card, unread) == shared + 1 else 0.3
        diverge = kimariji_mora_index(poem, shared + 1)
        onset = heard.mora_ms[min(diverge, len(heard.mora_ms) - 1)]
        jump_ms = onset + 0.6 * self.level.reaction(self.rng) + self._travel_ms(view, card)
        return card, closeness, jump_ms

    def _karafuda_touches(self, view: View, heard: Heard, poem: int, unread: set[int]) -> tuple[Touch, ...]:
        lv, rng = self.level, self.rng
        confuser = self._confuser(view, heard, poem, unread, side=None)
        if confuser is None:
            return ()
        card, closeness, jump_ms = confuser
        if rng.random() >= lv.karafuda * closeness:
            return ()
        out = [Touch(card, round(jump_ms))]
        beyond = view.side(other(view.side_of(card)))  # type: ignore[arg-type]
        if len(beyond) and rng.random() < lv.karadabu_share:
            out.append(Touch(rng.choice(beyond.cards()), round(jump_ms + 60)))  # swept across
        return tuple(out)

    # -- after a read ---------------------------------------------------------------------------
    def choose_send(self, view: View) -> Send:
        """Which card to send (okurifuda or a fault penalty); see docs/cpu-levels.md.

        Scores every own card: +2 if the CPU does not know it (it sends its
        weakest), +1 per kana of its current kimariji beyond the first (long
        cards are slow to take anywhere), +3 if its tomofuda is also on the
        CPU's side (splitting the pair makes the opponent risk faults across
        territories: 友札を分ける), -3 for a one-kana card (easiest to defend
        at home). Ties go to a seeded draw.
        """
        unread = set(range(1, 101)) - set(view.read)
        own = view.side(self.seat).cards()
        own_set = set(own)

        def score(c: int) -> tuple[float, float]:
            k = kimariji_length(c, unread)
            s = (k - 1) + (2 if c not in self.known else 0) - (3 if k == 1 else 0)
            if k > 1 and any(g in own_set and g != c and shared_opening(c, g) == k - 1 for g in unread):
                s += 3
            return s, self.rng.random()

        return Send(self.seat, max(own, key=score))
