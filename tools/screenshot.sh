#!/bin/sh
# Screenshots of the application on a real X server (Xvfb), for docs/screenshots/.
#
#   tools/screenshot.sh [OUT_DIR]        (default docs/screenshots)
#
# Runs the real window (xcb platform) with the synthesised voice and the real
# player (PulseAudio if it runs, else the silent clock), drives it from inside
# the process (a scripted player touches each read card 250-550 ms after its
# current kimariji), and grabs the whole screen with ImageMagick's `import`:
#   reader.png          Reader mode, a few cards into a session, dynamic kimariji on
#   match.png           the floor during a match against the CPU, just after the
#                       player took a card whose kimariji had changed
#   match-result.png    the result screen of that match
# The match is read with the tone voice at a fast pace (the voice does not show
# in a picture), so it ends in a few minutes. User data and settings go to a
# temporary directory; the synthesised voice comes from the usual cache
# (KARUTA_CACHE_DIR, default ~/.cache/karuta-trainer), made once if missing.
set -eu
OUT=${1:-docs/screenshots}
PY=${PY:-/tmp/venv/bin/python}
DISPLAY_NO=${DISPLAY_NO:-:99}
mkdir -p "$OUT"
if ! xdpyinfo -display "$DISPLAY_NO" >/dev/null 2>&1; then
    Xvfb "$DISPLAY_NO" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
    XVFB_PID=$!
    trap 'kill $XVFB_PID' EXIT
    sleep 1
fi
TMP=$(mktemp -d)
export DISPLAY="$DISPLAY_NO" QT_QPA_PLATFORM=xcb KARUTA_DATA_DIR="$TMP/data" XDG_CONFIG_HOME="$TMP/config"
export KARUTA_CACHE_DIR="${KARUTA_CACHE_DIR:-$HOME/.cache/karuta-trainer}"
export SHOT_OUT="$(cd "$OUT" && pwd)"
"$PY" - <<'PYEOF'
import os, random, subprocess, sys, time
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
import trainer.ui  # noqa: F401  (PySide6 workaround first)
from trainer.ui import settings as S
from trainer.ui.main_window import MainWindow
from trainer.ui.voices import VoiceBook
from trainer.ui.i18n import LANG

out = os.environ["SHOT_OUT"]
app = QApplication(sys.argv[:1])
st = S.Settings(QSettings(os.path.join(os.environ["XDG_CONFIG_HOME"], "karuta.ini"), QSettings.Format.IniFormat))
lang = os.environ.get("SHOT_LANG", "ja")
st.set(S.LANGUAGE, lang)
st.set(S.SHOW_KIMARIJI, True)
st.set(S.MODE, 0)
book = VoiceBook(st)
w = MainWindow(st, voices=book)
w.setGeometry(0, 0, 1600, 1000)
w.show()
rng = random.Random(3)
steps = []

def shot(name):
    app.processEvents()
    subprocess.run(["import", "-window", "root", os.path.join(out, name)], check=True)
    print("saved", name, flush=True)

def at(cond, then, timeout=900):
    t0 = time.monotonic()
    def poll():
        if cond():
            timer.stop(); then()
        elif time.monotonic() - t0 > timeout:
            timer.stop(); print("timed out waiting", flush=True); app.exit(1)
    timer = QTimer(w, interval=100); timer.timeout.connect(poll); timer.start()
    steps.append(timer)

def reader_start():
    print("voice:", book.player().status_message, flush=True)
    w.set_mode(0)
    w.command("start")
    at(lambda: w.reader.session is not None and w.reader.session.read >= 3 and w.reader.current not in (None, 0),
       reader_shot)

def reader_shot():
    QTimer.singleShot(1500, lambda: (shot("reader.png"), w.command("stop"), match_start()))

def match_start():
    # The match with the tone voice and short gaps: it looks the same and ends sooner.
    from audio.fake_voice import ToneVoice
    w.set_mode(1)
    m = w.match
    book._voices["synth"] = ToneVoice(mora_s=0.06, yoin_s=0.2)
    st.set(S.MA, 0.3); st.set(S.PAUSE, 0.3); st.set(S.JOKA, False)
    m.new_match(5)
    m.begin_match()
    def on_card(poem):
        race = m._race
        if race is None or race["poem"] != poem or m.state.side_of(poem) is None:
            return
        delay = max(0.0, race["kimariji"] - time.perf_counter()) + rng.uniform(0.25, 0.55)
        QTimer.singleShot(int(delay * 1000), lambda: m.route_touch(poem, time.perf_counter())
                          if m._race and m._race["poem"] == poem else None)
    m.driver.card_started.connect(on_card)
    def okuri():
        if m.state is not None and m.state.phase.value == "okuri" and m.state.owing[0] == 0:
            m.route_touch(m.state.side(0).cards()[-1], time.perf_counter())
    t = QTimer(w, interval=700); t.timeout.connect(okuri); t.start(); steps.append(t)
    def changed_take():   # just judged: the player took a card decided by a shorter kimariji
        o = m.state.outcomes[-1] if m.state.outcomes else None
        note = m.kimariji_label.text()
        return (len(m.state.read) >= 8 and o is not None and o.taker == 0 and m._race is None
                and ("(" in note or "（" in note))
    def match_shot():
        w.driver.pause()
        QTimer.singleShot(300, lambda: (shot("match.png"), w.driver.resume(), result()))
    def result():
        at(lambda: m.phase == "over", lambda: QTimer.singleShot(500, lambda: (shot("match-result.png"), app.quit())),
           timeout=1200)
    at(changed_take, match_shot, timeout=1200)

QTimer.singleShot(300, lambda: book.ensure_ready(w, then=reader_start))
sys.exit(app.exec())
PYEOF
rm -rf "$TMP"
