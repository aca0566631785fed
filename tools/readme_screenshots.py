"""Retake the README's and the guide's pictures of the whole window and its dialogs, in one go.

    Xvfb :57 -screen 0 1600x1000x24 -nolisten tcp &      # a real X server (or run offscreen)
    DISPLAY=:57 QT_QPA_PLATFORM=xcb PYTHONPATH=. python tools/readme_screenshots.py [OUT_DIR] [PART ...]

OUT_DIR defaults to docs/screenshots; PART is walk, tools or dialogs (default: all three).
Look at every picture before committing it. Made here:

- from the legibility walk's screens (`tests/test_ui_legible.py` with ``KARUTA_WALK_SHOTS``):
  unsun-table.png (English, 1600×1000), unsun-table-ja.png (日本語, 1024×700),
  stats-dashboard.png (English, 1600×1000), and the guide's own pictures
  (trainer/resources/guide, by `tools/guide_images.py`);
- reader.png (`tools/reader_screenshot.py 1600 1000 ja`), match.png and match-result.png
  (`tools/match_screenshots.py 1600 1000 ja`);
- guide-en/ja.png and about-en/ja.png: the dialogs at 1024×700 (About shows a user's usual
  folders, not this run's temporary ones).

Made elsewhere: the Mubeyama tables (`tools/mubeyama_screenshots.py`), Yomi and Ume Botan
(`cards_screenshots.py`), bōzu-mekuri (`bozu_screenshots.py`), the Online tab
(`online_screenshots.py`), the floor races; welcome, import and first-run are not retaken.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FROM_WALK = {   # README picture → the walk's screen
    "unsun-table.png": "unsun-en-1600x1000.png",
    "unsun-table-ja.png": "unsun-ja-1024x700.png",
    "stats-dashboard.png": "stats-en-1600x1000.png",
}
WALK_SCREENS = "every_screen and (reader or match or drills or mubeyama or unsun or stats)"
HOME = Path("/home/player")          # the folders About shows: a user's, not this run's


def run(*args: str, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run(args, cwd=ROOT, check=True, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def walk(out: Path, tmp: Path) -> None:
    shots = tmp / "walk"
    run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_ui_legible.py",
        "-k", WALK_SCREENS, env={"KARUTA_WALK_SHOTS": str(shots)})
    for name, screen in FROM_WALK.items():
        shutil.copyfile(shots / screen, out / name)
        print(out / name)
    run(sys.executable, "tools/guide_images.py", str(shots))


def tools(out: Path, tmp: Path) -> None:
    run(sys.executable, "tools/reader_screenshot.py", "1600", "1000", "ja", str(out / "reader.png"))
    run(sys.executable, "tools/match_screenshots.py", "1600", "1000", "ja", str(tmp / "match"))
    for name in ("match.png", "match-result.png"):
        shutil.copyfile(tmp / name, out / name)
        print(out / name)


def dialogs(out: Path, tmp: Path) -> None:
    """The guide's first page and About, in each language, as the window shows them."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["KARUTA_DATA_DIR"] = str(tmp / "data")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    import trainer.ui  # noqa: F401  (the PySide6 workaround first)
    from trainer.ui import about
    from trainer.ui import settings as S
    from trainer.ui.about import AboutDialog
    from trainer.ui.guide import GuideDialog
    from trainer.ui.i18n import LANG
    app = QApplication.instance() or QApplication([])
    settings = S.Settings(QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat))
    about.data_locations = lambda settings=None: [   # type: ignore[assignment]
        ("about.data_dir", HOME / ".local/share/karuta-trainer"),
        ("about.cache_dir", HOME / ".cache/karuta-trainer"),
        ("about.settings_file", HOME / ".config/karuta-trainer/karuta-trainer.ini")]
    for lang in ("en", "ja"):
        LANG.set(lang)
        for name, dialog in (("guide", GuideDialog(settings)), ("about", AboutDialog(settings))):
            dialog.resize(1024, 700)
            dialog.show()
            for _ in range(5):
                app.processEvents()
            path = out / f"{name}-{lang}.png"
            dialog.grab().save(str(path))
            print(path)
            dialog.close()
            dialog.deleteLater()
            app.processEvents()
    LANG.set("en")


PARTS = {"walk": walk, "tools": tools, "dialogs": dialogs}


def main(argv: list[str]) -> int:
    parts = [a for a in argv if a in PARTS] or list(PARTS)
    dirs = [a for a in argv if a not in PARTS]
    out = Path(dirs[0] if dirs else ROOT / "docs" / "screenshots").resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        for part in parts:
            PARTS[part](out, Path(t))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
