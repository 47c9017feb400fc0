"""Counting letters for the calculator: `count r in strawberry`, `vowels in banana`.

A language model reads text in tokens, not letters, so "how many r's are in strawberry?" is
a question it cannot see the answer to: the embedded model said one. The calculator's
arithmetic has no text, so a count is read before it, as a sort is (`sorting.py`):

- `count r in strawberry` (also `count "r" in "strawberry"`, `count the letter r in ...`):
  how often one letter occurs, upper and lower case alike;
- `letters in encyclopedia`, `vowels in banana`, `consonants in rhythm`: how many letters
  of that kind the word or quoted phrase has (vowels are a, e, i, o and u);
- `reverse necessary`: the word spelled backwards, which the model wrote as "sirece".

The answer names the positions, so the model can quote a count it can check.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Typographic quotes (as phones type them) read as plain ones.
PLAIN_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_TEXT = (
    r"(?:the\s+(?:word|name|phrase)\s+)?"
    r"""(?:(?P<q>['"])(?P<quoted>[^'"]+)(?P=q)|(?P<word>[a-z][a-z-]*))"""
)
_COUNT = re.compile(
    r"^\s*count\s+(?:the\s+)?(?:letters?\s+)?(?P<lq>['\"]?)(?P<letter>[a-z])(?P=lq)(?:'?s)?\s+"
    rf"(?:in|of)\s+{_TEXT}\s*$",
    re.IGNORECASE,
)
_KIND = re.compile(
    rf"^\s*(?:count\s+(?:the\s+)?)?(?P<kind>letters|vowels|consonants)\s+(?:in|of)\s+{_TEXT}\s*$",
    re.IGNORECASE,
)
_REVERSALS = (
    re.compile(rf"^\s*(?:reverse|spell\s+backwards?)\s+{_TEXT}\s*$", re.IGNORECASE),
    re.compile(rf"^\s*{_TEXT}\s+(?:backwards?|reversed)\s*$", re.IGNORECASE),
)
_VOWELS = frozenset("aeiou")


def reverse_letters(expression: str) -> str | None:
    """`yrassecen` for `reverse necessary` (or `necessary backwards`), the word spelled
    backwards letter by letter; None when `expression` is not such a reversal."""
    text = expression.translate(PLAIN_QUOTES)
    for pattern in _REVERSALS:
        found = pattern.match(text)
        if found is not None:
            phrase = found["quoted"] or found["word"]
            return f'{phrase[::-1]}: "{phrase}" spelled backwards'
    return None


def count_letters(expression: str) -> str | None:
    """How often a letter, or letters of a kind, occur in a word (see the module); None when
    `expression` is not such a count."""
    text = expression.translate(PLAIN_QUOTES)
    found = _COUNT.match(text)
    if found is not None:
        letter = found["letter"].lower()
        phrase = found["quoted"] or found["word"]
        count, where = _positions(phrase, lambda c: c == letter)
        times = "time" if count == 1 else "times"
        return f'{count}: "{phrase}" has the letter {letter} {count} {times}{where}'
    found = _KIND.match(text)
    if found is None:
        return None
    phrase = found["quoted"] or found["word"]
    kind = found["kind"].lower()
    if kind == "letters":
        count, _ = _positions(phrase, str.isalpha)
        return f'{count}: "{phrase}" has {count} letters'
    if kind == "vowels":
        count, where = _positions(phrase, lambda c: c in _VOWELS)
        return f'{count}: "{phrase}" has {count} vowels{where}, counting a, e, i, o and u'
    count, where = _positions(phrase, lambda c: c.isalpha() and c not in _VOWELS)
    return f'{count}: "{phrase}" has {count} consonants{where}'


def _positions(phrase: str, counted: Callable[[str], bool]) -> tuple[int, str]:
    """How many of the phrase's letters are `counted`, and where: ` (letters 3, 8 and 9 of
    10)`, or "" for none."""
    letters = [c for c in phrase.lower() if c.isalpha()]
    positions = [str(i) for i, c in enumerate(letters, 1) if counted(c)]
    if not positions:
        return 0, ""
    where = (
        positions[0] if len(positions) == 1 else f"{', '.join(positions[:-1])} and {positions[-1]}"
    )
    return len(positions), f" (letters {where} of {len(letters)})"
