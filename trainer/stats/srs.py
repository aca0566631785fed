"""Spaced repetition of the 100 cards (FSRS, the ``fsrs`` library, v6).

Every answer in a memorisation drill becomes an FSRS review of that card.
The rating comes from correctness and speed; speed thresholds depend on the
drill because the drills time different things (an answer typed after a
card appears, or a touch measured from the kimariji mark):

    wrong answer, or a fault                 -> Again
    correct, slower than ``slow_ms``         -> Hard
    correct, between the thresholds          -> Good
    correct, at most ``fast_ms``             -> Easy
    correct but untimed, or anticipated      -> Good
    (a touch before the kimariji mark: right, but it may have been a guess)

    drill               fast_ms  slow_ms   what is timed
    fuda_nagashi          1500     4000    card shown -> kimariji answered
    kimariji_henka        2000     6000    question shown -> answer, per card
    kami_to_torifuda       500     1500    kimariji mark -> touch
    listening_reflex       350     1000    kimariji mark -> touch
    positional             600     1800    kimariji mark -> touch of the place
    match                  400     1200    kimariji mark -> take

Card states live in the ``srs_cards`` table of the statistics store (one row
per card that has been reviewed; a card without a row is new). The order of
study is: due cards first (most overdue first), then new cards, then the
rest by due date.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable

from fsrs import Card, Rating, Scheduler, State

from trainer.stats.store import StatsStore

RATING_THRESHOLDS_MS: dict[str, tuple[float, float]] = {
    "fuda_nagashi": (1500.0, 4000.0),
    "kimariji_henka": (2000.0, 6000.0),
    "kami_to_torifuda": (500.0, 1500.0),
    "listening_reflex": (350.0, 1000.0),
    "positional": (600.0, 1800.0),
    "match": (400.0, 1200.0),
}
MAX_INTERVAL_DAYS = 180  # a tournament player keeps every card fresh within half a year


def rating_for(kind: str, correct: bool, ms: float | None) -> Rating:
    """The FSRS rating of one answer (see the module docstring)."""
    if kind not in RATING_THRESHOLDS_MS:
        raise ValueError(f"no rating thresholds for drill {kind!r}")
    if not correct:
        return Rating.Again
    if ms is None or ms < 0:
        return Rating.Good
    fast, slow = RATING_THRESHOLDS_MS[kind]
    if ms <= fast:
        return Rating.Easy
    if ms > slow:
        return Rating.Hard
    return Rating.Good


@dataclass(frozen=True)
class Review:
    card: int
    rating: Rating
    due: float          # unix time of the next review
    state: State


def _dt(t: float) -> datetime:
    return datetime.fromtimestamp(t, tz=timezone.utc)


class Memorisation:
    """FSRS scheduling of the cards, persisted in the statistics store.

    now: a wall-clock callable (unix seconds); tests pass a fake one.
    fuzz: FSRS interval fuzz (spreads cards learnt the same day); it draws
    from Python's global random, so tests turn it off.
    """

    def __init__(self, store: StatsStore, *, now: Callable[[], float] = time.time,
                 fuzz: bool = True, desired_retention: float = 0.9):
        self.store = store
        self.now = now
        self.scheduler = Scheduler(desired_retention=desired_retention,
                                   maximum_interval=MAX_INTERVAL_DAYS, enable_fuzzing=fuzz)

    # --- card states -----------------------------------------------------------------

    def card(self, no: int) -> Card | None:
        """The FSRS state of a card, or None if it was never reviewed."""
        _check_card(no)
        rows = self.store.query("SELECT state, step, stability, difficulty, due, last_review "
                                "FROM srs_cards WHERE card = ?", (no,))
        if not rows:
            return None
        state, step, stability, difficulty, due, last = rows[0]
        return Card(card_id=no, state=State(state), step=step, stability=stability,
                    difficulty=difficulty, due=_dt(due),
                    last_review=None if last is None else _dt(last))

    def _save(self, card: Card) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO srs_cards (card, state, step, stability, difficulty, "
                "due, last_review) VALUES (?,?,?,?,?,?,?)",
                (card.card_id, int(card.state), card.step, card.stability, card.difficulty,
                 card.due.timestamp(),
                 None if card.last_review is None else card.last_review.timestamp()))

    def _due_times(self) -> dict[int, float]:
        return {c: due for c, due in self.store.query("SELECT card, due FROM srs_cards")}

    # --- what to study ---------------------------------------------------------------

    def due(self, cards: Iterable[int] | None = None) -> list[int]:
        """Cards due now, most overdue first."""
        now = self.now()
        pool = _pool(cards)
        times = self._due_times()
        due = [c for c in pool if c in times and times[c] <= now]
        return sorted(due, key=lambda c: (times[c], c))

    def new(self, cards: Iterable[int] | None = None) -> list[int]:
        """Cards never reviewed, in the order given (default poem order)."""
        times = self._due_times()
        return [c for c in _pool(cards) if c not in times]

    def queue(self, cards: Iterable[int] | None = None, *, new_limit: int | None = None,
              include_not_due: bool = True) -> list[int]:
        """Study order: due cards (most overdue first), then up to new_limit new
        cards, then (if include_not_due) the others by due date."""
        pool = _pool(cards)
        due = self.due(pool)
        new = self.new(pool)
        if new_limit is not None:
            new = new[:max(0, new_limit)]
        order = due + new
        if include_not_due:
            times = self._due_times()
            placed = set(order)
            rest = sorted((c for c in pool if c in times and c not in placed),
                          key=lambda c: (times[c], c))
            order += rest
        return order

    # --- answering -------------------------------------------------------------------

    def review(self, no: int, kind: str, correct: bool, ms: float | None) -> Review:
        """Record one answer as an FSRS review and persist the card's new state."""
        rating = rating_for(kind, correct, ms)
        return self.review_with(no, rating, None if ms is None else max(0, int(ms)))

    def review_with(self, no: int, rating: Rating, duration_ms: int | None = None) -> Review:
        card = self.card(no) or Card(card_id=no, due=_dt(self.now()))
        updated, _log = self.scheduler.review_card(card, rating, _dt(self.now()), duration_ms)
        self._save(updated)
        return Review(no, rating, updated.due.timestamp(), updated.state)

    def interval_days(self, no: int) -> float | None:
        """Days from the last review to the next one (None if never reviewed)."""
        card = self.card(no)
        if card is None or card.last_review is None:
            return None
        return (card.due - card.last_review) / timedelta(days=1)


def _check_card(no: int) -> None:
    if not isinstance(no, int) or not 1 <= no <= 100:
        raise ValueError(f"card must be a poem number 1..100, not {no!r}")


def _pool(cards: Iterable[int] | None) -> list[int]:
    pool = list(range(1, 101)) if cards is None else list(dict.fromkeys(cards))
    for c in pool:
        _check_card(c)
    return pool
