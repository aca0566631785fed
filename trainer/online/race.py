"""An online kyōgi race table as the app's client sees it: the race protocol's client side, no Qt.

``docs/online-races.md`` is the protocol; the bot client (`trainer.server.race_bot`)
speaks it on the silent clock, the app speaks it with its own reading. What both
share of a read lives here as `RaceRead`:

- the read the server released (``race.read``): its number, poem, the mora that
  completes its kimariji now, its start on *this client's* clock, and the
  programme's layout of the card (`kimariji_s`, `kami_s`, `card_s`, `ma_s`);
- `programme_part(at)`: the part of the reading a moment falls in, on that layout
  (the bot's rule; the app uses its own voice's marks when it has them);
- `touch(...)`: the ``race.touch`` message, (read, card, reaction ms from the
  kimariji as it sounded here, the monotonic stamp of the press, the part, stall).

`RaceState` keeps what the server said about one table (seat, names, both sides,
the judgements, okurifuda owed, holds, the result, the rating) and the person's
own touches per read, so that each judged read becomes the statistics trial a
local match records (`record_of`). It never judges: the server does.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trainer.server.race_protocol import PARTS

KAMI, SHIMO, MA, JOKA = PARTS      # the joka: before kyōgi's first card (read 1) only


@dataclass(frozen=True)
class RaceRead:
    """One read as the server released it (``race.read``), on this client's clock."""

    table: str
    number: int
    poem: int
    mora: int
    kimariji: str
    start_at: float
    speed: float
    kimariji_s: float
    kami_s: float
    card_s: float
    ma_s: float
    verse: str = "kami"            # the verse read: "shimo" in sakasama and shimonoku (a floor race)
    joka_s: float = 0.0          # kyōgi's read 1: programme seconds of the joka before its kami-no-ku

    @classmethod
    def of(cls, frame: dict[str, Any]) -> "RaceRead":
        return cls(str(frame["table"]), int(frame["read"]), int(frame["poem"]), int(frame["mora"]),
                   str(frame.get("kimariji", "")), float(frame["start_at"]), float(frame.get("speed") or 1.0),
                   float(frame["kimariji_s"]), float(frame["kami_s"]), float(frame["card_s"]), float(frame["ma_s"]),
                   "shimo" if frame.get("verse") == "shimo" else "kami", float(frame.get("joka_s") or 0.0))

    @property
    def kimariji_at(self) -> float:
        """When the kimariji sounds on the programme's layout (this client's clock): the
        stand-in before the client's own reading has placed it."""
        return self.start_at + self.kimariji_s / self.speed

    def programme_part(self, at: float) -> str:
        """The part of the reading `at` (seconds from the kami-no-ku's start, programme time) falls in."""
        if at < 0 and self.joka_s:
            return JOKA
        return KAMI if at < self.kami_s else SHIMO if at < self.card_s else MA

    def touch(self, card: int, reaction_ms: float, stamp: float, part: str, stall: bool) -> dict[str, Any]:
        """The ``race.touch`` message's fields (the type apart)."""
        return {"table": self.table, "read": self.number, "card": int(card), "reaction_ms": round(reaction_ms, 3),
                "stamp": stamp, "part": part, "stall": bool(stall)}


@dataclass(frozen=True)
class OnlineRecord:
    """One statistics trial of an online read (kind "online"; a floor race's: the game's own kind),
    as a local match's `ReadRecord`."""

    card: int
    correct: bool
    answer: str                 # take, fault, late (touched, not first), missed
    reaction_ms: float | None
    fault: str | None


@dataclass
class RaceState:
    """What the server said about one race table (see the module docstring)."""

    table: str
    seat: int | None = None
    names: list[str | None] = field(default_factory=lambda: [None, None])
    sides: list[list[int]] = field(default_factory=lambda: [[], []])
    left: list[int] = field(default_factory=list)
    rated: bool = False
    floor_ms: float = 100.0
    offset_ms: float | None = None
    error_ms: float | None = None
    read: RaceRead | None = None
    done: set[int] = field(default_factory=set)        # reads this client has said done
    judged: list[dict[str, Any]] = field(default_factory=list)
    owing: list[int] | None = None                      # [giver, cards] while okurifuda are owed
    okuri: dict[str, Any] | None = None                 # race.okuri to this seat, until sent
    holds: list[int] = field(default_factory=list)
    waiting: dict[str, Any] | None = None               # race.waiting: a seat dropped
    over: dict[str, Any] | None = None
    rating: dict[str, Any] | None = None
    touches: dict[int, list[tuple[int, float]]] = field(default_factory=dict)   # read -> (card, ms)
    layouts: dict[int, list[list[list[int]]]] = field(default_factory=dict)     # seat -> rows (race.layout)

    @property
    def started(self) -> bool:
        return bool(self.sides[0] or self.sides[1] or self.judged)

    @property
    def open_read(self) -> RaceRead | None:
        """The read this client may still touch for (released, not yet said done)."""
        read = self.read
        return None if read is None or read.number in self.done or self.over is not None else read

    def apply(self, frame: dict[str, Any]) -> bool:
        """Take one ``race.*`` (or ``rating``) frame about this table; True when it concerned it."""
        kind = frame.get("type")
        if kind != "rating" and frame.get("table") not in (None, self.table):
            return False
        if kind in ("race.joined", "race.resumed"):
            self.seat = frame.get("seat", self.seat)
        elif kind == "race.start":
            self.seat = frame["seat"]
            self.names = list(frame.get("names") or self.names)
            self.sides = [list(s) for s in frame["sides"]]
            self.left = [len(s) for s in self.sides]
            self.rated, self.floor_ms = bool(frame.get("rated")), float(frame.get("floor_ms", 100.0))
            self.offset_ms, self.error_ms = frame.get("offset_ms"), frame.get("error_ms")
        elif kind == "race.watching":             # a spectator: the floor and the judgements so far
            self.names = list(frame.get("names") or self.names)
            self.sides = [list(s) for s in frame.get("sides") or self.sides]
            self.left = list(frame.get("left") or [len(s) for s in self.sides])
            self.judged = list(frame.get("history") or [])
        elif kind == "race.read":
            self.read = RaceRead.of(frame)
        elif kind == "race.judged":
            self.judged.append(frame)
            self.sides = [list(s) for s in frame.get("sides", self.sides)]
            self.left = list(frame.get("left") or self.left)
            self.owing = frame.get("owing")
        elif kind == "race.okuri":
            self.okuri = frame if frame.get("seat") == self.seat else None
        elif kind == "race.sides":
            self.sides = [list(s) for s in frame["sides"]]
            self.left = [len(s) for s in self.sides]
            self.owing = frame.get("owing")
            if self.owing is None or self.owing[0] != self.seat:
                self.okuri = None
        elif kind == "race.layout":
            self.layouts[int(frame["seat"])] = frame["rows"]
        elif kind == "race.held":
            self.holds = list(frame.get("seats") or [])
        elif kind == "race.waiting":
            self.waiting = frame
        elif kind == "race.back":
            self.waiting = None
        elif kind == "race.over":
            self.over = frame
            self.okuri = None
        elif kind == "rating":
            if frame.get("table") not in (None, self.table):
                return False
            self.rating = frame
        else:
            return False
        return True

    @property
    def may_rearrange(self) -> bool:
        """This seat holds the reader (待った), the last read is judged and nobody owes a card:
        the server takes a new layout of the seat's side now (``race.arrange``)."""
        read = self.read
        judged = self.judged[-1]["read"] if self.judged else 0
        return (self.seat is not None and self.seat in self.holds and self.over is None and self.owing is None
                and (read is None or read.number == judged))

    def kimariji_of(self, number: int) -> str:
        """The kimariji read `number` had when it was read, from the reads judged before it (every
        read, karafuda too, is judged in order): what a spectator, who gets no ``race.read``, logs."""
        import poems.kimariji
        judged = {int(j["read"]): int(j["poem"]) for j in self.judged if "poem" in j}
        if number not in judged:
            return ""
        before = [poem for n, poem in judged.items() if n < number]
        return poems.kimariji.current(judged[number], before).kana

    def touched(self, number: int, card: int, reaction_ms: float) -> None:
        """This client sent a touch for read `number` (kept for the statistics)."""
        self.touches.setdefault(number, []).append((card, reaction_ms))

    def record_of(self, judged: dict[str, Any]) -> OnlineRecord | None:
        """The person's statistics trial of a judged read, as a local match records it: a read
        of a card on the floor, or any read the person faulted on (a karafuda nobody touched
        is no trial). None for a spectator."""
        me = self.seat
        if me is None or "taker" not in judged:
            return None
        faults = [kind for seat, kind in judged.get("faults") or [] if seat == me]
        if judged.get("karafuda") and not faults:
            return None
        poem = int(judged["poem"])
        taken = judged.get("taker") == me
        mine = [ms for card, ms in self.touches.get(int(judged["read"]), []) if card == poem]
        said = (judged.get("reaction_ms") or [None, None])[me]
        reaction = float(said) if said is not None else (mine[0] if mine else None)
        answer = "take" if taken else "fault" if faults else "late" if mine else "missed"
        return OnlineRecord(poem, taken, answer, None if answer == "missed" else reaction,
                            faults[0] if faults else None)


__all__ = ["RaceRead", "RaceState", "MubeyamaRaceState", "FloorRaceState", "decode_floor_view", "FLOOR_GAMES",
           "OnlineRecord", "decode_mubeyama_view", "KAMI", "SHIMO", "MA", "JOKA"]


@dataclass
class MubeyamaRaceState(RaceState):
    """An online Mubeyama table (``docs/online-races.md``, "Mubeyama"): the same reads, holds
    and result as a kyōgi table, and the seat's own view of the game (``race.view``), decoded
    into the engine's `MubeyamaView` that the local table draws."""

    variant: str = ""
    view: Any = None
    pending: str = ""
    scores: list[int] = field(default_factory=list)

    @property
    def started(self) -> bool:
        return self.view is not None

    def apply(self, frame: dict[str, Any]) -> bool:
        kind = frame.get("type")
        if kind != "rating" and frame.get("table") not in (None, self.table):
            return False
        if kind == "race.start":
            self.seat, self.variant = frame.get("seat"), str(frame.get("variant", ""))
            self.names = list(frame.get("names") or [])
            self.offset_ms, self.error_ms = frame.get("offset_ms"), frame.get("error_ms")
        elif kind == "race.view":
            self.pending = str(frame.get("pending", ""))
            self.view = decode_mubeyama_view(frame["view"], self.pending)
        elif kind == "race.judged":
            self.judged.append(frame)
            self.scores = list(frame.get("left") or self.scores)
        elif kind == "race.watching":
            self.names = list(frame.get("names") or self.names)
            self.judged = list(frame.get("history") or [])
        else:
            return super().apply(frame)
        return True

    def owes_flip(self) -> bool:
        """The card being read is this seat's: it is to flip it."""
        p = getattr(self.view, "pending", None)
        return self.pending in ("AwaitFlip", "AwaitReveal") and self.seat is not None and \
            getattr(p, "seat", None) == self.seat

    def owes_pass(self) -> bool:
        p = getattr(self.view, "pending", None)
        return self.pending == "AwaitPass" and self.seat is not None and getattr(p, "giver", None) == self.seat


def decode_mubeyama_view(payload: Any, pending: str) -> Any:
    """A ``race.view`` frame's view as the engine's `MubeyamaView` (the server's codec, read back).
    What the game waits for is decoded as the class the frame names (`pending`): its JSON
    carries no kind, and the codec would read it as the union's first member that fits."""
    import dataclasses

    import trainer.rules.mubeyama as rules
    from trainer.server import codec
    view = codec._from_json("mubeyama", rules.MubeyamaView, payload)  # the codec's one reader of its JSON
    kind = getattr(rules, pending, None)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind) and isinstance(payload, dict):
        view = dataclasses.replace(view, pending=codec._from_json("mubeyama", kind, payload.get("pending")))
    return view


FLOOR_GAMES = ("chirashi", "sakasama", "genpei", "relay", "shimonoku")
"""The floor races the server plays (``docs/online-races.md``, "The floor races")."""


@dataclass
class FloorRaceState(RaceState):
    """An online floor race (chirashi-dori, sakasama, Genpei, relay, shimonoku): the same reads,
    holds and result as a kyōgi table, the seat's own view of the floor (``race.view``, decoded
    into the engine's `View` the Games tab draws), the scores, the CPU seats and a send owed."""

    game: str = "chirashi"
    variant: str = "standard"                         # the registry's variant (shimonoku: "nanae" too)
    view: Any = None
    scores: list[int] = field(default_factory=list)
    cpus: list[int] = field(default_factory=list)
    reach: list[int] | None = None
    owe: dict[str, Any] | None = None                 # race.owe to this seat, until the view says it is sent
    stand_ins: list[int] = field(default_factory=list)

    @property
    def started(self) -> bool:
        return self.view is not None

    def apply(self, frame: dict[str, Any]) -> bool:
        kind = frame.get("type")
        if kind != "rating" and frame.get("table") not in (None, self.table):
            return False
        if kind == "race.start":
            self.seat, self.game = frame.get("seat"), str(frame.get("game", self.game))
            self.variant = str(frame.get("variant") or "standard")
            self.names = list(frame.get("names") or [])
            self.cpus, self.reach = list(frame.get("cpus") or []), frame.get("reach")
            self.floor_ms = float(frame.get("floor_ms", 100.0))
            self.offset_ms, self.error_ms = frame.get("offset_ms"), frame.get("error_ms")
        elif kind == "race.view":
            self.view = decode_floor_view(frame["view"])
            self.scores = list(frame.get("scores") or self.scores)
            owing = self.view.owing
            if owing is None or owing[0] != self.seat:
                self.owe = None
        elif kind == "race.owe":
            self.owe = frame if frame.get("seat") == self.seat else None
        elif kind == "race.judged":
            self.judged.append(frame)
            self.scores = list(frame.get("scores") or self.scores)
        elif kind == "race.watching":
            self.names = list(frame.get("names") or self.names)
            self.judged = list(frame.get("history") or [])
            if frame.get("view") is not None:
                self.view = decode_floor_view(frame["view"])
        elif kind == "race.stand_in":
            seat = int(frame["seat"])
            self.stand_ins.append(seat)
            if 0 <= seat < len(self.names) and frame.get("name"):
                self.names[seat] = str(frame["name"])
        elif kind == "race.over":
            self.over, self.owe = frame, None
        else:
            return super().apply(frame)
        return True

    def record_of(self, judged: dict[str, Any]) -> OnlineRecord | None:
        """The person's trial of a judged floor read, as the Games tab records one: a card
        the seat raced (``raced``: not sitting out after a fault, on turn in relay); None
        for a card it sat out, for a spectator, and from a server that does not say who
        raced (a miss could not be told from sitting out)."""
        me = self.seat
        if me is None or me not in (judged.get("raced") or ()):
            return None
        taken = judged.get("taker") == me
        faulted = me in (judged.get("faulted") or ())
        mine = [ms for _card, ms in self.touches.get(int(judged["read"]), [])]
        times = judged.get("reaction_ms") or []
        said = times[me] if me < len(times) else None
        reaction = float(said) if said is not None else (min(mine) if mine else None)
        answer = "take" if taken else "fault" if faulted else "late" if mine or said is not None else "missed"
        return OnlineRecord(int(judged["poem"]), taken, answer, None if answer == "missed" else reaction,
                            "otetsuki" if faulted else None)

    @property
    def races_now(self) -> bool:
        """This seat races the card being read (not sitting out, on turn in relay)."""
        return self.seat is not None and self.view is not None and self.seat in self.view.eligible


def decode_floor_view(payload: Any) -> Any:
    """A floor race's ``race.view`` as the engine's `View` (the server's codec, read back)."""
    from trainer.rules.chirashi import View
    from trainer.server import codec
    return codec._from_json("chirashi", View, payload)  # the codec's one reader of its JSON
