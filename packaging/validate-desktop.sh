#!/usr/bin/env bash
# Check the desktop entry and the AppStream metadata with the freedesktop validators
# (Debian packages desktop-file-utils and appstream). Run by .ci/run and packaging/build.sh.
set -euo pipefail
LINUX=$(cd "$(dirname "$0")/linux" && pwd)
for tool in desktop-file-validate appstreamcli; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "validate-desktop: $tool is missing: apt-get install desktop-file-utils appstream" >&2
        exit 1
    fi
done
desktop-file-validate "$LINUX"/*.desktop
# --no-net: CI must not depend on the screenshots' host being reachable.
appstreamcli validate --no-net "$LINUX"/*.metainfo.xml
