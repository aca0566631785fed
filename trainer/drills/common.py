"""What every drill shares: the clock type, trial results, seeded card choices."""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

Clock = Callable[[], float]  # seconds; time.perf_counter or a fake in tests

# Below this a touch did not answer the reading: nobody reacts to a sound in under
# ~100 ms (the figure sprint starts use for a false start). Earlier touches -- and
# negative ones, before the kimariji -- are anticipations: counted, never a "best".
REACTION_FLOOR_MS = 100.0


@dataclass(frozen=True)
class TrialResult:
    """One card answered or touched in a drill: becomes one row of the store."""

    kind: str
    card: int
    correct: bool
    answer: str | None = None
    reaction_ms: float | None = None   # from the kimariji mark or from the card shown
    fault: str | None = None
    disturbed: str | None = None       # the sound stuttered in this race: kept, not counted

    def to_trial(self, session: int | None = None, voice: str | None = None,
                 at: float | None = None):
        from trainer.stats.store import Trial
        return Trial(kind=self.kind, card=self.card, correct=self.correct, answer=self.answer,
                     reaction_ms=self.reaction_ms, fault=self.fault, voice=voice,
                     session=session, at=at, disturbed=self.disturbed)


class DrillError(ValueError):
    """A drill was asked something that makes no sense now (message for the player)."""


def ms_between(start: float, end: float) -> float:
    return (end - start) * 1000.0


def is_anticipation(ms: float | None) -> bool:
    return ms is not None and ms < REACTION_FLOOR_MS


def best_reaction(times: Iterable[float | None]) -> tuple[float | None, int]:
    """(the fastest real reaction, how many anticipations were left out)."""
    timed = [t for t in times if t is not None]
    real = [t for t in timed if not is_anticipation(t)]
    return (min(real) if real else None), len(timed) - len(real)


@dataclass(frozen=True)
class Summary:
    """The figures every drill reports at its end (anticipations counted apart, never a best)."""

    answered: int
    right: int
    mean_ms: float | None
    best_ms: float | None
    anticipations: int
    timed_out: int = 0
    """Rounds that ended with no answer at all (the reading ran out): played, not answered."""
    disturbed: int = 0
    """Timed answers left out of the mean and the best: the sound stuttered in their race."""

    @property
    def rounds(self) -> int:
        return self.answered + self.timed_out


def timed_out(result: Any) -> bool:
    """A round the player let pass with no answer (a karafuda rightly left alone is an answer)."""
    return result.answer is None and not result.correct


def is_disturbed(result: Any) -> bool:
    """A timed answer whose race the sound stuttered in (`trainer.ui.race_checks`): kept and
    shown, but its time is in no mean and no best, as in the statistics."""
    return getattr(result, "disturbed", None) is not None and result.reaction_ms is not None


def sound_times(results: Iterable[Any]) -> list[float]:
    """The reaction times a drill's figures are made of: timed, and not disturbed."""
    return [r.reaction_ms for r in results if r.reaction_ms is not None and not is_disturbed(r)]


def mark_disturbed(results: list[Any], result: Any, reason: str) -> None:
    """Put `result` in `results` again marked disturbed (results are frozen; the race's
    answer comes after the result is in the list)."""
    from dataclasses import replace
    for k, r in enumerate(results):
        if r is result:
            results[k] = replace(r, disturbed=reason)
            return


def summarise(results: Sequence[Any]) -> Summary:
    """`results`: a drill's results (``correct``, ``answer``, ``reaction_ms``, ``disturbed``)."""
    right = [r for r in results if r.correct]
    times = sound_times(right)
    best, early = best_reaction(times)
    mean = sum(times) / len(times) if times else None
    missed = sum(1 for r in results if timed_out(r))
    return Summary(len(results) - missed, len(right), mean, best, early if times else 0, missed,
                   sum(1 for r in right if is_disturbed(r)))


def checked_cards(cards: Iterable[int], minimum: int = 1) -> list[int]:
    """The card set as a list of distinct poem numbers, at least `minimum` of them."""
    import poems
    out = list(dict.fromkeys(poems.check_no(c) for c in cards))
    if len(out) < minimum:
        raise DrillError(f"this drill needs at least {minimum} cards; the chosen set has {len(out)}")
    return out


@lru_cache(maxsize=None)
def listening_key(no: int) -> tuple[str, ...]:
    """What a listener tells apart, one item per historical kana (cached: drills ask often)."""
    import poems
    return tuple(poems.get(no).listening_key())


def shared_opening_len(a: int, b: int) -> int:
    from poems.kimariji import shared_opening
    return shared_opening(a, b)


def confusables_first(rng: random.Random, target: int, pool: Sequence[int], k: int) -> list[int]:
    """k cards from pool (target excluded), those sharing the longest opening with
    target first (as heard), random among equals."""
    candidates = [c for c in pool if c != target]
    rng.shuffle(candidates)
    candidates.sort(key=lambda c: shared_opening_len(target, c), reverse=True)  # stable
    return candidates[:k]
