#!/usr/bin/env bash
# Run the whole test suite (installing what is missing on first use).
# Starts a PulseAudio null sink (real-audio tests) and an Xvfb display (real
# pointer-event tests) when they are installed; those tests skip, saying why,
# when they are not.
#   packaging/test.sh [pytest arguments]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/packaging/bootstrap.sh" --test
cd "$ROOT"

if command -v pulseaudio >/dev/null 2>&1; then
    if runtime=$(bash tools/pulse-null-sink.sh); then
        export XDG_RUNTIME_DIR="$runtime"
    else
        echo "test: PulseAudio null sink did not start; real-audio tests will skip" >&2
    fi
fi
if [ -z "${KARUTA_XVFB_DISPLAY:-}" ] && command -v Xvfb >/dev/null 2>&1; then
    display=":97"
    if ! xdpyinfo -display "$display" >/dev/null 2>&1; then
        Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
        for _ in $(seq 50); do xdpyinfo -display "$display" >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    export KARUTA_XVFB_DISPLAY="$display"
fi

status=0
"$ROOT/.venv/bin/python" -m pytest "$@" || status=$?
# pytest's 5 means no test ran: that is a failure here, not a pass.
exit $status
