"""Primes for the calculator (`open_langgraph.tools.primes`) and its `gcd`/`lcm`: exact answers
to what a small model gets wrong in its head ("is 97 prime?": no)."""

from __future__ import annotations

import pytest

from open_langgraph.tools.calculator import CalculatorError, calculate
from open_langgraph.tools.primes import LARGEST, prime_factors, read_primes


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("is 97 prime", "97 is prime"),
        ("is 2 prime", "2 is prime"),
        ("is_prime(91)", "91 is not prime: 91 = 7 * 13"),
        ("is 1,000,003 prime", "1000003 is prime"),
        ("prime factors of 84", "84 = 2 * 2 * 3 * 7"),
        ("factor 97", "97 is prime: its only prime factor is itself"),
    ],
)
def test_primality_and_factors(expression: str, answer: str):
    assert read_primes(expression) == answer


def test_one_and_zero_are_not_prime():
    assert read_primes("is 1 prime").startswith("1 is not prime")  # type: ignore[union-attr]
    assert read_primes("is 0 prime").startswith("0 is not prime")  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="above 1"):
        read_primes("factor 1")


def test_factors_multiply_back_and_are_prime():
    for n in (2, 360, 9_699_690, 999_999_999_989, 600_851_475_143):
        factors = prime_factors(n)
        product = 1
        for factor in factors:
            product *= factor
            assert len(prime_factors(factor)) == 1
        assert product == n


def test_a_number_past_the_limit_is_refused_not_hung():
    with pytest.raises(ValueError, match="too large"):
        read_primes(f"is {LARGEST + 1} prime")


@pytest.mark.parametrize("expression", ["2 + 2", "sort 3, 1", "is it prime", "prime"])
def test_anything_else_is_left_to_the_calculator(expression: str):
    assert read_primes(expression) is None


@pytest.mark.parametrize(
    ("expression", "value"),
    [("gcd(12, 18)", 6), ("hcf(84, 36)", 12), ("lcm(4, 6)", 12), ("lcm(4, 6, 10)", 60)],
)
def test_gcd_and_lcm(expression: str, value: int):
    assert calculate(expression) == value


def test_gcd_of_fractions_is_refused():
    with pytest.raises(CalculatorError, match="whole numbers"):
        calculate("gcd(2.5, 5)")
