"""`karuta simulate kyogi`: CPU against CPU at full speed, with the reading's timing, no sound.

Each game is the very session the Match panel plays (`trainer.games.kyogi_session`),
with both seats CPU, on a `FakeClock`, played to its end by the protocol's one
loop (`trainer.games.protocol.play_out`): the session deals with the seed, both
CPUs arrange their 25, and `ProgrammeReader` (a `Reader`) plays the part of the
reading driver, feeding the same inputs at the same moments: at each
kami-no-ku's start `kami_started` gets the read's marks (kami_start, every
mora's onset, kami_end) from the timeline below, at the card's end
`card_finished` starts the ma; between them the loop jumps the clock to the
session's `next_due()` (a CPU hand landing, the race's close) and `tick()`
judges. The engine's invariants are checked after every step. The aggregate
goes to stdout.

Timing. With `audio.programme` importable, every game's timeline is laid out
by `Programme.build` with the tone voice (`audio.fake_voice.ToneVoice`) at a
nominal 200 ms per mora (180 ms sound + 20 ms gap, 150 ms between phrases,
900 ms yoin), the default 1 s pause and 1 s ma: the same arithmetic a real
session uses, with nominal clip durations. Otherwise `NominalTiming` lays out
the same shape by arithmetic. The kimariji mark of a read is the onset of the
mora that completes its *current* kimariji (dynamic, over the unread poems,
karafuda included, since every yomifuda is read); that is the moment a
player can know the card, so reactions are measured from it.
"""
from __future__ import annotations

import functools
import statistics
from collections import Counter
from dataclasses import dataclass

import poems
from audio.clock import FakeClock
from poems.kimariji import current
from trainer.games.kyogi_session import ARRANGE, CPU, MEMORISE, OVER, KyogiSession, mark_names
from trainer.games.protocol import GameEvent, play_out
from trainer.players.karuta_cpu import Heard, KarutaCPU, level
from trainer.rules.kyogi import SEATS, FaultKind, KyogiState

MORA_S = 0.18          # nominal sound of one mora; with the tone voice's 20 ms gap, 200 ms a mora
MORA_MS, GAP_MS, PHRASE_GAP_MS, YOIN_MS, MA_MS = 200, 20, 150, 900, 1000
# audio.programme.ReadingSettings' defaults, the measured reader's (issue 25): the pause
# between kami- and shimo-no-ku and the joka's gap before its shimo-no-ku is read again.
# tests/test_karuta_cpu.py keeps this arithmetic equal to the real programme's.
PAUSE_MS, JOKA_GAP_MS = 660, 800


class ProgrammeTiming:
    """Mora onsets of every read from `audio.programme` with a nominal tone voice."""

    def __init__(self):
        from audio.fake_voice import ToneVoice
        from audio.programme import Programme
        self._voice = ToneVoice(mora_s=MORA_S)
        self._build = Programme.build
        self._programme = None

    def start(self, order: list[int]) -> None:
        self._programme = self._build(self._voice, order)

    def onsets(self, index: int, poem) -> list[int]:
        """Onset (ms) of every kami-no-ku mora of the `index`-th read."""
        p = self._programme
        return [p.mark_sample(index, f"kami:mora:{k}") * 1000 // p.rate
                for k in range(len(poem.kami_morae()))]

    def marks(self, index: int, poem) -> dict[str, float]:
        """The read's marks (seconds from the programme's start) as the reading driver
        reports them, and ``card_end``: the shimo-no-ku's end, when the ma begins."""
        p = self._programme
        out = {name: p.mark_sample(index, name) / p.rate for name in mark_names(poem.no)}
        out["card_end"] = p.mark_sample(index, "shimo_end") / p.rate
        return out


class NominalTiming:
    """The same layout by arithmetic: joka (kami, pause, shimo, pause, shimo), then per card
    ma, kami-no-ku, pause, shimo-no-ku held (yoin)."""

    def start(self, order: list[int]) -> None:
        joka = poems.JOKA
        t = _part_ms(joka.kami_phrase_morae()) + PAUSE_MS
        t += 2 * (_part_ms([poems.morae(p) for p in joka.shimo_sound]) + YOIN_MS) + JOKA_GAP_MS
        self._starts = []
        for no in order:
            t += MA_MS
            self._starts.append(t)
            t += _part_ms(_kami_phrases(no)) + PAUSE_MS + _part_ms(_shimo_phrases(no)) + YOIN_MS

    def onsets(self, index: int, poem) -> list[int]:
        out, t = [], self._starts[index]
        for i, phrase in enumerate(_kami_phrases(poem.no)):
            if i:
                t += PHRASE_GAP_MS
            for _ in phrase:
                out.append(t)
                t += MORA_MS
        return out

    def marks(self, index: int, poem) -> dict[str, float]:
        onsets = self.onsets(index, poem)
        start = self._starts[index]
        kami_end = start + _part_ms(_kami_phrases(poem.no))
        out = {"kami_start": start / 1000, "kami_end": kami_end / 1000}
        out.update({f"kami:mora:{k}": t / 1000 for k, t in enumerate(onsets)})
        out["card_end"] = (kami_end + PAUSE_MS + _part_ms(_shimo_phrases(poem.no)) + YOIN_MS) / 1000
        return out


def _part_ms(phrases) -> int:
    """A part sounds from its first mora's onset to its last mora's end (no gap after it)."""
    return sum(len(p) for p in phrases) * MORA_MS - GAP_MS + (len(phrases) - 1) * PHRASE_GAP_MS


@functools.lru_cache(maxsize=None)
def _kami_phrases(no: int) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p) for p in poems.get(no).kami_phrase_morae())


@functools.lru_cache(maxsize=None)
def _shimo_phrases(no: int) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(poems.morae(p)) for p in poems.get(no).shimo_sound)


def make_timing():
    try:
        return ProgrammeTiming()
    except ImportError:
        return NominalTiming()


def heard_for(timing, index: int, poem_no: int, read: tuple[int, ...]) -> Heard:
    """What the players hear of the `index`-th read, and its (dynamic) kimariji mark."""
    import poems
    poem = poems.get(poem_no)
    morae = poem.kami_morae()
    onsets = timing.onsets(index, poem)
    mark = onsets[current(poem_no, read).mora]
    return Heard(tuple(morae), tuple(onsets), mark)


# -- one game ---------------------------------------------------------------------------------

@dataclass
class GameResult:
    state: KyogiState
    cpus: tuple[KarutaCPU, KarutaCPU]
    session: KyogiSession


def new_game(seed: int, levels: tuple[str, str], clock=None) -> KyogiSession:
    """The session of one CPU-vs-CPU game (the same deal, layouts and reading order the
    Match panel gives a person against the `levels[1]` CPU with this seed)."""
    return KyogiSession(seed, seats=(CPU, CPU), clock=clock or FakeClock(0.0), cpu_level=levels)


def play_game(seed: int, levels: tuple[str, str], timing=None, check=True) -> GameResult:
    """One CPU-vs-CPU game through the session, invariants checked after every step when `check`."""
    clock = FakeClock(0.0)
    session = play_session(new_game(seed, levels, clock), clock, timing, check)
    cpus = (session.cpus[0], session.cpus[1])
    return GameResult(session.state, cpus, session)  # type: ignore[arg-type]


def play_session(session: KyogiSession, clock: FakeClock, timing=None, check=True) -> KyogiSession:
    """Play an all-CPU `session` (on `clock`) to its end as the reading driver would feed it."""
    play_out(session, clock, ProgrammeReader(timing or make_timing(), session.order), check=check)
    assert session.phase == OVER, "the reading ended with the match undecided"
    return session


class ProgrammeReader:
    """The reading as the programme lays it out, for `play_out` (the protocol's `Reader`):
    the match begins as the reading does (once any memorisation period is over), then each
    card's kami-no-ku starts (with its marks) and ends (the ma begins); after the last card,
    the stack has run out. Programme times count from the match's start (`session.epoch`),
    as the reading driver's do."""

    def __init__(self, timing, order: list[int]):
        timing.start(order)          # the reader's programme follows the reader's stack
        self.order = order
        self.marks = functools.cache(lambda i: timing.marks(i, poems.get(order[i])))
        self.index = 0
        self.kami_next = True        # the next report: a kami-no-ku starts (else the card ends)
        self.done = False

    def next_time(self, session: KyogiSession) -> float | None:
        if self.done or session.is_over():
            return None
        if session.phase == ARRANGE:                 # the reading starts: the match begins
            return session.clock.now()
        if session.phase == MEMORISE:                # after the memorisation period
            left = session.memorise_left()
            return session.clock.now() + (left or 0.0)
        if self.index >= len(self.order):            # the stack ran out: say so at once
            return session.clock.now()
        return session.epoch + self.marks(self.index)["kami_start" if self.kami_next else "card_end"]

    def feed(self, session: KyogiSession) -> list[GameEvent]:
        if session.phase in (ARRANGE, MEMORISE):
            return session.begin()   # the programme's zero is the match's
        if self.index >= len(self.order):
            self.done = True
            return session.reading_finished()
        poem, marks = self.order[self.index], self.marks(self.index)
        if self.kami_next:
            self.kami_next = False
            return session.kami_started(poem, {k: session.epoch + t for k, t in marks.items()})
        self.kami_next = True
        self.index += 1
        return session.card_finished(poem)


# -- many games -----------------------------------------------------------------------------------

def game_seed(seed: int, k: int) -> int:
    return seed * 1_000_003 + k


def simulate(games: int, seed: int, levels: tuple[str, str], check: bool = True) -> dict:
    timing = make_timing()
    wins = [0, 0]
    takes = {"own": [0, 0], "opponent": [0, 0]}
    faults: list[Counter[str]] = [Counter(), Counter()]
    reactions: list[list[int]] = [[], []]
    take_reactions: list[list[int]] = [[], []]
    reads, margins = [], []
    unclaimed = simultaneous = cancelled = karafuda_reads = 0
    for k in range(games):
        state = play_game(game_seed(seed, k), levels, timing, check).state
        wins[state.winner()] += 1  # type: ignore[index]
        reads.append(len(state.read))
        margins.append(max(state.scores()))
        for o in state.outcomes:
            karafuda_reads += o.karafuda
            unclaimed += o.unclaimed
            simultaneous += o.simultaneous
            cancelled += o.cancelled
            if o.taker is not None:
                takes["own" if o.taker == o.owner else "opponent"][o.taker] += 1
                take_reactions[o.taker].append(o.reaction_ms[o.taker])  # type: ignore[arg-type]
            for s in SEATS:
                if o.reaction_ms[s] is not None:
                    reactions[s].append(o.reaction_ms[s])  # type: ignore[arg-type]
            for f in o.faults:
                faults[f.seat][f.kind.value] += 1
    kinds = [k.value for k in FaultKind]
    return {
        "games": games, "seed": seed,
        "levels": list(levels),
        "timing": type(timing).__name__,
        "wins": wins,
        "takes_own_side": takes["own"], "takes_opponent_side": takes["opponent"],
        "faults": [{k: faults[s][k] for k in kinds} for s in SEATS],
        "faults_per_game": [round(sum(faults[s].values()) / games, 3) for s in SEATS],
        "mean_reaction_ms": [_mean(reactions[s]) for s in SEATS],
        "mean_take_reaction_ms": [_mean(take_reactions[s]) for s in SEATS],
        "cards_read_per_game": {"mean": _mean(reads, 2), "min": min(reads), "max": max(reads)},
        "karafuda_reads": karafuda_reads, "unclaimed": unclaimed,
        "simultaneous_takes": simultaneous, "cancelled_penalties": cancelled,
        "mean_cards_left_of_loser": _mean(margins, 2),
        "invariants_checked": check,
    }


def _mean(xs, digits: int = 1):
    return round(statistics.fmean(xs), digits) if xs else None


def _levels(text: str) -> tuple[str, str]:
    from trainer.errors import UsageError
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 1:
        parts *= 2
    if len(parts) != 2 or not all(parts):
        raise UsageError(f"--cpu-level takes two levels separated by a comma, not {text!r}")
    try:
        return level(parts[0]).name, level(parts[1]).name
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# -- the registry's entry points (`karuta simulate kyogi`) ---------------------------------------

def add_cli_options(parser) -> None:
    # The one spelling of `karuta simulate` (trainer.sim.card_sim.add_level_options): --level, one
    # level for both seats or one per seat; --cpu-level is the old spelling. No --against here:
    # --league plays every level against every other with the seats alternated.
    parser.add_argument("--level", "--cpu-level", dest="cpu_level", default=None,
                        metavar="LEVEL[,LEVEL]",
                        help="CPU level of both seats, or one per seat separated by a comma "
                             "(--cpu-level is the old spelling): beginner, novice, club, strong, "
                             "a-class, meijin (or e, d, c, b, a, top); default club; --levels describes them")
    parser.add_argument("--levels", action="store_true", help="list the CPU levels and exit")
    parser.add_argument("--league", action="store_true",
                        help="play every level against every other level and print the win table "
                             f"(--games per pair of levels, seats alternated; default {LEAGUE_GAMES})")
    parser.set_defaults(games=None)    # the league's default differs: see before_simulate


def before_simulate(args) -> int | None:
    from trainer.errors import UsageError
    if args.league or args.levels:   # options the league or the list would silently ignore
        ignored = [name for name, given in (("--players", args.players is not None),
                                            ("--level", args.cpu_level is not None),
                                            ("--variant", args.variant is not None)) if given]
        if ignored:
            what = "--league plays every level against every other" if args.league else \
                "--levels lists the levels"
            raise UsageError(f"simulate kyogi: {what}; it takes no {', '.join(ignored)}")
    if args.cpu_level is None:   # None until here: a level given beside --league is refused above
        args.cpu_level = "club,club"
    if args.games is None:
        args.games = LEAGUE_GAMES if args.league else SIMULATE_GAMES
    if args.league:
        return _league_command(args)
    if not args.levels:
        return None
    from trainer.players.karuta_cpu import LEVELS
    for lv in LEVELS.values():
        print(f"{lv.name:9} {lv.label:32} reaction ≈ {lv.mu:.0f} ms ± {lv.sigma:.0f} "
              f"(+{lv.tau:.0f} ms tail, form ± {lv.form_ms:.0f} ms a game), knows {lv.knows:.0%} "
              f"of the cards, anticipates {lv.anticipate:.0%} of one-in-two reads")
    print("Level against level: karuta simulate kyogi --league. Sources and caveats: docs/cpu-levels.md")
    return 0


# -- the league: every level against every other ---------------------------------------------

SIMULATE_GAMES = 100     # `karuta simulate kyogi` games by default
LEAGUE_GAMES = 40        # games per pair of levels in `--league` by default (under a minute)


def league(games: int, seed: int, check: bool = True, levels: list[str] | None = None) -> dict:
    """Every level against every other, `games` games per pair of levels, seats alternated
    (game k of a pair: the weaker-listed level at seat 0 when k is even). Game k of every
    pair deals with the same seed (`game_seed(seed, k)`), so the pairs meet the same deals.

    ``wins[a][b]`` is the fraction of their games level a won against level b (so
    ``wins[a][b] + wins[b][a] == 1``); a level does not play itself.
    """
    from trainer.players.karuta_cpu import LEVELS
    names = list(levels or LEVELS)
    timing = make_timing()
    wins: dict[str, dict[str, float]] = {a: {} for a in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            won = 0
            for k in range(games):
                seats = (a, b) if k % 2 == 0 else (b, a)
                winner = play_game(game_seed(seed, k), seats, timing, check).state.winner()
                won += seats[winner] == a  # type: ignore[index]
            wins[a][b] = round(won / games, 4)
            wins[b][a] = round((games - won) / games, 4)
    return {"levels": names, "wins": wins, "games": games, "seed": seed,
            "per": "pair of levels, seats alternated", "timing": type(timing).__name__,
            "invariants_checked": check}


def format_league(r: dict) -> str:
    """The win table: row level's share of its games against the column level."""
    names = r["levels"]
    width = max(9, *(len(n) for n in names))
    lines = [f"kyogi league: {r['games']} games per pair of levels (seats alternated), seed {r['seed']}; "
             "row's share of wins against column",
             " " * width + "".join(f"{n:>{width + 1}}" for n in names)]
    for a in names:
        cells = ("—" if a == b else f"{r['wins'][a][b]:.2f}" for b in names)
        lines.append(f"{a:<{width}}" + "".join(f"{c:>{width + 1}}" for c in cells))
    # One decimal: with 40 games a pair a share is a multiple of 2.5 %, and a
    # whole-percent rounding disagreed with the table's two decimals (0.17 / 18 %).
    upsets = [f"{a} beat {b} {r['wins'][a][b]:.1%}" for a, b in zip(names, names[1:])]
    lines.append("neighbouring upsets: " + ", ".join(upsets))
    return "\n".join(lines)


def _league_command(args) -> int:
    import json
    import sys
    from trainer.errors import UsageError
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    result = league(args.games, args.seed)
    if args.json:
        json.dump(result, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        print(format_league(result))
    return 0


def simulate_variant(variant, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict:
    return simulate(games, seed, _levels(options.get("cpu_level", "club,club")), check)


def format_report(r: dict) -> str:
    a, b = r["levels"]
    lines = [
        f"kyogi: {r['games']} games, seed {r['seed']}, seat 0 = {a}, seat 1 = {b} "
        f"(timing: {r['timing']}, invariants checked after every step)",
        f"  wins                      {r['wins'][0]:>8} {r['wins'][1]:>8}",
        f"  takes from own side       {r['takes_own_side'][0]:>8} {r['takes_own_side'][1]:>8}",
        f"  takes from opponent side  {r['takes_opponent_side'][0]:>8} {r['takes_opponent_side'][1]:>8}",
    ]
    for kind in r["faults"][0]:
        lines.append(f"  faults: {kind:<17} {r['faults'][0][kind]:>8} {r['faults'][1][kind]:>8}")
    lines += [
        f"  faults per game           {r['faults_per_game'][0]:>8} {r['faults_per_game'][1]:>8}",
        f"  mean reaction (ms)        {_fmt(r['mean_reaction_ms'][0]):>8} {_fmt(r['mean_reaction_ms'][1]):>8}"
        "   first touch of the read card - kimariji mark",
        f"  mean reaction, takes (ms) {_fmt(r['mean_take_reaction_ms'][0]):>8} "
        f"{_fmt(r['mean_take_reaction_ms'][1]):>8}",
        f"  cards read per game       mean {r['cards_read_per_game']['mean']}, "
        f"min {r['cards_read_per_game']['min']}, max {r['cards_read_per_game']['max']}",
        f"  karafuda reads {r['karafuda_reads']}, unclaimed {r['unclaimed']}, "
        f"simultaneous {r['simultaneous_takes']}, cancelled penalties {r['cancelled_penalties']}, "
        f"loser's cards left (mean) {r['mean_cards_left_of_loser']}",
    ]
    return "\n".join(lines)


def _fmt(x) -> str:
    return "-" if x is None else str(x)
