"""CPU opponent for kyōgi karuta: when and where it touches, which card it sends.

The CPU plays from its seat's view plus what it hears (``Heard``: the
kami-no-ku's morae and their onset times), never from the engine's hidden
state. It plans its touches for a read from the sound, mora by mora:

- a **reaction**: the kimariji mark plus a draw from its level's ex-Gaussian
  (normal + exponential tail, the usual shape of human reaction times),
  shifted by its **form** in this game (調子: one draw per game), plus the
  hand's travel to the card; never sooner than ``REACTION_FLOOR_MS`` after the
  mark;
- **anticipation** (張り): when the sound so far leaves two unread cards and
  at least one lies on the floor, it sometimes goes before the decisive kana:
  on the right card (a fast take, before the mark) when it caught the
  decisive sound's first cue, else on a guess: a fault if the guess lies in
  the territory without the read card, or on a karafuda;
- a **tomofuda confusion** (聞き間違い): a hasty or misheard touch on a floor
  card sharing the sound so far, landing before it could tell the
  distinguishing mora; likelier the longer the shared opening and on the side
  it is watching (攻め or 守り this read);
- a layout slip (**wrong side**), unknown cards (**search**, **miss**).

Every number and its provenance is in docs/cpu-levels.md: the level-against-
level win table is measured (``karuta simulate kyogi --league``); the
per-level parameters are estimates, said so there.

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

REACTION_FLOOR_MS = 100   # nobody *reacts* sooner than this after the decisive sound begins
GUESS_GROUP = 2           # it anticipates only a one-in-two choice (a pair sharing the sound)
CORRECT_MS = (120, 250)   # after a wrong touch, the hand goes on to the right card this much later


@dataclass(frozen=True)
class Level:
    """One CPU strength. Times in ms, rates are probabilities per read where they apply."""
    name: str
    label: str
    mu: float                 # ex-Gaussian: mean of the normal part (kimariji mark -> touch)
    sigma: float              # ... its standard deviation
    tau: float                # ... mean of the exponential tail (hesitations)
    form_ms: float            # sd of the per-game form (調子), added to every reaction of a game
    attack_ms: float          # extra time to reach the opponent's side (beyond plain travel)
    knows: float              # fraction of the 100 cards it reliably recognises
    search_ms: tuple[int, int]  # extra time to find a card it does not know
    miss: float               # chance it never finds a card it does not know
    wrong_side: float         # per read of a floor card: goes first to the wrong territory
    confusable: float         # per read and floor tomofuda: hasty/misheard touch (before weights)
    karafuda: float           # the same on a karafuda read (every touch is then a fault)
    karadabu_share: float     # share of karafuda faults that touch both territories
    anticipate: float         # per read whose sound so far leaves a pair, one on the floor: goes early
    ear: float                # chance an early touch follows the decisive sound's first cue
    attack_share: float       # share of reads it watches the opponent's side (攻め), else its own

    def reaction(self, rng: random.Random, form: float = 0.0) -> float:
        return max(REACTION_FLOOR_MS,
                   rng.gauss(self.mu + form, self.sigma) + rng.expovariate(1 / self.tau))


LEVELS: dict[str, Level] = {lv.name: lv for lv in (
    # name, label, mu, sigma, tau, form_ms, attack_ms, knows, search_ms, miss,
    #   wrong_side, confusable, karafuda, karadabu_share, anticipate, ear, attack_share
    # (estimates, tuned so that neighbouring levels upset each other 20-35 % of games:
    # docs/cpu-levels.md, `karuta simulate kyogi --league`)
    Level("beginner", "beginner (E class)", 385, 130, 160, 90, 90, 0.87, (600, 2000), 0.18,
          0.030, 0.28, 0.26, 0.15, 0.03, 0.25, 0.25),
    Level("novice", "novice (D class)", 355, 115, 145, 85, 80, 0.91, (500, 1600), 0.13,
          0.022, 0.22, 0.20, 0.12, 0.06, 0.35, 0.30),
    Level("club", "club player (C class)", 322, 100, 125, 80, 70, 0.95, (450, 1300), 0.10,
          0.016, 0.17, 0.15, 0.10, 0.10, 0.45, 0.35),
    Level("strong", "strong club player (B class)", 294, 85, 110, 75, 60, 0.97, (400, 1000), 0.07,
          0.011, 0.13, 0.11, 0.08, 0.15, 0.55, 0.40),
    Level("a-class", "A class", 262, 72, 95, 70, 50, 0.99, (300, 800), 0.04,
          0.007, 0.10, 0.08, 0.06, 0.20, 0.65, 0.45),
    Level("meijin", "top (Meijin / Queen contender)", 235, 60, 80, 65, 40, 1.0, (300, 600), 0.0,
          0.004, 0.07, 0.05, 0.05, 0.25, 0.75, 0.50),
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


def _shared() -> list[list[int]]:
    """`shared_opening` as a table (the CPU asks for every floor card at every read)."""
    return _kimariji.opening_table()[0]


def confusion_weight(shared: int, true_tomofuda: bool) -> float:
    """How confusing a floor card sharing `shared` kana with the sound is: the longer the
    shared opening, the more the hand is already committed (あさぼらけ, わたのはら: full
    from four kana on); half as much for a card that does not part from the sound at its
    own decisive kana."""
    return min(1.0, shared / 4) * (1.0 if true_tomofuda else 0.5)


def anticipated_ms(heard: Heard, decisive: int, commit_ms: float, travel_ms: float) -> int:
    """When an anticipating hand lands: it sets off `commit_ms` (60-160) into the mora before
    the decisive one and travels. An anticipation lands before the decisive sound by
    definition, so a hand whose travel would bring it later lands within the 100 ms before
    the mark, spread by the same draw. (A clamp put every such touch at exactly 1 ms before
    the mark, and the logs showed "-1 ms" takes over and over, which no person does.)"""
    go = heard.mora_ms[decisive - 1] + commit_ms + travel_ms
    if go >= heard.kimariji_ms:
        go = heard.kimariji_ms - 1 - (commit_ms - 60)
    return round(go)


# -- the player ----------------------------------------------------------------------------------

class KarutaCPU:
    """A CPU seat of a given level for one game. `seed` fixes which cards it knows, its form
    in this game and all its draws."""

    def __init__(self, lvl: Level | str, seat: int, seed: int = 0):
        self.level = level(lvl) if isinstance(lvl, str) else lvl
        self.seat = seat
        self.rng = random.Random(f"karuta-cpu:{self.level.name}:{seat}:{seed}")
        cards = list(range(1, 101))
        self.rng.shuffle(cards)
        self.known = frozenset(cards[:round(self.level.knows * 100)])
        self.form = self.rng.gauss(0.0, self.level.form_ms) if self.level.form_ms else 0.0

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
        poem = identify(heard.morae)       # the sound as it unfolds; see each step for when
        unread = set(range(1, 101)) - set(view.read)
        owner = view.side_of(poem)
        watching = other(self.seat) if self.rng.random() < self.level.attack_share else self.seat
        early = self._anticipation(view, heard, poem, unread, watching)
        if owner is None:
            return Touches(self.seat, self._karafuda_touches(view, heard, poem, unread, watching, early))
        return Touches(self.seat, self._race(view, heard, poem, owner, unread, watching, early))

    def _travel_ms(self, view: View, card: int) -> float:
        """Hand travel from the ready position (just behind one's own 下段) to the card."""
        side = view.side_of(card)
        place = view.side(side).locate(card)  # type: ignore[arg-type]
        assert place is not None, f"card {card} is not on the floor"
        lateral = abs(place.column - (COLUMNS - 1) / 2) * 3
        if side == self.seat:
            return (2 - place.row) * 10 + lateral
        return 35 + place.row * 15 + lateral + self.level.attack_ms

    def _race(self, view: View, heard: Heard, poem: int, owner: int, unread: set[int],
              watching: int, early: Touch | None) -> tuple[Touch, ...]:
        lv, rng = self.level, self.rng
        if early is not None and early.card == poem:
            return (early,)                # anticipated right: a take before the mark
        t = heard.kimariji_ms + lv.reaction(rng, self.form) + self._travel_ms(view, poem)
        found = True
        if poem not in self.known:
            found = rng.random() >= lv.miss
            t += rng.uniform(*lv.search_ms)
        out: list[Touch] = []
        if early is not None:              # anticipated wrong: the hand goes on from there
            out.append(early)
            t = max(t, early.time_ms + rng.uniform(*CORRECT_MS))
        else:
            slip = self._confusion(view, heard, poem, unread, watching, lv.confusable, before=t)
            if slip is not None:
                out.append(slip)
                t = max(t, slip.time_ms + rng.uniform(*CORRECT_MS))
            elif rng.random() < lv.wrong_side and len(view.side(other(owner))):
                card = rng.choice(view.side(other(owner)).cards())
                out.append(Touch(card, round(t - 30)))
                t += rng.uniform(150, 300)     # memory of the layout failed; it corrects
        if found:
            out.append(Touch(poem, round(t)))
        return tuple(out)

    def _anticipation(self, view: View, heard: Heard, poem: int, unread: set[int],
                      watching: int) -> Touch | None:
        """An early touch (before the kimariji mark), or None. Only when the sound up to the
        decisive kana is shared by a pair (`GUESS_GROUP`) of unread cards, one on the floor."""
        lv, rng = self.level, self.rng
        n = kimariji_length(poem, unread)
        decisive = kimariji_mora_index(poem, n)
        if n < 2 or decisive < 1:
            return None
        table = _shared()[poem]
        group = [g for g in unread if g == poem or table[g] >= n - 1]
        on_floor = [g for g in group if view.side_of(g) is not None and g in self.known]
        if not on_floor or len(group) > GUESS_GROUP or rng.random() >= lv.anticipate:
            return None
        if rng.random() < lv.ear:          # it caught the decisive sound's first cue
            if poem not in on_floor:
                return None                # ... and it is not a card on the floor: it holds
            guess = poem
        else:                              # a blind bet, likelier on the side it watches
            weights = [2.0 if view.side_of(g) == watching else 1.0 for g in on_floor]
            guess = rng.choices(on_floor, weights)[0]
        return Touch(guess, anticipated_ms(heard, decisive, rng.uniform(60, 160), self._travel_ms(view, guess)))

    def _confusion(self, view: View, heard: Heard, poem: int, unread: set[int], watching: int,
                   rate: float, before: float) -> Touch | None:
        """A hasty or misheard touch on a floor card sharing the sound so far, or None.

        The candidates are the floor cards sharing the longest opening with the sound
        (its closest tomofuda on the floor), each with chance `rate` × `confusion_weight`
        × 1.5 on the side it watches (× 0.5 elsewhere). The hand goes on the shared
        opening and lands 0.6 of a reaction after the distinguishing mora begins:
        before it could tell that mora.
        """
        lv, rng = self.level, self.rng
        table = _shared()[poem]
        shared = max((table[c] for c in view.floor() if c != poem), default=0)
        if shared == 0:
            return None
        for card in sorted(c for c in view.floor() if c != poem and table[c] == shared):
            side = 1.5 if view.side_of(card) == watching else 0.5
            draw = rng.random()
            if draw >= rate * confusion_weight(shared, True) * side:
                continue                   # (the true-pair test below is the costly part)
            true_pair = kimariji_length(card, unread) == shared + 1
            if draw >= rate * confusion_weight(shared, true_pair) * side:
                continue
            parts = kimariji_mora_index(poem, shared + 1)
            onset = heard.mora_ms[min(parts, len(heard.mora_ms) - 1)]
            lands = onset + 0.6 * lv.reaction(rng, self.form) + self._travel_ms(view, card)
            if lands >= before - 40:
                return None                # it had heard enough by then: no slip this read
            return Touch(card, round(lands))
        return None

    def _karafuda_touches(self, view: View, heard: Heard, poem: int, unread: set[int],
                          watching: int, early: Touch | None) -> tuple[Touch, ...]:
        lv, rng = self.level, self.rng
        touch = early or self._confusion(view, heard, poem, unread, watching, lv.karafuda,
                                         before=float("inf"))
        if touch is None:
            return ()
        out = [touch]
        beyond = view.side(other(view.side_of(touch.card)))  # type: ignore[arg-type]
        if len(beyond) and rng.random() < lv.karadabu_share:
            out.append(Touch(rng.choice(beyond.cards()), touch.time_ms + 60))  # swept across
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
        table = _shared()

        def score(c: int) -> tuple[float, float]:
            k = kimariji_length(c, unread)
            s = (k - 1) + (2 if c not in self.known else 0) - (3 if k == 1 else 0)
            if k > 1 and any(g in own_set and g != c and table[c][g] == k - 1 for g in unread):
                s += 3
            return s, self.rng.random()

        return Send(self.seat, max(own, key=score))
