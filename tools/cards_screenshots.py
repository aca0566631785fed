"""Screenshots of the Yomi and Ume Botan tables (the shared table shell) for docs/screenshots and review.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python tools/cards_screenshots.py OUT_DIR [WxH ...]

Plays each game through the real panel (the person's moves chosen by a CPU of
the game, the CPU seats at once) into its second round, so the score sheet has a
row and the table is mid-round, and grabs the panel in both languages:
OUT_DIR/<game>-<lang>-<W>x<H>.png. The README's pictures are the English 1600x1000 ones.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

import trainer.ui  # noqa: F401  (PySide6 workaround first)
from audio.clock import FakeClock
from trainer.ui.i18n import LANG


def settle(app: QApplication, panel, turns: int) -> None:
    """Let the CPUs play and the person act (as a CPU would) until the first round is
    scored, then *turns* times more: mid-round, with a row on the score sheet."""
    s = panel.session
    while not s.is_over() and panel.shell.scores.rowCount() == 0:
        _person_acts(app, panel)
    for _ in range(turns):
        _person_acts(app, panel)


def _person_acts(app: QApplication, panel) -> None:
    """Wait for the person's turn (the CPUs play on the event loop), act, wait again."""
    s = panel.session
    _until_person(app, s)
    if not s.is_over():
        s.act(panel.me, panel.stand_in.choose(s.view(panel.me), s.legal(panel.me)))
        panel.game._changed()
        _until_person(app, s)


def _until_person(app: QApplication, s) -> None:
    for _ in range(5000):
        if s.is_over() or s.waiting_for():
            return
        app.processEvents()


def yomi(size: tuple[int, int]):
    from trainer.ui.yomi_panel import YomiPanel
    panel = YomiPanel(None, None, clock=FakeClock(), cpu_delay_s=0)
    panel.resize(*size)
    panel.show()
    panel.variant.setCurrentIndex(panel.variant.findData("yomi/wild"))
    panel.rounds.setValue(3)
    panel.start_game(seed=12)
    from trainer.players.yomi_cpu import YomiCpu
    panel.stand_in = YomiCpu(panel.me, "chain")
    return panel, 3


def umebotan(size: tuple[int, int]):
    from trainer.ui.umebotan_panel import UmebotanPanel
    panel = UmebotanPanel(None, None, clock=FakeClock(), cpu_delay_s=0)
    panel.resize(*size)
    panel.show()
    panel.start_game(seed=21)
    from trainer.players.umebotan_cpu import UmeBotanCpu
    panel.stand_in = UmeBotanCpu(panel.me, "greedy")
    return panel, 2


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    sizes = [tuple(int(x) for x in s.split("x")) for s in argv[1:]] or [(1600, 1000), (1024, 700)]
    app = QApplication.instance() or QApplication([])
    for lang in ("en", "ja"):
        LANG.set(lang)
        for w, h in sizes:
            for name, make in (("yomi", yomi), ("umebotan", umebotan)):
                panel, turns = make((w, h))
                settle(app, panel, turns)
                path = out / f"{name}-{lang}-{w}x{h}.png"
                panel.grab().save(str(path))
                print(path)
                panel.shutdown()
                panel.deleteLater()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
