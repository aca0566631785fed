#!/usr/bin/env bash
# Run the test suite (installing what is missing on first use).
#   packaging/test.sh [pytest arguments]         the whole suite (what CI runs)
#   packaging/test.sh --fast [pytest arguments]  everyday work: leaves out the tests marked
#                                                slow, realaudio and xvfb (see README.md)
# The whole suite starts a PulseAudio null sink (real-audio tests) and an Xvfb display
# (real pointer-event tests) when they are installed; those tests skip, saying why, when
# they are not. Both run on private names (a fresh XDG_RUNTIME_DIR, a free display number)
# and are stopped when this script ends, however it ends: other programs on the machine
# may use PulseAudio and X displays of their own, and nothing here touches them.
#
# Tests that need neither run on one pytest-xdist worker per core (KARUTA_TEST_WORKERS=N to
# choose, 0 for one process, as `--pdb` needs), each test file on one worker (its
# module fixtures, a server or a PostgreSQL cluster, start once). The real-audio and
# real-display tests then run alone, one at a time: they measure milliseconds against the
# sound server and the display, and must not share the machine with the rest of the suite.
# Pytest arguments go to both parts; a part they select nothing from is skipped.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FAST_SELECTION="not slow and not realaudio and not xvfb"
REAL_SELECTION="realaudio or xvfb"
workers=${KARUTA_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}
parallel=()
[ "$workers" -gt 1 ] && parallel=(-n "$workers" --dist loadfile)

fast=0
if [ "${1:-}" = "--fast" ]; then
    fast=1
    shift
fi

"$ROOT/packaging/bootstrap.sh" --test
cd "$ROOT"

private=$(mktemp -d "${TMPDIR:-/tmp}/karuta-test.XXXXXX")
# One synthesis cache for every worker and both parts (each fills it once; writes are atomic).
export KARUTA_TEST_CACHE="${KARUTA_TEST_CACHE:-$private/cache}"

# pytest runs with an empty home of its own (and no XDG folders), and the run fails if
# anything is left in it: tests keep out of the user's home and cache (tests/conftest.py
# redirects them at import; this catches what slips past it, in a whole run).
run_pytest() {
    mkdir -m 700 "$private/home"
    local status=0
    env -u XDG_DATA_HOME -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u XDG_STATE_HOME HOME="$private/home" \
        "$ROOT/.venv/bin/python" -m pytest "$@" || status=$?
    local left
    left=$(cd "$private/home" && find . -mindepth 1 | head -20)
    if [ -n "$left" ]; then
        echo "test: the tests wrote into the home folder (they must keep to their temporary folders):" >&2
        echo "$left" >&2
        [ "$status" = 0 ] && status=1
    fi
    return $status
}

if [ "$fast" = 1 ]; then
    # Nothing selected needs a sound server or a display: start neither.
    trap 'rm -rf "$private"' EXIT
    status=0
    run_pytest "${parallel[@]}" -m "$FAST_SELECTION" "$@" || status=$?
    exit $status
fi

xvfb_pid=""
stop_what_we_started() {
    # Only the servers started below, by their own pid: never a broad name.
    if [ -d "$private/run" ]; then
        XDG_RUNTIME_DIR="$private/run" sh "$ROOT/tools/pulse-null-sink.sh" --stop
    fi
    if [ -n "$xvfb_pid" ]; then
        kill "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
    fi
    rm -rf "$private"
}
trap stop_what_we_started EXIT

if command -v pulseaudio >/dev/null 2>&1; then
    mkdir -m 700 "$private/run"
    if XDG_RUNTIME_DIR="$private/run" sh "$ROOT/tools/pulse-null-sink.sh" >/dev/null; then
        export XDG_RUNTIME_DIR="$private/run"
    else
        echo "test: PulseAudio null sink did not start; real-audio tests will skip" >&2
    fi
fi
if [ -z "${KARUTA_XVFB_DISPLAY:-}" ] && command -v Xvfb >/dev/null 2>&1; then
    # -displayfd: Xvfb picks a free display number itself and writes it once it is ready.
    Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$private/display" >/dev/null 2>&1 &
    xvfb_pid=$!
    for _ in $(seq 100); do [ -s "$private/display" ] && break; sleep 0.1; done
    if [ -s "$private/display" ]; then
        export KARUTA_XVFB_DISPLAY=":$(head -1 "$private/display")"
    else
        echo "test: Xvfb did not start; real-display tests will skip" >&2
    fi
fi

# A Ctrl-C reaches pytest and this script together; the EXIT trap then stops the servers.
# (A TERM sent to this script alone is acted on once pytest has ended: bash holds a trap
# until its foreground child returns.)
# pytest's 5 means no test ran: allowed in one part (arguments that name only real-audio
# tests, say), a failure when neither part ran a test.
status=0
run_pytest "${parallel[@]}" -m "not ($REAL_SELECTION)" "$@" || status=$?
rm -rf "$private/home"
real=0
run_pytest -m "$REAL_SELECTION" "$@" || real=$?
if [ "$status" = 5 ] && [ "$real" = 5 ]; then
    exit 5
fi
[ "$status" = 5 ] && status=0
[ "$real" = 5 ] && real=0
[ "$status" != 0 ] && exit "$status"
exit "$real"
