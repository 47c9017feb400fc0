"""The current date and time for agents, spelled out: a small model copies words from a tool's
answer reliably, but could not derive "Thursday" from an ISO timestamp, and asked for "in 10
days" it repeated today's date (4 of 5 date misses before the clock took `days_from_today`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
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
