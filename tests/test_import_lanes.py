"""The import's lanes (issue 23, import speed): poems analysed in a worker process come out
exactly as those analysed in this one, stored the same way, and no process is left behind."""
from __future__ import annotations

import multiprocessing
import pickle
import sys
from pathlib import Path

import numpy as np
import soundfile as sf

sys.path.insert(0, str(Path(__file__).parent))
from fixtures_audio import RATE, poem_reading  # noqa: E402

import audio.importer as importer  # noqa: E402


def _folder(tmp_path: Path, count: int) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for no in range(1, count + 1):
        sf.write(str(src / f"{no:03d}.flac"), poem_reading(no, seed=no).samples, RATE)
    return src


def _marks(report) -> dict:
    return {p.no: (p.kami.marks, p.shimo.marks, p.kimariji_mark_s, p.uncertain, p.warnings) for p in report.poems}


def test_poems_from_a_worker_process_equal_those_from_this_one(tmp_path, monkeypatch):
    src = _folder(tmp_path, 4)
    here = importer.import_readings(src, "here", workers=1)
    sent = []
    real = importer._Remote.work

    def counted(self, job, *args):
        sent.append(job.no)
        return real(self, job, *args)
    monkeypatch.setattr(importer, "REMOTE_FROM_JOBS", 2)
    monkeypatch.setattr(importer._Remote, "work", counted)
    progress = []
    both = importer.import_readings(src, "both", workers=2, progress=lambda d, t: progress.append((d, t)))
    assert sent, "the second lane sent no poem to its worker process"
    assert _marks(both) == _marks(here)
    assert [p.no for p in both.poems] == [1, 2, 3, 4] and not both.failed
    assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]
    for p, q in zip(both.poems, here.poems):
        assert np.array_equal(p.kami.samples, q.kami.samples) and np.array_equal(p.shimo.samples, q.shimo.samples)
    stored = sorted(f.name.split("_")[0] + f.name.split("_")[1] for f in Path(both.voice_dir).glob("*.flac"))
    assert stored == sorted(f"{part}{no:03d}" for no in range(1, 5) for part in ("kami", "shimo"))
    assert multiprocessing.active_children() == []


def test_a_lane_whose_worker_process_fails_goes_on_here(tmp_path, monkeypatch):
    src = _folder(tmp_path, 3)

    class Broken:
        def submit(self, *a, **kw):
            raise OSError("no process")

        def shutdown(self, **kw):
            pass
    monkeypatch.setattr(importer, "REMOTE_FROM_JOBS", 2)
    monkeypatch.setattr(importer._Remote, "start", classmethod(lambda cls, n: cls(Broken())))
    report = importer.import_readings(src, "broken", workers=2)
    assert [p.no for p in report.poems] == [1, 2, 3] and not report.failed


def test_a_released_poem_travels_without_its_samples(tmp_path):
    src = _folder(tmp_path, 1)
    (poem,) = importer.import_readings(src, "one", keep_clips=False).poems
    assert poem.samples_released
    back = pickle.loads(pickle.dumps(poem))
    assert len(pickle.dumps(poem)) < 20_000
    assert len(back.kami.samples) == len(poem.kami.samples) and back.kami.marks == poem.kami.marks
    assert back.summary() == poem.summary()


def test_an_interrupted_import_takes_no_more_poems(tmp_path, monkeypatch):
    """Ctrl-C (here: progress raising) while poems are analysed: the lanes finish the poems
    in hand and take no more; the voice can be imported into again at once."""
    src = _folder(tmp_path, 5)
    done = []
    real = importer._work

    def counted(job, *args, **kw):
        done.append(job.no)
        return real(job, *args, **kw)

    def interrupt(d, t):
        raise KeyboardInterrupt
    monkeypatch.setattr(importer, "_work", counted)
    try:
        importer.import_readings(src, "stopped", workers=1, progress=interrupt)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the interruption was swallowed")
    assert len(done) <= 2, done
    assert [p.no for p in importer.import_readings(src, "stopped", workers=1).poems] == [1, 2, 3, 4, 5]
