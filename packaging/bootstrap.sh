#!/usr/bin/env bash
# Make this checkout ready to run: system packages (when root and missing) and
# a virtual environment in .venv with the project installed.
#   packaging/bootstrap.sh              what running needs (packaging/run.sh)
#   packaging/bootstrap.sh --test       also the test extras and the system packages the
#                                       tests need (system-packages-test.txt)
#   packaging/bootstrap.sh --measure    the test extras and the speech recogniser that
#                                       bench/intelligibility.py asks (about 290 MB)
#   packaging/bootstrap.sh --system-only  only the system packages, both lists (packaging/build.sh
#                                       bundles the run list and validates with the test list)
# Safe to run again: it does only what is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV="$ROOT/.venv"
EXTRAS=""
LISTS=("$ROOT/packaging/system-packages.txt")
[ "${1:-}" = "--test" ] && EXTRAS="[test]"
[ "${1:-}" = "--measure" ] && EXTRAS="[test,measure]"
case "${1:-}" in
    --test|--measure|--system-only) LISTS+=("$ROOT/packaging/system-packages-test.txt") ;;
esac

missing_system_packages() {
    command -v dpkg-query >/dev/null 2>&1 || return 0
    cat "${LISTS[@]}" | grep -v '^\s*#' | grep -v '^\s*$' | while read -r pkg; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
    done
}

pkgs=$(missing_system_packages | tr '\n' ' ')
if [ -n "${pkgs// /}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "bootstrap: installing system packages: $pkgs" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $pkgs >&2
    else
        echo "bootstrap: these system packages are missing; sound or the window may not work:" >&2
        echo "  sudo apt-get install $pkgs" >&2
    fi
fi

[ "${1:-}" = "--system-only" ] && exit 0

stamp="$VENV/.installed$EXTRAS"
if [ ! -x "$VENV/bin/python" ]; then
    echo "bootstrap: creating $VENV" >&2
    python3 -m venv "$VENV" >&2
fi
if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
    echo "bootstrap: installing the project into $VENV (first run takes a minute)" >&2
    "$VENV/bin/python" -m pip install -q --upgrade pip >&2
    "$VENV/bin/python" -m pip install -q -e "$ROOT$EXTRAS" >&2
    touch "$stamp"
fi
