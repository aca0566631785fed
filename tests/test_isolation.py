"""A test run keeps out of the user's home and cache (tests/conftest.py redirects them at import).

A representative part of the suite runs in a child pytest whose HOME is an empty folder of ours
and whose environment names no data, cache or config folder: the synthesis fixture of module
scope (which used to fill the real ~/.cache before the per-test redirection ran), the
statistics store, the Qt settings and main window. Afterwards that home must still be empty and
the child's temporary folder hold nothing but pytest's own.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# One file per kind of writer: module-scoped synthesis into the clip cache, the statistics
# database, the settings file and the main window.
REPRESENTATIVE = [
    "tests/test_render_synth_rhythm.py",
    "tests/test_stats_store.py",
    "tests/test_ui_settings_audio.py",
]
WHERE_FILES_GO = ("KARUTA_DATA_DIR", "KARUTA_CACHE_DIR", "KARUTA_TEST_CACHE", "HYPOTHESIS_STORAGE_DIRECTORY")


def _everything_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.slow
def test_a_run_writes_nothing_into_home_or_outside_its_temporary_folder(tmp_path):
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("XDG_") or k == "XDG_RUNTIME_DIR"}
    for name in WHERE_FILES_GO:
        env.pop(name, None)
    env.update(HOME=str(home), TMPDIR=str(tmp))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-m", "not realaudio and not xvfb", *REPRESENTATIVE],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout
    assert _everything_under(home) == []
    # The conftest's own folder is gone; only pytest's numbered base folders remain.
    assert [p.name for p in tmp.iterdir() if not p.name.startswith("pytest-of-")] == []
