"""The next term of a number sequence for the calculator: `next in 2, 4, 8, 16`.

Asked "what is the next number in the sequence 2, 4, 8, 16?", the embedded model answered 4.
A sequence question has one expected answer when a simple rule fits every term given, and
these are the rules puzzle books use, tried in this order (the first that fits all terms
wins; exact fractions, so 0.1 steps do not drift):

1. the same difference each time (3, 7, 11, 15: add 4);
2. the same ratio each time (2, 4, 8, 16: times 2);
3. each term the sum of the two before it (1, 1, 2, 3, 5: Fibonacci's rule);
4. the prime numbers in order (2, 3, 5, 7, 11);
5. differences that become constant after a few rounds (1, 4, 9, 16: the differences 3, 5, 7
   grow by 2), which continues any polynomial, shown by at least two equal values.

When none fits, the calculator says so and the model answers on its own.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

from open_langgraph.tools.primes import prime_factors

_NEXT = re.compile(
    r"^\s*next\s+(?:term\s+)?(?:in|of|after)\s+"
    r"(?P<numbers>[-+]?\d+(?:\.\d+)?(?:\s*,\s*[-+]?\d+(?:\.\d+)?){2,})\s*$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def next_term(expression: str) -> str | None:
    """`32 (each term is the one before times 2)` for `next in 2, 4, 8, 16`; None when
    `expression` is not a sequence of three or more numbers.

    Raises:
        ValueError: no rule of the module's fits every term given.
    """
    found = _NEXT.match(expression)
    if found is None:
        return None
    terms = [Fraction(number) for number in _NUMBER.findall(found["numbers"])]
    following, rule = _continued(terms)
    return f"{_shown(following)} ({rule})"


def _continued(terms: list[Fraction]) -> tuple[Fraction, str]:
    """The next term and the rule that gives it (see the module)."""
    steps = _differences(terms)
    if len(set(steps)) == 1:
        return terms[-1] + steps[0], f"each term is the one before plus {_shown(steps[0])}"
    if all(terms[:-1]):
        ratios = {b / a for a, b in itertools.pairwise(terms)}
        if len(ratios) == 1:
            (ratio,) = ratios
            if ratio.numerator == 1 and ratio.denominator > 1:
                rule = f"each term is the one before divided by {ratio.denominator}"
            else:
                rule = f"each term is the one before times {_shown(ratio)}"
            return terms[-1] * ratio, rule
    if len(terms) >= 4 and all(
        c == a + b for a, b, c in zip(terms, terms[1:], terms[2:], strict=False)
    ):
        return terms[-1] + terms[-2], "each term is the sum of the two before it"
    if _consecutive_primes(terms):
        following = int(terms[-1]) + 1
        while len(prime_factors(following)) > 1:
            following += 1
        return Fraction(following), "the prime numbers in order"
    rows = [terms]
    while len(rows[-1]) >= 3:
        rows.append(_differences(rows[-1]))
        if len(set(rows[-1])) == 1 and len(rows[-1]) >= 2:
            following = sum((row[-1] for row in rows[:-1]), start=rows[-1][-1])
            return following, f"its differences become constant after {len(rows) - 1} rounds"
    raise ValueError(
        "no simple rule (the same difference or ratio, the sum of the two before, "
        "differences that become constant) fits every term: answer from the pattern you see"
    )


def _consecutive_primes(terms: list[Fraction]) -> bool:
    """Whether the terms are every prime from the first to the last, in order (a short span:
    the primes between are found by trial division)."""
    if len(terms) < 3 or any(t.denominator != 1 or t < 2 for t in terms):
        return False
    first, last = int(terms[0]), int(terms[-1])
    if not 0 < last - first <= 10_000:
        return False
    primes = [n for n in range(first, last + 1) if len(prime_factors(n)) == 1]
    return [int(t) for t in terms] == primes


def _differences(terms: list[Fraction]) -> list[Fraction]:
    return [b - a for a, b in itertools.pairwise(terms)]


def _shown(value: Fraction) -> str:
    """A whole number as one, a decimal that ends as one (`2.5`), else a fraction (`2/3`)."""
    if value.denominator == 1:
        return str(value.numerator)
    denominator = value.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    return f"{float(value):g}" if denominator == 1 else str(value)
