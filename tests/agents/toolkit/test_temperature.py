"""Temperatures through the agent's calculator: the scales' definitions, not a multiple."""

from __future__ import annotations

import pytest

from graphs.react_agent.tools import calculator
from graphs.toolkit.calculator import CalculatorError, calculate
from graphs.toolkit.calculator._temperature import convert_temperature


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("100 fahrenheit in celsius", "37.78 °C"),
        ("100 F in C", "37.78 °C"),
        ("37 C to F", "98.6 °F"),
        ("-40 °F in °C", "-40 °C"),
        ("32 degrees F in C", "0 °C"),
        ("0 K in C", "-273.15 °C"),
        ("25 degC in K", "298.15 K"),
        ("1000 C in F", "1832 °F"),
    ],
)
def test_a_temperature_converts_between_scales(expression: str, answer: str) -> None:
    assert convert_temperature(expression) == answer
    assert calculator.invoke({"expression": expression}) == answer


@pytest.mark.parametrize("expression", ["100 km in m", "3 weeks in hours", "2 + 2", "5 F"])
def test_other_expressions_are_arithmetic(expression: str) -> None:
    assert convert_temperature(expression) is None


def test_a_temperature_is_never_a_plain_number() -> None:
    """`(100 F) in C` read as 100 was 100: refused with the form that converts."""
    with pytest.raises(CalculatorError, match="100 F in C"):
        calculate("(100 F) in C")
    assert "below 0" in calculator.invoke({"expression": "-5 K in C"})
