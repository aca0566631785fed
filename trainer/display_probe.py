"""Is there a display server that answers? Asked before Qt starts.

Qt aborts the process (SIGABRT) when ``DISPLAY`` or ``WAYLAND_DISPLAY`` names a
server that does not answer, and then blames a missing ``libxcb-cursor0``. So the
window opens only after a probe: for X11 the connection setup is sent and any
answer counts (even "no authorisation": the server is there); for Wayland the
compositor's socket must accept a connection. Each probe gives up after
`TIMEOUT_S`. Standard library only.
"""
from __future__ import annotations

import os
import re
import socket
import struct

TIMEOUT_S = 3.0
X_TCP_PORT = 6000
# byte order "l" (little-endian), protocol 11.0, no authorisation: 12 bytes
_X_SETUP = struct.pack("<BxHHHHxx", ord("l"), 11, 0, 0, 0)


def x_server_answers(display: str, timeout: float = TIMEOUT_S) -> bool:
    """Whether the X server `display` (":0", "host:1.0", "unix:2") answers a connection setup."""
    m = re.fullmatch(r"(?:(?P<host>[^:]*)(?::|/))?:?(?P<number>\d+)(?:\.\d+)?", display.strip())
    if not m:
        return False
    host, number = m.group("host") or "", int(m.group("number"))
    try:
        if host in ("", "unix"):
            sock = _unix_x_socket(number, timeout)
        else:
            sock = socket.create_connection((host, X_TCP_PORT + number), timeout=timeout)
    except OSError:
        return False
    with sock:
        try:
            sock.settimeout(timeout)
            sock.sendall(_X_SETUP)
            return len(sock.recv(1)) == 1
        except OSError:
            return False


def _unix_x_socket(number: int, timeout: float) -> socket.socket:
    last: OSError = OSError("no X socket")
    for address in (f"\0/tmp/.X11-unix/X{number}", f"/tmp/.X11-unix/X{number}"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(address)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise last


def wayland_answers(name: str, timeout: float = TIMEOUT_S) -> bool:
    """Whether the Wayland compositor socket `name` (in XDG_RUNTIME_DIR, or a path) accepts."""
    path = name if os.path.isabs(name) else os.path.join(os.environ.get("XDG_RUNTIME_DIR", ""), name)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def silent_display() -> str | None:
    """None if a display answers (and Qt is pointed at it); else one line saying which
    display was asked and did not answer."""
    import sys
    if not sys.platform.startswith("linux"):   # Windows and macOS windows need no X or Wayland
        return None
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal", "vnc", "eglfs"):
        return None
    wayland, x = os.environ.get("WAYLAND_DISPLAY", ""), os.environ.get("DISPLAY", "")
    if wayland and wayland_answers(wayland):
        return None
    if x and x_server_answers(x):
        if wayland and not os.environ.get("QT_QPA_PLATFORM"):
            os.environ["QT_QPA_PLATFORM"] = "xcb"   # Qt would try the silent Wayland first
        return None
    asked = " nor ".join(f"{var}={value!r}" for var, value in
                         (("WAYLAND_DISPLAY", wayland), ("DISPLAY", x)) if value)
    return (f"no display server answers ({asked}: nothing answered within {TIMEOUT_S:g} s), "
            "so the window cannot open; `karuta read` reads without one")
