#!/bin/sh
# Start a PulseAudio server whose default sink is a null sink (no sound card
# needed), as /work/shared/notes/audio-and-display-on-ci.md describes, and wait
# until the sink's latency has settled below 50 ms.
#
# The server lives in $XDG_RUNTIME_DIR; give the script a private one (a fresh
# `mktemp -d`) so that it neither reuses nor disturbs a server someone else runs.
# Without XDG_RUNTIME_DIR it makes a fresh directory of its own.
# Idempotent: if a server already answers on $XDG_RUNTIME_DIR, it is reused.
# Prints the XDG_RUNTIME_DIR to export, so callers can do
#   export XDG_RUNTIME_DIR=$(tools/pulse-null-sink.sh)
# and stop the server afterwards with
#   XDG_RUNTIME_DIR=... tools/pulse-null-sink.sh --stop
# (which stops only a server this script started there, by the pid it wrote).
# Exit status: 0 ready (or stopped), 1 pulseaudio missing or failed to start,
# 2 latency never settled.
set -eu

if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    XDG_RUNTIME_DIR=$(mktemp -d "${TMPDIR:-/tmp}/karuta-pulse.XXXXXX")
fi
export XDG_RUNTIME_DIR
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

if [ "${1:-}" = "--stop" ]; then
    # null.pa marks a directory whose server this script started.
    if [ -f "$XDG_RUNTIME_DIR/null.pa" ] && [ -f "$XDG_RUNTIME_DIR/pulse/pid" ]; then
        pid=$(head -1 "$XDG_RUNTIME_DIR/pulse/pid")
        # A stale pid file may name a process that is no longer ours.
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = pulseaudio ] || exit 0
        kill "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
    fi
    exit 0
fi

if ! command -v pulseaudio >/dev/null 2>&1 || ! command -v pactl >/dev/null 2>&1; then
    echo "pulse-null-sink: pulseaudio/pactl not installed (apt-get install pulseaudio pulseaudio-utils)" >&2
    exit 1
fi

if ! pactl info >/dev/null 2>&1; then
    cat > "$XDG_RUNTIME_DIR/null.pa" <<'PA'
load-module module-native-protocol-unix auth-anonymous=1
load-module module-null-sink sink_name=nullsink rate=48000 channels=2
load-module module-null-source source_name=silence rate=48000 channels=2
load-module module-loopback source=silence sink=nullsink latency_msec=10
set-default-sink nullsink
set-default-source nullsink.monitor
PA
    # The permanent low-latency loopback keeps the null sink from running ahead
    # in 2-second chunks (which stalls new streams for 0.3-2 s).
    pulseaudio --daemonize=yes -n --file="$XDG_RUNTIME_DIR/null.pa" --exit-idle-time=-1 \
        --log-target=file:"$XDG_RUNTIME_DIR/pa.log" || {
        echo "pulse-null-sink: pulseaudio failed to start; see $XDG_RUNTIME_DIR/pa.log" >&2
        exit 1
    }
fi

# Poll the null sink's latency (in usec) until it is below 50 ms: about 2 s.
i=0
while [ $i -lt 100 ]; do
    lat=$(pactl list sinks 2>/dev/null | awk '
        /Name: nullsink/ { found = 1 }
        found && /Latency:/ { print $2; exit }')
    if [ -n "${lat:-}" ] && [ "$lat" -lt 50000 ] 2>/dev/null; then
        echo "$XDG_RUNTIME_DIR"
        exit 0
    fi
    i=$((i + 1))
    sleep 0.1
done
echo "pulse-null-sink: null sink latency did not settle below 50 ms (last: ${lat:-none} usec)" >&2
exit 2
