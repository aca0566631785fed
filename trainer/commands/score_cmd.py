"""`karuta score umebotan FILE [--json]`: the Ume Botan score calculator, also for real cards.

FILE is JSON::

    {"players": 3 | 4, "round": R, "doubled": true | false,
     "piles": [[card, ...], ...]}

one pile per player in seat order; a card is the number of its picture on the
reference pages (month × 10 + k: 10 Pine crane, 11 Pine poetry ribbon, 12 and
13 Pine chaff, ..., 110 Rain Man, 111 Swallow, 112 Willow ribbon, 113
Lightning, 120 Phoenix). Optional keys: ``"cards_of_month"`` (default true:
the round's month counts as the yaku Cards of the Month) and
``"spring_exclusive"`` (default false). Bad input: one line on stderr, exit 2.
"""
from __future__ import annotations

import json
import sys
from typing import Any

MAX_ROUND_BYTES = 2**20   # 48 cards in piles: a round is well under 1 kB


def register(sub) -> None:
    p = sub.add_parser("score", help="score a finished round of a card game (Ume Botan)")
    games = p.add_subparsers(dest="game", metavar="GAME", required=True)
    u = games.add_parser(
        "umebotan", help="Ume Botan: score piles given as card numbers (month x 10 + k)",
        description='FILE: {"players": 3|4, "round": R, "doubled": true|false, '
                    '"piles": [[card, ...], ...]}, one pile per player in seat order; a card is '
                    "month x 10 + k as on the reference pages (10 Pine crane ... 113 Lightning, "
                    "120 Phoenix).")
    u.add_argument("file", metavar="FILE", help="the round as JSON")
    u.add_argument("--json", action="store_true", help='print {"scores": [...], "yaku": [[...], ...]}')
    u.set_defaults(func=cmd_umebotan)


def read_round(path: str) -> dict[str, Any]:
    """The file's round, checked; ValueError with one line for the user."""
    from trainer.safe_files import read_text_regular
    try:   # a round is a few hundred bytes; a FIFO answers at once instead of blocking
        text = read_text_regular(path, limit=MAX_ROUND_BYTES)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror or exc.__class__.__name__})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.__class__.__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a round: its JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object with players, round, doubled and piles")
    players = data.get("players")
    if players not in (3, 4) or isinstance(players, bool):
        raise ValueError(f"{path}: players must be 3 or 4, not {players!r}")
    rnd = data.get("round")
    if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
        raise ValueError(f"{path}: round must be a round number from 1, not {rnd!r}")
    for key in ("doubled", "cards_of_month", "spring_exclusive"):
        if key in data and not isinstance(data[key], bool):
            raise ValueError(f"{path}: {key} must be true or false, not {data[key]!r}")
    piles = data.get("piles")
    if not isinstance(piles, list) or not all(isinstance(p, list) for p in piles):
        raise ValueError(f"{path}: piles must be a list of lists of card numbers")
    if len(piles) != players:
        raise ValueError(f"{path}: {players} players need {players} piles, not {len(piles)}")
    from trainer.rules.umebotan_score import PileError, check_partition
    try:
        check_partition(piles)
    except PileError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return data


def cmd_umebotan(args) -> int:
    from trainer.errors import UsageError
    from trainer.rules.umebotan_score import score_round
    try:
        data = read_round(args.file)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    result = score_round(data["piles"], doubled=data.get("doubled", False),
                         round_no=data["round"] if data.get("cards_of_month", True) else None,
                         spring_exclusive=data.get("spring_exclusive", False))
    names = [[y.name for y in ys] for ys in result.yaku]
    if args.json:
        json.dump({"scores": list(result.scores), "yaku": names}, sys.stdout, ensure_ascii=False)
        print()
        return 0
    mult = " (doubled)" if result.multiplier == 2 else ""
    print(f"Ume Botan, round {data['round']}, {data['players']} players{mult}"
          + ("; Dandruff cancels every other score and yaku" if result.dandruff else ""))
    for i, score in enumerate(result.scores):
        yaku = ", ".join(f"{y.name} {y.value}" for y in result.yaku[i]) or "no yaku"
        print(f"player {i + 1}: {score:+d}  (cards {result.card_points[i]}; {yaku})")
    return 0
