"""Card sets: by first sound, kimariji length, confusable groups, weakest, hand-picked."""
from __future__ import annotations

import pytest

import poems
from trainer.drills import card_sets
from trainer.drills.common import DrillError
from trainer.stats.store import StatsStore, Trial


def test_all_and_lengths():
    assert card_sets.all_cards().cards == tuple(range(1, 101))
    ichi = card_sets.by_kimariji_length(1)
    assert sorted(poems.get(c).kimariji for c in ichi) == sorted("むすめふさほせ")
    assert len(card_sets.by_kimariji_length(5, 6)) == 8
    with pytest.raises(DrillError):
        card_sets.by_kimariji_length(7)


def test_first_sound_joins_wo_with_o():
    o = card_sets.by_first_sound("お")
    assert 26 in o.cards and 44 in o.cards            # をぐらやま, あふことの (heard ō)
    assert card_sets.by_first_sound("o").cards == o.cards
    with pytest.raises(DrillError, match="no card starts"):
        card_sets.by_first_sound("ぬ")


def test_confusable_groups():
    groups = card_sets.confusable_groups()
    assert groups["あき"] == (1, 79)
    assert groups["あさぼらけ"] == (31, 64)
    assert groups["ちぎり"] == (42, 75)
    assert set(groups["おほ"]) == {44, 60, 95}        # the ō group, by ear
    for label, cards in groups.items():
        assert len(cards) >= 2, label
        # every card of a group has a kimariji longer than the shared opening
        assert all(poems.get(c).kimariji_len > len(label) for c in cards), label
    assert card_sets.group_of(79).cards == (1, 79)
    assert card_sets.group_of(44).cards == groups["おほ"]
    assert card_sets.confusable_group("ō").cards == groups["おほ"]
    assert card_sets.confusable_group("asabo").cards == (31, 64)
    with pytest.raises(DrillError, match="first sound"):
        card_sets.group_of(87)


def test_hand_picked_and_specs(tmp_path):
    assert card_sets.hand_picked("1, 5-7, 87, 5").cards == (1, 5, 6, 7, 87)
    for bad in ("0", "101", "7-3", "x", ""):
        with pytest.raises(DrillError):
            card_sets.hand_picked(bad)
    assert card_sets.from_spec("length:1,2").cards == card_sets.by_kimariji_length(1, 2).cards
    assert card_sets.from_spec("group-of:79").cards == (1, 79)
    assert card_sets.from_spec("pick:3,4").cards == (3, 4)
    with pytest.raises(DrillError, match="unknown card set"):
        card_sets.from_spec("bogus")


def test_weakest_from_statistics(tmp_path):
    with StatsStore.open(tmp_path / "s.sqlite3") as store:
        with pytest.raises(DrillError, match="enough trials"):
            card_sets.weakest(store, 5)
        trials = []
        for rep in range(6):
            for card in range(1, 21):
                wrong = card in (13, 17) and rep % 2 == 0
                trials.append(Trial("kami_to_torifuda", card, not wrong,
                                    reaction_ms=None if wrong else 600.0 + (card == 5) * 300))
        store.record_many(trials)
        weak = card_sets.weakest(store, 3)
        assert set(weak.cards[:2]) == {13, 17} and weak.cards[2] == 5
        assert card_sets.from_spec("weakest:3", store).cards == weak.cards
