"""The statistics store the Drills and Statistics modes share, opened once per run.

Opening can find a damaged file: the store sets it aside and says so in
``store.recovery_message``. That sentence must reach the player exactly once,
whichever mode shows it first: ``take_recovery_message`` hands it out once.
"""
from __future__ import annotations

_shared = None


def shared_store():
    """The user's store (``trainer.stats.store.default_path()``), opened on first use."""
    global _shared
    if _shared is None:
        from trainer.stats.store import StatsStore
        _shared = StatsStore.open()
    return _shared


class UsesStatsStore:
    """For a panel that writes or reads statistics: ``self.store`` is the store it
    was given (``self._store``, tests) or else the run's shared one, opened on first use."""

    _store = None

    @property
    def store(self):
        if self._store is None:
            self._store = shared_store()
        return self._store


def take_recovery_message(store) -> str | None:
    """The store's recovery message the first time it is asked for, then None."""
    if store is None or getattr(store, "_recovery_told", False):
        return None
    message = getattr(store, "recovery_message", None)
    if message:
        store._recovery_told = True
    return message


def close_shared() -> None:
    global _shared
    if _shared is not None:
        _shared.close()
        _shared = None
