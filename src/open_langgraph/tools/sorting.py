"""Sorting a list of numbers for the calculator: `sort 42, 7, 19, 3, 25`.

Asked to sort five numbers, the embedded model called the calculator with the list, was
refused, and then answered from its own head that they were "already sorted". The calculator's
arithmetic has no lists, so a sort is read before it: `sort` (or `sort descending`) and the
numbers, separated by commas or spaces.
"""

from __future__ import annotations

import re

_SORT = re.compile(
    r"^\s*sort(?:ed)?\s*(?P<descending>desc(?:ending)?|largest\s+first|reverse)?\s*[:(]?\s*"
    r"(?P<numbers>[-+]?\d+(?:\.\d+)?(?:\s*(?:,|\s)\s*(?:and\s+)?[-+]?\d+(?:\.\d+)?)+)\s*\)?\s*$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def sort_numbers(expression: str) -> str | None:
    """`3, 7, 19, 25, 42` for `sort 42, 7, 19, 3, 25` (largest first with `descending`); None
    when `expression` is not a sort of two or more numbers."""
    found = _SORT.match(expression)
    if found is None:
        return None
    numbers = _NUMBER.findall(found["numbers"])
    ordered = sorted(numbers, key=float, reverse=bool(found["descending"]))
    return ", ".join(number.lstrip("+") for number in ordered)
