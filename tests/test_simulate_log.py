"""`karuta simulate GAME --log [--lang ja|en] [--log-seat N|all]`: one game's log, worded without Qt."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from trainer.cli import main
from trainer.games import registry
from trainer.sim.game_log import game_log

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
NO_QT_RUN = ("import sys; from trainer.cli import main; code = main(sys.argv[1:]); "
             "sys.stdout.flush(); print('QT' if 'PySide6' in sys.modules else 'NO-QT', file=sys.stderr); "
             "sys.exit(code)")


def test_unsun_log_in_japanese_without_qt():
    done = subprocess.run([sys.executable, "-c", NO_QT_RUN, "simulate", "unsun", "--games", "1",
                           "--seed", "3", "--log", "--lang", "ja"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "NO-QT"
    lines = done.stdout.splitlines()
    assert lines[0].startswith("第1局") and "切り札" in lines[0]
    assert all(JAPANESE.search(line) for line in lines)
    assert lines[-1].startswith("終局")


@pytest.mark.parametrize("variant", registry.games(), ids=lambda v: v.key)
def test_every_registered_game_words_its_log_in_both_languages(variant):
    ja = game_log(variant, 3, variant.seats, seat=0, lang="ja")
    en = game_log(variant, 3, variant.seats, seat=0, lang="en")
    assert ja and len(ja) == len(en)
    assert sum(bool(JAPANESE.search(line)) for line in ja) > len(ja) // 2
    # English lines may quote a poem's kana (a kimariji, a card's opening words), never most of them
    assert sum(not JAPANESE.search(line) for line in en) > len(en) // 2
    assert "{" not in "".join(ja + en), "a placeholder was left unfilled"


def test_same_seed_same_log_and_seat_zero_sees_no_other_hand():
    unsun = registry.find("unsun")
    seen = game_log(unsun, 3, 8, seat=0, lang="en")
    assert seen == game_log(unsun, 3, 8, seat=0, lang="en")
    everything = game_log(unsun, 3, 8, seat=None, lang="en")
    hands = [line for line in seen if "'s hand:" in line]
    assert hands and all(line.startswith("seat 0 (you)'s hand") for line in hands)
    assert len([line for line in everything if "'s hand:" in line]) == 8 * len(hands)


def test_log_matches_the_summary_seed(capsys):
    """`--log` is the run's first game: the game the summary counts first."""
    assert main(["simulate", "unsun", "--games", "1", "--seed", "3", "--json"]) == 0
    import json
    summary = json.loads(capsys.readouterr().out)
    assert main(["simulate", "unsun", "--seed", "3", "--log"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    winner = {"A": "Team A wins", "B": "Team B wins", "tie": "A tie"}
    expected = next(w for k, w in winner.items() if summary["wins"][k])
    assert last.endswith(expected)


def test_bad_log_seat_is_one_line(capsys):
    assert main(["simulate", "yomi", "--log", "--log-seat", "9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--log-seat" in err


def test_games_json_names_each_games_events_and_text_module(capsys):
    import json
    assert main(["games", "--json"]) == 0
    entries = {(e["name"], e["variant"]): e for e in json.loads(capsys.readouterr().out)}
    for v in registry.games():
        e = entries[(v.game, v.variant)]
        assert e["texts"] == v.texts
        if e["events"] is not None:          # every session's EVENT_TYPES, once each helper adds them
            assert e["events"] == sorted(registry.resolve(v.events))
    assert "unsun.trick" in entries[("unsun", "standard")]["events"]
