"""packaging/linux/install.sh never replaces or removes a `karuta` command it did not
make (issue 24, data loss 4: pipx puts one at ~/.local/bin/karuta), and writes its
menu entry without following a link planted at its name."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP_ID = "io.github.karutatrainer.KarutaTrainer"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def unpacked(where: Path) -> Path:
    """An unpacked trainer folder, as packaging/build.sh makes it (contents faked)."""
    where.mkdir(parents=True)
    shutil.copy(ROOT / "packaging/linux/install.sh", where / "install.sh")
    (where / "karuta").write_text("#!/bin/sh\necho trainer\n")
    (where / "karuta").chmod(0o755)
    for sub, name, body in (("icons/hicolor/48x48/apps", f"{APP_ID}.png", "png"),
                            ("icons/hicolor/scalable/apps", f"{APP_ID}.svg", "<svg/>"),
                            ("metainfo", f"{APP_ID}.metainfo.xml", "<component/>"),
                            ("applications", f"{APP_ID}.desktop", "[Desktop Entry]\nExec=karuta\n")):
        (where / "share" / sub).mkdir(parents=True, exist_ok=True)
        (where / "share" / sub / name).write_text(body)
    return where


def run(folder: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "PATH": os.environ["PATH"]}
    return subprocess.run(["bash", str(folder / "install.sh"), *args], env=env,
                          capture_output=True, text=True, timeout=60)


def state(path: Path):
    st = path.lstat()
    return (os.readlink(path) if path.is_symlink() else path.read_bytes(), st.st_ino, st.st_mtime_ns)


@pytest.fixture
def pipx_karuta(tmp_path) -> Path:
    """~/.local/bin/karuta as `pipx install` leaves it: a link into pipx's venv."""
    venv_bin = tmp_path / "home/.local/share/pipx/venvs/karuta-trainer/bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "karuta").write_text("#!/bin/sh\necho pipx\n")
    link = tmp_path / "home/.local/bin/karuta"
    link.parent.mkdir(parents=True)
    link.symlink_to(venv_bin / "karuta")
    return link


@pytest.fixture
def own_script(tmp_path) -> Path:
    script = tmp_path / "home/.local/bin/karuta"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\necho my own\n")
    return script


@pytest.mark.parametrize("existing", ["pipx_karuta", "own_script"])
def test_install_refuses_a_karuta_it_did_not_make_and_changes_nothing(tmp_path, existing, request):
    link = request.getfixturevalue(existing)
    before = state(link)
    proc = run(unpacked(tmp_path / "dist"), tmp_path / "home")
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "did not make" in proc.stderr
    assert state(link) == before
    assert not (tmp_path / "home/.local/share/applications").exists()


@pytest.mark.parametrize("existing", ["pipx_karuta", "own_script"])
def test_remove_leaves_a_karuta_it_did_not_make(tmp_path, existing, request):
    link = request.getfixturevalue(existing)
    before = state(link)
    proc = run(unpacked(tmp_path / "dist"), tmp_path / "home", "--remove")
    assert proc.returncode == 0 and "left as it is" in proc.stderr
    assert state(link) == before


def test_install_then_remove_its_own_link(tmp_path):
    home = tmp_path / "home"
    first = unpacked(tmp_path / "dist")
    assert run(first, home).returncode == 0
    link = home / ".local/bin/karuta"
    assert os.readlink(link) == str(first / "karuta")
    moved = unpacked(tmp_path / "moved")                 # installed again from another folder
    assert run(moved, home).returncode == 0
    assert os.readlink(link) == str(moved / "karuta")
    assert run(moved, home, "--remove").returncode == 0
    assert not os.path.lexists(link)
    assert not (home / f".local/share/applications/{APP_ID}.desktop").exists()


def test_the_menu_entry_is_not_written_through_a_planted_link(tmp_path):
    home = tmp_path / "home"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    apps = home / ".local/share/applications"
    apps.mkdir(parents=True)
    (apps / f"{APP_ID}.desktop").symlink_to(victim)
    assert run(unpacked(tmp_path / "dist"), home).returncode == 0
    assert victim.read_text() == "precious"
    assert "Exec=" in (apps / f"{APP_ID}.desktop").read_text()
