"""The Poem value type."""
from __future__ import annotations

from dataclasses import dataclass

from poems.kana import listening_key, morae, romaji

Phrases = tuple[str, ...]
Units = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Poem:
    """One poem of the Ogura Hyakunin Isshu (no 1..100), or the joka (序歌, no 0).

    kami: kami-no-ku (上の句), 3 phrases; shimo: shimo-no-ku (下の句), 2 phrases.
    `*_kana` is the historical spelling printed on the cards; `*_units` holds,
    for every one of those kana, what is heard when it is read aloud.
    """

    no: int
    poet: str
    kami: Phrases
    shimo: Phrases
    kami_kana: Phrases
    shimo_kana: Phrases
    kami_units: Units
    shimo_units: Units
    kimariji: str = ""  # static decisive opening (決まり字), as historical kana

    @property
    def is_joka(self) -> bool:
        return self.no == 0

    @property
    def kimariji_len(self) -> int:
        return len(self.kimariji)

    @property
    def kami_sound(self) -> Phrases:
        """The kami-no-ku as read aloud, in modern hiragana, one string per phrase."""
        return tuple("".join(u) for u in self.kami_units)

    @property
    def shimo_sound(self) -> Phrases:
        return tuple("".join(u) for u in self.shimo_units)

    @property
    def kami_romaji(self) -> Phrases:
        return tuple(romaji(p) for p in self.kami_sound)

    @property
    def shimo_romaji(self) -> Phrases:
        return tuple(romaji(p) for p in self.shimo_sound)

    @property
    def first_sound(self) -> str:
        """The first kana as heard (を→お): how players group cards (一字決まり, ...)."""
        return self.kami_units[0][0][0]

    def kami_phrase_morae(self) -> list[list[str]]:
        return [morae(p) for p in self.kami_sound]

    def kami_morae(self) -> list[str]:
        return [m for p in self.kami_phrase_morae() for m in p]

    def shimo_morae(self) -> list[str]:
        return [m for p in self.shimo_sound for m in morae(p)]

    def kana_units(self) -> list[str]:
        """Sound units of the kami-no-ku, one per historical kana, over all phrases."""
        return [u for phrase in self.kami_units for u in phrase]

    def listening_key(self) -> list[str]:
        """What a listener tells apart, one item per historical kana (see kana.listening_key)."""
        return listening_key(self.kana_units())

    def kimariji_mora_count(self, n_kana: int | None = None) -> int:
        """How many sound morae cover the first `n_kana` historical kana of the kami-no-ku.

        By default the static kimariji. The kimariji mark of a clip is the
        onset of mora index ``kimariji_mora_count() - 1``.
        """
        n = self.kimariji_len if n_kana is None else n_kana
        return len(morae("".join(self.kana_units()[:n])))

    def kana_prefix(self, n_kana: int) -> str:
        """The first `n_kana` historical kana of the kami-no-ku (how kimariji are written)."""
        return "".join(self.kami_kana)[:n_kana]
