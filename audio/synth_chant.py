"""How a karuta reader says a verse: labels, mora timing and the reciting tone.

Pure planning, no sound: `audio.synth` hands the plan to the HTS engine
(`audio.synth_hts`) and turns the result into a clip with marks.

The text is the SOUND form (modern hiragana as read aloud). It never goes
through MeCab: every phrase becomes one word whose pronunciation is exactly its
kana (in katakana), so OpenJTalk cannot re-read it (no particle は→わ, no
dictionary reading, no vowel devoicing: a chant voices every mora). The accent
is flat (平板), which is what a reciting tone is.

The reading style (`ChantStyle`):
  * a steady mora pulse, slower than speech;
  * every phrase end held (lengthened), a short break between phrases;
  * kami-no-ku: three phrases, about 5-6 s;
  * shimo-no-ku: the last two morae held to about 3 s (yoin, 余韻), fading;
  * what the engine renders of a held end is short (HELD_RENDER_S); audio.synth
    lengthens it to the planned length (`Hold`);
  * pitch: the voice's own contour compressed toward one reciting tone, with
    a gentle fall on each held phrase end.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, asdict
from typing import Sequence

from audio.synth_hts import FRAME, RATE, StateInfo

VOWELS = frozenset("aiueoAIUEO")
MORA_CLOSERS = VOWELS | {"N", "cl"}
SILENCES = frozenset({"sil", "pau"})
GLIDES = VOWELS | {"w", "y"}  # morae opening with these are re-articulated after a vowel
# Stops and affricates: their morae are heard from the release, not from the closure.
RELEASED = frozenset({"k", "ky", "g", "gy", "t", "ty", "ch", "ts", "d", "dy", "p", "py", "b", "by", "j"})


@dataclass(frozen=True)
class ChantStyle:
    mora_s: float = 0.23          # a plain mora
    phrase_end_s: float = 0.60    # a held phrase end (inside the verse)
    verse_end_s: float = 0.75     # the kami-no-ku's last mora
    break_s: float = 0.08         # silence between two phrases
    shimo_mora_s: float = 0.28    # the shimo-no-ku is read a little slower ...
    shimo_phrase_end_s: float = 0.70  # ... so that it lasts about 4 s before its yoin
    yoin_s: float = 3.05          # shimo-no-ku: from the onset of the 2nd-last mora to the end
    yoin_first_s: float = 0.36    # ... of which the 2nd-last mora
    consonant_stretch: float = 1.25  # consonants slow down less than vowels
    tone_hz: float = 215.0        # the reciting tone
    compress: float = 0.5         # share of the voice's own pitch movement kept (no GV, see synth_hts)
    fall_st: float = 1.5          # fall on a held phrase end, in semitones
    fall_s: float = 0.18          # ... over its last this-many seconds
    yoin_fall_st: float = 3.0     # fall at the end of the yoin
    yoin_fall_s: float = 0.7      # ... over its last this-many seconds
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


def verse(phrases: Sequence[str], phrase_morae: Sequence[Sequence[str]]) -> Verse:
    """Full-context labels for the phrases, and which labels make every mora."""
    from audio.synth_hts import openjtalk
    pyopenjtalk = openjtalk()

    features = []
    for index, (text, morae) in enumerate(zip(phrases, phrase_morae)):
        if index:
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


def mora_lengths(v: Verse, part: str, style: ChantStyle) -> list[int]:
    """Target length of every mora in frames (the pulse, held phrase ends, yoin)."""
    n = len(v.morae)
    out = []
    for k, mora in enumerate(v.morae):
        phrase_end = k == n - 1 or v.morae[k + 1].phrase != mora.phrase
        if part == "shimo":
            seconds = style.shimo_phrase_end_s if phrase_end else style.shimo_mora_s
        else:
            seconds = style.phrase_end_s if phrase_end else style.mora_s
        if part == "kami" and k == n - 1:
            seconds = style.verse_end_s
        if part == "shimo" and k == n - 2:
            seconds = style.yoin_first_s
        if part == "shimo" and k == n - 1:
            seconds = style.yoin_s - style.yoin_first_s
        out.append(_frames(seconds))
    return out


def phoneme_frames(v: Verse, natural: Sequence[int], part: str, style: ChantStyle,
                   nstate: int = 5) -> list[int]:
    """Frames for every label: consonants keep near their own length, vowels fill the mora."""
    phonemes = v.phonemes
    frames = [0] * len(v.labels)
    for mora, target in zip(v.morae, mora_lengths(v, part, style)):
        consonants = range(mora.first, mora.last)
        budget = target
        for i in consonants:
            frames[i] = max(nstate, int(round(natural[i] * style.consonant_stretch)))
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
HELD_RENDER_S = 0.12


@dataclass(frozen=True)
class Hold:
    """A held phrase end: label `label` is rendered with `extra` frames fewer,
    to be restored by repetition of a steady stretch of it; its pitch falls by
    `fall_st` over its last `fall` frames (after the restoration)."""
    label: int
    extra: int
    fall: int
    fall_st: float


def holds(v: Verse, frames: Sequence[int], part: str, style: ChantStyle) -> list[Hold]:
    n = len(v.morae)
    out = []
    for k, mora in enumerate(v.morae):
        if not (k == n - 1 or v.morae[k + 1].phrase != mora.phrase):
            continue
        yoin = part == "shimo" and k == n - 1
        length = frames[mora.last]
        fall = min(length, _frames(style.yoin_fall_s if yoin else style.fall_s))
        extra = length - _frames(HELD_RENDER_S)
        if extra < _frames(0.05):  # too short to be worth a loop: render it whole
            extra = 0
        out.append(Hold(mora.last, extra, fall, style.yoin_fall_st if yoin else style.fall_st))
    return out


def rendered_frames(frames: Sequence[int], hold_list: Sequence[Hold]) -> list[int]:
    """What the engine renders: held ends without their sustain. (Breaks are
    rendered whole: a break rendered short changes how HTS fades the next
    phrase in, and so where its first mora is heard, by up to 5 ms.)"""
    out = list(frames)
    for h in hold_list:
        out[h.label] -= h.extra
    return out


def chant_pitch(frames: Sequence[int], hold_list: Sequence[Hold], style: ChantStyle):
    """The pitch shaper for `HtsEngine.render` (on the rendered frames): the
    voice's contour compressed toward the reciting tone. (The fall on held ends
    is made on the waveform, audio.synth._glide: HTS weighs its slope targets far
    above its level targets, so a fall set as levels comes out flattened.)"""
    tone = math.log(style.tone_hz)
    held = {h.label for h in hold_list}  # a held end sits on the tone itself (its fall comes later)

    def shape(states: list[StateInfo]) -> list[tuple[float, float]]:
        voiced = sorted(s.lf0 for s in states if math.log(60) < s.lf0 < math.log(700))
        centre = voiced[len(voiced) // 2] if voiced else tone
        levels, centres = [], []
        for s in states:
            own = s.lf0 - centre if math.log(60) < s.lf0 < math.log(700) and s.phoneme not in held else 0.0
            levels.append(tone + style.compress * own)
            centres.append(s.start + s.length / 2)
        # Slopes must agree with the levels: the engine trusts its delta targets more
        # than its static ones, and a zero slope everywhere would flatten every step.
        out = []
        for k, level in enumerate(levels):
            left = (level - levels[k - 1]) / max(1.0, centres[k] - centres[k - 1]) if k else 0.0
            right = (levels[k + 1] - level) / max(1.0, centres[k + 1] - centres[k]) if k + 1 < len(levels) else 0.0
            out.append((level, (left + right) / 2))
        return out

    return shape
