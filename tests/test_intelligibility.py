"""The speech recogniser's bookkeeping (bench/intelligibility.py): from a transcript
to what each わ was heard as. The recogniser itself (Whisper on CTranslate2, about
290 MB) is the optional extra `measure` and runs in bench/, not here."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def asr():
    spec = importlib.util.spec_from_file_location("intelligibility", ROOT / "bench" / "intelligibility.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["intelligibility"] = module   # its dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("intelligibility", None)


def heard(asr, morae: str, transcript: str):
    phrase = asr.Phrase(1, "shimo", 0, tuple(morae), np.zeros(10, np.float32))
    return asr.Heard(phrase, transcript, tuple(asr.heard_morae(transcript)))


def test_a_transcript_in_kanji_is_read_back_as_the_poems_sound_form(asr):
    # 長長し夜を: kanji read by pyopenjtalk, を as お, the long mark as the vowel
    assert asr.heard_morae("長長しよう、ひとりかもねん") == list("ながながしよおひとりかもねん")
    assert asr.heard_morae("キョー") == asr.normalise(["きょ", "う"]) == ["きょ", "お"]
    assert asr.heard_morae("") == []


def test_a_misheard_wa_pairs_with_what_was_heard_in_its_place(asr):
    h = heard(asr, "わがころもでわ", "まだ頃もでは")   # Whisper on plain HTS speech of poem 1
    assert h.wa() == ["ま", "わ"]                     # the final は is the particle: heard right
    assert h.errors() == (2, 0, 0)                    # ま for わ, だ for が


def test_a_lost_or_an_extra_mora_does_not_shift_the_pairs(asr):
    lost = heard(asr, "もみじふみわけ", "もみじふみけ")
    assert lost.wa() == [""] and lost.errors() == (0, 1, 0)
    extra = heard(asr, "わたせるはしに", "あまたせるはしに")
    assert extra.wa() == ["ま"] and extra.errors() == (1, 0, 1)


def test_the_tally_counts_every_wa_and_every_mora(asr):
    t = asr.tally([heard(asr, "わがころもでわ", "まだ頃もでは"), heard(asr, "はなのいろわ", "花の色は")])
    assert (t.wa_total, t.wa["ま"], t.wa["わ"]) == (3, 1, 2)
    assert t.morae == 13 and t.exact == 1
    assert t.accuracy == pytest.approx(1 - 2 / 13)


def test_voiced_stops_inside_a_phrase_are_counted_heard_or_devoiced(asr):
    # みせばやな heard as みせぱやな: its ば heard as a voiceless stop; none of a first mora
    assert asr.voiced_stops_right([heard(asr, "みせばやな", "見せぱやな")]) == (0, 1)
    assert asr.voiced_stops_right([heard(asr, "みせばやな", "見せばやな"),
                                   heard(asr, "ながらえば", "長らえば")]) == (3, 3)  # が and ば
    rows = asr.voiced_stop_phrases()
    assert all(any(m[0] in asr.VOICED_STOPS for m in morae[1:]) for _, _, _, morae in rows)
    assert (90, "kami", 0, tuple("みせばやな")) in rows


def test_where_counts_each_mora_by_its_place_and_its_consonant(asr):
    # poem 1's kami-no-ku whole: あきのたの (held on の), かりおのいおの, とまおあらみ
    import poems
    morae = tuple(m for p in poems.get(1).kami_sound for m in poems.morae(p))
    kinds = asr.mora_kinds(asr.Phrase(1, "kami", -1, morae, np.zeros(10, np.float32)))
    assert kinds[:6] == [("first", "-"), ("inside", "K"), ("inside", "N"), ("before held", "T"),
                         ("held end", "N"), ("first", "K")]
    assert kinds[-1] == ("last", "M") and len(kinds) == len(morae)
    h = asr.Heard(asr.Phrase(1, "kami", -1, morae, np.zeros(10, np.float32)), "",
                  tuple(morae[:3]) + ("だ",) + tuple(morae[4:]))   # た heard as だ
    lines = [line.strip() for line in asr.where_lines([h])]
    assert "place before held       1 of    3 wrong (33.3 %)" in lines
    assert "place held end          0 of    2 wrong (0.0 %)" in lines
    assert any(line.split()[:4] == ["sound", "T", "1", "of"] for line in lines)


def test_the_log_mel_of_a_tone_peaks_in_its_band(asr):
    t = np.arange(16_000) / 16_000
    mel = asr.log_mel(np.sin(2 * np.pi * 1000 * t).astype(np.float32))
    assert mel.shape == (80, 100 * asr.WINDOW_S)
    centres = [(np.arange(201) * 40.0 * row).sum() / row.sum() for row in asr.mel_filters()]
    assert abs(centres[int(mel[:, 50].argmax())] - 1000) < 60


def test_without_the_extra_the_recogniser_says_how_to_get_it(asr, monkeypatch):
    monkeypatch.setitem(sys.modules, "ctranslate2", None)   # import fails as if not installed
    with pytest.raises(asr.RecogniserMissing, match=r"\.\[measure\]"):
        asr.Recogniser()


def test_a_clip_longer_than_the_window_is_refused_not_cut(asr):
    with pytest.raises(ValueError, match="does not fit"):
        asr.log_mel(np.zeros(16_000 * asr.WINDOW_S + 1, np.float32))
