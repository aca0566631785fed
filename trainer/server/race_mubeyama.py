"""Mubeyama online (4-6 seats): each client reads locally, the owner's flip is timed on its own machine.

The same hall as online kyōgi (`trainer.server.race`): the clock estimate, one
card released at a time with its start on each client's clock, ``race.done``
holding the next card, drop-outs, spectators. What differs is the game: in
Mubeyama a read card has one owner, so a flip is not a race between seats;
the owner's client reports its flip as a reaction time from the kimariji as it
sounded there (``race.flip``), and the server gives it to the table's
`MubeyamaSession` with that time on the programme timeline, as the app's panel
does with a press on its audio clock. A pass of cards a yaku asks for is
``race.pass``. The next card is released once every client has finished the
card and the session waits for the reader again (the flip and every pass
done); a flip that never comes is made for the owner, untimed, `hold_seconds`
after the card ended.

Each seat receives only its own `view(seat)` (`race.view`): the hidden cards'
faces and owners stay as the engine's view keeps them.
"""
from __future__ import annotations

from typing import Any

import poems
import poems.kimariji
from audio.clock import FakeClock
from trainer.games.mubeyama_session import HUMAN, Click, MubeyamaSession, new_session
from trainer.rules.mubeyama import VARIANTS, AwaitFlip, Flip
from trainer.server import codec
from trainer.server.race_protocol import ReadTimes
from trainer.sim.kyogi_sim import NominalTiming

NO_HINT_S = 1e9     # online, nobody is shown whose card it is after a delay (the hint is the app's)


class MubeyamaRaceTable:
    """One online Mubeyama game: the attributes the hall reads, and the game's own steps."""

    game = "mubeyama"

    def __init__(self, ident: str, seed: int, host: int, variant: str, *, speed: float,
                 wait_seconds: float, hold_seconds: float, floor_ms: float):
        from trainer.server.race import OPEN
        self.id, self.seed, self.host, self.variant = ident, seed, host, variant
        self.speed, self.wait_seconds, self.hold_seconds, self.floor_ms = speed, wait_seconds, hold_seconds, floor_ms
        players = VARIANTS[variant].players
        self.seats: list[Any] = [None] * players
        self.status = OPEN
        self.clock = FakeClock(0.0)
        self.session: MubeyamaSession = new_session(variant, seed, (HUMAN,) * players,
                                                    {"clock": self.clock, "hint_delay_s": NO_HINT_S})
        self.timing = NominalTiming()
        self.timing.start(self.session.order)
        self.read: Any = None
        self.result: dict[str, Any] | None = None
        self.hold_task: Any = None
        self.closed_at: dict[int, float] = {}
        self.watchers: set[Any] = set()
        self.history: list[dict[str, Any]] = []
        self.holds: set[int] = set()
        self.cards, self.karafuda = None, None
        self.private, self.code = False, None     # set by the hall (an invitation code)
        self.began, self.rated = False, False      # Mubeyama is never rated
        self.flips: list[dict[str, Any]] = []      # every timed flip: read, seat, card, reaction_ms

    def seat_of(self, user: int) -> int | None:
        return next((s for s, seat in enumerate(self.seats) if seat is not None and seat.user == user), None)

    # -- the reading ----------------------------------------------------------------------------
    def next_read(self) -> tuple[int, int, ReadTimes, int, str] | None:
        """The next card the game waits for: (poem, index, times, kimariji mora, kana); None when
        the game is over or the stack ran out."""
        s = self.session
        if s.is_over() or not s.waits_for_reader():
            return None
        poem = s.next_yomifuda()
        if poem is None:
            return None
        index = s.order.index(poem)
        marks = self.timing.marks(index, poems.get(poem))
        cur = poems.kimariji.current(poem, s.state.read)
        kima = max(marks["kami_start"], marks[f"kami:mora:{cur.mora}"])
        nxt = marks["card_end"] + 1.0
        times = ReadTimes(marks["kami_start"], kima, marks["kami_end"], marks["card_end"], nxt)
        return poem, index, times, cur.mora, cur.kana

    def start_read(self, poem: int, times: ReadTimes) -> None:
        """The card begins on the programme timeline; its kimariji sounds at its mark (the
        owner's flip is timed from it)."""
        self.clock.set(max(self.clock.now(), times.kami_start))
        self.session.card_started(poem)
        self.clock.set(max(self.clock.now(), times.kimariji))
        self.session.kimariji_sounded(poem, at=times.kimariji)

    def flip(self, seat: int, card: int | None, t: float, number: int, reaction_ms: float) -> None:
        """The owner's flip at programme time `t` (IllegalAction from the session: nothing changed)."""
        self.session.act(seat, Click(card, stamp=t))
        self.flips.append({"read": number, "seat": seat, "card": card, "reaction_ms": round(reaction_ms)})

    def pass_card(self, seat: int, card: int) -> None:
        self.session.act(seat, Click(card))

    def flip_for_owner(self) -> bool:
        """The hold ran out with the flip not made: the owner's card is turned for it, untimed."""
        p = self.session.state.pending
        if isinstance(p, AwaitFlip):
            self.session.act(p.seat, Flip(p.seat, p.no))
            return True
        return False

    def stand_in(self) -> bool:
        """A seat the game waits for did not act within the hold: its flip, or its first legal
        pass, is made for it (as a turn timer's stand-in plays in the turn games)."""
        if self.flip_for_owner():
            return True
        seat = self.session.state.to_act()
        if seat is None or self.session.is_over() or self.session.waits_for_reader():
            return False
        self.session.act(seat, self.session.state.legal_actions(seat)[0])
        return True

    def ready_for_next(self) -> bool:
        return self.session.is_over() or self.session.waits_for_reader()

    # -- what each audience receives -----------------------------------------------------------
    def view_frame(self, seat: int | None) -> dict[str, Any]:
        view = self.session.view(seat)
        return {"type": "race.view", "table": self.id, "seat": seat,
                "pending": type(view.pending).__name__, "view": codec.to_json(view)}

    def start_frame(self, seat: int) -> dict[str, Any]:
        return {"type": "race.start", "table": self.id, "game": self.game, "variant": self.variant,
                "seat": seat, "names": [s.name if s else None for s in self.seats], "speed": self.speed}

    def scores(self) -> list[int]:
        return list(self.session.state.scores())

    def outcome(self) -> tuple[list[int], str] | None:
        out = self.session.outcome()
        return None if out is None else (list(out.winners), out.reason)
