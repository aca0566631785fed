"""The CJK font fallback of the standalone build.

The torifuda and the poems need a Japanese font. A machine with Noto CJK (or
any Japanese font) uses its own; the standalone build also carries Noto Serif
CJK (SIL OFL 1.1) in its `fonts/` folder, registered here so Japanese text
renders on a machine that has none.
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


def register_bundled_fonts() -> list[str]:
    """Register the bundled fonts with Qt (after QApplication exists); returns their families."""
    folder = bundled_font_dir()
    if folder is None:
        return []
    from PySide6.QtGui import QFontDatabase
    families: list[str] = []
    for font in sorted(folder.glob("*.tt[cf]")) + sorted(folder.glob("*.otf")):
        font_id = QFontDatabase.addApplicationFont(str(font))
        if font_id >= 0:
            families += QFontDatabase.applicationFontFamilies(font_id)
    return families
