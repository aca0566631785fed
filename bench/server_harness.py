"""What the server benchmarks share: a throwaway PostgreSQL cluster, a `karuta serve` subprocess,
and the server process's CPU time and memory read from /proc.

Nothing here is a benchmark by itself; `bench_server_load.py` and `fuzz_server.py` use it.
"""
from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """A PostgreSQL cluster of its own (initdb + pg_ctl in a temporary folder, 127.0.0.1, a free
    port; as `nobody` when run by root, which initdb refuses), stopped and removed at the end.
    Yields its URL. The same set-up as tests/test_server_postgres.py."""
    bindir = _pg_bin()
    if bindir is None:
        raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
    user = "nobody" if os.geteuid() == 0 else None
    base = Path(tempfile.mkdtemp(prefix="karuta-bench-pg-"))
    data, sock = base / "data", base / "sock"
    data.mkdir()
    sock.mkdir()
    os.chmod(base, 0o755)
    if user:
        shutil.chown(data, user)
        shutil.chown(sock, user)
    port = free_port()

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(bindir / args[0]), *args[1:]], user=user, capture_output=True,
                              text=True, timeout=120, cwd=base)

    try:
        made = run("initdb", "-D", str(data), "-U", "karuta", "-A", "trust", "-E", "UTF8", "--no-instructions")
        if made.returncode:
            raise SystemExit(f"initdb failed: {made.stderr.strip()[-200:]}")
        # fsync stays on (the default): the figures are for a database that keeps what it confirms
        started = run("pg_ctl", "-D", str(data), "-l", str(data / "log"), "-w", "-t", "60", "-o",
                      f"-p {port} -k {sock} -c listen_addresses=127.0.0.1", "start")
        if started.returncode:
            raise SystemExit(f"PostgreSQL did not start: {started.stderr.strip()[-200:]}")
        yield f"postgresql://karuta@127.0.0.1:{port}/postgres"
    finally:
        run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)


class ServeProcess:
    """`python -m trainer.cli serve` on 127.0.0.1 and a free port; stopped with SIGINT at the end."""

    def __init__(self, db: str, extra: list[str] | None = None):
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "trainer.cli", "serve", "--port", str(self.port), "--db", db, *(extra or [])],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=1) as r:
                    r.read()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise SystemExit(f"karuta serve did not start: {self.stderr()[-300:]}") from None
                time.sleep(0.1)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read()

    def stop(self) -> str:
        """Stops the server; what it wrote on stderr (its log) is returned."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        return self.stderr()


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB (VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
