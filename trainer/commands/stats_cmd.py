"""`karuta stats ...`: the statistics store from the command line.

    karuta stats summary [--kind KIND] [--db FILE]   totals, recent days, weakest cards, faults
    karuta stats export --csv FILE [--db FILE]       every trial as CSV
    karuta stats check [--db FILE]                   full integrity check of the database
"""
from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("stats", help="statistics of every trial: summary, CSV export, check")
    cmds = p.add_subparsers(dest="stats_command", metavar="ACTION", required=True)

    s = cmds.add_parser("summary", help="totals, the last days, weakest cards and faults")
    s.add_argument("--kind", default=None,
                   help="one drill (fuda_nagashi, kami_to_torifuda, listening_reflex, "
                        "kimariji_henka, positional) or match; default all")
    s.add_argument("--days", type=int, default=7, help="days of trend to print (default 7)")
    s.add_argument("--db", default=None, help="database file (default: the user's)")
    s.set_defaults(func=_summary)

    e = cmds.add_parser("export", help="write every trial to a CSV file")
    e.add_argument("--csv", required=True, metavar="FILE", help="the CSV file to write")
    e.add_argument("--db", default=None)
    e.set_defaults(func=_export)

    c = cmds.add_parser("check", help="full integrity check (sets a damaged file aside at next open)")
    c.add_argument("--db", default=None)
    c.set_defaults(func=_check)


def _open(args):
    from trainer.stats.store import StatsError, StatsStore
    from trainer.cli import UsageError
    try:
        store = StatsStore.open(args.db)
    except StatsError as exc:
        raise UsageError(str(exc)) from None
    if store.recovery_message:
        print(f"karuta: {store.recovery_message}", file=sys.stderr)
    return store


def _summary(args) -> int:
    from trainer.cli import UsageError
    from trainer.stats.aggregates import dashboard_data
    from trainer.stats.store import KINDS
    if args.kind is not None and args.kind not in KINDS:
        raise UsageError(f"unknown kind {args.kind!r}; choose from {', '.join(KINDS)}")
    if args.days < 0:
        raise UsageError("--days must be 0 or more")
    with _open(args) as store:
        d = dashboard_data(store, kind=args.kind)
    what = args.kind or "all drills and matches"
    if not d.total_trials:
        print(f"No trials yet ({what}).")
        return 0
    print(f"{d.total_trials:,} trials ({what}), {d.accuracy:.1%} right.")
    print(f"Memorisation: {d.srs_due} cards due, {d.srs_new} never studied.")
    days = sorted({p.day for p in d.trend})[-args.days:] if args.days else []
    if days:
        print("\nday         kind               trials  right  mean reaction")
        for p in d.trend:
            if p.day in days:
                rt = f"{p.mean_reaction_ms:8.0f} ms" if p.mean_reaction_ms is not None else "       -"
                print(f"{p.day}  {p.kind:<17} {p.n:7d}  {p.accuracy:5.0%}  {rt}")
    if d.weakest:
        print("\nweakest cards (weakest first):")
        import poems
        for no in d.weakest:
            c = d.cards[no - 1]
            rt = f", mean {c.mean_reaction_ms:.0f} ms" if c.mean_reaction_ms is not None else ""
            print(f"  {no:3d} {poems.get(no).kimariji:<7} {c.n} trials, "
                  f"{c.accuracy:.0%} right{rt}")
    if d.faults:
        print("\nfaults: " + ", ".join(f"{k} {n}" for k, n in d.faults.items()))
    return 0


def _export(args) -> int:
    from trainer.cli import UsageError
    from trainer.stats.store import StatsError
    with _open(args) as store:
        try:
            n = store.export_csv(args.csv)
        except StatsError as exc:
            raise UsageError(str(exc)) from None
    print(f"wrote {n:,} trials to {args.csv}")
    return 0


def _check(args) -> int:
    with _open(args) as store:
        problem = store.verify()
    if problem:
        print(f"karuta: the statistics database is damaged: {problem}\n"
              "It will be set aside (renamed, not deleted) when the trainer next opens it.",
              file=sys.stderr)
        return 1
    print(f"{store.path}: ok")
    return 0
