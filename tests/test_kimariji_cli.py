"""`karuta kimariji` / `karuta poems`: kimariji as players write them (sound form), historical on request,
and computed over the cards actually in the reading (`--set`)."""
from __future__ import annotations

import json

import pytest

import poems
from poems import kimariji
from trainer.cli import main

# Printed the way players say them; the historical spelling differs on these cards.
SOUND = {17: "ちは", 19: "なにわが", 26: "おぐ", 44: "おうこ", 50: "きみがためお", 60: "おおえ",
         71: "ゆう", 78: "あわじ", 88: "なにわえ", 95: "おおけ",
         # the particles は and を stay as written in modern kana
         35: "ひとは", 48: "かぜを", 62: "よを", 63: "いまは", 93: "よのなかは"}
HISTORICAL = {19: "なにはが", 26: "をぐ", 44: "あふこ", 50: "きみがためを", 71: "ゆふ"}


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_kimariji_json_is_the_sound_form_for_all_100(capsys):
    got = _json(capsys, ["kimariji", "--json"])
    assert len(got) == 100
    for no, text in SOUND.items():
        assert got[str(no)] == text
    for no in range(1, 101):        # the sound of exactly the morae that carry the kimariji
        assert got[str(no)] == kimariji.sound(no, poems.get(no).kimariji_len)


def test_exactly_the_kimariji_the_issue_names_differ_from_their_historical_spelling(capsys):
    """Issue 10.6: 14 poems' kimariji are written differently when read aloud."""
    got = _json(capsys, ["kimariji", "--json"])
    differ = sorted(int(no) for no, k in got.items() if k != poems.get(int(no)).kimariji)
    assert len(differ) == 14 and {19, 26, 44, 50, 71} <= set(differ)


def test_every_ha_wo_he_of_a_kimariji_is_a_word_sound_or_a_listed_particle():
    """A は/を/へ read わ/お/え inside a kimariji is either part of a word (なには → なにわ, modern
    kana writes the sound) or a particle (ひとは), kept as written; the particles are listed."""
    words = {19: "なには", 26: "を", 39: "あさぢ", 45: "あは", 47: "やへ", 50: "きみがためを",
             78: "あは", 88: "なには"}
    for p in poems.ALL:
        opening = p.kimariji
        for i, kana in enumerate(opening):
            if kana in "はをへ" and kimariji.sound(p.no, i + 1)[-1] != kana:
                assert p.no in words, (p.no, opening)
        if p.no in kimariji.PARTICLES:
            k = kimariji.PARTICLES[p.no]
            assert opening[k] in "はを" and kimariji.sound(p.no, len(opening))[-1 - (len(opening) - 1 - k)] \
                == opening[k]


def test_historical_spelling_on_request(capsys):
    got = _json(capsys, ["kimariji", "--json", "--spelling", "historical"])
    assert {no: got[str(no)] for no in HISTORICAL} == HISTORICAL
    assert got == {str(p.no): p.kimariji for p in poems.ALL}


def test_after_reads_the_sound_form_follows_the_reader():
    # after おうこ's neighbours are read, 44 is decided earlier; what is shown is what is heard
    now = kimariji.dynamic(read=[45, 43], spelling="sound")
    assert now[44].startswith("お") and not now[44].startswith("あ")


def test_set_restricts_the_cards_in_play(capsys):
    whole = _json(capsys, ["kimariji", "--json"])
    got = _json(capsys, ["kimariji", "--json", "--set", "1,5,22-30", "--read", "22"])
    assert set(got) == {"1", "5", "23", "24", "25", "26", "27", "28", "29", "30"}
    assert got["25"] == "な" and whole["25"] == "なにし"     # no other な card is in the set
    assert got["1"] == "あき" and got["30"] == "あり"         # 1 and 30 still share あ
    assert got == {str(k): v for k, v in kimariji.dynamic([22], [1, 5, *range(22, 31)], "sound").items()}


@pytest.mark.parametrize("argv,message", [
    (["kimariji", "--set", "30-22"], "--set: the range 30-22 runs backwards"),
    (["kimariji", "--set", "1,101"], "--set: "),
    (["kimariji", "--read", "x"], "--read: "),
    (["kimariji", "--set", "3", "--read", "3"], "nothing is left to decide"),
])
def test_bad_sets_are_one_line_and_exit_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_poems_json_carries_both_spellings(capsys):
    got = {p["no"]: p for p in _json(capsys, ["poems", "--json"])}
    assert got[44]["kimariji"] == "おうこ" and got[44]["kimariji_historical"] == "あふこ"
    hist = {p["no"]: p for p in _json(capsys, ["poems", "--json", "--spelling", "historical"])}
    assert hist[44]["kimariji"] == "あふこ" and hist[44]["kimariji_sound"] == "おうこ"
