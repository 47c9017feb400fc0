"""The calculator's units (graphs/toolkit/calculator/_units.py): quantities written with their
units are converted, and the result is shown in the unit asked for after `in`."""

from __future__ import annotations

import pytest

from graphs.toolkit.calculator import CalculatorError, calculate, format_result
from graphs.toolkit.calculator._units import units_named_in


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2.5 kg * 4 in g", "10000 g"),
        ("2.5 kg * 4", "10 kg"),
        ("400 m / 80 s * 6 min", "1800 m"),
        ("60 km per 2 hours", "30 km/h"),
        ("60 km/h * 90 min", "90 km"),
        ("72 km/h in m/s", "20 m/s"),
        ("3 weeks in hours", "504 h"),
        ("2 hours 30 minutes in minutes", "150 min"),
        ("5 km + 300 m", "5.3 km"),
        ("5 km + 300 m in m", "5300 m"),
        ("500 ml * 6 in litres", "3 l"),
        ("1.5 l / 250 ml", "6"),  # a ratio of two volumes is a plain number
        ("150 kg + 7%", "160.5 kg"),
        ("5 m ^ 2", "25 m^2"),
        ("2.5 kilometers in meters", "2500 m"),
        ("12 apples + 5 apples", "17"),  # a count's noun is not a unit
    ],
)
def test_quantities_are_converted_and_shown_in_the_unit_asked_for(
    expression: str, expected: str
) -> None:
    assert format_result(calculate(expression)) == expected


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("5 kg + 3 m", "cannot add a mass and a length"),
        ("3 h in kg", "the result is a time, not kg"),
        ("10 in g", "no unit to express in g"),
        ("7 kg // 2", "plain numbers"),
        ("2 m ^ 9", "squared or cubed"),
        # A rate written as a product: the model's "3 ml * 24 hours" for 3 ml a minute.
        ("3 ml * 24 hours", "3 ml / 1 min \\* 24 h"),
    ],
)
def test_quantities_that_do_not_fit_are_refused_with_the_reason(
    expression: str, reason: str
) -> None:
    with pytest.raises(CalculatorError, match=reason):
        calculate(expression)


def test_units_a_question_names_in_order_one_letter_ones_only_after_a_number() -> None:
    question = "A bag weighs 2.5 kg. How many grams do 4 bags weigh? I'm asking in m"
    assert units_named_in(question) == ["kg", "g"]
    assert units_named_in("She runs 400 m in 80 seconds") == ["m", "s"]
