"""The card database: the 100 poems of the Ogura Hyakunin Isshu and the joka.

Pure Python, standard library only. ::

    import poems
    poems.get(44).kimariji            # 'あふこ'
    poems.get(44).kami_sound          # ('おうことの', 'たえてしなくわ', 'なかなかに')
    poems.kimariji.dynamic(read=[42, 75])[17]   # 'ち'
"""
from poems import kimariji, yaku
from poems.database import (
    ALL, JOKA, PoemDataError, by_first_sound, by_kimariji, by_poet, check_no, get, load, shuffled,
)
from poems.kana import morae, romaji
from poems.model import Poem

__all__ = [
    "ALL", "JOKA", "Poem", "PoemDataError", "by_first_sound", "by_kimariji", "by_poet",
    "check_no", "get", "kimariji", "load", "morae", "romaji", "shuffled", "yaku",
]
