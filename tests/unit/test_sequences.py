"""The next term of a number sequence (`open_langgraph.tools.sequences`): the rule puzzle books
use, found exactly, or a plain refusal when none fits."""

from __future__ import annotations

import pytest

from open_langgraph.tools.sequences import next_term


@pytest.mark.parametrize(
    ("expression", "term", "rule"),
    [
        ("next in 3, 7, 11, 15", "19", "plus 4"),
        ("next in 0.1, 0.2, 0.3", "0.4", "plus 0.1"),
        ("next in 2, 4, 8, 16", "32", "times 2"),
        ("next in 81, 27, 9, 3", "1", "divided by 3"),
        ("next in 1, 1, 2, 3, 5, 8", "13", "sum of the two before"),
        ("next in 2, 3, 5, 7, 11", "13", "prime numbers"),
        ("next in 1, 4, 9, 16", "25", "after 2 rounds"),
        ("next in 1, 8, 27, 64, 125", "216", "after 3 rounds"),
        ("next in -5, -2, 1", "4", "plus 3"),
    ],
)
def test_the_rule_that_fits_every_term(expression: str, term: str, rule: str):
    answer = next_term(expression)
    assert answer is not None
    assert answer.split(" ")[0] == term
    assert rule in answer


def test_no_rule_is_a_refusal_the_model_can_read():
    with pytest.raises(ValueError, match="no simple rule"):
        next_term("next in 1, 3, 2, 7, 1")


@pytest.mark.parametrize("expression", ["next in 1, 2", "2 + 2", "sort 3, 1, 2"])
def test_anything_else_is_left_to_the_calculator(expression: str):
    assert next_term(expression) is None
