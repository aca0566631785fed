"""The layers stay apart (issue 9, point 8): Qt only in trainer/ui; rules engines
pure (no audio, no numpy); game sessions Qt-free and clock-driven; poems on the
standard library alone.

Imports are read from the source with `ast` (imports inside functions count
too), so a failure names the file and line; the last test imports the pure
modules in a fresh interpreter and checks what really got loaded.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

QT = {"PySide6", "pyqtgraph", "shiboken6"}
NUMERIC_AND_SOUND = {"numpy", "scipy", "soundfile", "sounddevice"}


@dataclass(frozen=True)
class Import:
    """One imported module as written in the source (relative imports resolved)."""

    path: Path  # relative to the checkout
    line: int
    module: str

    @property
    def top(self) -> str:
        return self.module.split(".")[0]

    def within(self, package: str) -> bool:
        return self.module == package or self.module.startswith(package + ".")

    def __str__(self) -> str:
        return f"{self.path}:{self.line} imports {self.module}"


def imports_of(path: Path, root: Path = ROOT) -> list[Import]:
    """Every module `path` imports, anywhere in the file. ``from pkg import name``
    counts as ``pkg.name`` too, since `name` may be a submodule."""
    where = path.relative_to(root)
    package = list(where.parts[:-1])  # where a relative import starts (pkg/__init__.py and pkg/mod.py alike: pkg)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(where, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append(Import(where, node.lineno, module))
            found += [Import(where, node.lineno, f"{module}.{alias.name}") for alias in node.names
                      if alias.name != "*"]
    return found


def sources(*folders: str, exclude: str | None = None) -> list[Path]:
    out = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if exclude and (ROOT / exclude) in path.parents:
                continue
            out.append(path)
    assert out, f"no Python files under {folders}"
    return out


def _check(offenders: list[Import], rule: str) -> None:
    """Fail naming every offending file and line once (``from a import b`` reads as a and a.b)."""
    lines = {(i.path, i.line): i for i in reversed(offenders)}
    if lines:
        pytest.fail(rule + ":\n  " + "\n  ".join(str(i) for _, i in sorted(lines.items())), pytrace=False)


def test_imports_are_read_from_anywhere_in_a_file(tmp_path):
    """The scanner itself: imports inside functions and relative imports are seen."""
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    source = package / "mod.py"
    source.write_text("import os\n\ndef later():\n    from PySide6.QtCore import Qt\n"
                      "    from ..other import thing\n    from . import sibling\n", encoding="utf-8")
    found = {(i.line, i.module) for i in imports_of(source, root=tmp_path)}
    assert {(1, "os"), (4, "PySide6.QtCore"), (5, "pkg.other"), (5, "pkg.other.thing"),
            (6, "pkg.sub"), (6, "pkg.sub.sibling")} <= found


def test_no_module_outside_trainer_ui_imports_qt():
    offenders = [i for path in sources("poems", "audio", "trainer", exclude="trainer/ui")
                 for i in imports_of(path) if i.top in QT]
    _check(offenders, "only trainer/ui may import Qt (PySide6, pyqtgraph, shiboken6)")


def test_rules_engines_import_no_audio_numpy_or_ui():
    offenders = [i for path in sources("trainer/rules") for i in imports_of(path)
                 if i.top in NUMERIC_AND_SOUND or i.within("audio") or i.within("trainer.ui") or i.top in QT]
    _check(offenders, "rules engines are pure: no audio, numpy, scipy, soundfile, sounddevice or trainer.ui")


def test_game_sessions_import_no_qt_and_from_audio_only_the_clock():
    def bad(i: Import) -> bool:
        if i.top in QT or i.within("trainer.ui"):
            return True
        # `from audio import clock` reads as "audio" and "audio.clock": the bare package is fine
        return i.within("audio") and i.module != "audio" and not i.within("audio.clock")

    offenders = [i for path in sources("trainer/games") for i in imports_of(path) if bad(i)]
    _check(offenders, "game sessions are pure: no Qt, and from audio only audio.clock")


def test_poems_imports_only_the_standard_library_and_itself():
    def foreign(i: Import) -> bool:
        return i.top != "poems" and i.top not in sys.stdlib_module_names and i.top != "__future__"

    offenders = [i for path in sources("poems") for i in imports_of(path) if foreign(i)]
    _check(offenders, "poems uses only the standard library")


PURE_MODULES = ("trainer.rules.kyogi", "trainer.rules.mubeyama", "trainer.games.registry",
                "trainer.text.kyogi", "trainer.text.mubeyama", "trainer.text.unsun", "trainer.text.yomi",
                "trainer.text.umebotan", "trainer.text.refusals", "trainer.text.help", "trainer.text.stats",
                "trainer.text.drills")
HEAVY = ("PySide6", "numpy", "shiboken6", "pyqtgraph", "scipy", "soundfile", "sounddevice")

_PROBE = """
import importlib, json, os, sys
heavy, where = set(sys.argv[2:]), {}

class Spy:
    # notes the file and line that first imports each heavy package, then lets the import go on
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in heavy and top not in where:
            frame = sys._getframe(1)
            while frame and (frame.f_code.co_filename.startswith("<") or "importlib" in frame.f_code.co_filename):
                frame = frame.f_back
            where[top] = f"{os.path.relpath(frame.f_code.co_filename)}:{frame.f_lineno}" if frame else "?"
        return None

sys.meta_path.insert(0, Spy())
importlib.import_module(sys.argv[1])
print(json.dumps({top: at for top, at in where.items() if top in sys.modules}))
"""


@pytest.mark.parametrize("module", PURE_MODULES)
def test_pure_modules_load_neither_qt_nor_numpy(module):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _PROBE, module, *HEAVY], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"importing {module} failed:\n{done.stderr}"
    loaded = json.loads(done.stdout)
    if loaded:
        pytest.fail("\n".join(f"importing {module} loads {name}, first imported at {at}"
                              for name, at in sorted(loaded.items())), pytrace=False)
