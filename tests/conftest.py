"""Shared test set-up: no test touches the user's real data or needs a display."""
import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Where the user's files are, for every test and every fixture of any scope. Set here, at
# conftest import, before any test module, fixture or library (platformdirs, Qt, fontconfig,
# PulseAudio's client) looks: a session- or module-scoped fixture runs before the per-test
# fixture below, so that one alone cannot keep them out of the real home and cache. The
# whole folder goes when the run ends (pytest_unconfigure); `KARUTA_TEST_CACHE` keeps the
# synthesis cache elsewhere between runs when asked. A set XDG_RUNTIME_DIR is left alone:
# the real-audio tests reach their PulseAudio server through it (packaging/test.sh makes a
# private one); an unset one gets ours, or PulseAudio's client makes /tmp/pulse-* folders.
ISOLATED_ROOT = Path(tempfile.mkdtemp(prefix="karuta-tests-"))
ISOLATED_DIRS = {
    "HOME": "home",
    "XDG_DATA_HOME": "home/.local/share",
    "XDG_CACHE_HOME": "home/.cache",
    "XDG_CONFIG_HOME": "home/.config",
    "XDG_STATE_HOME": "home/.local/state",
    "KARUTA_DATA_DIR": "userdata",
    "KARUTA_CACHE_DIR": "shared-cache",
    "HYPOTHESIS_STORAGE_DIRECTORY": "hypothesis",  # not .hypothesis/ in the source tree
}
for _name, _sub in ISOLATED_DIRS.items():
    (ISOLATED_ROOT / _sub).mkdir(parents=True, exist_ok=True)
    os.environ[_name] = str(ISOLATED_ROOT / _sub)
if os.environ.get("KARUTA_TEST_CACHE"):
    os.environ["KARUTA_CACHE_DIR"] = os.environ["KARUTA_TEST_CACHE"]
SHARED_CACHE = os.environ["KARUTA_CACHE_DIR"]
if not os.environ.get("XDG_RUNTIME_DIR"):
    (ISOLATED_ROOT / "run").mkdir(mode=0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(ISOLATED_ROOT / "run")

# PySide6 6.12 on Python 3.11 drops references to None/True/False (see the
# module's docstring); apply the workaround before any test touches Qt.
from trainer.ui._none_refcount import make_none_immortal  # noqa: E402

make_none_immortal()


@pytest.fixture(autouse=True)
def _private_user_data(tmp_path_factory, monkeypatch):
    """Every test gets its own data dir; the synthesis cache is shared by the session (it is slow to fill)."""
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path_factory.mktemp("userdata")))
    monkeypatch.setenv("KARUTA_CACHE_DIR", SHARED_CACHE)
    yield
    # The UI opens one statistics store per run; a test must not leave it open
    # on its own data dir for the next test to write into.
    import sys
    shared = sys.modules.get("trainer.ui.stats_store")
    if shared is not None:
        shared.close_shared()


REAL_MARKERS = ("realaudio", "xvfb")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (KARUTA_REQUIRE_REAL=1) a real-audio or real-display test may not skip.

    Those tests skip with a reason on a machine without PulseAudio or Xvfb; CI
    installs both, so a skip there would hide a broken set-up.
    """
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("KARUTA_REQUIRE_REAL") == "1" and report.skipped \
            and any(item.get_closest_marker(m) for m in REAL_MARKERS):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"required real-audio/real-display test skipped in CI: {reason}"


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """End the test process without Python's own finalisation.

    With PySide6 6.12 on Python 3.11 (see trainer/ui/_none_refcount.py) the interpreter's
    teardown, after every test has passed and been reported, sometimes crashes (SIGSEGV, "no
    Python frame") once several main windows with pyqtgraph charts have come and gone in one
    process: a run measured 3 crashes in 5. Everything a test writes is closed and committed
    by then, so exiting here loses nothing and keeps pytest's own exit status.
    """
    shutil.rmtree(ISOLATED_ROOT, ignore_errors=True)
    if os.environ.get("KARUTA_TEST_NO_FAST_EXIT"):
        return
    import sys
    session = getattr(config, "_karuta_exitstatus", None)
    sys.stdout.flush()
    sys.stderr.flush()
    if session is not None:
        os._exit(int(session))


def pytest_sessionfinish(session, exitstatus):
    session.config._karuta_exitstatus = exitstatus
