"""What the synthesised voice needs of its engine's dependencies.

pyopenjtalk-plus requires sudachidict_core (193 MB, Sudachi's dictionary) unconditionally, for
kanji readings; the poems and the spoken notices are fed in kana, so the reader never opens it.
The standalone build leaves it out (packaging/karuta.spec) and the README tells pip users they
may remove it: both rest on this test.
"""
import pytest

pytestmark = pytest.mark.slow   # whole-poem synthesis


@pytest.fixture
def no_sudachi_dictionary(monkeypatch, tmp_path):
    pytest.importorskip("pyopenjtalk")
    import sudachipy.dictionary

    def refuse(*args, **kwargs):
        raise AssertionError("the synthesis opened Sudachi's dictionary")

    monkeypatch.setattr(sudachipy.dictionary, "Dictionary", refuse)
    monkeypatch.setenv("KARUTA_CACHE_DIR", str(tmp_path / "cache"))   # synthesise afresh, not from the cache
    import threading

    from pyopenjtalk import utils
    monkeypatch.setattr(utils, "_SUDACHI_DICTIONARY", None, raising=False)
    # an earlier test in the same process may have left a tokenizer in this thread's cache
    monkeypatch.setattr(utils, "_SUDACHI_TOKENIZER_LOCAL", threading.local(), raising=False)
    with pytest.raises(AssertionError):        # the patch is where pyopenjtalk looks
        utils.get_sudachi_tokenizer()


def test_poems_and_notices_are_synthesised_without_sudachis_dictionary(no_sudachi_dictionary):
    from audio import notices
    from audio.cache import ClipCache
    from audio.synth import SynthVoice, synthesize_all
    voice = SynthVoice(cache=ClipCache())
    assert synthesize_all(voice=voice, poems_to_do=[0, 17, 87]) == 3
    for name in notices.TEXTS:
        assert len(notices.spoken(name, ClipCache()).samples) > 0
