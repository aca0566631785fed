"""The loop the card-game simulators share: all-CPU games through the app's session.

Game *i* of a run with ``--seed S`` is dealt from seed ``"S:i"``, so any game
can be replayed alone. With ``against`` (see `trainer.games.card_table`) the
test seat is ``i % players``: every seat takes its turn as the tested CPU.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping

from trainer.games.turn_session import CPU, TurnSession, play_out


def run_games(new_session: Callable[..., TurnSession], variant: Any, *, games: int, seed: int,
              players: int, options: Mapping[str, Any], check: bool, best: str,
              per_game: Callable[[TurnSession, int | None], None]) -> dict[str, Any]:
    """Play `games` games; `per_game(session, test_seat)` gathers each one's figures.
    Returns the common part of the summary (wins by seat, the test seat's record)."""
    wins = [0] * players
    events: Counter = Counter()
    against = options.get("against")
    test_wins = 0
    test_margin = 0.0
    for i in range(games):
        test_seat = i % players if against else None
        opts = {**options, "test_seat": test_seat}
        session = new_session(variant, f"{seed}:{i}", [CPU] * players, opts)
        play_out(session, check=check)
        outcome = session.state.outcome()
        assert outcome is not None
        for w in outcome.winners:
            wins[w] += 1
        events.update(e.kind for e in session.log)
        if test_seat is not None:
            test_wins += test_seat in outcome.winners
            others = [v for s, v in enumerate(outcome.scores) if s != test_seat]
            test_margin += outcome.scores[test_seat] - sum(others) / len(others)
        per_game(session, test_seat)
    out: dict[str, Any] = {"games": games, "players": players, "seed": seed,
                           "wins_by_seat": wins, "events": dict(sorted(events.items()))}
    if against:
        out["test_seat"] = {
            "level": options.get("level") or best, "against": against,
            "win_rate": round(test_wins / games, 3), "fair_share": round(1 / players, 3),
            "mean_margin": round(test_margin / games, 2)}
    out["invariants"] = "held" if check else "not checked"
    return out


def format_test_seat(d: Mapping[str, Any]) -> list[str]:
    t = d.get("test_seat")
    if not t:
        return []
    return [f"test seat ({t['level']}) against {t['against']}: won {t['win_rate']:.1%} "
            f"(fair share {t['fair_share']:.1%}), mean score margin {t['mean_margin']:+}"]
