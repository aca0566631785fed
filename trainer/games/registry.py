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
- ``table``: the Qt view (``trainer.ui...``) that draws the session;
- ``events``: the game's event classes by kind (``EVENT_TYPES``, session events
  included), every one of which has a text;
- ``refusals``: the reason ids its engine and session refuse actions with
  (``REFUSALS``), every one of which has a text;
- ``texts``: the Qt-free module (``trainer.text.<game>``) that registers those
  texts and words the game's log (``log_line(event, seat, log)``, used by
  `trainer.text.events.log_lines`).
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
    events: str | None = None
    refusals: str | None = None
    texts: str | None = None

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


def _mubeyama_variants():
    """Mubeyama's variants come from its rules (`trainer.rules.mubeyama.VARIANTS`, pure)."""
    from trainer.rules.mubeyama import VARIANTS
    return VARIANTS.values()


def _code(session: str, sim: str, table: str | None, rules: str, text: str,
          report: str = "format_report") -> dict[str, Any]:
    """A game's code by the layer's convention: ``trainer.games.<session>:new_session``,
    ``trainer.sim.<sim>:simulate_variant`` / report / ``add_cli_options``, the UI's table,
    the events and refusal reasons of ``<rules>`` and the texts of ``trainer.text.<text>``."""
    return dict(session=f"trainer.games.{session}:new_session",
                simulate=f"trainer.sim.{sim}:simulate_variant",
                report=f"trainer.sim.{sim}:{report}",
                cli_options=f"trainer.sim.{sim}:add_cli_options",
                table=table,
                events=f"{rules}:EVENT_TYPES", refusals=f"{rules}:REFUSALS",
                texts=f"trainer.text.{text}")


_KYOGI = _code("kyogi_session", "kyogi_sim", "trainer.ui.match_panel:MatchPanel",
               "trainer.games.kyogi_session", "kyogi")
_MUBEYAMA = _code("mubeyama_session", "mubeyama_sim", "trainer.ui.mubeyama_panel:MubeyamaPanel",
                  "trainer.games.mubeyama_session", "mubeyama", report="format_totals")
_UNSUN = _code("unsun_session", "unsun_sim", "trainer.ui.unsun_panel:UnsunPanel",
               "trainer.rules.unsun", "unsun")
_YOMI = _code("yomi_session", "yomi_sim", "trainer.ui.yomi_panel:YomiPanel", "trainer.rules.yomi", "yomi")
_UMEBOTAN = _code("umebotan_session", "umebotan_sim", "trainer.ui.umebotan_panel:UmebotanPanel",
                  "trainer.rules.umebotan", "umebotan")
_BOZU = _code("bozu_session", "bozu_sim", "trainer.ui.bozu_panel:BozuPanel", "trainer.rules.bozu", "bozu")
_RACE = _code("chirashi_session", "chirashi_sim", "trainer.ui.chirashi_panel:ChirashiPanel",
              "trainer.games.chirashi_session", "chirashi")


GAMES: tuple[Variant, ...] = (
    Variant("kyogi", "standard", "Kyōgi karuta (competitive, one against one)", 2, 2, **_KYOGI),
    *(Variant("mubeyama", v.id, v.title, v.players, v.players,
              options=_frozen(ruleset=v.ruleset, hidden_card=v.hidden_card), **_MUBEYAMA)
      for v in _mubeyama_variants()),
    Variant("unsun", "standard", "Unsun karuta, Hachi-nin Meri (8 players, two teams)", 8, 8, **_UNSUN,
            options=_frozen(first_lead="okie_taker", unheld_robai="dealer_takes", yaku_order="any"),
            deck="unsun"),
    Variant("yomi", "standard", "Yomi, 3-4 players, 40 or 30 mekurifuda, loop 1-10", 3, 4,
            default_seats=4, options=_frozen(ruleset="standard", wild=False), deck="mekurifuda",
            **_YOMI),
    Variant("yomi", "wild", "Yomi, 3-4 players, with a wild card (Onifuda, or the 2 of Swords)",
            3, 4, default_seats=4, options=_frozen(ruleset="standard", wild=True),
            deck="mekurifuda", **_YOMI),
    Variant("yomi37", "standard", "Yomi variation, 4 players, 37 mekurifuda, loop 1-12, teyaku",
            4, 4, options=_frozen(ruleset="yomi37", wild=False), deck="mekurifuda",
            **{**_YOMI, "cli_options": "trainer.sim.yomi_sim:add_yomi37_options"}),
    Variant("umebotan", "standard", "Ume Botan, 3-4 players, hanafuda fishing, 12 rounds", 3, 4,
            default_seats=4, options=_frozen(rounds=12), deck="hanafuda", **_UMEBOTAN),
    Variant("bozu", "standard", "Bōzu-mekuri, 2-8 players, the 100 yomifuda, men/monks/women",
            2, 8, default_seats=4, options=_frozen(semimaru="disqualified", emperor="man"), **_BOZU),
    Variant("chirashi", "standard", "Chirashi-dori, 1-8 players race for the 100 scattered torifuda",
            1, 8, default_seats=4, options=_frozen(game="chirashi", verse="kami", otetsuki="rest"), **_RACE),
    Variant("sakasama", "standard", "Sakasama karuta, chirashi-dori with the shimo-no-ku read, yomifuda on the floor",
            1, 8, default_seats=4, options=_frozen(game="chirashi", verse="shimo", otetsuki="rest"), **_RACE),
    Variant("genpei", "standard", "Genpei-gassen, two teams, 50 torifuda a side, sending and penalty cards",
            2, 12, default_seats=6, options=_frozen(game="genpei", verse="kami"), **_RACE),
    Variant("relay", "standard", "Relay karuta, Genpei with one player per team on turn, changing every 10 cards",
            4, 12, default_seats=6, options=_frozen(game="genpei", verse="kami", relay=True, relay_every=10),
            **_RACE),
    Variant("shimonoku", "standard", "Hokkaido shimonoku karuta, 3 against 3, the shimo-no-ku read, 5/5/40 a side",
            6, 6, options=_frozen(game="shimonoku", verse="shimo"), **_RACE),
    Variant("shimonoku", "nanae", "Nanae-town shimonoku karuta, 15/20/15 a side, テッパ: an opponent sends a card",
            6, 6, options=_frozen(game="shimonoku", verse="shimo", nanae=True, teppa_sender="most",
                                  chonchon="all", balance="minimums"), **_RACE),
)


def games() -> tuple[Variant, ...]:
    return GAMES


def names() -> list[str]:
    """Game ids in registry order, each once."""
    return list(dict.fromkeys(v.game for v in GAMES))


def variants(game: str) -> list[Variant]:
    return [v for v in GAMES if v.game == game]


def table_views() -> list[tuple[str, str, str]]:
    """(game id, module, class) of each game's table view, once per view, in registry order
    (the app's main window builds its tabs from these; a view takes ``(settings, voices)``)."""
    seen: dict[str, tuple[str, str, str]] = {}
    for v in GAMES:
        if v.table and v.table not in seen:
            module, _, cls = v.table.partition(":")
            seen[v.table] = (v.game, module, cls)
    return list(seen.values())


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
