"""Counting letters for the calculator (`open_langgraph.tools.letters`): a model reads tokens,
so the count must come from the text itself."""

from __future__ import annotations

import pytest

from open_langgraph.tools.letters import count_letters, reverse_letters


@pytest.mark.parametrize(
    ("expression", "count", "where"),
    [
        ("count r in strawberry", "3", "(letters 3, 8 and 9 of 10)"),
        ('count "r" in "strawberry"', "3", "(letters 3, 8 and 9 of 10)"),
        ("count the letter S in Mississippi", "4", "(letters 3, 4, 6 and 7 of 11)"),
        ("count r\u2019s in \u2018strawberry\u2019", "3", "(letters 3, 8 and 9 of 10)"),
        ('count e in "hello there everyone"', "6", "of 18)"),
        ("vowels in banana", "3", "(letters 2, 4 and 6 of 6)"),
        ("consonants in banana", "3", "(letters 1, 3 and 5 of 6)"),
        ("letters in encyclopedia", "12", "12 letters"),
        ("count z in apple", "0", "0 times"),
    ],
)
def test_a_count_names_how_many_and_where(expression: str, count: str, where: str):
    answer = count_letters(expression)
    assert answer is not None
    assert answer.split(":")[0] == count
    assert where in answer


@pytest.mark.parametrize("expression", ["2 + 2", "sort 3, 1", "count to ten", "letters", ""])
def test_anything_else_is_left_to_the_calculator(expression: str):
    assert count_letters(expression) is None


@pytest.mark.parametrize(
    ("expression", "reversed_"),
    [
        ("reverse necessary", "yrassecen"),
        ('reverse "hello world"', "dlrow olleh"),
        ("stressed backwards", "desserts"),
    ],
)
def test_a_word_spelled_backwards(expression: str, reversed_: str):
    assert (reverse_letters(expression) or "").split(":")[0] == reversed_


def test_a_reversal_is_not_read_as_anything_else():
    assert reverse_letters("reverse 1 2 3") is None
    assert count_letters("reverse necessary") is None
