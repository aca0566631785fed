"""The CJK font fallback of the standalone build.

The torifuda and the poems need a Japanese font. A machine with Noto CJK (or
any Japanese font) uses its own; the standalone build also carries Noto Sans
CJK and Noto Serif CJK (SIL OFL 1.1) in its `fonts/` folder. On a machine with
no Japanese font they are registered here, and Noto Sans CJK becomes the
interface font: mixing a Latin-only default with a CJK fallback lays text out
with the Latin font's height and clips the Japanese glyphs.
"""
from __future__ import annotations

import sys
from pathlib import Path


def bundled_font_dir() -> Path | None:
    base = getattr(sys, "_MEIPASS", None)
    if base is None:
        return None
    path = Path(base) / "fonts"
    return path if path.is_dir() else None


INTERFACE_FAMILY = "Noto Sans CJK JP"


def has_japanese_font() -> bool:
    from PySide6.QtGui import QFontDatabase
    return bool(QFontDatabase.families(QFontDatabase.WritingSystem.Japanese))


def register_bundled_fonts(app=None) -> list[str]:
    """On a machine without a Japanese font, register the bundled ones with Qt (after
    QApplication exists) and make Noto Sans CJK the interface font; returns the families."""
    folder = bundled_font_dir()
    if folder is None or has_japanese_font():
        return []
    from PySide6.QtGui import QFontDatabase
    families: list[str] = []
    for font in sorted(folder.glob("*.tt[cf]")) + sorted(folder.glob("*.otf")):
        font_id = QFontDatabase.addApplicationFont(str(font))
        if font_id >= 0:
            families += QFontDatabase.applicationFontFamilies(font_id)
    if app is not None and INTERFACE_FAMILY in families:
        font = app.font()
        font.setFamily(INTERFACE_FAMILY)
        app.setFont(font)
    return families
