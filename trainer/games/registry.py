"""Every game and variant the application plays, in one list.

The command line (`karuta games`, `karuta simulate GAME`), the main window's
game tab and its setup page read this registry; adding a game means adding
its entries here and writing the modules they name.

Entries name their code as ``"module:attribute"`` strings, imported only when
used, so listing the games stays cheap and Qt-free (a table view is a Qt
widget; only the UI resolves it).

What each named piece is:

- ``session``: a callable ``(variant, seed, seats, options) -> session``:
  the pure, clock-driven session the app and the simulator both play
  (``seats``: one of ``"human"`` / ``"cpu"`` per seat);
- ``simulate``: a callable ``(variant, *, games, seed, players, options, check)
  -> dict`` that plays all-CPU games through that session and returns a
  JSON-ready summary (identical for identical arguments);
- ``report``: ``dict -> str``, the summary as text for the terminal;
- ``cli_options``: ``(argparse parser) -> None`` adding the game's own
  simulate options (their values reach ``simulate`` in ``options``);
- ``table``: the Qt view (``trainer.ui...``) that draws the session.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping


def _frozen(**kw: Any) -> Mapping[str, Any]:
    return MappingProxyType(dict(kw))


@dataclass(frozen=True)
class Variant:
    """One playable variant of one game."""

    game: str
    """Short id on the command line: ``kyogi``, ``mubeyama``, ``yomi`` ..."""
    variant: str
    """Variant id, unique within the game: ``standard``, ``okayama4`` ..."""
    title: str
    """English title (the UI's text in each language is message ``game.<game>.<variant>``)."""
    min_seats: int
    max_seats: int
    session: str
    simulate: str
    report: str | None = None
    cli_options: str | None = None
    table: str | None = None
    default_seats: int | None = None
    options: Mapping[str, Any] = field(default_factory=lambda: _frozen())
    """Default options of this variant (ruleset facts the session needs)."""
    deck: str = "hyakunin-isshu"

    @property
    def key(self) -> str:
        return f"{self.game}/{self.variant}"

    @property
    def seats(self) -> int:
        """The seat count used when none is given."""
        return self.default_seats or self.min_seats

    def check_seats(self, seats: int | None) -> int:
        """`seats` or the default, or ValueError saying what this variant allows."""
        if seats is None:
            return self.seats
        if not self.min_seats <= seats <= self.max_seats:
            allowed = (str(self.min_seats) if self.min_seats == self.max_seats
                       else f"{self.min_seats} to {self.max_seats}")
            raise ValueError(f"{self.game} {self.variant} is played by {allowed} players, not {seats}")
        return seats

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.game, "variant": self.variant, "title": self.title,
                "min_seats": self.min_seats, "max_seats": self.max_seats,
                "default_seats": self.seats, "deck": self.deck,
                "options": dict(self.options), "table": self.table is not None}


def resolve(ref: str) -> Callable[..., Any]:
    """The object a ``"module:attribute"`` string names."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


_MUBEYAMA = dict(
    session="trainer.games.mubeyama_session:new_session",
    simulate="trainer.sim.mubeyama_sim:simulate_variant",
    report="trainer.sim.mubeyama_sim:format_totals",
    cli_options="trainer.sim.mubeyama_sim:add_cli_options",
    table="trainer.ui.mubeyama_panel:MubeyamaPanel",
)


GAMES: tuple[Variant, ...] = (
    Variant("kyogi", "standard", "Kyōgi karuta (competitive, one against one)", 2, 2,
            session="trainer.games.kyogi_session:new_session",
            simulate="trainer.sim.kyogi_sim:simulate_variant",
            report="trainer.sim.kyogi_sim:format_report",
            cli_options="trainer.sim.kyogi_sim:add_cli_options",
            table="trainer.ui.match_panel:MatchPanel"),
    Variant("mubeyama", "okayama4", "Mubeyama, Okayama (bingo lines), 4 players", 4, 4,
            options=_frozen(ruleset="okayama", hidden_card=False), **_MUBEYAMA),
    Variant("mubeyama", "okayama6", "Mubeyama, Okayama (bingo lines), 6 players", 6, 6,
            options=_frozen(ruleset="okayama", hidden_card=False), **_MUBEYAMA),
    Variant("mubeyama", "izumoji5", "Mubeyama, Izumoji (passes), 5 players", 5, 5,
            options=_frozen(ruleset="izumoji", hidden_card=False), **_MUBEYAMA),
    Variant("mubeyama", "izumoji6", "Mubeyama, Izumoji (passes), 6 players", 6, 6,
            options=_frozen(ruleset="izumoji", hidden_card=False), **_MUBEYAMA),
    Variant("mubeyama", "gambling4", "Mubeyama, four-player gambling game (hidden card)", 4, 4,
            options=_frozen(ruleset="gambling4", hidden_card=True), **_MUBEYAMA),
    Variant("mubeyama", "gambling4open", "Mubeyama, four-player gambling game (no hidden card)",
            4, 4, options=_frozen(ruleset="gambling4", hidden_card=False), **_MUBEYAMA),
    Variant("mubeyama", "gambling5", "Mubeyama, five-player gambling game", 5, 5,
            options=_frozen(ruleset="gambling5", hidden_card=False), **_MUBEYAMA),
    Variant("unsun", "standard", "Unsun karuta, Hachi-nin Meri (8 players, two teams)", 8, 8,
            session="trainer.games.unsun_session:new_session",
            simulate="trainer.sim.unsun_sim:simulate_variant",
            report="trainer.sim.unsun_sim:format_report",
            cli_options="trainer.sim.unsun_sim:add_cli_options",
            options=_frozen(first_lead="okie_taker", unheld_robai="dealer_takes", yaku_order="any"),
            deck="unsun"),
)


def games() -> tuple[Variant, ...]:
    return GAMES


def names() -> list[str]:
    """Game ids in registry order, each once."""
    return list(dict.fromkeys(v.game for v in GAMES))


def variants(game: str) -> list[Variant]:
    return [v for v in GAMES if v.game == game]


def find(game: str, variant: str | None = None) -> Variant:
    """The variant `variant` of `game` (its first variant when None), or KeyError with the choices."""
    found = variants(game)
    if not found:
        raise KeyError(f"unknown game {game!r}; known: {', '.join(names())}")
    if variant is None:
        return found[0]
    for v in found:
        if v.variant == variant:
            return v
    raise KeyError(f"{game} has no variant {variant!r}; known: {', '.join(v.variant for v in found)}")
