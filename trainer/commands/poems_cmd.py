"""`karuta poems` and `karuta kimariji`: the card database on the command line (no Qt)."""
from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("poems", help="list the 100 poems with their kimariji")
    p.add_argument("--json", action="store_true", help="machine-readable list")
    _spelling_option(p)
    p.set_defaults(func=cmd_poems)

    k = sub.add_parser("kimariji", help="current kimariji of every unread poem")
    k.add_argument("--read", default="", metavar="N,N,...",
                   help="poems already read, e.g. --read 42,75")
    k.add_argument("--set", default="", metavar="N,N-M,...",
                   help="only these cards are in the reading, e.g. --set 1,5,22-30 (default all 100)")
    k.add_argument("--json", action="store_true", help="object: poem number → kimariji")
    _spelling_option(k)
    k.set_defaults(func=cmd_kimariji)


def _spelling_option(parser) -> None:
    parser.add_argument("--spelling", choices=["sound", "historical"], default="sound",
                        help="kimariji as read aloud (おうこ, the default) or in historical kana (あふこ)")


def poem_record(poem, spelling: str = "sound") -> dict:
    from poems.kimariji import spelled
    return {
        "no": poem.no,
        "poet": poem.poet,
        "kimariji": spelled(poem.no, poem.kimariji_len, spelling),
        "kimariji_sound": spelled(poem.no, poem.kimariji_len, "sound"),
        "kimariji_historical": poem.kimariji,
        "kimariji_len": poem.kimariji_len,
        "kami": list(poem.kami),
        "shimo": list(poem.shimo),
        "kami_kana": list(poem.kami_kana),
        "shimo_kana": list(poem.shimo_kana),
        "sound": {"kami": list(poem.kami_sound), "shimo": list(poem.shimo_sound)},
        "romaji": {"kami": list(poem.kami_romaji), "shimo": list(poem.shimo_romaji)},
    }


def cmd_poems(args) -> int:
    import poems
    if args.json:
        json.dump([poem_record(p, args.spelling) for p in poems.ALL], sys.stdout,
                  ensure_ascii=False, indent=1)
        print()
        return 0
    from poems.kimariji import spelled
    for p in poems.ALL:
        kimariji = spelled(p.no, p.kimariji_len, args.spelling)
        print(f"{p.no:3}  {kimariji:<6}\u3000{' '.join(p.kami_kana)}\u3000/\u3000{' '.join(p.shimo_kana)}")
    return 0


def parse_read(text: str, option: str = "--read", ranges: bool = False) -> list[int]:
    """Poem numbers separated by commas (or spaces); with `ranges`, also 22-30."""
    from poems.numbers import PoemListError, poem_list
    from trainer.errors import UsageError
    try:
        return poem_list(text, ranges=ranges)
    except PoemListError as exc:
        raise UsageError(f"{option}: {exc}") from None


def cmd_kimariji(args) -> int:
    import poems
    from trainer.errors import UsageError
    read = parse_read(args.read)
    in_play = parse_read(args.set, "--set", ranges=True) if args.set.strip() else None
    if in_play is not None and not set(in_play) - set(read):
        raise UsageError("--set: every card of the set has been read; nothing is left to decide")
    current = poems.kimariji.dynamic(read, in_play, args.spelling)
    if args.json:
        json.dump({str(no): k for no, k in sorted(current.items())}, sys.stdout, ensure_ascii=False)
        print()
        return 0
    for no, k in sorted(current.items()):
        static = poems.kimariji.spelled(no, poems.get(no).kimariji_len, args.spelling)
        change = f"  (was {static})" if k != static else ""
        print(f"{no:3}  {k}{change}")
    return 0
