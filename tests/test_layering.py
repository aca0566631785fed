"""The layers stay apart (issue 9, point 8; issue 20, item 5): Qt only in trainer/ui;
nothing outside trainer/ui imports it; rules engines pure (no audio, no numpy);
game sessions Qt-free and clock-driven; text Qt-free; audio and poems import no
trainer; no import cycle between trainer's packages; poems on the standard
library alone.

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


GUI_ENTRY = Import(Path("trainer/cli.py"), 0, "trainer.ui.app")
"""The one way in: `karuta` with no subcommand opens the window (`trainer.cli.run_gui`)."""


def test_nothing_outside_trainer_ui_imports_it():
    def entry(i: Import) -> bool:
        return i.path == GUI_ENTRY.path and i.module in (GUI_ENTRY.module, f"{GUI_ENTRY.module}.run")

    offenders = [i for path in sources("poems", "audio", "trainer", exclude="trainer/ui")
                 for i in imports_of(path) if i.within("trainer.ui") and not entry(i)]
    _check(offenders, "trainer.ui is the top layer: nothing outside it imports it "
                      "(but the command line opening the window)")


def test_audio_and_poems_import_nothing_from_trainer():
    offenders = [i for path in sources("audio", "poems") for i in imports_of(path) if i.top == "trainer"]
    _check(offenders, "audio and poems sit below trainer: they import nothing from it")


def test_text_imports_no_qt_and_no_ui():
    offenders = [i for path in sources("trainer/text") for i in imports_of(path)
                 if i.top in QT or i.within("trainer.ui")]
    _check(offenders, "trainer/text words everything without Qt (the app, simulate --log, a server)")


def test_the_online_client_imports_no_qt_and_no_ui():
    offenders = [i for path in sources("trainer/online") for i in imports_of(path)
                 if i.top in QT or i.within("trainer.ui")]
    _check(offenders, "trainer/online is the app's Qt-free client (the Online tab is trainer/ui/online_*)")


def test_commands_and_simulators_do_not_import_the_command_line():
    """They raise `trainer.errors.UsageError`; the command line imports them, not the reverse."""
    offenders = [i for path in sources("trainer/commands", "trainer/sim") for i in imports_of(path)
                 if i.within("trainer.cli")]
    _check(offenders, "commands and simulators take UsageError/Failure from trainer.errors, not trainer.cli")


def unit_of(module: str) -> str | None:
    """The package of trainer a module belongs to: ``trainer.games.registry`` → ``trainer.games``;
    a module directly in trainer (``trainer.cli``) is its own unit; None outside trainer."""
    parts = module.split(".")
    if parts[0] != "trainer" or len(parts) < 2:
        return None
    candidate = ROOT.joinpath(*parts[:2])
    return ".".join(parts[:2]) if candidate.is_dir() or candidate.with_suffix(".py").is_file() else None


def package_graph() -> dict[str, dict[str, Import]]:
    """unit → {unit it imports: one import that shows it}."""
    graph: dict[str, dict[str, Import]] = {}
    for path in sources("trainer"):
        here = unit_of(".".join(path.relative_to(ROOT).with_suffix("").parts))
        assert here is not None
        for i in imports_of(path):
            there = unit_of(i.module)
            if there is not None and there != here:
                graph.setdefault(here, {}).setdefault(there, i)
    return graph


def find_cycle(graph: dict[str, dict[str, Import]]) -> list[str] | None:
    """One cycle of `graph` as [a, b, ..., a], or None (depth-first search)."""
    state: dict[str, int] = {}       # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    edge = Import(Path("x.py"), 1, "m")
    assert find_cycle({"a": {"b": edge}, "b": {"c": edge}, "c": {"a": edge}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": edge}, "b": {"c": edge}}) is None


def test_no_import_cycle_between_trainers_packages():
    """trainer.rules ↛ trainer.games, trainer.commands ↛ trainer.ui ... (imports inside
    functions count: a cycle there still means neither package stands without the other)."""
    graph = package_graph()
    cycle = find_cycle(graph)
    if cycle:
        shown = [str(graph[a][b]) for a, b in zip(cycle, cycle[1:])]
        pytest.fail("import cycle " + " → ".join(cycle) + ":\n  " + "\n  ".join(shown), pytrace=False)


def test_poems_imports_only_the_standard_library_and_itself():
    def foreign(i: Import) -> bool:
        return i.top != "poems" and i.top not in sys.stdlib_module_names and i.top != "__future__"

    offenders = [i for path in sources("poems") for i in imports_of(path) if foreign(i)]
    _check(offenders, "poems uses only the standard library")


PURE_MODULES = ("trainer.rules.kyogi", "trainer.rules.mubeyama", "trainer.games.registry",
                "trainer.text.kyogi", "trainer.text.mubeyama", "trainer.text.unsun", "trainer.text.yomi",
                "trainer.text.umebotan", "trainer.text.refusals", "trainer.text.help", "trainer.text.stats",
                "trainer.text.drills", "trainer.text.events", "trainer.text.import_report",
                "trainer.reader.session", "trainer.stats.demo", "trainer.errors",
                "trainer.online.client", "trainer.online.table", "trainer.online.games")
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
