#!/usr/bin/env bash
# Build the standalone Linux program (no Python needed on the user's machine),
# its tarball, and the wheel and sdist:
#   bash packaging/build.sh
# Output in build/:
#   build/dist/karuta/                              the program folder (run ./karuta)
#   build/karuta-trainer-VERSION-linux-x86_64.tar.gz  that folder, to hand out
#   build/python/                                   the wheel and the sdist (pip/pipx)
# 162 s here from nothing but a warm pip cache (2 shared cores), of which PyInstaller
# 80 s; python bench/bench_bundle.py --build times it again and checks the result.
# Environment:
#   KARUTA_BUILD_PYTHON   a Python that already has the project's dependencies and
#                         the [build] extra (skips making build/venv)
#   KARUTA_CJK_FONTS      the CJK fonts to ship, colon-separated (default: Debian's
#                         Noto Sans CJK and Noto Serif CJK, Regular)
#   KARUTA_SKIP_PYTHON_DIST=1  skip the wheel and sdist
#
# No AppImage: wrapping this folder needs the AppImage runtime (the small ELF
# put in front of the squashfs image) or appimagetool, and neither is packaged
# in Debian nor shipped inside a PyPI or npm package (the PyPI `appimage` and
# `python-appimage` tools and electron-builder download them from their own
# release pages at build time). squashfs-tools alone is not enough. The tarball
# plus install.sh gives the same result: one folder, a menu entry, an icon.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build"
APP_ID=io.github.karutatrainer.KarutaTrainer
cd "$ROOT"
mkdir -p "$BUILD"

# 1. The system pieces that go into the bundle (PortAudio, the CJK fonts), the validators,
#    and what the build itself needs: PyInstaller reads binaries with binutils' objdump.
"$ROOT/packaging/bootstrap.sh" --system-only
need=()
command -v objdump >/dev/null 2>&1 || need+=(binutils)
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
# The ICU licence text for the ICU inside PySide6's wheel (bundle_licences.py copies it).
compgen -G "/usr/share/doc/libicu[0-9]*/copyright" >/dev/null || need+=(libicu72)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
    else
        echo "build: install these first: sudo apt-get install ${need[*]}" >&2
        exit 1
    fi
fi

# 2. A Python with the project's dependencies and PyInstaller.
PY=${KARUTA_BUILD_PYTHON:-}
if [ -z "$PY" ]; then
    if [ ! -x "$BUILD/venv/bin/python" ]; then
        python3 -m venv "$BUILD/venv"
    fi
    PY="$BUILD/venv/bin/python"
    "$PY" -m pip install -q --upgrade pip
    "$PY" -m pip install -q "$ROOT[build]"
fi
VERSION=$("$PY" -c "import sys; sys.path.insert(0, '$ROOT'); import trainer; print(trainer.__version__)")

# 3. The desktop entry and AppStream metadata must validate before they ship.
bash "$ROOT/packaging/validate-desktop.sh"

# 4. The one-folder program.
start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$BUILD/dist" --workpath "$BUILD/work" "$ROOT/packaging/karuta.spec"
DIST="$BUILD/dist/karuta"
echo "build: PyInstaller took $(( $(date +%s) - start )) s" >&2

# 5. Desktop integration inside the folder (install.sh puts it in the user's menu).
ICONS="$ROOT/trainer/resources/icons"
mkdir -p "$DIST/share/applications" "$DIST/share/metainfo" "$DIST/share/icons/hicolor/scalable/apps"
cp "$ROOT/packaging/linux/$APP_ID.desktop" "$DIST/share/applications/"
cp "$ROOT/packaging/linux/$APP_ID.metainfo.xml" "$DIST/share/metainfo/"
cp "$ICONS/karuta-trainer.svg" "$DIST/share/icons/hicolor/scalable/apps/$APP_ID.svg"
for png in "$ICONS"/karuta-trainer-*.png; do
    size=${png##*-}; size=${size%.png}
    mkdir -p "$DIST/share/icons/hicolor/${size}x${size}/apps"
    cp "$png" "$DIST/share/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
cp "$ROOT/packaging/linux/install.sh" "$DIST/install.sh"
cp "$ROOT/README.md" "$ROOT/LICENSE" "$DIST/"

# 5b. Every file with its licence: the Debian copyright files of the system libraries, their
#     source packages (licenses/SOURCES.txt) and licenses/FILES.tsv; stops on a file with none.
"$PY" "$ROOT/packaging/bundle_licences.py" "$DIST"

# 6. It must start: the version, without any Python of ours on PATH.
env -i HOME="$HOME" PATH=/usr/bin:/bin "$DIST/karuta" --version

# 7. The tarball.
TARBALL="$BUILD/karuta-trainer-$VERSION-linux-$(uname -m).tar.gz"
tar -C "$BUILD/dist" -czf "$TARBALL" karuta
echo "build: $TARBALL ($(du -h "$TARBALL" | cut -f1)); folder $(du -sh "$DIST" | cut -f1)" >&2

# 8. The wheel and sdist, for pip and pipx.
if [ "${KARUTA_SKIP_PYTHON_DIST:-}" != 1 ]; then
    "$PY" -m build --outdir "$BUILD/python" "$ROOT" >/dev/null
    ls "$BUILD/python" >&2
fi
