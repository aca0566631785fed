#!/usr/bin/env bash
# Install this unpacked Karuta Trainer for the current user: the `karuta`
# command in ~/.local/bin, the menu entry and the icon. Nothing outside your
# home folder is touched; run it again after moving the folder.
#   ./install.sh            install
#   ./install.sh --remove   remove the command, the menu entry and the icons (your data stays)
# A ~/.local/bin/karuta this script did not make (pipx puts one there, or it is your
# own) is never replaced or removed: the script says so and changes nothing.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
APP_ID=io.github.karutatrainer.KarutaTrainer
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
BIN=$HOME/.local/bin
LINK=$BIN/karuta

# Ours: a link to the `karuta` of an unpacked trainer folder (one holding our menu
# entry), or a link to a `karuta` that is gone (a folder moved or deleted since).
ours() {
    [ -L "$LINK" ] || return 1
    local target
    target=$(readlink "$LINK")
    [ "$(basename "$target")" = karuta ] || return 1
    [ ! -e "$LINK" ] || [ -f "$(dirname "$target")/share/applications/$APP_ID.desktop" ]
}

foreign() {  # a karuta command that is not ours: say so, change nothing
    [ -e "$LINK" ] || [ -L "$LINK" ] || return 1
    ours && return 1
    local what="a file"
    [ -L "$LINK" ] && what="a link to $(readlink "$LINK")"
    echo "install.sh: $LINK is $what that this installer did not make (a pipx install, or your own);" \
         "it was left as it is and nothing was $1. $2" >&2
    return 0
}

# Copy to a fixed name without writing through a link planted there: a new file, renamed over it.
put() {  # put SOURCE DEST  (or: put - DEST, from stdin)
    local tmp
    tmp=$(mktemp "$(dirname "$2")/.$(basename "$2").XXXXXX")
    if [ "$1" = - ]; then cat > "$tmp"; else cat "$1" > "$tmp"; fi
    chmod 644 "$tmp"
    mv -f "$tmp" "$2"
}

if [ "${1:-}" = "--remove" ]; then
    if foreign removed "Remove it yourself if you no longer want it."; then
        kept=1
    else
        kept=0
        rm -f "$LINK"
    fi
    rm -f "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml"
    rm -f "$DATA"/icons/hicolor/*/apps/"$APP_ID".{png,svg}
    echo "Removed$([ "$kept" = 1 ] && echo " the menu entry and the icons"). Your recordings, statistics and settings stay where they are (see Help → About)."
    exit 0
fi

if foreign installed "Remove it first to install this trainer as 'karuta', or run \"$HERE/karuta\" directly."; then
    exit 1
fi

mkdir -p "$BIN" "$DATA/applications" "$DATA/metainfo" "$DATA/icons/hicolor/scalable/apps"
ln -sfn "$HERE/karuta" "$LINK"
for png in "$HERE"/share/icons/hicolor/*/apps/"$APP_ID".png; do
    size=$(basename "$(dirname "$(dirname "$png")")")
    mkdir -p "$DATA/icons/hicolor/$size/apps"
    put "$png" "$DATA/icons/hicolor/$size/apps/$APP_ID.png"
done
put "$HERE/share/icons/hicolor/scalable/apps/$APP_ID.svg" "$DATA/icons/hicolor/scalable/apps/$APP_ID.svg"
put "$HERE/share/metainfo/$APP_ID.metainfo.xml" "$DATA/metainfo/$APP_ID.metainfo.xml"
# The menu entry runs this folder's program by its full path (~/.local/bin may not be on PATH).
sed "s|^Exec=karuta|Exec=\"$HERE/karuta\"|" "$HERE/share/applications/$APP_ID.desktop" \
    | put - "$DATA/applications/$APP_ID.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
echo "Installed: 'Karuta Trainer' is in your applications menu; 'karuta' runs it from a terminal"
case ":$PATH:" in *":$BIN:"*) ;; *) echo "(add $BIN to your PATH for the 'karuta' command)";; esac
