"""`karuta simulate bozu`: all-CPU bōzu-mekuri games through the app's session, invariants checked."""
from __future__ import annotations

from typing import Any

from trainer.games.bozu_session import BEST_LEVEL, new_session
from trainer.games.turn_session import TurnSession
from trainer.players.bozu_cpu import LEVELS
from trainer.rules.bozu import EMPEROR_RULES, EMPTY_POT_RULES, NYUDO_RULES, POT_END_RULES, SEMIMARU_RULES
from trainer.sim.card_sim import add_level_options, level_options, run_games


def add_cli_options(parser) -> None:
    add_level_options(parser, LEVELS, BEST_LEVEL)
    parser.add_argument("--semimaru", choices=SEMIMARU_RULES, default=None,
                        help="what Semimaru (#10) does (default: disqualified)")
    parser.add_argument("--emperor", choices=EMPEROR_RULES, default=None,
                        help="what an emperor does (default: man)")
    parser.add_argument("--woman-empty-pot", dest="woman_empty_pot", choices=EMPTY_POT_RULES,
                        default=None, help="a woman drawn when the pot is empty (default: keep)")
    parser.add_argument("--nyudo", choices=NYUDO_RULES, default=None,
                        help="#76 and #96 (入道) are men (default) or monks")
    parser.add_argument("--stacks", type=int, default=None, help="face-down stacks, 1-10 (default 1)")
    parser.add_argument("--pot-at-end", dest="pot_at_end", choices=POT_END_RULES, default=None,
                        help="the pot when the stack runs out (default: stays)")


def simulate_variant(variant, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict[str, Any]:
    opts = level_options(options, LEVELS, players)
    winning: list[int] = []
    biggest_pot = 0
    ties = 0

    def per_game(session: TurnSession, test_seat: int | None) -> None:
        nonlocal biggest_pot, ties
        out = session.outcome()
        assert out is not None
        winning.append(max(out.scores))
        ties += len(out.winners) > 1
        for e in session.log:
            if e.kind == "bozu.to_pot":
                biggest_pot = max(biggest_pot, e.pot)  # type: ignore[attr-defined]

    out = run_games(new_session, variant, games=games, seed=seed, players=players, options=opts,
                    check=check, best=BEST_LEVEL, per_game=per_game)
    n = max(len(winning), 1)
    return {"game": variant.game, "variant": variant.variant, **out,
            "winner_cards_mean": round(sum(winning) / n, 2),
            "shared_wins": ties, "biggest_pot": biggest_pot}


def format_report(d: dict) -> str:
    ev = d["events"]
    lines = [f"{d['game']} {d['variant']}: {d['games']} all-CPU games, {d['players']} players, seed {d['seed']}",
             "wins by seat: " + "  ".join(f"{s}: {w}" for s, w in enumerate(d["wins_by_seat"])),
             f"monks {ev.get('bozu.to_pot', 0)}, pots taken {ev.get('bozu.take_pot', 0)}, "
             f"disqualified {ev.get('bozu.disqualified', 0)}, winner's cards {d['winner_cards_mean']} "
             f"on average, shared wins {d['shared_wins']}, biggest pot {d['biggest_pot']}",
             f"invariants: {d['invariants']}"]
    return "\n".join(lines)
