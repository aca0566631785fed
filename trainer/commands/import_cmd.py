"""`karuta import-readings DIR`: a folder of recorded readings becomes a voice."""
from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser(
        "import-readings",
        help="import a folder of recorded readings (one file per poem, or kami/shimo pairs) as a voice",
        description="Import recorded readings. Each file's name must carry the poem number "
        "(001.wav, poem 1.mp3, kami_017.flac + shimo_017.flac, 017a/017b, 017_1/017_2; 0 or "
        "'joka' for the joka). Files are split at the kami/shimo pause, trimmed and marked.",
    )
    p.add_argument("folder", metavar="DIR", nargs="?", help="folder holding the recordings")
    p.add_argument("--name", help="name of the voice (default: the folder's name); "
                   "importing again under a name replaces the poems found and keeps the rest")
    p.add_argument("--accept", metavar="N[,N...]",
                   help="use the candidate takes of these poems (kept beside the stored ones by "
                   "an earlier import because they had warnings) in voice --name; no DIR")
    p.add_argument("--labels", metavar="LABEL_DIR",
                   help="also write Audacity label files of the marks (017_kami.txt, 017_shimo.txt, "
                   "in seconds of the source file) into LABEL_DIR, to check them by ear")
    p.add_argument("--read-labels", metavar="LABEL_DIR",
                   help="put the marks of edited label files from LABEL_DIR into voice --name; no DIR")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from audio.importer import ImportFailure, import_readings
    from trainer.errors import UsageError
    from trainer.library_noise import held
    if args.accept is not None:
        return _accept(args, UsageError)
    if args.read_labels is not None:
        return _read_labels(args, UsageError)
    if args.folder is None:
        raise UsageError("import-readings: give the folder holding the recordings")
    if not args.folder.strip():   # Path("") is the current folder: never import that by accident
        raise UsageError("import-readings: the folder name is empty")
    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"import-readings: {folder} is not a folder")
    if args.labels is not None and (not args.labels.strip() or
                                    (Path(args.labels).exists() and not Path(args.labels).is_dir())):
        raise UsageError(f"import-readings: --labels wants a folder for the label files, not {args.labels!r}")
    try:
        _one_malloc_arena()
        with held():   # the MP3 decoder's line per damaged frame: counted, not printed
            report = import_readings(folder, args.name, keep_clips=False)   # memory: the largest file
    except ValueError as exc:
        raise UsageError(f"import-readings: {exc}") from None
    except ImportFailure as exc:   # another import running, or nothing could be stored
        print(f"karuta import-readings: {exc}", file=sys.stderr)
        return 1
    if args.json:
        json.dump(report.to_json(), sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        print_report(report)
    if args.labels is not None and report.poems:
        from audio.importer import write_labels
        try:
            written, kept = write_labels(report, Path(args.labels))
        except OSError as exc:
            print(f"karuta import-readings: cannot write labels in {args.labels}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return 1
        note = f"; kept {len(kept)} label file(s) already there" if kept else ""
        print(f"karuta import-readings: wrote {len(written)} label file(s) in {args.labels}{note}",
              file=sys.stderr)
    return 0 if report.poems else 1


def _one_malloc_arena() -> None:
    """glibc gives each worker thread its own heap, and each keeps what its largest file
    needed: eight 4.9-minute files peaked at 404 MB against 273 MB for one. With one
    heap the peak is that of the largest file (257 MB; bench/bench_import_files.py) at
    no cost in time. The command line only: the app's audio thread must not share a
    heap lock with the import's workers."""
    import ctypes
    import ctypes.util
    M_ARENA_MAX = -8
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(M_ARENA_MAX, 1)
    except (OSError, AttributeError):   # not glibc: nothing to tune
        pass


def _read_labels(args, UsageError) -> int:
    from audio.importer import ImportFailure, read_labels
    if args.folder is not None:
        raise UsageError("import-readings: --read-labels takes no folder, only --name")
    if not args.name:
        raise UsageError("import-readings: --read-labels needs --name (the voice)")
    try:
        applied, problems = read_labels(args.name, args.read_labels)
    except ValueError as exc:
        raise UsageError(f"import-readings: {exc}") from None
    except ImportFailure as exc:
        print(f"karuta import-readings: {exc}", file=sys.stderr)
        return 1
    for line in problems:
        print(f"karuta import-readings: {line}", file=sys.stderr)
    if applied:
        print(f"Voice {args.name!r}: marks replaced from {len(applied)} label file(s): {', '.join(applied)}")
    return 2 if problems else 0


def _accept(args, UsageError) -> int:
    from audio.importer import ImportFailure, accept_candidates
    if args.folder is not None:
        raise UsageError("import-readings: --accept takes no folder, only --name")
    if not args.name:
        raise UsageError("import-readings: --accept needs --name (the voice)")
    from poems.numbers import PoemListError, poem_list
    try:
        numbers = sorted(set(poem_list(args.accept, lo=0)))   # 0 is the joka
    except PoemListError:
        raise UsageError(f"import-readings: --accept wants poem numbers like 1,17 (not {args.accept!r})") from None
    if not numbers:
        raise UsageError("import-readings: --accept wants poem numbers like 1,17")
    try:
        done = accept_candidates(args.name, numbers)
    except ValueError as exc:
        raise UsageError(f"import-readings: {exc}") from None
    except ImportFailure as exc:
        print(f"karuta import-readings: {exc}", file=sys.stderr)
        return 1
    print(f"Voice {args.name!r} now reads poem(s) {', '.join(map(str, done))} from the accepted takes.")
    return 0


def print_report(report, out=None) -> None:
    """The per-file report in English (the import dialog shows it in the interface language)."""
    from trainer.text.import_report import report_text
    print(report_text(report, "en"), file=out or sys.stdout)
