"""The game layer: registry, `karuta games`, `karuta simulate` through the registry, current kimariji."""
from __future__ import annotations

import json
import random

import pytest

import poems
from poems import kimariji
from trainer.cli import main
from trainer.games import registry


def test_current_kimariji_agrees_with_dynamic_over_random_readings():
    rng = random.Random(5)
    for _ in range(20):
        order = list(range(1, 101))
        rng.shuffle(order)
        for k in range(0, 100, 7):
            read, no = order[:k], order[k]
            now = kimariji.current(no, read)
            assert now.kana == kimariji.dynamic(read)[no]
            assert now.length == len(now.kana)
            # the mark's mora holds the last decisive kana: one mora fewer would not
            assert poems.get(no).kimariji_mora_count(now.length) == now.mora + 1


def test_current_kimariji_henka_examples():
    assert kimariji.current(64, [31]).kana == "あさぼ" and kimariji.current(64, [31]).changed
    assert kimariji.current(64).kana == "あさぼらけう" and not kimariji.current(64).changed
    assert kimariji.current(17, in_play=[17, 61]).length == 1


def test_games_json_lists_kyogi_and_every_mubeyama_variant(capsys):
    assert main(["games", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    keys = {(e["name"], e["variant"]) for e in entries}
    assert ("kyogi", "standard") in keys
    assert {v for n, v in keys if n == "mubeyama"} == {
        "okayama4", "okayama6", "izumoji5", "izumoji6", "gambling4", "gambling4open", "gambling5"}
    for e in entries:
        assert 1 <= e["min_seats"] <= e["max_seats"]


@pytest.mark.parametrize("variant", registry.games(), ids=lambda v: v.key)
def test_every_registered_variant_simulates_deterministically(variant, capsys):
    argv = ["simulate", variant.game, "--variant", variant.variant, "--games", "2", "--seed", "4",
            "--json"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first
    assert json.loads(first)["games"] == 2


def test_registry_refuses_unknown_names():
    with pytest.raises(KeyError, match="known: kyogi"):
        registry.find("chess")
    with pytest.raises(KeyError, match="okayama4"):
        registry.find("mubeyama", "okayama5")
    with pytest.raises(ValueError, match="played by 4 players, not 5"):
        registry.find("mubeyama", "okayama4").check_seats(5)
