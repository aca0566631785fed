"""A reading session for a real floor, kept on disk so it survives anything.

Players may break for lunch or the laptop may be closed between two cards: the
session (the order of the yomifuda, how many have been read, the timing and
voice settings) is written to the user data directory after every card, and
the next start of the app offers to continue it.  No Qt here.

Orders and extras a club reading needs, all seeded so a reading can be redone:

- karafuda (空札): with a chosen set of N floor cards, K more cards from outside
  the set are read too (never on the floor: touching for them is a fault);
- the むすめふさほせ study order (`study_order`);
- `ReaderSession.replayed`: the same reading again in the same order, for the
  post-game review (感想戦).
"""
from __future__ import annotations

import json
import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeGuard

from trainer.rules.protocol import IllegalAction

SESSION_FILE = "reader_session.json"


@dataclass
class ReadingTiming:
    ma: float = 1.0         # silence after the shimo-no-ku before the next kami-no-ku
    pause: float = 0.66     # between kami- and shimo-no-ku (the measured reader's, issue 25)
    joka_gap: float = 0.80  # between the joka's shimo-no-ku and its repetition (the measured reader's)
    own_pauses: bool = False  # an imported voice: keep the reader's own kami/shimo pause where known
    speed: float = 1.0
    voice: str = "synth"
    joka: bool = True       # official start: joka, its shimo-no-ku read twice
    shimo_only: bool = False  # 下の句かるた: read each card's shimo-no-ku only
    memorise: float = 0.0   # minutes of memorisation period before the joka (0: none)


ORDERS = ("random", "musumefusahose")
MAX_MEMORISE_MIN = 60.0

# The traditional study order of first sounds (一枚札 む す め ふ さ ほ せ, 二枚札 う つ し も ゆ,
# 三枚札 い ち ひ き, 四枚札 は や よ か, 五枚札 み, 六枚札 た こ, 七枚札 お わ, 八枚札 な,
# 十六枚札 あ): the groups are ordered by how many of the hundred poems begin with that
# sound (computed from the poems, so the lists and the data cannot disagree), and within
# a size by this mnemonic.
MNEMONIC = "むすめふさほせ" "うつしもゆ" "いちひき" "はやよか" "み" "たこ" "おわ" "な" "あ"


def study_order(cards=None) -> list[int]:
    """The むすめふさほせ order of ``cards`` (default all 100), for study lists.

    Groups by first sound as heard (を→お), fewest poems per sound first
    (the 一字決まり, whose first sound alone decides, lead); groups of the same
    size in the mnemonic's order; within a group by kimariji (historical kana,
    gojūon order), which keeps tomofuda that share an opening side by side.
    """
    import poems
    nos = sorted(set(range(1, 101) if cards is None else cards))
    size: dict[str, int] = {}
    for no in range(1, 101):
        sound = poems.get(no).first_sound
        size[sound] = size.get(sound, 0) + 1

    def key(no: int):
        p = poems.get(no)
        rank = MNEMONIC.find(p.first_sound)
        return (size[p.first_sound], rank if rank >= 0 else len(MNEMONIC), p.first_sound,
                p.kimariji, no)
    return sorted(nos, key=key)


def with_karafuda(cards, k: int, seed: int) -> tuple[list[int], list[int]]:
    """(the cards to read, the karafuda among them): ``cards`` plus ``k`` poems from outside
    them, chosen with ``seed``.  ValueError when the set leaves fewer than ``k`` outside."""
    chosen = sorted(set(cards))
    if k < 0:
        raise ValueError(f"karafuda must be 0 or more, not {k}")
    outside = sorted(set(range(1, 101)) - set(chosen))
    if k > len(outside):      # a refusal the screen words from its id (`describe_refusal`)
        raise IllegalAction("reader.too_many_karafuda",
                            f"{k} karafuda asked for but only {len(outside)} poems lie outside "
                            f"the set of {len(chosen)}", asked=k, outside=len(outside), chosen=len(chosen))
    extra = sorted(random.Random(f"karafuda:{seed}").sample(outside, k))
    return sorted(chosen + extra), extra


@dataclass
class ReaderSession:
    seed: int
    order: list[int]                 # yomifuda in reading order (poem numbers)
    read: int = 0                    # cards whose reading has finished
    joka_done: bool = False
    timing: ReadingTiming = field(default_factory=ReadingTiming)
    karafuda: list[int] = field(default_factory=list)   # poems of the order not on the floor
    order_name: str = "random"                          # one of ORDERS

    @classmethod
    def new(cls, cards=None, seed: int | None = None, timing: ReadingTiming | None = None,
            karafuda: int = 0, order: str = "random") -> "ReaderSession":
        """All 100 (the karafuda are read too) or only ``cards``, in a seeded random order
        (or the むすめふさほせ study order); ``karafuda`` more poems from outside a chosen
        set are read with it (ValueError when that cannot be)."""
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r}; orders: {', '.join(ORDERS)}")
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        reading = sorted(set(cards)) if cards else list(range(1, 101))
        extra: list[int] = []
        if karafuda:
            reading, extra = with_karafuda(reading, karafuda, seed)
        if order == "random":
            random.Random(seed).shuffle(reading)
        else:
            reading = study_order(reading)
        return cls(seed=seed, order=reading, timing=timing or ReadingTiming(),
                   karafuda=extra, order_name=order)

    def replayed(self) -> "ReaderSession":
        """The same reading from its start, in the same order (感想戦, the post-game review)."""
        return ReaderSession(seed=self.seed, order=list(self.order), timing=self.timing,
                             karafuda=list(self.karafuda), order_name=self.order_name)

    def is_karafuda(self, no: int) -> bool:
        return no in self.karafuda

    @property
    def total(self) -> int:
        return len(self.order)

    @property
    def finished(self) -> bool:
        return self.read >= self.total

    @property
    def read_cards(self) -> list[int]:
        return self.order[:self.read]

    @property
    def next_card(self) -> int | None:
        return None if self.finished else self.order[self.read]

    def mark_read(self, no: int) -> None:
        """The reading of ``no`` (the next card in the order) has finished."""
        if self.next_card != no:
            raise ValueError(f"card {no} is not the next in this session (next: {self.next_card})")
        self.read += 1

    # -- on disk -----------------------------------------------------------------------------
    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data) -> "ReaderSession":
        """ValueError (saying what is wrong) unless ``data`` is a session as ``to_json`` writes it."""
        if not isinstance(data, dict):
            raise ValueError(f"it holds {type(data).__name__}, not a session")
        timing = _timing_from_json(data.get("timing", {}))
        raw_order = data.get("order")
        if not isinstance(raw_order, list) or not all(_is_int(c) for c in raw_order):
            raise ValueError("the saved order is not a list of poem numbers")
        order = [int(c) for c in raw_order]
        if len(set(order)) != len(order) or any(not 1 <= c <= 100 for c in order):
            raise ValueError("the saved order is not a set of poem numbers")
        read, seed = data.get("read"), data.get("seed")
        if not _is_int(read) or not 0 <= read <= len(order):
            raise ValueError("the saved position lies outside the order")
        if not _is_int(seed):
            raise ValueError("the saved seed is not a whole number")
        joka_done = data.get("joka_done", False)
        if not isinstance(joka_done, bool):
            raise ValueError("joka_done is not true or false")
        karafuda = data.get("karafuda", [])
        if not isinstance(karafuda, list) or not all(_is_int(c) and c in order for c in karafuda):
            raise ValueError("the saved karafuda are not poems of the order")
        order_name = data.get("order_name", "random")
        if order_name not in ORDERS:
            raise ValueError(f"the saved order kind {order_name!r} is unknown")
        return cls(seed=seed, order=order, read=read, joka_done=joka_done, timing=timing,
                   karafuda=sorted(set(karafuda)), order_name=order_name)

    def save(self, path: Path | None = None) -> Path:
        from trainer.safe_files import write_atomic
        path = path or session_path()
        # atomic, and never through a link planted at a fixed temporary name
        write_atomic(path, json.dumps(self.to_json(), indent=1).encode("utf-8"))
        return path


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(data: dict, name: str, default: float, lo: float, hi: float) -> float:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise ValueError(f"timing {name} = {value!r} is not a number from {lo} to {hi}")
    return float(value)


def _timing_from_json(data) -> ReadingTiming:
    """Only finite numbers in a sane range, a name, a flag: anything else is a damaged file."""
    if not isinstance(data, dict):
        raise ValueError("the saved timing is not a set of values")
    unknown = set(data) - {"ma", "pause", "joka_gap", "own_pauses", "speed", "voice", "joka",
                           "shimo_only", "memorise"}
    if unknown:
        raise ValueError(f"unknown timing values {sorted(unknown)}")
    d = ReadingTiming()
    voice, joka = data.get("voice", d.voice), data.get("joka", d.joka)
    shimo_only = data.get("shimo_only", d.shimo_only)
    if not isinstance(voice, str) or not voice:
        raise ValueError("the saved voice is not a name")
    if not isinstance(joka, bool):
        raise ValueError("the saved joka flag is not true or false")
    if not isinstance(shimo_only, bool):
        raise ValueError("the saved shimo-no-ku-only flag is not true or false")
    own_pauses = data.get("own_pauses", d.own_pauses)
    if not isinstance(own_pauses, bool):
        raise ValueError("the saved own-pauses flag is not true or false")
    return ReadingTiming(ma=_number(data, "ma", d.ma, 0.0, 60.0),
                         pause=_number(data, "pause", d.pause, 0.0, 60.0),
                         joka_gap=_number(data, "joka_gap", d.joka_gap, 0.0, 60.0),
                         own_pauses=own_pauses,
                         speed=_number(data, "speed", d.speed, 0.25, 4.0),
                         voice=voice, joka=joka, shimo_only=shimo_only,
                         memorise=_number(data, "memorise", d.memorise, 0.0, MAX_MEMORISE_MIN))


def session_path() -> Path:
    from trainer.paths import data_dir
    return data_dir() / SESSION_FILE


def load_session(path: Path | None = None) -> ReaderSession | None:
    """The saved session, or None if there is none or it is unreadable.

    An unreadable file is left alone (never deleted: the next save replaces
    it) and the reason goes to stderr: start-up never depends on it.
    """
    session, problem = read_session(path)
    if problem:
        print(f"karuta: {problem}", file=sys.stderr)
    return session


def read_session(path: Path | None = None) -> tuple[ReaderSession | None, str | None]:
    """(session, None), (None, None) when there is none, or (None, why it was ignored)."""
    from trainer.safe_files import read_text_regular
    path = path or session_path()
    try:
        text = read_text_regular(path)   # a FIFO there answers at once: the window must open
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"the saved reading session {path} cannot be read ({exc}); a new one starts"
    try:
        return ReaderSession.from_json(json.loads(text)), None
    except (ValueError, RecursionError) as exc:   # RecursionError: absurdly deep nesting
        reason = "it is nested too deeply" if isinstance(exc, RecursionError) else exc
        return None, (f"the saved reading session {path} was ignored ({reason}); "
                      "it was left as it is and a new one starts")


def clear_session(path: Path | None = None) -> None:
    (path or session_path()).unlink(missing_ok=True)


def format_card_set(cards) -> str:
    """[1, 5, 22, ..., 30] → '1 5 22-30' (what `parse_card_set` reads back)."""
    parts: list[str] = []
    run: list[int] = []
    for no in sorted(set(cards)) + [0]:     # 0: a sentinel that ends the last run
        if run and no == run[-1] + 1:
            run.append(no)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [no]
    return " ".join(parts)


def parse_card_set(text: str) -> list[int]:
    """'1 5, 22-30' → [1, 5, 22, ..., 30].  ValueError with the bad part on bad input."""
    from poems.numbers import PoemListError, poem_list
    try:
        cards = set(poem_list(text, ranges=True))
    except PoemListError as exc:
        raise ValueError(exc.part) from None
    if not cards:
        raise ValueError(text)
    return sorted(cards)
