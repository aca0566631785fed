"""`karuta simulate mubeyama`: all-CPU Mubeyama games, headless, with invariants checked.

Every game is a `trainer.games.mubeyama_session.MubeyamaSession` (the object
the app's table plays) with every seat a CPU, on a `FakeClock`, played to the end
by the one `trainer.games.protocol.play_out` with the session's `SimulatedReader`
standing in for the sound: the same seed deals and reads the same cards here and
in the app. Game *i* of a run with
``--seed S`` is dealt and read from seed ``"S:i"``, so any game of a run can be
replayed alone with `play_game`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from audio.clock import FakeClock
from poems.yaku import SEED
from trainer.games import protocol
from trainer.games.mubeyama_session import CPU, GameConfig, MubeyamaSession, SimulatedReader
from trainer.rules.mubeyama import (DEFAULT_PLAYERS, RULESETS, VARIANTS, MubeyamaState, Ruleset,
                                    VariantSpec)


@dataclass
class SimTotals:
    """Aggregates over a run of games."""

    ruleset: str
    players: int
    seed: int
    games: int = 0
    wins_by_seat: list[int] = field(default_factory=list)
    shared_wins: int = 0
    reads: list[int] = field(default_factory=list)
    passes: int = 0
    shortfalls: int = 0
    payments: int = 0
    mon_moved: int = 0
    payments_by_reason: Counter = field(default_factory=Counter)
    balance_by_seat: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.wins_by_seat = [0] * self.players
        self.balance_by_seat = [0] * self.players

    def add(self, state: MubeyamaState) -> None:
        self.games += 1
        winners = state.winners()
        for w in winners:
            self.wins_by_seat[w] += 1
        self.shared_wins += len(winners) > 1
        self.reads.append(state.reads())
        self.passes += state.passes
        self.shortfalls += state.shortfalls
        self.payments += len(state.ledger)
        for p in state.ledger:
            self.mon_moved += p.amount
            self.payments_by_reason[p.reason] += 1
        for s, m in enumerate(state.balances):
            self.balance_by_seat[s] += m

    def as_dict(self) -> dict:
        n = max(self.games, 1)
        return {
            "ruleset": self.ruleset, "players": self.players, "seed": self.seed,
            "games": self.games,
            "wins_by_seat": self.wins_by_seat,
            "shared_wins": self.shared_wins,
            "reads": {"mean": round(sum(self.reads) / n, 2), "min": min(self.reads, default=0),
                      "max": max(self.reads, default=0)},
            "passes": {"total": self.passes, "per_game": round(self.passes / n, 2),
                       "short": self.shortfalls},
            "payments": {"total": self.payments, "per_game": round(self.payments / n, 2),
                         "mon_per_game": round(self.mon_moved / n, 1),
                         "by_reason": dict(sorted(self.payments_by_reason.items())),
                         "mean_balance_by_seat": [round(b / n, 1) for b in self.balance_by_seat]},
            "invariants": "held",
        }


def session_for(spec: VariantSpec, seed: int | str, ruleset: Ruleset | None = None) -> MubeyamaSession:
    """An all-CPU table of *spec* dealt and read from *seed*, on a fake clock."""
    config = GameConfig(variant=spec.id, seats=(CPU,) * spec.players, seed=seed,
                        yaku=getattr(ruleset, "yaku", SEED))  # Okayama has no yaku
    return MubeyamaSession(config, clock=FakeClock(), ruleset=ruleset)


def variant_of(ruleset: Ruleset, players: int) -> VariantSpec:
    """The variant a ruleset object and player count play (the hidden card as the ruleset says)."""
    hidden = ruleset.has_hidden(players)
    for spec in VARIANTS.values():
        if spec.ruleset == ruleset.name and spec.players == players and spec.hidden_card == hidden:
            return spec
    ruleset.check_players(players)   # raises the one-line LayoutError
    raise ValueError(f"no Mubeyama variant plays {ruleset.name} with {players} players")


def play_out(session: MubeyamaSession, check: str = "reading") -> MubeyamaState:
    """Play an all-CPU *session* to the end through `protocol.play_out`.

    *check*: "action" or "reading" run the invariants after every step of the
    loop (every CPU move and every report of the reader), "end" only at the end.
    """
    assert isinstance(session.clock, FakeClock), "the simulator jumps a FakeClock"
    protocol.play_out(session, session.clock, SimulatedReader(), check=check != "end")
    session.check_invariants()
    return session.state


def play_game(ruleset: Ruleset, players: int, seed: int | str, check: str = "reading") -> MubeyamaState:
    """One all-CPU game to the end, through the app's session (*check*: see `play_out`)."""
    return play_out(session_for(variant_of(ruleset, players), seed, ruleset), check)


def simulate(ruleset_name: str, players: int, games: int, seed: int,
             check: str = "reading") -> SimTotals:
    ruleset = RULESETS[ruleset_name]()
    totals = SimTotals(ruleset_name, players, seed)
    for i in range(games):
        totals.add(play_game(ruleset, players, f"{seed}:{i}", check))
    return totals


# -- the registry's entry points (`karuta simulate mubeyama`) ------------------------------------

def add_cli_options(parser) -> None:
    parser.add_argument("--ruleset", choices=list(RULESETS), default=None,
                        help="pick the variant by ruleset (with --players); default okayama")


def check_options(args, variant, players) -> None:
    """`--ruleset` must agree with a `--variant` given beside it."""
    spec = VARIANTS[variant.variant]
    if args.ruleset is not None and args.ruleset != spec.ruleset:
        raise ValueError(f"simulate mubeyama: --variant {variant.variant} is the {spec.ruleset} "
                         f"ruleset, not --ruleset {args.ruleset}; give one of the two")


def choose_variant(args, variants):
    """`--ruleset R [--players N]` names a variant; a player count R is not played by is refused."""
    ruleset = args.ruleset or "okayama"
    players = args.players if args.players is not None else DEFAULT_PLAYERS[ruleset]
    for v in variants:
        spec = VARIANTS[v.variant]
        if spec.ruleset == ruleset and spec.players == players:
            return v
    counts = " or ".join(str(n) for n in RULESETS[ruleset].player_counts)
    raise ValueError(f"mubeyama --ruleset {ruleset} is played by {counts} players, not {players}")


def simulate_variant(variant, *, games: int, seed: int, players: int, options: dict,
                     check: bool = True) -> dict:
    """The registry's entry: *games* all-CPU sessions of *variant*, summed up as JSON-ready data."""
    spec = VARIANTS[variant.variant]
    totals = SimTotals(spec.ruleset, spec.players, seed)
    for i in range(games):
        totals.add(play_out(session_for(spec, f"{seed}:{i}"), "reading" if check else "end"))
    return totals.as_dict()


def format_totals(d: dict) -> str:
    title = RULESETS[d["ruleset"]].title
    lines = [f"Mubeyama karuta, {title}: {d['games']} all-CPU games, "
             f"{d['players']} players, seed {d['seed']}"]
    wins = "  ".join(f"seat {s}: {w}" for s, w in enumerate(d["wins_by_seat"]))
    lines.append(f"  wins by seat      {wins}   (shared wins: {d['shared_wins']})")
    r = d["reads"]
    lines.append(f"  game length       {r['mean']} readings on average (min {r['min']}, max {r['max']})")
    p = d["passes"]
    if p["total"]:
        lines.append(f"  passes            {p['total']} ({p['per_game']} per game; "
                     f"{p['short']} forgiven for want of face-up torifuda)")
    pay = d["payments"]
    if pay["total"]:
        lines.append(f"  payments          {pay['total']} ({pay['per_game']} per game, "
                     f"{pay['mon_per_game']} Mon per game)")
        for reason, count in pay["by_reason"].items():
            lines.append(f"    {reason:<22} {count}")
        mean = "  ".join(f"seat {s}: {m:+}" for s, m in enumerate(pay["mean_balance_by_seat"]))
        lines.append(f"  mean Mon by seat  {mean}")
    lines.append("  invariants        held after every reading (cards conserved, Mon sums to zero)")
    return "\n".join(lines)
