"""How the main window builds its modes (widgets), from the tables the registry names.

Every mode is a QWidget speaking the mode protocol (``available(name)``,
``command(name)``, ``retranslate()``, ``settings_changed()``, ``shutdown()``).
The games' tables come from the game registry (`trainer.games.registry.table_views`,
read here as `game_tables`): kyōgi's table is the Match mode; every other game's
table goes into the Games mode (`trainer.ui.games_panel`). A mode that cannot be
built raises `ModeBuildError`: the window refuses to open rather than hide a
broken tab. The rest of this module concerns widgets only, so it stays in the UI.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Protocol, runtime_checkable

from trainer.games.registry import table_views as game_tables  # noqa: F401  (the window reads it here)

MATCH_GAME = "kyogi"


@runtime_checkable
class Mode(Protocol):
    """The commands part of the mode protocol, as the window and the Games mode call it."""

    def available(self, name: str) -> bool: ...

    def command(self, name: str) -> None: ...


class ModeBuildError(RuntimeError):
    """A mode could not be built: the window refuses to open without it (a tab that silently
    vanished would hide a broken build from everyone, tests included)."""


def build_mode(msg: str, module: str, cls: str, build: Callable[..., Any], settings, voices):
    """``build(the class, settings, voices)``, or ModeBuildError naming the mode and the cause."""
    try:
        panel_class = getattr(importlib.import_module(module), cls)
        return build(panel_class, settings, voices)
    except Exception as exc:
        raise ModeBuildError(f"the {msg.removeprefix('mode.')} mode ({module}.{cls}) could not be "
                             f"built: {type(exc).__name__}: {exc}") from exc


def build_table(game: str, module: str, cls: str, settings, voices):
    return build_mode(f"mode.{game}", module, cls, lambda c, s, v: c(s, v), settings, voices)


def settings_changed(panels) -> None:
    """Tell each mode panel the settings changed (``settings_changed``, or at least
    ``retranslate`` for a panel that draws nothing from the settings)."""
    for panel in panels:
        if hasattr(panel, "settings_changed"):
            panel.settings_changed()
        else:
            panel.retranslate()
