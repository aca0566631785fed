"""Shared test set-up: no test touches the user's real data or needs a display."""
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# PySide6 6.12 on Python 3.11 drops references to None/True/False (see the
# module's docstring); apply the workaround before any test touches Qt.
from trainer.ui._none_refcount import make_none_immortal  # noqa: E402

make_none_immortal()


@pytest.fixture(autouse=True)
def _private_user_data(tmp_path_factory, monkeypatch):
    """Every test gets its own data dir; the synthesis cache is shared by the session (it is slow to fill)."""
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path_factory.mktemp("userdata")))
    cache = os.environ.get("KARUTA_TEST_CACHE") or str(tmp_path_factory.getbasetemp() / "shared-cache")
    monkeypatch.setenv("KARUTA_CACHE_DIR", cache)
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
