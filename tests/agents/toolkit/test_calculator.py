"""The shared calculator: arithmetic only, parsed with `ast`, bounded so it cannot hang; it
accepts what a small model writes (percentages, powers, words, thousands separators)."""

from __future__ import annotations

import time

import pytest

from graphs.toolkit.calculator import CalculatorError, calculate, format_number, format_result


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("25 * 4 + 17", 117),
        ("(2 + 3) * -4", -20),
        ("7 / 2", 3.5),
        ("7 // 2", 3),
        ("7 % 4", 3),
        ("2 ** 10", 1024),
        ("2 ** -1", 0.5),
        (" 1.5e3 + 0.25 ", 1500.25),
    ],
)
def test_arithmetic(expression: str, expected: float) -> None:
    assert calculate(expression) == expected


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("__import__('os').system('echo pwned')", "only numbers"),
        ("open('/etc/passwd').read()", "only numbers"),
        ("x + 1", "only numbers"),
        ("(1).__class__", "only numbers"),
        ("'a' * 3", "only numbers"),
        ("1 < 2", "only numbers"),
        ("True + 1", "only numbers"),
        ("lambda: 1", "only numbers"),
        ("[1, 2]", "only numbers"),
        ("1 / 0", "division by zero"),
        ("25 * 4 +", "not an arithmetic expression"),
        ("", "expected an arithmetic expression"),
        ("(-8) ** 0.5", "not a real number"),
        ("10.0 ** 400", "too large"),
        ("sqrt(2, 3)", "only numbers"),
        ("sqrt(x=4)", "only numbers"),
        ("math.system(1)", "only numbers"),
        ("_percent.__class__", "only numbers"),
        ("sqrt(-1)", "not defined"),
        ("log(0)", "not defined"),
        ("exp(100000)", "too large"),
    ],
)
def test_refuses_anything_but_arithmetic(expression: str, reason: str) -> None:
    with pytest.raises(CalculatorError, match=reason):
        calculate(expression)


def test_huge_powers_are_refused_before_computing() -> None:
    started = time.monotonic()
    for expression in ("9 ** 9 ** 9", "2 ** 100000", "(10 ** 3000) * (10 ** 3000)"):
        with pytest.raises(CalculatorError, match="too large"):
            calculate(expression)
    assert time.monotonic() - started < 1.0


def test_numbers_print_without_a_trailing_zero() -> None:
    assert format_number(calculate("100 / 4")) == "25"
    assert format_number(calculate("1 / 4")) == "0.25"
    assert format_number(calculate("3 ** 40")) == "12157665459056928801"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # Percentages, the way a pocket calculator reads them.
        ("15% of 80", "12"),
        ("what is 15% of 80?", "12"),
        ("15 percent of 80", "12"),
        ("80 * 15%", "12"),
        ("(200 + 50) * 10%", "25"),
        ("20% off 150", "120"),
        ("150 with 20% off", "120"),
        ("150 with a 10% discount", "135"),
        ("25% more than 80", "100"),
        ("150 + 7%", "160.5"),
        ("150 - 7%", "139.5"),
        ("$150 less 15%", "127.5"),
        ("150 increased by 10%", "165"),
        ("12% of 1,250", "150"),
        ("7 % 4", "3"),  # a number after % keeps it the remainder
        # Powers and roots.
        ("2^10", "1024"),
        ("2 ^ 8", "256"),
        ("3 squared", "9"),
        ("(3/4) squared", "0.5625"),
        ("3 cubed", "27"),
        ("5²", "25"),
        ("10 to the power of 3", "1000"),
        ("sqrt(2)", "1.4142135623731"),
        ("sqrt(144)", "12"),
        ("square root of 144", "12"),
        ("math.sqrt(16) + 1", "5"),
        ("cbrt(27)", "3"),
        ("log10(1000)", "3"),
        ("round(2.567)", "3"),
        # Words, units and separators.
        ("1,200 * 3", "3600"),
        ("1,234,567 + 1", "1234568"),
        ("3 x 4", "12"),
        ("3x4", "12"),
        ("5 \u00d7 3 \u00f7 2", "7.5"),  # multiplication and division signs
        ("12 apples + 5 apples", "17"),
        ("60 km per 2 hours", "30 km/h"),
        ("half of 80", "40"),
        ("a third of 90", "30"),
        ("7 plus 5 times 2", "17"),
        ("100 divided by 8", "12.5"),
        ("0.1 + 0.2", "0.3"),
    ],
)
def test_what_a_small_model_writes(expression: str, expected: str) -> None:
    assert format_result(calculate(expression)) == expected


def test_the_tool_answers_the_model_with_the_number_and_refuses_with_a_reason() -> None:
    from graphs.react_agent.tools import calculator

    assert calculator.invoke({"expression": "20% off 150"}) == "120"
    refusal = calculator.invoke({"expression": "x + 1"})
    assert "calculator refused 'x + 1'" in refusal and "15% of 80" in refusal
    description = str(calculator.args["expression"]["description"])
    for form in ("15% of 80", "sqrt(2)", "2^10", "2.5 kg * 4 in g", "100 F in C"):
        assert form in description


def test_a_refusal_of_words_points_to_python_and_a_division_by_zero_does_not() -> None:
    from graphs.react_agent.tools import calculator
    from graphs.toolkit.python_sandbox import python_tool_if_available

    words = calculator.invoke({"expression": "'banana'.count('a')"})
    assert words.endswith("use python.") == (python_tool_if_available() is not None)
    assert (
        calculator.invoke({"expression": "1 / 0"})
        == "calculator refused '1 / 0': division by zero."
    )


def test_max_and_min_of_plain_numbers() -> None:
    assert calculate("max(9.11, 9.9)") == 9.9
    assert calculate("min(3, -4, 5)") == -4
    with pytest.raises(CalculatorError, match="plain numbers"):
        calculate("max(2 kg, 3 kg)")
