"""Hokkaido shimonoku karuta (下の句かるた) on the floor-race engine (`trainer.rules.chirashi`).

Rules from the reference page (Fudawiki's *Ogura Hyakunin Isshu*, docs/references.md;
"Shimonoku Karuta"), each with
its sentence, or [decided] (docs/racing-games.md):

- "only the last verse of the poem is read out": ``verse="shimo"``; the wooden
  torifuda carry the shimo-no-ku, as paper torifuda do.
- "Two teams compete against each other, with three players per team: one
  offense, one mid-fielder, and one defense. Opposing midfielders sit facing
  each other, while a team's offense face the opposing team's defense." Seats
  0-2 are team 0 (offence, midfield, defence), 3-5 team 1; seat s faces
  ``OPPOSITE[s]``.
- "Each team has 50 Torifuda ... it is common to divide it into 5 to offense,
  5 to midfielder, and 40 to defense." (``deal="5-5-40"``, default; ``"even"``
  17/17/16 is the "5 or more to each player" reading.)
- "The Torifuda that can be grabbed by a player are only their own Torifuda and
  the Torifuda of the opponent directly opposite them": any other touch is
  refused (``shimonoku.out_of_reach``) [decided: a hand cannot get there].
- "If you grab the Torifuda of the opponent in front of you, then you send one
  of your Torifuda to the opponent in front of you." The taker chooses.
- "If you grabbed the wrong Torifuda, The opposing team's defense player sends
  one card to your team's offense player." [decided] If either has left, the
  opposing team's player with the most cards sends / the faulter receives.
- "When the cards a player has are read and they have less than 5 Torifuda,
  another teammate must pass 1 Torifuda to that player between readings ...
  if the total number of Torifuda in the team is 14 or less, each teammate will
  have 3 or more ... 8 or less ... 1 or more." [decided] Applied after every
  read to every player below the minimum (capped at what the team can give
  each); the teammate with the most cards passes their first card; automatic.
- "When the team has 2 Torifuda remaining, the player who has no more
  Torifuda and the opponent opposite him will leave ... (when your opponent
  leaves, pass your card to one of your teammates.)"; "If there is only one
  remaining Torifuda, it will be a one-on-one match"; "Even if a team with 2
  Torifuda or less remaining gains Torifuda to have 3 or more Torifuda, it
  will not return to a 3-on-3 match."
- "if there are zero Torifuda, your team wins."

A card's ``Spot.side`` is the seat that holds it.

The Nanae-town variant (``nanae=True``; registry variant ``nanae``), from the
page's "Nanae Town Shimonoku Karuta" (decisions in docs/racing-games.md):

- "The players in the middle has 20 Torifuda arranged in two rows of 7 cards
  and one row of 6 cards. Players on the sides each have 15 Torifuda arranged
  in three rows of 5 cards." ``deal="nanae"`` (15/20/15), areas of 3 rows.
- "If you grabbed the wrong Torifuda (... "Teppa"), then any one of the
  opposing players sends one card to a player in your team opposite that
  opponent." [decided] ``teppa_sender="most"`` (default): the opposing player
  holding the most cards sends (ties: the one facing the teppa, then the lowest
  seat), to the teppa's team-mate facing them; ``"facing"``: the opponent facing
  the teppa sends to the teppa. The base game's send after a take stands.
- ""Teppa" after taking the original card is invalid": the engine's rule (a
  touch after the take is no fault).
- "when both you and your opponent "teppa" and your teammate takes the
  opponent's card, it becomes "chonchon" (= you cannot pass your hand to the
  opponent team, remain unchanged)." [decided] ``chonchon="all"`` (default):
  when both teams teppa in one read, their teppa cards cancel one for one and,
  if the card was taken from the facing opponent, that send is void too;
  ``"teppa"``: only the teppa cards cancel.
- "after teppa, when the next bill is being read, the bill cannot be handed over
  to the person who teppa (= invalid)": a teppa card is sent before the next
  read or not at all; here the reader waits for it (a Read while a card is owed
  is refused), so it is never late.
- "Cards can be freely moved within the team, and it is common for all three
  members of the team to have an equal number of cards as much as possible."
  [decided] ``balance="minimums"`` (default: the deal stands, the base game's
  5/3/1 passes keep players from running dry); ``"even"``: after each read the
  team evens its holdings (differences of at most one, the middle keeping the
  odd card).
- "When your team runs out of cards, either end will drop first, followed by
  the other end, leaving the middle player." At 2 and 1 cards a team's middle
  player is passed a card if bare, so that the ends leave first.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import ClassVar, Sequence

from trainer.rules.chirashi import (AWAIT_READ, CARDS, OVER, SEND, CardSent, ChirashiState, RaceOptions, Send,
                                    Spot, Touches, View)
from trainer.rules.protocol import GameEvent, IllegalAction, event_kinds

ROLES = ("offence", "midfield", "defence")
OPPOSITE = {0: 5, 1: 4, 2: 3, 3: 2, 4: 1, 5: 0}
DEALS = {"5-5-40": (5, 5, 40), "even": (17, 17, 16), "nanae": (15, 20, 15)}
MINIMUMS = ((15, 5), (9, 3), (0, 1))      # (team total at least, each player's minimum)


@dataclass(frozen=True)
class Passed(GameEvent):
    """A team-mate passes `card` to `to` to keep the minimum (or as its opponent leaves)."""
    kind: ClassVar[str] = "shimonoku.pass"
    seat: int
    card: int
    to: int


@dataclass(frozen=True)
class Left(GameEvent):
    """`seat` and the opponent facing it, `opposite`, leave the floor (3-on-3 → 2-on-2 → 1-on-1)."""
    kind: ClassVar[str] = "shimonoku.leave"
    seat: int
    opposite: int


@dataclass(frozen=True)
class Owed(GameEvent):
    """`seat` must send `cards` card(s) to `to`: the send after a take, or a fault's penalty."""
    kind: ClassVar[str] = "shimonoku.owed"
    seat: int
    to: int
    cards: int


EVENT_TYPES = event_kinds(Passed, Left, Owed)
REFUSALS = ("shimonoku.out_of_reach",)


AREA_ROWS = 5          # rows of an area, from the player outwards (the floor's half holds five)
NANAE_ROWS = 3         # Nanae: "two rows of 7 cards and one row of 6", "three rows of 5"
MIDDLE = 1             # a team's middle player (role): the last to leave in Nanae


def per_row(n: int, rows: int = AREA_ROWS) -> int:
    """Cards in a row of an area holding `n`: rows of 5 or more, up to `rows` rows."""
    return max(5, -(-n // rows))


def screen_column(seat: int) -> int:
    """Team 0 along the bottom (offence left, defence right), team 1 along the top facing them
    (defence left, offence right): each screen column holds a facing pair."""
    team, role = divmod(seat, 3)
    return role if team == 0 else 2 - role


def column_widths(counts: Sequence[int], rows: int = AREA_ROWS) -> list[int]:
    """Each screen column's width in card places: the wider of its facing pair's areas."""
    widths = [5, 5, 5]
    for seat, n in enumerate(counts):
        c = screen_column(seat)
        widths[c] = max(widths[c], per_row(n, rows))
    return widths


def area_spots(holdings: Sequence[Sequence[int]], rows: int = AREA_ROWS) -> dict[int, Spot]:
    """Each seat's cards laid in its own area (`screen_column`), rows from its player outwards."""
    widths = column_widths([len(c) for c in holdings], rows)
    total = sum(widths)
    out: dict[int, Spot] = {}
    for seat, cards in enumerate(holdings):
        team = seat // 3
        column = screen_column(seat)
        left = sum(widths[:column]) + (widths[column] - per_row(len(cards), rows)) / 2
        for k, card in enumerate(cards):
            row, col = divmod(k, per_row(len(cards), rows))
            x = (left + col + 0.5) / total
            depth = (row + 0.5) / (2 * rows)
            y = 1 - depth if team == 0 else depth
            out[card] = Spot(round(x, 4), round(y, 4), 0.0 if team == 0 else 180.0, seat, row, col)
    return out


class ShimonokuState(ChirashiState):
    """Hokkaido shimonoku karuta: six seats, two teams of three (see the module docstring)."""

    def __init__(self, stack: Sequence[int], holdings: Sequence[Sequence[int]], seed: object,
                 options: RaceOptions):
        if len(holdings) != 6:
            raise ValueError("shimonoku karuta is played by two teams of three")
        self.area_rows = NANAE_ROWS if options.nanae else AREA_ROWS
        super().__init__(6, stack, area_spots(holdings, self.area_rows), seed, options)
        self.active = set(range(6))
        self._queue: list[tuple[int, int, int]] = []     # (giver, receiver, cards) still to send
        self.passed = 0

    # -- who is who ------------------------------------------------------------------------------
    def team(self, seat: int) -> int:
        return seat // 3

    def owns(self, seat: int, side: int | None) -> bool:
        return side == seat

    def holding(self, seat: int) -> list[int]:
        return sorted(c for c, sp in self.floor.items() if sp.side == seat)

    def team_total(self, team: int) -> int:
        return sum(1 for sp in self.floor.values() if sp.side is not None and self.team(sp.side) == team)

    def minimum(self, team: int) -> int:
        total = self.team_total(team)
        players = [s for s in self.team_seats(team) if s in self.active]
        wanted = next(m for at_least, m in MINIMUMS if total >= at_least)
        return min(wanted, total // max(len(players), 1))

    def eligible(self) -> tuple[int, ...]:
        return tuple(sorted(self.active))

    def reach(self, seat: int) -> tuple[int, int]:
        return seat, OPPOSITE[seat]

    # -- actions ---------------------------------------------------------------------------------
    def _check(self, action) -> None:
        super()._check(action)
        if isinstance(action, Touches):
            for t in action.touches:
                if self.floor[t.card].side not in self.reach(action.seat):
                    raise IllegalAction("shimonoku.out_of_reach",
                                        f"card {t.card} is neither seat {action.seat}'s nor its opponent's",
                                        card=t.card, seat=action.seat)

    def legal_actions(self, seat: int):
        out = super().legal_actions(seat)
        if self.phase == "touches":
            out = [a for a in out if not isinstance(a, Touches) or
                   all(self.floor[t.card].side in self.reach(seat) for t in a.touches)]
        return out

    # -- after a read ----------------------------------------------------------------------------
    def _aftermath(self, taker: int | None, spot: Spot, faulters: list[int]) -> list[GameEvent]:
        if self.options.nanae:
            self._queue = self._nanae_owed(taker, spot, faulters)
            return self._next_owed()
        queue: list[tuple[int, int, int]] = []
        if taker is not None and spot.side == OPPOSITE[taker]:
            queue.append((taker, OPPOSITE[taker], 1))
        for s in faulters:
            other = 1 - self.team(s)
            giver = 3 * other + 2 if 3 * other + 2 in self.active else self._most(other)
            receiver = 3 * self.team(s) if 3 * self.team(s) in self.active else s
            if giver is not None:
                queue.append((giver, receiver, 1))
        self._queue = queue
        return self._next_owed()

    def _nanae_owed(self, taker: int | None, spot: Spot, faulters: list[int]) -> list[tuple[int, int, int]]:
        """Nanae's sends after a read: the take's, then one per teppa not cancelled (chonchon)."""
        by_team = [[s for s in faulters if self.team(s) == t] for t in (0, 1)]
        both = all(by_team)
        queue: list[tuple[int, int, int]] = []
        # "when both you and your opponent "teppa" and your teammate takes the opponent's card,
        # it becomes "chonchon" (= you cannot pass your hand to the opponent team, remain unchanged)"
        if taker is not None and spot.side == OPPOSITE[taker] and not (both and self.options.chonchon == "all"):
            queue.append((taker, OPPOSITE[taker], 1))
        cancelled = min(len(by_team[0]), len(by_team[1]))
        for s in by_team[0][cancelled:] + by_team[1][cancelled:]:
            queue.append(self._teppa_send(s))
        return queue

    def _teppa_send(self, teppa: int) -> tuple[int, int, int]:
        """ "then any one of the opposing players sends one card to a player in your team
        opposite that opponent." """
        facing = OPPOSITE[teppa]
        if self.options.teppa_sender == "facing":
            return facing, teppa, 1
        opponents = [s for s in self.team_seats(1 - self.team(teppa)) if s in self.active]
        sender = max(opponents, key=lambda s: (len(self.holding(s)), s == facing, -s))
        return sender, OPPOSITE[sender], 1

    def _most(self, team: int) -> int | None:
        players = [s for s in self.team_seats(team) if s in self.active and self.holding(s)]
        return max(players, key=lambda s: (len(self.holding(s)), -s)) if players else None

    def _next_owed(self) -> list[GameEvent]:
        while self._queue:
            giver, to, cards = self._queue.pop(0)
            if self.holding(giver):
                self._owing = (giver, giver, cards)
                self._receiver = to
                self.owed_total += cards
                self.phase = SEND
                return [Owed(giver, to, cards)]
        self._owing = None
        self.phase = AWAIT_READ
        return []

    def _send(self, action: Send) -> list[GameEvent]:
        to = self._receiver
        self.floor[action.card] = replace(self.floor[action.card], side=to)
        self.sent += 1
        events: list[GameEvent] = [CardSent(action.seat, action.card, to, True)]
        events += self._next_owed()
        if self.phase != SEND:
            events += self._after_read()
        return events

    def _after_read(self) -> list[GameEvent]:
        self.phase = AWAIT_READ
        events = self._leave()
        even = self.options.nanae and self.options.balance == "even"
        events += self._even_out() if even else self._keep_minimums()
        self.floor = {**self.floor, **area_spots([self.holding(s) for s in range(6)], self.area_rows)}
        empty = [t for t in (0, 1) if self.team_total(t) == 0]
        if empty:
            return events + self._end(tuple(self.team_seats(empty[0])), "side_empty")
        if self.reader_next() is None:
            totals = [self.team_total(t) for t in (0, 1)]
            best = min(totals)
            return events + self._end(tuple(s for s in range(6) if totals[self.team(s)] == best), "stack_empty")
        return events

    def _give(self, giver: int, to: int) -> Passed:
        card = self.holding(giver)[0]
        self.floor[card] = replace(self.floor[card], side=to)
        self.passed += 1
        return Passed(giver, card, to)

    def _keep_minimums(self) -> list[GameEvent]:
        events: list[GameEvent] = []
        for team in (0, 1):
            players = [s for s in self.team_seats(team) if s in self.active]
            need = self.minimum(team)
            for s in players:
                mates = [g for g in players if g != s]
                while mates and len(self.holding(s)) < need:
                    giver = max(mates, key=lambda g: (len(self.holding(g)), -g))
                    if len(self.holding(giver)) <= need:
                        break
                    events.append(self._give(giver, s))
        return events

    def _even_out(self) -> list[GameEvent]:
        """Nanae's ``balance="even"``: each team passes cards from its fullest player to its
        emptiest until they differ by at most one (the middle player keeps an odd card)."""
        events: list[GameEvent] = []
        for team in (0, 1):
            players = [s for s in self.team_seats(team) if s in self.active]
            while len(players) > 1:
                giver = max(players, key=lambda s: (len(self.holding(s)), s % 3 != MIDDLE, -s))
                to = min(players, key=lambda s: (len(self.holding(s)), s % 3 != MIDDLE, s))
                if len(self.holding(giver)) - len(self.holding(to)) <= 1:
                    break
                events.append(self._give(giver, to))
        return events

    def _middle_stays(self, team: int, players: list[int]) -> list[GameEvent]:
        """Nanae: "either end will drop first, followed by the other end, leaving the middle
        player": a bare middle player is passed a card by the fullest team-mate."""
        middle = 3 * team + MIDDLE
        if middle not in players or self.holding(middle):
            return []
        givers = [s for s in players if s != middle and self.holding(s)]
        if not givers:
            return []
        return [self._give(max(givers, key=lambda s: (len(self.holding(s)), -s)), middle)]

    def _leave(self) -> list[GameEvent]:
        """3-on-3 → 2-on-2 at 2 cards left in a team, → 1-on-1 at 1: the player with none and
        the opponent facing them leave; the leaving opponent's cards go to a team-mate."""
        events: list[GameEvent] = []
        for team in (0, 1):
            players = [s for s in self.team_seats(team) if s in self.active]
            total = self.team_total(team)
            if not ((len(players) == 3 and total <= 2) or (len(players) == 2 and total <= 1)):
                continue
            if self.options.nanae:
                events += self._middle_stays(team, players)
            bare = [s for s in players if not self.holding(s)]
            if not bare or total == 0:
                continue
            seat, opposite = bare[0], OPPOSITE[bare[0]]
            self.active -= {seat, opposite}
            events.append(Left(seat, opposite))
            mates = [s for s in self.team_seats(1 - team) if s in self.active]
            for card in self.holding(opposite):
                to = min(mates, key=lambda s: (len(self.holding(s)), s))
                self.floor[card] = replace(self.floor[card], side=to)
                self.passed += 1
                events.append(Passed(opposite, card, to))
        return events

    # -- results -------------------------------------------------------------------------------
    def scores(self) -> tuple[int, ...]:
        """Cards left on the seat's team's floor (fewest wins)."""
        return tuple(self.team_total(self.team(s)) for s in range(6))

    def view(self, seat: int) -> View:
        v = super().view(seat)
        return replace(v, side_counts=tuple(len(self.holding(s)) for s in range(6)))

    def clone(self) -> "ShimonokuState":
        twin = super().clone()
        twin.active = set(self.active)  # type: ignore[attr-defined]
        twin._queue = list(self._queue)  # type: ignore[attr-defined]
        return twin  # type: ignore[return-value]

    def check_invariants(self) -> None:
        held = list(self.floor) + [c for t in self.taken for c in t] + self.unclaimed
        assert sorted(held) == list(CARDS), "the 100 cards are on the floor, taken or set aside, each once"
        assert not set(self.read) & set(self.floor), "no card read still lies on the floor"
        assert all(sp.side in self.active for sp in self.floor.values()), "only players still in hold cards"
        assert all(OPPOSITE[s] in self.active for s in self.active), "players leave in facing pairs"
        pending = self._owing[2] if self._owing else 0
        assert self.sent + pending == self.owed_total, "cards sent match cards owed"
        if self.phase == AWAIT_READ:
            for team in (0, 1):
                need = self.minimum(team)
                players = [s for s in self.team_seats(team) if s in self.active]
                if self.options.nanae and self.options.balance == "even" and self.read:    # after the deal
                    counts = [len(self.holding(s)) for s in players]
                    assert max(counts) - min(counts) <= 1, f"team {team} holds {counts}: not evened out"
                    continue
                assert all(len(self.holding(s)) >= need for s in players), \
                    f"team {team}'s players each hold at least {need}"
            if self.options.nanae:
                assert {MIDDLE, 3 + MIDDLE} <= self.active, "in Nanae the ends leave first, the middles last"
        if self.phase == OVER:
            assert self.winners


def new_shimonoku(players: int, seed: object, options: RaceOptions, deal: str = "5-5-40") -> ShimonokuState:
    if players != 6:
        raise ValueError(f"shimonoku karuta is played by 6 (three a side), not {players}")
    rng = random.Random(f"chirashi-deal:{seed}")
    deck = list(CARDS)
    rng.shuffle(deck)
    sizes = DEALS["nanae" if options.nanae else deal]
    holdings, k = [], 0
    for _team in (0, 1):
        for size in sizes:
            holdings.append(deck[k:k + size])
            k += size
    stack = list(CARDS)
    random.Random(f"chirashi-stack:{seed}").shuffle(stack)
    return ShimonokuState(stack, holdings, seed, options)
