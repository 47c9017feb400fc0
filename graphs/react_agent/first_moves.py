"""A question whose form names its tool starts with that tool.

`search_first` sends a question about this project to the docs. More forms of everyday
question have one right first move that the embedded model does not always make:

- **The weekday of a date it names** ("what day of the week was 1 January 2000?"): the model
  read the clock, which knows only today, and answered with a guess (held-out everyday
  questions of issue 33, 2026-11-27). It goes to `date_calculator` as `weekday of <the date>`.
- **The days between two dates it names** ("how many days are there from 1 February 2027 to
  1 March 2027?"): the model wrote `today + 1 month`. It goes to `date_calculator` as
  `days between <first> and <second>`, whose answer gives both counting conventions.
- **The length of a year or month** ("how many days are there in a leap year?"): the model
  counted days between two 29 Februaries, one of which does not exist. It goes to
  `date_calculator` as `days in a leap year`.
- **A conversion of one quantity** ("how many hours are there in 3 weeks?", "how many grams is
  2.5 kg?"): the model took "weeks" for a calendar sum and answered with a date three weeks
  ahead. It goes to the calculator as `3 weeks in hours`, which converts units. A temperature
  ("convert 100 degrees Fahrenheit to Celsius", for which the model wrote `100 / 1.8`) goes
  as `100 fahrenheit in celsius`.
- **Counting the letters of a word it spells out** ("how many r's are in strawberry?"): the
  model reads tokens, not letters, and said one. It goes to the calculator as
  `count r in strawberry` (or `vowels in banana`), which counts them (`tools/letters.py`).
- **Spelling a word backwards** ("spell 'necessary' backwards", written "sirece"): it goes as
  `reverse necessary`.
- **Whether a number is prime, its prime factors, the greatest common divisor or least common
  multiple of numbers given** ("is 97 a prime number?", answered no): `is 97 prime`,
  `prime factors of 84`, `gcd(12, 18)`, `lcm(4, 6)` (`tools/primes.py`).
- **The next term of a sequence given** ("what is the next number in the sequence 2, 4, 8,
  16?", answered 4): `next in 2, 4, 8, 16` (`tools/sequences.py`).
- **Comparing or sorting the numbers given** ("which is bigger, 9.11 or 9.9?", "sort these
  numbers from smallest to largest: 42, 7, 19, 3, 25"): the model subtracted and misread the
  sign, and called a list "already sorted". It goes to the calculator as `max(9.11, 9.9)` or
  `sort 42, 7, 19, 3, 25`.

Only when the model's own first move is something else (a date sum of its own that computes
the same answer stands), and only for a question that is that
one sentence: "I sleep 8 hours a night. How many hours in a week?" is a word problem, left to
the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage

from graphs.react_agent.search_first import CALCULATOR, DATE_TOOL, forced_call, search_first
from open_langgraph.models.tool_use import called_a_tool, latest_question
from open_langgraph.tools.dates import (
    DateExpressionError,
    date_calculate,
    dates_named_in,
    days_in_expression,
)
from open_langgraph.tools.letters import PLAIN_QUOTES
from open_langgraph.tools.temperature import convert_temperature, scale_of
from open_langgraph.tools.units import UNITS

_ASKS_WEEKDAY = re.compile(
    r"\b(?:day\s+of\s+the\s+week|weekday|what\s+day\b|which\s+day\b)", re.IGNORECASE
)
_ASKS_DAYS = re.compile(r"\bhow\s+many\s+days\b", re.IGNORECASE)
_AMOUNT = r"(?P<amount>\d+(?:[.,]\d+)?|an?|one|half\s+an?)"
_CONVERSIONS = (
    re.compile(
        r"^how\s+many\s+(?P<target>[a-z]+)\s+(?:are\s+(?:there\s+)?|is\s+(?:there\s+)?|make\s+)?"
        rf"(?:in\s+)?{_AMOUNT}\s+(?P<unit>[a-z]+)$"
    ),
    re.compile(
        rf"^(?:convert|what\s+is|what's|how\s+much\s+is)\s+{_AMOUNT}\s+(?P<unit>[a-z]+)\s+"
        r"(?:in|to|into)\s+(?P<target>[a-z]+)$"
    ),
)
#: "Convert 100 degrees Fahrenheit to Celsius", "what is 37 C in F", "how many degrees
#: Fahrenheit is 20 degrees Celsius": a small model wrote `100 / 1.8` for the first.
_DEGREES = r"(?:degrees?\s+|°\s*)?"
_TEMPERATURE_AMOUNT = r"(?P<amount>-?\d+(?:[.,]\d+)?)\s*"
_TEMPERATURES = (
    re.compile(
        rf"^(?:convert|what\s+is|what's)\s+{_TEMPERATURE_AMOUNT}{_DEGREES}(?P<unit>°?[a-z]+)\s+"
        rf"(?:in|to|into)\s+{_DEGREES}(?P<target>°?[a-z]+)$"
    ),
    re.compile(
        r"^how\s+many\s+degrees\s+(?P<target>[a-z]+)\s+(?:is|are)\s+"
        rf"{_TEMPERATURE_AMOUNT}{_DEGREES}(?P<unit>°?[a-z]+)$"
    ),
)
#: "Which is bigger, 9.11 or 9.9?", "which number is smaller: -3 or 2": a small model
#: subtracted one from the other and misread the sign.
_COMPARE_NUMBER = r"-?\d+(?:\.\d+)?"
_COMPARISON = re.compile(
    r"^(?:which|what)\s+(?:number\s+|one\s+|value\s+)?is\s+(?:the\s+)?"
    r"(?P<way>bigger|larger|greater|higher|smaller|less|lower)(?:\s+number)?[,:]?\s+"
    rf"(?P<a>{_COMPARE_NUMBER})\s+or\s+(?P<b>{_COMPARE_NUMBER})$"
)
#: "Sort these numbers from smallest to largest: 42, 7, 19, 3, 25": the model called the
#: calculator with the list, was refused, and answered that they were already sorted.
_SORT = re.compile(
    r"^(?:sort|order|arrange|put)\b[^:\d]*:?\s*"
    rf"(?P<numbers>{_COMPARE_NUMBER}(?:\s*,\s*(?:and\s+)?{_COMPARE_NUMBER}|\s+and\s+"
    rf"{_COMPARE_NUMBER})+)(?:\s+(?:from|in)\b[^\d]*)?$"
)
_NUMBER = re.compile(_COMPARE_NUMBER)
#: "How many r's are in strawberry?", "how many times does the letter s appear in
#: mississippi", "how many vowels does 'queue' have": the model sees tokens, not letters, and
#: said strawberry has one r.
_LETTER = r"""(?P<lq>['"]?)(?P<letter>[a-z])(?P=lq)(?:'?s)?"""
_SPELLED = (
    r"(?:the\s+(?:word|name|string)\s+)?"
    r"""(?:(?P<q>['"])(?P<quoted>[^'"]+)(?P=q)|(?P<word>[a-z][a-z-]*))"""
)
_LETTER_COUNTS = (
    re.compile(
        r"^how\s+many\s+(?:times\s+does\s+)?(?:the\s+)?(?:letters?\s+)?"
        rf"{_LETTER}\s+(?:are\s+|is\s+)?(?:there\s+)?(?:appear\s+|occur\s+|show\s+up\s+)?"
        rf"in\s+{_SPELLED}$"
    ),
    re.compile(
        rf"^count\s+(?:the\s+)?(?:number\s+of\s+)?(?:letters?\s+)?{_LETTER}\s+in\s+{_SPELLED}$"
    ),
)
_KIND_COUNTS = (
    re.compile(
        r"^(?:how\s+many|count\s+(?:the\s+)?(?:number\s+of\s+)?)\s*"
        r"(?P<kind>letters|vowels|consonants)\s+(?:are\s+|is\s+)?(?:there\s+)?"
        rf"in\s+{_SPELLED}$"
    ),
    re.compile(
        rf"^how\s+many\s+(?P<kind>letters|vowels|consonants)\s+does\s+{_SPELLED}\s+"
        r"(?:have|contain)$"
    ),
)
#: "Spell 'necessary' backwards": the model wrote "sirece".
_REVERSALS = (
    re.compile(
        r"^(?:please\s+|can\s+you\s+|how\s+do\s+you\s+)?(?:spell|write)\s+"
        rf"{_SPELLED}\s+(?:backwards?|in\s+reverse)$"
    ),
    re.compile(rf"^(?:please\s+)?reverse\s+(?:the\s+letters\s+of\s+)?{_SPELLED}$"),
    re.compile(
        rf"^(?:what\s+is|what's)\s+{_SPELLED}\s+(?:spelled\s+|written\s+)?(?:backwards?|reversed)$"
    ),
)
#: "Is 97 a prime number?": the model said no. "What are the prime factors of 84?"
_WHOLE = r"(?P<n>\d{1,3}(?:,\d{3})+|\d+)"
_PRIME = re.compile(
    rf"^is\s+(?:the\s+number\s+)?{_WHOLE}\s+(?:a\s+)?prime(?:\s+number)?(?:\s+or\s+not)?$"
)
_FACTORING = re.compile(
    r"^(?:(?:(?:what\s+(?:is|are)|what's|find|give\s+me)\s+)?(?:the\s+)?"
    r"(?:prime\s+factors|prime\s+factori[sz]ation)\s+of|factor|factori[sz]e)\s+"
    rf"{_WHOLE}$"
)
#: "What is the greatest common divisor of 12 and 18?", "LCM of 4, 6 and 10".
_DIVISOR_WORDS = {
    "greatest common divisor": "gcd",
    "greatest common factor": "gcd",
    "highest common factor": "gcd",
    "gcd": "gcd",
    "gcf": "gcd",
    "hcf": "gcd",
    "least common multiple": "lcm",
    "lowest common multiple": "lcm",
    "lcm": "lcm",
}
_DIVISOR_NAMES = "|".join(name.replace(" ", r"\s+") for name in _DIVISOR_WORDS)
_COMMON = re.compile(
    r"^(?:(?:what\s+is|what's|find|calculate|compute)\s+)?(?:the\s+)?"
    rf"(?P<which>{_DIVISOR_NAMES})\s+of\s+"
    r"(?P<numbers>\d+(?:\s*,\s*(?:and\s+)?\d+|\s+and\s+\d+)+)$"
)
#: "What is the next number in the sequence 2, 4, 8, 16?": the model said 4.
_TERMS = (
    r"(?P<numbers>-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?){2,})"
    r"(?:\s*,\s*(?:\?+|_+|\.{3}|\u2026)?)?"  # "2, 4, 8, ?" with its mark stripped: "2, 4, 8,"
)
_SEQUENCE_NAME = r"(?:in\s+(?:the\s+|this\s+)?(?:sequence|series|pattern|list)\s*)?:?\s*"
_SEQUENCES = (
    re.compile(
        r"^(?:(?:what\s+is|what's|find|give)\s+)?(?:the\s+)?next\s+(?:number|term|value)\s*"
        rf"{_SEQUENCE_NAME}{_TERMS}$"
    ),
    re.compile(rf"^what\s+comes\s+next\s*{_SEQUENCE_NAME}{_TERMS}$"),
    re.compile(rf"^continue\s+(?:the\s+|this\s+)?(?:sequence|series|pattern)\s*:?\s*{_TERMS}$"),
)
#: Words a question names for what they stand for, not for their spelling: "how many letters
#: are in the English alphabet" counts the alphabet's letters, not the word's.
_NOT_SPELLED = frozenset({"alphabet", "english", "french", "german", "spanish", "greek", "latin"})
_AMOUNT_WORDS = {"a": "1", "an": "1", "one": "1", "half a": "0.5", "half an": "0.5"}


def first_move(
    response: AIMessage, messages: Sequence[BaseMessage], tool_names: Sequence[str]
) -> AIMessage:
    """`response`, or the first call the question's form asks for (see the module)."""
    response = search_first(response, messages, tool_names)
    if called_a_tool(messages):
        return response
    question = latest_question(messages).strip()
    names = {call["name"] for call in response.tool_calls}
    calendar_sum = date_sum_of(question)
    if calendar_sum and DATE_TOOL in tool_names and not _same_date_sum(response, calendar_sum):
        return forced_call(response, DATE_TOOL, {"expression": calendar_sum})
    ordering = ordering_of(question)
    if ordering and CALCULATOR in tool_names and not _same_result(response, ordering):
        return forced_call(response, CALCULATOR, {"expression": ordering})
    fact = spelling_of(question) or number_fact_of(question)
    if fact and CALCULATOR in tool_names and not _same_result(response, fact):
        return forced_call(response, CALCULATOR, {"expression": fact})
    conversion = conversion_of(question)
    if (
        conversion
        and CALCULATOR in tool_names
        and (names != {CALCULATOR} or _other_temperature(response, conversion))
    ):
        return forced_call(response, CALCULATOR, {"expression": conversion})
    return response


def ordering_of(question: str) -> str | None:
    """`max(9.11, 9.9)` for "Which is bigger, 9.11 or 9.9?", `sort 42, 7, 19` for "Sort these
    numbers from smallest to largest: 42, 7, 19": a question that only compares or orders the
    numbers it gives; else None."""
    text = _plain(question)
    found = _COMPARISON.match(text)
    if found:
        largest = found["way"] in ("bigger", "larger", "greater", "higher")
        return f"{'max' if largest else 'min'}({found['a']}, {found['b']})"
    found = _SORT.match(text)
    if found:
        numbers = ", ".join(_NUMBER.findall(found["numbers"]))
        descending = re.search(r"largest to|biggest to|highest to|descending|decreasing", text)
        return f"sort {'descending ' if descending else ''}{numbers}"
    return None


def spelling_of(question: str) -> str | None:
    """`count r in strawberry` for "How many r's are in strawberry?", `vowels in banana` for
    "how many vowels are in banana?", `reverse cat` for "spell cat backwards": a question only
    about the letters of the word it gives; else None."""
    text = _plain(question.translate(PLAIN_QUOTES))
    for pattern in _LETTER_COUNTS:
        found = pattern.match(text)
        if found and (spelled := _spelled(found)):
            return f"count {found['letter']} in {spelled}"
    for pattern in _KIND_COUNTS:
        found = pattern.match(text)
        if found and (spelled := _spelled(found)):
            return f"{found['kind']} in {spelled}"
    for pattern in _REVERSALS:
        found = pattern.match(text)
        if found and (spelled := _spelled(found)):
            return f"reverse {spelled}"
    return None


def number_fact_of(question: str) -> str | None:
    """`is 97 prime`, `prime factors of 84`, `next in 2, 4, 8, 16`, `gcd(12, 18)` or
    `lcm(4, 6)` for a question that asks only that of the numbers it gives; else None."""
    text = _plain(question)
    if found := _PRIME.match(text):
        return f"is {found['n'].replace(',', '')} prime"
    if found := _FACTORING.match(text):
        return f"prime factors of {found['n'].replace(',', '')}"
    for pattern in _SEQUENCES:
        if found := pattern.match(text):
            return f"next in {', '.join(_NUMBER.findall(found['numbers']))}"
    if found := _COMMON.match(text):
        which = _DIVISOR_WORDS[re.sub(r"\s+", " ", found["which"])]
        return f"{which}({', '.join(_NUMBER.findall(found['numbers']))})"
    return None


def _plain(question: str) -> str:
    """The question as the forms above read it: lower case, one space between words, without
    its closing punctuation."""
    return re.sub(r"\s+", " ", question.strip().lower().rstrip("?.! "))


def _spelled(found: re.Match[str]) -> str | None:
    """The word (as it is) or quoted phrase (quoted) whose letters a question counts; None for
    a word that stands for something else (`_NOT_SPELLED`)."""
    if found["quoted"]:
        return f'"{found["quoted"]}"'
    return None if found["word"] in _NOT_SPELLED else found["word"]


def _own_expression(response: AIMessage, tool: str) -> str | None:
    """The expression of the model's own move when that move is one call of `tool`, else
    None: the checks below let such a call stand when it computes what the question asks."""
    if [call["name"] for call in response.tool_calls] != [tool]:
        return None
    return str(response.tool_calls[0]["args"].get("expression", ""))


def _same_result(response: AIMessage, expression: str) -> bool:
    """Whether `response` is one calculator call with `expression` itself: the model's own
    call stands when it is the same."""
    own = _own_expression(response, CALCULATOR)
    return own is not None and own.replace(" ", "") == expression.replace(" ", "")


def _other_temperature(response: AIMessage, conversion: str) -> bool:
    """Whether `conversion` is a temperature's and the model's own calculator call does not
    convert it so: its arithmetic for one (`100 / 1.8` for Fahrenheit in Celsius) is wrong
    more often than not, where its unit conversions are right."""
    wanted = convert_temperature(conversion)
    if wanted is None:
        return False
    expression = str(response.tool_calls[0]["args"].get("expression", ""))
    return convert_temperature(expression) != wanted


def date_sum_of(question: str) -> str | None:
    """The `date_calculator` expression the question's form asks for, else None."""
    date = weekday_date(question)
    if date:
        return f"weekday of {date}"
    dates = dates_named_in(question)
    if len(dates) == 2 and _ASKS_DAYS.search(question):
        return f"days between {dates[0]} and {dates[1]}"
    return days_in_expression(question)


def weekday_date(question: str) -> str | None:
    """The one date (with its year) whose weekday the question asks for, else None."""
    if not _ASKS_WEEKDAY.search(question):
        return None
    dates = dates_named_in(question)
    return dates[0] if len(dates) == 1 else None


def conversion_of(question: str) -> str | None:
    """`3 weeks in hours` for "How many hours are there in 3 weeks?": a one-sentence question
    converting one quantity between two units of one kind; else None."""
    text = _plain(question)
    for pattern in _CONVERSIONS:
        found = pattern.match(text)
        if not found:
            continue
        unit, target = UNITS.get(found["unit"]), UNITS.get(found["target"])
        if unit is None or target is None or unit.dimension != target.dimension:
            break  # not two units of one kind: perhaps two temperature scales
        amount = _AMOUNT_WORDS.get(found["amount"], _decimal(found["amount"]))
        return f"{amount} {found['unit']} in {found['target']}"
    for pattern in _TEMPERATURES:
        found = pattern.match(text)
        if found and scale_of(found["unit"]) and scale_of(found["target"]):
            return f"{_decimal(found['amount'])} {found['unit']} in {found['target']}"
    return None


def _same_date_sum(response: AIMessage, expression: str) -> bool:
    """Whether `response` is one date sum that answers as `expression` does: the model's own
    wording stands when it computes the same thing."""
    own = _own_expression(response, DATE_TOOL)
    if own is None:
        return False
    try:
        return date_calculate(own) == date_calculate(expression)
    except DateExpressionError:
        return False


def _decimal(amount: str) -> str:
    """`1,200` is twelve hundred, `1,5` one and a half."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", amount):
        return amount.replace(",", "")
    return amount.replace(",", ".")
