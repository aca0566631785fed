"""Make the guide's pictures from the README's screenshots (run after retaking them).

    python tools/guide_images.py

Writes trainer/resources/guide/{reader,match,drills,voice}.jpg, 640 px wide,
so the guide shows each mode as it looks; the JPEGs are committed.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {   # guide page → screenshot in docs/screenshots
    "reader": "reader.png",
    "match": "match.png",
    "drills": "drill-kami-to-torifuda.png",
    "voice": "first-run.png",
}
WIDTH = 640


def main() -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    out_dir = ROOT / "trainer" / "resources" / "guide"
    out_dir.mkdir(parents=True, exist_ok=True)
    for page, name in SOURCES.items():
        image = QImage(str(ROOT / "docs" / "screenshots" / name))
        if image.isNull():
            print(f"guide_images: cannot read docs/screenshots/{name}", file=sys.stderr)
            return 1
        small = image.scaledToWidth(WIDTH, Qt.TransformationMode.SmoothTransformation)
        out = out_dir / f"{page}.jpg"
        small.save(str(out), "JPEG", 88)
        print(f"{out.relative_to(ROOT)} ({out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
