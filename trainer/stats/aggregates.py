"""Figures for the statistics dashboard, computed with index-backed SQL.

Nothing here scans the trials table: the trend reads the ``daily`` summary,
per-card totals read ``card_totals``, the per-card distributions read each
card's most recent trials through the ``(card, id)`` / ``(card, kind, id)``
indexes, and faults use a partial index over the few trials that have one.
``bench/bench_stats.py`` measures ``dashboard_data`` on a million trials.

Timing families. Kinds are not timed alike, and no chart or ranking mixes them:

    reaction  ms, from the kimariji mark to the touch: match, listening reflex,
              positional memory, kami -> torifuda (a touch timed from the mark)
    answer    s, from the card shown (or the question) to a typed or picked
              answer: fuda-nagashi, kimariji henka
    flip      s, Mubeyama: from the card read to its flip, up to minutes

Weakness of a card (the heat grid's colour and the weakest-N card set): over
its last ``WEAK_WINDOW`` trials (at least ``WEAK_MIN_TRIALS``),

    weakness = error rate + 0.5 * clamp(relative median reaction - 1, 0, 1)

where a trial's relative reaction is its reaction divided by the player's
median reaction in the same kind (so a 2 s fuda-nagashi answer and a 400 ms
listening-reflex touch are comparable, and one 70 s Mubeyama flip moves no
typical value). A card missed half the time scores 0.5; a card always right
but taken at twice the usual time (or slower) scores 0.5.

The dashboard's weakest-cards table is stricter (``weakest_in_family``): per
timing family, fewest right first, and among equals the slowest by the median
of its relative times: a card never missed never ranks above one missed.

Disturbed trials (the sound stuttered in the race, issue 23) are kept and shown in a
card's history, but no figure here counts them: not the summaries (the store leaves
them out), the distributions, weakness, faults or a run's mean.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from datetime import date

from trainer.stats.store import RACE_KINDS, StatsStore

DIST_WINDOW = 50        # recent trials per card in the distribution
WEAK_WINDOW = 20        # recent trials per card for weakness
WEAK_MIN_TRIALS = 3
SLOWNESS_WEIGHT = 0.5

REACTION, ANSWER, FLIP = "reaction", "answer", "flip"
FAMILIES = (REACTION, ANSWER, FLIP)
FAMILY_OF = {"match": REACTION, "listening_reflex": REACTION, "positional": REACTION,
             "kami_to_torifuda": REACTION, "fuda_nagashi": ANSWER, "kimariji_henka": ANSWER,
             "mubeyama": FLIP, "online": REACTION,
             # the floor races time a touch from the kimariji as kyōgi does
             **{kind: REACTION for kind in RACE_KINDS}}
UNIT = {REACTION: "ms", ANSWER: "s", FLIP: "s"}     # how each family's times are shown


def time_text(ms: float | None, unit: str, missing: str = "—") -> str:
    """A time (stored in ms) as its family shows it: "312" in ms, "12.4" in s; `missing`
    for no time. The unit's name is the caller's to add (a column header, a suffix)."""
    if ms is None:
        return missing
    return f"{ms:.0f}" if unit == "ms" else f"{ms / 1000:.1f}"


def family_of(kind: str) -> str:
    """The timing family of a kind of trial. A kind this version does not know (written by a
    newer one: the store takes any kind name) is taken as a reaction from the kimariji, the
    races' family, rather than stopping the Statistics tab."""
    return FAMILY_OF.get(kind, REACTION)


def kinds_of(family: str) -> tuple[str, ...]:
    return tuple(k for k, f in FAMILY_OF.items() if f == family)


@dataclass(frozen=True)
class DayPoint:
    """One day of one kind of trial: the trend chart's point."""
    day: date
    kind: str
    n: int
    accuracy: float
    mean_reaction_ms: float | None   # correct trials only
    faults: int

    @property
    def family(self) -> str:
        return family_of(self.kind)


@dataclass(frozen=True)
class CardStats:
    """One card: all-time totals and the distribution of its recent reactions."""
    card: int
    n: int                      # all-time trials (of the kind filtered on, if any)
    n_correct: int
    accuracy: float | None
    mean_reaction_ms: float | None
    recent_reactions_ms: tuple[float, ...]  # up to DIST_WINDOW, newest first, correct trials
    quartiles_ms: tuple[float, float, float] | None  # q1, median, q3 of the recent ones
    weakness: float | None      # None: not enough recent trials
    last_at: float | None


@dataclass(frozen=True)
class FamilyCard:
    """One card within one timing family: the weakest-cards table's row."""
    card: int
    family: str
    n: int                      # trials in the recent window (up to WEAK_WINDOW per kind)
    n_correct: int
    median_ms: float | None     # median time of the right ones (ms, whatever the family's unit)
    relative: float | None      # median of time / the kind's median: 1.0 = usual

    @property
    def accuracy(self) -> float:
        return self.n_correct / self.n


@dataclass(frozen=True)
class HistoryRow:
    id: int
    at: float
    kind: str
    session: int | None
    answer: str | None
    correct: bool
    reaction_ms: float | None
    fault: str | None
    voice: str | None
    disturbed: str | None = None     # the sound stuttered: shown, not counted


@dataclass(frozen=True)
class Dashboard:
    """Everything the dashboard draws."""
    kind: str | None
    total_trials: int
    accuracy: float | None
    trend: tuple[DayPoint, ...]
    cards: tuple[CardStats, ...]          # 1..100 in order
    weakest: tuple[int, ...]              # weakest first, by weakness
    faults: dict[str, int]
    srs_due: int
    srs_new: int
    weakest_by_family: dict[str, tuple[FamilyCard, ...]] = field(default_factory=dict)
    computed_in_s: float = field(default=0.0, compare=False)


def _kind_clause(kind: str | None, column: str = "kind") -> tuple[str, tuple]:
    return ("", ()) if kind is None else (f" AND {column} = ?", (kind,))


def trend_by_day(store: StatsStore, kind: str | None = None) -> list[DayPoint]:
    clause, params = _kind_clause(kind)
    rows = store.query(
        "SELECT day, kind, n, n_correct, n_faults, rt_n, rt_sum FROM daily WHERE 1=1"
        + clause + " ORDER BY day, kind", params)
    return [DayPoint(date.fromordinal(day), k, n, n_correct / n if n else 0.0,
                     rt_sum / rt_n if rt_n else None, n_faults)
            for day, k, n, n_correct, n_faults, rt_n, rt_sum in rows]


def median_reaction_by_kind(rows) -> dict[str, float]:
    """The median positive time of the right answers, per kind, of (kind, correct, ms) rows:
    the typical time a card is compared with (a median: one 70 s flip moves nothing)."""
    by_kind: dict[str, list[float]] = {}
    for k, ok, rt in rows:
        if ok and rt is not None and rt > 0:
            by_kind.setdefault(k, []).append(rt)
    return {k: statistics.median(v) for k, v in by_kind.items()}


def recent_trials(store: StatsStore, card: int, limit: int, kind: str | None = None) -> list[tuple]:
    """(kind, correct, reaction_ms) of the card's last `limit` trials, newest first."""
    clause, params = _kind_clause(kind)
    return store.query(
        "SELECT kind, correct, reaction_ms FROM trials WHERE card = ? AND disturbed IS NULL"
        + clause + " ORDER BY id DESC LIMIT ?", (card, *params, limit))


def weakness(recent: list[tuple], kind_means: dict[str, float]) -> float | None:
    """See the module docstring. `recent`: (kind, correct, reaction_ms) rows."""
    window = recent[:WEAK_WINDOW]
    if len(window) < WEAK_MIN_TRIALS:
        return None
    error_rate = sum(1 for _k, ok, _rt in window if not ok) / len(window)
    relative = [rt / kind_means[k] for k, ok, rt in window
                if ok and rt is not None and kind_means.get(k)]
    slowness = min(1.0, max(0.0, statistics.median(relative) - 1.0)) if relative else 0.0
    return error_rate + SLOWNESS_WEIGHT * slowness


def card_stats(store: StatsStore, kind: str | None = None,
               kind_means: dict[str, float] | None = None) -> list[CardStats]:
    """Every card's totals and recent reactions; weakness against `kind_means` (default:
    the median of each kind over all the cards' recent trials)."""
    clause, params = _kind_clause(kind)
    totals = {card: (n, nc, rn, rs, last) for card, n, nc, rn, rs, last in store.query(
        "SELECT card, sum(n), sum(n_correct), sum(rt_n), sum(rt_sum), max(last_at) "
        "FROM card_totals WHERE 1=1" + clause + " GROUP BY card", params)}
    recents = {card: recent_trials(store, card, DIST_WINDOW, kind) if card in totals else []
               for card in range(1, 101)}
    if kind_means is None:
        kind_means = median_reaction_by_kind(row for rows in recents.values() for row in rows)
    out = []
    for card in range(1, 101):
        n, n_correct, rt_n, rt_sum, last_at = totals.get(card, (0, 0, 0, 0.0, None))
        recent = recents[card]
        reactions = tuple(rt for _k, ok, rt in recent if ok and rt is not None)
        quartiles = tuple(statistics.quantiles(reactions, n=4)) if len(reactions) >= 2 else None
        out.append(CardStats(
            card=card, n=n, n_correct=n_correct, accuracy=n_correct / n if n else None,
            mean_reaction_ms=rt_sum / rt_n if rt_n else None,
            recent_reactions_ms=reactions, quartiles_ms=quartiles,
            weakness=weakness(recent, kind_means), last_at=last_at))
    return out


def weakest_cards(store: StatsStore, n: int = 10, kind: str | None = None,
                  cards: list[CardStats] | None = None) -> list[int]:
    """The n weakest cards, weakest first (cards with too few trials are left out)."""
    cards = card_stats(store, kind) if cards is None else cards
    rated = [c for c in cards if c.weakness is not None]
    rated.sort(key=lambda c: (-(c.weakness or 0.0), -(c.mean_reaction_ms or 0.0), c.card))
    return [c.card for c in rated[:n]]


def family_windows(store: StatsStore, kind: str | None = None) -> dict[str, dict[int, list[tuple]]]:
    """family -> card -> (kind, correct, ms) of its last WEAK_WINDOW trials of each kind
    of the family (one index seek per card and kind that has trials)."""
    clause, params = _kind_clause(kind)
    pairs = store.query("SELECT card, kind FROM card_totals WHERE n > 0" + clause, params)
    out: dict[str, dict[int, list[tuple]]] = {}
    for card, k in pairs:
        rows = store.query("SELECT correct, reaction_ms FROM trials WHERE card = ? AND kind = ? "
                           "AND disturbed IS NULL ORDER BY id DESC LIMIT ?", (card, k, WEAK_WINDOW))
        out.setdefault(family_of(k), {}).setdefault(card, []).extend(
            (k, bool(ok), rt) for ok, rt in rows)
    return out


def weakest_in_family(windows: dict[int, list[tuple]], family: str,
                      n: int = 10) -> list[FamilyCard]:
    """The n weakest cards of one timing family: the fewest right first; among equals, the
    slowest by the median of time / the kind's median (right answers, positive times)."""
    medians = median_reaction_by_kind(row for rows in windows.values() for row in rows)
    rated = []
    for card, rows in windows.items():
        if len(rows) < WEAK_MIN_TRIALS:
            continue
        times = [(k, rt) for k, ok, rt in rows if ok and rt is not None and rt > 0]
        relative = [rt / medians[k] for k, rt in times if medians.get(k)]
        rated.append(FamilyCard(
            card, family, len(rows), sum(ok for _k, ok, _rt in rows),
            statistics.median(rt for _k, rt in times) if times else None,
            statistics.median(relative) if relative else None))
    rated.sort(key=lambda c: (c.accuracy, -(c.relative or 0.0), c.card))
    return rated[:n]


def faults_by_kind(store: StatsStore, kind: str | None = None) -> dict[str, int]:
    clause, params = _kind_clause(kind)
    rows = store.query("SELECT fault, count(*) FROM trials WHERE fault IS NOT NULL "
                       "AND disturbed IS NULL" + clause + " GROUP BY fault ORDER BY count(*) DESC", params)
    return {fault: n for fault, n in rows}


def card_history(store: StatsStore, card: int, kind: str | None = None) -> list[HistoryRow]:
    """Every trial of one card, oldest first."""
    clause, params = _kind_clause(kind)
    rows = store.query(
        "SELECT id, at, kind, session, answer, correct, reaction_ms, fault, voice, disturbed "
        "FROM trials WHERE card = ?" + clause + " ORDER BY id", (card, *params))
    return [HistoryRow(i, at, k, s, a, bool(c), rt, f, v, d)
            for i, at, k, s, a, c, rt, f, v, d in rows]


@dataclass(frozen=True)
class RunSummary:
    session: int
    started: float
    n: int
    n_correct: int
    mean_ms: float | None     # mean time per card, all answers


def recent_runs(store: StatsStore, kind: str, n: int = 5) -> list[RunSummary]:
    """The last n sessions of a drill, newest first (for ranks from recent averages)."""
    sessions = store.query("SELECT id, started FROM sessions WHERE kind = ? "
                           "ORDER BY id DESC LIMIT ?", (kind, n))
    out = []
    for session, started in sessions:
        count, n_correct, mean = store.query(
            "SELECT count(*), coalesce(sum(correct), 0), avg(reaction_ms) FROM trials "
            "WHERE session = ? AND disturbed IS NULL", (session,))[0]
        if count:
            out.append(RunSummary(session, started, count, n_correct, mean))
    return out


def srs_counts(store: StatsStore, now: float | None = None) -> tuple[int, int]:
    """(cards due now, cards never reviewed)."""
    now = time.time() if now is None else now
    due, seen = store.query("SELECT coalesce(sum(due <= ?), 0), count(*) FROM srs_cards", (now,))[0]
    return int(due), 100 - int(seen)


def dashboard_data(store: StatsStore, kind: str | None = None, weakest_n: int = 10,
                   now: float | None = None) -> Dashboard:
    """Everything the dashboard draws, in one call."""
    t0 = time.perf_counter()
    trend = trend_by_day(store, kind)
    cards = card_stats(store, kind)
    total = sum(c.n for c in cards)
    correct = sum(c.n_correct for c in cards)
    due, new = srs_counts(store, now)
    by_family = {fam: tuple(weakest_in_family(windows, fam, weakest_n))
                 for fam, windows in family_windows(store, kind).items()}
    return Dashboard(
        kind=kind, total_trials=total, accuracy=correct / total if total else None,
        trend=tuple(trend), cards=tuple(cards),
        weakest=tuple(weakest_cards(store, weakest_n, kind, cards)),
        faults=faults_by_kind(store, kind), srs_due=due, srs_new=new,
        weakest_by_family={f: by_family[f] for f in FAMILIES if by_family.get(f)},
        computed_in_s=time.perf_counter() - t0)


@dataclass(frozen=True)
class CardTotals:
    """One card's trials, right answers, and the median time per timing family (a mean over
    a 280 ms touch and a 70 s Mubeyama flip would say nothing)."""

    trials: int
    accuracy: float | None
    medians: dict[str, float]


def card_totals(history) -> CardTotals:
    """`history`: the card's trials (``correct``, ``reaction_ms``, ``kind``)."""
    history = [r for r in history if getattr(r, "disturbed", None) is None]
    n = len(history)
    right = sum(r.correct for r in history)
    by_family: dict[str, list[float]] = {}
    for r in history:
        if r.correct and r.reaction_ms is not None and r.reaction_ms > 0:
            by_family.setdefault(family_of(r.kind), []).append(r.reaction_ms)
    return CardTotals(n, right / n if n else None,
                      {f: statistics.median(v) for f, v in by_family.items()})
