"""How long the floor widget holds the GUI thread: a repaint of 50 torifuda, and a hit test.

A press is stamped with time.perf_counter() when Qt delivers it; while a paint
runs, the press waits.  So the repaint time is an upper bound on how late a
touch can be stamped.  Offscreen, 1400 x 860 px, kimariji printed.

    /tmp/venv/bin/python bench/bench_ui_floor.py
"""
import os
import random
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import trainer.ui  # noqa: E402,F401  (PySide6 refcount workaround first)
from PySide6.QtGui import QPixmap  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> None:
    app = QApplication([])  # noqa: F841
    from trainer.rules.territory import Territory
    from trainer.ui.territory import Floor, TerritoryWidget
    deck = list(range(1, 101))
    random.Random(3).shuffle(deck)
    w = TerritoryWidget()
    w.resize(1400, 860)
    w.set_floor(Floor(own=Territory.arranged(deck[:25]), opp=Territory.arranged(deck[25:50])))
    w.show_kimariji = True
    pix = QPixmap(w.size())
    t = time.perf_counter()
    w.render(pix)
    first = (time.perf_counter() - t) * 1000
    paints = []
    for _ in range(50):
        t = time.perf_counter()
        w.render(pix)
        paints.append((time.perf_counter() - t) * 1000)
    hits = []
    centre = w.card_centre(deck[3])
    for _ in range(500):
        t = time.perf_counter()
        w.card_at(centre)
        hits.append((time.perf_counter() - t) * 1e6)
    paints.sort()
    print(f"first paint (draws and caches 50 cards): {first:.1f} ms")
    print(f"repaint: median {statistics.median(paints):.2f} ms, p95 {paints[int(0.95 * len(paints))]:.2f} ms, "
          f"max {paints[-1]:.2f} ms")
    print(f"hit test (card_at): median {statistics.median(hits):.0f} us")


if __name__ == "__main__":
    main()
