"""One conformance test over the registry (in the spirit of OpenSpiel's random_sim_test).

For every registered variant:

- random legal play to the end on the engine, invariants checked after every
  action; same seed and same choices -> the same log;
- `clone()` is independent: acting on a copy changes nothing in the original;
- hidden information: `view(seat)` does not change when only what that seat may
  not know is shuffled (other seats' face-down hands, the undealt and set-aside
  cards, the reading order ahead), and no event of `log_for(seat)` names a card
  another seat holds face-down (what is hidden is written here from the rules,
  not read from the engine's own redaction);
- every event kind and every refusal reason the game declares has a text in
  both languages, and every event met in play is worded in both;
- a refusal is the protocol's `IllegalAction` with a declared reason;
- the registry's session satisfies the `Session` protocol and `play_out` plays
  an all-CPU table to the end.

The checks are plain functions, so the last tests can hand them a deliberately
broken engine (a leaked card, an event without a text) and see them fail.
"""
from __future__ import annotations

import dataclasses
import importlib
import random
import re
from typing import Any, Callable, Iterator

import pytest

from audio.clock import FakeClock
from trainer.games import registry
from trainer.games.protocol import READER, GameEvent, IllegalAction, Session, play_out
from trainer.text.events import describe, language
from trainer.text.messages import LANGUAGES, MESSAGES

VARIANTS = registry.games()
IDS = [v.key for v in VARIANTS]
GAMES_PER_VARIANT = 6       # small: the large loops per engine live in each game's own slow tests
CLONE_PROBES = 8
LEAK_PROBES = 12


# --------------------------------------------------------------------------- what is hidden, per game
# Written from the rules pages (reference/seeds, docs/<game>.md), not from the engines' redact().

def _shuffle_pool(state: Any, owners: list[list], rng: random.Random) -> None:
    """Deal the cards of `owners` (lists of cards) again among them, each keeping its size."""
    pool = [c for cards in owners for c in cards]
    rng.shuffle(pool)
    for cards in owners:
        n = len(cards)
        cards[:], pool = pool[:n], pool[n:]


def _perturb_unsun(state: Any, seat: int, rng: random.Random) -> None:
    # other seats' hands and the two set-aside cards are face down to `seat`
    others = [state.hands[s] for s in range(state.players) if s != seat]
    _shuffle_pool(state, [*others, state.set_aside], rng)


def _perturb_yomi(state: Any, seat: int, rng: random.Random) -> None:
    undealt = [state.undealt] if state.undealt is not None else []
    others = [state.hands[s] for s in range(state.players) if s != seat]
    _shuffle_pool(state, [*others, undealt], rng)
    if undealt:
        state.undealt = undealt[0]


def _perturb_umebotan(state: Any, seat: int, rng: random.Random) -> None:
    others = [state.hands[s] for s in range(state.players) if s != seat]
    _shuffle_pool(state, [*others, state.draw_pile], rng)


def _perturb_kyogi(state: Any, seat: int, rng: random.Random) -> None:
    # the reader's stack: cards already read and the one being read are known, the rest is not
    start = len(state._read) + (state._current is not None)
    ahead = state._stack[start:]
    rng.shuffle(ahead)
    state._stack[start:] = ahead


def _perturb_mubeyama(state: Any, seat: int, rng: random.Random) -> None:
    ahead = state._order[state._cursor:]
    rng.shuffle(ahead)
    state._order[state._cursor:] = ahead
    state._seat_views.clear()
    state._logs_seen.clear()


def _perturb_bozu(state: Any, seat: int, rng: random.Random) -> None:
    for stack in state.stacks:       # the face-down stacks' order is hidden from everyone
        rng.shuffle(stack)


def _perturb_floor_race(state: Any, seat: int, rng: random.Random) -> None:
    # chirashi, sakasama, Genpei, relay: every torifuda lies face up; the reader's stack ahead is hidden
    start = len(state.read) + (state.reading_now() is not None)
    ahead = state._stack[start:]
    rng.shuffle(ahead)
    state._stack[start:] = ahead


PERTURB: dict[str, Callable[[Any, int, random.Random], None]] = {
    "unsun": _perturb_unsun, "yomi": _perturb_yomi, "yomi37": _perturb_yomi,
    "umebotan": _perturb_umebotan, "kyogi": _perturb_kyogi, "mubeyama": _perturb_mubeyama,
    "bozu": _perturb_bozu,
    **{game: _perturb_floor_race for game in ("chirashi", "sakasama", "genpei", "relay", "shimonoku")},
}


def _face_down_of_others(game: str, state: Any, seat: int) -> set:
    """Cards `seat` may not know now (to be looked for in its log)."""
    if game == "unsun":
        out = set(state.set_aside)
        for s in range(state.players):
            if s != seat:
                out |= state.secrets_of(s)
        return out
    if game in ("yomi", "yomi37"):
        out = {c for s in range(state.players) if s != seat for c in state.hands[s]}
        playing = state.phase in ("lead", "follow")   # the undealt card is shown when the round ends
        return out | ({state.undealt} if playing and state.undealt is not None else set())
    if game == "umebotan":    # (Lightning's reserved pair was seen on the field: public)
        out = {c for s in range(state.players) if s != seat for c in state.hands[s]}
        return out | set(state.draw_pile)
    if game == "mubeyama":    # a hidden card read aloud is public as a poem; whose it is, is not
        return {t.hidden for s, t in enumerate(state.tables)
                if s != seat and t.hidden is not None and not t.revealed and t.hidden not in state.read}
    if game == "bozu":        # every card still in a face-down stack
        return {c for stack in state.stacks for c in stack}
    return set()        # kyōgi: nothing face down; the reading order ahead is checked by perturbation


def _tells_a_secret(game: str, state: Any, event: GameEvent) -> str | None:
    """Hidden facts an event may give away without naming a card (None: it gives none)."""
    if game == "unsun" and event.kind == "unsun.no_robai" and state.trump is not None:
        from trainer.rules.unsun import ROBAI, Card
        if Card(state.trump, ROBAI) in state.set_aside:    # docs/unsun.md: set aside, seen by nobody
            return "that the trump's ロバイ lies among the set-aside cards"
    return None


# Fields of an event that name cards, for the games whose cards are plain ints (poem or hanafuda
# numbers), where any int would otherwise look like a card.
CARD_FIELDS = {"no", "card", "cards", "hand", "poem", "drawn", "taken", "hidden", "discard", "pair"}
INT_CARDS = {"umebotan", "mubeyama", "kyogi"}


def _values(x: Any) -> Iterator[Any]:
    """Every leaf value inside `x` (dataclasses, named tuples, containers)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            yield from _values(getattr(x, f.name))
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _values(k)
            yield from _values(v)
    elif isinstance(x, (list, tuple, set, frozenset)) and not hasattr(x, "_fields"):
        for v in x:
            yield from _values(v)
    elif hasattr(x, "_fields"):        # a NamedTuple card (MekuriCard ...) is a leaf and a container
        yield x
        for v in x:
            yield from _values(v)
    else:
        yield x


def _named_cards(game: str, event: GameEvent) -> Iterator[Any]:
    for name, value in event.fields().items():
        if game in INT_CARDS and name not in CARD_FIELDS:
            continue
        yield from _values(value)


# --------------------------------------------------------------------------- the engines behind the registry

def _session(variant: registry.Variant, seed: Any, seats: int | None = None) -> Any:
    n = variant.check_seats(seats)
    clock = FakeClock(1000.0)
    make = registry.resolve(variant.session)
    try:
        return make(variant, seed, ("cpu",) * n, {"clock": clock}), clock
    except TypeError:
        return make(variant, seed, ("cpu",) * n, {}), clock


def _reader(variant: registry.Variant, session: Any) -> Any:
    """What feeds a racing game its reading when no audio plays (the simulators' readers)."""
    if variant.game == "kyogi":
        from trainer.sim.kyogi_sim import ProgrammeReader, make_timing
        return ProgrammeReader(make_timing(), session.order)
    if variant.game in ("chirashi", "sakasama", "genpei", "relay", "shimonoku"):
        from trainer.games.chirashi_session import VerseReader
        return VerseReader(session.order, session.verse)
    if variant.game == "mubeyama":
        from trainer.games.mubeyama_session import SimulatedReader
        return SimulatedReader()
    return None


def _state(variant: registry.Variant, seed: Any) -> Any:
    session, _ = _session(variant, seed)
    return session.state


def _text_module(variant: registry.Variant) -> Any:
    assert variant.texts, f"{variant.key} names no text module"
    return importlib.import_module(variant.texts)


def random_play(state: Any, rng: random.Random, on_step: Callable[[Any, list], None] | None = None,
                limit: int = 200_000) -> list[GameEvent]:
    """Random legal actions (any actor, any legal action) to the end; invariants after each."""
    log: list[GameEvent] = []
    for _ in range(limit):
        if state.is_over():
            return log
        actors = state.actors()
        assert actors, "an unfinished game has somebody to act"
        actor = rng.choice(actors)
        legal = state.legal_actions(actor)
        if not legal:
            continue
        events = list(state.apply(rng.choice(legal)))
        assert events, "every action reports at least one event"
        state.check_invariants()
        log += events
        if on_step is not None:
            on_step(state, events)
    raise AssertionError(f"no end within {limit} random actions")


# --------------------------------------------------------------------------- the checks

def check_texts(variant: registry.Variant) -> None:
    """Every declared event kind and refusal reason is worded in both languages."""
    _text_module(variant)
    kinds = registry.resolve(variant.events)
    missing = [k for k in kinds if f"event.{k}" not in MESSAGES]
    assert not missing, f"{variant.key}: event kinds without a text: {missing}"
    reasons = registry.resolve(variant.refusals)
    assert reasons, f"{variant.key}: no refusal reasons declared"
    missing = [r for r in reasons if f"refusal.{r}" not in MESSAGES]
    assert not missing, f"{variant.key}: refusal reasons without a text: {missing}"
    for msg in [f"event.{k}" for k in kinds] + [f"refusal.{r}" for r in reasons]:
        ja, en = MESSAGES[msg]
        assert ja.strip() and en.strip(), f"{msg}: a text in each language"
        assert _reads_as_japanese(ja), f"{msg}: the Japanese text is not Japanese: {ja!r}"
        assert _placeholders(ja) == _placeholders(en), f"{msg}: the two languages fill different values"


def _placeholders(text: str) -> set[str]:
    return {name.split(":")[0].split("!")[0] for name in re.findall(r"\{([^{}]*)\}", text)}


def _reads_as_japanese(text: str) -> bool:
    """Kana or kanji, or nothing but placeholders, numbers and units (``{ms} ms``)."""
    bare = re.sub(r"\{[^}]*\}", "", text)
    if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", bare):
        return True
    return not (set(re.findall(r"[A-Za-z]+", bare)) - {"ms", "s"})


def check_events_worded(variant: registry.Variant, events: list[GameEvent]) -> None:
    """Every event met is declared and worded in both languages: by the game's log line
    (`log_line` of its text module), or from its own fields where the log leaves it out."""
    kinds = registry.resolve(variant.events)
    module = importlib.import_module(variant.texts or "")
    for event in events:
        assert event.kind in kinds, f"{variant.key}: event kind {event.kind!r} is not declared"
    for lang in LANGUAGES:
        with language(lang):
            for i, event in enumerate(events):
                line = module.log_line(event, None, tuple(events[:i]))
                if line is None:
                    line = describe(event)
                assert line.strip(), f"{event.kind}: empty text in {lang}"


def check_refusal(variant: registry.Variant, state: Any, rng: random.Random) -> None:
    """An action applied twice is refused, if at all, with a declared reason."""
    actors = [a for a in state.actors()]
    if not actors:
        return
    actor = rng.choice(actors)
    legal = state.legal_actions(actor)
    if not legal:
        return
    twin = state.clone()
    action = rng.choice(legal)
    twin.apply(action)
    try:
        twin.apply(action)
    except IllegalAction as exc:
        assert exc.reason in registry.resolve(variant.refusals), \
            f"{variant.key}: undeclared refusal reason {exc.reason!r}"
    except ValueError as exc:
        raise AssertionError(f"{variant.key}: refused with {type(exc).__name__}, not IllegalAction: {exc}") from exc


def check_clone(state: Any, rng: random.Random) -> None:
    """Acting on a copy leaves the original as it was."""
    seats = range(state.players)
    before = [state.view(s) for s in seats]
    twin = state.clone()
    for _ in range(3):
        if twin.is_over():
            break
        actor = rng.choice(twin.actors())
        legal = twin.legal_actions(actor)
        if legal:
            twin.apply(rng.choice(legal))
    assert [state.view(s) for s in seats] == before, "acting on a clone changed the original"
    state.check_invariants()


def check_views_hide(variant: registry.Variant, state: Any, rng: random.Random) -> None:
    """view(seat) is the same whatever `seat` may not know."""
    perturb = PERTURB[variant.game]
    for seat in range(state.players):
        twin = state.clone()
        perturb(twin, seat, rng)
        assert twin.view(seat) == state.view(seat), \
            f"{variant.key}: seat {seat}'s view changes with cards it may not see"


class LogWatch:
    """Reads each seat's log as it grows and checks every new entry against what that seat
    may not know *at that moment* (a card dealt to you in one deal may be another seat's
    in the next, so a finished game's log cannot be checked against its last state)."""

    def __init__(self, variant: registry.Variant, log_for: Callable[[int], list[GameEvent]], players: int):
        self.variant, self.log_for = variant, log_for
        self.seen = [0] * players
        self.told = 0

    def __call__(self, state: Any) -> None:
        for seat in range(len(self.seen)):
            log = self.log_for(seat)
            fresh, self.seen[seat] = log[self.seen[seat]:], len(log)
            self.told += len(fresh)
            secret = _face_down_of_others(self.variant.game, state, seat)
            for event in fresh:
                leaked = {c for c in _named_cards(self.variant.game, event) if c in secret}
                assert not leaked, f"{self.variant.key}: seat {seat} reads {event.kind} naming {leaked}"
                told = _tells_a_secret(self.variant.game, state, event)
                assert told is None, f"{self.variant.key}: seat {seat} reads {event.kind}, telling {told}"


def engine_log_for(state: Any, log: list[GameEvent]) -> Callable[[int], list[GameEvent]]:
    """`log_for` of a bare engine: its events through its own `redact`, when it has one."""
    redact = getattr(state, "redact", None)

    def log_for(seat: int) -> list[GameEvent]:
        seen = log if redact is None else (redact(e, seat) for e in log)
        return [e for e in seen if e is not None]
    return log_for


def run_conformance(variant: registry.Variant, game_no: int) -> list[GameEvent]:
    """One random game of `variant` with every check along the way; its log."""
    seed = f"conformance:{game_no}"
    state = _state(variant, seed)
    rng = random.Random(f"{variant.key}:{game_no}")
    probe = random.Random(f"probe:{variant.key}:{game_no}")
    told: list[GameEvent] = []
    watch = LogWatch(variant, engine_log_for(state, told), state.players)

    def on_step(st: Any, events: list) -> None:
        told.extend(events)
        watch(st)
        if probe.random() < 0.05:
            check_clone(st, probe)
            check_views_hide(variant, st, probe)
            check_refusal(variant, st, probe)

    log = random_play(state, rng, on_step)
    assert state.outcome() is not None, "a finished game has an outcome"
    check_events_worded(variant, log)
    return log


# --------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_every_event_kind_and_refusal_reason_has_both_texts(variant):
    check_texts(variant)


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_random_play_to_the_end_keeps_every_invariant(variant):
    for game_no in range(GAMES_PER_VARIANT):
        run_conformance(variant, game_no)


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_same_seed_same_choices_same_log(variant):
    a = run_conformance(variant, 99)
    b = run_conformance(variant, 99)
    assert [e.fields() | {"kind": e.kind} for e in a] == [e.fields() | {"kind": e.kind} for e in b]


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_the_registry_session_is_a_session_and_plays_out_hiding_what_it_must(variant):
    session, clock = _session(variant, "conformance:session")
    assert isinstance(session, Session), f"{variant.key}: its session does not follow the protocol"
    if hasattr(session, "set_pace"):
        session.set_pace(1.0)      # one move a tick, so each seat's log is read as it grows
    watch = LogWatch(variant, session.log_for, len(session.seats))
    play_out(session, clock, _reader(variant, session), on_step=lambda s: watch(s.state))
    assert session.is_over() and session.outcome() is not None
    assert watch.told > 0, "the seats were told something"


# --------------------------------------------------------------------------- the checks catch a broken engine

def _variant(game: str) -> registry.Variant:
    return registry.find(game)


def test_a_view_that_shows_another_seats_hand_fails_the_check(monkeypatch):
    from trainer.rules import unsun
    honest = unsun.UnsunState.view

    def leaky(self, seat):
        return dataclasses.replace(honest(self, seat), hand=tuple(self.hands[(seat + 1) % self.players]))

    monkeypatch.setattr(unsun.UnsunState, "view", leaky)
    with pytest.raises(AssertionError, match="view changes"):
        for game_no in range(GAMES_PER_VARIANT):
            run_conformance(_variant("unsun"), game_no)


def test_an_event_that_names_another_seats_card_fails_the_check(monkeypatch):
    variant = _variant("yomi")
    session, clock = _session(variant, "broken:log")
    while not any(e.kind == "yomi.hand" for e in session.log):
        session.tick()
        clock.set(max(clock.now(), session.next_due() or clock.now()))
    # a redaction that lets every hand dealt reach every seat
    monkeypatch.setattr(session.state, "redact", lambda event, seat: event, raising=False)
    watch = LogWatch(variant, session.log_for, len(session.seats))
    with pytest.raises(AssertionError, match="naming"):
        watch(session.state)


def test_telling_every_seat_that_nobody_holds_a_set_aside_robai_fails_the_check(monkeypatch):
    from trainer.rules import unsun
    honest = unsun.UnsunState.redact

    def chatty(self, event, seat):    # the defect of issue 20: unsun.no_robai reached every seat
        return event if event.kind == "unsun.no_robai" else honest(self, event, seat)

    monkeypatch.setattr(unsun.UnsunState, "redact", chatty)
    with pytest.raises(AssertionError, match="ロバイ lies among"):
        for game_no in range(200):
            run_conformance(_variant("unsun"), game_no)


def test_an_event_kind_without_a_text_fails_the_check(monkeypatch):
    variant = _variant("umebotan")

    @dataclasses.dataclass(frozen=True)
    class Untold(GameEvent):
        kind = "umebotan.untold"

    kinds = dict(registry.resolve(variant.events), **{"umebotan.untold": Untold})
    module, _, attr = variant.events.partition(":")
    monkeypatch.setattr(importlib.import_module(module), attr, kinds)
    with pytest.raises(AssertionError, match="without a text"):
        check_texts(variant)


def test_reader_pseudo_seat_is_not_a_seat():
    assert READER < 0
