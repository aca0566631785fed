"""The poem database: the 100 poems, the joka, the sound form and the checks on load."""
import copy
import json

import pytest

import poems
from poems.database import PoemDataError, load, parse

SOURCE_KIMARIJI_SAMPLE = {1: "あきの", 17: "ちは", 44: "あふこ", 87: "む", 31: "あさぼらけあ", 64: "あさぼらけう"}


def test_hundred_poems_and_the_joka():
    assert [p.no for p in poems.ALL] == list(range(1, 101))
    assert poems.JOKA.no == 0 and poems.JOKA.kami_kana[0] == "なにはづに"
    for p in poems.ALL:
        assert len(p.kami) == len(p.kami_kana) == len(p.kami_sound) == 3
        assert len(p.shimo) == len(p.shimo_kana) == len(p.shimo_sound) == 2
        assert p.poet


def test_get_and_queries():
    assert poems.get(0) is poems.JOKA
    assert poems.get(22).poet == "文屋康秀"
    assert poems.by_kimariji("あふこ").no == 44
    assert [p.no for p in poems.by_first_sound("あさぼらけ")] == [31, 64]
    assert {p.no for p in poems.by_first_sound("お")} >= {5, 26, 60, 95}  # をぐらやま is heard お
    assert [p.no for p in poems.by_poet("小野小町")] == [9]
    for bad in (0, 101, -1, "x", 1.5):
        with pytest.raises(ValueError):
            poems.get(bad) if bad != 0 else poems.check_no(bad)


def test_seeded_shuffle_is_a_permutation_and_repeatable():
    a, b = poems.shuffled(7), poems.shuffled(7)
    assert a == b and sorted(a) == list(range(1, 101)) and a != list(range(1, 101))
    assert poems.shuffled(8) != a


# Hard kana: each case is a rule of the reading (historical spelling → sound).
HARD_SOUND = {
    (1, "kami"): ("あきのたの", "かりおのいおの", "とまおあらみ"),   # ほ→お inside words, を→お
    (1, "shimo"): ("わがころもでわ", "つゆにぬれつつ"),           # particle は→わ
    (2, "shimo"): ("ころもほすちょう", "あまのかぐやま"),          # てふ→ちょう, ほす keeps ほ
    (3, "shimo"): ("ながながしよお", "ひとりかもねん"),            # auxiliary む→ん
    (12, "kami"): ("あまつかぜ", "くものかよいじ", "ふきとじよ"),  # ひ→い, ぢ→じ
    (17, "kami"): ("ちはやぶる", "かみよもきかず", "たつたがわ"),  # ち|はや (千早): は starts a word
    (17, "shimo"): ("からくれないに", "みずくくるとわ"),           # ゐ→い, づ→ず
    (39, "kami"): ("あさじうの", "おののしのはら", "しのぶれど"),  # ぢふ→じう, 篠原 keeps は
    (41, "kami"): ("こいすちょう", "わがなわまだき", "たちにけり"),
    (44, "kami"): ("おうことの", "たえてしなくわ", "なかなかに"),  # あふ→おう
    (54, "shimo"): ("きょうおかぎりの", "いのちともがな"),         # けふ→きょう
    (61, "shimo"): ("きょうここのえに", "においぬるかな"),
    (73, "kami"): ("たかさごの", "おのえのさくら", "さきにけり"),  # 尾上 をのへ→おのえ
    (76, "shimo"): ("くもいにまごう", "おきつしらなみ"),           # まがふ→まごう
    (87, "kami"): ("むらさめの", "つゆもまだひぬ", "まきのはに"),  # 干ぬ keeps ひ
    (95, "kami"): ("おおけなく", "うきよのたみに", "おおうかな"),  # おほ→おお, おほふ→おおう
    (0, "kami"): ("なにわずに", "さくやこのはな", "ふゆごもり"),   # the joka
}


@pytest.mark.parametrize("key", sorted(HARD_SOUND), ids=lambda k: f"{k[0]}-{k[1]}")
def test_sound_form_of_hard_kana(key):
    no, part = key
    assert getattr(poems.get(no), part + "_sound") == HARD_SOUND[key]


HARD_ROMAJI = {
    41: ("koisuchō", "waganawamadaki", "tachinikeri"),
    44: ("ōkotono", "taeteshinakuwa", "nakanakani"),
    95: ("ōkenaku", "ukiyonotamini", "ōukana"),
    17: ("chihayaburu", "kamiyomokikazu", "tatsutagawa"),
    0: ("naniwazuni", "sakuyakonohana", "fuyugomori"),
    21: ("imakonto", "iishibakarini", "nagatsukino"),
}


@pytest.mark.parametrize("no", sorted(HARD_ROMAJI))
def test_romaji_of_hard_kana(no):
    assert poems.get(no).kami_romaji == HARD_ROMAJI[no]


def test_romaji_of_shimo_with_long_vowels():
    assert poems.get(54).shimo_romaji == ("kyōokagirino", "inochitomogana")
    assert poems.get(2).shimo_romaji == ("koromohosuchō", "amanokaguyama")


def test_morae_join_small_kana():
    assert poems.morae("きょうここのえに") == ["きょ", "う", "こ", "こ", "の", "え", "に"]
    assert poems.get(41).kimariji_mora_count() == 2       # こひ → こ い
    assert poems.get(44).kimariji_mora_count() == 3       # あふこ → お う こ
    assert poems.get(2).kimariji_mora_count(5) == 5


# --- damaged data files ---------------------------------------------------------------------

def shipped_json():
    from importlib import resources
    return json.loads(resources.files("poems").joinpath("data/poems.json").read_text(encoding="utf-8"))


def test_shipped_file_parses():
    joka, all_poems = parse(shipped_json())
    assert len(all_poems) == 100 and joka.no == 0


def damaged(edit):
    data = copy.deepcopy(shipped_json())
    edit(data)
    return data


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["poems"][16].pop("shimo_kana"), ["poem 17", "shimo_kana", "missing"]),
    (lambda d: d["poems"][43].__setitem__("kami_kana", ["逢ふことの", "たえてしなくは", "なかなかに"]),
     ["poem 44", "kami_kana", "逢"]),
    (lambda d: d["poems"][4].__setitem__("no", 4), ["poem 4", "duplicate"]),
    (lambda d: d["poems"].pop(), ["99 poems"]),
    (lambda d: d["poems"][0].__setitem__("kami", ["秋の田の", "かりほの庵の"]), ["poem 1", "'kami'"]),
    (lambda d: d["poems"][2].__setitem__("kimariji", "あさ"), ["poem 3", "kimariji"]),
    (lambda d: d["joka"].pop("kami_units"), ["joka", "kami_units"]),
    (lambda d: d["poems"][9].__setitem__("poet", ""), ["poem 10", "poet"]),
])
def test_damaged_data_is_named(edit, words):
    with pytest.raises(PoemDataError) as err:
        parse(damaged(edit))
    for w in words:
        assert w in str(err.value)


def test_not_json(tmp_path):
    path = tmp_path / "poems.json"
    path.write_text("{ not json", encoding="utf-8")
    with pytest.raises(PoemDataError, match="not valid JSON"):
        load(path)


def test_rebuild_script_reproduces_the_shipped_file(tmp_path, monkeypatch):
    """The shipped data is exactly what tools/build_poems.py makes from the source."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    source = root.parent / "shared" / "data" / "hyakunin_isshu.json"
    if not source.exists():
        pytest.skip("the shared source data is not beside this checkout")
    spec = importlib.util.spec_from_file_location("build_poems", root / "tools" / "build_poems.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    built, _ = mod.build(source)
    assert built == shipped_json()
    src = json.loads(source.read_text(encoding="utf-8"))
    assert {p["no"]: p["kimariji"] for p in src["poems"]}[44] == SOURCE_KIMARIJI_SAMPLE[44]
