"""CPU time of the player's audio callback per block: mean, p99 and max.

Two measurements for blocksizes 64, 256 and 1024:
  offline  - `Player.process` driven in a loop with fake time info over a whole
             reading (joka + 100 poems, tone voice), so every mark, event and
             segment change is crossed; no device needed;
  device   - the real PortAudio callback (`Player._callback`) timed inside a
             stream for --seconds, if a sound device is present (e.g. the
             PulseAudio null sink of tools/pulse-null-sink.sh); also counts underruns.

    /tmp/venv/bin/python bench/bench_callback.py [--seconds 10]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audio.fake_voice import ToneVoice  # noqa: E402
from audio.player import FINISHED, FakeTime, Player  # noqa: E402
from audio.programme import Programme, ReadingSettings  # noqa: E402
from audio.voice import RATE  # noqa: E402

BLOCKSIZES = (64, 256, 1024)


def report(label: str, blocksize: int, ns: np.ndarray, extra: str = "") -> None:
    us = ns / 1000
    budget = blocksize / RATE * 1e6
    print(f"{label:7s} block {blocksize:5d} ({budget:7.0f} us): n={len(us):7d}  "
          f"mean {us.mean():6.1f} us  p99 {np.percentile(us, 99):6.1f} us  max {us.max():7.1f} us  "
          f"(mean {100 * us.mean() / budget:.2f}% of the block){extra}")


def offline(programme: Programme, blocksize: int) -> np.ndarray:
    player = Player(backend="manual", blocksize=blocksize)
    player.load(programme)
    player.start()
    buf = np.zeros((blocksize, 1), dtype=np.float32)
    n_blocks = programme.total_samples // blocksize + 2
    ns = np.empty(n_blocks, dtype=np.int64)
    t = 100.0
    clock = time.perf_counter_ns
    for i in range(n_blocks):
        a = clock()
        player.process(buf, blocksize, FakeTime(t), None)
        ns[i] = clock() - a
        t += blocksize / RATE
        if i % 2000 == 0:
            player.poll_events()  # as the GUI would
    assert player.state == FINISHED
    return ns


class TimedPlayer(Player):
    """The real callback with its own duration written into a preallocated array."""

    def __init__(self, n: int, **kw):
        super().__init__(**kw)
        self.ns = np.zeros(n, dtype=np.int64)
        self.count = 0

    def _callback(self, outdata, frames, time_info, status) -> None:
        a = time.perf_counter_ns()
        super()._callback(outdata, frames, time_info, status)
        if self.count < len(self.ns):
            self.ns[self.count] = time.perf_counter_ns() - a
            self.count += 1


def on_device(programme: Programme, blocksize: int, seconds: float):
    player = TimedPlayer(int(seconds * RATE / blocksize) + 1000, blocksize=blocksize).open()
    try:
        if player.silent:
            return None, player.status_message
        time.sleep(0.5)
        player.load(programme)
        under = player.underflows
        player.start()
        time.sleep(seconds)
        ns = player.ns[: player.count].copy()
        return ns, (f"  underruns {player.underflows - under}, "
                    f"real-time thread {player.realtime}")
    finally:
        player.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="per blocksize on the device")
    args = ap.parse_args()
    programme = Programme.shuffled(ToneVoice(), 1, ReadingSettings())
    print(f"programme: joka + 100 cards, {programme.total_samples / RATE / 60:.1f} min, "
          f"{len(programme.segments)} segments, {len(programme.marks())} marks")
    for bs in BLOCKSIZES:
        report("offline", bs, offline(programme, bs))
    for bs in BLOCKSIZES:
        ns, extra = on_device(programme, bs, args.seconds)
        if ns is None:
            print(f"device: not measured ({extra})")
            break
        report("device", bs, ns[20:], extra)  # skip the stream's first callbacks
    return 0


if __name__ == "__main__":
    sys.exit(main())
