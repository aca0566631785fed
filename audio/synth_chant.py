"""How a karuta reader says a verse: labels, mora timing and the reciting tone.

Pure planning, no sound: `audio.synth` hands the plan to the HTS engine
(`audio.synth_hts`) and turns the result into a clip with marks.

The text is the SOUND form (modern hiragana as read aloud). It never goes
through MeCab: every phrase becomes one word whose pronunciation is exactly its
kana (in katakana), so OpenJTalk cannot re-read it (no particle は→わ, no
dictionary reading, no vowel devoicing: a chant voices every mora). The accent
is flat (平板), which is what a reciting tone is.

The reading style (`ChantStyle`), its defaults the real reader's medians
(issue 12: 101 recordings of a female reader, measured with the same analysis
as bench/bench_synth.py prints for this voice):
  * a steady mora pulse, slower than speech;
  * every phrase end held (lengthened): 0.77 s inside the kami-no-ku, 1.22 s at
    its end (kami-no-ku about 6.65 s in all);
  * legato: no break between phrases (break_s 0, the reader's median silence
    is 0.01 s), no loss of loudness between morae (mora_dip_db 0);
  * every phrase's first mora is low (rise_st, about 13 semitones under the
    reciting tone), reached just before its onset and held level, then rises
    to the tone, which it reaches rise_s (0.30 s) after the onset;
  * consonants are quick: voiceless ones shorter than in speech, and a
    lengthened vowel keeps its speech-length ending into the next consonant
    (`state_frames`): the voice stops only briefly at a stop;
  * held ends and the yoin stay level on the tone (fall_st, yoin_fall_st 0)
    with a vibrato made on the waveform by audio.synth, varying in rate and
    depth as a voice's (issue 25: 5.7 Hz, +-34 cents on held ends; 5.3 Hz,
    +-26 cents on the yoin);
  * every phrase lasts about what the reader's does, whatever its mora count
    (kami_phrase_s, shimo_phrase_s, issue 25);
  * on a card whose kimariji ends on the first mora of phrase 2 (11, 15, 31,
    50, 64, 76), phrase 1 runs into phrase 2 in one breath: no held end, a
    quicker pulse (run_on_mora_s), and still phrase 2's low start (issue 25);
  * shimo-no-ku: the last two morae held (yoin, 余韻; 2.4 s from the last
    mora's onset, issue 25), fading as the reader's (audio.synth.yoin_gain_db);
  * what the engine renders of a held end is short (HELD_RENDER_S), and of any
    other lengthened vowel too (VOWEL_RENDER_S); audio.synth lengthens them to
    the planned length (`Hold`, `Sustain`);
  * pitch: the voice's own contour, toned down (compress), around one reciting tone.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, asdict
from typing import Sequence

from audio.synth_hts import FRAME, RATE, StateInfo

VOWELS = frozenset("aiueoAIUEO")
MORA_CLOSERS = VOWELS | {"N", "cl"}
SILENCES = frozenset({"sil", "pau"})
GLIDES = VOWELS | {"w", "y"}  # morae opening with these are re-articulated after a vowel
# Stops and affricates: their morae are heard from the release, not from the closure.
RELEASED = frozenset({"k", "ky", "g", "gy", "t", "ty", "ch", "ts", "d", "dy", "p", "py", "b", "by", "j"})
# Voiceless consonants: a closure or a hiss, no pitch (ChantStyle.voiceless_stretch).
VOICELESS = frozenset({"k", "ky", "t", "ty", "ch", "ts", "p", "py", "s", "sh", "h", "hy", "f"})


@dataclass(frozen=True)
class ChantStyle:
    mora_s: float = 0.285         # a plain mora
    phrase_end_s: float = 0.77    # a held phrase end (inside the verse)
    verse_end_s: float = 1.26     # the kami-no-ku's last mora
    break_s: float = 0.0          # silence between two phrases (0: legato, one utterance)
    # The verse's first mora, out of silence: HTS's fade-in stretches with the
    # mora (at 0.285 s it was no longer heard where audio.synth's shares put the
    # mark, up to 28 ms off), so it keeps the length those were measured at.
    first_mora_s: float = 0.23
    run_on_mora_s: float = 0.21   # the pulse of a phrase read in one breath into the kimariji
    # Each phrase's length, mark to mark (the last to the voice's end; issue 25's reader,
    # medians over 100 poems); its morae share what its held end leaves (`mora_lengths`).
    # A phrase not listed (the shimo-no-ku's second, which the yoin fixes) keeps the pulse.
    kami_phrase_s: tuple[float, ...] = (1.85, 1.95, 2.81)
    shimo_phrase_s: tuple[float, ...] = (2.71, 4.30)  # the 2nd: 5 morae at the 0.28 s pulse and the yoin
    min_mora_s: float = 0.17      # the quickest and slowest pulse a phrase's length may ask
    max_mora_s: float = 0.42
    shimo_mora_s: float = 0.28    # the shimo-no-ku is read a little slower ...
    shimo_phrase_end_s: float = 0.70  # ... so that it lasts about 4 s before its yoin
    yoin_s: float = 2.90          # shimo-no-ku: from the onset of the 2nd-last mora to the end (issue 25:
                                  # 3.25 was heard 2.76 s from the last mora against the reader's 2.40; 3.05 before
                                  # issue 12: its fall, a slower reading, lengthened it; a yoin on む
                                  # is heard 0.4 s shorter, poems 3 and 22: 2.6 s)
    yoin_first_s: float = 0.36    # ... of which the 2nd-last mora
    # Voiced consonants a little slower than in speech. (Issue 25 measured the
    # recogniser on 34 kami-no-ku: 1.0 heard 81.5-81.8 % of the morae right, 1.25
    # 82.5-83.2 %, a difference within its noise; and voiceless stops cut to 35 ms
    # to close the silences of their closures: 71 %, 60 ms: 80 %. Kept as they were.)
    consonant_stretch: float = 1.25
    # Voiceless consonants (k, t, s, sh, h, ts ...) at this share of the voice's own
    # length: a chant's consonants are quick, its vowels carry the pulse. (At 1.25
    # as the voiced ones, the voice was voiced 91.7 % of a half-verse, at 0.8 94.2 %;
    # the real reader 93-99 %, median 96 %. Under 0.9 the quiet yoin on ん of poem 3
    # is heard shorter than 2.6 s: its end is judged against the verse's loudest vowel.)
    voiceless_stretch: float = 0.9
    # A lengthened vowel's ending (its last two states, into the next consonant: the
    # fall of loudness before a closure) at this multiple of the voice's own length,
    # the rest of the vowel taking the lengthening; 0: HTS shares the vowel's frames
    # among its states in proportion (the ending stretched with the vowel, 60-75 ms).
    transition_stretch: float = 1.0
    w_stretch: float = 1.25       # the w of わ (a longer, gentler glide is heard less as m)
    tone_hz: float = 215.0        # the reciting tone
    # Share of the voice's own pitch movement kept (phrase IQR 0.65 st, the reader's 0.50). (0.25
    # gave 0.60 st, but moved the loop of the held ら of poem 39 onto a stretch heard unvoiced.)
    compress: float = 0.3
    # A phrase's first mora (issue 12: about 13 st under the reciting tone, reaching
    # it 0.30 s after the phrase's onset): the voice falls to it over drop_s before
    # the onset (read legato, in the held end before), stays there, low and level,
    # and rises to the tone over the last rise_glide_s of rise_s. (A glide over the
    # whole rise_s, as before, left the low part too brief: the F0 range of a
    # half-verse was 7.3 st against the reader's 12.8.)
    rise_st: float = 13.0
    rise_s: float = 0.30
    rise_glide_s: float = 0.12
    drop_s: float = 0.05
    first_rise: bool = True       # the verse's first phrase too (out of silence)
    fall_st: float = 0.0          # fall on a held phrase end, in semitones (the reader's: level)
    fall_s: float = 0.18          # ... over its last this-many seconds
    yoin_fall_st: float = 0.0     # fall at the end of the yoin
    yoin_fall_s: float = 0.7      # ... over its last this-many seconds
    vibrato_hz: float = 5.7       # vibrato on held ends (issue 25's reader: 5.7 Hz on the kami-no-ku's) ...
    vibrato_cents: float = 34.0   # ... its depth (peak, either way; the reader's +-34 cents)
    yoin_vibrato_hz: float = 5.3  # ... and on the yoin, slower ...
    yoin_vibrato_cents: float = 26.0  # ... and shallower (the reader's 5.3 Hz, +-26 cents)
    vibrato_rate_spread: float = 0.06   # a voice's vibrato varies: rate, as a share of it (audio.synth._vibrato)
    vibrato_depth_spread: float = 0.25  # ... and depth
    vibrato_onset_s: float = 0.15  # ... reached this long into the held vowel
    mora_dip_db: float = 0.0      # loss of loudness at each joined mora (0: legato)
    # A stop's closure after a vowel (HTS renders it silent: issue 25 counted 4 silences
    # of 30 ms or more a half-verse, the reader 0): a voicing bar, the tone's fundamental
    # alone, this far under the verse's loudest (0: off), through it; before a voiceless
    # stop it ends closure_guard_s before the release. (100 kami-no-ku, Whisper: 78.6 %
    # of morae right without, 78.2 % with; -32 dB and 20 ms 77.1 %; on 34 of them the
    # bar up to 12 ms before the release 78.6 % against 82.5: voicing near the release
    # is heard as a voiced stop. The vowel's own period instead of the bar: voiced
    # stops heard right 128 of 223 against 143; the bar 145. docs/synth-voice.md.)
    closure_murmur_db: float = 36.0
    # Where the engine's spectrum is left out of global variance (`plain_spectrum`):
    # 0: nowhere (the voice's own, before issue 25); 1: the steady middle of every
    # vowel; 2: every state. (Whisper on the 100 kami-no-ku: 78.2 / 78.2 / 82.6 % of
    # morae right.)
    plain_spectrum: int = 2
    closure_guard_s: float = 0.016
    yoin_fade_db: float = 24.0    # the yoin fades by this much before the voice stops
    edge_s: float = 0.025         # HTS silence at both ends of a rendering (cut off)

    def key(self) -> dict:
        return asdict(self)


def katakana(hiragana: str) -> str:
    return "".join(chr(ord(c) + 0x60) if "ぁ" <= c <= "ゖ" else c for c in hiragana)


def _word(kana: str, n_morae: int) -> dict:
    k = katakana(kana)
    return {"string": k, "pos": "名詞", "pos_group1": "一般", "pos_group2": "*", "pos_group3": "*",
            "ctype": "*", "cform": "*", "orig": k, "read": k, "pron": k, "acc": 0,
            "mora_size": n_morae, "chain_rule": "*", "chain_flag": -1}


_BREAK = {"string": "、", "pos": "記号", "pos_group1": "読点", "pos_group2": "*", "pos_group3": "*",
          "ctype": "*", "cform": "*", "orig": "、", "read": "、", "pron": "、", "acc": 0,
          "mora_size": 0, "chain_rule": "*", "chain_flag": -1}


def phoneme_of(label: str) -> str:
    return label.split("-", 1)[1].split("+", 1)[0]


_SUNG_W = re.compile(r"^([^-]*-)w(\+)")  # a label p1^p2-p3+p4=p5/... whose own phoneme p3 is w


def sung_labels(labels: Sequence[str]) -> list[str]:
    """The labels the engine renders: the glide w (of わ) drawn by the voice's
    o model. Its neighbours keep w as their context.

    Mei's w model is made from speech, where the lips close far enough in
    a quick わ to sound like m: a speech recogniser heard the chant's わ as
    ま 46 times in 120 (a real reader: never). A glide is a vowel on the
    move, and from o, the vowel nearest w's lips, HTS draws it into the
    following a: 0 in 120 (docs/synth-voice.md). Renamed in the neighbours'
    contexts too, it changed how they end: the held ら before わきて (poem
    27) looped a stretch DIO heard unvoiced. The plan keeps w's own timing."""
    return [_SUNG_W.sub(r"\1o\2", label) for label in labels]


@dataclass(frozen=True)
class Mora:
    kana: str
    phrase: int
    first: int   # label index of its first phoneme
    last: int    # label index of its last phoneme (inclusive)


@dataclass(frozen=True)
class Verse:
    labels: list[str]
    morae: list[Mora]

    @property
    def phonemes(self) -> list[str]:
        return [phoneme_of(label) for label in self.labels]


def verse(phrases: Sequence[str], phrase_morae: Sequence[Sequence[str]], breaks: bool = False) -> Verse:
    """Full-context labels for the phrases, and which labels make every mora.

    `breaks`: a pause (pau) between phrases; without, the half-verse is one
    utterance (legato)."""
    from audio.synth_hts import openjtalk
    pyopenjtalk = openjtalk()

    features = []
    for index, (text, morae) in enumerate(zip(phrases, phrase_morae)):
        if index and breaks:
            features.append(dict(_BREAK))
        features.append(_word(text, len(morae)))
    labels = pyopenjtalk.make_label(features)
    wanted = [(m, p) for p, morae in enumerate(phrase_morae) for m in morae]
    spans, pending = [], None
    for index, ph in enumerate(phoneme_of(label) for label in labels):
        if ph in SILENCES:
            if pending is not None:
                raise ValueError(f"a consonant without its vowel before a break in {phrases}")
            continue
        if pending is None:
            pending = index
        if ph in MORA_CLOSERS:
            spans.append((pending, index))
            pending = None
    if len(spans) != len(wanted):
        raise ValueError(f"{''.join(phrases)}: {len(spans)} morae synthesised for {len(wanted)} written")
    return Verse(labels, [Mora(kana, phrase, a, b) for (kana, phrase), (a, b) in zip(wanted, spans)])


def _frames(seconds: float) -> int:
    return max(1, int(round(seconds * RATE / FRAME)))


def run_on(v: Verse, part: str, kimariji_mora: int | None) -> frozenset[int]:
    """Phrases read in one breath into the next: on a card whose kimariji ends on
    the first mora of phrase 2 (11, 15, 31, 50, 64, 76), phrase 1 (index 0) is
    not held: the reader says the kimariji without a stop."""
    if part != "kami" or kimariji_mora is None or not 0 < kimariji_mora < len(v.morae):
        return frozenset()
    k = v.morae[kimariji_mora]
    if v.morae[kimariji_mora - 1].phrase == k.phrase - 1:  # the kimariji's last mora opens a phrase
        return frozenset({k.phrase - 1})
    return frozenset()


def mora_lengths(v: Verse, part: str, style: ChantStyle, running: frozenset[int] = frozenset()) -> list[int]:
    """Target length of every mora in frames (the pulse, held phrase ends, yoin).
    `running`: phrases read in one breath into the next (`run_on`).

    A phrase lasts what the reader's does (style.kami_phrase_s, shimo_phrase_s),
    whatever its count of morae: its held end and the verse's first mora keep
    their lengths, its other morae share the rest (a phrase with an extra mora
    is read quicker, not longer: issue 25, the reader's phrase lengths do not
    follow the mora count, r = -0.07 / 0.03, where a steady pulse gave 0.39 / 0.96)."""
    n = len(v.morae)
    out: list[float | None] = []
    for k, mora in enumerate(v.morae):
        phrase_end = k == n - 1 or v.morae[k + 1].phrase != mora.phrase
        if mora.phrase in running:
            out.append(style.run_on_mora_s)
            continue
        seconds = None  # the phrase's pulse, below
        if phrase_end:
            seconds = style.shimo_phrase_end_s if part == "shimo" else style.phrase_end_s
        if k == 0:
            seconds = min(seconds or style.first_mora_s, style.first_mora_s)
        if part == "kami" and k == n - 1:
            seconds = style.verse_end_s
        if part == "shimo" and k == n - 2:
            seconds = style.yoin_first_s
        if part == "shimo" and k == n - 1:
            seconds = style.yoin_s - style.yoin_first_s
        out.append(seconds)
    targets = style.shimo_phrase_s if part == "shimo" else style.kami_phrase_s
    default = style.shimo_mora_s if part == "shimo" else style.mora_s
    for p in sorted({m.phrase for m in v.morae}):
        free = [k for k, m in enumerate(v.morae) if m.phrase == p and out[k] is None]
        pulse = default
        if p < len(targets) and free:
            fixed = sum(out[k] or 0.0 for k, m in enumerate(v.morae) if m.phrase == p and out[k] is not None)
            pulse = min(max((targets[p] - fixed) / len(free), style.min_mora_s), style.max_mora_s)
        for k in free:
            out[k] = pulse
    return [_frames(seconds or default) for seconds in out]


def phoneme_frames(v: Verse, natural: Sequence[Sequence[int]], part: str, style: ChantStyle,
                   nstate: int = 5, running: frozenset[int] = frozenset()) -> list[int]:
    """Frames for every label: consonants keep near their own length (`natural`:
    the voice's own frames of every state), vowels fill the mora."""
    phonemes = v.phonemes
    frames = [0] * len(v.labels)
    for mora, target in zip(v.morae, mora_lengths(v, part, style, running)):
        consonants = range(mora.first, mora.last)
        budget = target
        for i in consonants:
            stretch = (style.w_stretch if phonemes[i] == "w" else style.voiceless_stretch
                       if phonemes[i] in VOICELESS else style.consonant_stretch)
            frames[i] = max(nstate, int(round(sum(natural[i]) * stretch)))
            budget -= frames[i]
        frames[mora.last] = max(nstate, budget, target // 3)
    edge = max(nstate, _frames(style.edge_s))
    for i, ph in enumerate(phonemes):
        if ph == "sil":
            frames[i] = edge
        elif ph == "pau":
            frames[i] = max(nstate, _frames(style.break_s))
    return frames


# A held vowel is rendered short and lengthened afterwards by repeating whole
# pitch periods of its steadiest part (see audio.synth._sustain): the vocoder is
# the costly step, and a held tone is stationary. The engine renders HELD_RENDER_S
# of it (the onset glide into the vowel, a steady stretch to loop, and the
# voice's own phrase-final ending); the loop point is chosen on the rendering
# (audio.synth._loop_point) and the pitch fall is made on the lengthened
# waveform (audio.synth._glide), so neither the fall nor the sustain is rendered.
# 0.2 s, not 0.12: read legato, HTS already glides toward the next phrase's low
# start in the held vowel's last frames; a 0.12 s rendering left no steady
# stretch to loop (DIO heard the looped vowel unvoiced: poems 45, 71, 96).
HELD_RENDER_S = 0.20
FINAL_RENDER_S = 0.12  # the verse's last mora: nothing follows, no glide (0.2 s looped poem 99's yoin badly)


@dataclass(frozen=True)
class Hold:
    """A held phrase end: label `label` is rendered with `extra` frames fewer,
    to be restored by repetition of a steady stretch of it; its pitch falls by
    `fall_st` over its last `fall` frames (after the restoration)."""
    label: int
    extra: int
    fall: int
    fall_st: float


def holds(v: Verse, frames: Sequence[int], part: str, style: ChantStyle,
          running: frozenset[int] = frozenset()) -> list[Hold]:
    n = len(v.morae)
    out = []
    for k, mora in enumerate(v.morae):
        if not (k == n - 1 or v.morae[k + 1].phrase != mora.phrase) or mora.phrase in running:
            continue
        yoin = part == "shimo" and k == n - 1
        length = frames[mora.last]
        fall = min(length, _frames(style.yoin_fall_s if yoin else style.fall_s))
        extra = length - _frames(FINAL_RENDER_S if k == n - 1 else HELD_RENDER_S)
        if extra < _frames(0.05):  # too short to be worth a loop: render it whole
            extra = 0
        out.append(Hold(mora.last, extra, fall, style.yoin_fall_st if yoin else style.fall_st))
    return out


# A chanted vowel inside a phrase is about twice its speech length, and most of
# it is a steady tone: the engine renders VOWEL_RENDER_S of it (its glide out of
# the consonant, a steady stretch to loop, its speech-length ending, `state_frames`)
# and audio.synth lengthens it by looping that stretch (VOWEL_LOOP_S, shorter
# than a held end's loop), as a held end. (Vowels were 78 % of what the vocoder
# rendered, and the vocoder most of synthesis: issue 12 bounds its time.)
VOWEL_RENDER_S = 0.10


@dataclass(frozen=True)
class Sustain:
    """A lengthened vowel inside a phrase (not a held end): label `label` is
    rendered `extra` frames shorter, restored by repetition of a steady stretch
    before its ending. No fall, no vibrato: the voice's own (compressed) contour."""
    label: int
    extra: int


def sustains(v: Verse, frames: Sequence[int], natural: Sequence[Sequence[int]], hold_list: Sequence[Hold],
             rises: Sequence[tuple[int, int]], style: ChantStyle) -> list[Sustain]:
    """The vowels rendered short and looped: every vowel but the held ends, the
    phrases' first morae (how HTS fades a phrase in, and so where it is heard,
    depends on their length), any vowel where a phrase's low start falls or
    rises (`rises`, on the planned frames `frames`: a loop there would repeat a
    moving pitch), and the vowel just before a held end. (Shortened, that one
    changes the held vowel's rendering enough to move its loop: the held ら of
    poem 39's kami-no-ku was then looped on a stretch DIO hears unvoiced a third
    of the time. The held ら are the fragile loops, docs/synth-voice.md.)"""
    starts = [0]
    for f in frames:
        starts.append(starts[-1] + f)
    rise_frames = style.rise_s * RATE / FRAME
    drop_frames = style.drop_s * RATE / FRAME
    held = {h.label for h in hold_list}
    phonemes = v.phonemes
    keep = _frames(VOWEL_RENDER_S)
    out = []
    for k, mora in enumerate(v.morae):
        i = mora.last
        if k == 0 or v.morae[k - 1].phrase != mora.phrase or i in held or phonemes[i] not in VOWELS:
            continue
        if k + 1 < len(v.morae) and v.morae[k + 1].last in held:
            continue
        if any(onset - drop_frames < starts[i + 1] and starts[i] < onset + rise_frames for _, onset in rises):
            continue
        extra = frames[i] - max(keep, sum(natural[i]))
        if extra >= _frames(0.05):  # shorter: not worth a loop
            out.append(Sustain(i, extra))
    return out


def rendered_frames(frames: Sequence[int], hold_list: Sequence[Hold],
                    sustain_list: Sequence[Sustain] = ()) -> list[int]:
    """What the engine renders: held ends and sustained vowels without their
    lengthening. (Breaks are rendered whole: a break rendered short changes how
    HTS fades the next phrase in, and so where its first mora is heard, by up to 5 ms.)"""
    out = list(frames)
    for label, extra in [(h.label, h.extra) for h in hold_list] + [(s.label, s.extra) for s in sustain_list]:
        out[label] -= extra
    return out


def state_frames(v: Verse, frames: Sequence[int], natural: Sequence[Sequence[int]],
                 style: ChantStyle, hold_list: Sequence[Hold] = ()) -> dict[int, list[int | None]]:
    """Frames of the states the chant decides (None: HTS's share of the rest):
    the ending of every lengthened vowel but the held ends (`hold_list`).

    A sung vowel is lengthened in its steady part; its ending into the next
    consonant keeps the length it has in speech. HTS, left to itself,
    stretches every state alike, and so the fading of a vowel into a stop's
    closure (its last two states) lasted 60-75 ms instead of 15: with the
    closure, a silence of 30 ms or more before every k and t. (Its onset out
    of the consonant is left to HTS: shortened, the w of わ was released
    more abruptly. A held end is left to HTS as a whole: it is lengthened by
    looping its steady part, and with the share moved to its middle the loop
    buzzed on the ら of poems 7, 47 and 73, heard unvoiced by DIO.)"""
    out: dict[int, list[int | None]] = {}
    held = {h.label for h in hold_list}
    for i, ph in enumerate(v.phonemes):
        states = list(natural[i])
        if style.transition_stretch <= 0 or ph not in VOWELS and ph != "N" or len(states) < 4 \
                or frames[i] <= sum(states) or i in held:
            continue
        ending = [max(1, int(round(n * style.transition_stretch))) for n in states[-2:]]
        if frames[i] - sum(ending) >= 2 * (len(states) - 2):
            out[i] = [None] * (len(states) - 2) + ending
    return out


def plain_spectrum(v: Verse, style: ChantStyle, nstate: int = 5) -> list[int]:
    """States (label * nstate + state) whose spectrum the engine makes without
    global variance (`HtsEngine.render`). GV scales the spectrum's track over the
    utterance to the variance the voice has in speech; a chant is mostly held
    vowels, whose spectrum hardly moves, and so GV exaggerated every consonant
    and vowel colour: Whisper on the 100 kami-no-ku heard 78.2 % of the morae
    right with it, 82.6 % with it off everywhere (style.plain_spectrum 2), 78.2 %
    off only in the vowels' steady middles (1): the gain is in the consonants
    and the glides into and out of them. (Off everywhere, a stop's closure is
    no longer digital silence but some 45 dB under the vowels: the independent
    onset finder, audio.synth_onsets, takes the closure's lowest 10 ms as its
    level since, not one frame's dip in the fading vowel before it.)"""
    if style.plain_spectrum >= 2:
        return list(range(len(v.labels) * nstate))
    if style.plain_spectrum <= 0:
        return []
    return [i * nstate + k for i, ph in enumerate(v.phonemes) if ph in VOWELS for k in range(1, nstate - 1)]


def phrase_rises(v: Verse, frames: Sequence[int], running: frozenset[int] = frozenset(),
                 style_first: bool = False) -> list[tuple[int, int]]:
    """(frame where the rise starts, frame of the phrase's onset) for every phrase
    that starts low: all, the one a run-on phrase leads into too (issue 25: the
    reader reaches the kimariji in one breath, and still starts phrase 2 low). The rise starts
    at the first mora's vowel (a consonant before it is mostly unvoiced) and is
    timed from the mora's first phoneme."""
    starts = [0]
    for f in frames:
        starts.append(starts[-1] + f)
    out = []
    for k, mora in enumerate(v.morae):
        if k and v.morae[k - 1].phrase == mora.phrase:
            continue
        if k == 0 and not style_first:
            continue  # the verse's first phrase starts on the tone (ChantStyle.first_rise off)
        out.append((starts[mora.last], starts[mora.first]))
    return out


def _half_cosine(t: float, span: float) -> tuple[float, float]:
    """(1 going down to 0 over `span` along a half cosine, at `t`; its fall per unit of t)."""
    x = min(max(t / span, 0.0), 1.0)
    return 0.5 * (1 + math.cos(math.pi * x)), 0.5 * math.pi * math.sin(math.pi * x) / span


def chant_pitch(frames: Sequence[int], hold_list: Sequence[Hold], style: ChantStyle,
                rises: Sequence[tuple[int, int]] = ()):
    """The pitch shaper for `HtsEngine.render` (on the rendered frames): the
    voice's contour compressed toward the reciting tone, every phrase in `rises`
    starting style.rise_st under it (ChantStyle: reached drop_s before the
    onset, held level, then a glide up over rise_glide_s, on the tone by
    rise_s after the onset). (A fall on held ends is made on the waveform, audio.synth._glide:
    HTS weighs its slope targets far above its level targets, so a fall set as
    levels comes out flattened.)"""
    tone = math.log(style.tone_hz)
    held = {h.label for h in hold_list}  # a held end sits on the tone itself (its fall comes later)
    rise_frames = max(1.0, style.rise_s * RATE / FRAME)
    glide_frames = max(1.0, style.rise_glide_s * RATE / FRAME)
    drop_frames = max(1.0, style.drop_s * RATE / FRAME)
    low = style.rise_st / 12 * math.log(2)

    def under(frame: float) -> tuple[float, float]:
        """How far under the tone (log F0) a phrase start puts this frame, and
        how fast that shrinks (per frame): falling to low over the drop before
        the onset, level and low from the onset to the glide, then up to the
        tone. Both moves along a half cosine (a voice's glide starts and ends slowly)."""
        for vowel, onset in rises:
            end = onset + rise_frames
            if onset - drop_frames <= frame < onset:
                depth, slope = _half_cosine(frame - onset + drop_frames, drop_frames)
                return low * (1 - depth), -low * slope
            if onset <= frame < end:
                glide_from = max(float(vowel), end - glide_frames)
                if frame < glide_from:
                    return low, 0.0
                depth, slope = _half_cosine(frame - glide_from, max(1.0, end - glide_from))
                return low * depth, low * slope
        return 0.0, 0.0

    def shape(states: list[StateInfo]) -> list[tuple[float, float]]:
        voiced = sorted(s.lf0 for s in states if math.log(60) < s.lf0 < math.log(700))
        centre = voiced[len(voiced) // 2] if voiced else tone
        levels, centres = [], []
        for s in states:
            own = s.lf0 - centre if math.log(60) < s.lf0 < math.log(700) and s.phoneme not in held else 0.0
            centres.append(s.start + s.length / 2)
            levels.append(tone + style.compress * own)
        # Slopes must agree with the levels: the engine trusts its delta targets more
        # than its static ones, and a zero slope everywhere would flatten every step.
        # A phrase's rise is given its own slope (not one from neighbouring states,
        # which would halve it at the step down into the phrase).
        out = []
        for k, level in enumerate(levels):
            left = (level - levels[k - 1]) / max(1.0, centres[k] - centres[k - 1]) if k else 0.0
            right = (levels[k + 1] - level) / max(1.0, centres[k + 1] - centres[k]) if k + 1 < len(levels) else 0.0
            depth, rising = under(centres[k])
            out.append((level - depth, (left + right) / 2 + rising))
        return out

    return shape
