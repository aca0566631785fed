"""`karuta serve` and `karuta bot` as a user runs them, the codec's card fields, and the server's layer.

The bot test starts `karuta serve` as its own process on 127.0.0.1 (a free
port, a database in the test's data folder) and stops it at the end."""
from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.server_fixtures import free_port
from tests.test_layering import _check, imports_of, sources

ROOT = Path(__file__).resolve().parents[1]


def _karuta(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trainer.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=os.environ.copy())


@pytest.fixture
def served(tmp_path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "trainer.cli", "serve", "--port", str(port),
                             "--db", f"sqlite:///{tmp_path / 'serve.sqlite'}"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as r:
                    assert b"protocol 1" in r.read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    said = proc.stderr.read() if proc.stderr else ""
                    raise AssertionError(f"karuta serve did not start: {said}") from None
                time.sleep(0.1)
        yield port, proc
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.mark.parametrize("game,level", [("yomi", "random"), ("yomi37", "chain"), ("umebotan", "greedy"),
                                        ("bozu", "first")])
def test_bot_plays_tables_to_the_end(served, game, level):
    """Random bots, and bots playing the game's own CPU from the decoded view."""
    port, _ = served
    done = _karuta("bot", "--server", f"ws://127.0.0.1:{port}", "--game", game, "--tables", "2",
                   "--level", level, "--timeout", "100")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"2 {game} tables finished") and not done.stderr


def test_a_second_server_on_a_taken_port_says_so_in_one_line(served):
    port, _ = served
    done = _karuta("serve", "--port", str(port))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and f"127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args,status,words", [
    (("bot", "--server", "ws://127.0.0.1:{free}", "--game", "yomi", "--timeout", "5"), 1, "cannot reach"),
    (("bot", "--server", "ftp://x", "--game", "yomi"), 1, "ws://HOST:PORT"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "chess"), 2, "invalid choice"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "yomi", "--tables", "0"), 2, "1 to 1000"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "yomi", "--tables", "many"), 2, "whole number"),
    (("bot", "--game", "yomi"), 2, "--server"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "yomi", "--level", "greedy"), 1, "chain, sample"),
    (("serve", "--port", "70000"), 2, "1 to 65535"),
    (("serve", "--port", "http"), 2, "a number"),
    (("serve", "--db", "mysql://x/y", "--port", "{free}"), 1, "postgresql://"),
    (("serve", "--host", "no.such.host.invalid", "--port", "{free}"), 1, "no such address"),
    (("serve", "--turn-seconds", "0"), 2, "0.05 to 86400"),
    (("serve", "--keep-finished", "0"), 2, "0.05 to 86400"),
    (("serve", "--port", "-1"), 2, "1 to 65535"),
    (("serve", "--db", "sqlite:////no-such-folder/x.sqlite", "--port", "{free}"), 1, "cannot open the database"),
    (("serve", "--db", "postgresql://karuta@127.0.0.1:{free}/x", "--port", "{free}"), 1, "cannot open the database"),
    (("serve", "--unknown"), 2, "unrecognized arguments"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "yomi", "--level", "god"), 1, "not 'god'"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "yomi", "--timeout", "0"), 2, "0.05 to 86400"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "yomi", "--seed", "x"), 2, "invalid int"),
    (("bot", "--server", "ws://127.0.0.1:1", "--game", "yomi", "--tables", "1001"), 2, "1 to 1000"),
    (("bot", "--server", "--game", "yomi"), 2, "--server"),
])
def test_bad_arguments_get_one_line(args, status, words):
    args = tuple(a.replace("{free}", str(free_port())) for a in args)
    data = Path(os.environ["KARUTA_DATA_DIR"])
    before = sorted(data.rglob("*")) if data.exists() else []
    done = _karuta(*args, timeout=60)
    assert done.returncode == status, done.stderr
    assert words in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    after = sorted(data.rglob("*")) if data.exists() else []
    assert after == before, "a refused command left files in the data folder"


def test_nothing_outside_the_server_imports_it():
    """But the app's client (trainer/online) reads the server's JSON with the server's own codec,
    and names a race's parts with the race protocol's own words (both import only the stdlib
    and the rules)."""
    def client_codec(p, i) -> bool:
        return p.parent.name == "online" and (i.module in ("trainer.server", "trainer.server.codec")
                                              or i.within("trainer.server.race_protocol"))

    offenders = [i for p in sources("trainer", exclude="trainer/server") for i in imports_of(p)
                 if i.within("trainer.server") and p.name != "server_cmd.py" and not client_codec(p, i)]
    _check(offenders, "only trainer/commands/server_cmd.py (the command line) may import trainer.server, "
                      "and trainer/online its codec and race protocol")


def test_the_server_imports_no_qt_and_no_sound():
    offenders = [i for p in sources("trainer/server") for i in imports_of(p)
                 if i.top in {"PySide6", "pyqtgraph", "numpy", "sounddevice", "soundfile"}
                 or (i.within("trainer.ui"))]
    _check(offenders, "the server is headless")


def test_every_card_field_of_ume_botan_is_coded_as_a_card():
    """Ume Botan's cards are ints: the codec finds them by the ``Hana`` annotation, so a field
    annotated otherwise would go out as a bare number the hidden-information test cannot see."""
    from trainer.rules import umebotan
    from trainer.server.codec import _is_hana
    for cls in [*umebotan.EVENT_TYPES.values(), umebotan.UmeBotanView, umebotan.Play, umebotan.Take]:
        for f in dataclasses.fields(cls):
            if f.name in ("card", "cards", "hand", "field", "drawn", "piles", "draws", "taken", "target") \
                    and f.type != "bool":   # Laid.drawn / Captured.drawn: whether it came from the pile
                assert _is_hana(f.type), f"{cls.__name__}.{f.name}"


def test_views_come_back_from_json_as_the_engines_own():
    """The bot's CPU players read decoded views: every seat's view of the first moves, equal."""
    from trainer.games.registry import find, resolve
    from trainer.server import codec
    for game, variant, n in [("unsun", "standard", 8), ("yomi", "wild", 4), ("umebotan", "standard", 3)]:
        v = find(game, variant)
        session = resolve(v.session)(v, 5, ["cpu"] * n, {})
        for _ in range(25):
            session.step()
            for seat in range(n):
                assert codec.decode_view(game, codec.to_json(session.view(seat))) == session.view(seat)


def test_cards_and_actions_round_trip():
    from trainer.rules import umebotan, unsun, yomi
    from trainer.rules.decks import HANAFUDA, ONIFUDA
    from trainer.server import codec
    assert codec.decode_card("unsun", "U:pao-9") == unsun.Card("pao", 9)
    assert codec.decode_card("yomi", "M:oni-0") == ONIFUDA
    assert all(codec.decode_card("umebotan", f"H:{c}") == c for c in HANAFUDA)
    for bad in ("U:pao-16", "H:14", "M:clubs-13x", "U:pao-9 ", 9, None, "H:" + "1" * 20):
        with pytest.raises(codec.CodecError):
            codec.decode_card("umebotan" if str(bad).startswith("H") else "unsun", bad)
    for game, rules, action in [("unsun", unsun, unsun.Play(3, unsun.Card("isu", 12))),
                                ("yomi", yomi, yomi.Pass()),
                                ("umebotan", umebotan, umebotan.Play(113, 21))]:
        assert codec.decode_action(game, rules, codec.encode_action(action), 3) == action
    with pytest.raises(codec.CodecError):
        codec.decode_action("unsun", unsun, {"action": "play", "card": "U:isu-12", "seat": 4}, 3)
