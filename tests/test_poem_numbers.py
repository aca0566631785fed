"""One parser for poem lists and numbers (issue 24): every command and dialog takes the
same things, and ``²`` or a 5,000-digit number is a clear error, never a crash."""
from __future__ import annotations

import pytest

from poems.numbers import PoemListError, poem_list, whole_number

BAD = ["²", "①", "٣", "7" * 5000, "1-" + "9" * 5000, "0", "101", "x", "5-3", "-3", "1.5"]


@pytest.mark.parametrize("text,expected", [
    ("11,15,31", [11, 15, 31]),
    ("1 5、22", [1, 5, 22]),
    ("１２，３", [12, 3]),                  # full-width, as a Japanese keyboard types
    ("22-24", None),                       # a range only where ranges are asked for
])
def test_lists(text, expected):
    if expected is None:
        with pytest.raises(PoemListError):
            poem_list(text)
        assert poem_list(text, ranges=True) == [22, 23, 24]
    else:
        assert poem_list(text) == expected


@pytest.mark.parametrize("bad", BAD)
def test_every_caller_refuses_the_same_things_with_one_line(bad):
    from trainer.cli import UsageError
    from trainer.commands.poems_cmd import parse_read
    from trainer.commands.read_cmd import _poem_list
    from trainer.drills.card_sets import DrillError, _parse_numbers
    from trainer.ui.reader_session import parse_card_set
    with pytest.raises(PoemListError):
        poem_list(bad, ranges=True)
    with pytest.raises(UsageError):
        parse_read(bad, ranges=True)
    with pytest.raises(UsageError):
        _poem_list(bad, UsageError)
    with pytest.raises(ValueError):
        parse_card_set(bad)
    with pytest.raises(DrillError):
        _parse_numbers(bad)


def test_a_number_given_twice_in_a_reading_order():
    with pytest.raises(PoemListError, match="poem 5 is given twice"):
        poem_list("5 6 5", unique=True)
    assert poem_list("5 6 5") == [5, 6, 5]


@pytest.mark.parametrize("text,number", [("3", 3), ("３", 3), ("²", None), ("9" * 5000, None),
                                         ("", None), ("-1", None)])
def test_whole_number_for_a_device_or_a_count(text, number):
    assert whole_number(text) == number
