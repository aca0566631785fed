"""Kyōgi ratings of accounts: the Weng-Lin (OpenSkill) model, and the one number a person is shown.

The arithmetic is the `openskill` library's (Weng-Lin's Bayesian approximation,
the Plackett-Luce model with its defaults: a new account is mu 25, sigma 25/3);
this module only says which model, how a finished match is ranked, and how a
rating is shown. The storage (the ``ratings`` and ``rated_matches`` tables, one
transaction a match, never twice) is `trainer.server.store.Store.rate_match`.

A rating is shown as one number, the conservative estimate ``mu - 3 sigma``
(openskill's ordinal) scaled so that a new account shows 1500 and a point of
mu is 60 shown points: it rises as a player's results become certain, so one
lucky win does not top the leaderboard.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

RATED_GAMES = ("kyogi",)
SHOWN_SCALE = 60.0
SHOWN_START = 1500.0
LEADERBOARD_MAX = 100
"""The most rows one ``leaderboard`` message may ask for."""


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float
    games: int = 0

    @property
    def shown(self) -> int:
        return shown(self.mu, self.sigma)


@lru_cache(maxsize=1)
def model() -> Any:
    """The library's model (made once: it holds only its constants)."""
    from openskill.models import PlackettLuce
    return PlackettLuce()


def new_skill() -> Skill:
    m = model()
    return Skill(m.mu, m.sigma, 0)


def shown(mu: float, sigma: float) -> int:
    """The one number shown for a rating (see the module docstring)."""
    return round(SHOWN_SCALE * (mu - 3 * sigma) + SHOWN_START)


def rated(first: Skill, second: Skill, winner: int | None) -> tuple[Skill, Skill]:
    """Both players' skills after one match between them: `winner` 0 (first), 1 (second) or
    None (a draw). The library's own update, each player a team of one."""
    m = model()
    ranks = [1, 1] if winner is None else [1, 2] if winner == 0 else [2, 1]
    a, b = m.rating(mu=first.mu, sigma=first.sigma), m.rating(mu=second.mu, sigma=second.sigma)
    [[a2], [b2]] = m.rate([[a], [b]], ranks=ranks)
    return Skill(a2.mu, a2.sigma, first.games + 1), Skill(b2.mu, b2.sigma, second.games + 1)
