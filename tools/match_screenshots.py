"""Offscreen screenshots of Match mode at a given size and language: mid-match and the result.

    PYTHONPATH=$PWD .venv/bin/python tools/match_screenshots.py 1600 1000 ja /tmp/match
    -> /tmp/match.png (the floor after a take from the CPU's side, the okurifuda to choose)
       /tmp/match-result.png (the result of the match played to the end, card by card)

and prints the floor's size and one card's size in pixels. The match is scripted on a
fake clock (seed 3: the person takes their own cards 300 ms after the kimariji, every
third card on the CPU's side, and faults once on a karafuda); nothing is read aloud.
docs/screenshots/match.png and match-result.png are `1600 1000 ja`.
"""
import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["KARUTA_DATA_DIR"] = tempfile.mkdtemp()

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import trainer.ui  # noqa: E402,F401  (the PySide6 workaround first)


def main(width: int, height: int, lang: str, out: str) -> None:
    from audio.clock import FakeClock
    from audio.fake_voice import ToneVoice
    from audio.player import Player
    from trainer.rules.kyogi import Phase
    from trainer.ui import settings as S
    from trainer.ui.main_window import MainWindow
    from trainer.ui.voices import VoiceBook

    app = QApplication.instance() or QApplication([])
    settings = S.Settings(QSettings(os.path.join(os.environ["KARUTA_DATA_DIR"], "s.ini"),
                                    QSettings.Format.IniFormat))
    settings.set(S.LANGUAGE, lang)
    settings.set(S.SHOW_KIMARIJI, True)
    book = VoiceBook(settings, player=Player(backend="silent").open())
    book._voices["synth"] = ToneVoice()
    w = MainWindow(settings, voices=book)
    w.resize(width, height)
    w.show()
    w.set_mode([m for m, _ in w.modes].index("mode.kyogi"))
    m = w.match
    clock = FakeClock(1000.0)
    m.clock = m.floor.clock = clock
    m.new_match(3)
    m.begin_match()
    m.driver.stop()                      # the script is the reader

    def send_what_is_owed():
        while m.state.phase is Phase.OKURI:
            m.route_touch(m.state.side(0).cards()[0], clock.now())

    def read(poem, touch=None, fault=None):
        clock.advance(2.0)
        m._on_card_started(poem)
        if fault is not None:
            clock.advance(0.2)
            m.route_touch(fault, clock.now())
        if touch is not None:
            clock.advance(0.3)
            m.route_touch(touch, clock.now())
        clock.advance(2.0)
        m.tick()
        m.judge()
        send_what_is_owed()
        m._on_card_finished(poem)

    k = 0
    while k < 40 or m.state.side_of(m.order[k]) is None:
        poem = m.order[k]
        side = m.state.side_of(poem)
        if side == 0 or (side == 1 and k % 3 == 0):
            read(poem, touch=poem)
        elif side is None and k == 2:
            read(poem, fault=m.state.side(1).cards()[0])
        else:
            read(poem)
        k += 1
    poem = m.order[k]
    clock.advance(2.0)
    m._on_card_started(poem)
    clock.advance(0.29)
    m.route_touch(poem, clock.now())
    clock.advance(0.5)
    m.tick()
    for _ in range(5):
        app.processEvents()
    w.grab().save(out + ".png")
    card = next(iter(m.floor.card_rects().values()))[1]
    print(f"floor {m.floor.width()}x{m.floor.height()} px, card {card.width():.1f}x{card.height():.1f} px")
    send_what_is_owed()
    m._on_card_finished(poem)
    k += 1
    while m.phase != "over":
        poem = m.order[k]
        side = m.state.side_of(poem)
        read(poem, touch=poem if side == 0 or (side == 1 and k % 2 == 0) else None)
        k += 1
    for _ in range(5):
        app.processEvents()
    w.grab().save(out + "-result.png")
    w.close()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
