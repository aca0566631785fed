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
    # English lines may quote a poem's kana (a kimariji, a card's opening words); most are worded anew
    assert sum(j != e for j, e in zip(ja, en)) > len(en) // 2
    assert "{" not in "".join(ja + en), "a placeholder was left unfilled"


def test_same_seed_same_log_and_seat_zero_sees_no_other_hand():
    unsun = registry.find("unsun")
    seen = game_log(unsun, 3, 8, seat=0, lang="en")
    assert seen == game_log(unsun, 3, 8, seat=0, lang="en")
    everything = game_log(unsun, 3, 8, seat=None, lang="en")
    hands = [line for line in seen if "'s hand:" in line]
    assert hands and all(line.startswith("seat 1 (you)'s hand") for line in hands)
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


def _summary_winners(variant, summary) -> set[int]:
    """The seats that won the run's only game, read from `simulate --json`."""
    if variant.game == "unsun":
        team = next(t for t in ("A", "B", "tie") if summary["wins"][t])
        return set() if team == "tie" else {s for s in range(8) if s % 2 == "AB".index(team)}
    wins = summary.get("wins_by_seat", summary.get("wins"))
    return {s for s, n in enumerate(wins) if n}


@pytest.mark.parametrize("game,extra", [("kyogi", []), ("mubeyama", ["--ruleset", "izumoji", "--players", "5"]),
                                        ("unsun", []), ("yomi", ["--level", "random", "--against", "chain"]),
                                        ("umebotan", ["--rounds", "2", "--level", "random", "--against", "greedy"])])
def test_the_logged_game_is_the_summarys_first_game(game, extra, capsys):
    """Same seed, same options: `--log` plays the very game `simulate --games 1` counts."""
    import json

    from trainer.sim.game_log import play_one
    assert main(["simulate", game, "--games", "1", "--seed", "4", "--json", *extra]) == 0
    summary = json.loads(capsys.readouterr().out)
    from trainer.cli import build_parser
    from trainer.commands.simulate_cmd import COMMON, _pick_variant
    args = build_parser().parse_args(["simulate", game, "--seed", "4", "--log", *extra])
    variant = _pick_variant(args)
    options = {k: v for k, v in vars(args).items() if k not in COMMON}
    if game == "kyogi":
        options["cpu_level"] = "club,club"
    session = play_one(variant, 4, variant.check_seats(args.players), options)
    if game == "unsun":
        team = session.state.winning_team()
        won = set() if team is None else {s for s in range(8) if s % 2 == team}
    else:
        won = set(session.state.outcome().winners)
    assert won == _summary_winners(variant, summary)
    if "events" in summary:                  # the turn games count every event kind
        from collections import Counter
        assert Counter(e.kind for e in session.log) == summary["events"]
    if game == "kyogi":
        assert len(session.state.read) == summary["cards_read_per_game"]["mean"]
    if game == "mubeyama":
        assert len(session.state.read) == summary["reads"]["mean"]


def test_no_game_needs_qt_to_word_its_log():
    script = ("import io, sys, contextlib; from trainer.cli import main; from trainer.games import registry\n"
              "for name in registry.names():\n"
              "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
              "        assert main(['simulate', name, '--log', '--lang', 'ja']) == 0, name\n"
              "    assert out.getvalue().strip(), name\n"
              "print(sorted(m for m in ('PySide6', 'shiboken6', 'pyqtgraph') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("game", ["yomi", "umebotan", "bozu"])
def test_scores_name_their_seats_not_a_tuple(game):
    """A per-seat score reads "seat 1 (you) 12, seat 2 3", never a Python tuple "(12, 3)"."""
    (variant,) = [v for v in registry.games() if v.game == game][:1]
    for lang in ("en", "ja"):
        last = game_log(variant, 3, variant.seats, seat=0, lang=lang)[-1]
        assert not re.search(r"\(-?\d+, -?\d+", last), last
        seat = "席1" if lang == "ja" else "seat 1"
        assert seat in last and ("（あなた）" if lang == "ja" else "(you)") in last
