"""The docs name only files the repository has.

A reader (or a packager reading the sdist) who follows a path the README or a
doc page gives must find the file. The one exception is docs/references.md,
which names the founding team's local copies of third-party rules pages that
are deliberately not in the repository (their licence does not allow it).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A backticked repository path with a file extension: `poems/data/poems.json`.
PATH = re.compile(
    r"`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:py|md|json|txt|sh|ini|toml|png|xml|desktop|spec|cfg))`"
)
LOCAL_COPIES = ("reference/", "data/hyakunin_isshu.json")


def _doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_path_a_doc_names_exists():
    missing = []
    for page in _doc_pages():
        for match in PATH.finditer(page.read_text(encoding="utf-8")):
            path = match.group(1)
            if page.name == "references.md" and path.startswith(LOCAL_COPIES):
                continue
            # A path out of the repository ("../shared/…") exists only on some machines.
            if path.startswith("../") or not (ROOT / path).exists():
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert not missing, "docs name files the repository lacks:\n" + "\n".join(missing)


def test_the_scan_sees_paths():
    # Guard against a pattern that silently matches nothing.
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    assert "poems/data/poems.json" in {m.group(1) for m in PATH.finditer(text)}


def test_every_screenshot_is_shown_somewhere():
    """A screenshot no page shows goes stale unseen (issue 26 found ten, some showing screens
    that had since changed): each one in docs/screenshots is used by the README, a doc page
    or the guide's picture tool."""
    pages = "".join(p.read_text(encoding="utf-8") for p in _doc_pages())
    pages += "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tools").glob("*.py"))  # the guide's sources
    unused = sorted(p.name for p in (ROOT / "docs" / "screenshots").glob("*.png") if p.name not in pages)
    assert not unused, f"screenshots no page shows: {unused}"
