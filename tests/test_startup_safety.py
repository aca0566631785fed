"""Issue 11 findings 7 and 10: start-up never depends on a damaged session or settings
file (each case used to stop the app), and the settings live under KARUTA_DATA_DIR."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.main_window import MainWindow  # noqa: E402
from trainer.ui.reader_panel import ReaderPanel  # noqa: E402
from trainer.reader.session import ReaderSession, load_session, session_path  # noqa: E402
from ui_fakes import FakeDriver  # noqa: E402

from test_ui_app import FakeVoices  # noqa: E402

DAMAGED_SESSIONS = {
    "null": "null",
    "empty list": "[]",
    "infinity": "1e999",
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "infinite seed": '{"seed": 1e999, "order": [1, 2], "read": 0}',
    "text for a number": '{"seed": 1, "order": [1, 2], "read": "1"}',
    "fractional card": '{"seed": 1, "order": [1.5], "read": 0}',
    "timing a list": '{"seed": 1, "order": [1, 2], "read": 0, "timing": []}',
    "timing text": '{"seed": 1, "order": [1, 2], "read": 0, "timing": {"ma": "slow"}}',
    "timing infinite": '{"seed": 1, "order": [1, 2], "read": 0, "timing": {"speed": 1e999}}',
    "not UTF-8": b"\xff\xfe{",
}


@pytest.mark.parametrize("content", DAMAGED_SESSIONS.values(), ids=DAMAGED_SESSIONS.keys())
def test_a_damaged_session_is_ignored_with_a_message_and_left_alone(qtbot, tmp_path, content,
                                                                     capsys):
    path = session_path()
    data = content if isinstance(content, bytes) else content.encode()
    path.write_bytes(data)
    assert load_session() is None
    assert "saved reading session" in capsys.readouterr().err
    # The real start-up path: the reader panel builds, with a fresh session.
    LANG.set("en")
    panel = ReaderPanel(S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)),
                        FakeDriver())
    qtbot.addWidget(panel)
    assert path.read_bytes() == data                     # never deleted nor rewritten
    assert "saved reading session" in panel.startup_notice


def test_what_start_up_ignored_is_said_in_the_window(qtbot, tmp_path):
    session_path().write_text("[]", encoding="utf-8")
    ini = str(tmp_path / "settings.ini")
    q = QSettings(ini, QSettings.Format.IniFormat)
    q.setValue(S.MA.name, "inf")
    q.sync()
    LANG.set("en")
    w = MainWindow(S.Settings(QSettings(ini, QSettings.Format.IniFormat)), driver=FakeDriver(),
                   voices=FakeVoices())
    qtbot.addWidget(w)
    shown = w.statusBar().currentMessage()
    assert "saved reading session" in shown and S.MA.name in shown


def test_a_good_session_still_loads():
    s = ReaderSession.new(seed=5)
    s.read = 3
    s.save()
    again = load_session()
    assert again.order == s.order and again.read == 3


@pytest.mark.parametrize("key, raw", [
    (S.LANGUAGE, "xx"), (S.LANGUAGE, "de"), (S.MA, "inf"), (S.SPEED, "nan"),
    (S.MEMORISE_MIN, "1e999"),
], ids=lambda v: v.name if isinstance(v, S.Key) else v)
def test_a_foreign_setting_is_ignored_with_a_message(qtbot, tmp_path, key, raw, capsys):
    ini = str(tmp_path / "settings.ini")
    q = QSettings(ini, QSettings.Format.IniFormat)
    q.setValue(key.name, raw)
    q.sync()
    LANG.set("en")
    settings = S.Settings(QSettings(ini, QSettings.Format.IniFormat))
    w = MainWindow(settings, driver=FakeDriver(), voices=FakeVoices())   # used to raise
    qtbot.addWidget(w)
    assert LANG.code == "en"
    assert settings.get(key) == key.default
    assert any(key.name in m for m in settings.ignored)
    assert key.name in capsys.readouterr().err


def test_settings_live_under_karuta_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path / "elsewhere"))
    s = S.Settings()
    s.set(S.MA, 2.0)
    s.sync()
    assert os.path.dirname(s.store.fileName()) == str(tmp_path / "elsewhere")
    assert (tmp_path / "elsewhere" / "settings.ini").exists()
    assert S.Settings().get(S.MA) == 2.0


DAMAGED_INI = {
    "binary": bytes(range(256)) * 8,
    "not utf-8": b"[ui]\nlanguage=\xff\xfe\n",
    "control characters": b"[ui]\nlanguage=ja\n\x00\x01\n",
    "prose": b"this is a shopping list, not settings\n",
}


@pytest.mark.parametrize("case", sorted(DAMAGED_INI))
def test_a_damaged_settings_file_is_kept_and_said(tmp_path, monkeypatch, capsys, case):
    """Qt reads what it can of a damaged file and silently rewrites it at the next save;
    the app keeps the bytes beside it first, says so in one line, and runs on defaults."""
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path))
    ini = tmp_path / "settings.ini"
    ini.write_bytes(DAMAGED_INI[case])
    (tmp_path / "settings.ini.damaged").write_bytes(b"an earlier copy")   # never replaced
    s = S.Settings()
    s.set(S.MA, 2.0)
    s.sync()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings.ini.damaged-2" in err and "damaged" in err
    assert (tmp_path / "settings.ini.damaged-2").read_bytes() == DAMAGED_INI[case]
    assert (tmp_path / "settings.ini.damaged").read_bytes() == b"an earlier copy"
    assert S.Settings().get(S.MA) == 2.0


def test_a_settings_file_the_app_wrote_is_not_called_damaged(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KARUTA_DATA_DIR", str(tmp_path))
    s = S.Settings()
    for key in S.all_keys():
        s.set(key, key.default)
    s.set(S.GEOMETRY, bytes(range(256)))   # stored escaped, as Qt writes binary values
    s.set(S.OUTPUT_DEVICE, "USB Audio; ünïcode = [x]")
    s.sync()
    capsys.readouterr()
    S.Settings()
    assert capsys.readouterr().err == ""
    assert not list(tmp_path.glob("*.damaged*"))
