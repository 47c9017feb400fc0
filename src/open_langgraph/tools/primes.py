"""Primes for the calculator: `is 97 prime`, `prime factors of 84`.

Asked "is 97 a prime number?", the embedded model answered no: whether a number divides is
arithmetic it does not do in its head, and the calculator's expressions have no question to
ask. A primality question or a factorisation is read before the arithmetic, as a sort is
(`sorting.py`), and answered by trial division, which is exact and fast up to `LARGEST`.
"""

from __future__ import annotations

import re

LARGEST = 10**12
"""Trial division up to a million divisors: well under a second in Python."""

_IS_PRIME = re.compile(
    r"^\s*(?:is\s+)?(?P<n>\d[\d,]*)\s+(?:a\s+)?prime(?:\s+number)?\s*\??\s*$"
    r"|^\s*is[\s_]*prime\s*\(\s*(?P<call>\d[\d,]*)\s*\)\s*$",
    re.IGNORECASE,
)
_FACTORS = re.compile(
    r"^\s*(?:(?:the\s+)?prime\s+factors?\s+of|factori[sz]e|factor)\s+(?P<n>\d[\d,]*)\s*$",
    re.IGNORECASE,
)


def read_primes(expression: str) -> str | None:
    """`97 is prime` for `is 97 prime`, `84 = 2 * 2 * 3 * 7` for `prime factors of 84`; None
    when `expression` is neither (see the module).

    Raises:
        ValueError: a number above `LARGEST`, or below 2 for a factorisation.
    """
    found = _IS_PRIME.match(expression)
    if found is not None:
        n = _whole(found["n"] or found["call"])
        if n < 2:
            return f"{n} is not prime: primes are whole numbers above 1 with no other divisors"
        factors = prime_factors(n)
        if len(factors) == 1:
            return f"{n} is prime"
        return f"{n} is not prime: {n} = {' * '.join(map(str, factors))}"
    found = _FACTORS.match(expression)
    if found is None:
        return None
    n = _whole(found["n"])
    if n < 2:
        raise ValueError(f"{n} has no prime factors: factor a whole number above 1")
    factors = prime_factors(n)
    if len(factors) == 1:
        return f"{n} is prime: its only prime factor is itself"
    return f"{n} = {' * '.join(map(str, factors))}"


def prime_factors(n: int) -> list[int]:
    """The prime factors of `n` (2 or more, at most `LARGEST`), smallest first, repeated."""
    factors: list[int] = []
    divisor = 2
    while divisor * divisor <= n:
        while n % divisor == 0:
            factors.append(divisor)
            n //= divisor
        divisor += 1 if divisor == 2 else 2
    if n > 1:
        factors.append(n)
    return factors


def _whole(digits: str) -> int:
    n = int(digits.replace(",", ""))
    if n > LARGEST:
        raise ValueError(f"{n} is too large to test here: numbers up to {LARGEST:,} are")
    return n
