"""Kyōgi over the network, judged on reaction times: what client and server share.

The server side is `trainer.server.race`, a bot client `trainer.server.race_bot`,
the protocol and its trust model ``docs/online-races.md``. This module holds the
pure parts both sides need, with no I/O:

- `RACE_SCHEMA`: the race messages a client may send (checked like every other
  message by `trainer.server.messages.parse_message`);
- `ClockSync`: the NTP-style estimate of a client's clock offset to the server
  from several ping exchanges (the sample with the smallest round trip; its
  half round trip is the error bound);
- `race_order`: the reading order of a (short) match, floor cards and the asked
  number of karafuda first, from the seed;
- `canonical_time`: where a touch reported as a reaction time falls on the
  server's programme timeline (the part of the reading it was made in keeps it
  in that part whatever the client's voice).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

_STR, _INT, _NUM, _BOOL = "str", "int", "num", "bool"

RACE_SCHEMA: dict[str, dict[str, tuple[str, bool]]] = {
    "race.create": {"game": (_STR, True), "variant": (_STR, False), "cards": (_INT, False), "karafuda": (_INT, False),
                    "speed": (_NUM, False), "seed": (_STR, False), "wait_seconds": (_NUM, False),
                    "hold_seconds": (_NUM, False), "floor_ms": (_NUM, False), "private": (_BOOL, False),
                    "seats": (_INT, False), "cpus": ("list", False), "level": (_STR, False),
                    "reads": (_INT, False)},
    "race.begin": {"table": (_STR, True)},
    "race.join": {"table": (_STR, True), "seat": (_INT, False), "code": (_STR, False)},
    "race.resume": {"table": (_STR, True)},
    "race.pong": {"n": (_INT, True), "t": (_NUM, True)},
    "race.touch": {"table": (_STR, True), "read": (_INT, True), "card": (_INT, True),
                   "reaction_ms": (_NUM, True), "stamp": (_NUM, True), "part": (_STR, True),
                   "stall": (_BOOL, False), "seat": (_INT, False)},
    "race.done": {"table": (_STR, True), "read": (_INT, True)},
    "race.send": {"table": (_STR, True), "card": (_INT, True)},
    "race.resign": {"table": (_STR, True)},
    "race.watch": {"table": (_STR, True), "code": (_STR, False)},
    "race.flip": {"table": (_STR, True), "read": (_INT, True), "card": (_INT, False),
                  "reaction_ms": (_NUM, True), "stamp": (_NUM, True), "part": (_STR, True),
                  "stall": (_BOOL, False)},
    "race.pass": {"table": (_STR, True), "card": (_INT, True)},
    "race.wait": {"table": (_STR, True), "hold": (_BOOL, True)},
    "race.arrange": {"table": (_STR, True), "rows": ("list", True)},
    "race.list": {},
}
"""Client messages of the race protocol: field -> (type, required), as `messages.SCHEMA`."""

PARTS = ("kami", "shimo", "ma", "joka")
"""Where on its own reading a client's touch fell: the kami-no-ku, the shimo-no-ku (with
its pause before and its held end), the ma before the next card, or (kyōgi's first read
only) the joka and the ma after it, before any yomifuda is read."""

MAX_REACTION_MS = 60_000.0
"""A reaction time beyond this is refused as nonsense (a card's whole reading is ~10 s)."""
ANTICIPATION_SLACK_MS = 3_000.0
"""How far before the programme's kami-no-ku a touch reported in the kami-no-ku may fall
(a client's own voice may place the kimariji later than the programme); beyond: refused."""


@dataclass
class ClockSync:
    """NTP-style offset of a client's clock to the server's from ping exchanges.

    Each exchange: the server sends at `sent` (its clock), the client answers with its
    clock `client`, the server hears it at `heard`. If the two legs took equally long,
    ``offset = client - (sent + heard) / 2``; whatever the legs took, the true offset lies
    within half the round trip of that. The sample with the smallest round trip wins
    (least queueing), and its half round trip is the error bound."""
    samples: list[tuple[float, float]] = field(default_factory=list)   # (round trip, offset)

    def add(self, sent: float, client: float, heard: float) -> None:
        rtt = heard - sent
        if rtt < 0 or not math.isfinite(client):
            return
        self.samples.append((rtt, client - (sent + heard) / 2))

    @property
    def ready(self) -> bool:
        return bool(self.samples)

    @property
    def offset(self) -> float:
        """Client clock minus server clock (seconds), from the best sample."""
        return min(self.samples)[1]

    @property
    def error(self) -> float:
        """The bound on `offset`'s error (seconds): half the best round trip."""
        return min(self.samples)[0] / 2

    def to_client(self, server_t: float) -> float:
        return server_t + self.offset

    def to_server(self, client_t: float) -> float:
        return client_t - self.offset


def race_order(seed: int, floor: list[int], karafuda: int | None) -> list[int] | None:
    """The reader's stack for a short match: the floor cards and `karafuda` dead cards
    shuffled together first, the other dead cards after (the engine reads all 100; the
    match ends when a side is empty). None: the full match's own seeded order."""
    if karafuda is None:
        return None
    rng = random.Random(f"race-order:{seed}")
    dead = [c for c in range(1, 101) if c not in set(floor)]
    rng.shuffle(dead)
    head = list(floor) + dead[:karafuda]
    rng.shuffle(head)
    return head + dead[karafuda:]


@dataclass(frozen=True)
class ReadTimes:
    """One read on the programme timeline (seconds from the match's start)."""
    kami_start: float
    kimariji: float
    kami_end: float
    card_end: float
    next_kami: float


class ReactionRefused(ValueError):
    """A reported reaction time the server cannot place (the refusal's reason id is `reason`)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def canonical_time(times: ReadTimes, reaction_ms: float, part: str) -> float:
    """The programme time (s) of a touch made `reaction_ms` after the read's kimariji as it
    sounded on the client, in `part` of the client's reading. The reaction is kept exactly
    when it falls in that part on the programme; else it is held to the part's bounds
    (a client's own voice lays the parts out a little differently)."""
    if part not in PARTS:
        raise ReactionRefused("race.bad_part", f"part is one of {', '.join(PARTS)}")
    if not math.isfinite(reaction_ms) or abs(reaction_ms) > MAX_REACTION_MS:
        raise ReactionRefused("race.bad_reaction", "a reaction time is a number of ms within a minute")
    low, high = {"kami": (times.kami_start, times.kami_end),
                 "shimo": (times.kami_end, times.card_end),
                 "ma": (times.card_end, times.next_kami - 0.001),
                 "joka": (0.0, max(0.0, times.kami_start - 0.001))}[part]   # the programme begins with the joka
    t = times.kimariji + reaction_ms / 1000
    if part == "kami" and t < times.kami_start - ANTICIPATION_SLACK_MS / 1000:
        raise ReactionRefused("race.bad_reaction", "that touch is before the reading began")
    return min(max(t, low), high)
