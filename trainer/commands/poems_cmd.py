"""`karuta poems` and `karuta kimariji`: the card database on the command line (no Qt)."""
from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("poems", help="list the 100 poems with their kimariji")
    p.add_argument("--json", action="store_true", help="machine-readable list")
    p.set_defaults(func=cmd_poems)

    k = sub.add_parser("kimariji", help="current kimariji of every unread poem")
    k.add_argument("--read", default="", metavar="N,N,...",
                   help="poems already read, e.g. --read 42,75")
    k.add_argument("--json", action="store_true", help="object: poem number → kimariji")
    k.set_defaults(func=cmd_kimariji)


def poem_record(poem) -> dict:
    return {
        "no": poem.no,
        "poet": poem.poet,
        "kimariji": poem.kimariji,
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
        json.dump([poem_record(p) for p in poems.ALL], sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    for p in poems.ALL:
        print(f"{p.no:3}  {p.kimariji:<6}\u3000{' '.join(p.kami_kana)}\u3000/\u3000{' '.join(p.shimo_kana)}")
    return 0


def parse_read(text: str) -> list[int]:
    from poems import check_no
    from trainer.cli import UsageError
    nos = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        try:
            nos.append(check_no(item))
        except ValueError as exc:
            raise UsageError(f"--read: {exc}") from None
    return nos


def cmd_kimariji(args) -> int:
    import poems
    read = parse_read(args.read)
    current = poems.kimariji.dynamic(read)
    if args.json:
        json.dump({str(no): k for no, k in sorted(current.items())}, sys.stdout, ensure_ascii=False)
        print()
        return 0
    for no, k in sorted(current.items()):
        static = poems.get(no).kimariji
        change = f"  (was {static})" if k != static else ""
        print(f"{no:3}  {k}{change}")
    return 0
