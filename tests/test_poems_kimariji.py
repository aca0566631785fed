"""Kimariji: static ones reproduce the source, dynamic ones follow the cards read."""
import collections
import json
from pathlib import Path

from hypothesis import given, settings, strategies as st

import poems
from poems import kimariji

SOURCE = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "hyakunin_isshu.json"


def source_kimariji():
    if SOURCE.exists():
        return {p["no"]: p["kimariji"] for p in json.loads(SOURCE.read_text(encoding="utf-8"))["poems"]}
    # The shipped file keeps the source's kimariji for this comparison.
    from importlib import resources
    data = json.loads(resources.files("poems").joinpath("data/poems.json").read_text(encoding="utf-8"))
    return {p["no"]: p["kimariji"] for p in data["poems"]}


def test_static_kimariji_computed_equal_the_data_file():
    computed = kimariji.dynamic(read=())
    assert computed == source_kimariji()
    assert all(poems.get(n).kimariji == k for n, k in computed.items())


def test_static_distribution():
    counts = collections.Counter(len(k) for k in kimariji.dynamic().values())
    assert dict(counts) == {1: 7, 2: 42, 3: 37, 4: 6, 5: 2, 6: 6}


def test_one_syllable_cards_are_musumefusahose():
    ones = {k for k in kimariji.dynamic().values() if len(k) == 1}
    assert ones == set("むすめふさほせ")


def test_44_is_heard_o_and_needs_three():
    assert poems.get(44).kimariji == "あふこ"
    assert kimariji.dynamic()[95] == "おほけ" and kimariji.dynamic()[60] == "おほえ"


# Dynamic examples: (poems read, poem, its kimariji now)
DYNAMIC = [
    ([42, 75], 17, "ち"),            # ちぎりきな, ちぎりおきし read → ちはやぶる by ち
    ([31], 64, "あさぼ"),           # あさぼらけあ read → あさぼらけう needs only あさぼ (あさぢふ remains)
    ([31, 39], 64, "あさ"),         # ... and once あさぢふ is read too, あさ
    ([11], 76, "わた"),             # わたのはらや read → わたのはらこ by わた
    ([15], 50, "きみ"),             # きみがためは read → きみがためを by きみ (きりぎりす remains)
    ([93], 83, "よの"),             # よのなかは read → よのなかよ by よの
    ([95, 44], 60, "おほ"),         # おほけなく, あふことの read → おほえやま by おほ
    ([42, 75, 17], None, None),     # every ち card read: none of them is in the dict
]


def test_dynamic_examples():
    for read, no, expected in DYNAMIC:
        current = kimariji.dynamic(read)
        assert not set(read) & set(current)
        if no is not None:
            assert current[no] == expected, (read, no, current[no])


def test_last_card_of_a_group_becomes_one_syllable():
    # Of the ten あ-cards... read all あ-cards but 1: 1 is decided by あ
    a_cards = [p.no for p in poems.ALL if p.listening_key()[0] == "あ"]
    assert kimariji.dynamic([n for n in a_cards if n != 1])[1] == "あ"


def test_confusable_groups():
    assert kimariji.confusable(87) == [87]                     # む: alone
    assert kimariji.confusable(17) == [17, 42, 75]             # ち-cards
    assert kimariji.confusable(31) == [31, 64]                 # あさぼらけ
    assert kimariji.confusable(17, read=[42]) == [17, 75]


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(1, 100), max_size=99))
def test_dynamic_kimariji_is_prefix_unique_and_minimal(read):
    current = kimariji.dynamic(read)
    unread = set(range(1, 101)) - read
    assert set(current) == unread
    keys = {no: poems.get(no).listening_key() for no in unread}
    for no, k in current.items():
        n = len(k)
        assert poems.get(no).kimariji.startswith(k)                           # prefix of static
        assert not any(keys[o][:n] == keys[no][:n] for o in unread if o != no)  # unique
        if n > 1:                                                             # minimal
            assert any(keys[o][:n - 1] == keys[no][:n - 1] for o in unread if o != no)
