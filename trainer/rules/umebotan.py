"""Ume Botan (梅牡丹ルール), the hanafuda fishing game of seed 003, as a pure, seeded engine.

Every rule of the seed, with the seed's sentence beside the code that plays it.
Where the seed is silent the choice is said in a comment marked "Seed silent"
and, when either way is defensible, is an option of `UmeBotanOptions`.

Seats are numbered 0..n-1 (the people); `order` is the turn order of the
current round ("Player 1 sits first, Player 2 sits to the right of Player 1":
counter-clockwise), ``order[0]`` is Player 1 (the oya, 親) and ``order[-1]``
the dealer. The reader pseudo-seat (`READER`) draws for the seating and deals
each round (`Deal`), so the app and the simulator log the deal like any action.

Cards are the numbers of the pictures on the reference pages (month × 10 + k,
see `trainer.rules.decks`).
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass, replace
from typing import Sequence

from trainer.rules.protocol import READER, GameEvent, GameOutcome, IllegalAction, event_kinds
from trainer.rules.decks import HANAFUDA, LIGHTNING, PINE, WILLOW, Hana, month, points
from trainer.rules.umebotan_score import RoundScore, card_points, score_round


REFUSALS = (
    "turn.not_your_turn",       # the seat is not the one to act (session and engine)
    "turn.game_over",           # the game is over
    "umebotan.not_dealing",     # a deal only between rounds
    "umebotan.not_in_hand",     # a card the seat does not hold
    "umebotan.take_first",      # after the draw: say which field card the drawn card takes
    "umebotan.play_first",      # a Take before the hand's card is played and the draw made
    "umebotan.choose_target",   # two of the month on the field: say which one is captured
    "umebotan.not_a_match",     # the named field card is not one the card may capture
    # the score calculator's piles (`trainer.rules.umebotan_score.check_piles`)
    "umebotan.pile_extra", "umebotan.pile_not_card", "umebotan.pile_twice", "umebotan.pile_missing",
)
"""Every reason id the engine, the table and the scorer refuse with (worded by `trainer.text.umebotan`)."""


@dataclass(frozen=True)
class UmeBotanOptions:
    rounds: int = 12
    """"A full game consists of 12 rounds; ... as long as the number of rounds is even"."""
    cards_of_month: bool | None = None
    """Cards of the Month "is typically only used in full 12 round games": None = only when
    `rounds` is 12; True / False force it."""
    spring_exclusive: bool = False
    """See `umebotan_score.yaku_of`."""
    reseat: str = "stay"
    """Seed silent on the middle players of a 4-player table after a round (it places only
    the new Player 1 and the dealer, who "must sit on the left side of whomever becomes
    Player 1"): "stay" keeps everybody else in their seats (only the dealer moves), "score"
    orders them by the round's score."""

    def __post_init__(self) -> None:
        if self.rounds < 2 or self.rounds % 2:
            raise ValueError(f"the number of rounds is even (the seed): not {self.rounds}")
        if self.reseat not in ("stay", "score"):
            raise ValueError(f"reseat is 'stay' or 'score', not {self.reseat!r}")

    @property
    def month_yaku(self) -> bool:
        return self.rounds == 12 if self.cards_of_month is None else self.cards_of_month


# -- actions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Deal:
    """The reader's action: the seating draw (first round) and the deal of a round."""


@dataclass(frozen=True)
class Play:
    """Play `card` from the hand; `target`: the field card it captures when there is a
    choice (two of its month on the field, or the Lightning's pick); None otherwise."""

    card: Hana
    target: Hana | None = None


@dataclass(frozen=True)
class Take:
    """After the draw: the field card the drawn card captures, when there is a choice."""

    target: Hana


Action = Deal | Play | Take


# -- events -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatsDrawn(GameEvent):
    """"Shuffle the deck and have all players draw one card each"; order[0] is Player 1."""

    kind = "umebotan.seats"
    draws: tuple[Hana, ...]
    order: tuple[int, ...]


@dataclass(frozen=True)
class SeatsRedrawn(GameEvent):
    """"If even the card points are tied, then the players must draw again." """

    kind = "umebotan.redraw"
    draws: tuple[Hana, ...]


@dataclass(frozen=True)
class RoundStarted(GameEvent):
    kind = "umebotan.round"
    round_no: int
    player1: int
    dealer: int
    order: tuple[int, ...]


@dataclass(frozen=True)
class Misdeal(GameEvent):
    """"If 4 cards of the same suit are dealt to the field ... the same dealer shuffles and
    distributes cards once more." """

    kind = "umebotan.misdeal"
    dealer: int
    month: int


@dataclass(frozen=True)
class Dealt(GameEvent):
    """A seat's hand: only that seat sees `cards` (`redact` empties them for the others)."""

    kind = "umebotan.dealt"
    seat: int
    count: int
    cards: tuple[Hana, ...]


@dataclass(frozen=True)
class FieldDealt(GameEvent):
    kind = "umebotan.field"
    cards: tuple[Hana, ...]
    draw_pile: int


@dataclass(frozen=True)
class LightningReserved(GameEvent):
    """The Lightning was dealt to the field: the top card of the draw pile is set on it
    face-down for Player 1 (the seed's author's way)."""

    kind = "umebotan.reserved"
    seat: int


@dataclass(frozen=True)
class FieldMultiplier(GameEvent):
    """normal (×1), pine, midterm or final (×2)."""

    kind = "umebotan.multiplier"
    field_kind: str
    multiplier: int


@dataclass(frozen=True)
class Drew(GameEvent):
    kind = "umebotan.drew"
    seat: int
    card: Hana


@dataclass(frozen=True)
class Laid(GameEvent):
    """The card matched nothing and stays on the field."""

    kind = "umebotan.laid"
    seat: int
    card: Hana
    drawn: bool


@dataclass(frozen=True)
class Captured(GameEvent):
    kind = "umebotan.captured"
    seat: int
    card: Hana
    taken: tuple[Hana, ...]
    drawn: bool


@dataclass(frozen=True)
class LightningAlone(GameEvent):
    """"If there are no non-Willow cards on the field, then it is taken alone into the score
    pile." """

    kind = "umebotan.lightning_alone"
    seat: int
    drawn: bool


@dataclass(frozen=True)
class ReservedTaken(GameEvent):
    """Player 1's first turn: "they take the Lightning card and the face-down card"."""

    kind = "umebotan.reserved_taken"
    seat: int
    card: Hana


@dataclass(frozen=True)
class FieldSwept(GameEvent):
    """"the player who used the Lightning card takes all remaining cards on the field"."""

    kind = "umebotan.swept"
    seat: int
    cards: tuple[Hana, ...]


@dataclass(frozen=True)
class RoundScored(GameEvent):
    kind = "umebotan.scored"
    round_no: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    card_points: tuple[int, ...]
    yaku: tuple[tuple[str, ...], ...]
    multiplier: int
    dandruff: bool


@dataclass(frozen=True)
class GameEnded(GameEvent):
    kind = "umebotan.end"
    totals: tuple[int, ...]
    winners: tuple[int, ...]


EVENT_TYPES = event_kinds(SeatsDrawn, SeatsRedrawn, RoundStarted, Misdeal, Dealt, FieldDealt,
                          LightningReserved, FieldMultiplier, Drew, Laid, Captured, LightningAlone,
                          ReservedTaken, FieldSwept, RoundScored, GameEnded)


# -- the view -----------------------------------------------------------------------------

@dataclass(frozen=True)
class UmeBotanView:
    """What one seat may see: its own hand; every score pile ("kept face-up"), the field,
    the drawn card; the other hands and the draw pile only as counts."""

    seat: int
    players: int
    round_no: int
    rounds: int
    order: tuple[int, ...]
    turn: int | None
    phase: str
    hand: tuple[Hana, ...]
    hand_counts: tuple[int, ...]
    field: tuple[Hana, ...]
    reserved: bool
    """The Lightning lies on the field with a face-down card on it, for Player 1."""
    draw_pile: int
    drawn: Hana | None
    piles: tuple[tuple[Hana, ...], ...]
    totals: tuple[int, ...]
    field_kind: str
    lightning_user: int | None
    month_yaku: bool
    last_round: tuple[int, ...] | None

    @property
    def pile_points(self) -> tuple[int, ...]:
        """The card points in each seat's score pile so far."""
        return tuple(card_points(p) for p in self.piles)

    def captures(self, card: Hana) -> bool:
        """Whether `card` played now would capture a field card."""
        return bool(matches(card, self.field))


# -- the state ----------------------------------------------------------------------------

HAND_SIZE = {3: 7, 4: 5}
FIELD_SIZE = {3: 6, 4: 8}
""""If there are 3 players: 7 cards are dealt to each player, and 6 cards face-up to the
table. If there are 4 players: 5 cards are dealt to each player, and 8 cards face-up"."""


def matches(card: Hana, field: Sequence[Hana]) -> list[Hana]:
    """The field cards `card` may capture. "If it belongs to the same month as another card on
    the table, then the cards match"; the Lightning "can be used to capture any other individual
    card except another Willow"."""
    if card == LIGHTNING:
        return [c for c in field if month(c) != WILLOW]
    return [c for c in field if month(c) == month(card)]


class UmeBotanState:
    """One game of Ume Botan (see the module docstring)."""

    def __init__(self, players: int, seed: int | str = 0,
                 options: UmeBotanOptions | None = None):
        if players not in (3, 4):
            raise ValueError(f"Ume Botan is played by 3 or 4 players, not {players}")
        self.players = players
        self.options = options or UmeBotanOptions()
        self.rng = random.Random(f"umebotan:{seed}")
        self.round_no = 0
        self.order: tuple[int, ...] = ()
        self.totals = [0] * players
        self.hands: list[list[Hana]] = [[] for _ in range(players)]
        self.field: list[Hana] = []
        self.reserved: tuple[Hana, Hana] | None = None
        self.draw_pile: list[Hana] = []          # top is the end
        self.piles: list[list[Hana]] = [[] for _ in range(players)]
        self.lightning_user: int | None = None
        self.turn_index = 0
        self.phase = "deal"                      # deal | hand | draw | over
        self.drawn: Hana | None = None
        self.field_kind = "normal"
        self.results: list[RoundScore] = []

    # -- protocol: questions ---------------------------------------------------------------
    @property
    def turn(self) -> int | None:
        return self.order[self.turn_index] if self.phase in ("hand", "draw") else None

    def actors(self) -> tuple[int, ...]:
        if self.phase == "over":
            return ()
        if self.phase == "deal":
            return (READER,)
        return (self.order[self.turn_index],)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.actors():
            return []
        if self.phase == "deal":
            return [Deal()]
        if self.phase == "draw":
            assert self.drawn is not None
            return [Take(t) for t in matches(self.drawn, self.field)]
        out: list[Action] = []
        for card in sorted(self.hands[seat]):
            found = matches(card, self.field)
            if card != LIGHTNING and len(found) == 2:
                # "If the played card matches with two cards on the table, then the player may
                # choose which one they capture."
                out += [Play(card, t) for t in found]
            elif card == LIGHTNING and found:
                out += [Play(card, t) for t in found]
            else:
                out.append(Play(card))
        return out

    def is_over(self) -> bool:
        return self.phase == "over"

    def outcome(self) -> GameOutcome | None:
        if not self.is_over():
            return None
        return GameOutcome(tuple(self.totals), self.winners(), "rounds")

    def winners(self) -> tuple[int, ...]:
        """"the player with the highest total score at the end of all the rounds is the winner"."""
        best = max(self.totals)
        return tuple(s for s in range(self.players) if self.totals[s] == best)

    def view(self, seat: int) -> UmeBotanView:
        return UmeBotanView(
            seat=seat, players=self.players, round_no=self.round_no, rounds=self.options.rounds,
            order=self.order, turn=self.turn, phase=self.phase, hand=tuple(sorted(self.hands[seat])),
            hand_counts=tuple(len(h) for h in self.hands), field=tuple(self.field),
            reserved=self.reserved is not None, draw_pile=len(self.draw_pile), drawn=self.drawn,
            piles=tuple(tuple(p) for p in self.piles), totals=tuple(self.totals),
            field_kind=self.field_kind, lightning_user=self.lightning_user,
            month_yaku=self.options.month_yaku,
            last_round=self.results[-1].scores if self.results else None)

    def redact(self, event: GameEvent, seat: int) -> GameEvent | None:
        """A hand is seen by its holder only."""
        if isinstance(event, Dealt) and event.seat != seat:
            return replace(event, cards=())
        return event

    def clone(self) -> "UmeBotanState":
        return copy.deepcopy(self)

    def check_invariants(self) -> None:
        cards = [c for h in self.hands for c in h] + self.field + self.draw_pile
        cards += [c for p in self.piles for c in p] + list(self.reserved or ())
        cards += [self.drawn] if self.drawn is not None else []
        if self.phase != "deal" or self.round_no:
            assert sorted(cards) == sorted(HANAFUDA), "the 48 cards are not all there exactly once"
        for r in self.results:
            assert sum(r.scores) == 0, f"a round's scores do not sum to zero: {r.scores}"
        assert sum(self.totals) == 0 and self.totals == [
            sum(r.scores[s] for r in self.results) for s in range(self.players)]
        if self.phase in ("hand", "draw"):
            # one card a turn from each hand and one from the draw pile (or the reserved pair):
            # "This will also coincide with the draw pile being emptied."
            assert len(self.draw_pile) + (self.reserved is not None) == sum(map(len, self.hands))
            assert max(map(len, self.hands)) - min(map(len, self.hands)) <= 1

    # -- protocol: apply --------------------------------------------------------------------
    def why_illegal(self, seat: int, action: Action) -> IllegalAction | None:
        """The refusal `apply` would raise for `seat` taking `action` (None: it is legal)."""
        if self.phase == "over":
            return IllegalAction("turn.game_over", "the game is over")
        if isinstance(action, Deal):
            return None if self.phase == "deal" else IllegalAction(
                "umebotan.not_dealing", "it is not time to deal")
        if seat not in self.actors():
            return IllegalAction("turn.not_your_turn", f"seat {seat} is not to act now", seat=seat)
        if action in self.legal_actions(seat):
            return None
        if self.phase == "draw":
            if isinstance(action, Play):
                return IllegalAction("umebotan.take_first", "choose the field card the drawn card takes")
            return IllegalAction("umebotan.not_a_match", f"{action.target!r} is not a match",
                                 card=self.drawn, target=action.target)
        if isinstance(action, Take):
            return IllegalAction("umebotan.play_first", "play a card from the hand first")
        if action.card not in self.hands[seat]:
            return IllegalAction("umebotan.not_in_hand", f"seat {seat} does not hold {action.card!r}",
                                 card=action.card)
        if action.target is None:
            return IllegalAction("umebotan.choose_target", "choose which field card to capture",
                                 card=action.card)
        return IllegalAction("umebotan.not_a_match", f"{action.target!r} is not a match",
                             card=action.card, target=action.target)

    def apply(self, action: Action) -> list[GameEvent]:
        seat = READER if isinstance(action, Deal) else self.order[self.turn_index]
        refusal = self.why_illegal(seat, action)
        if refusal is not None:
            raise refusal
        if isinstance(action, Deal):
            return self._start_round()
        if isinstance(action, Play):
            return self._play_hand(seat, action)
        return self._finish_draw(seat, action.target)

    # -- setup -------------------------------------------------------------------------------
    def _draw_seats(self) -> list[GameEvent]:
        """"The player who drew a suit for the earliest month becomes Player 1 ... If two or
        more players drew from the same suit, the player drawing the higher point card is
        treated as having the earlier suit. If even the card points are tied, then the players
        must draw again." Seed silent on who redraws: everybody draws again."""
        events: list[GameEvent] = []
        while True:
            deck = list(HANAFUDA)
            self.rng.shuffle(deck)
            draws = tuple(deck[: self.players])
            keys = [(month(c), -points(c)) for c in draws]
            if len(set(keys)) == self.players:
                break
            events.append(SeatsRedrawn(draws))
        self.order = tuple(sorted(range(self.players), key=lambda s: keys[s]))
        events.append(SeatsDrawn(draws, self.order))
        return events

    def _start_round(self) -> list[GameEvent]:
        events: list[GameEvent] = [] if self.order else self._draw_seats()
        self.round_no += 1
        n = self.players
        self.piles = [[] for _ in range(n)]
        self.lightning_user = None
        self.reserved = None
        events.append(RoundStarted(self.round_no, self.order[0], self.order[-1], self.order))
        while True:
            # "The last player in line shuffles the deck, asks Player 1 to cut the cards, and
            # then distributes the cards."
            deck = list(HANAFUDA)
            self.rng.shuffle(deck)
            cut = self.rng.randrange(1, len(deck))
            deck = deck[cut:] + deck[:cut]
            hands = [deck[i * HAND_SIZE[n]:(i + 1) * HAND_SIZE[n]] for i in range(n)]
            rest = deck[n * HAND_SIZE[n]:]
            field_cards, pile = rest[:FIELD_SIZE[n]], rest[FIELD_SIZE[n]:]
            full = [m for m in range(1, 13) if sum(month(c) == m for c in field_cards) == 4]
            if not full:
                break
            events.append(Misdeal(self.order[-1], full[0]))
        # hands are dealt to the players in turn order from Player 1
        for i, seat in enumerate(self.order):
            self.hands[seat] = sorted(hands[i])
        self.field = list(field_cards)
        self.draw_pile = list(reversed(pile))   # pile[0] is the top card
        for seat in self.order:
            events.append(Dealt(seat, len(self.hands[seat]), tuple(self.hands[seat])))
        events.append(FieldDealt(tuple(self.field), len(self.draw_pile)))
        if LIGHTNING in self.field:
            # "In the author's rules, this is done by immediately taking the top card from the
            # draw pile and placing it on top of the Lightning face-down before Player 1 starts
            # their turn." The reserved pair leaves the field: no other card may take it.
            self.field.remove(LIGHTNING)
            self.reserved = (LIGHTNING, self.draw_pile.pop())
            events.append(LightningReserved(self.order[0]))
        self.field_kind = self._field_kind()
        events.append(FieldMultiplier(self.field_kind, 2 if self.field_kind != "normal" else 1))
        self.turn_index = 0
        self.phase = "hand"
        return events

    def _field_kind(self) -> str:
        """"Field Multipliers are mutually exclusive; If at least one field multiplier is present
        during a round, then point exchanges ... will be doubled". Midterm: "Round 6 (or the last
        round of the first half of the game)"; final: "Round 12 (or the final round)"; pine: "one
        or more Pine cards are present on the field" (after the deal)."""
        if self.round_no == self.options.rounds:
            return "final"
        if self.round_no == self.options.rounds // 2:
            return "midterm"
        if any(month(c) == PINE for c in self.field):
            return "pine"
        return "normal"

    # -- a turn ------------------------------------------------------------------------------
    def _play_hand(self, seat: int, play: Play) -> list[GameEvent]:
        """"On their turn, a player chooses a single card from their hand and plays it to the
        table." Matching is compulsory ("If a card is played that matches something on the table,
        then the player must capture"), playing a matching card is not."""
        self.hands[seat].remove(play.card)
        events = self._resolve(seat, play.card, play.target, drawn=False)
        if self.reserved is not None and self.turn_index == 0 and seat == self.order[0]:
            # "During Player 1's first turn, instead of playing a card from the draw pile, they
            # take the Lightning card and the face-down card."
            lightning, hidden = self.reserved
            self.reserved = None
            self.piles[seat] += [lightning, hidden]
            self.lightning_user = seat   # Seed silent: Player 1 counts as the Lightning's user
            events.append(ReservedTaken(seat, hidden))
            return events + self._end_turn()
        # "the player takes the top card of the draw pile, turns it face-up, and immediately
        # plays it to the table in the same fashion."
        card = self.draw_pile.pop()
        events.append(Drew(seat, card))
        found = matches(card, self.field)
        if len(found) >= 2 and (card == LIGHTNING or len(found) == 2):
            self.drawn = card
            self.phase = "draw"           # the player chooses what it captures
            return events
        events += self._resolve(seat, card, None, drawn=True)
        return events + self._end_turn()

    def _finish_draw(self, seat: int, target: Hana) -> list[GameEvent]:
        assert self.drawn is not None
        card, self.drawn = self.drawn, None
        self.phase = "hand"
        return self._resolve(seat, card, target, drawn=True) + self._end_turn()

    def _resolve(self, seat: int, card: Hana, target: Hana | None, drawn: bool) -> list[GameEvent]:
        """Capture or lay one card, from the hand or the draw pile."""
        found = matches(card, self.field)
        if card == LIGHTNING:
            self.lightning_user = seat
            if not found:
                # Drawn: "If there are no non-Willow cards on the field, then it is taken alone
                # into the score pile." Seed silent on the Lightning played from the hand onto a
                # field of Willows only: the same (it never lies on the field mid-round).
                self.piles[seat].append(card)
                return [LightningAlone(seat, drawn)]
            taken = [target if target is not None else found[0]]
        elif not found:
            self.field.append(card)
            return [Laid(seat, card, drawn)]
        elif len(found) == 3:
            # "If the played card matches three cards on the table, then all three are captured
            # along with the played card"
            taken = found
        elif len(found) == 2:
            assert target in found
            taken = [target]
        else:
            taken = found
        for c in taken:
            self.field.remove(c)
        self.piles[seat] += [card, *taken]
        return [Captured(seat, card, tuple(taken), drawn)]

    def _end_turn(self) -> list[GameEvent]:
        """"After both cards have been played ... the turn ends, and the next player takes their
        turn." The round "ends when all players have run out of card in their hands"."""
        if any(self.hands):
            self.turn_index = (self.turn_index + 1) % self.players
            return []
        return self._end_round()

    # -- the end of a round ------------------------------------------------------------------
    def _end_round(self) -> list[GameEvent]:
        events: list[GameEvent] = []
        assert not self.draw_pile and self.reserved is None and self.lightning_user is not None
        if self.field:
            left = tuple(self.field)
            self.piles[self.lightning_user] += left
            self.field = []
            events.append(FieldSwept(self.lightning_user, left))
        result = score_round(self.piles, round_no=self.round_no if self.options.month_yaku else None,
                             doubled=self.field_kind != "normal",
                             spring_exclusive=self.options.spring_exclusive)
        self.results.append(result)
        for s, v in enumerate(result.scores):
            self.totals[s] += v
        events.append(RoundScored(self.round_no, result.scores, tuple(self.totals),
                                  result.card_points,
                                  tuple(tuple(y.name for y in ys) for ys in result.yaku),
                                  result.multiplier, result.dandruff))
        if self.round_no == self.options.rounds:
            self.phase = "over"
            events.append(GameEnded(tuple(self.totals), self.winners()))
        else:
            self.order = next_order(self.order, result.scores, self.options.reseat)
            self.phase = "deal"
        return events


def next_order(order: Sequence[int], scores: Sequence[int], reseat: str = "stay") -> tuple[int, ...]:
    """The next round's turn order from this round's scores.

    "The player with the highest score at the end of the round becomes Player 1 for the next
    round. In the event of a tie, the player who was earliest in the turn order becomes Player 1.
    ... the player with the lowest score ... becomes the last player as well as the dealer".
    Seed silent on a tie for the lowest: the latest in the turn order deals (the mirror of the
    Player 1 rule). Seed silent on the others: see `UmeBotanOptions.reseat`.
    """
    first = max(order, key=lambda s: (scores[s], -order.index(s)))
    rest = [s for s in order if s != first]
    dealer = min(rest, key=lambda s: (scores[s], -order.index(s)))
    if reseat == "score":
        middle = sorted((s for s in rest if s != dealer), key=lambda s: (-scores[s], order.index(s)))
    else:
        i = order.index(first)
        ring = list(order[i:]) + list(order[:i])
        middle = [s for s in ring if s not in (first, dealer)]
    return (first, *middle, dealer)


def new_game(players: int, seed: int | str = 0, options: UmeBotanOptions | None = None) -> UmeBotanState:
    return UmeBotanState(players, seed, options)
