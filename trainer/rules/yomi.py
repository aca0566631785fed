"""Yomi (読み), the mekurifuda sequence game of seed 002, both of its rulesets, as a pure, seeded engine.

- ``standard``: "a simple Yomi game for 3 to 4 people" with a Tensho/mekurifuda
  deck of 40 cards (4 players) or 30 (3 players), an optional wild card, the
  loop 1→…→10→1; the first to empty the hand wins the round.
- ``yomi37``: the seed's "Variation": 4 players, 37 cards, 9 each, the
  undealt card to the winner's score, teyaku (Sanko / Danjūrō), the loop
  1→…→12→1 and a score from the discarded cards.

Seats are numbered so that seat ``s + 1`` plays after seat ``s`` ("turns move
counter-clockwise"). The reader pseudo-seat (`READER`) deals each round. The
seed's own sentences sit next to the code that plays them; "Seed silent"
marks a decision of ours, an option of `YomiOptions` when either way is
defensible.
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass, replace

from trainer.rules.protocol import READER, GameEvent, GameOutcome, IllegalAction, event_kinds
from trainer.rules.decks import ONIFUDA, SHIROFUDA, MekuriCard, mekurifuda


REFUSALS = (
    "turn.not_your_turn",       # the seat is not the one to act (session and engine)
    "turn.game_over",           # the game is over
    "yomi.not_dealing",         # a deal only between rounds
    "yomi.not_in_hand",         # a card the seat does not hold
    "yomi.must_lead",           # the pile is empty or blocked: lead any card, no discard or pass
    "yomi.wrong_number",        # the discard must be the next number (`needed`) or the wild card
    "yomi.must_discard",        # no passing while holding the next number
)
"""Every reason id the engine and the table refuse an action with (worded by `trainer.text.yomi`)."""


SANKO = (MekuriCard("clubs", 1), MekuriCard("clubs", 2), MekuriCard("clubs", 10))
"""Seed: "Sanko/Danjuro (1, 2, and 10 of Clubs) is used"."""


@dataclass(frozen=True)
class YomiOptions:
    ruleset: str = "standard"
    """"standard" (the seed's main game) or "yomi37" (its "Variation")."""
    wild: bool = False
    """Standard game: "You may also add in an extra card ... to be used as a wild card"."""
    wild_card: str = "onifuda"
    """4 players: "preferably the Onifuda ... or the Shirofuda (blank card)"; 3 players always
    use "the 2 of Swords as a wild card"."""
    rounds: int = 1
    """Rounds in a game; the winner of a round deals the next ("you become the dealer for the
    next round")."""
    first_dealer: int | None = None
    """"There is no attested method for choosing a dealer": None draws one with the seed."""
    card_points: str = "one"
    """yomi37: "Card points and Yaku points have not been attested". "one": every card is
    worth 1 point (the winner scores the number of discarded cards); "rank": its number."""
    sanko_points: int = 10
    """yomi37: the value of the Sanko teyaku (unattested; our default 10)."""

    def __post_init__(self) -> None:
        if self.ruleset not in ("standard", "yomi37"):
            raise ValueError(f"Yomi ruleset is 'standard' or 'yomi37', not {self.ruleset!r}")
        if self.wild_card not in ("onifuda", "shirofuda"):
            raise ValueError(f"the 4-player wild card is 'onifuda' or 'shirofuda', not {self.wild_card!r}")
        if self.card_points not in ("one", "rank"):
            raise ValueError(f"card_points is 'one' or 'rank', not {self.card_points!r}")
        if self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds}")
        if self.ruleset == "yomi37" and self.wild:
            raise ValueError("the 37-card Yomi has no wild card (\"The Onifuda is also not used\")")


def deck_for(players: int, options: YomiOptions) -> tuple[list[MekuriCard], MekuriCard | None]:
    """The cards and the wild card (or None) of a game."""
    if options.ruleset == "yomi37":
        if players != 4:
            raise ValueError(f"the 37-card Yomi is played by 4 players, not {players}")
        # "remove all cards of the Swords suit except for the 2 of Swords. (The Onifuda is also
        # not used.)" Seed silent on a role for the 2 of Swords: it is a plain 2.
        return mekurifuda(range(1, 13), ("clubs", "cups", "coins")) + [MekuriCard("swords", 2)], None
    if players == 4:
        # "For 4 players, use 40 cards by removing all Horses and Kings from the deck."
        cards = mekurifuda(range(1, 11))
        wild = (ONIFUDA if options.wild_card == "onifuda" else SHIROFUDA) if options.wild else None
    elif players == 3:
        # "For 3 players, use 30 cards by further removing all cards of the Sword suit ...
        # You may also add in the 2 of Swords as a wild card."
        cards = mekurifuda(range(1, 11), ("clubs", "cups", "coins"))
        wild = MekuriCard("swords", 2) if options.wild else None
    else:
        raise ValueError(f"Yomi is played by 3 to 4 players, not {players}")
    return cards + ([wild] if wild else []), wild


# -- actions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Deal:
    """The reader's action: shuffle and deal a round."""


@dataclass(frozen=True)
class Lead:
    """Start the discard pile with any card ("Dealer places any one card from his/her hand
    onto the table face-up"), or a new sequence after a block."""

    card: MekuriCard


@dataclass(frozen=True)
class Discard:
    """Discard the card of the next number (or the wild card) onto the pile."""

    card: MekuriCard


@dataclass(frozen=True)
class Pass:
    """"If the player doesn't have one, he/she passes the turn to the next player." """


Action = Deal | Lead | Discard | Pass


# -- events -------------------------------------------------------------------------------

@dataclass(frozen=True)
class RoundDealt(GameEvent):
    kind = "yomi.deal"
    round_no: int
    dealer: int
    hand_size: int
    undealt: bool
    """One card lies face-down, unused (a wild-card deck, or the 37-card variant)."""


@dataclass(frozen=True)
class HandDealt(GameEvent):
    """A seat's hand: only that seat sees `cards` (`redact` empties them for the others)."""

    kind = "yomi.hand"
    seat: int
    cards: tuple[MekuriCard, ...]


@dataclass(frozen=True)
class TeyakuHeld(GameEvent):
    """yomi37: a seat's teyaku, checked "before the dealer starts their first turn"; private
    to the seat until it wins with it (seed silent on declaring: kept secret)."""

    kind = "yomi.teyaku"
    seat: int
    name: str


@dataclass(frozen=True)
class Led(GameEvent):
    kind = "yomi.lead"
    seat: int
    card: MekuriCard


@dataclass(frozen=True)
class Discarded(GameEvent):
    kind = "yomi.discard"
    seat: int
    card: MekuriCard
    left: int


@dataclass(frozen=True)
class Passed(GameEvent):
    kind = "yomi.pass"
    seat: int
    needed: int
    """The number the seat lacked (0 after the wild card: anything)."""


@dataclass(frozen=True)
class Blocked(GameEvent):
    """Every player passed in turn: nobody can follow. Seed silent; as in the other "stops"
    games, the last player to discard starts a new sequence with any card."""

    kind = "yomi.blocked"
    seat: int
    needed: int


@dataclass(frozen=True)
class RoundWon(GameEvent):
    kind = "yomi.won"
    round_no: int
    seat: int
    points: int
    teyaku: tuple[str, ...]
    undealt: MekuriCard | None
    """Revealed at the end of the round (it goes to the winner's score in yomi37)."""


@dataclass(frozen=True)
class GameEnded(GameEvent):
    kind = "yomi.end"
    scores: tuple[int, ...]
    winners: tuple[int, ...]


EVENT_TYPES = event_kinds(RoundDealt, HandDealt, TeyakuHeld, Led, Discarded, Passed, Blocked,
                          RoundWon, GameEnded)


@dataclass(frozen=True)
class YomiView:
    """What one seat may see: its hand, the discard pile, the others' hand sizes."""

    seat: int
    players: int
    ruleset: str
    loop: int
    wild_card: MekuriCard | None
    round_no: int
    dealer: int
    turn: int | None
    phase: str
    hand: tuple[MekuriCard, ...]
    hand_counts: tuple[int, ...]
    discard: tuple[MekuriCard, ...]
    undealt: bool
    needed: int | None
    """The number to follow with now; 0 after the wild card (anything); None when leading."""
    scores: tuple[int, ...]
    teyaku: tuple[str, ...]
    passes: int
    """Passes in a row since the last discard (public: everybody saw them)."""


class YomiState:
    """One game of Yomi (see the module docstring)."""

    def __init__(self, players: int, seed: int | str = 0, options: YomiOptions | None = None):
        self.options = options or YomiOptions()
        self.deck, self.wild_card = deck_for(players, self.options)
        self.players = players
        self.loop = 12 if self.options.ruleset == "yomi37" else 10
        self.hand_size = 9 if self.options.ruleset == "yomi37" else 10
        self.rng = random.Random(f"yomi:{seed}")
        first = self.options.first_dealer
        if first is not None and not 0 <= first < players:
            raise ValueError(f"first_dealer is a seat 0..{players - 1}, not {first}")
        self.dealer = self.rng.randrange(players) if first is None else first
        self.round_no = 0
        self.hands: list[list[MekuriCard]] = [[] for _ in range(players)]
        self.discard: list[MekuriCard] = []
        self.undealt: MekuriCard | None = None
        self.teyaku: list[tuple[str, ...]] = [() for _ in range(players)]
        self.turn = self.dealer
        self.phase = "deal"                # deal | lead | follow | over
        self.passes = 0
        self.scores = [0] * players
        self.wins = [0] * players

    # -- rules helpers -------------------------------------------------------------------------
    def is_wild(self, card: MekuriCard) -> bool:
        return card == self.wild_card

    def needed(self) -> int | None:
        """The number that follows the top card: "The number sequence is on a loop"; the wild
        card "can be used ... be followed by any card" (0: anything)."""
        if self.phase != "follow" or not self.discard:
            return None
        top = self.discard[-1]
        if self.is_wild(top):
            return 0
        return top.rank % self.loop + 1

    def playable(self, seat: int) -> list[MekuriCard]:
        need = self.needed()
        if need is None:
            return []
        return sorted({c for c in self.hands[seat]
                       if need == 0 or self.is_wild(c) or c.rank == need}, key=_order)

    # -- protocol --------------------------------------------------------------------------------
    def actors(self) -> tuple[int, ...]:
        if self.phase == "over":
            return ()
        if self.phase == "deal":
            return (READER,)
        return (self.turn,)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.actors():
            return []
        if self.phase == "deal":
            return [Deal()]
        if self.phase == "lead":
            return [Lead(c) for c in sorted(set(self.hands[seat]), key=_order)]
        cards = self.playable(seat)
        out: list[Action] = [Discard(c) for c in cards]
        # "If the player has a card of the next number, he/she discards it": compulsory. The
        # wild card "can be used": seed silent on forcing it; holding it back is allowed.
        if not any(not self.is_wild(c) for c in cards):
            out.append(Pass())
        return out

    def is_over(self) -> bool:
        return self.phase == "over"

    def outcome(self) -> GameOutcome | None:
        if not self.is_over():
            return None
        best = max(self.scores)
        return GameOutcome(tuple(self.scores),
                           tuple(s for s in range(self.players) if self.scores[s] == best),
                           "hand_empty")

    def view(self, seat: int) -> YomiView:
        return YomiView(seat=seat, players=self.players, ruleset=self.options.ruleset,
                        loop=self.loop, wild_card=self.wild_card, round_no=self.round_no,
                        dealer=self.dealer, turn=None if self.phase in ("deal", "over") else self.turn,
                        phase=self.phase, hand=tuple(sorted(self.hands[seat], key=_order)),
                        hand_counts=tuple(len(h) for h in self.hands),
                        discard=tuple(self.discard), undealt=self.undealt is not None,
                        needed=self.needed(), scores=tuple(self.scores), teyaku=self.teyaku[seat],
                        passes=self.passes)

    def redact(self, event: GameEvent, seat: int) -> GameEvent | None:
        """Hands and teyaku are seen by their holder only."""
        if isinstance(event, HandDealt) and event.seat != seat:
            return replace(event, cards=())
        if isinstance(event, TeyakuHeld) and event.seat != seat:
            return None
        return event

    def clone(self) -> "YomiState":
        """An independent copy (cards and options are immutable and shared; the RNG is copied)."""
        other = copy.copy(self)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.hands = [list(h) for h in self.hands]
        other.discard = list(self.discard)
        other.teyaku = list(self.teyaku)
        other.scores, other.wins = list(self.scores), list(self.wins)
        return other

    def check_invariants(self) -> None:
        cards = [c for h in self.hands for c in h] + self.discard
        cards += [self.undealt] if self.undealt is not None else []
        if self.round_no:
            assert sorted(cards, key=_order) == sorted(self.deck, key=_order), "cards not conserved"
        assert len(set(self.deck)) == len(self.deck)
        if self.phase in ("lead", "follow"):
            assert 0 <= self.passes < self.players
        if self.options.ruleset == "standard":
            assert self.scores == self.wins

    def why_illegal(self, seat: int, action: Action) -> IllegalAction | None:
        """The refusal `apply` would raise for `seat` taking `action` (None: it is legal)."""
        if self.phase == "over":
            return IllegalAction("turn.game_over", "the game is over")
        if isinstance(action, Deal) or self.phase == "deal":
            if isinstance(action, Deal) and self.phase == "deal":
                return None
            if isinstance(action, Deal):
                return IllegalAction("yomi.not_dealing", "cards are dealt only between rounds")
            return IllegalAction("turn.not_your_turn", "the round is not dealt yet", seat=seat)
        if seat not in self.actors():
            return IllegalAction("turn.not_your_turn", f"seat {seat} is not to act now", seat=seat)
        if action in self.legal_actions(seat):
            return None
        card = getattr(action, "card", None)
        if card is not None and card not in self.hands[seat]:
            return IllegalAction("yomi.not_in_hand", f"seat {seat} does not hold {card!r}", card=card)
        if self.phase == "lead":
            return IllegalAction("yomi.must_lead", "start a new sequence with any card")
        if isinstance(action, Pass):
            return IllegalAction("yomi.must_discard", f"you hold a {self.needed()}: discard it",
                                 needed=self.needed())
        return IllegalAction("yomi.wrong_number", f"the next number is {self.needed()}",
                             needed=self.needed(), card=card)

    def apply(self, action: Action) -> list[GameEvent]:
        seat = READER if self.phase == "deal" else self.turn
        refusal = self.why_illegal(seat, action)
        if refusal is not None:
            raise refusal
        if isinstance(action, Deal):
            return self._deal()
        if isinstance(action, Pass):
            return self._pass(seat)
        card = action.card
        self.hands[seat].remove(card)
        self.discard.append(card)
        self.passes = 0
        event: GameEvent = (Led(seat, card) if isinstance(action, Lead)
                            else Discarded(seat, card, len(self.hands[seat])))
        self.phase = "follow"          # "That player gets another turn." (the dealer too)
        if not self.hands[seat]:
            return [event, *self._win(seat)]
        return [event]

    # -- steps ---------------------------------------------------------------------------------
    def _deal(self) -> list[GameEvent]:
        """"Dealer shuffles and deals 10 cards ... to each player. If a wild card is included,
        there will be one card left; place it on the table face down." (yomi37: "deals 9 cards
        ... Place the undealt card on the table face down".)"""
        self.round_no += 1
        deck = list(self.deck)
        self.rng.shuffle(deck)
        n, k = self.players, self.hand_size
        # dealt from the dealer's next seat round the table
        for i in range(n):
            self.hands[(self.dealer + 1 + i) % n] = sorted(deck[i * k:(i + 1) * k], key=_order)
        rest = deck[n * k:]
        assert len(rest) <= 1
        self.undealt = rest[0] if rest else None
        self.discard = []
        self.passes = 0
        self.turn = self.dealer
        self.phase = "lead"
        events: list[GameEvent] = [RoundDealt(self.round_no, self.dealer, k, self.undealt is not None)]
        events += [HandDealt(s, tuple(self.hands[s])) for s in range(n)]
        self.teyaku = [() for _ in range(n)]
        if self.options.ruleset == "yomi37":
            # "Each player must check their hands for any Teyaku before the dealer starts their
            # first turn."
            for s in range(n):
                if all(c in self.hands[s] for c in SANKO):
                    self.teyaku[s] = ("sanko",)
                    events.append(TeyakuHeld(s, "sanko"))
        return events

    def _pass(self, seat: int) -> list[GameEvent]:
        needed = self.needed() or 0
        events: list[GameEvent] = [Passed(seat, needed)]
        self.passes += 1
        self.turn = (seat + 1) % self.players     # "turns move counter-clockwise"
        if self.passes == self.players:
            # Everybody passed in turn: the turn is back with the last to discard.
            self.passes = 0
            self.phase = "lead"
            events.append(Blocked(self.turn, needed))
        return events

    def _win(self, seat: int) -> list[GameEvent]:
        """"If you do, the round ends and you win the round, and you become the dealer for the
        next round." yomi37: "The winner earns points from all discarded cards, plus their Yaku
        points if they have one"; the undealt card "will be added to the score of the winner"."""
        self.wins[seat] += 1
        if self.options.ruleset == "yomi37":
            counted = self.discard + ([self.undealt] if self.undealt else [])
            value = (len(counted) if self.options.card_points == "one"
                     else sum(c.rank for c in counted))
            points = value + self.options.sanko_points * len(self.teyaku[seat])
        else:
            points = 1    # seed: no score, only the winner; a game counts rounds won
        self.scores[seat] += points
        events: list[GameEvent] = [RoundWon(self.round_no, seat, points, self.teyaku[seat], self.undealt)]
        self.dealer = seat
        if self.round_no >= self.options.rounds:
            self.phase = "over"
            out = self.outcome()
            assert out is not None
            events.append(GameEnded(out.scores, out.winners))
        else:
            self.phase = "deal"
        return events


def _order(card: MekuriCard) -> tuple[int, str]:
    return (card.rank, card.suit)


def new_game(players: int, seed: int | str = 0, options: YomiOptions | None = None) -> YomiState:
    return YomiState(players, seed, options)
