"""`karuta stats ...`: the statistics store from the command line.

    karuta stats summary [--kind KIND] [--db FILE]   totals, recent days, weakest cards, faults
    karuta stats export --csv FILE [--db FILE]       every trial as CSV
    karuta stats check [--db FILE]                   full integrity check of the database
    karuta stats recover DAMAGED NEW                 salvage every readable trial into NEW
    karuta stats install NEW                         make NEW the statistics database

summary, export and check open the database read-only: they never rename,
replace or write it, whatever the file is. `recover` writes only a file that did
not exist; `install` copies NEW in place of the database, which it sets aside
with its -wal/-shm side files (renamed, never deleted), with the trainer closed.
"""
from __future__ import annotations

import shlex
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("stats", help="statistics of every trial: summary, CSV export, check, recover")
    cmds = p.add_subparsers(dest="stats_command", metavar="ACTION", required=True)

    s = cmds.add_parser("summary", help="totals, the last days, weakest cards and faults")
    s.add_argument("--kind", default=None,
                   help="one drill (fuda_nagashi, kami_to_torifuda, listening_reflex, "
                        "kimariji_henka, positional), match, mubeyama, or a floor race "
                        "(chirashi, sakasama, genpei, relay, shimonoku); default all")
    s.add_argument("--days", type=int, default=7, help="days of trend to print (default 7)")
    s.add_argument("--db", default=None, help="database file (default: the user's)")
    s.set_defaults(func=_summary)

    e = cmds.add_parser("export", help="write every trial to a CSV file")
    e.add_argument("--csv", required=True, metavar="FILE", help="the CSV file to write")
    e.add_argument("--db", default=None)
    e.set_defaults(func=_export)

    c = cmds.add_parser("check", help="full integrity check; exit status 1 if damaged")
    c.add_argument("--db", default=None)
    c.set_defaults(func=_check)

    r = cmds.add_parser(
        "recover", help="copy every readable trial of a damaged database into a new one",
        description="Reads DAMAGED (read-only, it is not changed) and writes every trial, "
        "session and card schedule that can still be read into NEW, a database file that "
        "must not exist yet. To use it: `karuta stats install NEW`.")
    r.add_argument("source", metavar="DAMAGED", help="the damaged database (e.g. a stats.damaged-... file)")
    r.add_argument("dest", metavar="NEW", help="the new database to write (must not exist)")
    r.set_defaults(func=_recover)

    i = cmds.add_parser(
        "install", help="make a recovered database the statistics database",
        description="Checks NEW (it must be a sound karuta statistics database; it is only "
        "read), sets the statistics database in place aside with its -wal and -shm files "
        "(renamed with a timestamp, never deleted) and copies NEW in its place. The trainer "
        "must be closed.")
    i.add_argument("new", metavar="NEW", help="the database to use (e.g. what `stats recover` wrote)")
    i.set_defaults(func=_install)


def _open(args):
    """The store, read-only. Bad path: UsageError (exit 2); busy or damaged: exit 1."""
    from trainer.errors import Failure, UsageError
    from trainer.stats.store import (StatsBadPath, StatsDamaged, StatsError, StatsStore,
                                     default_path)
    if args.db is not None and not args.db.strip():
        raise UsageError("stats: --db needs a file name")
    try:
        return StatsStore.open(args.db, read_only=True)
    except StatsBadPath as exc:
        if args.db is None:   # the user's own database, not an argument: a failure
            raise Failure(f"stats: {exc}; nothing was changed") from None
        raise UsageError(f"stats: {exc}") from None
    except StatsDamaged as exc:
        where = shlex.quote(str(args.db or default_path()))
        raise Failure(f"stats: {exc}; nothing was changed. `karuta stats recover {where} "
                      "NEW_FILE` copies every readable trial into a new database.") from None
    except StatsError as exc:
        raise Failure(f"stats: {exc}") from None


FAMILY_TITLE = {"reaction": "timed from the kimariji", "answer": "answer times",
                "flip": "Mubeyama flips"}


def _time(ms: float | None, unit: str) -> str:
    from trainer.stats.aggregates import time_text
    return "-" if ms is None else f"{time_text(ms, unit)} {unit}"


def _summary(args) -> int:
    import poems
    from poems.kimariji import sound
    from trainer.errors import Failure, UsageError
    from trainer.stats.aggregates import UNIT, dashboard_data
    from trainer.stats.store import KINDS, StatsError
    if args.kind is not None and args.kind not in KINDS:
        raise UsageError(f"unknown kind {args.kind!r}; choose from {', '.join(KINDS)}")
    if args.days < 0:
        raise UsageError("--days must be 0 or more")
    with _open(args) as store:
        try:
            d = dashboard_data(store, kind=args.kind)
        except StatsError as exc:
            raise Failure(f"stats: {exc}") from None
    what = args.kind or "all drills and matches"
    if not d.total_trials:
        print(f"No trials yet ({what}).")
        return 0
    print(f"{d.total_trials:,} trials ({what}), {d.accuracy:.1%} right.")
    print(f"Memorisation: {d.srs_due} cards due, {d.srs_new} never studied.")
    days = sorted({p.day for p in d.trend})[-args.days:] if args.days else []
    if days:
        print("\nday         kind               trials  right  mean time (right answers)")
        for p in d.trend:
            if p.day in days:
                print(f"{p.day}  {p.kind:<17} {p.n:7d}  {p.accuracy:5.0%}  "
                      f"{_time(p.mean_reaction_ms, UNIT[p.family])}")
    # Each timing family apart: a 300 ms match reaction and a 70 s Mubeyama flip share no scale.
    for family, rows in d.weakest_by_family.items():
        print(f"\nweakest cards, {FAMILY_TITLE[family]} (fewest right, then slowest by median):")
        for c in rows:
            kimariji = sound(c.card, poems.get(c.card).kimariji_len)      # as players write it
            print(f"  {c.card:3d} {kimariji:<7} {c.n} trials, {c.accuracy:.0%} right, "
                  f"median {_time(c.median_ms, UNIT[family])}")
    if d.faults:
        print("\nfaults: " + ", ".join(f"{k} {n}" for k, n in d.faults.items()))
    return 0


def _export(args) -> int:
    from trainer.errors import Failure, UsageError
    from trainer.stats.store import StatsBadPath, StatsError
    if not args.csv.strip():
        raise UsageError("stats export: --csv needs a file name")
    with _open(args) as store:
        try:
            n = store.export_csv(args.csv)
        except StatsBadPath as exc:
            raise UsageError(f"stats export: {exc}") from None
        except StatsError as exc:
            raise Failure(f"stats export: {exc}; {args.csv} was not changed") from None
    print(f"wrote {n:,} trials to {args.csv}")
    return 0


def _check(args) -> int:
    from trainer.errors import Failure
    from trainer.stats.store import default_path
    if args.db is None and not default_path().exists():
        raise Failure(f"stats check: there is no statistics database at {default_path()} "
                      "(nothing has been recorded yet); nothing was checked")
    with _open(args) as store:
        problem = store.verify()
        path = store.path
    if problem:
        print(f"karuta: the statistics database {path} is damaged: {problem}; nothing was "
              f"changed. `karuta stats recover {shlex.quote(str(path))} NEW_FILE` copies "
              "every readable trial into a new database.", file=sys.stderr)
        return 1
    print(f"{path}: ok")
    return 0


def _recover(args) -> int:
    from trainer.errors import Failure, UsageError
    from trainer.stats.salvage import recover_to_new_file
    from trainer.stats.store import StatsBadPath, StatsError
    source, dest = Path(args.source), Path(args.dest)
    if not args.source.strip() or not args.dest.strip():
        raise UsageError("stats recover: give the damaged database and a new file name")
    try:
        report = recover_to_new_file(source, dest)
    except StatsBadPath as exc:
        raise UsageError(f"stats recover: {exc}") from None
    except StatsError as exc:
        raise Failure(f"stats recover: {exc}") from None
    print(f"{dest}: {report.summary()} from {source} (which was not changed).")
    print(f"To use it: karuta stats install {shlex.quote(str(dest))}")
    return 0


def _install(args) -> int:
    from trainer.errors import Failure, UsageError
    from trainer.instance_lock import AlreadyRunning, data_folder_lock
    from trainer.stats.store import (StatsBadPath, StatsError, check_installable, default_path,
                                     install_database)
    if not args.new.strip():
        raise UsageError("stats install: give the database file to install")
    try:
        check_installable(Path(args.new), default_path())   # before the lock: a refusal writes nothing
        with data_folder_lock("stats install"):
            aside = install_database(args.new)
    except AlreadyRunning as exc:
        raise Failure(f"stats install: {exc}; nothing was changed") from None
    except StatsBadPath as exc:
        raise UsageError(f"stats install: {exc}; nothing was changed") from None
    except StatsError as exc:
        raise Failure(f"stats install: {exc}") from None
    sides = [s for s in ("-wal", "-shm") if aside and Path(f"{aside}{s}").exists()]
    kept = (f"; the old one was set aside as {aside}"
            + (f" (with its {' and '.join(sides)} file{'s' * (len(sides) > 1)})" if sides else "")
            if aside else "")
    print(f"{default_path()} is now a copy of {args.new}{kept}.")
    return 0
