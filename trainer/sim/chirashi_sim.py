"""`karuta simulate chirashi|sakasama|genpei|relay`: all-CPU floor races through the app's session.

Each game is `trainer.games.chirashi_session.ChirashiSession` with every seat a
CPU, on a `FakeClock`, read by `VerseReader` (the nominal reading: 200 ms a mora)
and played to its end by `trainer.games.protocol.play_out`, the engine's
invariants checked after every step. ``--levels a,b,c`` seats different levels
(one per seat); the summary counts cards taken per seat and per level, so the
levels can be compared (a stronger level takes more cards).
"""
from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from audio.clock import FakeClock
from trainer.games.chirashi_session import CPU, ChirashiSession, VerseReader, new_session
from trainer.games.protocol import play_out
from trainer.players.karuta_cpu import LEVELS
from trainer.rules.chirashi import OTETSUKI_RULES


def add_cli_options(parser) -> None:
    parser.add_argument("--level", default=None, metavar="LEVEL",
                        help=f"every CPU's level: {', '.join(LEVELS)} (default club)")
    parser.add_argument("--levels", default=None, metavar="L1,L2,...",
                        help="one level per seat, separated by commas")
    parser.add_argument("--otetsuki", choices=OTETSUKI_RULES, default=None,
                        help="chirashi/sakasama: a fault sits out the next card (rest, default) or costs nothing")
    parser.add_argument("--teppa-sender", dest="teppa_sender", choices=("most", "facing"), default=None,
                        help="shimonoku --variant nanae: a teppa card comes from the opponent holding the most "
                             "(default) or the one facing the teppa")
    parser.add_argument("--chonchon", choices=("all", "teppa"), default=None,
                        help="shimonoku --variant nanae: when both teams teppa nothing moves (all, default) "
                             "or only the teppa cards cancel")
    parser.add_argument("--balance", choices=("minimums", "even"), default=None,
                        help="shimonoku --variant nanae: the 5/3/1 minimums (default) or even holdings")



NANAE_OPTIONS = ("teppa_sender", "chonchon", "balance")


def game_seed(seed: int, k: int) -> int:
    return seed * 1_000_003 + k


def _session_options(options: dict[str, Any], players: int) -> dict[str, Any]:
    out = {k: v for k, v in options.items() if v is not None and k in ("otetsuki", "clock") + NANAE_OPTIONS}
    levels = options.get("levels")
    if levels:
        parts = [p.strip() for p in str(levels).split(",")]
        if len(parts) != players:
            raise ValueError(f"--levels names {len(parts)} levels for {players} players")
        out["cpu_level"] = ",".join(parts)
    else:
        out["cpu_level"] = options.get("level") or "club"
    for name in str(out["cpu_level"]).split(","):
        if name.strip() not in LEVELS:
            raise ValueError(f"unknown CPU level {name.strip()!r}; levels: {', '.join(LEVELS)}")
    return out


def play_one(variant, seed: int, players: int, options: dict, check: bool = True) -> ChirashiSession:
    """Game 0 of a run (for `karuta simulate ... --log`)."""
    return _play(variant, game_seed(seed, 0), players, _session_options(options, players), check)


def _play(variant, seed: int, players: int, opts: dict, check: bool) -> ChirashiSession:
    clock = FakeClock(0.0)
    session = new_session(variant, seed, (CPU,) * players, {**opts, "clock": clock})
    play_out(session, clock, VerseReader(session.order, session.verse), check=check)
    return session


def simulate_variant(variant, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict[str, Any]:
    opts = _session_options(options, players)
    given = [k for k in NANAE_OPTIONS if opts.get(k) is not None]
    if given and not dict(getattr(variant, "options", {}) or {}).get("nanae"):
        raise ValueError(f"--{given[0].replace('_', '-')} is a rule of shimonoku --variant nanae")
    levels = str(opts["cpu_level"]).split(",")
    levels = levels if len(levels) == players else levels * players
    wins = [0.0] * players
    team_wins = [0.0, 0.0]                 # Genpei, relay, shimonoku: Genji / team 0, Heiji / team 1
    taken = [0] * players
    faults = [0] * players
    reactions: list[list[int]] = [[] for _ in range(players)]
    events: Counter[str] = Counter()
    reads, unclaimed, sent = [], 0, 0
    for k in range(games):
        s = _play(variant, game_seed(seed, k), players, opts, check)
        out = s.outcome()
        assert out is not None
        for w in out.winners:
            wins[w] += 1 / len(out.winners)
        state = s.state
        if state.options.teams or state.options.game == "shimonoku":
            teams = {state.team(w) for w in out.winners}
            for t in teams:
                team_wins[t] += 1 / len(teams)
        reads.append(len(state.read))
        unclaimed += len(state.unclaimed)
        sent += state.sent
        for p in range(players):
            taken[p] += len(state.taken[p])
            faults[p] += state.faults[p]
        for e in s.log:
            events[e.kind] += 1
            if e.kind == "chirashi.take":
                reactions[e.seat].append(e.reaction_ms)  # type: ignore[attr-defined]
    by_level: dict[str, list[float]] = {}
    for p, lv in enumerate(levels):
        by_level.setdefault(lv.strip(), []).append(taken[p] / games)
    return {
        "game": variant.game, "variant": variant.variant, "games": games, "seed": seed, "players": players,
        "levels": [lv.strip() for lv in levels],
        "wins_by_seat": [round(w, 2) for w in wins],
        "wins_by_team": [round(w, 2) for w in team_wins] if any(team_wins) else None,
        "cards_taken_per_game": [round(t / games, 2) for t in taken],
        "cards_taken_per_game_by_level": {lv: round(statistics.fmean(v), 2) for lv, v in by_level.items()},
        "faults_per_game": [round(f / games, 2) for f in faults],
        "median_take_ms": [round(statistics.median(r)) if r else None for r in reactions],
        "reads_per_game": round(statistics.fmean(reads), 2),
        "unclaimed_per_game": round(unclaimed / games, 2),
        "cards_sent_per_game": round(sent / games, 2),
        "events": dict(sorted(events.items())),
        "invariants": "checked after every step" if check else "not checked",
    }


def format_report(d: dict) -> str:
    lines = [f"{d['game']} {d['variant']}: {d['games']} all-CPU games, {d['players']} players, seed {d['seed']}",
             "levels: " + ", ".join(d["levels"]),
             "wins by seat (a shared win split): " + "  ".join(f"{s}: {w}" for s, w in enumerate(d["wins_by_seat"])),
             *([f"wins by team: {d['wins_by_team'][0]} / {d['wins_by_team'][1]}"] if d["wins_by_team"] else []),
             "cards taken per game: " + "  ".join(f"{s}: {t}" for s, t in enumerate(d["cards_taken_per_game"])),
             "by level: " + "  ".join(f"{lv}: {t}" for lv, t in d["cards_taken_per_game_by_level"].items()),
             "faults per game: " + "  ".join(f"{s}: {t}" for s, t in enumerate(d["faults_per_game"])),
             "median take (ms from the kimariji): " + "  ".join(
                 f"{s}: {t}" for s, t in enumerate(d["median_take_ms"])),
             f"reads per game {d['reads_per_game']}, unclaimed {d['unclaimed_per_game']}, "
             f"cards sent {d['cards_sent_per_game']}",
             f"invariants: {d['invariants']}"]
    return "\n".join(lines)
