"""How many wrong passwords a name may take: a guard against guessing a person's password.

The per-connection rate limit alone lets a guesser open new connections; this
limit follows the *name*, whichever connection the guesses come from. After
`failures` wrong passwords within `window` seconds the name refuses password
log-ins (even the right password, which would otherwise confirm the guess)
until the oldest of those failures is `window` seconds old. Log-ins with a
session token are not limited: a token is not guessable.
"""
from __future__ import annotations

import time
from collections import deque
from typing import Callable


class LoginGuard:
    def __init__(self, failures: int = 5, window: float = 300.0,
                 clock: Callable[[], float] = time.monotonic, names: int = 10_000):
        self.failures = failures
        self.window = window
        self.clock = clock
        self.names = names
        """Names remembered at most (the oldest forgotten first), so guesses at random names
        cannot grow the server's memory."""
        self._seen: dict[str, deque[float]] = {}

    def _recent(self, name: str) -> deque[float]:
        times = self._seen.get(name.casefold(), deque())
        now = self.clock()
        while times and now - times[0] >= self.window:
            times.popleft()
        return times

    def locked(self, name: str) -> float:
        """Seconds until `name` may try a password again (0: now)."""
        times = self._recent(name)
        if len(times) < self.failures:
            return 0.0
        return max(0.0, self.window - (self.clock() - times[0]))

    def failed(self, name: str) -> None:
        key = name.casefold()
        times = self._recent(name)
        times.append(self.clock())
        self._seen.pop(key, None)
        self._seen[key] = times             # newest last: the oldest names are forgotten first
        while len(self._seen) > self.names:
            self._seen.pop(next(iter(self._seen)))

    def succeeded(self, name: str) -> None:
        self._seen.pop(name.casefold(), None)
