"""Refusals the engine explains, on screen in the interface language: Unsun, Yomi and Ume Botan.

Each test switches the interface to Japanese, makes the person click something the engine's
rules refuse, and checks the notice is the engine's reason worded in Japanese (and that
nothing happened). The reason ids of every turn game are all worded in both languages.
"""
import importlib
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from audio.clock import FakeClock  # noqa: E402
from trainer.games import registry  # noqa: E402
from trainer.games.protocol import IllegalAction  # noqa: E402
from trainer.rules.umebotan import Play as UmePlay  # noqa: E402
from trainer.rules.unsun import ROBAI_CHOICE  # noqa: E402
from trainer.rules.yomi import Discard as YomiDiscard  # noqa: E402
from trainer.text.messages import tr_in  # noqa: E402
from trainer.text.refusals import describe_refusal, has_text, message_id  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.umebotan_panel import UmebotanPanel  # noqa: E402
from trainer.ui.unsun_panel import UnsunPanel  # noqa: E402
from trainer.ui.yomi_panel import YomiPanel  # noqa: E402

JAPANESE = set(range(0x3040, 0x30ff + 1)) | set(range(0x4e00, 0x9fff + 1))


def is_japanese(text: str) -> bool:
    return any(ord(ch) in JAPANESE for ch in text)


@pytest.fixture
def japanese():
    before = LANG.code
    LANG.set("ja")
    yield
    LANG.set(before)


def make(qtbot, cls):
    panel = cls(None, None, clock=FakeClock(100.0), cpu_delay_s=0)
    qtbot.addWidget(panel)
    panel.resize(1500, 950)
    panel.show()
    return panel


def click(qtbot, table, rect):
    qtbot.mouseClick(table, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())


def wait_for_person(qtbot, panel):
    s = panel.session
    qtbot.waitUntil(lambda: s.is_over() or bool(s.waiting_for()), timeout=5000)


def shown_refusal(panel, before: int) -> str:
    """The notice after a refused click: Japanese, and nothing happened."""
    text = panel.notice.text()
    assert len(panel.session.log) == before
    assert text and is_japanese(text), text
    return text


@pytest.mark.parametrize("game", ["unsun", "yomi", "umebotan"])
def test_every_reason_id_is_worded_in_both_languages(game):
    importlib.import_module(f"trainer.text.{game}")
    reasons = importlib.import_module(f"trainer.rules.{game}").REFUSALS
    assert reasons == registry.resolve(registry.find(game).refusals)
    for reason in reasons:
        assert has_text(reason), reason
        ja = describe_refusal(IllegalAction(reason), "ja", **_sample_fields())
        en = describe_refusal(IllegalAction(reason), "en", **_sample_fields())
        assert is_japanese(ja) and not is_japanese(en) and ja != en, reason
        assert message_id(reason) != "refusal.unknown"


def _sample_fields():
    return dict(n=1, players=3, pile=2, card="X", piles="1, 2", cards="X", needed=4)


def test_unsun_refusal_on_screen_in_japanese(qtbot, japanese):
    panel = make(qtbot, UnsunPanel)
    panel.new_game(seed=5, me=0)
    s = panel.session
    for _ in range(400):                  # play on until the rules forbid one of the person's cards
        wait_for_person(qtbot, panel)
        view = s.view(0)
        legal = [a.card for a in s.legal(0) if hasattr(a, "card")]
        illegal = [c for c in view.hand if c not in legal]
        if view.phase != ROBAI_CHOICE and illegal:
            break
        action = s.legal(0)[0]
        s.act(0, action)
        panel.game._changed()
    else:
        raise AssertionError("no refused card in 400 turns")
    before = len(s.log)
    click(qtbot, panel.table, next(r for r, c in panel.table.hand_rects() if c == illegal[0]))
    text = shown_refusal(panel, before)
    reason = s.why_illegal(0, panel.action_for(0, illegal[0], s.legal(0)))
    assert reason is not None and reason.reason.startswith("unsun.")
    assert text == describe_refusal(reason, "ja")


def test_yomi_refusal_on_screen_in_japanese(qtbot, japanese):
    panel = make(qtbot, YomiPanel)
    panel.start_game(seed=4)
    s, table = panel.session, panel.table
    for _ in range(400):                  # until the person must follow and holds a wrong number
        wait_for_person(qtbot, panel)
        assert not s.is_over()
        view = s.view(0)
        legal = {getattr(a, "card", None) for a in s.legal(0)}
        wrong = [c for c in view.hand if c not in legal]
        if view.phase == "follow" and wrong:
            break
        s.act(0, s.legal(0)[0])
        panel.game._changed()
    else:
        raise AssertionError("no wrong number in 400 turns")
    before = len(s.log)
    click(qtbot, table, next(r for r, c in table._hand if c == wrong[0]))
    text = shown_refusal(panel, before)
    reason = s.why_illegal(0, YomiDiscard(wrong[0]))
    assert reason is not None and reason.reason == "yomi.wrong_number"
    assert text == describe_refusal(reason, "ja") and str(reason.fields["needed"]) in text


def test_umebotan_refusal_on_screen_in_japanese(qtbot, japanese):
    panel = make(qtbot, UmebotanPanel)
    panel.start_game(seed=3)
    s, table = panel.session, panel.table
    wait_for_person(qtbot, panel)
    assert s.view(0).phase == "hand"
    field_card = s.view(0).field[0]
    before = len(s.log)
    click(qtbot, table, next(r for r, c in table._field if c == field_card))   # a field card first
    text = shown_refusal(panel, before)
    assert text == tr_in("ja", "refusal.umebotan.play_first")
    # a card from the hand naming a field card it cannot take: the engine's reason too
    refusal = s.why_illegal(0, UmePlay(s.view(0).hand[0], target=999))
    assert refusal is not None and refusal.reason == "umebotan.not_a_match"
