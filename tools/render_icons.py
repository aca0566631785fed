"""Render the application icon's PNG sizes from its SVG (run after editing the SVG).

    python tools/render_icons.py

Writes trainer/resources/icons/karuta-trainer-{16..512}.png with Qt's SVG
renderer, so no extra tool is needed; the PNGs are committed.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parent.parent / "trainer" / "resources" / "icons"


def main() -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    renderer = QSvgRenderer(str(ICONS / "karuta-trainer.svg"))
    if not renderer.isValid():
        print("render_icons: the SVG does not parse", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = ICONS / f"karuta-trainer-{size}.png"
        image.save(str(out))
        print(out.relative_to(ICONS.parent.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
