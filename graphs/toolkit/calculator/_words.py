"""What a small model writes into a calculator, rewritten into the evaluator's grammar.

A 1.5B model asked "what is 15% off 150?" calls the calculator with `15% off 150`, `150 - 15%`,
`150 * 15%` or `$150 less 15 percent`; asked for a power it writes `2^10` or `3 squared`. Rather
than refuse these (and watch the model rewrite them into something wrong), they are rewritten
here into plain arithmetic that `calculator.py` evaluates. Nothing here evaluates anything: the
output is text for the same `ast`-based evaluator, so the rewriting cannot widen what runs.

Percent follows a pocket calculator: `P%` alone is `P/100`, `A + P%` is `A * (1 + P/100)` (the
evaluator sees a `_percent(P)` call on the right of `+` or `-`), `P% of X` is `P/100 * X`,
`P% off X` is `X * (1 - P/100)`. A `%` followed by a number stays the remainder (`7 % 4`).
"""

from __future__ import annotations

import re

from graphs.toolkit.calculator._units import UNITS

PERCENT_FUNCTION = "_percent"
UNIT_PREFIX = "_u_"
"""A known unit after a number becomes a name the evaluator reads as a quantity (`_u_km`)."""
FUNCTIONS = frozenset({"sqrt", "cbrt", "abs", "round", "floor", "ceil", "ln", "log", "log10"})
FUNCTIONS |= {"log2", "exp"}
CONSTANTS = frozenset({"pi", "e"})

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?"
_TOKEN = re.compile(
    rf"\s*(?:(?P<number>{_NUMBER})|(?P<word>log10|log2|[a-z_]+)|(?P<op>\*\*|//|\S))"
)

# Multi-word phrases first, longest first, so "square root of" wins over "of".
_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\bsquare\s+root\s+of\b|\bsquare\s+root\b|√", " sqrt "),
    (r"\bcube\s+root\s+of\b|\bcube\s+root\b|∛", " cbrt "),
    (r"\b(?:raised\s+)?to\s+the\s+power\s+of\b|\bto\s+the\s+power\b|\braised\s+to\b", " ** "),
    (r"\bto\s+the\s+(\d+)(?:st|nd|rd|th)\s+power\b", r" ** \1 "),
    (r"\bmultiplied\s+by\b", " * "),
    (r"\b(?:increased|raised)\s+by\b", " + "),
    (r"\b(?:decreased|reduced|lowered)\s+by\b", " - "),
    (r"\bdivided\s+by\b", " / "),
    (r"\bper\s*cent\b|\bpercent(?:age)?\b|\bpct\b", "% "),
    (r"\bsquared\b|²", " ** 2 "),
    (r"\bcubed\b|³", " ** 3 "),
    (r"\bmore\s+than\b|\bincrease\s+(?:on|of)\b|\bon\s+top\s+of\b", " _more "),
    (r"\bless\s+than\b|\bdiscount\s+(?:on|of)\b|\boff\s+of\b", " off "),
    (r"\bmath\.", " "),
)
# Multiplication sign, middle dot, division sign, minus sign, en dash.
_SYMBOLS = str.maketrans(
    {"\u00d7": "*", "\u00b7": "*", "\u00f7": "/", "\u2212": "-", "\u2013": "-"}
)
_LEADING = re.compile(r"^\s*(?:what(?:\s+is|'s)|how\s+much\s+is|calculate|compute|evaluate)\b")
_WORD_OPERATORS = {"plus": "+", "minus": "-", "less": "-", "times": "*", "over": "/", "per": "/"}
_HALF_WORDS = {"half": "0.5", "quarter": "0.25", "third": "(1/3)", "double": "2", "twice": "2"}
_DROPPED = frozenset({"a", "an", "the", "with", "is", "equals", "then"})


def normalize(expression: str) -> str:
    """`expression` rewritten into numbers, operators, parentheses and whitelisted calls.

    Unknown words are kept (the evaluator refuses them with a message the model can act on),
    except a word right after a number: a unit of measure (`5 km`, `2.5 kg`, `60 km/h`)
    becomes a quantity, `(5 * _u_km)`; any other word is a count's noun (`12 apples`) and is
    dropped. So `x + 1` is still refused while `3 x 4` is a product.
    """
    text = expression.strip().lower().translate(_SYMBOLS)
    text = _LEADING.sub(" ", text)
    text = re.sub(r"[?=.!\s]+$", "", text) if not re.search(r"\d\.$", text) else text
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)  # 1,200,000
    for pattern, replacement in _PHRASES:
        text = re.sub(pattern, replacement, text)
    text = text.replace("^", "**").replace("$", " ").replace("€", " ").replace("£", " ")
    tokens = _tokens(text)
    return " ".join(_rewrite(tokens))


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:  # only trailing whitespace is left
            break
        tokens.append(match.group(match.lastgroup or "op"))
        position = match.end()
    return tokens


def _is_number(token: str) -> bool:
    return re.fullmatch(_NUMBER, token) is not None


def _ends_operand(token: str | None) -> bool:
    # A closing parenthesis, also the end of a `_percent(15)` call.
    return token is not None and (_is_number(token) or token.endswith(")") or token in CONSTANTS)


def _starts_operand(token: str | None) -> bool:
    return token is not None and (
        _is_number(token) or token in ("(", "-", "+") or token in FUNCTIONS | CONSTANTS
    )


def _is_percent(token: str | None) -> bool:
    return token is not None and token.startswith(f"{PERCENT_FUNCTION}(")


def _is_product(token: str, previous: str | None, following: str | None) -> bool:
    """`of` after a number (`15% of 80`, `half of 80`), `x` between two (`3 x 4`)."""
    if token == "of":
        return _ends_operand(previous)
    return token == "x" and _ends_operand(previous) and _starts_operand(following)


def _unit_name(token: str | None) -> str | None:
    unit = UNITS.get(token) if token is not None else None
    return None if unit is None else UNIT_PREFIX + unit.symbol


def _rewrite(tokens: list[str]) -> list[str]:
    out: list[str] = []
    skip = 0
    for index, token in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        previous = out[-1] if out else None
        unit = _unit_name(token)
        if unit is not None and previous is not None and _ends_operand(previous):
            # 60 km/h -> (60 * _u_km / _u_h); 400 m -> (400 * _u_m)
            rate = tokens[index + 2] if index + 2 < len(tokens) else None
            per = _unit_name(rate) if following in ("/", "per") else None
            quantity = ["*", unit] + (["/", per] if per else [])
            skip = 2 if per else 0
            if _is_number(previous):
                # 2 hours 30 minutes: a quantity right after another is their sum.
                after_quantity = (
                    len(out) >= 3 and out[-2] == ")" and out[-3].startswith(UNIT_PREFIX)
                )
                out[-1:] = ["+"] * after_quantity + ["(", previous, *quantity, ")"]
            else:
                out.extend(quantity)
        elif token in FUNCTIONS and following is not None and _is_number(following):
            out.append(f"{token}({following})")  # sqrt 16, from "square root of 16"
            skip = 1
        elif (
            token == "%"
            and previous is not None
            and _is_number(previous)
            and not (following is not None and (_is_number(following) or following == "("))
        ):
            out[-1] = f"{PERCENT_FUNCTION}({previous})"
        elif token in ("off", "discount", "_more") and _is_percent(previous):
            sign = "+" if token == "_more" else "-"
            if _starts_operand(following):  # 20% off 150 -> (1 - 20/100) * 150
                amount = previous[len(PERCENT_FUNCTION) + 1 : -1]
                out[-1:] = ["(", "1", sign, amount, "/", "100", ")", "*"]
            elif len(out) >= 2 and _ends_operand(out[-2]):  # 150 with 20% off -> 150 - 20%
                out.insert(len(out) - 1, sign)
            else:
                out.append(token)
        elif _is_product(token, previous, following):
            out.append("*")
        elif token in _WORD_OPERATORS and _ends_operand(previous):
            out.append(_WORD_OPERATORS[token])
        elif token in _HALF_WORDS:
            out.append(_HALF_WORDS[token])
        elif token in _DROPPED:
            continue
        elif (
            token[0].isalpha()
            and token not in FUNCTIONS | CONSTANTS
            and previous is not None
            and _ends_operand(previous)
            and not _is_number(token)
        ):
            continue  # a unit: 12 apples, 5 km, 3 hours
        else:
            out.append(token)
    return out
