"""`karuta simulate GAME ...`: all-CPU games played headless at full speed."""
from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("simulate", help="play all-CPU games headless and print aggregate results")
    games = p.add_subparsers(dest="game", metavar="GAME", required=True)

    k = games.add_parser("kyogi", help="kyogi karuta, CPU against CPU")
    k.add_argument("--games", type=int, default=100)
    k.add_argument("--seed", type=int, default=0)
    k.add_argument("--cpu-level", default="club,club",
                   help="two comma-separated levels: beginner, novice, club, strong, "
                        "a-class, meijin (or e, d, c, b, a, top); --levels describes them")
    k.add_argument("--levels", action="store_true", help="list the CPU levels and exit")
    k.add_argument("--json", action="store_true")
    k.set_defaults(func=_kyogi)

    m = games.add_parser("mubeyama", help="Mubeyama karuta, all CPU seats")
    m.add_argument("--ruleset", choices=["okayama", "izumoji", "gambling4", "gambling5"],
                   default="okayama")
    m.add_argument("--players", type=int, default=None)
    m.add_argument("--games", type=int, default=100)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=_mubeyama)


def _kyogi(args) -> int:
    if args.levels:
        from trainer.players.karuta_cpu import LEVELS
        for lv in LEVELS.values():
            print(f"{lv.name:9} {lv.label:32} reaction ≈ {lv.mu:.0f} ms ± {lv.sigma:.0f} "
                  f"(+{lv.tau:.0f} ms tail), knows {lv.knows:.0%} of the cards")
        print("Sources and caveats: docs/cpu-levels.md")
        return 0
    from trainer.sim.kyogi_sim import run
    return run(args)


def _mubeyama(args) -> int:
    from trainer.sim.mubeyama_sim import run
    return run(args)
