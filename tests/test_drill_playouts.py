"""Drills played to the end with random players over many seeds; invariants checked."""
from __future__ import annotations

import random

from trainer.drills.common import DrillError, listening_key
from trainer.drills.kami_to_torifuda import KamiToTorifuda
from trainer.drills.listening_reflex import ListeningReflex
from trainer.drills.positional import PositionalMemory


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_listening_reflex_random_players():
    for seed in range(300):
        rng = random.Random(seed)
        clock = FakeClock()
        size = rng.randint(4, 12)
        drill = ListeningReflex(range(1, 101), clock=clock, seed=seed, territory_size=size,
                                karafuda=rng.randint(0, 12))
        taken, wrong_touches = [], set()
        while drill.next_reading() is not None:
            drill.reading_started(clock.t + rng.uniform(0.5, 2.0))
            for _ in range(rng.randint(0, 3)):
                if not drill.field:
                    break
                clock.t += rng.uniform(0.0, 0.8)
                card = rng.choice(drill.field)
                out = drill.touch(card)
                if out.took:
                    taken.append(card)
                elif out.fault:
                    wrong_touches.add((len(drill.results), card))
            drill.reading_over()
            clock.t += 3.0
        s = drill.summary()
        assert drill.is_over()
        assert len(taken) == len(set(taken)) == s.taken                    # taken once each
        assert sorted(taken + drill.field) == sorted(drill.territory)       # cards conserved
        assert s.faults == len(wrong_touches)                               # each touch once
        assert s.readings == len(drill.results)
        for r in drill.results:
            assert r.correct == (r.fault is None and (r.card in drill.karafuda or
                                                      r.reaction_ms is not None))


def test_positional_random_players():
    for seed in range(300):
        rng = random.Random(seed)
        clock = FakeClock()
        n = rng.randint(1, 15)
        drill = PositionalMemory(range(1, 101), clock=clock, seed=seed, n_cards=n,
                                 memorise_s=rng.uniform(0, 30), rows=rng.randint(1, 3),
                                 karafuda=rng.randint(0, 5))
        original = dict(drill.layout)
        assert len(set(original.values())) == n
        drill.start()
        clock.t += 31
        while (reading := drill.next_reading()) is not None:
            drill.reading_started(clock.t)
            before = len(drill.layout)
            if rng.random() < 0.3:
                drill.reading_over()
            else:
                drill.touch(rng.choice(list(drill.layout)))
            assert len(drill.layout) == before - (not reading.karafuda)
        assert drill.layout == {}
        field = [r for r in drill.results if r.card in original.values()]
        assert sorted(r.card for r in field) == sorted(original.values())
        assert all(r.correct == (r.fault is None and r.answer is not None) for r in field)


def test_kami_to_torifuda_choices_over_many_seeds():
    for seed in range(200):
        rng = random.Random(seed)
        cards = rng.sample(range(1, 101), rng.randint(1, 20))
        k = rng.randint(2, 12)
        drill = KamiToTorifuda(cards, clock=FakeClock(), seed=seed, n_choices=k)
        asked = []
        while (rnd := drill.next_round()) is not None:
            asked.append(rnd.card)
            assert len(rnd.choices) == len(set(rnd.choices)) == k and rnd.card in rnd.choices
            # a card sharing the read card's first sound is shown whenever one exists
            first = listening_key(rnd.card)[0]
            rivals = [c for c in range(1, 101) if c != rnd.card and listening_key(c)[0] == first]
            if rivals:
                assert set(rivals) & set(rnd.choices)
            drill.reading_started(0.0)
            try:
                drill.touch(rng.choice(rnd.choices))
            except DrillError as err:
                raise AssertionError("a choice on show could not be touched") from err
        assert sorted(asked) == sorted(cards)
