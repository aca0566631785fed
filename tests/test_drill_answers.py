"""Typed kimariji answers: kana, romaji, historical and sound spellings."""
from __future__ import annotations

import pytest

import poems
from trainer.drills.answers import is_kimariji, romaji_to_hiragana, sound_form, to_hiragana


@pytest.mark.parametrize("text, kana", [
    ("shinobu", "しのぶ"), ("sinobu", "しのぶ"), ("chihaya", "ちはや"), ("tihaya", "ちはや"),
    ("tsuki", "つき"), ("tuki", "つき"), ("fuku", "ふく"), ("huku", "ふく"), ("jiyu", "じゆ"),
    ("kyou", "きょう"), ("kyō", "きょう"), ("ōe", "おうえ"), ("sanka", "さんか"),
    ("hon'ya", "ほんや"), ("ippu", "いっぷ"), ("matcha", "まっちゃ"), ("wogu", "をぐ"),
    ("o-e", "おーえ"), ("n", "ん"),
])
def test_romaji(text, kana):
    assert romaji_to_hiragana(text) == kana


def test_to_hiragana_mixes_scripts_and_widths():
    assert to_hiragana("ＭＵ") == "む"
    assert to_hiragana("ｱｷﾉ") == "あきの"
    assert to_hiragana(" アキ no ") == "あきの"


@pytest.mark.parametrize("no, answers", [
    (44, ["あふこ", "おうこ", "おおこ", "おーこ", "オウコ", "ouko", "ōko", "ooko", "afuko"]),
    (17, ["ちは", "chiha", "tiha"]),                 # ち|はやぶる: は starts a word, read "ha"
    (26, ["をぐ", "おぐ", "ogu", "wogu", "ヲグ"]),
    (87, ["む", "mu", "ム"]),
    (50, ["きみがためを", "きみがためお", "kimigatameo", "kimigatamewo"]),
    (15, ["きみがためは", "kimigatameha"]),
    (77, ["せ", "se"]),
])
def test_accepted_spellings(no, answers):
    for text in answers:
        assert is_kimariji(text, no), text


@pytest.mark.parametrize("no, wrong", [
    (44, ["おほ", "あふ", "おほけ", "ōke"]),   # one kana short, or another card of the ō group
    (15, ["きみがためを", "kimigatamewa"]),    # 50's kimariji; は of はるの is read "ha"
    (17, ["ち", "ちはや", "ちわ", "chiwa"]),    # too short / longer / not how it is read
    (87, ["", "   ", "mura"]),
])
def test_wrong_answers(no, wrong):
    for text in wrong:
        assert not is_kimariji(text, no), text


def test_every_card_accepts_its_printed_and_heard_kimariji_and_romaji():
    for p in poems.ALL:
        assert is_kimariji(p.kimariji, p.no)
        heard = sound_form(p.no)
        assert is_kimariji(heard, p.no), (p.no, heard)
        assert is_kimariji(poems.romaji(heard), p.no), (p.no, poems.romaji(heard))
        others = [q.no for q in poems.ALL if q.no != p.no and is_kimariji(p.kimariji, q.no)]
        assert not others, (p.no, others)


def test_dynamic_kimariji_lengths():
    assert is_kimariji("ち", 17, 1) and not is_kimariji("ちは", 17, 1)
