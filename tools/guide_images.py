"""Make the guide's pictures, each in both languages (run after retaking them).

    KARUTA_WALK_SHOTS=/tmp/shots python -m pytest tests/test_ui_legible.py -k "every_screen and 1600"
    python tools/guide_images.py /tmp/shots

Writes trainer/resources/guide/<page>-<lang>.jpg, 640 px wide, from the legibility walk's
1600×1000 screenshots (every mode in use, in English and in Japanese), so the English guide
shows the English window; the voice page keeps its one picture (voice.jpg, from
docs/screenshots/first-run.png). The JPEGs are committed.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
SCREENS = {   # guide page → the walk's screen
    "reader": "reader",
    "match": "match",
    "drills": "drills",
    "games": "mubeyama",
    "stats": "stats",
}
SHARED = {"voice": "first-run.png"}     # page → docs/screenshots, one for both languages
LANGS = ("en", "ja")
WIDTH = 640


def main(argv: list[str]) -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage

    shots = Path(argv[0]) if argv else None
    if shots is None or not shots.is_dir():
        print("guide_images: give the folder of the walk's screenshots (see the docstring)", file=sys.stderr)
        return 2
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    out_dir = ROOT / "trainer" / "resources" / "guide"
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = {f"{page}-{lang}": shots / f"{screen}-{lang}-1600x1000.png"
               for page, screen in SCREENS.items() for lang in LANGS}
    sources.update({page: ROOT / "docs" / "screenshots" / name for page, name in SHARED.items()})
    for name, source in sources.items():
        image = QImage(str(source))
        if image.isNull():
            print(f"guide_images: cannot read {source}", file=sys.stderr)
            return 1
        small = image.scaledToWidth(WIDTH, Qt.TransformationMode.SmoothTransformation)
        out = out_dir / f"{name}.jpg"
        small.save(str(out), "JPEG", 88)
        print(out.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
