"""Unsun karuta (うんすんカルタ), Hachi-nin Meri (八人メリ): the deck and the rules engine.

The authority is rules seed 004 (``docs/references.md``); the sentences quoted
in the comments below are the seed's own words. The older ruleset of Fudawiki's
Hachi-Nin Meri page (widow, opening lead stack,
clockwise play ...) is background only and is not mixed in.

Where the seed is silent this module decides, says so in a ``Decision:``
comment, and makes the choice a field of `UnsunRules` when either way is
defensible:

- who deals: seat 0 deals the first deal, then the deal passes one seat in
  the direction of play, so in the 8 deals of a game every seat deals once;
- the two cards left after the Okié: set aside face-down, out of play for
  the deal, seen by nobody (the discard of whoever takes the Okié joins them,
  seen only by that player);
- nobody holds the trump's ロバイ (it is the Okié or set aside):
  `UnsunRules.unheld_robai` (default: the dealer takes the Okié and
  discards, yaku stay at 2);
- who leads the first trick: `UnsunRules.first_lead` (default: whoever took
  the Okié); later tricks are led by the winner of the previous trick;
- when face-down trumps are turned up: when the trick is complete (its
  resolution needs them), not before;
- the yaku pair's order in the trick: `UnsunRules.yaku_order` (default: any
  order);
- テンカ in the yaku chain: not part of it (the chain names the trump suit's
  own courts, and the seed's tables call テンカ by its own name);
- invalidation with nothing above the winner (スン>ウン, the pip pairs): never
  void; a yaku is void only when there are chain cards above its winner and
  every one of them was played in an earlier trick;
- Meri happens once a deal: the first trump lead; a later trump lead (in
  Monchi) follows Monchi's rules.

Seats are numbered in the direction of play: "Play proceeds
counterclockwise", so seat ``s + 1`` (mod 8) plays after seat ``s``.
The engine follows `trainer.games.protocol.GameState`; it is pure (no Qt,
audio or numpy) and every shuffle comes from its seed.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Sequence, Union

from trainer.rules.protocol import READER, GameEvent, GameOutcome, IllegalAction, event_kinds

# -- the deck ------------------------------------------------------------------------------------
# "The Deck (75 cards) / 5 suits, each with 15 ranks (1–9 pip cards + 6 court cards)"

PAO, ISU, KOTSU, ORI, GURU = "pao", "isu", "kotsu", "ori", "guru"
SUITS = (PAO, ISU, KOTSU, ORI, GURU)
LONG_SUITS = (PAO, ISU)
""""パオ Long Green / イス Long Blue / コツ Round Red / オリ Round Gold / グル Round Purple"."""
SUIT_KANA = {PAO: "パオ", ISU: "イス", KOTSU: "コツ", ORI: "オリ", GURU: "グル"}
SUIT_COLOUR = {PAO: "green", ISU: "blue", KOTSU: "red", ORI: "gold", GURU: "purple"}

# "Court cards: カバ(10), レイ(11), ロバイ(12), ソウタ(13), ウン(14), スン(15)"
KABA, REI, ROBAI, SOTA, UN, SUN = 10, 11, 12, 13, 14, 15
RANKS = tuple(range(1, 16))
COURT_KANA = {KABA: "カバ", REI: "レイ", ROBAI: "ロバイ", SOTA: "ソウタ", UN: "ウン", SUN: "スン"}

PLAYERS = 8
HAND = 9
TRICKS = 9
DEALS = 8
TEAM_A, TEAM_B = 0, 1


class Card(NamedTuple):
    """One of the 75 cards: a suit id and a rank 1–15 (10–15 the courts)."""

    suit: str
    rank: int

    @property
    def is_court(self) -> bool:
        return self.rank >= KABA

    def kana(self) -> str:
        """パオの9, イスのロバイ, and テンカ for パオのソウタ (whether or not it is trump now)."""
        if self == TENKA:
            return "テンカ"
        return f"{SUIT_KANA[self.suit]}の{COURT_KANA.get(self.rank, str(self.rank))}"

    def __str__(self) -> str:
        return f"{self.suit}-{self.rank}"


DECK: tuple[Card, ...] = tuple(Card(s, r) for s in SUITS for r in RANKS)
TENKA = Card(PAO, SOTA)
""""テンカ: When trump ≠ パオ, パオのソウタ becomes テンカ and joins the trump suit"."""


def team_of(seat: int) -> int:
    """"Team A: Players 0, 2, 4, 6 / Team B: Players 1, 3, 5, 7"."""
    return seat % 2


def team_seats(team: int) -> tuple[int, ...]:
    return tuple(range(team, PLAYERS, 2))


def is_round(suit: str) -> bool:
    return suit not in LONG_SUITS


# -- card strength, as the seed's six tables -------------------------------------------------------
# A table lists ranks strongest first; "tenka" stands for パオのソウタ.
_PIPS_DOWN = tuple(range(9, 0, -1))   # 9 > 8 > … > 1
_PIPS_UP = tuple(range(1, 10))        # 1 > 2 > … > 9
TENKA_TOKEN = "tenka"
Rank = Union[int, str]

TRUMP_TABLES: dict[str, tuple[Rank, ...]] = {
    # "パオ trump: スン > ウン > ソウタ > ロバイ > レイ > カバ > 9 > 8 > … > 1"
    "pao": (SUN, UN, SOTA, ROBAI, REI, KABA, *_PIPS_DOWN),
    # "イス trump: スン > ウン > ソウタ > テンカ > ロバイ > レイ > カバ > 9 > 8 > … > 1"
    "isu": (SUN, UN, SOTA, TENKA_TOKEN, ROBAI, REI, KABA, *_PIPS_DOWN),
    # "Round trump: スン > ウン > ソウタ > テンカ > ロバイ > レイ > カバ > 1 > 2 > … > 9"
    "round": (SUN, UN, SOTA, TENKA_TOKEN, ROBAI, REI, KABA, *_PIPS_UP),
}
PLAIN_TABLES: dict[str, tuple[Rank, ...]] = {
    # "パオ (ソウタ is absent — becomes テンカ): スン > ウン > レイ > カバ > ロバイ > 9 > 8 > … > 1"
    "pao": (SUN, UN, REI, KABA, ROBAI, *_PIPS_DOWN),
    # "イス: スン > ウン > レイ > カバ > ソウタ > 9 > 8 > … > 2 > ロバイ > 1"
    "isu": (SUN, UN, REI, KABA, SOTA, *range(9, 1, -1), ROBAI, 1),
    # "Round: スン > ウン > レイ > カバ > ソウタ > ロバイ > 1 > 2 > … > 9"
    "round": (SUN, UN, REI, KABA, SOTA, ROBAI, *_PIPS_UP),
}


def table_key(suit: str) -> str:
    return suit if suit in LONG_SUITS else "round"


def table_cards(table: Sequence[Rank], suit: str) -> list[Card]:
    """A table's ranks as cards of `suit` (テンカ as パオのソウタ), strongest first."""
    return [TENKA if r == TENKA_TOKEN else Card(suit, int(r)) for r in table]


class Ranking:
    """Strength of every card for one trump suit: which cards are trump, and their order.

    Strengths are comparable only within the trump cards, or within one
    non-trump suit (a card of another suit never wins: see `trick_winner`).
    """

    def __init__(self, trump: str):
        self.trump = trump
        # with パオ trump the table has no テンカ: パオのソウタ is the trump ソウタ
        trumps = table_cards(TRUMP_TABLES[table_key(trump)], trump)
        self.trumps = frozenset(trumps)
        self.strength: dict[Card, int] = {c: len(trumps) - i for i, c in enumerate(trumps)}
        for suit in SUITS:
            if suit == trump:
                continue
            plain = [c for c in table_cards(PLAIN_TABLES[table_key(suit)], suit) if c not in self.trumps]
            for i, c in enumerate(plain):
                self.strength[c] = len(plain) - i

    def is_trump(self, card: Card) -> bool:
        return card in self.trumps

    def suit_of(self, card: Card) -> str:
        """The suit a card counts as for following: the trump suit for テンカ."""
        return self.trump if card in self.trumps else card.suit


RANKINGS = {s: Ranking(s) for s in SUITS}


def trick_winner(plays: Sequence[tuple[int, Card]], trump: str) -> int:
    """The winning seat of a complete (or partial) trick of (seat, card) in play order.

    "If any trump was played → highest trump wins / Otherwise → highest card
    of the led suit wins / Cards not matching the led suit or trump never win".
    """
    ranking = RANKINGS[trump]
    trumps = [(ranking.strength[c], s) for s, c in plays if c in ranking.trumps]
    if trumps:
        return max(trumps)[1]
    led = plays[0][1].suit
    return max((ranking.strength[c], s) for s, c in plays if c.suit == led)[1]


# -- yaku ------------------------------------------------------------------------------------------
# "Court card yakus: スン > ウン, ウン > ソウタ, ソウタ > ロバイ, ロバイ > レイ"
YAKU_CHAIN = (SUN, UN, SOTA, ROBAI, REI)
COURT_YAKU = tuple(zip(YAKU_CHAIN, YAKU_CHAIN[1:]))
LONG_PIP_YAKU = (2, 1)    # "Trump is long suit (パオ/イス): 2 beats 1"
ROUND_PIP_YAKU = (8, 9)   # "Trump is round suit (コツ/オリ/グル): 8 beats 9"
YAKU_POINTS, BIG_YAKU_POINTS = 2, 5
""""2 points normally, 5 points on the last trick or during hidden robai"."""


def yaku_pairs(trump: str) -> tuple[tuple[int, int], ...]:
    """(winner rank, loser rank) of every yaku in a deal with this trump suit."""
    return (*COURT_YAKU, ROUND_PIP_YAKU if is_round(trump) else LONG_PIP_YAKU)


def above_in_chain(rank: int) -> tuple[int, ...]:
    """Chain ranks above a yaku's winner (empty for スン and for the pip yaku)."""
    return YAKU_CHAIN[:YAKU_CHAIN.index(rank)] if rank in YAKU_CHAIN else ()


# -- rules settings --------------------------------------------------------------------------------

@dataclass(frozen=True)
class UnsunRules:
    """Choices where seed 004 is silent (see the module docstring)."""

    deals: int = DEALS
    """"The game lasts 8 deals"."""
    first_lead: str = "okie_taker"
    """Who leads the first trick: ``okie_taker`` (whoever took the Okié: the ロバイ holder who
    ロバう'd, else the dealer) or ``after_dealer`` (the seat after the dealer)."""
    unheld_robai: str = "dealer_takes"
    """When nobody holds the trump's ロバイ: ``dealer_takes`` (the dealer takes the Okié and
    discards; yaku stay at 2) or ``okie_stays`` (the Okié stays face up, out of play)."""
    yaku_order: str = "any"
    """``any``: the yaku pair may be played in either order in the trick; ``later``: the yaku's
    winner must be played after the card it beats (trampling)."""

    def __post_init__(self) -> None:
        if self.deals < 1:
            raise ValueError(f"a game has at least one deal, not {self.deals}")
        for name, allowed in (("first_lead", ("okie_taker", "after_dealer")),
                              ("unheld_robai", ("dealer_takes", "okie_stays")),
                              ("yaku_order", ("any", "later"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} is one of {', '.join(allowed)}, not {getattr(self, name)!r}")

    @classmethod
    def from_options(cls, options: dict) -> "UnsunRules":
        known = {k: options[k] for k in ("deals", "first_lead", "unheld_robai", "yaku_order")
                 if options.get(k) is not None}
        return cls(**known)


# -- refusals --------------------------------------------------------------------------------------
# `IllegalAction` is the protocol's (a reason id and fields); every id below is worded in both
# languages by `trainer.text.unsun`. The session's ``turn.*`` ids are listed too: the table raises them.
REFUSALS = (
    "turn.not_your_turn",       # the seat is not the one to act (session and engine)
    "turn.game_over",           # the game is over
    "unsun.not_dealing",        # cards are dealt only between deals
    "unsun.choose_robai",       # the ロバイ holder must first take the Okié or hide the ロバイ
    "unsun.no_robai_choice",    # robau / hide when there is no such choice
    "unsun.discard_first",      # whoever took the Okié must discard before play starts
    "unsun.not_in_hand",        # a card the seat does not hold
    "unsun.first_lead_trump",   # the first trick is not led with trump (unless all are trump)
    "unsun.meri_trump",         # the Meri trick: trump while you hold trump
    "unsun.trump_led",          # Monchi, trump led: trump while you hold trump
    "unsun.must_follow",        # Monchi: the led suit or trump while you hold the led suit
)

# -- actions ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Deal:
    """The reader (chance) shuffles and deals the next deal."""


@dataclass(frozen=True)
class Robau:
    """ロバう: the trump's ロバイ holder takes the Okié (then discards)."""

    seat: int


@dataclass(frozen=True)
class HideRobai:
    """隠しロバイ: the ロバイ holder passes; the dealer takes the Okié; yaku are worth 5."""

    seat: int


@dataclass(frozen=True)
class Discard:
    """Whoever took the Okié puts one card face-down out of play, back to 9 cards."""

    seat: int
    card: Card


@dataclass(frozen=True)
class Play:
    """A card to the trick (face-down or not is the rules' business, not a choice)."""

    seat: int
    card: Card


Action = Union[Deal, Robau, HideRobai, Discard, Play]

# -- events ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealStarted(GameEvent):
    kind = "unsun.deal"
    deal: int
    dealer: int
    okie: Card
    trump: str


@dataclass(frozen=True)
class HandDealt(GameEvent):
    """A seat's 9 cards: only that seat learns of it."""

    kind = "unsun.hand"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class RobaiDeclared(GameEvent):
    kind = "unsun.robau"
    seat: int


@dataclass(frozen=True)
class RobaiHidden(GameEvent):
    """Everyone learns the ロバイ is hidden (yaku worth 5); only the holder sees `seat`."""

    kind = "unsun.hidden_robai"
    seat: int | None


@dataclass(frozen=True)
class RobaiUnheld(GameEvent):
    """Nobody holds the trump's ロバイ (it is the Okié or set aside).

    Public only when the Okié is that ロバイ (everyone sees it face up); when it
    lies among the set-aside cards no seat is told (`UnsunState.redact`), since
    "seen by nobody" covers where a set-aside card is."""

    kind = "unsun.no_robai"
    dealer: int
    robai_is_okie: bool = False


@dataclass(frozen=True)
class OkieTaken(GameEvent):
    kind = "unsun.okie_taken"
    seat: int
    card: Card


@dataclass(frozen=True)
class Discarded(GameEvent):
    """A card put out of play face-down; `card` is None for everyone else."""

    kind = "unsun.discard"
    seat: int
    card: Card | None


@dataclass(frozen=True)
class Played(GameEvent):
    """A card to the trick; a face-down card is None for everyone else until the trick ends."""

    kind = "unsun.play"
    seat: int
    card: Card | None
    face_down: bool
    trick: int


@dataclass(frozen=True)
class MeriDeclared(GameEvent):
    """"When a player leads a trick with a trump card, they declare 'Meri!'"."""

    kind = "unsun.meri"
    seat: int
    card: Card
    trick: int


@dataclass(frozen=True)
class MonchiBegins(GameEvent):
    """"Phase 2: Monchi (Must Follow) / Starting from the next trick after Meri"."""

    kind = "unsun.monchi"
    trick: int


@dataclass(frozen=True)
class TrickWon(GameEvent):
    """The trick's face-down cards are turned up (`revealed`) and its winner takes it."""

    kind = "unsun.trick"
    trick: int
    seat: int
    team: int
    card: Card
    revealed: tuple[tuple[int, Card], ...]


@dataclass(frozen=True)
class YakuMade(GameEvent):
    kind = "unsun.yaku"
    trick: int
    seat: int
    card: Card
    over_seat: int
    over_card: Card
    team: int
    points: int


@dataclass(frozen=True)
class YakuVoid(GameEvent):
    """"A yaku is void if all trump-suit cards ranked above the winner ... have already been played"."""

    kind = "unsun.yaku_void"
    trick: int
    seat: int
    card: Card
    over_seat: int
    over_card: Card


@dataclass(frozen=True)
class DealScored(GameEvent):
    kind = "unsun.deal_scored"
    deal: int
    tricks_a: int
    tricks_b: int
    yaku_a: int
    yaku_b: int
    points_a: int
    points_b: int
    total_a: int
    total_b: int


@dataclass(frozen=True)
class GameEnded(GameEvent):
    kind = "unsun.game_over"
    total_a: int
    total_b: int
    winner: int | None
    """The winning team (0 = A, 1 = B), None on a tie."""


EVENT_TYPES = event_kinds(DealStarted, HandDealt, RobaiDeclared, RobaiHidden, RobaiUnheld,
                          OkieTaken, Discarded, Played, MeriDeclared, MonchiBegins, TrickWon,
                          YakuMade, YakuVoid, DealScored, GameEnded)

# -- phases ----------------------------------------------------------------------------------------
DEALING, ROBAI_CHOICE, DISCARDING = "deal", "robai", "discard"
MEIRAF, MERI, MONCHI, OVER = "meiraf", "meri", "monchi", "over"
PLAY_PHASES = (MEIRAF, MERI, MONCHI)


class TrickCard(NamedTuple):
    """A card on the table: who played it, the card, and whether it lies face-down."""

    seat: int
    card: Card
    face_down: bool


class SeenCard(NamedTuple):
    """A card on the table as one seat sees it: `card` is None when it lies face-down for them."""

    seat: int
    card: Card | None
    face_down: bool


@dataclass(frozen=True)
class DealResult:
    tricks: tuple[int, int]
    yaku: tuple[int, int]
    points: tuple[int, int]


@dataclass(frozen=True)
class UnsunView:
    """What one seat may see (`UnsunState.view`)."""

    seat: int
    deal: int
    dealer: int
    phase: str
    trump: str | None
    okie: Card | None
    okie_holder: int | None
    """Who took the Okié into their hand (public: it lay face up), None while it is on the table."""
    hidden_robai: bool
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    discard: Card | None
    """This seat's own discard, if it took the Okié."""
    trick_no: int
    leader: int | None
    to_act: int | None
    trick: tuple[SeenCard, ...]
    played: frozenset[Card]
    """Cards of the completed tricks of this deal (all turned up)."""
    history: tuple[tuple[tuple[int, Card], ...], ...]
    """The completed tricks of this deal, (seat, card) in play order."""
    winners: tuple[int, ...]
    """The winning seat of each completed trick."""
    tricks: tuple[int, int]
    yaku: tuple[int, int]
    totals: tuple[int, int]
    results: tuple[DealResult, ...]
    meri_trick: int | None

    @property
    def team(self) -> int:
        return team_of(self.seat)

    def cards_seen(self) -> set[Card]:
        """Every card this view shows (the hidden-information tests read it)."""
        seen = set(self.hand) | set(self.played)
        seen |= {c.card for c in self.trick if c.card is not None}
        if self.okie is not None:
            seen.add(self.okie)
        if self.discard is not None:
            seen.add(self.discard)
        return seen


# -- the state -------------------------------------------------------------------------------------

@dataclass
class UnsunState:
    """One game of 8 deals (see the module docstring). Make it with `new_game`."""

    rules: UnsunRules
    seed: str
    rng: random.Random
    players: int = PLAYERS
    deal_no: int = -1
    dealer: int = 0
    phase: str = DEALING
    trump: str | None = None
    okie: Card | None = None
    okie_on_table: bool = False
    okie_holder: int | None = None
    robai_holder: int | None = None
    hidden_robai: bool = False
    hands: list[list[Card]] = field(default_factory=lambda: [[] for _ in range(PLAYERS)])
    set_aside: list[Card] = field(default_factory=list)
    discards: dict[int, Card] = field(default_factory=dict)
    trick: list[TrickCard] = field(default_factory=list)
    trick_no: int = 0
    leader: int = 0
    to_act: int | None = None
    meri_trick: int | None = None
    history: list[tuple[TrickCard, ...]] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    played: set[Card] = field(default_factory=set)
    tricks: list[int] = field(default_factory=lambda: [0, 0])
    yaku: list[int] = field(default_factory=lambda: [0, 0])
    results: list[DealResult] = field(default_factory=list)
    totals: list[int] = field(default_factory=lambda: [0, 0])

    # -- protocol: questions ---------------------------------------------------------------------
    @property
    def ranking(self) -> Ranking:
        assert self.trump is not None
        return RANKINGS[self.trump]

    def actors(self) -> tuple[int, ...]:
        if self.phase == OVER:
            return ()
        if self.phase == DEALING:
            return (READER,)
        assert self.to_act is not None
        return (self.to_act,)

    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> GameOutcome | None:
        if not self.is_over():
            return None
        a, b = self.totals
        winner = self.winning_team()
        winners = tuple(range(PLAYERS)) if winner is None else team_seats(winner)
        return GameOutcome(tuple(self.totals[team_of(s)] for s in range(PLAYERS)), winners,
                           "deals" if a != b else "tie")

    def winning_team(self) -> int | None:
        """"The team with the highest total score wins"; None on a tie."""
        a, b = self.totals
        return None if a == b else (TEAM_A if a > b else TEAM_B)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.actors():
            return []
        if self.phase == DEALING:
            return [Deal()]
        if self.phase == ROBAI_CHOICE:
            return [Robau(seat), HideRobai(seat)]
        if self.phase == DISCARDING:
            return [Discard(seat, c) for c in self.hands[seat]]
        return [Play(seat, c) for c in self.playable(seat)]

    def playable(self, seat: int) -> list[Card]:
        """The cards `seat` may play to the current trick."""
        hand = self.hands[seat]
        ranking = self.ranking
        trumps = [c for c in hand if c in ranking.trumps]
        if not self.trick:
            # "First trick: Cannot lead with a trump card (unless all cards are trump)"
            if self.trick_no == 0 and self.phase == MEIRAF and len(trumps) < len(hand):
                return [c for c in hand if c not in ranking.trumps]
            return list(hand)
        if self.phase == MERI:
            # "On that trick, all players who have trump must play trump face-up.
            #  Players without trump may play any card."
            return trumps or list(hand)
        if self.phase == MONCHI:
            led = self.trick[0].card
            if led in ranking.trumps:
                # "When trump is led, must play trump if you have any"
                return trumps or list(hand)
            # "If you have the led suit, you must play the led suit or trump /
            #  If you are void in the led suit, you may play any card"
            suited = [c for c in hand if c.suit == led.suit and c not in ranking.trumps]
            return suited + trumps if suited else list(hand)
        # "Phase 1: Meiraf (Free Play) / No follow obligation"
        return list(hand)

    # -- protocol: actions -----------------------------------------------------------------------
    def why_illegal(self, seat: int, action: Action) -> IllegalAction | None:
        """The refusal `apply` would raise for `seat` taking `action` (None: it is legal).

        The rule is said as data: a reason id from `REFUSALS` and its fields, so a
        screen words it and a server sends it without re-deriving the follow rules."""
        if self.phase == OVER:
            return IllegalAction("turn.game_over", "the game is over")
        if isinstance(action, Deal):
            if self.phase != DEALING:
                return IllegalAction("unsun.not_dealing", "cards are dealt only between deals")
            return None
        if seat not in self.actors():
            return IllegalAction("turn.not_your_turn", f"seat {seat} is not to act now", seat=seat)
        if action in self.legal_actions(seat):
            return None
        if self.phase == ROBAI_CHOICE:
            return IllegalAction("unsun.choose_robai", "first take the Okié or hide the Robai")
        if isinstance(action, (Robau, HideRobai)):
            return IllegalAction("unsun.no_robai_choice", "there is no Robai choice to make now")
        card = getattr(action, "card", None)
        if self.phase == DISCARDING and not isinstance(action, Discard):
            return IllegalAction("unsun.discard_first", "discard a card first")
        if card not in self.hands[seat]:
            return IllegalAction("unsun.not_in_hand", f"seat {seat} does not hold {card!r}", card=card)
        if isinstance(action, Play) and self.phase in PLAY_PHASES:
            return self._why_not_playable(card)
        return IllegalAction("turn.not_your_turn", f"seat {seat} may not {action!r} now", seat=seat)

    def _why_not_playable(self, card: Card) -> IllegalAction:
        """Which of `playable`'s follow rules keeps `card` (held, not playable) in the hand."""
        if not self.trick:
            return IllegalAction("unsun.first_lead_trump",
                                 "the first trick may not be led with trump (unless every card is trump)")
        if self.phase == MERI:
            return IllegalAction("unsun.meri_trump", "on the Meri trick, play trump while you hold trump")
        led = self.trick[0].card
        if led in self.ranking.trumps:
            return IllegalAction("unsun.trump_led", "trump was led: play trump while you hold trump")
        return IllegalAction("unsun.must_follow", f"follow {led.suit} or play trump",
                             suit=led.suit, card=card)

    def apply(self, action: Action) -> list[GameEvent]:
        if not isinstance(action, Deal):
            seat = getattr(action, "seat", None)
            if not isinstance(seat, int) or not 0 <= seat < PLAYERS:
                raise ValueError(f"not an Unsun action: {action!r}")
        else:
            seat = READER
        refusal = self.why_illegal(seat, action)
        if refusal is not None:
            raise refusal
        if isinstance(action, Deal):
            return self._deal()
        if isinstance(action, Robau):
            return self._take_okie(seat, "robai")
        if isinstance(action, HideRobai):
            return self._hide_robai(seat)
        if isinstance(action, Discard):
            return self._discard(seat, action.card)
        assert isinstance(action, Play)
        return self._play(seat, action.card)

    def _deal(self) -> list[GameEvent]:
        self.deal_no += 1
        # Decision: seat 0 deals first, then the deal moves one seat in the direction of play.
        self.dealer = self.deal_no % PLAYERS
        deck = list(DECK)
        self.rng.shuffle(deck)
        # "After dealing 9 cards to each player (72 total), the 73rd card is placed face up as
        #  the Okié / The Okié's suit becomes the trump suit for that deal"
        self.hands = [sorted(deck[s * HAND:(s + 1) * HAND]) for s in range(PLAYERS)]
        self.okie = deck[PLAYERS * HAND]
        self.trump = self.okie.suit
        # Decision: the 74th and 75th cards are set aside face-down, out of play, seen by nobody.
        self.set_aside = deck[PLAYERS * HAND + 1:]
        self.okie_on_table, self.okie_holder, self.hidden_robai = True, None, False
        self.discards = {}
        self.trick, self.trick_no, self.meri_trick = [], 0, None
        self.history, self.winners, self.played = [], [], set()
        self.tricks, self.yaku = [0, 0], [0, 0]
        events: list[GameEvent] = [DealStarted(self.deal_no, self.dealer, self.okie, self.trump)]
        events += [HandDealt(s, tuple(self.hands[s])) for s in range(PLAYERS)]
        # "The player holding the trump suit's ロバイ has a choice"
        robai = Card(self.trump, ROBAI)
        self.robai_holder = next((s for s in range(PLAYERS) if robai in self.hands[s]), None)
        if self.robai_holder is not None:
            self.phase, self.to_act = ROBAI_CHOICE, self.robai_holder
            return events
        events.append(RobaiUnheld(self.dealer, self.okie == robai))
        if self.rules.unheld_robai == "dealer_takes":
            return events + self._take_okie(self.dealer, "unheld")
        return events + self._start_play()

    def _take_okie(self, seat: int, why: str) -> list[GameEvent]:
        """"Take the Okié (ロバう): Pick up the Okié, then discard one card to return to 9"."""
        assert self.okie is not None
        events: list[GameEvent] = [RobaiDeclared(seat)] if why == "robai" else []
        self.hands[seat].append(self.okie)
        self.hands[seat].sort()
        self.okie_on_table, self.okie_holder = False, seat
        events.append(OkieTaken(seat, self.okie))
        self.phase, self.to_act = DISCARDING, seat
        return events

    def _hide_robai(self, seat: int) -> list[GameEvent]:
        """"Hidden Robai (隠しロバイ): Pass — the dealer takes the Okié and discards. All yakus
        are worth 5 points instead of 2 during this deal"."""
        self.hidden_robai = True
        return [RobaiHidden(seat), *self._take_okie(self.dealer, "hidden")]

    def _discard(self, seat: int, card: Card) -> list[GameEvent]:
        self.hands[seat].remove(card)
        self.discards[seat] = card
        return [Discarded(seat, card), *self._start_play()]

    def _start_play(self) -> list[GameEvent]:
        if self.rules.first_lead == "okie_taker" and self.okie_holder is not None:
            self.leader = self.okie_holder
        elif self.rules.first_lead == "okie_taker":
            self.leader = self.dealer
        else:
            self.leader = (self.dealer + 1) % PLAYERS
        self.phase, self.to_act = MEIRAF, self.leader
        return []

    def _play(self, seat: int, card: Card) -> list[GameEvent]:
        ranking = self.ranking
        is_trump = card in ranking.trumps
        events: list[GameEvent] = []
        leading = not self.trick
        if leading and is_trump and self.phase == MEIRAF:
            # "When a player leads a trick with a trump card, they declare 'Meri!'"
            self.phase, self.meri_trick = MERI, self.trick_no
            events.append(MeriDeclared(seat, card, self.trick_no))
        # "Trump cards played as followers go face-down", except on the Meri trick
        # ("all players who have trump must play trump face-up").
        face_down = is_trump and not leading and self.phase != MERI
        self.hands[seat].remove(card)
        self.trick.append(TrickCard(seat, card, face_down))
        events.append(Played(seat, card, face_down, self.trick_no))
        if len(self.trick) < PLAYERS:
            self.to_act = (seat + 1) % PLAYERS
            return events
        return events + self._finish_trick()

    def _finish_trick(self) -> list[GameEvent]:
        assert self.trump is not None
        plays = [(t.seat, t.card) for t in self.trick]
        winner = trick_winner(plays, self.trump)
        won_with = next(c for s, c in plays if s == winner)
        revealed = tuple((t.seat, t.card) for t in self.trick if t.face_down)
        events: list[GameEvent] = [TrickWon(self.trick_no, winner, team_of(winner), won_with, revealed)]
        events += self._yaku_of_trick()
        self.tricks[team_of(winner)] += 1
        self.history.append(tuple(self.trick))
        self.winners.append(winner)
        self.played.update(c for _, c in plays)
        self.trick = []
        self.trick_no += 1
        if self.trick_no == TRICKS:
            return events + self._score_deal()
        self.leader = self.to_act = winner  # Decision: the trick's winner leads the next trick.
        if self.phase == MERI:
            self.phase = MONCHI
            events.append(MonchiBegins(self.trick_no))
        return events

    def _yaku_of_trick(self) -> list[GameEvent]:
        """Yaku between face-down trumps of enemies on this trick (never on the Meri trick)."""
        if self.trick_no == self.meri_trick:
            return []  # "Yaku can only occur on tricks other than the Meri trick"
        assert self.trump is not None
        down = {t.card.rank: (i, t.seat) for i, t in enumerate(self.trick)
                if t.face_down and t.card.suit == self.trump}  # テンカ is not in the chain
        # "2 points normally, 5 points on the last trick or during hidden robai"
        points = BIG_YAKU_POINTS if self.hidden_robai or self.trick_no == TRICKS - 1 else YAKU_POINTS
        events: list[GameEvent] = []
        for high, low in yaku_pairs(self.trump):
            if high not in down or low not in down:
                continue
            (hi_at, hi_seat), (lo_at, lo_seat) = down[high], down[low]
            if team_of(hi_seat) == team_of(lo_seat):
                continue  # "If an enemy player also played a trump-suit card face-down"
            if self.rules.yaku_order == "later" and hi_at < lo_at:
                continue
            card, over = Card(self.trump, high), Card(self.trump, low)
            above = [Card(self.trump, r) for r in above_in_chain(high)]
            if above and all(c in self.played for c in above):
                events.append(YakuVoid(self.trick_no, hi_seat, card, lo_seat, over))
                continue
            self.yaku[team_of(hi_seat)] += points
            events.append(YakuMade(self.trick_no, hi_seat, card, lo_seat, over, team_of(hi_seat), points))
        return events

    def _score_deal(self) -> list[GameEvent]:
        a, b = self.tricks
        points = deal_points((a, b), (self.yaku[0], self.yaku[1]))
        for t in (TEAM_A, TEAM_B):
            self.totals[t] += points[t]
        self.results.append(DealResult((a, b), (self.yaku[0], self.yaku[1]), (points[0], points[1])))
        events: list[GameEvent] = [DealScored(self.deal_no, a, b, self.yaku[0], self.yaku[1],
                                              points[0], points[1], self.totals[0], self.totals[1])]
        self.to_act = None
        if len(self.results) == self.rules.deals:
            self.phase = OVER
            events.append(GameEnded(self.totals[0], self.totals[1], self.winning_team()))
        else:
            self.phase = DEALING
        return events

    # -- hidden information ----------------------------------------------------------------------
    def view(self, seat: int) -> UnsunView:
        """What `seat` may see: its own hand, discard and face-down cards; public cards only."""
        trick = tuple(SeenCard(t.seat, t.card if (not t.face_down or t.seat == seat) else None,
                               t.face_down) for t in self.trick)
        # while the ロバイ holder decides, nobody else learns who is deciding
        to_act = self.to_act if (self.phase != ROBAI_CHOICE or seat == self.to_act) else None
        return UnsunView(
            seat=seat, deal=self.deal_no, dealer=self.dealer, phase=self.phase, trump=self.trump,
            okie=self.okie, okie_holder=self.okie_holder, hidden_robai=self.hidden_robai,
            hand=tuple(self.hands[seat]), hand_sizes=tuple(len(h) for h in self.hands),
            discard=self.discards.get(seat), trick_no=self.trick_no,
            leader=self.leader if self.phase in PLAY_PHASES else None, to_act=to_act, trick=trick,
            played=frozenset(self.played),
            history=tuple(tuple((t.seat, t.card) for t in tr) for tr in self.history),
            winners=tuple(self.winners), tricks=(self.tricks[0], self.tricks[1]),
            yaku=(self.yaku[0], self.yaku[1]), totals=(self.totals[0], self.totals[1]),
            results=tuple(self.results), meri_trick=self.meri_trick)

    def secrets_of(self, seat: int) -> set[Card]:
        """Cards only `seat` may know now: its hand, its discard, its face-down card in the trick.

        The Okié is public wherever it goes (it lay face up)."""
        own = set(self.hands[seat])
        own |= {t.card for t in self.trick if t.seat == seat and t.face_down}
        if seat in self.discards:
            own.add(self.discards[seat])
        own.discard(self.okie)  # type: ignore[arg-type]
        return own

    def redact(self, event: GameEvent, seat: int) -> GameEvent | None:
        """`event` as `seat` may see it (TurnSession.log_for)."""
        if isinstance(event, HandDealt):
            return event if event.seat == seat else None
        if isinstance(event, RobaiUnheld) and not event.robai_is_okie:
            return None     # it would say the ロバイ is one of the two cards nobody sees
        if isinstance(event, RobaiHidden) and event.seat != seat:
            return replace(event, seat=None)
        if isinstance(event, Discarded) and event.seat != seat:
            return replace(event, card=None)
        if isinstance(event, Played) and event.face_down and event.seat != seat:
            return replace(event, card=None)
        return event

    # -- copies and checks -----------------------------------------------------------------------
    def clone(self) -> "UnsunState":
        twin = replace(self, rng=random.Random(), hands=[list(h) for h in self.hands],
                       set_aside=list(self.set_aside), discards=dict(self.discards),
                       trick=list(self.trick), history=list(self.history),
                       winners=list(self.winners), played=set(self.played),
                       tricks=list(self.tricks), yaku=list(self.yaku),
                       results=list(self.results), totals=list(self.totals))
        twin.rng.setstate(self.rng.getstate())
        return twin

    def all_cards(self) -> list[Card]:
        """Every card of the deal wherever it is (hands, Okié, set aside, trick, tricks taken)."""
        cards = [c for h in self.hands for c in h] + list(self.set_aside)
        cards += list(self.discards.values())
        cards += [t.card for t in self.trick] + [t.card for tr in self.history for t in tr]
        if self.okie_on_table and self.okie is not None:
            cards.append(self.okie)
        return cards

    def check_invariants(self) -> None:
        if self.deal_no >= 0:
            cards = self.all_cards()
            assert len(cards) == len(DECK) and set(cards) == set(DECK), "75 cards conserved"
            assert len(self.history) == self.trick_no == sum(self.tricks), "tricks counted"
            assert all(len(tr) == PLAYERS for tr in self.history)
            if self.phase in PLAY_PHASES:
                for s in range(PLAYERS):
                    in_trick = any(t.seat == s for t in self.trick)
                    assert len(self.hands[s]) == HAND - self.trick_no - in_trick, f"seat {s} hand size"
                assert (self.phase == MEIRAF) == (self.meri_trick is None)
        for r in self.results:
            assert sum(r.tricks) == TRICKS, "9 tricks a deal"
            assert min(r.points) == 0, "at most one team scores a deal"
        assert [sum(r.points[t] for r in self.results) for t in (0, 1)] == self.totals
        assert len(self.results) <= self.rules.deals
        assert self.is_over() == (len(self.results) == self.rules.deals)


def deal_points(tricks: tuple[int, int], yaku: tuple[int, int]) -> tuple[int, int]:
    """Team A's and team B's points for a deal.

    "The team with more tricks earns: trick difference + their yaku points /
    The team with fewer tricks gets 0 (even if they scored yakus) / If tricks
    are tied (unlikely at 9), neither team scores"."""
    a, b = tricks
    if a == b:
        return (0, 0)
    if a > b:
        return (a - b + yaku[0], 0)
    return (0, b - a + yaku[1])


def new_game(seed: int | str = 0, rules: UnsunRules | None = None) -> UnsunState:
    """A game before its first deal; every shuffle comes from `seed`."""
    return UnsunState(rules or UnsunRules(), str(seed), random.Random(f"unsun:{seed}"))
