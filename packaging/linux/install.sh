#!/usr/bin/env bash
# Install this unpacked Karuta Trainer for the current user: the `karuta`
# command in ~/.local/bin, the menu entry and the icon. Nothing outside your
# home folder is touched; run it again after moving the folder.
#   ./install.sh            install
#   ./install.sh --remove   remove the command, the menu entry and the icons (your data stays)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
APP_ID=io.github.karutatrainer.KarutaTrainer
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
BIN=$HOME/.local/bin

if [ "${1:-}" = "--remove" ]; then
    rm -f "$BIN/karuta" "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml"
    rm -f "$DATA"/icons/hicolor/*/apps/"$APP_ID".{png,svg}
    echo "Removed. Your recordings, statistics and settings stay where they are (see Help → About)."
    exit 0
fi

mkdir -p "$BIN" "$DATA/applications" "$DATA/metainfo" "$DATA/icons/hicolor/scalable/apps"
ln -sfn "$HERE/karuta" "$BIN/karuta"
for png in "$HERE"/share/icons/hicolor/*/apps/"$APP_ID".png; do
    size=$(basename "$(dirname "$(dirname "$png")")")
    mkdir -p "$DATA/icons/hicolor/$size/apps"
    cp "$png" "$DATA/icons/hicolor/$size/apps/"
done
cp "$HERE/share/icons/hicolor/scalable/apps/$APP_ID.svg" "$DATA/icons/hicolor/scalable/apps/"
cp "$HERE/share/metainfo/$APP_ID.metainfo.xml" "$DATA/metainfo/"
# The menu entry runs this folder's program by its full path (~/.local/bin may not be on PATH).
sed "s|^Exec=karuta|Exec=\"$HERE/karuta\"|" "$HERE/share/applications/$APP_ID.desktop" \
    > "$DATA/applications/$APP_ID.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
echo "Installed: 'Karuta Trainer' is in your applications menu; 'karuta' runs it from a terminal"
case ":$PATH:" in *":$BIN:"*) ;; *) echo "(add $BIN to your PATH for the 'karuta' command)";; esac
