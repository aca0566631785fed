"""Screenshots of the Mubeyama table (the shared table shell) for docs/screenshots and review.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python tools/mubeyama_screenshots.py OUT_DIR [WxH ...]

Plays each variant a few readings into the game through the real panel (a
stand-in reading driver says when each card sounds; people flip ~300 ms after
the kimariji, CPU seats at once) and grabs the panel: OUT_DIR/<variant>-<lang>-<W>x<H>.png.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QApplication

from audio.clock import SYSTEM

import trainer.ui  # noqa: F401  (PySide6 workaround first)
from trainer.games.mubeyama_session import CPU, HUMAN, GameConfig
from trainer.rules.mubeyama import VARIANTS, AwaitFlip, AwaitPass
from trainer.ui import settings as S
from trainer.ui.i18n import LANG
from trainer.ui.mubeyama_panel import MubeyamaPanel

SHOTS = {"okayama4": 40, "izumoji5": 22, "gambling4": 30, "gambling5": 30,
         "okayama6": 100}   # played to the end: the result page with the winning line


class Driver(QObject):
    card_started = Signal(int)
    kimariji = Signal(int, int, float)
    card_finished = Signal(int)
    finished = Signal()
    state_changed = Signal(str)
    error = Signal(str)
    state = "playing"
    clock = SYSTEM          # the panel stamps presses on the driver's clock (a real attribute, not
                            # one of the no-op methods below, which a clock is not)

    def start(self, order, timing, joka):
        pass

    def mark_time(self, index, name):
        return None

    def __getattr__(self, name):
        return lambda *a: None


class NoSynthesis:
    def needs_synthesis(self):
        return False


def play(panel: MubeyamaPanel, driver: Driver, readings: int) -> None:
    s = panel.session
    for _ in range(readings):
        if s.state.is_over():
            return
        no = s.next_yomifuda()
        driver.card_started.emit(no)
        driver.kimariji.emit(s.order.index(no), no, SYSTEM.now() - 0.3)
        for _ in range(200):
            p = s.state.pending
            if isinstance(p, AwaitFlip) and s.is_human(p.seat):
                panel.on_slot_clicked(p.seat, p.no, SYSTEM.now())
            elif isinstance(p, AwaitPass) and s.is_human(p.giver):
                up = [sl.no for row in s.view(p.giver).tables[p.giver].rows for sl in row if sl.face_up]
                panel.on_slot_clicked(p.giver, up[-1], SYSTEM.now())
            else:
                break


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else "/tmp/mubeyama-shots")
    sizes = [tuple(int(x) for x in a.split("x")) for a in argv[2:]] or [(1600, 1000), (1024, 700)]
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    settings = S.Settings(QSettings(str(out / "settings.ini"), QSettings.Format.IniFormat))
    for lang in ("en", "ja"):
        LANG.set(lang)
        for variant, readings in SHOTS.items():
            for w, h in sizes:
                driver = Driver()
                panel = MubeyamaPanel(settings, NoSynthesis(), driver=driver, cpu_delay_s=0)
                panel.resize(w, h)
                panel.show()
                players = VARIANTS[variant].players
                seats = tuple(HUMAN if k in (0, 1) else CPU for k in range(players))
                panel.start_game(GameConfig(variant=variant, seats=seats, seed=11, hint_delay_s=600))
                play(panel, driver, readings)
                app.processEvents()
                panel.table._fly_t, panel.table._flying = 1.0, []
                path = out / f"{variant}-{lang}-{w}x{h}.png"
                panel.grab().save(str(path))
                print(path)
                panel.shutdown()
                panel.deleteLater()
                app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
