"""Kimariji as every screen writes them: as read aloud by default, or in historical kana.

Players, printed competition kimariji and other trainers write the sound
(おうこ for #44, なにわが for #19, おぐ for #26); the historical spelling
(あふこ, なにはが, をぐ) is a setting (`settings.KIMARIJI_SPELLING`). The
reader, the match, Mubeyama, the drills and the statistics all go through
this module, so one setting changes them all and a dynamic kimariji can never
show あ while the reader says お.

`SPELLING` holds the spelling in use, like `i18n.LANG` holds the language: the
main window loads it from the settings at start and after the settings dialog,
and panels redraw on ``SPELLING.changed`` (the main window calls their
``settings_changed``). Lengths are always counted in historical kana
(`poems.kimariji`), whichever spelling is shown.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from PySide6.QtCore import QObject, Signal

import poems
import poems.kimariji
from poems.kimariji import SPELLINGS, Current

DEFAULT = "sound"


class Spelling(QObject):
    """The kimariji spelling in use ("sound" or "historical"); `changed` when it is set."""

    changed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.code = DEFAULT

    def set(self, code: str) -> None:
        code = code if code in SPELLINGS else DEFAULT
        if code != self.code:
            self.code = code
            self.changed.emit(code)

    def load(self, settings) -> None:
        """Take the spelling from the app's settings (`trainer.ui.settings.Settings`)."""
        from trainer.ui import settings as S
        self.set(settings.get(S.KIMARIJI_SPELLING))


SPELLING = Spelling()


@lru_cache(maxsize=4096)
def _spelled(no: int, n_kana: int, spelling: str) -> str:
    return poems.kimariji.spelled(no, n_kana, spelling)


def shown(no: int, n_kana: int) -> str:
    """The first `n_kana` historical kana of poem `no`'s kami-no-ku as the screens write them."""
    return _spelled(no, n_kana, SPELLING.code)


def static_text(no: int) -> str:
    """Poem `no`'s static kimariji (all 100 unread): おうこ, or あふこ in historical spelling."""
    return shown(no, poems.get(no).kimariji_len)


def current_text(current: Current) -> str:
    """A current kimariji (`poems.kimariji.current`) as the screens write it."""
    return shown(current.no, current.length)


def kana_text(no: int, kana: str) -> str:
    """A kimariji an event carries in historical kana (`Current.kana`, あさぼ) as the
    screens write it: events keep historical kana so that their length is the length."""
    return shown(no, len(kana))


def dynamic_text(read: Iterable[int] = (), in_play: Iterable[int] | None = None) -> dict[int, str]:
    """Current kimariji of every unread poem among `in_play` (default all 100)."""
    return poems.kimariji.dynamic(read, in_play, SPELLING.code)


def changed_note(no: int, kana: str) -> tuple[str, str | None]:
    """(now, was) for a kimariji note: `was` is the static kimariji when cards read have
    shortened it, else None. Compared by length: the spellings differ in length."""
    now = kana_text(no, kana)
    return (now, static_text(no)) if len(kana) < poems.get(no).kimariji_len else (now, None)


def by_static(text: str) -> int | None:
    """The poem whose static kimariji is `text` in either spelling (あふこ or おうこ), if any:
    a person types what they see or what they hear, whichever the setting."""
    poem = poems.by_kimariji(text)
    if poem is not None:
        return poem.no
    return next((p.no for p in poems.ALL if _spelled(p.no, p.kimariji_len, "sound") == text), None)
