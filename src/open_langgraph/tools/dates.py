"""Calendar arithmetic for agents: the weekday of any date, a date so many days, weeks, months
or years before or after another, and the days between two dates.

A small model asked for a date some weeks back or the weekday of a date long ago cannot count
across months in its head, and a clock that only names today (or a day counted from it)
leaves it guessing: these were the embedded model's misses on date questions
(docs/agents/results.md). Like the calculator, the tool takes one expression
in the words a person would type, `today - 21 days`, `1999-12-31`, `5 May 2031 + 6 weeks`,
`days between 2025-06-01 and 2025-08-15`, and answers with the result first, weekday
included, so the model can copy it.

Months and years move the calendar date and keep the day, clamped to the month's last day
(31 January + 1 month is 28 or 29 February), as `dateutil.relativedelta` and most calendars do.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

MAX_EXPRESSION_LENGTH = 200
MAX_YEARS = 10_000
"""Offsets beyond this many years are refused: `date` covers years 1-9999 only."""

MONTHS = {
    name.lower(): number
    for number in range(1, 13)
    for name in (calendar.month_name[number], calendar.month_abbr[number])
}
MONTHS["sept"] = 9
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{1,4})"

_DATE_PATTERNS = (
    re.compile(r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})"),
    re.compile(rf"{_DAY}\s+(?:of\s+)?(?P<name>{_MONTH})\.?,?(?:\s+{_YEAR})?(?![\w])"),
    re.compile(rf"(?P<name>{_MONTH})\.?\s+{_DAY},?(?:\s+{_YEAR})?(?![\w])"),
    re.compile(r"(?P<first>\d{1,2})/(?P<second>\d{1,2})/(?P<year>\d{4})"),
)
_NAMED_DAYS = {"today": 0, "now": 0, "tomorrow": 1, "yesterday": -1}
_UNITS = {
    "day": ("days", 1),
    "week": ("days", 7),
    "fortnight": ("days", 14),
    "month": ("months", 1),
    "year": ("years", 1),
    "decade": ("years", 10),
    "century": ("years", 100),
    "centurie": ("years", 100),
}
_QUANTITY = re.compile(
    r"(?P<sign>[+-]|plus|minus|and)?\s*(?P<count>\d+|an?|one)\s+"
    r"(?P<unit>day|week|fortnight|month|year|decade|centur(?:y|ie))s?\b"
)
_BETWEEN = re.compile(
    r"^(?:(?:the\s+)?(?:number\s+of\s+)?(?:days?|weeks?)\s+)?(?:between|from)\s+(?P<first>.+?)"
    r"\s+(?:and|to|until|till|through)\s+(?P<second>.+)$"
)
_SINCE = re.compile(
    r"^(?:how\s+many\s+)?(?:the\s+)?(?:number\s+of\s+)?(?:days?|weeks?)\s+"
    r"(?:until|till|to|before|since|after|from)\s+(?P<other>.+)$"
)
"""`days until 2026-12-25`, `days since 1999-12-31`: counted from today."""
_DAYS_IN = re.compile(
    r"^(?:how\s+many\s+)?(?:the\s+)?(?:number\s+of\s+)?days\s+(?:are\s+(?:there\s+)?)?in\s+"
    rf"(?:(?P<leap>an?\s+(?:leap|common|non-leap)\s+year)|(?P<name>{_MONTH})?\s*(?P<year>\d{{1,4}}))$"
)
"""`days in 2024`, `days in february 2025`, `days in a leap year`: a calendar's length."""
_LEADING_WORDS = re.compile(
    r"^(?:(?:what|which)\s+)?(?:(?:is|was|will\s+be)\s+)?(?:the\s+)?"
    r"(?:(?:week)?day\s+(?:of\s+(?:the\s+)?week\s+)?(?:is\s+|was\s+|will\s+be\s+)?"
    r"(?:(?:it\s+)?(?:of|on|for)\s+)?|date\s+(?:of\s+)?)?"
)
_TRAILING_WORDS = re.compile(
    r"(?:'s)?\s*(?:\b(?:is|was|will\s+be|falls?|fell)\s+)?(?:\bon\s+)?(?:a\s+)?"
    r"\b(?:weekday|day\s+of\s+(?:the\s+)?week)$"
)
HELP = (
    "write one date expression, e.g. 'today - 21 days', '1999-12-31', '5 May 2031 + 6 weeks', "
    "'today + 3 years', '40 days after 2025-06-01', 'days between 2025-06-01 and 2025-08-15' "
    "or 'days in February 2028'"
)


class DateExpressionError(ValueError):
    """The expression names no date the tool can read, or lands outside years 1-9999."""


@dataclass(frozen=True)
class Offset:
    """Years, months and days to move a date by, applied in that order."""

    years: int = 0
    months: int = 0
    days: int = 0

    def __neg__(self) -> Offset:
        return Offset(-self.years, -self.months, -self.days)

    def __bool__(self) -> bool:
        return bool(self.years or self.months or self.days)

    def parts(self) -> list[tuple[int, str]]:
        units = ((self.years, "year"), (self.months, "month"), (self.days, "day"))
        return [(value, unit) for value, unit in units if value]

    def describe_from(self, origin: str) -> str:
        """`21 days before today`; with mixed signs, the sum as written:
        `today + 1 year - 2 days`."""
        signs = {value > 0 for value, _ in self.parts()}
        if len(signs) == 1:
            way = "after" if signs == {True} else "before"
            words = " and ".join(_plural(abs(value), unit) for value, unit in self.parts())
            return f"{words} {way} {origin}"
        terms = " ".join(
            f"{'+' if value > 0 else '-'} {_plural(abs(value), unit)}"
            for value, unit in self.parts()
        )
        return f"{origin} {terms}"


def date_calculate(expression: str, today: date | None = None) -> str:
    """The answer to one date expression, result first, e.g.
    `Thursday, 5 November 2026 (2026-11-05), 21 days before today`.

    Raises:
        DateExpressionError: nothing to read as a date, or a result outside years 1-9999.
    """
    if not isinstance(expression, str) or not expression.strip():
        raise DateExpressionError(HELP)
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise DateExpressionError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    today = today or datetime.now(tz=UTC).date()
    text = _normalize(expression)
    between = _BETWEEN.match(text)
    if between:
        return _difference(
            _whole_date(between["first"], today), _whole_date(between["second"], today)
        )
    days_in = _DAYS_IN.match(text)
    if days_in:
        return _days_in(days_in)
    since = _SINCE.match(text)
    if since:
        return _difference(today, _whole_date(since["other"], today))
    relative = _relative(text, today)
    if relative is not None:
        return relative
    start, rest = _leading_date(text, today)
    if start is None:
        raise DateExpressionError(f"no date in {expression!r}; {_hint(text)}")
    rest = rest.strip()
    if not rest:
        return describe_day(start)
    if rest.startswith(("-", "minus", "to ", "until ")) and not _QUANTITY.match(rest):
        second, tail = _leading_date(re.sub(r"^(?:-|minus|to|until)\s*", "", rest), today)
        if second is not None and not tail.strip():
            return _difference(start, second)
    offset = _offsets(rest, expression)
    return _moved(start, offset, _origin_name(text, start, today))


def describe_day(day: date) -> str:
    """`Friday, 31 December 1999 (1999-12-31)`: weekday first and the month spelled out, so
    a model copies whichever form the question used."""
    return f"{day.strftime('%A')}, {day.day} {day.strftime('%B')} {day.year} ({day.isoformat()})"


def move(day: date, offset: Offset) -> date:
    """`day` moved by whole years and months (the day of the month kept, or the month's last
    day if shorter), then by days."""
    month_index = day.year * 12 + day.month - 1 + offset.years * 12 + offset.months
    year, month = divmod(month_index, 12)
    if not 1 <= year <= 9999:
        raise DateExpressionError("the result falls outside the years 1 to 9999")
    moved = date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))
    try:
        return moved + timedelta(days=offset.days)
    except OverflowError as exc:
        raise DateExpressionError("the result falls outside the years 1 to 9999") from exc


def _normalize(expression: str) -> str:
    text = expression.strip().lower().rstrip("?.! ")
    text = text.replace("\u2212", "-").replace("\u2013", "-").replace("\u2014", "-")
    # A remark in brackets ("(its weekday)") and a trailing "weekday" say what is wanted, which
    # is the answer's first word anyway.
    text = re.sub(r"\([^)]*\)", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = _TRAILING_WORDS.sub("", text)
    if re.search(r"\b(?:n|yyyy-mm-dd)\b", text):
        raise DateExpressionError(
            f"replace N and YYYY-MM-DD in {expression!r} with the question's number and date"
        )
    return _LEADING_WORDS.sub("", text, count=1)


def _relative(text: str, today: date) -> str | None:
    """`21 days ago`, `in 2 weeks`, `3 months from now`, `40 days after 2025-06-01`."""
    ago = re.fullmatch(r"(?P<amount>.+?)\s+(?:ago|back|earlier)", text)
    if ago and _QUANTITY.match(ago["amount"]):
        return _moved(today, -_offsets(ago["amount"], text), "today")
    ahead = re.fullmatch(r"in\s+(?P<amount>.+)", text)
    if ahead and _QUANTITY.match(ahead["amount"]):
        return _moved(today, _offsets(ahead["amount"], text), "today")
    around = re.fullmatch(
        r"(?P<amount>.+?)\s+(?P<way>before|after|from|since|later than|earlier than)"
        r"\s+(?P<anchor>.+)",
        text,
    )
    if around and _QUANTITY.match(around["amount"]):
        anchor = _whole_date(around["anchor"], today)
        offset = _offsets(around["amount"], text)
        if around["way"] in {"before", "earlier than"}:
            offset = -offset
        return _moved(anchor, offset, _origin_name(around["anchor"], anchor, today))
    return None


def _leading_date(text: str, today: date) -> tuple[date | None, str]:
    """The date at the start of `text` and what follows it."""
    text = text.lstrip()
    for word, shift in _NAMED_DAYS.items():
        if re.match(rf"{word}\b", text):
            return today + timedelta(days=shift), text[len(word) :]
    for pattern in _DATE_PATTERNS:
        found = pattern.match(text)
        if found:
            return _to_date(found, today), text[found.end() :]
    return None, text


def _whole_date(text: str, today: date) -> date:
    """`text` read as one date, optionally moved: `2025-06-01`, `today + 1 week`."""
    text = text.strip()
    start, rest = _leading_date(text, today)
    if start is None:
        raise DateExpressionError(f"no date in {text!r}; {HELP}")
    return move(start, _offsets(rest, text)) if rest.strip() else start


def _to_date(found: re.Match[str], today: date) -> date:
    parts = found.groupdict()
    if parts.get("first"):
        first, second = int(parts["first"]), int(parts["second"])
        if first <= 12 and second <= 12 and first != second:
            raise DateExpressionError(
                f"{found[0]!r} could be day/month or month/day; write it as YYYY-MM-DD"
            )
        month, day = (first, second) if first <= 12 else (second, first)
    else:
        month = MONTHS[parts["name"]] if parts.get("name") else int(parts["month"])
        day = int(parts["day"])
    year = int(parts["year"]) if parts.get("year") else today.year
    try:
        return date(year, month, day)
    except ValueError as exc:
        if 1 <= month <= 12 and 1 <= year <= 9999:
            last = calendar.monthrange(year, month)[1]
            reason = f"{calendar.month_name[month]} {year} has {last} days"
        else:
            reason = str(exc)
        raise DateExpressionError(f"{found[0]!r} is not a date: {reason}") from exc


def _offsets(text: str, expression: str) -> Offset:
    """`+ 1 year - 2 days`, `2 weeks and 3 days`: every quantity, signed, and nothing else."""
    years = months = days = 0
    position = 0
    text = text.strip()
    sign = 1
    while position < len(text):
        found = _QUANTITY.match(text, position)
        if not found:
            raise DateExpressionError(
                f"cannot read {text[position:]!r} in {expression!r}; {_hint(text)}"
            )
        if found["sign"] in {"-", "minus"}:
            sign = -1
        elif found["sign"] in {"+", "plus"}:
            sign = 1
        count = 1 if found["count"] in {"a", "an", "one"} else int(found["count"])
        field, size = _UNITS[found["unit"]]
        amount = sign * count * size
        if field == "days":
            days += amount
        elif field == "months":
            months += amount
        else:
            years += amount
        position = found.end()
        while position < len(text) and text[position] in " ,":
            position += 1
    if abs(years) + abs(months) // 12 + abs(days) // 366 > MAX_YEARS:
        raise DateExpressionError("the result falls outside the years 1 to 9999")
    return Offset(years, months, days)


def _moved(start: date, offset: Offset, origin: str) -> str:
    """The date, then how it was reached, without the start's weekday and long form: given
    "Friday, 18 December 2026: 21 days after today, Friday, 27 November 2026", the model
    answered with the last date it read, today's (tuning and held-out questions alike)."""
    result = move(start, offset)
    if not offset:
        return describe_day(result)
    label = start.isoformat() if origin == "that date" else origin
    return f"{describe_day(result)}, {offset.describe_from(label)}"


def _difference(first: date, second: date) -> str:
    earlier, later = sorted((first, second))
    days = (later - earlier).days
    weeks, rest = divmod(days, 7)
    in_weeks = f" ({_plural(weeks, 'week')} and {_plural(rest, 'day')})" if weeks else ""
    return (
        f"{_plural(days, 'day')}{in_weeks} from {describe_day(earlier)} to {describe_day(later)}; "
        f"{days + 1:,} if both the first and the last day are counted"
    )


def _days_in(found: re.Match[str]) -> str:
    if found["leap"]:
        leap = "non" not in found["leap"] and "common" not in found["leap"]
        return "366 days in a leap year" if leap else "365 days in a common year"
    year = int(found["year"])
    if not 1 <= year <= 9999:
        raise DateExpressionError(f"year {year} is outside 1-9999")
    if found["name"]:
        month = MONTHS[found["name"]]
        days = calendar.monthrange(year, month)[1]
        return f"{days} days in {calendar.month_name[month]} {year}"
    kind = "a leap year" if calendar.isleap(year) else "not a leap year"
    return f"{366 if calendar.isleap(year) else 365} days in {year} ({kind})"


def days_in_expression(question: str) -> str | None:
    """`days in 2024` for "How many days are there in 2024?" (a year, a month of a year, a leap
    or common year): the expression this tool answers, else None."""
    text = re.sub(r"\s+", " ", question.strip().lower().rstrip("?.! "))
    found = _DAYS_IN.match(text)
    if not found:
        return None
    return "days in " + (found["leap"] or " ".join(filter(None, (found["name"], found["year"]))))


def dates_named_in(text: str) -> list[str]:
    """The dates `text` spells out with their year (`1 January 2000`, `2000-01-01`,
    `July 14, 1989`), as written, in order: the part of a question a date sum needs."""
    found: list[tuple[int, str]] = []
    lowered = text.lower()
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(lowered):
            if match.groupdict().get("year") and not any(
                start <= match.start() < start + len(seen) for start, seen in found
            ):
                found.append((match.start(), text[match.start() : match.end()]))
    return [written.strip(" ,.") for _, written in sorted(found)]


def _origin_name(text: str, start: date, today: date) -> str:
    for word in _NAMED_DAYS:
        if text.strip().startswith(word):
            return word
    return "that date" if start != today else "today"


def _hint(text: str) -> str:
    if re.search(r"\b(?:hour|minute|second)s?\b", text):
        # A template, not numbers: given "(3 * 24)" the model computed exactly that.
        return (
            "this tool counts whole days; for hours or minutes use the calculator, which "
            "converts units of time: N days in hours, N weeks in minutes"
        )
    return HELP


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count:,} {unit}s"
