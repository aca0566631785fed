"""The Mubeyama karuta (むべ山かるた) state machine shared by all four rulesets.

One reader reads every yomifuda in random order; the owner of the matching
torifuda turns it face-down, and the reader waits for that flip before reading
on (seed 000: "The reader must double-check..."). A ruleset (see
`rulesets.py`) says how torifuda are dealt and laid out, and what a flip does:
a bingo line (Okayama), passes of face-up torifuda (Izumoji), or payments in
Mon (the gambling games).

The state is a small OpenSpiel-style machine. At every moment exactly one
`pending` decision is open:

- `AwaitRead`: the reader (pseudo-seat `READER`) reads the next card, a chance
  node. `next_read()` samples it from the state's seeded reading order, which
  no view shows; a human reader with physical yomifuda may apply any
  `Read(no)` instead.
- `AwaitFlip(no, seat)`: card *no* was read; *seat* must flip it.
- `AwaitPass(giver, to, count, cause)`: *giver* must choose *count* face-up
  torifuda to give to *to*, one `Pass` action per card.
- `GameOver(winners)`.

CPU seats, hot-seat humans and scorekeeper mode (people playing with real
cards, the app only reading) all drive the same machine with the same
actions; only who submits them differs. Seats are numbered so that seat
``s + 1`` sits on the right of seat ``s`` (the Japanese order of play).
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Protocol, Sequence

from trainer.rules.protocol import GameOutcome
from trainer.rules.protocol import IllegalAction as ProtocolIllegalAction

from . import events as ev
from .events import (ALL_READ, WAIT_FLIP, WAIT_OVER, WAIT_PASS, WAIT_READ, CardNo, MubeyamaEvent,
                     PAY_HIDDEN, PAY_MUBEYAMA, PAY_ROW, PAY_TSUKI_YUKI_HANA)

ALL_CARDS: tuple[CardNo, ...] = tuple(range(1, 101))
_ALL_SET = frozenset(ALL_CARDS)
READER = -1
"""The pseudo-seat of the reader (the chance player)."""


class MubeyamaError(ProtocolIllegalAction):
    """Base of the engine's refusals: the protocol's `IllegalAction` with the reason id
    ``"mubeyama.<problem>"`` and the facts as its fields (seats count from 0), plus one
    English line for the command line and logs. Screens word it from the id
    (`trainer.text.mubeyama.error_text`). *problem* and *facts* are the same values
    under the engine's own names."""

    def __init__(self, message: str, problem: str = "", **facts: object):
        super().__init__(f"mubeyama.{problem or 'error'}", message, **facts)

    @property
    def problem(self) -> str:
        return self.reason.removeprefix("mubeyama.")

    @property
    def facts(self) -> dict[str, object]:
        return self.fields


class IllegalAction(MubeyamaError):
    """A well-formed action that the rules do not allow now (wrong seat, card, moment).

    *pending* (in `facts`) is what the game waits for instead."""


class LayoutError(MubeyamaError):
    """A deal or an entered layout that does not fit the ruleset.

    problems: ``players`` (ruleset, players, counts), ``layouts`` (players, got),
    ``count`` (seat, need, got), ``not_a_card`` (seat, value), ``twice`` (no, seats).
    """


def reading_order(seed: int | str) -> tuple[CardNo, ...]:
    """The reader's shuffled yomifuda for *seed*: the one order the app reads aloud
    and the simulator plays (the state keeps it; no view shows it)."""
    order = list(ALL_CARDS)
    random.Random(f"mubeyama-reading:{seed}").shuffle(order)
    return tuple(order)


def deal_order(seed: int | str) -> tuple[CardNo, ...]:
    """The shuffled torifuda for *seed*, dealt in seat order by the rulesets."""
    deck = list(ALL_CARDS)
    random.Random(f"mubeyama-deal:{seed}").shuffle(deck)
    return tuple(deck)


# --------------------------------------------------------------------------- actions

@dataclass(frozen=True)
class Read:
    """The reader reads yomifuda *no*."""
    no: CardNo
    seat: int = READER



@dataclass(frozen=True)
class Flip:
    """*seat* turns its torifuda *no* face-down (a hidden peak card: shows it)."""
    seat: int
    no: CardNo



@dataclass(frozen=True)
class Pass:
    """*seat* gives its face-up torifuda *no* to seat *to*."""
    seat: int
    no: CardNo
    to: int



Action = Read | Flip | Pass


# --------------------------------------------------------------------------- pending

@dataclass(frozen=True)
class AwaitRead:
    """The reader is to read the next yomifuda."""
    seat: int = READER


@dataclass(frozen=True)
class AwaitFlip:
    """Card *no* has been read; the reader waits for *seat* to flip it."""
    no: CardNo
    seat: int


@dataclass(frozen=True)
class AwaitPass:
    """*giver* must still choose *count* face-up torifuda to give to *to*.

    *owed* is what the yaku asked for; *count* may be smaller when the giver
    has fewer face-up torifuda (the rest is forgiven, see docs/mubeyama.md).
    *cause* is the flipped card whose yaku this is, *yaku_set* 1, 2 or 3.
    """
    giver: int
    to: int
    count: int
    cause: CardNo
    yaku_set: int
    owed: int

    @property
    def seat(self) -> int:
        return self.giver


@dataclass(frozen=True)
class AwaitReveal:
    """What every seat but the owner sees while a face-down hidden card waits to be shown:
    card *no* was read and lies face-down somewhere; whose it is, they learn when it is
    shown (`AwaitFlip` names the owner: the owner's own view and the state only)."""
    no: CardNo
    seat: None = None


@dataclass(frozen=True)
class GameOver:
    winners: tuple[int, ...]
    seat: None = None


Pending = AwaitRead | AwaitFlip | AwaitPass | GameOver
ViewPending = Pending | AwaitReveal
"""What a view shows as pending: a hidden card's `AwaitFlip` becomes `AwaitReveal` for the others."""


# --------------------------------------------------------------------------- records

Event = MubeyamaEvent
"""One line of the game's log (see `events`)."""

_PAY_REASONS = {PAY_HIDDEN: "hidden card read", PAY_TSUKI_YUKI_HANA: "tsuki/yuki/hana card",
                PAY_MUBEYAMA: "mubeyama card"}


@dataclass(frozen=True)
class Payment:
    """One line of the gambling ledger: *payer* paid *payee* *amount* Mon for *why*
    (`events.PAY_*`), on card *no*; *row* is the completed row's number (``why == "row"``)."""
    payer: int
    payee: int
    amount: int
    why: str
    no: CardNo | None = None
    row: int | None = None

    @property
    def reason(self) -> str:
        """The reason in English, for the command line's report (screens use `why`)."""
        return f"completed row {self.row}" if self.why == PAY_ROW else _PAY_REASONS[self.why]

    def __str__(self) -> str:
        """The ledger line in English (the command line, logs; screens use the fields)."""
        card = f" #{self.no}" if self.no is not None else ""
        return f"seat {self.payer} pays seat {self.payee} {self.amount} Mon: {self.reason}{card}"


@dataclass
class Table:
    """One seat's torifuda: card numbers by row, and which are still face-up.

    A layout without geometry (Izumoji: "arranged by the player") is one row.
    The gambling game's peak card is face-down from the deal: it is *hidden*
    until its poem is read and its owner shows it (*revealed*).
    """
    rows: list[list[CardNo]]
    face_up: set[CardNo]
    hidden: CardNo | None = None
    revealed: bool = False
    version: int = 0
    """Bumped on every change, so views can reuse what they built before."""

    def cards(self) -> list[CardNo]:
        return [no for row in self.rows for no in row]

    def row_done(self, r: int) -> bool:
        return not any(no in self.face_up for no in self.rows[r])

    def remove(self, no: CardNo) -> None:
        for row in self.rows:
            if no in row:
                row.remove(no)
                break
        self.face_up.discard(no)


@dataclass(frozen=True)
class PassDue:
    """A pass a yaku has ordered, not yet begun."""
    giver: int
    to: int
    owed: int
    cause: CardNo
    yaku_set: int


# --------------------------------------------------------------------------- views

class SlotView(NamedTuple):
    """One torifuda as a seat sees it. *no* is None when that seat may not know it."""
    no: CardNo | None
    face_up: bool
    hidden: bool = False


@dataclass(frozen=True)
class SeatView:
    seat: int
    rows: tuple[tuple[SlotView, ...], ...]
    face_up: int
    balance: int
    rows_done: tuple[bool, ...]


@dataclass(frozen=True)
class Layout:
    """How a ruleset lays out one seat's torifuda, for drawing (the facts live in the ruleset).

    *shape*: ``"grid"`` (Okayama, *grid_side* × *grid_side*), ``"free"`` (Izumoji:
    arranged by the player, one row drawn wrapped at *wrap* cards), ``"pyramid"``
    (gambling: *row_sizes*, the hidden peak first when *has_peak*). *row_numbers*
    are the rows as the book numbers them (the gambling payments' rows).
    """
    shape: str
    row_sizes: tuple[int, ...]
    grid_side: int | None = None
    wrap: int | None = None
    has_peak: bool = False
    row_numbers: tuple[int, ...] = ()
    pays_rows: bool = False


class Rules(Protocol):
    """What the state asks of a ruleset (`rulesets.Ruleset` implements it).

    The state knows rulesets only through this, so `core` never imports `rulesets`.
    """

    @property
    def name(self) -> str: ...

    def on_flip(self, state: "MubeyamaState", seat: int, no: CardNo) -> None: ...

    def on_reveal(self, state: "MubeyamaState", seat: int, no: CardNo) -> None: ...

    def after_resolution(self, state: "MubeyamaState") -> None: ...

    def scores(self, state: "MubeyamaState") -> list[int]: ...

    def layout(self, players: int) -> Layout: ...


@dataclass(frozen=True)
class MubeyamaView:
    """What one seat (or, with seat None, an onlooker) may see. No reading order.

    *lines*: Okayama's face-down lines that won, as (seat, cards): the table
    outlines them. *layout*: how to draw each seat's torifuda.
    """
    ruleset: str
    players: int
    seat: int | None
    tables: tuple[SeatView, ...]
    read: tuple[CardNo, ...]
    unread: int
    pending: ViewPending
    ledger: tuple[Payment, ...]
    log: tuple[Event, ...]
    winners: tuple[int, ...]
    layout: Layout = Layout("free", ())
    lines: tuple[tuple[int, tuple[CardNo, ...]], ...] = ()

    def cards_shown(self) -> set[CardNo]:
        """Every card number this view names (for hidden-information checks)."""
        shown = {s.no for t in self.tables for row in t.rows for s in row if s.no is not None}
        shown.update(self.read)
        shown.update(no for e in self.log for no in e.cards())
        shown.update(p.no for p in self.ledger if p.no is not None)
        if isinstance(self.pending, (AwaitFlip, AwaitReveal, AwaitPass)):
            shown.add(self.pending.cause if isinstance(self.pending, AwaitPass) else self.pending.no)
        return shown


# --------------------------------------------------------------------------- the state

class MubeyamaState:
    """One game. Build it with `rulesets.new_game(...)`; drive it with `apply`."""

    def __init__(self, ruleset: Rules, players: int, tables: list[Table],
                 unused: Sequence[CardNo], seed: int | str):
        self.ruleset = ruleset
        self.players = players
        self.tables = tables
        self.unused: tuple[CardNo, ...] = tuple(unused)
        self.where: dict[CardNo, int | None] = {no: None for no in self.unused}
        for seat, table in enumerate(tables):
            for no in table.cards():
                self.where[no] = seat
        self._order = list(reading_order(seed))   # the reader's private shuffled yomifuda
        self._cursor = 0
        self.read: list[CardNo] = []
        self._unread: set[CardNo] = set(ALL_CARDS)
        self.pending: Pending = AwaitRead()
        self._dues: list[PassDue] = []
        self.balances = [0] * players
        self.ledger: list[Payment] = []
        self.log: list[Event] = []
        self.passes = 0
        self.shortfalls = 0
        self._seat_views: dict[tuple[int, bool], tuple[int, int, SeatView]] = {}
        self._audited: tuple[int, list[int]] = (0, [0] * players)
        self._logs_seen: dict[int | None, tuple[int, list[Event]]] = {}
        self.lines: list[tuple[int, tuple[CardNo, ...]]] = []
        self.win_event: ev.Won | None = None
        for seat, table in enumerate(tables):
            self.record(ev.Dealt(seat, len(table.cards())))
            if table.hidden is not None:
                self.record(ev.HiddenDealt(seat, table.hidden))

    def clone(self) -> "MubeyamaState":
        """An independent copy (look-ahead, take-backs in a UI)."""
        return copy.deepcopy(self)

    # ----------------------------------------------------------------- queries

    def is_over(self) -> bool:
        return isinstance(self.pending, GameOver)

    def winners(self) -> tuple[int, ...]:
        return self.pending.winners if isinstance(self.pending, GameOver) else ()

    def scores(self) -> list[int]:
        """Mon balances for the gambling games; 1 per winner, else 0, for the others."""
        return self.ruleset.scores(self)

    def to_act(self) -> int | None:
        """The seat the game waits for (`READER` for a reading), None when over."""
        return self.pending.seat

    def actors(self) -> tuple[int, ...]:
        """Who may act now (the protocol's form of `to_act`): one seat, `READER`, or nobody."""
        seat = self.pending.seat
        return () if seat is None else (seat,)

    def outcome(self) -> GameOutcome | None:
        """Scores (Mon, or 1 per winner), winners and why, once the game is over."""
        if not self.is_over():
            return None
        reason = self.win_event.reason if self.win_event is not None else ""
        return GameOutcome(tuple(self.scores()), self.winners(), reason)

    @property
    def reader_order(self) -> tuple[CardNo, ...]:
        """The reader's seeded order (`reading_order(seed)`). Not part of any view: the
        app's reader needs it to lay out the programme; seats never see it."""
        return tuple(self._order)

    def right_of(self, seat: int) -> int:
        return (seat + 1) % self.players

    def others(self, seat: int) -> list[int]:
        """Every other seat, starting from the one on *seat*'s right."""
        return [(seat + k) % self.players for k in range(1, self.players)]

    def reads(self) -> int:
        return len(self.read)

    def next_read(self) -> Read:
        """The reader's next yomifuda, from the seeded order no view reveals."""
        if not isinstance(self.pending, AwaitRead):
            raise IllegalAction("the reader is waiting; no card may be read now", "reader_waits",
                                pending=self.pending)
        while self._order[self._cursor] not in self._unread:
            self._cursor += 1
        return Read(self._order[self._cursor])

    def legal_actions(self, seat: int) -> list[Action]:
        p = self.pending
        if isinstance(p, AwaitRead):
            return [Read(no) for no in sorted(self._unread)] if seat == READER else []
        if isinstance(p, AwaitFlip):
            return [Flip(p.seat, p.no)] if seat == p.seat else []
        if isinstance(p, AwaitPass):
            if seat != p.giver:
                return []
            return [Pass(seat, no, p.to) for no in self.tables[seat].cards()
                    if no in self.tables[seat].face_up]
        return []

    def is_legal(self, action: Action) -> bool:
        p = self.pending
        if isinstance(action, Read):
            return isinstance(p, AwaitRead) and action.no in self._unread
        if isinstance(action, Flip):
            return isinstance(p, AwaitFlip) and action.seat == p.seat and action.no == p.no
        if isinstance(action, Pass):
            return (isinstance(p, AwaitPass) and action.seat == p.giver and action.to == p.to
                    and action.no in self.tables[p.giver].face_up)
        return False

    # ----------------------------------------------------------------- apply

    def apply(self, action: Action) -> list[Event]:
        """Apply one action; return the events it caused (for targeted redraws)."""
        if not isinstance(action, (Read, Flip, Pass)):
            raise MubeyamaError(f"not a Mubeyama action: {action!r}", "not_an_action")
        if not self.is_legal(action):
            raise IllegalAction(f"not allowed now ({describe_pending(self.pending)}): {action!r}",
                                "not_now", pending=self.pending, action=action)
        start = len(self.log)
        if isinstance(action, Read):
            self._read(action.no)
        elif isinstance(action, Flip):
            self._flip(action.seat, action.no)
        else:
            self._pass(action)
        return self.log[start:]

    def _read(self, no: CardNo) -> None:
        self._unread.discard(no)
        self.read.append(no)
        self.record(ev.CardRead(no))
        owner = self.where.get(no)
        if owner is None:
            # An unused torifuda (6-player deals): nobody flips, the reader reads on.
            self.record(ev.NotInPlay(no))
            self._after_resolution()
        else:
            self.pending = AwaitFlip(no, owner)

    def _flip(self, seat: int, no: CardNo) -> None:
        table = self.tables[seat]
        if no == table.hidden:
            table.revealed = True
            table.version += 1
            self.record(ev.Revealed(seat, no))
            self.ruleset.on_reveal(self, seat, no)
        else:
            table.face_up.discard(no)
            table.version += 1
            self.record(ev.Flipped(seat, no))
            self.ruleset.on_flip(self, seat, no)
        self._continue()

    def _pass(self, action: Pass) -> None:
        p = self.pending
        assert isinstance(p, AwaitPass)
        giver, to = self.tables[action.seat], self.tables[action.to]
        giver.remove(action.no)
        to.rows[-1].append(action.no)  # arrives face-up at the end of the receiver's layout
        to.face_up.add(action.no)
        giver.version += 1
        to.version += 1
        self.where[action.no] = action.to
        self.passes += 1
        self.record(ev.Passed(action.seat, action.no, action.to, p.yaku_set))
        if p.count > 1:
            self.pending = AwaitPass(p.giver, p.to, p.count - 1, p.cause, p.yaku_set, p.owed)
        else:
            self._continue()

    # ----------------------------------------------------------------- for rulesets

    def order_pass(self, giver: int, to: int, owed: int, cause: CardNo, yaku_set: int) -> None:
        """Queue a pass a yaku orders; it starts when the earlier ones are done."""
        if owed > 0:
            self._dues.append(PassDue(giver, to, owed, cause, yaku_set))

    def pay_from_all(self, payee: int, amount: int, why: str, no: CardNo | None = None,
                     row: int | None = None) -> None:
        """Every other seat pays *payee* *amount* Mon for *why* (`events.PAY_*`)."""
        if amount <= 0:
            return
        for payer in self.others(payee):
            self.ledger.append(Payment(payer, payee, amount, why, no, row))
            self.balances[payer] -= amount
            self.balances[payee] += amount
        self.record(ev.Paid(payee, no, amount, amount * (self.players - 1), why, row))

    def won_by_line(self, seat: int, line: str, index: int, cards: tuple[CardNo, ...]) -> None:
        """Okayama: *seat*'s line is all face-down; the view names it so the table draws it."""
        self.lines.append((seat, cards))
        self.record(ev.LineCompleted(seat, line, index, cards))

    def end(self, winners: Iterable[int], reason: str, by: int | None = None) -> None:
        """The game is over: *winners* win for *reason* (`events.LINE` ...)."""
        self._dues.clear()
        winners = tuple(sorted(winners))
        for w in winners:
            self.win_event = ev.Won(w, reason, by)
            self.record(self.win_event)
        self.pending = GameOver(winners)

    def record(self, event: Event) -> None:
        """Append to the log (rulesets use it for lines and rows)."""
        self.log.append(event)

    def _continue(self) -> None:
        """Start the next queued pass, or close the reading."""
        if self.is_over():
            return
        while self._dues:
            due = self._dues.pop(0)
            have = len(self.tables[due.giver].face_up)
            count = min(due.owed, have)
            if count < due.owed:
                self.shortfalls += 1
                self.record(ev.ShortOfCards(due.giver, due.cause, due.to, due.owed, have))
            if count:
                self.pending = AwaitPass(due.giver, due.to, count, due.cause, due.yaku_set, due.owed)
                return
        self._after_resolution()

    def _after_resolution(self) -> None:
        self.ruleset.after_resolution(self)
        if self.is_over():
            return
        if not self._unread:
            # Cannot happen with the seed's rulesets (someone finishes first); a guard
            # for overridden ones: the best scores win.
            best = max(self.scores())
            self.end([s for s, v in enumerate(self.scores()) if v == best], ALL_READ)
            return
        self.pending = AwaitRead()

    # ----------------------------------------------------------------- views

    def view(self, seat: int | None) -> MubeyamaView:
        """What *seat* may see; seat None is an onlooker (the reader's screen)."""
        tables = tuple(self._seat_view(s, seat) for s in range(self.players))
        log = self._visible_log(seat)
        return MubeyamaView(self.ruleset.name, self.players, seat, tables, tuple(self.read),
                            len(self._unread), self._visible_pending(seat), tuple(self.ledger), log,
                            self.winners(), self.ruleset.layout(self.players), tuple(self.lines))

    def _visible_pending(self, viewer: int | None) -> ViewPending:
        """The pending decision as *viewer* may see it: a read hidden card's owner stays
        unnamed for the others until it is shown."""
        p = self.pending
        if isinstance(p, AwaitFlip) and viewer != p.seat and p.no == self.tables[p.seat].hidden:
            return AwaitReveal(p.no)
        return p

    def _visible_log(self, viewer: int | None) -> tuple[Event, ...]:
        """The log without other seats' private events, kept up to date incrementally."""
        seen, events = self._logs_seen.get(viewer, (0, []))
        events.extend(e for e in self.log[seen:] if e.private_to in (None, viewer))
        self._logs_seen[viewer] = (len(self.log), events)
        return tuple(events)

    def _seat_view(self, s: int, viewer: int | None) -> SeatView:
        t = self.tables[s]
        knows_hidden = viewer == s and t.hidden is not None
        cached = self._seat_views.get((s, knows_hidden))
        if cached and cached[0] == t.version and cached[1] == self.balances[s]:
            return cached[2]
        seat_view = self._build_seat_view(s, knows_hidden)
        self._seat_views[(s, knows_hidden)] = (t.version, self.balances[s], seat_view)
        return seat_view

    def _build_seat_view(self, s: int, knows_hidden: bool) -> SeatView:
        t = self.tables[s]
        up = t.face_up
        rows = [tuple([SlotView(no, no in up) for no in row]) for row in t.rows]
        if t.hidden is not None:
            known = t.revealed or knows_hidden
            rows[0] = (SlotView(t.hidden if known else None, False, not t.revealed),)
        done = tuple(t.row_done(r) for r in range(len(t.rows)))
        return SeatView(s, tuple(rows), len(t.face_up), self.balances[s], done)

    # ----------------------------------------------------------------- invariants

    def check_invariants(self) -> None:
        """Raise AssertionError if the state is inconsistent (tests, sims, bench)."""
        read = set(self.read)
        flipping = {self.pending.no} if isinstance(self.pending, AwaitFlip) else set()
        placed = len(self.unused)
        index: dict[CardNo, int | None] = dict.fromkeys(self.unused)
        for seat, t in enumerate(self.tables):
            cards = t.cards()
            placed += len(cards)
            index.update(dict.fromkeys(cards, seat))
            held = set(cards)
            assert t.face_up <= held, f"seat {seat}: face-up card not in its layout"
            if t.hidden is not None:
                assert t.hidden in t.rows[0] and t.hidden not in t.face_up, "hidden card misplaced"
                assert t.revealed == (t.hidden in read - flipping), "hidden card shown wrongly"
            assert held - t.face_up - {t.hidden} <= read, f"seat {seat}: face-down but never read"
            assert not (t.face_up & read) - flipping, f"seat {seat}: read but still face-up"
        assert placed == 100 and index.keys() == self.where.keys() == _ALL_SET, \
            "every torifuda must be in exactly one place"
        assert index == self.where, "the card index disagrees with the tables"
        assert len(read) == len(self.read) and len(read) + len(self._unread) == 100
        assert not read & self._unread
        assert sum(self.balances) == 0, "Mon must sum to zero"
        # The ledger only grows: audit the new lines, then compare the running totals.
        audited, totals = self._audited
        for p in self.ledger[audited:]:
            assert p.payer != p.payee and p.amount > 0
            totals[p.payer] -= p.amount
            totals[p.payee] += p.amount
        self._audited = (len(self.ledger), totals)
        assert totals == self.balances, "balances must equal the ledger"

    def _flip_pending(self, no: CardNo) -> bool:
        return isinstance(self.pending, AwaitFlip) and self.pending.no == no


def waiting_for(pending: ViewPending) -> str:
    """What the game waits for, as an id (`events.WAIT_*`); the pending value holds the rest."""
    if isinstance(pending, AwaitRead):
        return WAIT_READ
    if isinstance(pending, (AwaitFlip, AwaitReveal)):
        return WAIT_FLIP
    if isinstance(pending, AwaitPass):
        return WAIT_PASS
    return WAIT_OVER


def describe_pending(p: ViewPending) -> str:
    """The pending decision in one English line (error messages; screens word `p` themselves)."""
    if isinstance(p, AwaitReveal):
        return f"waiting for the hidden card #{p.no} to be shown"
    if isinstance(p, AwaitFlip):
        return f"waiting for seat {p.seat} to flip #{p.no}"
    if isinstance(p, AwaitPass):
        return f"waiting for seat {p.giver} to pass {p.count} face-up torifuda to seat {p.to}"
    return "waiting for the reader" if isinstance(p, AwaitRead) else "the game is over"
