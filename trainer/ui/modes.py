"""How the main window builds its modes, and where the games' tables come from.

Every mode is a QWidget speaking the mode protocol (``available(name)``,
``command(name)``, ``retranslate()``, ``settings_changed()``, ``shutdown()``).
The games' tables come from the game registry (`trainer.games.registry`):
kyōgi's table is the Match mode; every other game's table goes into the
Games mode (`trainer.ui.games_panel`). A mode that cannot be built raises
`ModeBuildError`: the window refuses to open rather than hide a broken tab.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

MATCH_GAME = "kyogi"


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


def game_tables() -> list[tuple[str, str, str]]:
    """(game id, module, class) of each registered game's table view, once per view, in
    registry order. A game's table takes ``(settings, voices)``."""
    from trainer.games import registry
    seen: dict[str, tuple[str, str, str]] = {}
    for v in registry.games():
        if v.table and v.table not in seen:
            module, _, cls = v.table.partition(":")
            seen[v.table] = (v.game, module, cls)
    return list(seen.values())


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
