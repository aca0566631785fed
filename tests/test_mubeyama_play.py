"""Mubeyama karuta played through: reading, hot-seat, scorekeeper mode, hidden
information, seeded all-CPU games replayed card by card by an independent referee,
and the `karuta simulate mubeyama` command."""
from __future__ import annotations

import copy
import dataclasses
import json
import random

import pytest

from poems.yaku import MUBEYAMA_CARD, SEED
from test_mubeyama_helpers import PLAIN, game, read_and_flip
from trainer.cli import main
from trainer.players.mubeyama_cpu import MubeyamaCpu, advance
from trainer.rules.mubeyama import (READER, RULESETS, AwaitFlip, AwaitPass, AwaitRead, Flip,
                                    Gambling4, Gambling5, IllegalAction, Izumoji,
                                    LayoutError, MubeyamaError, MubeyamaView, Okayama, Pass, Read,
                                    grid_lines, new_game)
from audio.clock import FakeClock
from trainer.games import protocol
from trainer.games.mubeyama_session import CPU, GameConfig, MubeyamaSession, SimulatedReader
from trainer.sim.mubeyama_sim import play_game, simulate

CONFIGS = [("okayama", 4), ("okayama", 6), ("izumoji", 5), ("izumoji", 6),
           ("gambling4", 4), ("gambling5", 5)]


# =========================================================================== reading

def test_reading_all_cards_in_random_seeded_order():
    orders = []
    for seed in range(40):
        g = new_game(Okayama(), 6, seed=seed)
        assert sorted(g._order) == list(range(1, 101))       # every yomifuda, once
        advance(g, {s: MubeyamaCpu(s) for s in range(6)})
        assert len(set(g.read)) == len(g.read) and g.read == g._order[:len(g.read)]
        orders.append(tuple(g.read))
    again = new_game(Okayama(), 6, seed=3)
    advance(again, {s: MubeyamaCpu(s) for s in range(6)})
    assert tuple(again.read) == orders[3]                     # seeded: reproducible
    assert len({o[0] for o in orders}) > 20                   # and random


def test_reader_waits_for_the_flip_before_reading_on():
    g = game(Izumoji(), 5, {2: [PLAIN[0]]})
    events = g.apply(Read(PLAIN[0]))
    assert [e.kind for e in events] == ["mubeyama.read"]
    assert g.pending == AwaitFlip(PLAIN[0], 2) and g.to_act() == 2
    assert g.legal_actions(READER) == [] and g.legal_actions(2) == [Flip(2, PLAIN[0])]
    with pytest.raises(IllegalAction, match="waiting for seat 2 to flip"):
        g.apply(Read(PLAIN[1]))
    with pytest.raises(IllegalAction):
        g.next_read()
    g.apply(Flip(2, PLAIN[0]))
    assert isinstance(g.pending, AwaitRead) and g.to_act() == READER


def test_reading_an_unused_card_needs_no_flip():
    g = game(Izumoji(), 6, unused=(22, 5, 4, 12))
    assert set(g.unused) == {22, 5, 4, 12}
    events = g.apply(Read(22))
    assert [e.kind for e in events] == ["mubeyama.read", "mubeyama.not_in_play"]
    assert isinstance(g.pending, AwaitRead) and g.passes == 0


def test_waiting_for_pass_names_giver_count_and_receiver():
    g = game(Izumoji(), 5, {4: [68, *PLAIN[:3]]})
    read_and_flip(g, 68)
    p = g.pending
    assert isinstance(p, AwaitPass) and (p.giver, p.count, p.to) == (4, 2, 0)
    assert g.view(1).pending == p and g.to_act() == 4
    with pytest.raises(IllegalAction, match="waiting for seat 4 to pass 2 face-up torifuda to seat 0"):
        g.apply(Read(PLAIN[5]))


def test_clone_is_independent_and_plays_on_identically():
    g = new_game(Izumoji(), 5, seed=21)
    cpus = {s: MubeyamaCpu(s, seed=21) for s in range(5)}
    for _ in range(30):
        g.apply(g.next_read())
        advance_reading(g, cpus)
    twin = g.clone()
    twin_cpus = copy.deepcopy(cpus)
    advance(g, cpus)
    assert not twin.is_over() and twin.reads() == 30
    advance(twin, twin_cpus)
    assert [str(e) for e in twin.log] == [str(e) for e in g.log]


def test_apply_refuses_what_is_not_an_action():
    g = new_game(Okayama(), 4, seed=1)
    with pytest.raises(MubeyamaError, match="not a Mubeyama action"):
        g.apply("read 5")


# =========================================================================== hidden information

def _cards_hidden_from(g, viewer):
    return {t.hidden for s, t in enumerate(g.tables)
            if t.hidden is not None and s != viewer and not t.revealed}


class _HiddenCheckedSession(MubeyamaSession):
    """An all-CPU gambling table that, after every step `protocol.play_out` takes (each CPU
    move, each report of the reader), checks what every seat is shown: `view(seat)` and
    `log_for(seat)` never name another seat's hidden card before it is read, nor, between
    readings, before it is shown, and while it waits to be shown only its owner's view
    says whose it is; the log and ledger are checked as they grow."""

    checked = 0

    def check_invariants(self) -> None:
        super().check_invariants()
        if self.__dict__.get("checked_at") == len(self.events):
            return                              # nothing happened (a kimariji heard): nothing new shown
        self.checked_at = len(self.events)
        g = self.state
        between = self.waits_for_reader() or self.is_over()
        seen = self.__dict__.setdefault("seen", {v: (0, 0) for v in (0, 1, 2, 3, None)})
        for viewer, (logged, paid) in seen.items():
            v, log = self.view(viewer), self.log_for(viewer)
            hidden = {t.hidden for s, t in enumerate(g.tables) if t.hidden is not None and s != viewer
                      and not t.revealed and (between or t.hidden not in g.read)}
            named = {s.no for t in v.tables for row in t.rows for s in row}
            named |= set(v.read) | {no for e in log[logged:] for no in e.cards()}
            named |= {p.no for p in v.ledger[paid:]}
            if between:
                named.add(getattr(v.pending, "no", None))
            p = v.pending                      # a read hidden card's owner is named to it alone
            assert not (isinstance(p, AwaitFlip) and p.seat != viewer and p.no == g.tables[p.seat].hidden)
            assert not hidden & named, (g.reads(), viewer, hidden)
            seen[viewer] = (len(log), len(v.ledger))
            for s, t in enumerate(v.tables):
                peak = t.rows[0][0]
                if g.tables[s].revealed or s == viewer:
                    assert peak.no == g.tables[s].hidden
                else:
                    assert peak.no is None and peak.hidden
            type(self).checked += 1


def _check_hidden_views(games, seed0):
    """Play all-CPU gambling games through the session and `protocol.play_out`; count the
    views checked (see `_HiddenCheckedSession`), and check the whole views once more at the end."""
    _HiddenCheckedSession.checked = 0
    for i in range(games):
        config = GameConfig("gambling4", seats=(CPU,) * 4, seed=f"{seed0}:{i}")
        session = _HiddenCheckedSession(config, clock=FakeClock())
        protocol.play_out(session, session.clock, SimulatedReader())
        g = session.state
        for viewer in (0, 1, 2, 3, None):
            hidden = {t.hidden for s, t in enumerate(g.tables) if s != viewer and not t.revealed}
            assert not hidden & g.view(viewer).cards_shown()
            assert not hidden & {no for e in session.log_for(viewer) for no in e.cards()}
    return _HiddenCheckedSession.checked


def advance_reading(g, cpus):
    while g.to_act() not in (READER, None):
        seat = g.to_act()
        g.apply(cpus[seat].choose(g.view(seat), g.legal_actions(seat)))


def test_gambling4_hidden_card_never_in_another_seats_view():
    assert _check_hidden_views(25, "hidden") > 25 * 5 * 70 * 2


@pytest.mark.slow
def test_gambling4_hidden_card_never_in_another_seats_view_thousands_of_games():
    """Mubeyama's one large hidden-card loop: 1,000 games check as many views as 2,000 did
    when views were checked once a reading."""
    assert _check_hidden_views(1000, "hidden-many") > 1000 * 5 * 70 * 2


def test_gambling4_views_do_not_change_when_other_seats_hidden_cards_are_swapped():
    base = [[PLAIN[0]], [PLAIN[1]], [PLAIN[2]], [PLAIN[3]]]
    a = game(Gambling4(), 4, dict(enumerate(base)), seed=9)
    b = game(Gambling4(), 4, {0: base[0], 1: base[2], 2: base[1], 3: base[3]}, seed=9)
    for t in a.tables + b.tables:
        assert t.hidden in PLAIN[:4]
    script = [no for no in random.Random(1).sample(range(1, 101), 100) if no not in PLAIN[1:3]]
    for no in script[:60]:
        for g in (a, b):
            if not g.is_over():
                read_and_flip(g, no)
        for viewer in (0, 3, None):
            assert a.view(viewer) == b.view(viewer)
    assert a.view(1) != b.view(1)


def test_reading_order_ahead_hidden_from_every_view():
    names = {f.name for f in dataclasses.fields(MubeyamaView)}
    assert names == {"ruleset", "players", "seat", "tables", "read", "unread", "pending",
                     "ledger", "log", "winners", "layout", "lines"}
    layouts = [list(range(1 + 25 * s, 26 + 25 * s)) for s in range(4)]
    a = new_game(Gambling4(), 4, seed=1, layouts=layouts)
    b = new_game(Gambling4(), 4, seed=2, layouts=layouts)
    assert a._order != b._order
    for no in (30, 31, 77):
        for g in (a, b):
            read_and_flip(g, no)
    for viewer in (0, 1, 2, 3, None):
        assert a.view(viewer) == b.view(viewer)
        assert isinstance(a.view(viewer).unread, int)


# =========================================================================== hot-seat and scorekeeper

def test_hot_seat_humans_and_cpu_seats_mixed():
    g = new_game(Izumoji(), 5, seed=11)
    cpus = {s: MubeyamaCpu(s, seed=11) for s in (0, 2, 4)}
    human_turns = 0
    while (seat := advance(g, cpus, check=True)) is not None:
        assert seat in (1, 3) and g.to_act() == seat
        for other in range(5):
            if other != seat:
                assert g.legal_actions(other) == []
        legal = g.legal_actions(seat)
        assert legal and all(a.seat == seat for a in legal)
        g.apply(legal[-1])  # the human clicks one of the legal cards
        g.check_invariants()
        human_turns += 1
    assert g.is_over() and human_turns > 0


def test_scorekeeper_mode_layouts_entered_and_flips_passes_marked_externally():
    layouts = [list(range(1 + 20 * s, 21 + 20 * s)) for s in range(5)]
    g = new_game(Izumoji(), 5, seed=4, layouts=layouts)
    assert [t.cards() for t in g.tables] == layouts
    # The app reads; the scorer marks seat 0's flip of #8 (hito) and the card it passed.
    read = g.next_read()
    assert read.no in range(1, 101)
    g2 = new_game(Izumoji(), 5, seed=4, layouts=layouts)
    g2.apply(Read(8))                       # a human reader with real yomifuda may also read
    g2.apply(Flip(0, 8))
    g2.apply(Pass(0, 3, 1))
    assert g2.where[3] == 1 and 3 in g2.tables[1].face_up
    g2.check_invariants()


def test_scorekeeper_gambling_layout_peak_first():
    layouts = [list(range(1 + 25 * s, 26 + 25 * s)) for s in range(4)]
    g = new_game(Gambling4(), 4, layouts=layouts)
    assert g.tables[2].hidden == 51 and g.tables[2].rows[1] == [52, 53, 54, 55]


@pytest.mark.parametrize("bad,message", [
    ([[1] * 20] * 5, "#1 is laid out twice"),
    ([list(range(1 + 20 * s, 20 + 20 * s)) for s in range(5)], "seat 0 needs 20 torifuda, got 19"),
    ([list(range(1 + 20 * s, 21 + 20 * s)) for s in range(4)], "5 players need 5 layouts, got 4"),
    ([[0, *range(2, 21)]] + [list(range(1 + 20 * s, 21 + 20 * s)) for s in range(1, 5)],
     "0 is not a poem number"),
])
def test_scorekeeper_bad_layout_is_refused_with_one_clear_line(bad, message):
    with pytest.raises(LayoutError, match=message) as info:
        new_game(Izumoji(), 5, layouts=bad)
    assert "\n" not in str(info.value)


# =========================================================================== referee: card by card

class Referee:
    """Replays a finished game's log against the rules, independently of the engine."""

    def __init__(self, g0):
        self.rules, self.n = g0.ruleset, g0.players
        self.rows = [copy.deepcopy(t.rows) for t in g0.tables]
        self.up = [set(t.face_up) for t in g0.tables]
        self.hidden = [t.hidden for t in g0.tables]
        self.where = dict(g0.where)
        self.balances = [0] * self.n
        self.ledger = []
        self.rows_logged = []
        self.yaku = getattr(self.rules, "yaku", SEED)

    def others(self, seat):
        return [(seat + k) % self.n for k in range(1, self.n)]

    def pay(self, payee, amount, reason, no):
        for payer in self.others(payee):
            if amount:
                self.ledger.append((payer, payee, amount, reason, no))
                self.balances[payer] -= amount
                self.balances[payee] += amount

    def check(self, g):
        events = [e for e in g.log if e.kind.removeprefix("mubeyama.") in (
            "read", "not_in_play", "flip", "reveal", "pass", "short", "win")]
        it = iter(events)
        over = False
        for ev in it:
            assert not over, f"events after the win: {ev}"
            assert ev.kind == "mubeyama.read"
            no = ev.no
            owner = self.where[no]
            ev = next(it)
            if owner is None:
                assert ev.kind == "mubeyama.not_in_play" and ev.no == no
                continue
            assert (ev.seat, ev.no) == (owner, no)
            if no == self.hidden[owner]:
                assert ev.kind == "mubeyama.reveal"
                self.pay(owner, self.rules.stakes.hidden_card, "hidden card read", no)
            else:
                assert ev.kind == "mubeyama.flip" and no in self.up[owner]
                self.up[owner].discard(no)
                if isinstance(self.rules, Izumoji):
                    self.check_passes(it, owner, no)
                if isinstance(self.rules, (Gambling4, Gambling5)):
                    self.gambling_payments(owner, no)
            winners = self.expected_winners(owner)
            if winners:
                for w in winners:
                    ev = next(it)
                    assert (ev.kind, ev.seat) == ("mubeyama.win", w)
                over = True
        assert over and g.is_over()
        assert [(p.payer, p.payee, p.amount, p.reason, p.no) for p in g.ledger] == self.ledger
        assert g.balances == self.balances
        assert [(e.seat, e.row) for e in g.log if e.kind == "mubeyama.row"] == self.rows_logged
        assert [t.face_up for t in g.tables] == self.up

    def check_passes(self, it, flipper, no):
        right = (flipper + 1) % self.n
        dues = [(flipper, right, self.yaku.pass_right(no))]
        dues += [(flipper, o, self.yaku.pass_each(no)) for o in self.others(flipper)]
        dues += [(o, flipper, self.yaku.receive_each(no)) for o in self.others(flipper)]
        for giver, to, owed in dues:
            if not owed:
                continue
            give = min(owed, len(self.up[giver]))
            if give < owed:
                ev = next(it)
                assert (ev.kind, ev.seat, ev.to) == ("mubeyama.short", giver, to)
            for _ in range(give):
                ev = next(it)
                assert (ev.kind, ev.seat, ev.to) == ("mubeyama.pass", giver, to)
                assert ev.no in self.up[giver], "only face-up torifuda may be passed"
                self.up[giver].discard(ev.no)
                self.up[to].add(ev.no)
                self.where[ev.no] = to
                for row in self.rows[giver]:
                    if ev.no in row:
                        row.remove(ev.no)
                self.rows[to][-1].append(ev.no)

    def gambling_payments(self, seat, no):
        st = self.rules.stakes
        if no in self.yaku.tsuki_yuki_hana:
            self.pay(seat, st.tsuki_yuki_hana, "tsuki/yuki/hana card", no)
        if no == MUBEYAMA_CARD:
            self.pay(seat, st.mubeyama, "mubeyama card", no)
        rows = self.rows[seat]
        first = 1 if self.hidden[seat] is not None else 0
        for k, r in enumerate(range(first, len(rows))):
            if no in rows[r] and not set(rows[r]) & self.up[seat]:
                number = k + (2 if isinstance(self.rules, Gambling4) else 1)
                self.rows_logged.append((seat, number))
                self.pay(seat, st.rows[k], f"completed row {number}", no)

    def expected_winners(self, flipper):
        if isinstance(self.rules, Okayama):
            grid = [no for row in self.rows[flipper] for no in row]
            side = Okayama.side(self.n)
            if any(all(grid[i] not in self.up[flipper] for i in line) for line in grid_lines(side)):
                return [flipper]
            return []
        if isinstance(self.rules, Izumoji):
            return [s for s in range(self.n) if not self.up[s]]
        if not self.up[flipper]:
            best = max(self.balances)
            return [s for s in range(self.n) if self.balances[s] == best]
        return []


def _deal_matches_seed(g, ruleset, players, seed):
    deck = list(range(1, 101))
    random.Random(f"mubeyama-deal:{seed}").shuffle(deck)
    n = ruleset.cards_per_seat(players)
    for s, t in enumerate(g.tables):
        assert t.cards() == deck[s * n:(s + 1) * n]
        assert [len(r) for r in t.rows] == list(ruleset.row_sizes(players))
    assert sorted(g.unused) == sorted(deck[players * n:])


@pytest.mark.parametrize("name,players", CONFIGS)
def test_seeded_games_checked_card_by_card(name, players):
    ruleset = RULESETS[name]()
    for i in range(60):
        seed = f"card-by-card:{i}"
        start = new_game(ruleset, players, seed)
        _deal_matches_seed(start, ruleset, players, seed)
        referee = Referee(start)
        g = play_game(ruleset, players, seed, check="action")
        referee.check(g)


def test_seeded_games_are_reproducible():
    for name, players in CONFIGS:
        a = play_game(RULESETS[name](), players, "same")
        b = play_game(RULESETS[name](), players, "same")
        assert [str(e) for e in a.log] == [str(e) for e in b.log]


# =========================================================================== many all-CPU games

@pytest.mark.parametrize("name,players", CONFIGS)
def test_all_cpu_games_keep_invariants(name, players):
    totals = simulate(name, players, 150, seed=77, check="reading")
    assert totals.games == 150
    assert sum(totals.wins_by_seat) >= 150
    if name.startswith("gambling"):
        assert totals.payments > 0 and sum(totals.balance_by_seat) == 0
    if name == "izumoji":
        assert totals.passes > 0


# =========================================================================== the command

def test_simulate_mubeyama_text(capsys):
    assert main(["simulate", "mubeyama", "--ruleset", "gambling4", "--games", "20",
                 "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "20 all-CPU games, 4 players, seed 3" in out
    assert "hidden card read" in out and "wins by seat" in out and "invariants" in out


def test_simulate_mubeyama_json(capsys):
    assert main(["simulate", "mubeyama", "--ruleset", "izumoji", "--players", "6",
                 "--games", "15", "--seed", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["games"] == 15 and d["players"] == 6 and len(d["wins_by_seat"]) == 6
    assert d["passes"]["total"] > 0 and d["reads"]["min"] <= d["reads"]["mean"] <= d["reads"]["max"]
    again = main(["simulate", "mubeyama", "--ruleset", "izumoji", "--players", "6",
                  "--games", "15", "--seed", "2", "--json"])
    assert again == 0 and json.loads(capsys.readouterr().out) == d


@pytest.mark.parametrize("ruleset,players", [("okayama", 5), ("izumoji", 4), ("gambling4", 5),
                                             ("gambling5", 4)])
def test_simulate_mubeyama_wrong_player_count_is_a_usage_error(capsys, ruleset, players):
    code = main(["simulate", "mubeyama", "--ruleset", ruleset, "--players", str(players)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"--ruleset {ruleset} is played by" in err and f"not {players}" in err


def test_simulate_mubeyama_needs_at_least_one_game(capsys):
    assert main(["simulate", "mubeyama", "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
