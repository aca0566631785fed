"""The HTS engine inside pyopenjtalk-plus, driven state by state.

pyopenjtalk's own `synthesize()` lets the engine choose every phoneme's length
and pitch. A karuta reading needs both under control, and the clip's marks need
every phoneme's exact start, so this module calls the engine's C API (exported
by pyopenjtalk's `htsengine` extension) through ctypes:

1. `natural_durations(labels)`: the voice's own length of every phoneme, in
   frames (one frame = `FRAME` samples = 5 ms at 48 kHz); `natural_states`,
   of each of its states.
2. `render(labels, frames, pitch)`: synthesise with the phoneme lengths we
   choose (HTS "phoneme alignment": the label carries start and end times) and
   with the pitch target of every state replaced by `pitch(...)`, global
   variance off for pitch (the targets are the contour), and, for the labels
   asked, the length of every state (a lengthened vowel keeps its ending
   short). What comes back says where each phoneme starts, in samples: no
   estimation involved. The last two reach into the engine's state streams
   (HTS_SStreamSet, found in the engine struct and checked against the C
   API's own getters: `HtsEngine._state_streams`).

Both run in a few ms except the vocoder itself (about 55 ms per second of
sound at 48 kHz). No engine setting buys time without changing the sound:
this voice has no postfilter (beta 0) and a plain MLSA filter (gamma 0), and
parameter generation, global variance on the spectrum included, takes about
8 ms of a verse's 0.2 s.
One engine per thread (`engine()` is the process's shared one), each with its lock.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Mapping, Sequence

import numpy as np

RATE = 48_000
FRAME = 240  # samples per HTS frame: 5 ms at 48 kHz (the voice's fperiod)
HTS_TIME_UNIT = 1e-7  # label times are in units of 100 ns
STREAM_MGC, STREAM_LF0 = 0, 1
SSS_DURATIONS = 24  # byte offset of the state durations (size_t *) in HTS_SStreamSet (hts_engine 1.10)
GSS_SPEECH = 32     # byte offset of the generated waveform (double *) in HTS_GStreamSet (hts_engine 1.10)
PCM_SCALE = 32768.0  # the engine's waveform is on the 16-bit scale


class HtsUnavailable(RuntimeError):
    """The HTS engine's C API cannot be reached on this platform/install."""


@dataclass(frozen=True)
class StateInfo:
    """What the pitch shaper may look at for one HTS state."""
    phoneme: int      # index into the label list
    state: int        # 0..nstate-1 within the phoneme
    start: int        # frame where the state starts
    length: int       # frames
    lf0: float        # the voice's own log-F0 target (static mean)


# For every state: (static log-F0 target, its slope per frame). The slope lets a
# held tone glide (phrase-final fall) instead of stepping from state to state.
PitchFn = Callable[[list[StateInfo]], list[tuple[float, float]]]


@dataclass(frozen=True)
class Rendering:
    samples: np.ndarray        # float32, [-1, 1]
    phoneme_starts: list[int]  # sample offset of every label's start
    c0: np.ndarray             # generated energy coefficient per frame (mgc[0])
    # For the labels asked for (looped vowels): per frame, the generated energy
    # coefficient (mgc[0]) and whether the frame is voiced. Where to loop a vowel.
    spectra: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def openjtalk():
    """The pyopenjtalk module, imported without the notice it prints to stdout.

    pyopenjtalk-plus prints that its optional ONNX model (which reading to give
    何) is off; we feed kana, never 何, and `karuta ... --json` writes JSON to
    stdout, which the notice would break.
    """
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        import pyopenjtalk
    return pyopenjtalk


def _library_path() -> str:
    pyopenjtalk = openjtalk()
    here = os.path.dirname(pyopenjtalk.__file__)
    for name in sorted(os.listdir(here)):
        if name.startswith("htsengine") and name.endswith((".so", ".pyd", ".dylib")):
            return os.path.join(here, name)
    raise HtsUnavailable("pyopenjtalk's htsengine extension was not found")


def voice_path() -> bytes:
    pyopenjtalk = openjtalk()
    return pyopenjtalk.DEFAULT_HTS_VOICE


@lru_cache(maxsize=1)
def engine_version() -> str:
    """Changes whenever pyopenjtalk or its voice file changes (part of the cache key)."""
    pyopenjtalk = openjtalk()
    digest = hashlib.sha256()
    digest.update(str(getattr(pyopenjtalk, "__version__", "?")).encode())
    with open(voice_path(), "rb") as voice:
        for block in iter(lambda: voice.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _bind(lib: ctypes.CDLL) -> None:
    E, S, B, D = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char, ctypes.c_double
    lines = ctypes.POINTER(ctypes.c_char_p)
    signatures = {
        "HTS_Engine_initialize": ([E], None),
        "HTS_Engine_load": ([E, lines, S], B),
        "HTS_Engine_set_phoneme_alignment_flag": ([E, B], None),
        "HTS_Engine_set_volume": ([E, D], None),
        "HTS_Engine_set_msd_threshold": ([E, S, D], None),
        "HTS_Engine_set_gv_weight": ([E, S, D], None),
        "HTS_Engine_get_sampling_frequency": ([E], S),
        "HTS_Engine_get_fperiod": ([E], S),
        "HTS_Engine_get_nstate": ([E], S),
        "HTS_Engine_get_total_state": ([E], S),
        "HTS_Engine_get_total_frame": ([E], S),
        "HTS_Engine_get_state_duration": ([E, S], S),
        "HTS_Engine_get_state_mean": ([E, S, S, S], D),
        "HTS_Engine_set_state_mean": ([E, S, S, S, D], None),
        "HTS_Engine_get_generated_parameter": ([E, S, S, S], D),
        "HTS_Engine_generate_state_sequence_from_strings": ([E, lines, S], B),
        "HTS_Engine_generate_parameter_sequence": ([E], B),
        "HTS_Engine_generate_sample_sequence": ([E], B),
        "HTS_Engine_get_nsamples": ([E], S),
        "HTS_Engine_get_generated_speech": ([E, S], D),
        "HTS_Engine_refresh": ([E], None),
        "HTS_Engine_get_nstream": ([E], S),
        # The engine's state streams (HTS_SStreamSet, a member of the engine struct):
        # where GV is switched off state by state (HtsEngine._without_gv).
        "HTS_SStreamSet_get_total_state": ([E], S),
        "HTS_SStreamSet_get_mean": ([E, S, S, S], D),
        "HTS_SStreamSet_set_gv_switch": ([E, S, S, B], None),
    }
    for name, (args, result) in signatures.items():
        try:
            fn = getattr(lib, name)
        except AttributeError as exc:
            raise HtsUnavailable(f"the HTS engine does not export {name}") from exc
        fn.argtypes, fn.restype = args, result


def _lines(labels: Sequence[str]):
    return (ctypes.c_char_p * len(labels))(*[label.encode() for label in labels])


def _fill(wanted: Sequence[int | None], own: Sequence[int], total: int) -> list[int]:
    """State lengths: those `wanted` gives, and for its Nones the rest of `total`
    shared in proportion to HTS's own lengths `own` (at least 1 frame each)."""
    free = [k for k, n in enumerate(wanted) if n is None]
    out = [0 if n is None else int(n) for n in wanted]
    rest = total - sum(out)
    if free:
        weight = sum(own[k] for k in free) or len(free)
        for k in free:
            out[k] = max(1, int(rest * (own[k] or 1) // weight))
        out[max(free, key=lambda k: out[k])] += total - sum(out)
    return out


class HtsEngine:
    """One HTS engine loaded with pyopenjtalk's default voice (mei, 48 kHz)."""

    # The waveform is read as the vocoder's doubles (`_speech`), which are
    # never saturated; at 0 dB the loudest vowels reach about +9 dBFS.
    VOLUME_DB = -6.0
    # A frame is voiced when the model's voicing probability exceeds this (HTS
    # default 0.5). Lower: a chant voices its vowels even where speech would
    # whisper them (the う of うち after a break), unvoiced consonants stay so.
    VOICING_THRESHOLD = 0.3

    def __init__(self):
        try:
            self._lib = ctypes.CDLL(_library_path())
            _bind(self._lib)
        except OSError as exc:
            raise HtsUnavailable(str(exc)) from exc
        # HTS_Engine is a plain C struct of a few kB; give it ample room.
        self._memory = ctypes.create_string_buffer(1 << 16)
        self._e = ctypes.cast(self._memory, ctypes.c_void_p)
        lib = self._lib
        lib.HTS_Engine_initialize(self._e)
        if lib.HTS_Engine_load(self._e, (ctypes.c_char_p * 1)(voice_path()), 1) != b"\x01":
            raise HtsUnavailable("the HTS voice could not be loaded")
        if (lib.HTS_Engine_get_sampling_frequency(self._e), lib.HTS_Engine_get_fperiod(self._e)) != (RATE, FRAME):
            raise HtsUnavailable("the HTS voice is not 48 kHz with 5 ms frames")
        lib.HTS_Engine_set_volume(self._e, self.VOLUME_DB)
        lib.HTS_Engine_set_msd_threshold(self._e, STREAM_LF0, self.VOICING_THRESHOLD)
        # No global variance (GV) on pitch: the targets we give are the pitch we
        # want. GV makes the generated log-F0 track of a whole utterance as
        # varied as the voice's speech (HTS scales the track about its mean to
        # the GV target, then refines): it shrank every low phrase start by a
        # share that depended on the rest of the verse (14 st asked, 9.7 and
        # 11.7 st heard in poem 2) and squeezed the voice's own contour with it. Its weight cannot
        # switch it off (0 asks for a track without variance: one constant
        # tone); its per-state switch can (`_without_gv`, in `render`).
        self._sss_offset: int | None = None
        self._gss_offset: int | None = None
        self.nstate = lib.HTS_Engine_get_nstate(self._e)
        self.lock = threading.Lock()
        self._find_state_streams()

    def _find_state_streams(self) -> None:
        """Find the state and generated streams once, on a one-mora utterance,
        so that an engine whose memory layout is not the one `_state_streams`
        and `_generated_streams` know is unavailable from the start
        (HtsUnavailable, with the reason), not a failure at every verse."""
        lib, e = self._lib, self._e
        try:
            self._states(openjtalk().extract_fullcontext("あ"))
            self._state_streams()
            if (lib.HTS_Engine_generate_parameter_sequence(e) != b"\x01"
                    or lib.HTS_Engine_generate_sample_sequence(e) != b"\x01"):
                raise HtsUnavailable("the HTS voice could not render a test utterance")
            self._speech()
        finally:
            self._lib.HTS_Engine_refresh(self._e)

    def natural_durations(self, labels: Sequence[str]) -> list[int]:
        """Frames per phoneme as the voice would say it."""
        return [sum(states) for states in self.natural_states(labels)]

    def natural_states(self, labels: Sequence[str]) -> list[list[int]]:
        """Frames of every state of every phoneme as the voice would say it."""
        lib, e = self._lib, self._e
        with self.lock:
            lib.HTS_Engine_set_phoneme_alignment_flag(e, b"\x00")
            try:
                self._states(labels)
                return [[lib.HTS_Engine_get_state_duration(e, p * self.nstate + s) for s in range(self.nstate)]
                        for p in range(len(labels))]
            finally:
                lib.HTS_Engine_refresh(e)

    def render(self, labels: Sequence[str], frames: Sequence[int], pitch: PitchFn,
               c0_phonemes: Sequence[int] = (), spectrum_phonemes: Sequence[int] = (),
               states: Mapping[int, Sequence[int | None]] | None = None,
               plain_spectrum: Sequence[int] = ()) -> Rendering:
        """Synthesise with `frames[i]` frames for label i and the pitch targets `pitch` gives.

        `c0_phonemes`: labels whose generated energy track is wanted (stop releases);
        `spectrum_phonemes`: labels whose energy track and voicing are wanted (in `spectra`);
        `states`: for some labels, the frames of each of their states (None:
        HTS's share of the rest); the other labels' frames are shared out by HTS;
        `plain_spectrum`: states (label * nstate + state) whose spectrum is left
        out of global variance (`_without_gv`).
        """
        if len(frames) != len(labels) or min(frames) < self.nstate:
            raise ValueError(f"every phoneme needs at least {self.nstate} frames")
        starts = np.concatenate([[0], np.cumsum(frames)]).astype(int)
        unit = FRAME / RATE / HTS_TIME_UNIT  # 100-ns units per frame (50 000)
        timed = [f"{int(round(a * unit))} {int(round(b * unit))} {label}"
                 for a, b, label in zip(starts[:-1], starts[1:], labels)]
        lib, e = self._lib, self._e
        with self.lock:
            lib.HTS_Engine_set_phoneme_alignment_flag(e, b"\x01")
            try:
                self._states(timed)
                if states:
                    self._set_states(states, frames)
                info = self._state_info(len(labels))
                got = [sum(s.length for s in info if s.phoneme == p) for p in range(len(labels))]
                if got != list(frames):
                    raise RuntimeError(f"HTS did not keep the phoneme lengths asked for: {got} != {list(frames)}")
                # Voicing stays the voice's own (MSD weights); only voiced targets are heard.
                for index, (level, slope) in enumerate(pitch(info)):
                    lib.HTS_Engine_set_state_mean(e, STREAM_LF0, index, 0, level)
                    lib.HTS_Engine_set_state_mean(e, STREAM_LF0, index, 1, slope)
                    lib.HTS_Engine_set_state_mean(e, STREAM_LF0, index, 2, 0.0)
                self._without_gv(len(info), plain_spectrum)
                if lib.HTS_Engine_generate_parameter_sequence(e) != b"\x01":
                    raise RuntimeError("HTS parameter generation failed")
                if lib.HTS_Engine_generate_sample_sequence(e) != b"\x01":
                    raise RuntimeError("HTS waveform generation failed")
                # Generated parameters are readable once the waveform exists (not before).
                c0 = np.full(int(starts[-1]), np.nan)
                for p in c0_phonemes:
                    for t in range(starts[p], starts[p + 1]):
                        c0[t] = lib.HTS_Engine_get_generated_parameter(e, STREAM_MGC, t, 0)
                spectra = {p: self._spectrum(int(starts[p]), int(starts[p + 1])) for p in spectrum_phonemes}
                samples = self._speech()
            finally:
                lib.HTS_Engine_refresh(e)
        return Rendering(samples, [int(s) * FRAME for s in starts[:-1]], c0, spectra)

    def _state_streams(self) -> int:
        """Address of the engine's HTS_SStreamSet (once a state sequence exists).

        The C API has no getter for it, so it is found in the engine struct by
        its contents ({streams*, nstream, nstate, durations*, total_state,
        total_frame}, hts_engine 1.10) and checked against the engine's own
        getters before use; on another layout, HtsUnavailable."""
        lib, e = self._lib, self._e
        if self._sss_offset is None:
            total = lib.HTS_Engine_get_total_state(e)
            frames = sum(lib.HTS_Engine_get_state_duration(e, i) for i in range(total))
            want = (lib.HTS_Engine_get_nstream(e), self.nstate, None, total, frames)
            words = np.frombuffer(self._memory.raw[:8192], dtype="<u8")
            found = [8 * i for i in range(len(words) - 5)
                     if words[i] and words[i + 3] and (words[i + 1], words[i + 2]) == want[:2]
                     and (words[i + 4], words[i + 5]) == want[3:]]
            if len(found) != 1:
                raise HtsUnavailable(f"the engine's state streams were not found ({len(found)} candidates)")
            sss = e.value + found[0]
            if lib.HTS_SStreamSet_get_total_state(sss) != total or any(
                    lib.HTS_SStreamSet_get_mean(sss, STREAM_LF0, i, 0) != lib.HTS_Engine_get_state_mean(
                        e, STREAM_LF0, i, 0) for i in range(total)):
                raise HtsUnavailable("the engine's state streams do not read as its getters do")
            self._sss_offset = found[0]
        return e.value + self._sss_offset

    def _set_states(self, states: Mapping[int, Sequence[int | None]], frames: Sequence[int]) -> None:
        """Impose the frames of states of the given labels; a state given as None
        keeps HTS's own share of the label's remaining frames. (HTS shares a
        label's frames among its states in proportion to the voice's own state
        lengths; the state streams hold the result, read when the parameters
        are generated.)"""
        lib, e, ns = self._lib, self._e, self.nstate
        address = ctypes.c_void_p.from_address(self._state_streams() + SSS_DURATIONS).value
        if not address:
            raise HtsUnavailable("the engine's state streams hold no durations")
        duration = (ctypes.c_size_t * lib.HTS_Engine_get_total_state(e)).from_address(address)
        for label, wanted in states.items():
            own = [int(duration[label * ns + k]) for k in range(ns)]
            lengths = _fill(wanted, own, frames[label])
            if len(lengths) != ns or sum(lengths) != frames[label] or min(lengths) < 1:
                raise ValueError(f"label {label}: states {list(wanted)} for {frames[label]} frames")
            for k, n in enumerate(lengths):
                duration[label * ns + k] = n
                if lib.HTS_Engine_get_state_duration(e, label * ns + k) != n:
                    raise HtsUnavailable("the engine does not read the state durations where they were set")

    def _without_gv(self, n_states: int, spectrum: Sequence[int] = ()) -> None:
        """Switch global variance off for the pitch of every state (see __init__),
        and for the spectrum of the states `spectrum`.

        GV scales the spectrum's track over the whole utterance to the variance
        the voice has in speech. A chant is mostly held vowels, whose spectrum
        hardly moves: scaled to speech's variance, every consonant and vowel
        colour came out exaggerated (issue 25: `synth_chant.plain_spectrum`)."""
        sss, switch = self._state_streams(), self._lib.HTS_SStreamSet_set_gv_switch
        for index in range(n_states):
            switch(sss, STREAM_LF0, index, b"\x00")
        for index in spectrum:
            switch(sss, STREAM_MGC, index, b"\x00")

    def _spectrum(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """Generated energy coefficients c0 (frames a..b-1) and their voicing (log-F0 generated or not)."""
        get, e = self._lib.HTS_Engine_get_generated_parameter, self._e
        c0 = np.array([get(e, STREAM_MGC, t, 0) for t in range(a, b)], dtype=np.float64)
        voiced = np.array([get(e, STREAM_LF0, t, 0) > 0 for t in range(a, b)], dtype=bool)
        return c0, voiced

    def _states(self, labels: Sequence[str]) -> None:
        if self._lib.HTS_Engine_generate_state_sequence_from_strings(self._e, _lines(labels), len(labels)) != b"\x01":
            raise RuntimeError("HTS rejected the labels")

    def _state_info(self, n_labels: int) -> list[StateInfo]:
        lib, e, ns = self._lib, self._e, self.nstate
        out, start = [], 0
        for index in range(lib.HTS_Engine_get_total_state(e)):
            length = lib.HTS_Engine_get_state_duration(e, index)
            out.append(StateInfo(index // ns, index % ns, start, length,
                                 lib.HTS_Engine_get_state_mean(e, STREAM_LF0, index, 0)))
            start += length
        return out

    def _speech(self) -> np.ndarray:
        """The generated waveform as the vocoder made it, in [-1, 1] where it fits.

        Read from the engine's own buffer of doubles (HTS_GStreamSet.gspeech):
        the C API's writer (`HTS_Engine_save_generated_speech`), which this
        module read before, and pyopenjtalk both saturate it to 16 bits, which cut flat tops into the loudest vowels
        (issue 25: runs of up to 11 equal samples at full scale in 58 of 200
        half-verses) before any later scaling could give them headroom."""
        lib, e = self._lib, self._e
        n = lib.HTS_Engine_get_nsamples(e)
        if n == 0:
            return np.zeros(0, np.float32)
        address = ctypes.c_void_p.from_address(self._generated_streams() + GSS_SPEECH).value
        if not address:
            raise HtsUnavailable("the engine holds no generated waveform")
        speech = np.ctypeslib.as_array((ctypes.c_double * n).from_address(address)).copy()
        for index in (0, n // 3, n // 2, n - 1):  # the buffer is the one the getter reads
            if speech[index] != lib.HTS_Engine_get_generated_speech(e, index):
                raise HtsUnavailable("the engine's waveform does not read as its getter does")
        return (speech / PCM_SCALE).astype(np.float32)

    def _generated_streams(self) -> int:
        """Address of the engine's HTS_GStreamSet ({total_nsample, total_frame,
        nstream, gstream*, gspeech*}, hts_engine 1.10), found in the engine
        struct by its contents once a waveform exists, as `_state_streams`."""
        lib, e = self._lib, self._e
        if self._gss_offset is None:
            want = (lib.HTS_Engine_get_nsamples(e), lib.HTS_Engine_get_total_frame(e), lib.HTS_Engine_get_nstream(e))
            words = np.frombuffer(self._memory.raw[:8192], dtype="<u8")
            found = [8 * i for i in range(len(words) - 4)
                     if tuple(words[i:i + 3]) == want and words[i + 3] and words[i + 4]]
            if len(found) != 1:
                raise HtsUnavailable(f"the engine's generated streams were not found ({len(found)} candidates)")
            self._gss_offset = found[0]
        return e.value + self._gss_offset


_engine: HtsEngine | None = None
_engine_lock = threading.Lock()


def engine() -> HtsEngine:
    """The process's engine, created on first use."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = HtsEngine()
        return _engine
