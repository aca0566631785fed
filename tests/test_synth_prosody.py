"""The synthesised reading against the real reader of issue 12, measured in the sound.

Renders the 100 poems (both halves, into the session's cache, unless another sweep
did: about 25-30 s on two cores) and measures every figure of the issue's table with
audio.synth_prosody: pitch by pyworld's DIO + StoneMask (an independent
tracker, never the synthesiser's targets), loudness from the samples, the
marks only to say where phrases and morae are. Measuring takes about 15 s.
bench/bench_synth.py prints the same table.

Asserted: the real reader's median (or its IQR, where the issue gives one)
within a tolerance of about a quarter of the distance the old voice was off,
for every figure this voice meets. One figure it does not meet yet is
asserted as a bound on the progress made, and says so: the silent gaps of
30 ms or more (voiceless stops: the real reader has about none).
"""
from __future__ import annotations

import pytest

import poems
from audio.cache import ClipCache
from audio.synth import SynthVoice, synthesize_all
from audio.synth_prosody import Figures, measure, table

pytestmark = pytest.mark.slow

NOS = list(range(1, 101))


@pytest.fixture(scope="module")
def figures():
    voice = SynthVoice(cache=ClipCache())  # the session's cache (tests/conftest.py), shared with the other sweeps
    assert synthesize_all(voice=voice, poems_to_do=NOS) == len(NOS)
    out = Figures()
    for no in NOS:
        poem = poems.get(no)
        for part, phrases in (("kami", poem.kami_sound), ("shimo", poem.shimo_sound)):
            measure(out, voice.clip(no, part, remember=False), [poems.morae(p) for p in phrases], part, no)
    print("\n" + "\n".join(table(out)))
    return out


# (figure, lowest, highest): the real reader's median or IQR, with the tolerance above
MET = [
    ("first_mora_st", -14.5, -11.0),   # real about -13 st (old voice: 0)
    ("rise_s", 0.24, 0.37),            # real 0.30 s, IQR 0.24-0.37
    ("held_change_st", -0.3, 0.3),     # real +0.06 st (old -1.1)
    ("yoin_change_st", -0.3, 0.3),     # real +0.08 st (old -1.6)
    ("vibrato_hz", 5.2, 6.2),          # real 5.7 Hz (old none)
    ("vibrato_cents", 24.0, 44.0),     # issue 12's reader +-42 cents; issue 25's +-34 (kami ends), +-26 (yoin)
    ("phrase_iqr_st", 0.35, 0.75),     # real 0.50 st (old 0.12)
    ("break_s", 0.0, 0.05),            # real 0.01 s (old 0.19)
    ("held_s", 0.70, 0.85),            # real 0.77 s (old 0.57)
    ("kami_end_s", 1.10, 1.35),        # real 1.22 s (old 0.69)
    ("kami_s", 6.42, 6.93),            # real 6.65 s, IQR 6.42-6.93 (old 5.28)
    # issue 25's reader (audio.synth_prosody.ISSUE25_READER), the chant before it in brackets
    ("kami_phrase1_s", 1.75, 1.95),    # real 1.85 s (1.81)
    ("kami_phrase2_s", 1.85, 2.05),    # real 1.95 s (2.48)
    ("kami_phrase3_s", 2.70, 2.90),    # real 2.81 s (2.36)
    ("shimo_phrase1_s", 2.60, 2.80),   # real 2.71 s (2.29)
    ("held_vibrato_hz", 5.3, 6.1),     # real 5.7 Hz
    ("held_vibrato_cents", 28.0, 40.0),  # real +-34 cents (41.6)
    ("yoin_vibrato_hz", 4.9, 5.7),     # real 5.3 Hz (5.71)
    ("yoin_vibrato_cents", 21.0, 31.0),  # real +-26 cents (41.9)
    ("yoin_s", 2.25, 2.55),            # real 2.40 s (2.83)
    ("fade_1s", -4.0, -2.0),           # real -2.9 dB (-3.6)
    ("fade_05s", -8.0, -5.5),          # real -6.6 dB (-11.8)
    ("fade_025s", -12.5, -9.0),        # real -10.8 dB (-17.0)
    ("run_on_first_mora_st", -15.0, -10.0),  # phrase 2 of the run-on cards starts low too (none before)
    ("peak_dbfs", -6.0, -1.0),         # real -3.75 dBFS (-0.18, with flat tops); never over -1 dBFS
    ("reach_s", 0.90, 1.25),           # real 1.07 s on the six run-on cards (old about 1.6)
    ("range_st", 11.5, 14.0),          # real 12.8 st (old 2.1; 7.3 with a low start that glided up at once)
    ("voiced", 0.93, 0.99),            # real 93-99 % (old 81-93 %; 91.7 % with consonants slowed as the vowels)
]


@pytest.mark.parametrize("name,low,high", MET, ids=[m[0] for m in MET])
def test_figure_is_the_real_readers(figures, name, low, high):
    assert low <= figures.median(name) <= high, (name, figures.median(name), figures.iqr(name))


def test_issue_25_rhythm_vibrato_silences_and_peaks(figures):
    # a phrase's length does not follow its mora count (real -0.07 / 0.03; before 0.57 / 0.92)
    assert abs(figures.phrase_mora_r("kami")) < 0.3, figures.phrase_mora_r("kami")
    assert abs(figures.phrase_mora_r("shimo")) < 0.3, figures.phrase_mora_r("shimo")
    # the vibrato varies from vowel to vowel (before: rate IQR 0.00 Hz, depth IQR 2 cents)
    lo, hi = figures.iqr("held_vibrato_hz")
    assert hi - lo >= 0.15, (lo, hi)
    lo, hi = figures.iqr("held_vibrato_cents")
    assert hi - lo >= 4.0, (lo, hi)
    # no silence of 30 ms or more but at a voiceless stop's closure (median per half-verse)
    assert figures.median("silences_not_closure") <= 1, figures.median("silences_not_closure")
    assert max(figures.values["peak_dbfs"]) <= -1.0 + 1e-3


def test_figures_not_yet_met_have_moved_toward_the_reader(figures):
    # issue 25: silences (under -40 dB) of 30 ms or more, real none; before it 4 (255 ms) a half-verse
    assert figures.median("silences") <= 4, figures.median("silences")
    # silent gaps of 30 ms or more per half-verse: old 5-6 (breaks and stop closures), real about none;
    # what is left are the voiceless stops (vowel ending, closure and a faint release under -45 dB)
    assert figures.median("gaps") <= 4, figures.median("gaps")
    # of which not at a voiceless stop (k, t, p, ch, ts): 1 per half-verse, median; the voiced
    # stops' closures (b, d, g: mei renders them 40-45 dB under its vowels) and a devoiced ふ
    assert figures.median("gaps_not_closure") <= 1, figures.median("gaps_not_closure")
    # no articulation dips: the old voice put 12 dB at many morae; a joined mora's level now
    # falls by what its consonant does (median of all joined morae)
    assert figures.median("dip_db") <= 6.0, figures.median("dip_db")
