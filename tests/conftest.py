"""Shared test set-up: no test touches the user's real data or needs a display."""
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _private_user_data(tmp_path_factory, monkeypatch):
    """Every test gets its own data dir; the synthesis cache is shared by the session (it is slow to fill)."""
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path_factory.mktemp("userdata")))
    cache = os.environ.get("KARUTA_TEST_CACHE") or str(tmp_path_factory.getbasetemp() / "shared-cache")
    monkeypatch.setenv("KARUTA_CACHE_DIR", cache)
