"""The loop the card-game simulators share (Yomi, Ume Botan, Unsun): all-CPU games through the app's session.

Game *i* of a run with ``--seed S`` is dealt from seed ``"S:i"``, so any game
can be replayed alone; it is played to its end by the protocol's one loop
(`trainer.games.protocol.play_out`) on a fake clock. With ``against`` (see
`trainer.games.card_table`) the test seat is ``i % players``: every seat (in
Unsun, every team) takes its turn as the tested CPU.

`add_level_options` is the one spelling of the CPU levels on the command
line, for every game of `karuta simulate`:

- ``--level L`` every CPU plays L; ``--level L1,L2,...`` one level per seat;
- ``--against L`` one side (a seat; in a team game, that seat's team) plays
  ``--level``, every other side L; the tested side rotates with the game
  number, and the report gives its win rate against its fair share;
- ``--cpu-level`` is accepted as the old spelling of ``--level``.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from audio.clock import FakeClock
from trainer.games.protocol import play_out
from trainer.games.turn_session import CPU, TurnSession

LEVEL_HELP = ("CPU level of every seat, or one per seat separated by commas "
              "(--cpu-level is the old spelling); one of: {levels}; default {best}")
AGAINST_HELP = ("the level of every side but a tested one, which plays --level; the tested side "
                "(a seat{team}) changes with every game and the report gives its win rate")


def add_level_options(parser, levels: Sequence[str], best: str, team: bool = False) -> None:
    """``--level`` and ``--against``, spelled and meaning the same for every game."""
    parser.add_argument("--level", "--cpu-level", dest="level", default=None, metavar="LEVEL[,LEVEL...]",
                        help=LEVEL_HELP.format(levels=", ".join(levels), best=best))
    parser.add_argument("--against", choices=levels, default=None,
                        help=AGAINST_HELP.format(team="'s team" if team else ""))


def level_options(options: Mapping[str, Any], levels: Sequence[str], players: int) -> dict[str, Any]:
    """The options with ``level`` checked and split: one level, or ``levels`` (one per seat)."""
    out = {k: v for k, v in options.items() if v is not None}
    given = out.pop("level", None)
    if given is None:
        return out
    names = [x.strip() for x in str(given).split(",")]
    unknown = [x for x in names if x not in levels]
    if unknown:
        raise ValueError(f"--level: {unknown[0]!r} is not a level (one of {', '.join(levels)})")
    if len(names) == 1:
        out["level"] = names[0]
    elif len(names) == players:
        if out.get("against"):
            raise ValueError("--against goes with one --level, not one per seat")
        out["levels"] = names
    else:
        raise ValueError(f"--level: one level or {players} (one per seat), not {len(names)}")
    return out


def run_games(new_session: Callable[..., TurnSession], variant: Any, *, games: int, seed: int,
              players: int, options: Mapping[str, Any], check: bool, best: str,
              per_game: Callable[[TurnSession, int | None], None],
              side_of: Callable[[int], int] | None = None) -> dict[str, Any]:
    """Play `games` games; `per_game(session, test_seat)` gathers each one's figures.
    Returns the common part of the summary (wins by seat, the test side's record);
    `side_of` groups the seats into teams (Unsun)."""
    side = side_of or (lambda s: s)
    sides = len({side(s) for s in range(players)})
    wins = [0] * players
    events: Counter = Counter()
    against = options.get("against")
    test_wins = 0
    test_margin = 0.0
    for i in range(games):
        test_seat = i % players if against else None
        if test_seat is not None and side_of is not None:
            test_seat = i % sides          # a team game: seat k's team for k = 0, 1, ...
        clock = FakeClock()
        opts = {**options, "test_seat": test_seat, "clock": clock}
        session = new_session(variant, f"{seed}:{i}", [CPU] * players, opts)
        session.check_each_move = check
        play_out(session, clock, check=check)
        outcome = session.outcome()
        assert outcome is not None
        for w in outcome.winners:
            wins[w] += 1
        events.update(e.kind for e in session.log)
        if test_seat is not None:
            shared_by_all = side_of is not None and len(outcome.winners) == players   # a team tie
            test_wins += test_seat in outcome.winners and not shared_by_all
            others = [v for s, v in enumerate(outcome.scores) if side(s) != side(test_seat)]
            test_margin += outcome.scores[test_seat] - sum(others) / len(others)
        per_game(session, test_seat)
    out: dict[str, Any] = {"games": games, "players": players, "seed": seed,
                           "wins_by_seat": wins, "events": dict(sorted(events.items()))}
    if against:
        out["test_seat"] = {
            "level": options.get("level") or best, "against": against,
            "win_rate": round(test_wins / games, 3), "fair_share": round(1 / sides, 3),
            "mean_margin": round(test_margin / games, 2)}
    out["invariants"] = "held" if check else "not checked"
    return out


def format_test_seat(d: Mapping[str, Any]) -> list[str]:
    t = d.get("test_seat")
    if not t:
        return []
    return [f"test seat ({t['level']}) against {t['against']}: won {t['win_rate']:.1%} "
            f"(fair share {t['fair_share']:.1%}), mean score margin {t['mean_margin']:+}"]
