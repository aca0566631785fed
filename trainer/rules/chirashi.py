"""The floor races of the Hyakunin Isshu (chirashi-dori and the games played on its floor).

One pure, seeded engine for the games of the reference page (Fudawiki's *Ogura Hyakunin
Isshu*, revision 2026-03-15, docs/references.md)
where the reader reads and the players race for torifuda lying on the floor:

- **chirashi-dori** (散らし取り): "Each player plays only for themselves, and the
  objective is to be the player to grab the most Torifuda."
- **sakasama karuta** (逆さまかるた): the same, but "the Yomifuda are used as
  Torifuda ... The reader only reads the latter half of the poems" (``verse="shimo"``).
- **Genpei-gassen** (源平合戦): two teams, 50 cards a side, sending on a take from
  the other side, a penalty card on a wrong touch; "The team who has no more
  Torifuda on their side wins the game." (``game="genpei"``).
- **relay karuta** (リレーかるた): Genpei where "Each team member play in turns"
  (``relay=True``).

The race itself is kyōgi's (`trainer.rules.kyogi`): times are ms on the reading's
clock, a read is ``Read(start_ms, kimariji_ms)`` from the reader, each seat reports
its ``Touches`` of the read (a simultaneous move), touches within
``simultaneous_ms`` of the first count as the same time, a touch after the read
card was taken is no fault, a touch before the reading starts is one [AJKA].
The same `Read`, `Touch` and `Touches` values are used.

Rules, each with the reference sentence it implements, or [decided] (written in
docs/racing-games.md, where the reference is silent):

- "Shuffle the 100-card Torifuda deck, and then scatter them on the floor
  face-up so that everybody can see each card": all 100 lie on the floor, each
  at a seeded place and angle (`Spot`), public. Genpei: "50 cards near the
  Genji side and 50 cards near the Heiji side ... three rows: 17 cards at the
  bottom row, 17 cards at the middle row, and 16 cards at the top row".
- "The first player to grab the correct Torifuda takes the Torifuda."
- [decided] Touches of the read card within the same-time window: in Genpei the
  card's own side wins it (kyōgi's rule); otherwise a seeded draw among them
  (a じゃんけん; logged as ``simultaneous``).
- [decided] A touch of another card before the read card is taken is a fault
  (お手つき), one per seat per read. Chirashi/sakasama: the reference gives no
  penalty; ``otetsuki="rest"`` (default, the common home rule 一回休み: the
  seat sits out the next read) or ``"none"``.
- Genpei: "If a player grabs a Torifuda from the opponent's side, then they
  move one Torifuda from their own side to the opponent's side." The taker
  chooses it.
- Genpei: "If a player takes the wrong Torifuda, then the opponent moves one of
  their Torifuda to the player's side as a penalty." [decided] The opposing
  team's captain (its lowest seat; in relay its player on turn) chooses it;
  cards owed both ways in one read net out (kyōgi's AJKA arithmetic).
- [decided] A read card nobody touched is put aside (kyōgi's ``unclaimed``).
- Chirashi: "The game continues until all Yomifuda are read and all Torifuda
  are taken ... The player with the most Torifuda wins the game." [decided]
  ties share the win.
- Genpei: [decided] the end is checked after the read's cards have moved
  (kyōgi's rule); if the reader's stack runs out first, the side with fewer
  cards wins (ties share).
- Relay: "Turnover of players of both teams occur every 10 poems read" and "If
  an opponent took a Torifuda from a player's side, the player passes their
  turn to their next teammate." Only the seat on turn touches.

Seats sit round the floor; in Genpei the even seats are Genji (team 0, side 0)
and the odd seats Heiji (team 1, side 1).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import ClassVar, Sequence, Union

from trainer.rules.kyogi import Read, Touch, Touches
from trainer.rules.protocol import READER, GameEvent, GameOutcome, IllegalAction, event_kinds

__all__ = ["Read", "Touch", "Touches", "Send", "Spot", "RaceOptions", "ChirashiState", "new_game",
           "EVENT_TYPES", "REFUSALS"]

CARDS = tuple(range(1, 101))
GENPEI_ROWS = (17, 17, 16)       # bottom, middle, top row of a side (the reference)
GAMES = ("chirashi", "genpei", "shimonoku")
VERSES = ("kami", "shimo")
OTETSUKI_RULES = ("rest", "none")
AWAIT_READ, TOUCHES, SEND, OVER = "await_read", "touches", "send", "over"


@dataclass(frozen=True)
class RaceOptions:
    game: str = "chirashi"          # chirashi (every seat for itself) | genpei (two teams, two sides)
    verse: str = "kami"             # the verse read: kami (floor: torifuda) | shimo (sakasama)
    otetsuki: str = "rest"          # chirashi's fault: rest (一回休み) | none
    relay: bool = False             # Genpei's relay: one player per team on turn
    relay_every: int = 10           # reads between relay turnovers
    simultaneous_ms: int = 0        # touches this close are "the same time" (the judge's window)
    nanae: bool = False             # shimonoku: the Nanae-town rules (テッパ), `trainer.rules.shimonoku`
    teppa_sender: str = "most"      # Nanae: which opponent sends a teppa card: most (cards) | facing
    chonchon: str = "all"           # Nanae: both teams teppa: nothing moves (all) | only teppa cancels
    balance: str = "minimums"       # Nanae: the team keeps the 5/3/1 minimums | evens its holdings

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game is one of {', '.join(GAMES)}, not {self.game!r}")
        if self.verse not in VERSES:
            raise ValueError(f"verse is one of {', '.join(VERSES)}, not {self.verse!r}")
        if self.otetsuki not in OTETSUKI_RULES:
            raise ValueError(f"otetsuki is one of {', '.join(OTETSUKI_RULES)}, not {self.otetsuki!r}")
        if self.relay and self.game != "genpei":
            raise ValueError("relay karuta is played on Genpei's floor")
        if self.relay_every < 1:
            raise ValueError("relay turnover must come every 1 or more reads")
        if self.nanae and self.game != "shimonoku":
            raise ValueError("the Nanae-town rules are shimonoku karuta's")
        for name, allowed in (("teppa_sender", ("most", "facing")), ("chonchon", ("all", "teppa")),
                              ("balance", ("minimums", "even"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} is one of {', '.join(allowed)}, not {getattr(self, name)!r}")

    @property
    def teams(self) -> bool:
        return self.game == "genpei"


@dataclass(frozen=True)
class Spot:
    """Where a card lies: x, y in 0..1 across the floor, its angle in degrees, and the side
    (team) it lies on in Genpei (None on a scattered floor); row and column on a side."""
    x: float
    y: float
    angle: float
    side: int | None = None
    row: int = 0
    column: int = 0


@dataclass(frozen=True)
class Send:
    """The giver moves `card` from their side to the other (Genpei's send or penalty)."""
    seat: int
    card: int


Action = Union[Read, Touches, Send]


# -- events ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Started(GameEvent):
    kind: ClassVar[str] = "chirashi.start"
    players: int
    cards: int


@dataclass(frozen=True)
class ReadStarted(GameEvent):
    """The reader began the `number`-th yomifuda (which, stays hidden until judged)."""
    kind: ClassVar[str] = "chirashi.read"
    number: int
    start_ms: int
    kimariji_ms: int | None


@dataclass(frozen=True)
class TouchesReported(GameEvent):
    kind: ClassVar[str] = "chirashi.touches"
    seat: int
    count: int


@dataclass(frozen=True)
class Taken(GameEvent):
    """`seat` took `card` (from `side`, Genpei; None on a scattered floor)."""
    kind: ClassVar[str] = "chirashi.take"
    seat: int
    card: int
    side: int | None
    reaction_ms: int
    simultaneous: bool


@dataclass(frozen=True)
class Unclaimed(GameEvent):
    kind: ClassVar[str] = "chirashi.unclaimed"
    card: int


@dataclass(frozen=True)
class Faulted(GameEvent):
    """`seat` touched `card`, not the read card (お手つき); `early`: before the reading began."""
    kind: ClassVar[str] = "chirashi.fault"
    seat: int
    card: int
    early: bool


@dataclass(frozen=True)
class Resting(GameEvent):
    """`seat` sits out the next read (一回休み)."""
    kind: ClassVar[str] = "chirashi.rest"
    seat: int


@dataclass(frozen=True)
class Judged(GameEvent):
    kind: ClassVar[str] = "chirashi.judged"
    number: int
    poem: int
    taker: int | None


@dataclass(frozen=True)
class CardsOwed(GameEvent):
    """`giver` (a seat) must move `cards` cards from side `side` to the other side."""
    kind: ClassVar[str] = "chirashi.owed"
    giver: int
    side: int
    cards: int


@dataclass(frozen=True)
class CardSent(GameEvent):
    """`seat` sends `card` to side `to` (Genpei), or to seat `to` when `to_seat` (shimonoku)."""
    kind: ClassVar[str] = "chirashi.send"
    seat: int
    card: int
    to: int
    to_seat: bool = False


@dataclass(frozen=True)
class TurnPassed(GameEvent):
    """Relay: `team`'s turn passes to `seat` (`why`: ``every`` reads, or ``taken`` from its side)."""
    kind: ClassVar[str] = "chirashi.turn"
    team: int
    seat: int
    why: str


@dataclass(frozen=True)
class GameOver(GameEvent):
    kind: ClassVar[str] = "chirashi.over"
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str


EVENT_TYPES = event_kinds(Started, ReadStarted, TouchesReported, Taken, Unclaimed, Faulted, Resting,
                          Judged, CardsOwed, CardSent, TurnPassed, GameOver)
REFUSALS = ("chirashi.over", "chirashi.read_unsettled", "chirashi.stack_empty", "chirashi.mark_before_start",
            "chirashi.read_out_of_order", "chirashi.no_such_seat", "chirashi.not_reading",
            "chirashi.already_reported", "chirashi.not_on_floor", "chirashi.sitting_out",
            "chirashi.nothing_to_send", "chirashi.not_on_side", "chirashi.not_an_action")


# -- the floor -----------------------------------------------------------------------------------

SCATTER_ANGLE = 35.0
"""The widest angle a scattered card lies at (a table may lay them straighter to keep them readable)."""
SCATTER_JITTER = (0.22, 0.18)
"""How far a scattered card lies off its grid cell's centre, in cells (x, y): always inside its cell."""


def scatter_grid(n: int) -> tuple[int, int]:
    """The columns and rows of the jittered grid `scatter` lays `n` cards on."""
    columns = max(1, math.ceil(math.sqrt(n * 1.45)))
    return columns, max(1, math.ceil(n / columns))


def scatter(cards: Sequence[int], rng: random.Random) -> dict[int, Spot]:
    """Cards scattered over the floor: a jittered grid (cards near each other, each in a cell
    of its own), at angles up to ±35° so every card stays readable from the seats."""
    columns, rows = scatter_grid(len(cards))
    jx, jy = SCATTER_JITTER
    cells = [(r, c) for r in range(rows) for c in range(columns)]
    rng.shuffle(cells)
    out: dict[int, Spot] = {}
    for card, (r, c) in zip(cards, cells):
        x = (c + 0.5 + rng.uniform(-jx, jx)) / columns
        y = (r + 0.5 + rng.uniform(-jy, jy)) / rows
        out[card] = Spot(round(x, 4), round(y, 4), round(rng.uniform(-SCATTER_ANGLE, SCATTER_ANGLE), 1))
    return out


def genpei_layout(sides: Sequence[Sequence[int]]) -> dict[int, Spot]:
    """Each side's cards in three rows of 17/17/16, side 0 (Genji) near the bottom edge."""
    out: dict[int, Spot] = {}
    for s, cards in enumerate(sides):
        out.update(_side_spots(s, cards))
    return out


def side_spot(side: int, row: int, column: int) -> Spot:
    """A place on a Genpei side: row 0 is the bottom row, nearest the side's own players
    (Genji's edge is the floor's bottom, y = 1; Heiji's the top, its cards upside down)."""
    x = (column + 0.5) / max(GENPEI_ROWS)
    y = 1 - (row + 0.5) / 6 if side == 0 else (row + 0.5) / 6
    return Spot(round(x, 4), round(y, 4), 0.0 if side == 0 else 180.0, side, row, column)


def _side_spots(side: int, cards: Sequence[int]) -> dict[int, Spot]:
    places = [(row, col) for row, width in enumerate(GENPEI_ROWS) for col in range(width)]
    return {card: side_spot(side, row, col) for card, (row, col) in zip(cards, places)}


# -- the state -----------------------------------------------------------------------------------

@dataclass
class _Read:
    poem: int
    start_ms: int
    kimariji_ms: int
    touches: dict[int, tuple[Touch, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class CurrentRead:
    number: int
    start_ms: int
    kimariji_ms: int | None


@dataclass(frozen=True)
class View:
    """What a seat sees: the whole floor, the piles, who sits out or is on turn, the reads
    judged so far; never the reader's stack nor the poem being read before it is judged."""
    seat: int
    phase: str
    floor: tuple[tuple[int, Spot], ...]
    taken: tuple[tuple[int, ...], ...]
    unclaimed: tuple[int, ...]
    read: tuple[int, ...]
    current: CurrentRead | None
    eligible: tuple[int, ...]             # seats that race this read
    resting: tuple[int, ...]
    on_turn: tuple[int, ...]              # relay: the seat on turn per team
    side_counts: tuple[int, ...]          # Genpei: cards on each side
    owing: tuple[int, int, int] | None    # (giver, giver's side, cards)
    winners: tuple[int, ...]

    def spot(self, card: int) -> Spot | None:
        return dict(self.floor).get(card)


class ChirashiState:
    """A floor race (a `trainer.rules.protocol.GameState`)."""

    def __init__(self, players: int, stack: Sequence[int], floor: dict[int, Spot], seed: object,
                 options: RaceOptions = RaceOptions()):
        lo = 4 if options.relay else 2 if options.teams else 1
        if not lo <= players <= 12:
            raise ValueError(f"{options.game} is played by {lo} to 12 players, not {players}")
        if sorted(stack) != list(CARDS):
            raise ValueError("the reader's stack holds the 100 yomifuda, each once")
        self.players = players
        self.options = options
        self.seed = seed
        self._stack = list(stack)
        self.floor = dict(floor)
        self.taken: list[list[int]] = [[] for _ in range(players)]
        self.unclaimed: list[int] = []
        self.read: list[int] = []
        self.faults = [0] * players
        self.sent = 0                      # cards moved between sides (sends and penalties)
        self.owed_total = 0                # cards owed after reads (what `sent` must reach)
        self.phase = AWAIT_READ
        self._current: _Read | None = None
        self._last_start: int | None = None
        self.resting: set[int] = set()
        self._rest_next: set[int] = set()
        self.on_turn = [t for t in range(2)] if options.relay else []   # seat on turn per team
        self._owing: tuple[int, int, int] | None = None
        self.winners: tuple[int, ...] = ()
        self.reason = ""
        self.log: list[GameEvent] = [Started(players, len(floor))]

    # -- setting up ----------------------------------------------------------------------------
    def team(self, seat: int) -> int:
        return seat % 2 if self.options.teams else seat

    def team_seats(self, team: int) -> list[int]:
        return [s for s in range(self.players) if self.team(s) == team]

    def side_cards(self, side: int) -> list[int]:
        return [c for c, sp in self.floor.items() if sp.side == side]

    # -- protocol --------------------------------------------------------------------------------
    def eligible(self) -> tuple[int, ...]:
        """Seats that race the current read: not sitting out; in relay only the seats on turn."""
        if self.options.relay:
            return tuple(sorted(self.on_turn))
        return tuple(s for s in range(self.players) if s not in self.resting)

    def actors(self) -> tuple[int, ...]:
        if self.phase == OVER:
            return ()
        if self.phase == SEND:
            return (self._owing[0],)  # type: ignore[index]
        if self.phase == TOUCHES:
            assert self._current is not None
            return tuple(s for s in self.eligible() if s not in self._current.touches)
        return (READER,)

    def reader_next(self) -> int | None:
        n = len(self.read)
        return self._stack[n] if n < len(self._stack) else None

    def reader_order(self) -> list[int]:
        return list(self._stack)

    def reading_now(self) -> int | None:
        return self._current.poem if self._current else None

    def legal_actions(self, seat: int) -> list[Action]:
        if self.phase == OVER:
            return []
        if seat == READER:
            if self.phase != AWAIT_READ or self.reader_next() is None:
                return []
            t = self._last_start or 0
            return [Read(t, t)]
        if self.phase == SEND:
            giver, side, _ = self._owing  # type: ignore[misc]
            return [Send(seat, c) for c in sorted(self.side_cards(side))] if seat == giver else []
        if self.phase == TOUCHES and seat in self.actors():
            t = self._current.kimariji_ms  # type: ignore[union-attr]
            return [Touches(seat), *(Touches(seat, (Touch(c, t),)) for c in sorted(self.floor))]
        return []

    def why_illegal(self, action: Action) -> IllegalAction | None:
        try:
            self._check(action)
        except IllegalAction as exc:
            return exc
        return None

    def _check(self, action: Action) -> None:
        if self.phase == OVER:
            raise IllegalAction("chirashi.over", "the game is over")
        if isinstance(action, Read):
            if self.phase != AWAIT_READ:
                raise IllegalAction("chirashi.read_unsettled", "the reader waits until the last read is settled")
            if self.reader_next() is None:
                raise IllegalAction("chirashi.stack_empty", "the reader's stack is empty")
            if action.kimariji_ms < action.start_ms:
                raise IllegalAction("chirashi.mark_before_start",
                                    "the kimariji mark cannot come before the reading starts")
            if self._last_start is not None and action.start_ms < self._last_start:
                raise IllegalAction("chirashi.read_out_of_order", "a read cannot start before the one before it")
            return
        seat = getattr(action, "seat", None)
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction("chirashi.no_such_seat", f"there is no seat {seat!r}", seat=seat)
        if isinstance(action, Touches):
            if self.phase != TOUCHES:
                raise IllegalAction("chirashi.not_reading", "touches are reported while a card is read")
            if seat in self._current.touches:  # type: ignore[union-attr]
                raise IllegalAction("chirashi.already_reported",
                                    f"seat {seat} has already reported its touches", seat=seat)
            if seat not in self.eligible():
                raise IllegalAction("chirashi.sitting_out", f"seat {seat} does not race this read", seat=seat)
            for t in action.touches:
                if t.card not in self.floor:
                    raise IllegalAction("chirashi.not_on_floor", f"card {t.card} is not on the floor", card=t.card)
        elif isinstance(action, Send):
            if self.phase != SEND or self._owing[0] != seat:  # type: ignore[index]
                raise IllegalAction("chirashi.nothing_to_send", f"seat {seat} has no card to send now", seat=seat)
            if self.floor.get(action.card, Spot(0, 0, 0)).side != self._owing[1]:  # type: ignore[index]
                raise IllegalAction("chirashi.not_on_side", f"card {action.card} is not on the giver's side",
                                    card=action.card)
        else:
            raise IllegalAction("chirashi.not_an_action", f"not a floor-race action: {action!r}")

    def apply(self, action: Action) -> list[GameEvent]:
        self._check(action)
        if isinstance(action, Read):
            events = self._read(action)
        elif isinstance(action, Touches):
            events = self._touches(action)
        else:
            events = self._send(action)
        self.log.extend(events)
        return events

    # -- a read ----------------------------------------------------------------------------------
    def _read(self, action: Read) -> list[GameEvent]:
        poem = self.reader_next()
        assert poem is not None
        self._current = _Read(poem, action.start_ms, action.kimariji_ms)
        self._last_start = action.start_ms
        self.phase = TOUCHES
        events: list[GameEvent] = [ReadStarted(len(self.read) + 1, action.start_ms, action.kimariji_ms)]
        if not self.eligible():          # everybody sits out: the read is judged untouched
            events += self._judge()
        return events

    def _touches(self, action: Touches) -> list[GameEvent]:
        cur = self._current
        assert cur is not None
        cur.touches[action.seat] = tuple(action.touches)
        events: list[GameEvent] = [TouchesReported(action.seat, len(action.touches))]
        if all(s in cur.touches for s in self.eligible()):
            events += self._judge()
        return events

    def _first_take(self, cur: _Read) -> tuple[int | None, int | None, bool]:
        """(taker, take_ms, simultaneous) of the read card."""
        firsts = {s: min((t.time_ms for t in ts if t.card == cur.poem and t.time_ms >= cur.start_ms),
                         default=None) for s, ts in cur.touches.items()}
        times = {s: t for s, t in firsts.items() if t is not None}
        if not times:
            return None, None, False
        first = min(times.values())
        tied = sorted(s for s, t in times.items() if t - first <= self.options.simultaneous_ms)
        if len(tied) == 1:
            return tied[0], first, False
        side = self.floor[cur.poem].side
        home = [s for s in tied if self.owns(s, side)]
        if home:
            taker = min(home, key=lambda s: (times[s], s))
        elif self.options.teams and len({self.team(s) for s in tied}) == 1:
            taker = min(tied, key=lambda s: (times[s], s))
        else:       # じゃんけん: a draw seeded by the game and the read
            taker = random.Random(f"chirashi-tie:{self.seed}:{len(self.read)}").choice(tied)
        return taker, times[taker], True

    def _judge(self) -> list[GameEvent]:
        cur = self._current
        assert cur is not None
        taker, take_ms, simultaneous = self._first_take(cur)
        events: list[GameEvent] = []
        faulters: list[int] = []
        for s in sorted(cur.touches):
            wrong = [t for t in cur.touches[s]
                     if t.time_ms < cur.start_ms or (t.card != cur.poem and (take_ms is None or t.time_ms < take_ms))]
            if wrong:
                first = min(wrong, key=lambda t: t.time_ms)
                faulters.append(s)
                self.faults[s] += 1
                events.append(Faulted(s, first.card, first.time_ms < cur.start_ms))
        spot = self.floor.pop(cur.poem)
        self.read.append(cur.poem)
        if taker is None:
            self.unclaimed.append(cur.poem)
            events.append(Unclaimed(cur.poem))
        else:
            self.taken[taker].append(cur.poem)
            events.append(Taken(taker, cur.poem, spot.side, take_ms - cur.kimariji_ms,  # type: ignore[operator]
                                simultaneous))
        events.append(Judged(len(self.read), cur.poem, taker))
        self._current = None
        self.resting = set()
        events += self._aftermath(taker, spot, faulters)
        if self.phase != SEND:
            events += self._after_read()
        return events

    def _aftermath(self, taker: int | None, spot: Spot, faulters: list[int]) -> list[GameEvent]:
        """What a judged read costs: Genpei's sends and relay's turns, or chirashi's rests."""
        if self.options.teams:
            return self._owe(taker, spot.side, faulters) + self._relay_turns(taker, spot.side)
        if self.options.otetsuki == "rest":
            self.resting = set(faulters)
            return [Resting(s) for s in faulters]
        return []

    def owns(self, seat: int, side: int | None) -> bool:
        """The card's side is the seat's own (same-time touches go to it)."""
        return side is not None and self.team(seat) == side

    def _owe(self, taker: int | None, side: int | None, faulters: list[int]) -> list[GameEvent]:
        """Genpei's sends: a take from the other side sends one card back; each faulting seat
        receives one from the other team; both ways in one read net out."""
        owe = [0, 0]                           # cards team t must move to the other side
        if taker is not None and side is not None and side != self.team(taker):
            owe[self.team(taker)] += 1
        for s in faulters:
            owe[1 - self.team(s)] += 1
        net = owe[0] - owe[1]
        if net == 0:
            return []
        team = 0 if net > 0 else 1
        cards = min(abs(net), len(self.side_cards(team)))
        if cards == 0:
            return []
        if taker is not None and self.team(taker) == team and owe[team] and side != team:
            giver = taker                      # the taker chooses what to send
        else:
            giver = self.captain(team)
        self._owing = (giver, team, cards)
        self.owed_total += cards
        self.phase = SEND
        return [CardsOwed(giver, team, cards)]

    def captain(self, team: int) -> int:
        """Who chooses a penalty card for `team`: its seat on turn (relay), else its lowest seat."""
        return self.on_turn[team] if self.options.relay else self.team_seats(team)[0]

    def _relay_turns(self, taker: int | None, side: int | None) -> list[GameEvent]:
        if not self.options.relay:
            return []
        events: list[GameEvent] = []
        if taker is not None and side is not None and side != self.team(taker):
            events.append(self._pass_turn(side, "taken"))
        if len(self.read) % self.options.relay_every == 0:
            events += [self._pass_turn(t, "every") for t in (0, 1)]
        return events

    def _pass_turn(self, team: int, why: str) -> TurnPassed:
        seats = self.team_seats(team)
        nxt = seats[(seats.index(self.on_turn[team]) + 1) % len(seats)]
        self.on_turn[team] = nxt
        return TurnPassed(team, nxt, why)

    def _send(self, action: Send) -> list[GameEvent]:
        giver, side, cards = self._owing  # type: ignore[misc]
        to = 1 - side
        self.floor[action.card] = self._place_on(to)
        self.sent += 1
        events: list[GameEvent] = [CardSent(action.seat, action.card, to)]
        cards -= 1
        if cards and self.side_cards(side):
            self._owing = (giver, side, cards)
            return events
        self.owed_total -= cards               # a side emptied before all were sent: nothing more to send
        self._owing = None
        self.phase = AWAIT_READ
        return events + self._after_read()

    def _place_on(self, side: int) -> Spot:
        """A sent card's place: the first free place of the receiving side's rows."""
        used = {(sp.row, sp.column) for sp in self.floor.values() if sp.side == side}
        extra = 0
        while True:
            for row, width in enumerate(GENPEI_ROWS):
                for col in range(width + extra):
                    if (row, col) not in used:
                        return side_spot(side, row, col)
            extra += 1

    def _after_read(self) -> list[GameEvent]:
        self.phase = AWAIT_READ
        if self.options.teams:
            empty = [t for t in (0, 1) if not self.side_cards(t)]
            if empty:
                return self._end(tuple(s for s in range(self.players) if self.team(s) in empty), "side_empty")
            if self.reader_next() is None:
                counts = [len(self.side_cards(t)) for t in (0, 1)]
                best = min(counts)
                return self._end(tuple(s for s in range(self.players) if counts[self.team(s)] == best),
                                 "stack_empty")
            return []
        if not self.floor or self.reader_next() is None:
            scores = self.scores()
            best = max(scores)
            return self._end(tuple(s for s in range(self.players) if scores[s] == best),
                             "floor_empty" if not self.floor else "stack_empty")
        return []

    def _end(self, winners: tuple[int, ...], reason: str) -> list[GameEvent]:
        self.phase = OVER
        self.winners = winners
        self.reason = reason
        return [GameOver(self.scores(), winners, reason)]

    # -- results ---------------------------------------------------------------------------------
    def scores(self) -> tuple[int, ...]:
        """Cards taken per seat (chirashi); in Genpei, cards left on the seat's team's side."""
        if self.options.teams:
            return tuple(len(self.side_cards(self.team(s))) for s in range(self.players))
        return tuple(len(t) for t in self.taken)

    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> GameOutcome | None:
        if self.phase != OVER:
            return None
        return GameOutcome(self.scores(), self.winners, self.reason)

    def current_read(self) -> CurrentRead | None:
        cur = self._current
        return None if cur is None else CurrentRead(len(self.read) + 1, cur.start_ms, cur.kimariji_ms)

    def view(self, seat: int) -> View:
        if not 0 <= seat < self.players:
            raise ValueError(f"there is no seat {seat!r}")
        return View(seat, self.phase, tuple(sorted(self.floor.items())),
                    tuple(tuple(t) for t in self.taken), tuple(self.unclaimed), tuple(self.read),
                    self.current_read(), self.eligible(), tuple(sorted(self.resting)), tuple(self.on_turn),
                    tuple(len(self.side_cards(t)) for t in (0, 1)) if self.options.teams else (),
                    self._owing, self.winners)

    def clone(self) -> "ChirashiState":
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._stack = list(self._stack)
        twin.floor = dict(self.floor)
        twin.taken = [list(t) for t in self.taken]
        twin.unclaimed = list(self.unclaimed)
        twin.read = list(self.read)
        twin.faults = list(self.faults)
        twin.resting = set(self.resting)
        twin.on_turn = list(self.on_turn)
        twin.log = list(self.log)
        if self._current is not None:
            twin._current = replace(self._current, touches=dict(self._current.touches))
        return twin

    def check_invariants(self) -> None:
        held = list(self.floor) + [c for t in self.taken for c in t] + self.unclaimed
        assert sorted(held) == list(CARDS), "the 100 torifuda are on the floor, taken or set aside, each once"
        judged = set(self.read)
        assert judged == {c for t in self.taken for c in t} | set(self.unclaimed), \
            "every card read has been taken or set aside, and only those"
        assert not judged & set(self.floor), "no card read still lies on the floor"
        assert self.read == self._stack[:len(self.read)], "the reads follow the reader's stack"
        if self.options.teams:
            assert all(sp.side in (0, 1) for sp in self.floor.values()), "every card lies on a side"
            places = [(sp.side, sp.row, sp.column) for sp in self.floor.values()]
            assert len(set(places)) == len(places), "two cards share a place"
            pending = self._owing[2] if self._owing else 0
            assert self.sent + pending == self.owed_total, "cards sent match cards owed"
        else:
            assert self.sent == 0 and all(sp.side is None for sp in self.floor.values())
        if self.options.relay:
            assert all(self.team(s) == t for t, s in enumerate(self.on_turn)), "a team's own seat is on turn"
        if self.phase == OVER:
            assert self.winners, "a finished game has winners"


def new_game(players: int, seed: object, options: RaceOptions = RaceOptions()) -> ChirashiState:
    """The 100 torifuda laid out and the reader's stack shuffled, both from `seed`."""
    if options.game == "shimonoku":
        from trainer.rules.shimonoku import new_shimonoku
        return new_shimonoku(players, seed, options)
    rng = random.Random(f"chirashi-deal:{seed}")
    deck = list(CARDS)
    rng.shuffle(deck)
    floor = genpei_layout((deck[:50], deck[50:])) if options.teams else scatter(deck, rng)
    stack = list(CARDS)
    random.Random(f"chirashi-stack:{seed}").shuffle(stack)
    return ChirashiState(players, stack, floor, seed, options)
