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
from typing import TYPE_CHECKING, Iterable, NamedTuple, Sequence

if TYPE_CHECKING:
    from .rulesets import Ruleset

CardNo = int
"""A poem / torifuda number, 1..100."""
ALL_CARDS: tuple[CardNo, ...] = tuple(range(1, 101))
_ALL_SET = frozenset(ALL_CARDS)
READER = -1
"""The pseudo-seat of the reader (the chance player)."""


class MubeyamaError(ValueError):
    """Base of the engine's errors; all carry one readable line."""


class IllegalAction(MubeyamaError):
    """A well-formed action that the rules do not allow now (wrong seat, card, moment)."""


class LayoutError(MubeyamaError):
    """A deal or an entered layout that does not fit the ruleset."""


# --------------------------------------------------------------------------- actions

@dataclass(frozen=True)
class Read:
    """The reader reads yomifuda *no*."""
    no: CardNo
    seat: int = READER

    def __str__(self) -> str:
        return f"read #{self.no}"


@dataclass(frozen=True)
class Flip:
    """*seat* turns its torifuda *no* face-down (a hidden peak card: shows it)."""
    seat: int
    no: CardNo

    def __str__(self) -> str:
        return f"seat {self.seat} flips #{self.no}"


@dataclass(frozen=True)
class Pass:
    """*seat* gives its face-up torifuda *no* to seat *to*."""
    seat: int
    no: CardNo
    to: int

    def __str__(self) -> str:
        return f"seat {self.seat} passes #{self.no} to seat {self.to}"


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
class GameOver:
    winners: tuple[int, ...]
    seat: None = None


Pending = AwaitRead | AwaitFlip | AwaitPass | GameOver


# --------------------------------------------------------------------------- records

@dataclass(frozen=True)
class Event:
    """One line of the game's log.

    kinds: deal, read, not-in-play, flip, reveal, pass, short, pay, row, line,
    win. *private_to* marks an event only that seat may see (a hidden card).
    """
    kind: str
    seat: int | None = None
    no: CardNo | None = None
    to: int | None = None
    amount: int = 0
    note: str = ""
    private_to: int | None = None

    def __str__(self) -> str:
        parts = [self.kind]
        if self.seat is not None:
            parts.append(f"seat {self.seat}")
        if self.no is not None:
            parts.append(f"#{self.no}")
        if self.to is not None:
            parts.append(f"-> seat {self.to}")
        if self.amount:
            parts.append(f"{self.amount} Mon")
        if self.note:
            parts.append(f"({self.note})")
        return " ".join(parts)


@dataclass(frozen=True)
class Payment:
    """One line of the gambling ledger: *payer* paid *payee* for *reason*."""
    payer: int
    payee: int
    amount: int
    reason: str
    no: CardNo | None = None

    def __str__(self) -> str:
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
class MubeyamaView:
    """What one seat (or, with seat None, an onlooker) may see. No reading order."""
    ruleset: str
    players: int
    seat: int | None
    tables: tuple[SeatView, ...]
    read: tuple[CardNo, ...]
    unread: int
    pending: Pending
    ledger: tuple[Payment, ...]
    log: tuple[Event, ...]
    winners: tuple[int, ...]

    def cards_shown(self) -> set[CardNo]:
        """Every card number this view names (for hidden-information checks)."""
        shown = {s.no for t in self.tables for row in t.rows for s in row if s.no is not None}
        shown.update(self.read)
        shown.update(e.no for e in self.log if e.no is not None)
        shown.update(p.no for p in self.ledger if p.no is not None)
        if isinstance(self.pending, (AwaitFlip, AwaitPass)):
            shown.add(self.pending.no if isinstance(self.pending, AwaitFlip) else self.pending.cause)
        return shown


# --------------------------------------------------------------------------- the state

class MubeyamaState:
    """One game. Build it with `rulesets.new_game(...)`; drive it with `apply`."""

    def __init__(self, ruleset: "Ruleset", players: int, tables: list[Table],
                 unused: Sequence[CardNo], seed: int | str):
        self.ruleset = ruleset
        self.players = players
        self.tables = tables
        self.unused: tuple[CardNo, ...] = tuple(unused)
        self.where: dict[CardNo, int | None] = {no: None for no in self.unused}
        for seat, table in enumerate(tables):
            for no in table.cards():
                self.where[no] = seat
        order = list(ALL_CARDS)
        random.Random(f"mubeyama-reading:{seed}").shuffle(order)
        self._order = order          # the reader's private shuffled yomifuda
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
        for seat, table in enumerate(tables):
            self.record(Event("deal", seat, note=f"{len(table.cards())} torifuda"))
            if table.hidden is not None:
                self.record(Event("deal", seat, table.hidden, note="hidden card", private_to=seat))

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
            raise IllegalAction("the reader is waiting; no card may be read now")
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
            raise MubeyamaError(f"not a Mubeyama action: {action!r}")
        if not self.is_legal(action):
            raise IllegalAction(f"not allowed now ({self._describe_pending()}): {action}")
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
        self.record(Event("read", no=no))
        owner = self.where.get(no)
        if owner is None:
            # An unused torifuda (6-player deals): nobody flips, the reader reads on.
            self.record(Event("not-in-play", no=no))
            self._after_resolution()
        else:
            self.pending = AwaitFlip(no, owner)

    def _flip(self, seat: int, no: CardNo) -> None:
        table = self.tables[seat]
        if no == table.hidden:
            table.revealed = True
            table.version += 1
            self.record(Event("reveal", seat, no, note="hidden card"))
            self.ruleset.on_reveal(self, seat, no)
        else:
            table.face_up.discard(no)
            table.version += 1
            self.record(Event("flip", seat, no))
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
        self.record(Event("pass", action.seat, action.no, action.to, note=f"yaku set {p.yaku_set}"))
        if p.count > 1:
            self.pending = AwaitPass(p.giver, p.to, p.count - 1, p.cause, p.yaku_set, p.owed)
        else:
            self._continue()

    # ----------------------------------------------------------------- for rulesets

    def order_pass(self, giver: int, to: int, owed: int, cause: CardNo, yaku_set: int) -> None:
        """Queue a pass a yaku orders; it starts when the earlier ones are done."""
        if owed > 0:
            self._dues.append(PassDue(giver, to, owed, cause, yaku_set))

    def pay_from_all(self, payee: int, amount: int, reason: str, no: CardNo | None = None) -> None:
        """Every other seat pays *payee* *amount* Mon."""
        if amount <= 0:
            return
        for payer in self.others(payee):
            self.ledger.append(Payment(payer, payee, amount, reason, no))
            self.balances[payer] -= amount
            self.balances[payee] += amount
        self.record(Event("pay", payee, no, amount=amount * (self.players - 1),
                        note=f"{reason}: {amount} Mon from each"))

    def end(self, winners: Iterable[int], why: str) -> None:
        self._dues.clear()
        winners = tuple(sorted(winners))
        for w in winners:
            self.record(Event("win", w, note=why))
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
                self.record(Event("short", due.giver, due.cause, due.to,
                                note=f"owes {due.owed}, has {have} face-up; rest forgiven"))
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
            self.end([s for s, v in enumerate(self.scores()) if v == best], "every card read")
            return
        self.pending = AwaitRead()

    def _describe_pending(self) -> str:
        p = self.pending
        if isinstance(p, AwaitRead):
            return "waiting for the reader"
        if isinstance(p, AwaitFlip):
            return f"waiting for seat {p.seat} to flip #{p.no}"
        if isinstance(p, AwaitPass):
            return f"waiting for seat {p.giver} to pass {p.count} face-up torifuda to seat {p.to}"
        return "the game is over"

    # ----------------------------------------------------------------- views

    def view(self, seat: int | None) -> MubeyamaView:
        """What *seat* may see; seat None is an onlooker (the reader's screen)."""
        tables = tuple(self._seat_view(s, seat) for s in range(self.players))
        log = self._visible_log(seat)
        return MubeyamaView(self.ruleset.name, self.players, seat, tables, tuple(self.read),
                            len(self._unread), self.pending, tuple(self.ledger), log,
                            self.winners())

    def _visible_log(self, viewer: int | None) -> tuple[Event, ...]:
        """The log without other seats' private events, kept up to date incrementally."""
        seen, events = self._logs_seen.get(viewer, (0, []))
        events.extend(e for e in self.log[seen:] if e.private_to is None or e.private_to == viewer)
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
