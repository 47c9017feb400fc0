"""The current date and time for agents, spelled out: a small model copies words from a tool's
answer reliably, but could not derive "Thursday" from an ISO timestamp, and asked for "in 10
days" it repeated today's date (4 of 5 date misses before the clock took `days_from_today`).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MAX_DAYS = 36_600
"""About a hundred years either way: a bound a tool-call grammar can carry."""


class ClockError(ValueError):
    """An unknown time zone, or a day too far away."""


def moment_in(timezone: str | None = None, days_from_today: int = 0) -> str:
    """The weekday, date, time and zone now; with `days_from_today`, that day's weekday and date.

    Raises:
        ClockError: `timezone` is not an IANA name, or the day is beyond `MAX_DAYS`.
    """
    try:
        zone = ZoneInfo(timezone) if timezone else UTC
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ClockError(f"unknown time zone {timezone!r}; use a name like Asia/Tokyo") from exc
    if abs(days_from_today) > MAX_DAYS:
        raise ClockError("days_from_today must be within a hundred years")
    now = datetime.now(tz=zone)
    answer = describe_moment(now, timezone or "UTC")
    if days_from_today:
        day = (now + timedelta(days=days_from_today)).date()
        answer += f". {_offset_name(days_from_today)}: {day.strftime('%A')}, {day.isoformat()}"
    return answer


def describe_moment(moment: datetime, zone_name: str) -> str:
    """`Wednesday, 2026-12-02, 09:15:00 in Europe/Lisbon (UTC+00:00)`."""
    offset = moment.strftime("%z")
    return (
        f"{moment.strftime('%A')}, {moment.date().isoformat()}, "
        f"{moment.strftime('%H:%M:%S')} in {zone_name} (UTC{offset[:3]}:{offset[3:]})"
    )


def _offset_name(days: int) -> str:
    names = {1: "Tomorrow", -1: "Yesterday"}
    if days in names:
        return names[days]
    return f"In {days} days" if days > 0 else f"{-days} days ago"


def describe_day(year: int, month: int, day: int, today: date | None = None) -> str:
    """`1789-07-14 was a Tuesday.`: the weekday of one date, and nothing else to copy.

    Asked the weekday of a date long past, a small model called the clock, which only counts
    from today, and answered with today's weekday. The date's three parts are typed arguments,
    so the call grammar makes each a number. The answer names no other day: with today's
    weekday or a distance beside it, the model copied the wrong one, or used the distance from
    today for a span between two other dates.

    Raises:
        ClockError: no such date (month 13, 31 April, year 0).
    """
    try:
        asked = date(year, month, day)
    except ValueError as exc:
        raise ClockError(f"no such date {year:04d}-{month:02d}-{day:02d}: {exc}") from exc
    now = today or datetime.now(tz=UTC).date()
    tense = "was" if asked < now else "is"
    return f"{asked.isoformat()} {tense} a {asked.strftime('%A')}."


def days_between(start: date, end: date) -> str:
    """`From 2025-03-01 to 2025-06-15 is 106 days (15 weeks and 1 day).`

    Asked for the days between two dates, the model called the weekday tool for one of them and
    then guessed the count: the weekday tool answers a different question, and this one answers
    the span with the two dates echoed, so a date the model misread shows in the answer.
    """
    first, last = sorted((start, end))
    days = (last - first).days
    weeks, rest = divmod(days, 7)
    parts = [f"{weeks} week{'s' * (weeks != 1)}"] if weeks else []
    if rest:
        parts.append(f"{rest} day{'s' * (rest != 1)}")
    spelled = f" ({' and '.join(parts)})" if weeks else ""
    unit = "day" if days == 1 else "days"
    return f"From {first.isoformat()} to {last.isoformat()} is {days} {unit}{spelled}."
