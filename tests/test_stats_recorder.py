"""A drill run written through SessionRecorder: trials, session, FSRS reviews."""
from __future__ import annotations

from fsrs import Rating

from trainer.drills.fuda_nagashi import FudaNagashi
from trainer.drills.listening_reflex import ListeningReflex
from trainer.stats.aggregates import recent_runs
from trainer.stats.recorder import SessionRecorder
from trainer.stats.srs import Memorisation
from trainer.stats.store import StatsStore


class FakeClock:
    def __init__(self):
        self.t = 50.0

    def __call__(self):
        return self.t


def test_fuda_nagashi_run_is_recorded_and_scheduled(tmp_path):
    clock = FakeClock()
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        mem = Memorisation(store, now=lambda: 1_750_000_000.0, fuzz=False)
        rec = SessionRecorder(store, "fuda_nagashi", settings={"set": "length:1"},
                              memorisation=mem)
        drill = FudaNagashi([87, 18, 57], clock=clock, seed=0)
        reviews = []
        while (p := drill.show_next()) is not None:
            clock.t += 1.0 if p.card != 57 else 5.0
            reviews.append(rec.add(drill.pick(p.card if p.card != 18 else 87)))
        assert len(rec.trial_ids) == 3 and store.count() == 3
        by_card = {r.card: r.rating for r in reviews}
        assert by_card == {87: Rating.Easy, 18: Rating.Again, 57: Rating.Hard}
        (run,) = recent_runs(store, "fuda_nagashi")
        assert (run.n, run.n_correct) == (3, 2) and run.mean_ms == drill.summary().mean_ms
        assert mem.new() == [c for c in range(1, 101) if c not in (18, 57, 87)]


def test_reflex_results_do_not_touch_the_schedule(tmp_path):
    clock = FakeClock()
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        mem = Memorisation(store, fuzz=False)
        rec = SessionRecorder(store, "listening_reflex", voice="synth", memorisation=mem)
        drill = ListeningReflex(range(1, 101), clock=clock, seed=1, territory_size=4)
        while (r := drill.next_reading()) is not None:
            drill.reading_started(clock.t)
            if not r.karafuda:
                clock.t += 0.3
                drill.touch(r.card)
            assert rec.add(drill.reading_over()) is None
        assert store.count() == len(drill.results)
        assert len(mem.new()) == 100
        assert {v for (v,) in store.query("SELECT DISTINCT voice FROM trials")} == {"synth"}
