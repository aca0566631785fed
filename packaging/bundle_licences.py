"""Every file of the standalone build with the licence it ships under (run by packaging/build.sh).

PyInstaller copies two kinds of code into build/dist/karuta/_internal: the Python
distributions (their wheels carry their licence files: the spec copies them to
licenses/<distribution>/) and shared libraries from the build machine (PortAudio, readline,
libssl, libxcb-*, ...), which carry none. For each of those this finds the Debian package it
came from (`dpkg -S`), copies that package's copyright file to licenses/debian/<package>/,
and lists the package with its source package and version in licenses/SOURCES.txt, which
says where the corresponding source is (the written offer the LGPL and GPL ask for).

It writes licenses/FILES.tsv: every file of the bundle, tab, the licences/ folder that covers
it. A file it cannot place is printed and the exit status is 1: the build stops rather than
ship something whose licence nobody looked up.

    python packaging/bundle_licences.py build/dist/karuta
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

# Files this project puts into the bundle itself (packaging/build.sh, the spec), by prefix.
OWN = {
    "karuta": "karuta-trainer", "install.sh": "karuta-trainer", "README.md": "karuta-trainer",
    "LICENSE": "karuta-trainer", "share/": "karuta-trainer",
    "_internal/poems/": "karuta-trainer", "_internal/trainer/": "karuta-trainer",
    "_internal/audio/": "karuta-trainer", "_internal/fonts/": "fonts-noto-cjk",
    "_internal/licenses/": "licenses",
    # The interpreter and its standard library (PyInstaller's own bootloader is GPL-2.0 with
    # an exception for bundles like this one; its licence is Python's folder's neighbour).
    "_internal/base_library.zip": "python", "_internal/python3.": "python",
    "_internal/libpython": "python",
}
DIST_INFO = re.compile(r"^(?P<name>[^/]+?)-[^-/]+\.dist-info$")
SOURCE_OFFER = """\
Source code of the system libraries in this program
====================================================

The shared libraries below were copied from Debian packages of the machine this build was
made on. Their licences (in debian/<package>/copyright next to this file) include the GNU
LGPL and GPL, which entitle you to the complete corresponding source. It is the Debian source
package named on each line, in the version given, available from
  https://snapshot.debian.org/package/<source package>/<version>/
(and `apt-get source <source package>=<version>` on a Debian system).
Qt and PySide6 (LGPL-3.0) are built from the sources at https://download.qt.io/official_releases/
in the version of licenses/PySide6_Essentials/; this program links them dynamically, and you
may replace the files under _internal/PySide6/ with your own build of the same version.
ICU, inside Qt (licenses/icu), is at https://github.com/unicode-org/icu/releases.

package\tsource version\tsource package\tfiles
"""


def distribution_of_top_folders() -> dict[str, str]:
    """Top-level names in site-packages (a package, a `<name>.libs` folder of vendored
    libraries) -> the distribution that installed them."""
    tops: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        for f in dist.files or []:
            top = f.parts[0]
            if top.endswith(".dist-info") or top == "..":
                continue
            tops.setdefault(top.removesuffix(".py"), name)
    return tops


# Libraries that a wheel vendors under another licence than the wheel's own: PySide6 ships
# ICU (Unicode's ICU licence, not the LGPL) beside Qt. (folder under PySide6/, name prefix)
# -> licences/ folder, filled by `vendored_licence` from the Debian package of the same library.
VENDORED = {("PySide6", "libicu"): "icu"}
ICU_NOTE = """ICU, the Unicode library inside Qt 6 (_internal/PySide6/Qt/lib/libicu*), as built by The
Qt Company into the PySide6 wheels. Its licence (ICU's, the Unicode licence with its third-party
notices) is the file 'copyright' here, taken from Debian's libicu package of the build machine:
the same licence text as the ICU release in the wheel. Source: https://github.com/unicode-org/icu
/releases, the release whose number ends the library's file name (libicuuc.so.73: ICU 73).
"""


def vendored_folder(inner: Path) -> str | None:
    """The licences/ folder of a library a wheel vendors under its own licence, or None."""
    for (top, prefix), folder in VENDORED.items():
        if inner.parts[0] == top and inner.name.startswith(prefix):
            return folder
    return None


def vendored_licence(folder: str, licences: Path) -> bool:
    """Fill licences/<folder>/ (ICU: Debian's libicu copyright and a note); False if no text
    was found on this machine, so the files stay unplaced and the build stops."""
    copyrights = sorted(Path("/usr/share/doc").glob("libicu[0-9]*/copyright"))
    if folder != "icu" or not copyrights:
        return False
    (licences / folder).mkdir(exist_ok=True)
    shutil.copyfile(copyrights[-1], licences / folder / "copyright")
    (licences / folder / "README").write_text(ICU_NOTE, encoding="utf-8")
    return True


# Distributions whose wheels carry no licence file: the spec puts the licence they are under there.
NO_LICENCE_FILES = {"pyside6_essentials": "qt-pyside6", "shiboken6": "qt-pyside6"}


def licence_folder_of(dist_name: str, licences: Path) -> str | None:
    """The licenses/ folder the spec made for a distribution (named as the spec spells it)."""
    wanted = re.sub(r"[-_.]+", "_", dist_name).lower()
    for folder in licences.iterdir():
        if re.sub(r"[-_.]+", "_", folder.name).lower() == wanted and any(folder.iterdir()):
            return folder.name
    fallback = NO_LICENCE_FILES.get(wanted)
    return fallback if fallback and (licences / fallback).is_dir() else None


def _licence_from_metadata(info: Path, name: str, licences: Path) -> str | None:
    """A distribution the spec did not name (only its metadata came along): the licence files
    its .dist-info carries, copied to licenses/<name>/."""
    texts = [p for p in info.rglob("*") if p.is_file() and re.search(r"LICEN[CS]E|COPYING|NOTICE", p.name, re.I)]
    if not texts:
        return None
    (licences / name).mkdir(exist_ok=True)
    for text in texts:
        shutil.copyfile(text, licences / name / text.relative_to(info).as_posix().replace("/", "__"))
    return name


def debian_packages(names: list[str]) -> dict[str, str]:
    """Library file name -> Debian package (the first one dpkg knows it from, any lib folder)."""
    if not names or shutil.which("dpkg") is None:
        return {}
    out = subprocess.run(["dpkg", "-S", *(f"*/{n}" for n in names)], capture_output=True, text=True).stdout
    found: dict[str, str] = {}
    for line in out.splitlines():
        packages, _, path = line.partition(": ")
        name = Path(path).name
        if name in names and "/lib" in path:
            found.setdefault(name, packages.split(",")[0].split(":")[0].strip())
    return found


def package_facts(package: str) -> tuple[str, str]:
    """(source version, source package) of an installed Debian package: where its source is."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${source:Version}\t${source:Package}", package],
                         capture_output=True, text=True).stdout.strip()
    version, _, source = out.partition("\t")
    return version, source or package


def main(bundle: Path) -> int:
    internal, licences = bundle / "_internal", bundle / "_internal" / "licenses"
    (licences / "FILES.tsv").touch()           # it lists itself too
    (licences / "SOURCES.txt").touch()
    tops = distribution_of_top_folders()
    placed: dict[str, str] = {}
    system_libs: list[Path] = []
    links: list[tuple[str, str]] = []          # (a link, the file it names)
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        rel = path.relative_to(bundle).as_posix()
        own = next((folder for prefix, folder in OWN.items() if rel.startswith(prefix)), None)
        if own is not None:
            placed[rel] = own
            continue
        if path.is_symlink():                  # PyInstaller links libraries it keeps in a package folder
            target = path.resolve()
            if target.is_relative_to(bundle.resolve()):
                links.append((rel, target.relative_to(bundle.resolve()).as_posix()))
                continue
        inner = path.relative_to(internal)
        info = DIST_INFO.match(inner.parts[0])
        if info:                               # a distribution's metadata, kept for importlib.metadata
            folder = licence_folder_of(info["name"], licences) or _licence_from_metadata(
                internal / inner.parts[0], info["name"], licences)
            if folder:
                placed[rel] = folder
            continue
        vendored = vendored_folder(inner)
        if vendored is not None:
            if (licences / vendored).is_dir() or vendored_licence(vendored, licences):
                placed[rel] = vendored
            continue
        if len(inner.parts) > 1:              # inside a package folder: its distribution's licence
            dist = tops.get(inner.parts[0]) or tops.get(inner.parts[0].removesuffix(".libs"))
            folder = dist and licence_folder_of(dist, licences)
            if folder:
                placed[rel] = folder
            continue
        # A distribution's own top-level extension (openskill's mypyc helper, named by a hash)
        # is in its RECORD; any other library came from the build machine.
        own_dist = tops.get(path.name) or tops.get(path.name.split(".")[0])
        own_folder = own_dist and licence_folder_of(own_dist, licences)
        if own_folder:
            placed[rel] = own_folder
        elif ".so" in path.name:
            system_libs.append(path)
        else:                                  # a top-level module file of a distribution
            dist = tops.get(path.name.split(".")[0])
            folder = dist and licence_folder_of(dist, licences)
            if folder:
                placed[rel] = folder

    packages = debian_packages([p.name for p in system_libs])
    rows: dict[str, list[str]] = {}
    for lib in system_libs:
        package = packages.get(lib.name)
        copyright_file = Path("/usr/share/doc") / (package or "-") / "copyright"
        if package is None or not copyright_file.is_file():
            continue
        target = licences / "debian" / package
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(copyright_file, target / "copyright")
        placed[lib.relative_to(bundle).as_posix()] = f"debian/{package}"
        rows.setdefault(package, []).append(lib.name)
    with open(licences / "SOURCES.txt", "w", encoding="utf-8") as out:
        out.write(SOURCE_OFFER)
        for package, files in sorted(rows.items()):
            version, source = package_facts(package)
            out.write(f"{package}\t{version}\t{source}\t{' '.join(sorted(files))}\n")

    for link, target in links:
        if target in placed:
            placed[link] = placed[target]
    everything = sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file())
    placed.update({rel: "licenses" for rel in everything if rel.startswith("_internal/licenses/")})
    with open(licences / "FILES.tsv", "w", encoding="utf-8") as out:
        for rel in everything:
            if rel in placed:
                out.write(f"{rel}\t{placed[rel]}\n")
    unplaced = [rel for rel in everything if rel not in placed]
    for rel in unplaced:
        print(f"bundle_licences: no licence found for {rel}", file=sys.stderr)
    print(f"bundle_licences: {len(everything) - len(unplaced)} files placed, {len(rows)} Debian packages, "
          f"{len(unplaced)} without a licence", file=sys.stderr)
    return 1 if unplaced else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
