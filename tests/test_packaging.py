"""What a player installs: the wheel holds the poem data and the icons and runs `karuta --version`
from itself; the standalone build, when one was made, runs with no Python of ours on PATH."""
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "build" / "dist" / "karuta"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # No build isolation: the test must not need the network (setuptools >= 77 is a test dependency).
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(ROOT)], check=True, capture_output=True, cwd=out)
    (found,) = out.glob("karuta_trainer-*.whl")
    return found


@pytest.mark.slow
def test_wheel_holds_the_poems_the_icons_and_an_spdx_licence(wheel):
    from trainer import __version__
    assert wheel.name.startswith(f"karuta_trainer-{__version__}-")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = z.read(f"karuta_trainer-{__version__}.dist-info/METADATA").decode()
        entry_points = z.read(f"karuta_trainer-{__version__}.dist-info/entry_points.txt").decode()
    assert "poems/data/poems.json" in names
    assert "trainer/resources/icons/karuta-trainer.svg" in names
    assert {f"trainer/resources/icons/karuta-trainer-{n}.png" for n in (16, 32, 48, 128, 256, 512)} <= names
    assert f"karuta_trainer-{__version__}.dist-info/licenses/LICENSE" in names
    assert "License-Expression: MIT" in metadata
    assert "karuta = trainer.cli:main" in entry_points


@pytest.mark.slow
def test_karuta_from_the_unpacked_wheel_alone_gives_its_version_and_its_poems(wheel, tmp_path):
    """Unpacked away from the checkout and first on the path: the code and data come from the wheel."""
    from trainer import __version__
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    run = f"import sys; sys.path.insert(0, {str(site)!r}); from trainer.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    version = subprocess.run([sys.executable, "-c", run, "--version"], capture_output=True, text=True,
                             cwd=tmp_path, env=env)
    assert version.returncode == 0 and version.stdout.strip() == f"karuta {__version__}"
    run_where = run.replace("from trainer.cli", "import poems; print(poems.__file__); from trainer.cli")
    where = subprocess.run([sys.executable, "-c", run_where, "poems"], capture_output=True, text=True,
                           cwd=tmp_path, env=env)
    assert where.returncode == 0, where.stderr
    lines = where.stdout.splitlines()
    assert lines[0].startswith(str(site))
    assert "あきのたの かりほのいほの" in lines[1] and len(lines) == 101


def test_cli_version_matches_the_package_version(capsys):
    from trainer import __version__
    from trainer.cli import main
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"karuta {__version__}"


@pytest.mark.slow
@pytest.mark.skipif(not (DIST / "karuta").exists(), reason="no standalone build: bash packaging/build.sh")
def test_the_standalone_build_renders_three_cards_with_no_python_on_path(tmp_path):
    import soundfile as sf
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KARUTA_DATA_DIR": str(tmp_path / "data")}
    version = subprocess.run([str(DIST / "karuta"), "--version"], env=env, capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("karuta ")
    out = tmp_path / "three.flac"
    read = subprocess.run([str(DIST / "karuta"), "read", "--out", str(out), "--cards", "3"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr[-2000:]
    info = sf.info(str(out))
    assert info.samplerate == 48_000 and info.duration > 40


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None or shutil.which("appstreamcli") is None,
                    reason="desktop-file-utils / appstream not installed")
def test_desktop_entry_and_appstream_metadata_validate():
    out = subprocess.run(["bash", str(ROOT / "packaging" / "validate-desktop.sh")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_desktop_entry_names_the_icon_and_the_command_that_exist():
    desktop = next((ROOT / "packaging" / "linux").glob("*.desktop"))
    fields = dict(line.split("=", 1) for line in desktop.read_text().splitlines() if "=" in line)
    assert fields["Icon"] == desktop.stem
    assert fields["Exec"].split()[0] == "karuta"
    metainfo = desktop.with_name(desktop.stem + ".metainfo.xml").read_text()
    assert f"<launchable type=\"desktop-id\">{desktop.name}</launchable>" in metainfo
    from trainer import __version__
    assert f'<release version="{__version__}"' in metainfo


# A fast part of the suite that needs every kind of test helper module (ui_fakes, fixtures_audio,
# audio_timing), the desktop entry and AppStream file, and the layering guard.
SDIST_SELECTION = [
    "tests/test_startup_safety.py",
    "tests/test_import_safety.py",
    "tests/test_audio_timing_judge.py",
    "tests/test_layering.py",
    "tests/test_packaging.py::test_desktop_entry_names_the_icon_and_the_command_that_exist",
    "tests/test_packaging.py::test_desktop_entry_and_appstream_metadata_validate",
]


@pytest.mark.slow
def test_the_sdist_runs_its_own_tests(tmp_path):
    """What a distribution does with the source archive: unpack it, and test it from there."""
    out = tmp_path / "sdist"
    # setuptools directly (a test dependency), as `python -m build --sdist` would, without the network.
    build = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
                            "print(b.build_sdist(sys.argv[1]))", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr[-2000:]
    (archive,) = out.glob("karuta_trainer-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    (src,) = (tmp_path / "unpacked").iterdir()
    for helper in ("conftest.py", "fixtures_audio.py", "marks_sweep.py", "stats_fakes.py", "ui_fakes.py",
                   "audio_timing.py"):
        assert (src / "tests" / helper).is_file(), helper
    assert list((src / "packaging" / "linux").glob("*.desktop"))
    assert list((src / "packaging" / "linux").glob("*.metainfo.xml"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # The unpacked tree is the working folder, so its packages come first on the path (before the
    # checkout's editable install); the first test checks that.
    where = subprocess.run([sys.executable, "-c", "import trainer, audio, poems; "
                            "print(trainer.__file__, audio.__file__, poems.__file__)"],
                           cwd=src, env=env, capture_output=True, text=True, timeout=60)
    assert where.returncode == 0 and all(p.startswith(str(src)) for p in where.stdout.split()), where
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-m", "not slow and not realaudio and not xvfb", *SDIST_SELECTION],
                         cwd=src, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and "error" not in run.stdout.splitlines()[-1]


def test_metainfo_names_its_developer_and_shares_the_desktop_entrys_categories():
    import xml.etree.ElementTree as ET
    desktop = next((ROOT / "packaging" / "linux").glob("*.desktop"))
    fields = dict(line.split("=", 1) for line in desktop.read_text().splitlines() if "=" in line)
    component = ET.parse(desktop.with_name(desktop.stem + ".metainfo.xml")).getroot()
    assert {c.text for c in component.iter("category")} == set(filter(None, fields["Categories"].split(";")))
    assert component.find("developer_name") is None          # deprecated since AppStream 1.0
    developer = component.find("developer")
    assert developer is not None and developer.get("id") and developer.findtext("name")
    # No made-up addresses: the placeholder organisation's pages are not the project's.
    addresses = [e.text or "" for e in (*component.iter("url"), *component.iter("image"))]
    assert not [a for a in addresses if "karutatrainer/" in a]


def _packages(listing: Path) -> set[str]:
    return {line.strip() for line in listing.read_text().splitlines() if line.strip() and not line.startswith("#")}


@pytest.mark.parametrize("flag, lists", [
    ("", ["system-packages.txt"]),
    ("--test", ["system-packages.txt", "system-packages-test.txt"]),
    ("--system-only", ["system-packages.txt", "system-packages-test.txt"]),
])
def test_bootstrap_asks_for_what_running_needs_and_the_test_tools_only_for_tests(tmp_path, flag, lists):
    """packaging/run.sh (no flag) must not install Xvfb, ImageMagick, ffmpeg ... as root just to run.

    bootstrap.sh runs from a copy of packaging/ whose .venv is already installed, with a dpkg-query
    that finds nothing and an id that is not root: it then names every missing package and stops.
    """
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "packaging", root / "packaging")
    shutil.copy(ROOT / "pyproject.toml", root)
    venv_bin = root / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text("#!/bin/sh\nexit 0\n")
    (venv_bin / "python").chmod(0o755)
    (root / ".venv" / ".installed").touch()
    (root / ".venv" / ".installed[test]").touch()
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, script in (("dpkg-query", "exit 1"), ("id", "echo 1000")):
        (fake / name).write_text(f"#!/bin/sh\n{script}\n")
        (fake / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:/usr/bin:/bin")
    run = subprocess.run(["bash", str(root / "packaging" / "bootstrap.sh"), *filter(None, [flag])],
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    (command,) = [line for line in run.stderr.splitlines() if "apt-get install" in line]
    asked = set(command.split("apt-get install", 1)[1].split())
    assert asked == set().union(*(_packages(ROOT / "packaging" / name) for name in lists))
    if not flag:
        assert not asked & _packages(ROOT / "packaging" / "system-packages-test.txt")


# Licence folders named in About under another name than their own.
ABOUT_NAMES = {"qt-pyside6": "Qt 6", "PySide6_Essentials": "PySide6", "debian": "licenses/debian"}


def _simple(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


@pytest.mark.slow
@pytest.mark.skipif(not (DIST / "karuta").exists(), reason="no standalone build: bash packaging/build.sh")
def test_every_file_of_the_standalone_build_has_its_licence_and_about_names_them_all():
    """packaging/bundle_licences.py placed every file; the test checks it did, from the files."""
    licences = DIST / "_internal" / "licenses"
    placed = dict(line.split("\t") for line in (licences / "FILES.tsv").read_text().splitlines())
    everything = sorted(p.relative_to(DIST).as_posix() for p in DIST.rglob("*") if p.is_file())
    assert [f for f in everything if f not in placed] == []
    for folder in set(placed.values()) - {"licenses"}:
        texts = [p for p in (licences / folder).rglob("*") if p.is_file() and p.stat().st_size > 0]
        assert texts, f"licenses/{folder} holds no licence text"
    libraries = [f for f in everything if ".so" in f.rsplit("/", 1)[-1]]
    assert libraries and not [f for f in libraries if placed[f] in ("licenses", "karuta-trainer")]
    sources = (licences / "SOURCES.txt").read_text()
    for folder in {v for v in placed.values() if v.startswith("debian/")}:
        assert f"\n{folder.removeprefix('debian/')}\t" in sources       # its source package and version
    # What the user's system provides, and a plugin whose toolkit is not bundled, stay out.
    assert not [f for f in everything if f.rsplit("/", 1)[-1].startswith(("libstdc++.so", "libgcc_s.so"))
                or "libqgtk3" in f]
    from trainer.ui.about import COMPONENTS
    about = _simple(" ".join(name for name, _, _ in COMPONENTS))
    top = sorted(p.name for p in licences.iterdir() if p.is_dir() and p.name != "karuta-trainer")
    assert [t for t in top if _simple(ABOUT_NAMES.get(t, t)) not in about] == []


def _bundle_licences():
    import importlib.util
    spec = importlib.util.spec_from_file_location("bundle_licences", ROOT / "packaging" / "bundle_licences.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_icu_inside_pyside6_is_placed_under_its_own_licence_not_qts(tmp_path):
    """ICU ships inside PySide6's wheel under ICU's (Unicode's) licence; the bundle must not
    claim it is LGPL like Qt (issue 26: it had no licence text of its own)."""
    bl = _bundle_licences()
    assert bl.vendored_folder(Path("PySide6/Qt/lib/libicuuc.so.73")) == "icu"
    assert bl.vendored_folder(Path("PySide6/Qt/lib/libQt6Core.so.6")) is None
    assert bl.vendored_folder(Path("libicuuc.so.72")) is None       # a system copy goes to Debian's
    if not list(Path("/usr/share/doc").glob("libicu[0-9]*/copyright")):
        assert bl.vendored_licence("icu", tmp_path) is False         # unplaced: the build stops
        return
    assert bl.vendored_licence("icu", tmp_path) is True
    text = (tmp_path / "icu" / "copyright").read_text(errors="replace")
    assert "Unicode" in text and "ICU" in text
    assert "unicode-org/icu" in (tmp_path / "icu" / "README").read_text()
    from trainer.ui.about import COMPONENTS
    assert any("ICU" in name for name, _, _ in COMPONENTS)


@pytest.mark.slow
@pytest.mark.skipif(not (DIST / "karuta").exists(), reason="no standalone build: bash packaging/build.sh")
def test_the_standalone_build_serves_a_club_on_its_embedded_database(tmp_path):
    """`karuta serve` from the tarball: one command, SQLite, migrations found (they are .py
    files Alembic reads, not archive modules); bots play two tables to the end on it."""
    import signal
    import socket
    import time
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KARUTA_DATA_DIR": str(tmp_path / "data")}
    server = subprocess.Popen([str(DIST / "karuta"), "serve", "--port", str(port)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert server.poll() is None, server.stdout.read()
        bot = subprocess.run([str(DIST / "karuta"), "bot", "--server", f"ws://127.0.0.1:{port}/ws",
                              "--game", "yomi", "--tables", "2"], env=env, capture_output=True,
                             text=True, timeout=120)
        assert bot.returncode == 0, bot.stderr
        assert "2 yomi tables finished" in bot.stdout + bot.stderr
        assert (tmp_path / "data" / "server.sqlite").is_file()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    pg = subprocess.run([str(DIST / "karuta"), "serve", "--db", "postgresql://club@127.0.0.1/karuta"],
                        env=env, capture_output=True, text=True, timeout=60)
    assert pg.returncode != 0 and "Traceback" not in pg.stderr
    assert pg.stderr.count("\n") == 1 and "psycopg" in pg.stderr
