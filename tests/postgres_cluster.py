"""A PostgreSQL cluster of the test's own: initdb and pg_ctl in a temporary folder, on
127.0.0.1 and a free port, as an unprivileged user when run as root; stopped at the end.
Without PostgreSQL's programs a test using it skips, saying why; in CI
(KARUTA_REQUIRE_REAL=1) it fails instead, since CI installs apt's ``postgresql``."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.server_fixtures import free_port


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


def _unavailable(reason: str) -> None:
    if os.environ.get("KARUTA_REQUIRE_REAL") == "1":
        pytest.fail(f"PostgreSQL test could not run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def postgres():
    bindir = _pg_bin()
    if bindir is None:
        _unavailable("PostgreSQL is not installed (apt-get install postgresql)")
    user = None
    if os.geteuid() == 0:      # initdb refuses to run as root: run the cluster as nobody
        user = "nobody"
    base = Path(tempfile.mkdtemp(prefix="karuta-pg-"))
    data, sock = base / "data", base / "sock"
    data.mkdir()
    sock.mkdir()
    os.chmod(base, 0o755)
    if user:
        shutil.chown(data, user)
        shutil.chown(sock, user)
    port = free_port()

    def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([str(bindir / args[0]), *args[1:]], user=user, capture_output=True,
                              text=True, timeout=timeout, cwd=base)

    made = run("initdb", "-D", str(data), "-U", "karuta", "-A", "trust", "-E", "UTF8", "--no-instructions")
    if made.returncode:
        shutil.rmtree(base, ignore_errors=True)
        _unavailable(f"initdb failed: {made.stderr.strip().splitlines()[-1:]}")
    started = run("pg_ctl", "-D", str(data), "-l", str(data / "log"), "-w", "-t", "30", "-o",
                  f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
    try:
        if started.returncode:
            _unavailable(f"PostgreSQL did not start: {started.stderr.strip()[-200:]}")
        yield f"postgresql://karuta@127.0.0.1:{port}/postgres"
    finally:
        run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)
