"""A statistics store the tests damage on purpose (shared by the drills and statistics UI tests)."""
from __future__ import annotations

import os

from trainer.stats.store import StatsStore, Trial, default_path


def damaged_store() -> StatsStore:
    """Our own database in the data folder, with two b-tree pages scribbled over."""
    path = default_path()
    with StatsStore.open(path) as s:
        s.record_many(Trial("match", 1 + i % 100, True, at=1_700_000_000.0 + i)
                      for i in range(200))
        s.query("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[4096 * 2: 4096 * 4] = os.urandom(8192)
    path.write_bytes(bytes(data))
    return StatsStore.open(path)
