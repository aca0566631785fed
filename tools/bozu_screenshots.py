"""Screenshots of the bōzu-mekuri table for docs/screenshots and review.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python tools/bozu_screenshots.py OUT_DIR [WxH ...]

Plays a 5-seat game through the real panel (the person clicks nothing: their
draws are sent as a click would send them, the CPU seats at once) to mid-game,
with a pot on the table, and grabs the panel in both languages:
OUT_DIR/bozu-<lang>-<W>x<H>.png.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

import trainer.ui  # noqa: F401  (PySide6 workaround first)
from audio.clock import FakeClock
from trainer.ui.i18n import LANG


def play(app: QApplication, panel, draws: int) -> None:
    s = panel.session
    for _ in range(draws):
        for _ in range(5000):
            if s.is_over() or s.waiting_for():
                break
            app.processEvents()
        if s.is_over():
            return
        s.act(panel.me, s.legal(panel.me)[0])
        panel.game._changed()
    for _ in range(200):
        app.processEvents()


def main(argv: list[str]) -> int:
    from trainer.ui.bozu_panel import BozuPanel
    out = Path(argv[0] if argv else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    sizes = [tuple(int(x) for x in s.split("x")) for s in argv[1:]] or [(1600, 1000), (1024, 700)]
    app = QApplication.instance() or QApplication([])
    for lang in ("en", "ja"):
        LANG.set(lang)
        for w, h in sizes:
            panel = BozuPanel(None, None, clock=FakeClock(), cpu_delay_s=0)
            panel.resize(w, h)
            panel.show()
            panel.players.setValue(5)
            panel.start_game(seed=34)
            play(app, panel, 9)
            path = out / f"bozu-{lang}-{w}x{h}.png"
            panel.grab().save(str(path))
            print(path)
            panel.shutdown()
            panel.deleteLater()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
