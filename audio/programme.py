"""The reading programme: the whole timeline of a reading session, as plain data.

A programme is what an official reader (yomite, 読手) would read, laid out in
absolute samples at ``RATE`` before any sound is made, so the rules engines,
the UI and the tests can reason about time without a sound device:

    joka kami-no-ku · pause · joka shimo-no-ku · ma · joka shimo-no-ku again
    · ma · kami(1) · pause · shimo(1) · ma · kami(2) · pause · shimo(2) · ma · ...

Gaps are measured between what a listener hears, not between clip edges: the
``ma`` (間, 1.0 s by default) runs from the held end of a shimo-no-ku (its
``end`` mark, after the yoin) to the first sound of the next kami-no-ku (its
``phrase:0`` mark); the kami/shimo ``pause`` from the kami-no-ku's ``end`` to
the shimo-no-ku's first sound. Leading or trailing silence inside a clip is
trimmed where it would overlap its neighbour, so segments never overlap.

In kyogi reading the shimo-no-ku of one card and the kami-no-ku of the next are
one unit: the reader waits (players rearrange cards) *before* that unit, and
the ``ma`` inside it is never stretched. `Programme.hold_points` lists where a
player may wait; see `audio.player` for how holds shift the clock.

Card indices are positions in `Programme.card_order` (0-based); the joka has
card index ``JOKA`` (-1). Marks of a card, by name (all absolute samples):

    kami_start, kimariji, kami_end, shimo_start, shimo_end
    kami:<clip mark>, shimo:<clip mark>      e.g. 'kami:mora:3', 'shimo:phrase:1'

The joka's repeated shimo-no-ku uses ``shimo2_start``, ``shimo2_end``, ``shimo2:<mark>``.

Shimo-no-ku only (下の句かるた, as read in Hokkaido): ``read_kami=False``. Each
card is one verse, its shimo-no-ku, laid where a kami-no-ku would be: the
segment has kind KAMI (the verse that opens a card, which is what the player's
skip, wait and card events key on) but holds the shimo-no-ku clip. Its marks
are ``shimo:<clip mark>``, ``shimo_start``, ``shimo_end``, and ``kami_start`` /
``kami_end`` at the same samples (the card's start and end for every reader of
`card_times`). Its ``kimariji`` is the shimo-no-ku's decisive opening: the
shortest run of its morae (as read aloud) that no other card still to be read
in this programme shares (see `shimo_kimariji`), at the onset of the last of
those morae when the clip marks its morae, else no kimariji mark.

Memorisation period (暗記時間): ``memorise`` seconds of silence before the
joka, on the programme's own clock (a pause of the player pauses it too).
Its notices are clips given to `Programme.build` (``notices``: "two_minutes",
"start"; by default short tones, `notice_tone`), on card index ``MEMORISE``:
the "two_minutes" notice begins ``NOTICE_BEFORE`` s before the end (when the
period is long enough to hold it), the "start" notice begins at the end
(mark ``memorise_end``), and the joka's first sound follows the end of the
"start" notice after the ma. Marks: ``memorise_start`` (0), ``memorise_end``,
``two_minutes_start``, ``start_start``, ``start_end``.

Growing (`Programme.grow`): the same layout yielded card by card, so a reading
can start while later clips are still being synthesised; `audio.player.Player.extend`
plays each step on from the last without a break.

Reading speed: applied here by resampling each clip (``soxr``), like playing a
tape faster: durations and marks scale by exactly 1/speed (marks stay exact to
the sample) and the pitch rises by the same ratio (±10 % speed is about ±1.7
semitones). Pauses and the ma are not scaled; they are settings of their own.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from audio.clip import Clip
from audio.voice import RATE, Voice, VoiceError

JOKA = -1  # card index of the joka (序歌)
MEMORISE = -2  # card index of the memorisation period and its notices (暗記時間)

# Segment kinds. Sounding: KAMI, SHIMO, NOTICE. Silent: MA (before a kami-no-ku),
# PAUSE (before a shimo-no-ku), MEMORISING (the memorisation period).
KAMI, SHIMO, MA, PAUSE = "kami", "shimo", "ma", "pause"
NOTICE, MEMORISING = "notice", "memorising"
NOTICES = ("two_minutes", "start")
NOTICE_BEFORE = 120.0  # the "two minutes left" notice, seconds before the end of memorisation
MAX_MEMORISE = 60 * 60.0

MIN_SPEED, MAX_SPEED = 0.5, 2.0


@dataclass(frozen=True)
class ReadingSettings:
    """How to read: the timing a karuta player would set on a reading machine."""

    ma: float = 1.0
    """Seconds from the held end of a shimo-no-ku to the next kami-no-ku (間)."""
    pause: float = 0.66
    """Seconds between a kami-no-ku and its shimo-no-ku (the measured reader's median, issue 25)."""
    joka_gap: float = 0.80
    """Seconds between the joka's shimo-no-ku and its repetition (the measured reader's, issue 25)."""
    own_pauses: bool = False
    """With an imported voice, keep each poem's pause between kami- and shimo-no-ku as the
    reader made it (where the recording tells it); `pause` for the others."""
    speed: float = 1.0
    """Reading speed factor (1.2 = 20 % faster), applied by resampling (see module doc)."""
    read_shimo: bool = True
    """False: kami-no-ku only, each followed by the ma (a drill setting)."""
    cards: int | None = None
    """How many cards of the order to read (None = all)."""
    voice: str = "synth"
    """Which voice: 'synth' or the name of an imported recording set."""
    joka: bool = True
    """Read the joka first (kami, shimo, shimo again)."""
    read_kami: bool = True
    """False: shimo-no-ku only (下の句かるた), see the module doc."""
    memorise: float = 0.0
    """Seconds of memorisation period before the joka (0: none), see the module doc."""

    def __post_init__(self):
        if not (0.0 <= self.ma <= 60.0):
            raise ValueError(f"ma must be 0..60 seconds, not {self.ma}")
        if not (0.0 <= self.pause <= 60.0):
            raise ValueError(f"pause must be 0..60 seconds, not {self.pause}")
        if not (0.0 <= self.joka_gap <= 60.0):
            raise ValueError(f"the joka's gap must be 0..60 seconds, not {self.joka_gap}")
        if not (MIN_SPEED <= self.speed <= MAX_SPEED):
            raise ValueError(f"speed must be {MIN_SPEED}..{MAX_SPEED}, not {self.speed}")
        if self.cards is not None and not (0 <= self.cards <= 100):
            raise ValueError(f"cards must be 0..100, not {self.cards}")
        if not (self.read_kami or self.read_shimo):
            raise ValueError("kami-no-ku only and shimo-no-ku only exclude each other")
        if not (0.0 <= self.memorise <= MAX_MEMORISE):
            raise ValueError(f"memorisation must be 0..{MAX_MEMORISE / 60:g} minutes, "
                             f"not {self.memorise / 60:g}")


@dataclass(frozen=True)
class Segment:
    """One stretch of the timeline: a clip (or part of one) or a silence.

    Sample ``start + k`` of the session is ``clip.samples[offset + k]`` for
    ``0 <= k < length``; silent segments have ``clip`` None.
    """

    kind: str
    card_index: int
    poem: int
    start: int
    length: int
    clip: Clip | None = None
    offset: int = 0
    marks: Mapping[str, int] = field(default_factory=dict)
    """Absolute marks of the clip falling inside this segment, named as in `Programme`."""

    @property
    def stop(self) -> int:
        return self.start + self.length

    @property
    def sounding(self) -> bool:
        return self.clip is not None


@dataclass(frozen=True)
class CardTimes:
    """The main marks of one card (absolute samples), for timelines and JSON."""

    card_index: int
    poem: int
    kami_start: int
    kimariji: int | None  # None when the clip carries no kimariji mark (e.g. an unmarked recording)
    kami_end: int
    shimo_start: int | None
    shimo_end: int | None


class Programme:
    """A built reading session. Build with `Programme.build`; immutable afterwards."""

    def __init__(self, segments: Sequence[Segment], card_order: Sequence[int],
                 settings: ReadingSettings, rate: int = RATE, complete: bool = True):
        self.segments: tuple[Segment, ...] = tuple(segments)
        self.card_order: tuple[int, ...] = tuple(card_order)
        self.settings = settings
        self.rate = rate
        self.complete = complete
        """False for a session still growing (`Programme.grow`): more cards follow its end."""
        self.total_samples: int = self.segments[-1].stop if self.segments else 0
        self._starts = [s.start for s in self.segments]
        self._marks: dict[tuple[int, str], int] = {}
        for seg in self.segments:
            for name, pos in seg.marks.items():
                self._marks[(seg.card_index, name)] = pos

    # -- building -------------------------------------------------------------

    @classmethod
    def build(cls, voice: Voice, card_order: Iterable[int],
              settings: ReadingSettings = ReadingSettings(),
              progress: Callable[[int, int], None] | None = None,
              notices: Mapping[str, Clip] | None = None) -> "Programme":
        """Lay out the session for `card_order` (poem numbers, read in this order).

        Asks the voice for every clip (which may synthesise them): `progress(done,
        total)` is called after each. A voice's `VoiceError` passes through.
        `notices`: the memorisation period's spoken notices (default: tones).
        """
        order = _checked_order(card_order, settings)
        return _Builder(voice, settings, progress, notices).build(order)

    @classmethod
    def grow(cls, voice: Voice, card_order: Iterable[int],
             settings: ReadingSettings = ReadingSettings(),
             notices: Mapping[str, Clip] | None = None, first_cards: int = 1) -> Iterator["Programme"]:
        """Lay out the session as `build` does, yielding it as it grows, so that a
        reading can start before every clip is made (issue 25: the first card heard
        within 2 s of an empty cache).

        The first programme yielded holds the memorisation period, the joka and the
        first `first_cards` cards; each later one a card more; the last is the whole
        session (`complete` True, the same segments and marks `build` gives). Each is
        a prefix of the next: the same samples and marks up to its end (only the
        silence after its last clip may be cut where the next clip's lead-in begins),
        so a player can swap one for the next while playing (`Player.extend`). A card
        is placed only once its clips are in hand: its marks (kimariji, shimo_end) are
        known before it sounds. The voice is asked for clips in reading order.
        """
        order = _checked_order(card_order, settings)
        builder = _Builder(voice, settings, None, notices)
        for placed in builder.steps(order):
            if placed >= min(first_cards, len(order)):
                yield builder.programme(order[:placed], complete=placed == len(order))

    @classmethod
    def shuffled(cls, voice: Voice, seed: int | None,
                 settings: ReadingSettings = ReadingSettings(),
                 progress: Callable[[int, int], None] | None = None) -> "Programme":
        """All 100 poems in the order `poems.shuffled(seed)`, cut to ``settings.cards``."""
        import poems
        return cls.build(voice, poems.shuffled(seed), settings, progress)

    # -- questions about time ----------------------------------------------

    def mark_sample(self, card_index: int, name: str) -> int:
        """Absolute sample of mark `name` of card `card_index` (JOKA for the joka)."""
        try:
            return self._marks[(card_index, name)]
        except KeyError:
            raise KeyError(f"card {card_index} has no mark {name!r}") from None

    def has_mark(self, card_index: int, name: str) -> bool:
        return (card_index, name) in self._marks

    def marks(self) -> dict[tuple[int, str], int]:
        """Every mark of the session: (card_index, name) -> absolute sample."""
        return dict(self._marks)

    def seconds(self, sample: int) -> float:
        return sample / self.rate

    def card_times(self) -> list[CardTimes]:
        # Every card's kami-no-ku is placed, so its start and end always exist;
        # the kimariji mark and the shimo-no-ku may not.
        marks = self._marks
        return [CardTimes(i, no, self.mark_sample(i, "kami_start"), marks.get((i, "kimariji")),
                          self.mark_sample(i, "kami_end"), marks.get((i, "shimo_start")), marks.get((i, "shimo_end")))
                for i, no in enumerate(self.card_order)]

    def segment_at(self, sample: int) -> int:
        """Index of the segment containing `sample` (the last one past the end)."""
        return max(0, bisect.bisect_right(self._starts, sample) - 1)

    def segments_of(self, kind: str) -> list[Segment]:
        return [s for s in self.segments if s.kind == kind]

    def hold_points(self, before: str = SHIMO) -> list[int]:
        """Where a reader may wait: the start of the silence before every `before` segment.

        ``before=SHIMO``: after a kami-no-ku, before the shimo/kami unit (the kyogi
        wait while players rearrange cards). ``before=KAMI``: after a shimo-no-ku,
        before the ma and the next kami-no-ku.
        """
        points = []
        for i, seg in enumerate(self.segments):
            if seg.kind == before and i > 0:
                prev = self.segments[i - 1]
                points.append(prev.start if not prev.sounding else seg.start)
        return points

    # -- samples ----------------------------------------------------------------

    def fill(self, out: np.ndarray, pos: int, hint: int = -1) -> int:
        """Write session samples ``[pos, pos + len(out))`` into the 1-D array `out`.

        Zeros outside the session. Returns the index of the segment holding the
        last written sample, to pass back as `hint` on the next call (saves a
        search). Allocates no arrays: safe to call from an audio callback.
        """
        n = len(out)
        segs = self.segments
        done = 0
        if pos < 0:  # before the session: silence
            done = min(n, -pos)
            out[:done] = 0.0
        if hint < 0 or hint >= len(segs) or segs[hint].start > pos + done:
            hint = self.segment_at(pos + done)
        i = hint
        while done < n:
            p = pos + done
            if i >= len(segs):  # after the session: silence
                out[done:] = 0.0
                break
            seg = segs[i]
            if p >= seg.stop:
                i += 1
                continue
            take = min(n - done, seg.stop - p)
            if seg.clip is None:
                out[done:done + take] = 0.0
            else:
                a = seg.offset + (p - seg.start)
                out[done:done + take] = seg.clip.samples[a:a + take]
            done += take
        return min(i, len(segs) - 1)

    def render(self) -> np.ndarray:
        """The whole session as one float32 array (tests, short programmes)."""
        out = np.zeros(self.total_samples, dtype=np.float32)
        self.fill(out, 0)
        return out

    def timeline(self) -> dict:
        """The card order with absolute times (seconds and samples), for ``--json``."""
        r = self.rate
        sec = lambda s: None if s is None else round(s / r, 6)  # noqa: E731
        cards = []
        for ct in self.card_times():
            cards.append({
                "index": ct.card_index, "poem": ct.poem,
                "kami_start_s": sec(ct.kami_start), "kimariji_s": sec(ct.kimariji),
                "shimo_end_s": sec(ct.shimo_end),
                "kami_start": ct.kami_start, "kimariji": ct.kimariji, "shimo_end": ct.shimo_end,
            })
        s = self.settings
        return {
            "rate": r, "total_samples": self.total_samples, "total_s": sec(self.total_samples),
            "settings": {"ma": s.ma, "pause": s.pause, "speed": s.speed, "read_shimo": s.read_shimo,
                         "read_kami": s.read_kami, "memorise_s": s.memorise,
                         "joka": s.joka, "voice": s.voice},
            "memorise_end_s": sec(self._marks.get((MEMORISE, "memorise_end"))),
            "joka": self.has_mark(JOKA, "kami_start") and {
                "kami_start_s": sec(self.mark_sample(JOKA, "kami_start")),
                "shimo2_end_s": sec(self.mark_sample(JOKA, "shimo2_end")),
            } or None,
            "cards": cards,
        }


class _Builder:
    """Lays clips end to end with the set gaps between what is heard."""

    def __init__(self, voice: Voice, settings: ReadingSettings, progress=None, notices=None):
        self.voice = voice
        self.notices = notices
        self.settings = settings
        self.progress = progress
        self.fetched = 0
        self.to_fetch = 0
        self.rate = RATE
        self.segments: list[Segment] = []
        self.prev_end: int | None = None  # absolute end mark of the last clip placed

    def build(self, order: list[int]) -> Programme:
        for _placed in self.steps(order):
            pass
        return self.programme(order)

    def programme(self, placed: Sequence[int], complete: bool = True) -> Programme:
        """The session laid out so far, reading the cards `placed`."""
        return Programme(self.segments, placed, self.settings, self.rate, complete)

    def steps(self, order: list[int]) -> Iterator[int]:
        """Place the session piece by piece: yields how many cards are placed, first 0
        (the memorisation period and the joka), then after every card."""
        s = self.settings
        ma = round(s.ma * self.rate)
        pause = round(s.pause * self.rate)
        self.to_fetch = (3 if s.joka else 0) + len(order) * (s.read_kami + s.read_shimo)
        if s.memorise > 0:
            self.memorisation(round(s.memorise * self.rate))
        if s.joka:
            # after the "start" notice, the ma (a joka that opens the session has nothing before it)
            self.place(KAMI, JOKA, 0, self.clip(0, KAMI), gap=ma, prefix="kami")
            self.place(SHIMO, JOKA, 0, self.clip(0, SHIMO), gap=self.pause_of(0, pause), prefix="shimo")
            self.place(SHIMO, JOKA, 0, self.clip(0, SHIMO), gap=round(s.joka_gap * self.rate), prefix="shimo2")
        yield 0
        for i, no in enumerate(order):
            if not s.read_kami:
                self.place_shimo_only(i, no, order[i:], gap=ma)
            else:
                self.place(KAMI, i, no, self.clip(no, KAMI), gap=ma, prefix="kami")
                if s.read_shimo:
                    self.place(SHIMO, i, no, self.clip(no, SHIMO), gap=self.pause_of(no, pause), prefix="shimo")
            yield i + 1

    def pause_of(self, no: int, pause: int) -> int:
        """Samples between poem `no`'s kami- and shimo-no-ku: the setting, or with
        `own_pauses` the reader's own where the voice knows it (`own_pause`)."""
        own = getattr(self.voice, "own_pause", None) if self.settings.own_pauses else None
        seconds = own(no) if own is not None else None
        return pause if seconds is None else round(seconds * self.rate)

    def memorisation(self, end: int) -> None:
        """The silent period with its notices; the joka then follows the "start" notice."""
        given = self.notices or {}
        clips = {name: self.prepared(given.get(name) or notice_tone(name, self.rate))
                 for name in NOTICES}
        start_clip = clips["start"]
        start_at = end - _onset(start_clip)          # its first sound at the end of the period
        two_clip = clips["two_minutes"]
        two_heard = end - round(NOTICE_BEFORE * self.rate)
        two_at = two_heard - _onset(two_clip)
        two_fits = two_at >= 0 and two_at + len(two_clip.samples) <= start_at
        pos = 0
        marks = {"memorise_start": 0, "memorise_end": end}
        if two_fits:
            self.segments.append(Segment(MEMORISING, MEMORISE, 0, 0, two_at, marks=marks))
            self.segments.append(Segment(NOTICE, MEMORISE, 0, two_at, len(two_clip.samples), two_clip,
                                         marks={"two_minutes_start": two_heard}))
            pos = two_at + len(two_clip.samples)
            marks = {}
        if start_at < pos:   # a period shorter than the notice's lead-in: the notice starts at 0
            start_at = pos
        self.segments.append(Segment(MEMORISING, MEMORISE, 0, pos, start_at - pos, marks=marks))
        heard = start_at + _onset(start_clip)
        ends = start_at + start_clip.marks.get("end", len(start_clip.samples))
        self.segments.append(Segment(NOTICE, MEMORISE, 0, start_at, len(start_clip.samples), start_clip,
                                     marks={"start_start": heard, "start_end": ends}))
        self.prev_end = ends

    def prepared(self, clip: Clip) -> Clip:
        """A notice at the session rate (never sped up: it is spoken, not read)."""
        if len(clip.samples) == 0:
            raise VoiceError("a memorisation notice is empty")
        return clip if clip.rate == self.rate else _resample(clip, 1.0, self.rate)

    def place_shimo_only(self, i: int, no: int, unread: Sequence[int], gap: int) -> None:
        """Card `i` read as its shimo-no-ku alone (下の句かるた), see the module doc."""
        clip = self.clip(no, SHIMO)
        self.place(KAMI, i, no, clip, gap=gap, prefix="shimo")
        seg = self.segments[-1]
        marks = dict(seg.marks)
        marks["kami_start"], marks["kami_end"] = marks["shimo_start"], marks["shimo_end"]
        marks.pop("kimariji", None)
        n = len(shimo_kimariji(no, unread))
        if f"shimo:mora:{n - 1}" in marks:
            marks["kimariji"] = marks[f"shimo:mora:{n - 1}"]
        self.segments[-1] = Segment(seg.kind, seg.card_index, seg.poem, seg.start, seg.length,
                                    seg.clip, seg.offset, marks)

    def clip(self, no: int, part: str) -> Clip:
        clip = self.voice.kami(no) if part == KAMI else self.voice.shimo(no)
        self.fetched += 1
        if self.progress:
            self.progress(self.fetched, self.to_fetch)
        if len(clip.samples) == 0:
            raise VoiceError(f"the voice {self.voice.name!r} gave an empty {part}-no-ku for poem {no}")
        if self.settings.speed == 1.0 and clip.rate == self.rate:
            return clip
        return _resample(clip, self.settings.speed, self.rate)

    def place(self, kind: str, card: int, no: int, clip: Clip, gap: int, prefix: str) -> None:
        onset = _onset(clip)
        end = clip.marks.get("end", len(clip.samples))
        if self.prev_end is None:
            start, trim = 0, 0
        else:
            heard = self.prev_end + gap  # the first sound of this clip lands here
            start = heard - onset
            prev = self.segments[-1]
            if start < prev.stop:
                # Silence of the previous clip's tail and this clip's head would
                # overlap: cut both at a point between the two sounds.
                cut = max(start, self.prev_end)
                self.segments[-1] = _truncated(prev, cut)
                trim = cut - start
                start = cut
            else:
                trim = 0
                if start > prev.stop:
                    silent = MA if kind == KAMI else PAUSE
                    self.segments.append(Segment(silent, card, no, prev.stop, start - prev.stop))
        base = start - trim  # absolute position of the clip's sample 0
        marks = {f"{prefix}:{k}": base + v for k, v in clip.marks.items()}
        marks[f"{prefix}_start"] = base + onset
        marks[f"{prefix}_end"] = base + end
        if kind == KAMI and "kimariji" in clip.marks:
            marks["kimariji"] = base + clip.marks["kimariji"]
        self.segments.append(Segment(kind, card, no, start, len(clip.samples) - trim,
                                     clip, trim, marks))
        self.prev_end = base + end


def _checked_order(card_order: Iterable[int], settings: ReadingSettings) -> list[int]:
    order = [int(n) for n in card_order]
    if settings.cards is not None:
        order = order[: settings.cards]
    for no in order:
        if not 1 <= no <= 100:
            raise ValueError(f"card order holds {no}; poems are numbered 1..100")
    if len(set(order)) != len(order):
        raise ValueError("card order reads a poem twice")
    return order


def shimo_kimariji(no: int, among: Iterable[int]) -> list[str]:
    """The shimo-no-ku's decisive opening (下の句の決まり字) among the cards `among`.

    The shortest run of the shimo-no-ku's morae, as read aloud, that no other
    card of `among` begins its shimo-no-ku with. In a shimo-no-ku-only reading
    `among` is the cards still to be read (so it shortens as cards are read,
    like the kami-no-ku's kimariji). No two shimo-no-ku of the hundred are the
    same, so one always exists.
    """
    import poems
    mine = poems.get(no).shimo_morae()
    others = [poems.get(g).shimo_morae() for g in set(among) if g != no]
    longest = 0
    for other in others:
        n = 0
        for a, b in zip(mine, other):
            if a != b:
                break
            n += 1
        longest = max(longest, n)
    return mine[:min(longest + 1, len(mine))]


def notice_tone(name: str, rate: int = RATE) -> Clip:
    """A stand-in notice for a voice that has none: one short tone ("two_minutes")
    or two rising ones ("start"); the Reader panel shows the words on screen."""
    if name not in NOTICES:
        raise ValueError(f"no notice {name!r}; notices: {', '.join(NOTICES)}")
    tone = round(0.25 * rate)
    gap = round(0.12 * rate)
    freqs = (660.0,) if name == "two_minutes" else (660.0, 880.0)
    t = np.arange(tone, dtype=np.float32) / rate
    env = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.01).astype(np.float32)  # 10 ms ramps: no click
    parts = []
    for k, f in enumerate(freqs):
        if k:
            parts.append(np.zeros(gap, dtype=np.float32))
        parts.append((0.4 * np.sin(2 * np.pi * f * t) * env).astype(np.float32))
    samples = np.concatenate(parts)
    return Clip(samples, rate, {"phrase:0": 0, "end": len(samples)})


def _onset(clip: Clip) -> int:
    for name in ("phrase:0", "mora:0"):
        if name in clip.marks:
            return clip.marks[name]
    nz = np.flatnonzero(np.abs(clip.samples) > 1e-4)
    return int(nz[0]) if len(nz) else 0


def _truncated(seg: Segment, stop: int) -> Segment:
    """`seg` cut short at `stop` (only trailing silence is cut; its marks stay)."""
    return Segment(seg.kind, seg.card_index, seg.poem, seg.start, max(0, stop - seg.start),
                   seg.clip, seg.offset, seg.marks)


def _resample(clip: Clip, speed: float, rate: int) -> Clip:
    """`clip` played `speed` times faster, at `rate`: marks scale exactly like the samples."""
    import soxr
    # Pretending the clip was recorded at rate*speed and resampling to `rate`
    # shortens it by 1/speed (and raises the pitch by `speed`).
    out = soxr.resample(clip.samples.astype(np.float32, copy=False), clip.rate * speed, rate,
                        quality="HQ").astype(np.float32, copy=False)
    scale = len(out) / len(clip.samples)
    marks = {k: min(len(out), round(v * scale)) for k, v in clip.marks.items()}
    return Clip(np.ascontiguousarray(out), rate, marks)
