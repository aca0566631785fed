"""Retake the README's floor-race pictures: the Games → 散らし取り・源平 table at 1024×700 in play.

    DISPLAY=:N QT_QPA_PLATFORM=xcb python tools/race_screenshots.py [OUT_DIR] [--all]

Each picture is the table alone, 1024×700, after `READS` cards of an all-CPU game (seeded, played
by the app's session on the nominal reading, as `karuta simulate` plays), so the floor is part
taken and the log full. Writes docs/screenshots/<game>-table[-ja].png (or into OUT_DIR), then
checks each table with the legibility walk's checker and prints what it finds. With ``--all``
each table is also taken at 1600×1000 and in both languages (<table>-<lang>-<W>x<H>.png), to look at.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))          # this checkout's app, not another installed one
SHOTS = (   # file, table choice, players, language, seed
    ("chirashi-table.png", "chirashi", 4, "en", 3),
    ("sakasama-table-ja.png", "sakasama", 4, "ja", 5),
    ("genpei-table-ja.png", "genpei", 6, "ja", 3),
    ("shimonoku-table.png", "shimonoku", 6, "en", 3),
    ("nanae-table-ja.png", "nanae", 6, "ja", 3),
)
READS = 40
SIZE = (1024, 700)


class _Stopped(Exception):
    pass


def _played(panel, reads: int) -> None:
    """The panel's game replaced by the same game with every seat a CPU, played `reads` cards in."""
    from audio.clock import FakeClock
    from trainer.games.chirashi_session import CPU, VerseReader, new_session
    from trainer.games.protocol import play_out
    clock = FakeClock(0.0)
    s = panel.session
    session = new_session(panel.chosen_variant(), s.seed, (CPU,) * len(s.seats),
                          {"clock": clock, "cpu_level": "club"})

    def stop(session) -> None:
        if len(session.state.read) >= reads and session.state.phase == "await_read":
            raise _Stopped

    try:
        play_out(session, clock, VerseReader(session.order, session.verse), on_step=stop)
    except _Stopped:
        pass
    panel.session = session
    panel._relog()
    panel.show_state()


def main(argv: list[str]) -> int:
    from PySide6.QtCore import QObject, Signal
    from PySide6.QtWidgets import QApplication

    from trainer.ui.chirashi_panel import RACE_TABLES, ChirashiPanel
    from trainer.ui.i18n import LANG

    class Driver(QObject):          # the reader, silent: the game is played by `_played`
        card_started, card_finished, finished, error = Signal(int), Signal(int), Signal(), Signal(str)
        state = "idle"

        def __getattr__(self, name):
            return lambda *a, **k: None

    sys.path.insert(0, str(ROOT / "tests"))
    from legibility import problems

    every = "--all" in argv
    argv = [a for a in argv if a != "--all"]
    out = Path(argv[0]) if argv else ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841
    shots = [(name, table, players, lang, seed, SIZE) for name, table, players, lang, seed in SHOTS]
    if every:
        shots = [(f"{table}-{lang}-{w}x{h}.png", table, players, lang, seed, (w, h))
                 for _, table, players, _, seed in SHOTS for lang in ("en", "ja") for w, h in (SIZE, (1600, 1000))]
    for name, table, players, lang, seed, size in shots:
        LANG.set(lang)
        panel = ChirashiPanel(None, None, driver=Driver())
        panel.resize(*size)
        panel.show()
        panel.game.setCurrentIndex(RACE_TABLES.index(table))
        panel.players.setValue(players)
        panel.start_game(seed=seed)
        panel.timer.stop()
        _played(panel, READS)
        QApplication.processEvents()
        panel.grab().save(str(out / name))
        found = problems(panel, size)
        print(out / name, "legible" if not found else "; ".join(found[:3]))
        panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
