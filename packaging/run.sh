#!/usr/bin/env bash
# Run the application (installing what is missing on first use).
#   packaging/run.sh [karuta arguments]      e.g. packaging/run.sh read --out session.flac
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/packaging/bootstrap.sh"
exec "$ROOT/.venv/bin/karuta" "$@"
