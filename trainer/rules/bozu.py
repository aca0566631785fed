"""Bōzu-mekuri (坊主めくり, "flip the baldies") as a pure, seeded engine.

The rules are the reference page's (Fudawiki's *Ogura Hyakunin Isshu*, docs/references.md,
"Bōzu Mekuri"); each rule's sentence sits next to the code that plays it.
"Reference silent" marks a decision of ours (docs/bozu.md), an option of
`BozuOptions` where either reading is defensible; the page's "Regional
Rules" are options too ("Decide first before applying these rules").

Only the 100 yomifuda are used; who is drawn on each one (man, monk,
woman, emperor/empress, Semimaru) is `poems.poets`. Seats are numbered so
that seat ``s + 1`` plays after seat ``s`` ("Turn moves counter-clockwise";
"the player to their right takes their turn"). Hidden information: the
order of the face-down stack(s), from everyone; a seat's view shows only how
many cards each stack holds. Every drawn card is seen by all ("face-up"),
so the hands and the pot are public.
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import NamedTuple

from poems.poets import poets
from trainer.rules.protocol import GameEvent, GameOutcome, IllegalAction, event_kinds

REFUSALS = (
    "turn.not_your_turn",       # the seat is not the one to draw
    "turn.game_over",           # the game is over
    "bozu.no_such_stack",       # a stack number that does not exist
    "bozu.stack_empty",         # that stack has no card left
)
"""Every reason id the engine and the table refuse an action with (worded by `trainer.text.bozu`)."""


class BozuCard(NamedTuple):
    """A yomifuda: its poem number and who is drawn on it (`poems.poets` kind)."""

    no: int
    kind: str


def deck() -> list[BozuCard]:
    """"Only the 100 Yomifuda of a Hyakunin Isshu set are used." """
    return [BozuCard(no, p.kind) for no, p in sorted(poets().items())]


SEMIMARU_RULES = ("disqualified", "all_to_pot", "monk", "man")
EMPEROR_RULES = ("man", "draw_again", "take_hands")
EMPTY_POT_RULES = ("keep", "draw_again")
POT_END_RULES = ("stays", "last_drawer")
NYUDO_RULES = ("man", "monk")


@dataclass(frozen=True)
class BozuOptions:
    semimaru: str = "disqualified"
    """Common rule: "If the card drawn is Semimaru (蝉丸), then you are disqualified from the
    game" ("disqualified"). Regional: "all players' hands are placed into the pot"
    ("all_to_pot"); "Semimaru has the same effect as a card with a bald person" ("monk");
    "man": no special rule (he is drawn hooded, not bald)."""
    emperor: str = "man"
    """The common rules are silent on emperors: an emperor is a man ("man"). Regional: "keep it
    in your hand and draw multiple cards" / "a person on an elevated platform ... draw another
    card" ("draw_again", `emperor_draws` more cards); "keep it in your hand and take all cards
    from all players' hands" ("take_hands"). The empress (#2 持統天皇) is a woman unless
    `empress_as_emperor`."""
    emperor_draws: int = 1
    """How many more cards "draw multiple cards" means (reference silent; 1: "draw another")."""
    empress_as_emperor: bool = False
    """Reference silent on Empress Jitō, who sits on the dais as a woman: False plays her as a
    woman, True as an emperor (the emperor rule, then her woman's rule does not apply)."""
    imperial_family: bool = False
    """The regional rules name the "Imperial Family (Emperor/Prince)": True adds the prince
    (#20 元良親王) to the emperors; False keeps to those seated on the dais."""
    woman_empty_pot: str = "keep"
    """Regional: "If the card drawn is a woman, and the pot is empty, then keep the card in your
    hand and draw another card" ("draw_again"); the common rule only keeps it ("keep")."""
    nyudo: str = "man"
    """#76 and #96 (入道, tonsured late, drawn in court dress): men ("man", the picture) or monks
    ("monk", as some count them); see poems/data/poets.json."""
    stacks: int = 1
    """Regional: "Instead of just one face-down stack, it is split into multiple face-down
    stacks, and a player may draw a card from any one of these stacks." """
    pot_at_end: str = "stays"
    """Reference silent on the pot when the stack runs out: it "stays" on the table (nobody's:
    "The player with the most cards in hand wins"), or goes to the "last_drawer"."""
    first_player: int | None = None
    """"After the first player is decided using rock-paper-scissors or any other method":
    None draws one with the seed."""

    def __post_init__(self) -> None:
        for name, allowed in (("semimaru", SEMIMARU_RULES), ("emperor", EMPEROR_RULES),
                              ("woman_empty_pot", EMPTY_POT_RULES), ("pot_at_end", POT_END_RULES),
                              ("nyudo", NYUDO_RULES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"bozu {name} is one of {', '.join(allowed)}, not {getattr(self, name)!r}")
        if not 1 <= self.stacks <= 10:
            raise ValueError(f"bozu stacks must be 1..10, not {self.stacks}")
        if not 1 <= self.emperor_draws <= 5:
            raise ValueError(f"bozu emperor_draws must be 1..5, not {self.emperor_draws}")


MIN_PLAYERS, MAX_PLAYERS = 2, 8
""""Any number of players may play the game": we seat 2 to 8 (one player has nobody to beat;
the table draws at most 8 seats)."""


# -- actions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Draw:
    """"Each player draws one card from the stack" (from stack `stack` with several stacks)."""

    stack: int = 0


Action = Draw


# -- events -------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameStarted(GameEvent):
    kind = "bozu.start"
    first: int
    stacks: tuple[int, ...]
    """Cards in each face-down stack."""


@dataclass(frozen=True)
class Drawn(GameEvent):
    """A card drawn and shown: what it is, which stack, how many are left in it."""

    kind = "bozu.draw"
    seat: int
    card: BozuCard
    stack: int
    left: int
    effect: str
    """What the card does under the options: man, monk, woman, emperor, semimaru."""


@dataclass(frozen=True)
class Kept(GameEvent):
    kind = "bozu.keep"
    seat: int
    hand: int


@dataclass(frozen=True)
class ToPot(GameEvent):
    """A monk: the card and the hand go to the pot."""

    kind = "bozu.to_pot"
    seat: int
    cards: int
    pot: int


@dataclass(frozen=True)
class TookPot(GameEvent):
    kind = "bozu.take_pot"
    seat: int
    cards: int
    hand: int


@dataclass(frozen=True)
class Disqualified(GameEvent):
    kind = "bozu.disqualified"
    seat: int
    cards: int
    pot: int


@dataclass(frozen=True)
class AllToPot(GameEvent):
    kind = "bozu.all_to_pot"
    seat: int
    cards: int
    pot: int


@dataclass(frozen=True)
class TookHands(GameEvent):
    kind = "bozu.take_hands"
    seat: int
    cards: int
    hand: int


@dataclass(frozen=True)
class DrawAgain(GameEvent):
    kind = "bozu.draw_again"
    seat: int
    draws: int


@dataclass(frozen=True)
class PotAtEnd(GameEvent):
    kind = "bozu.pot_end"
    seat: int
    """Who takes the pot, -1 when it stays on the table."""
    cards: int


@dataclass(frozen=True)
class GameEnded(GameEvent):
    kind = "bozu.end"
    scores: tuple[int, ...]
    winners: tuple[int, ...]


EVENT_TYPES = event_kinds(GameStarted, Drawn, Kept, ToPot, TookPot, Disqualified, AllToPot,
                          TookHands, DrawAgain, PotAtEnd, GameEnded)


@dataclass(frozen=True)
class BozuView:
    """What one seat may see: everything but the order of the face-down stacks."""

    seat: int
    players: int
    turn: int | None
    stacks: tuple[int, ...]
    """Cards left in each face-down stack (their order is hidden from everyone)."""
    hands: tuple[tuple[BozuCard, ...], ...]
    """Each seat's kept cards, in the order drawn (the last is on top)."""
    pot: tuple[BozuCard, ...]
    out: tuple[bool, ...]
    """Seats disqualified by Semimaru."""
    last: BozuCard | None
    """The card drawn last."""
    extra_draws: int
    over: bool


class BozuState:
    """One game of bōzu-mekuri (see the module docstring)."""

    def __init__(self, players: int, seed: int | str = 0, options: BozuOptions | None = None):
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"bozu-mekuri is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
        self.options = options or BozuOptions()
        self.players = players
        self.rng = random.Random(f"bozu:{seed}")
        first = self.options.first_player
        if first is not None and not 0 <= first < players:
            raise ValueError(f"first_player is a seat 0..{players - 1}, not {first}")
        # "They are placed in a face-down stack on the table"; several stacks: dealt in turn.
        cards = deck()
        self.rng.shuffle(cards)
        n = self.options.stacks
        self.stacks: list[list[BozuCard]] = [cards[i::n] for i in range(n)]
        self.turn = self.rng.randrange(players) if first is None else first
        self.first = self.turn
        self.hands: list[list[BozuCard]] = [[] for _ in range(players)]
        self.pot: list[BozuCard] = []
        self.out = [False] * players
        self.last: BozuCard | None = None
        self.extra_draws = 0
        self.over = False
        self.started = False

    # -- rules helpers -------------------------------------------------------------------------
    def effect(self, card: BozuCard) -> str:
        """What `card` does under the options: man, monk, woman, emperor or semimaru."""
        o = self.options
        marks = poets()[card.no].marks
        if "semimaru" in marks and o.semimaru != "man":
            return "monk" if o.semimaru == "monk" else "semimaru"
        if "nyudo" in marks and o.nyudo == "monk":
            return "monk"
        if card.kind == "emperor" or (card.kind == "empress" and o.empress_as_emperor) \
                or ("prince" in marks and o.imperial_family):
            return "man" if o.emperor == "man" else "emperor"
        if card.kind == "empress":
            return "woman"
        return card.kind

    def cards_left(self) -> int:
        return sum(len(s) for s in self.stacks)

    # -- protocol --------------------------------------------------------------------------------
    def actors(self) -> tuple[int, ...]:
        return () if self.over else (self.turn,)

    def legal_actions(self, seat: int) -> list[Draw]:
        if seat not in self.actors():
            return []
        return [Draw(i) for i, s in enumerate(self.stacks) if s]

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.hands)

    def outcome(self) -> GameOutcome | None:
        """"The player with the most cards in hand wins the game." Reference silent on a tie:
        every seat with the most cards wins. A disqualified seat cannot win."""
        if not self.over:
            return None
        scores = self.scores()
        standing = [s for s in range(self.players) if not self.out[s]]
        best = max(scores[s] for s in standing)
        return GameOutcome(scores, tuple(s for s in standing if scores[s] == best), "stack_empty")

    def view(self, seat: int) -> BozuView:
        return BozuView(seat=seat, players=self.players, turn=None if self.over else self.turn,
                        stacks=tuple(len(s) for s in self.stacks),
                        hands=tuple(tuple(h) for h in self.hands), pot=tuple(self.pot),
                        out=tuple(self.out), last=self.last, extra_draws=self.extra_draws,
                        over=self.over)

    def clone(self) -> "BozuState":
        other = copy.copy(self)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.stacks = [list(s) for s in self.stacks]
        other.hands = [list(h) for h in self.hands]
        other.pot = list(self.pot)
        other.out = list(self.out)
        return other

    def check_invariants(self) -> None:
        cards = [c for s in self.stacks for c in s] + [c for h in self.hands for c in h] + self.pot
        assert sorted(cards) == sorted(deck()), "cards not conserved"
        assert all(not self.hands[s] for s in range(self.players) if self.out[s]), \
            "a disqualified seat holds cards"
        assert sum(self.out) < self.players, "every seat disqualified"
        if not self.over:
            assert self.cards_left() > 0 and not self.out[self.turn]
        else:
            assert self.cards_left() == 0

    def why_illegal(self, seat: int, action: Draw) -> IllegalAction | None:
        if self.over:
            return IllegalAction("turn.game_over", "the game is over")
        if seat != self.turn:
            return IllegalAction("turn.not_your_turn", f"seat {seat} is not to draw now", seat=seat)
        if not isinstance(action, Draw):
            raise ValueError(f"bozu-mekuri's only action is Draw, not {action!r}")
        if not 0 <= action.stack < len(self.stacks):
            return IllegalAction("bozu.no_such_stack", f"there is no stack {action.stack + 1}",
                                 stack=action.stack + 1)
        if not self.stacks[action.stack]:
            return IllegalAction("bozu.stack_empty", f"stack {action.stack + 1} is empty",
                                 stack=action.stack + 1)
        return None

    def apply(self, action: Draw) -> list[GameEvent]:
        refusal = self.why_illegal(self.turn, action)
        if refusal is not None:
            raise refusal
        seat = self.turn
        events: list[GameEvent] = []
        if not self.started:
            self.started = True
            events.append(GameStarted(self.first, tuple(len(s) for s in self.stacks)))
        card = self.stacks[action.stack].pop()
        self.last = card
        effect = self.effect(card)
        events.append(Drawn(seat, card, action.stack, len(self.stacks[action.stack]), effect))
        again = getattr(self, f"_{effect}")(seat, card, events)
        if self.extra_draws and not again:
            self.extra_draws -= 1       # an emperor's draws still owed count down
            again = True
        if self.cards_left() == 0:
            # "The game ends when the face-down stack runs out of cards."
            return events + self._end(seat)
        if not again:
            self.extra_draws = 0
            self._next_turn()
        return events

    # -- the cards ---------------------------------------------------------------------------
    def _man(self, seat: int, card: BozuCard, events: list[GameEvent]) -> bool:
        """"If the card drawn is a man, keep it in your hand." """
        self.hands[seat].append(card)
        events.append(Kept(seat, len(self.hands[seat])))
        return False

    def _monk(self, seat: int, card: BozuCard, events: list[GameEvent]) -> bool:
        """"If the card drawn has a bald head (i.e. a monk/priest), put this card along with all
        cards in your hand onto the table face-up as the "pot"." """
        moved = self.hands[seat] + [card]
        self.hands[seat] = []
        self.pot += moved
        events.append(ToPot(seat, len(moved), len(self.pot)))
        return False

    def _woman(self, seat: int, card: BozuCard, events: list[GameEvent]) -> bool:
        """"If the card drawn is a woman, keep it in your hand, and take all cards in the pot."
        Regional: "If the card drawn is a woman, and the pot is empty, then keep the card in your
        hand and draw another card." """
        empty = not self.pot
        self.hands[seat] += [card] + self.pot
        taken, self.pot = len(self.pot), []
        events.append(TookPot(seat, taken, len(self.hands[seat])))
        if empty and self.options.woman_empty_pot == "draw_again" and self.cards_left():
            events.append(DrawAgain(seat, 1))
            return True
        return False

    def _emperor(self, seat: int, card: BozuCard, events: list[GameEvent]) -> bool:
        """Regional: "keep it in your hand and draw multiple cards" / "a person on an elevated
        platform, then keep it in your hand and draw another card" (draw_again); "keep it in your
        hand and take all cards from all players' hands" (take_hands)."""
        if self.options.emperor == "take_hands":
            taken = [c for s in range(self.players) if s != seat for c in self.hands[s]]
            for s in range(self.players):
                if s != seat:
                    self.hands[s] = []
            self.hands[seat] += [card] + taken
            events.append(TookHands(seat, len(taken), len(self.hands[seat])))
            return False
        self.hands[seat].append(card)
        events.append(Kept(seat, len(self.hands[seat])))
        draws = min(self.options.emperor_draws, self.cards_left())
        if draws:
            self.extra_draws += draws - 1     # this draw's "again" is the first of them
            events.append(DrawAgain(seat, draws))
            return True
        return False

    def _semimaru(self, seat: int, card: BozuCard, events: list[GameEvent]) -> bool:
        """Common rule: "If the card drawn is Semimaru (蝉丸), then you are disqualified from the
        game." Reference silent on the hand and on Semimaru's card: both go to the pot (the
        seat keeps nothing, as a monk's hand would not). Regional: "If the card drawn is
        Semimaru, then all players' hands are placed into the pot." """
        if self.options.semimaru == "all_to_pot":
            moved = [c for h in self.hands for c in h] + [card]
            self.hands = [[] for _ in range(self.players)]
            self.pot += moved
            events.append(AllToPot(seat, len(moved), len(self.pot)))
            return False
        if sum(self.out) + 1 >= self.players:
            # Reference silent: disqualifying the last seat standing would end the game with no
            # winner; the card is then a monk's (only possible if out players could meet him twice).
            return self._monk(seat, card, events)
        moved = self.hands[seat] + [card]
        self.hands[seat] = []
        self.pot += moved
        self.out[seat] = True
        self.extra_draws = 0
        events.append(Disqualified(seat, len(moved), len(self.pot)))
        return False

    # -- turns and the end ---------------------------------------------------------------------
    def _next_turn(self) -> None:
        """"... then the player's turn ends and the player to their right takes their turn";
        a disqualified seat is skipped."""
        s = self.turn
        for _ in range(self.players):
            s = (s + 1) % self.players
            if not self.out[s]:
                self.turn = s
                return
        raise AssertionError("no seat left to draw")

    def _end(self, seat: int) -> list[GameEvent]:
        events: list[GameEvent] = []
        if self.pot:
            if self.options.pot_at_end == "last_drawer" and not self.out[seat]:
                n = len(self.pot)
                self.hands[seat] += self.pot
                self.pot = []
                events.append(PotAtEnd(seat, n))
            else:
                events.append(PotAtEnd(-1, len(self.pot)))
        self.over = True
        self.extra_draws = 0
        out = self.outcome()
        assert out is not None
        events.append(GameEnded(out.scores, out.winners))
        return events


def new_game(players: int, seed: int | str = 0, options: BozuOptions | None = None) -> BozuState:
    return BozuState(players, seed, options)
