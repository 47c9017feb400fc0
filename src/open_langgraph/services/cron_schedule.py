"""Cron schedules: checking one, and finding when it is next due in its timezone.

Schedules use croniter's syntax (five fields, optionally a sixth for seconds), read in the
cron's IANA timezone (UTC without one), so `0 9 * * *` in Europe/Paris is 09:00 Paris time
on both sides of a daylight-saving change. Due times are returned in UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter
from croniter.croniter import CroniterError

from open_langgraph.errors import InvalidInput

#: Longer schedules are refused before croniter parses them.
MAX_SCHEDULE_LENGTH = 256


def check_timezone(name: str | None) -> ZoneInfo:
    """The zone an IANA name names (UTC for None).

    Raises:
        InvalidInput: not a timezone this machine's tz database knows.
    """
    if name is None:
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise InvalidInput(
            f"Invalid timezone: {name!r:.80}. Use an IANA timezone name (e.g. 'America/New_York')."
        ) from None


def check_schedule(schedule: str) -> None:
    """Refuse a schedule croniter cannot read, naming it.

    Raises:
        InvalidInput: empty, too long, or not cron syntax.
    """
    if not schedule.strip() or len(schedule) > MAX_SCHEDULE_LENGTH:
        raise InvalidInput(
            f"schedule must be a cron expression of at most {MAX_SCHEDULE_LENGTH} characters"
        )
    try:
        croniter(schedule, datetime(2000, 1, 1, tzinfo=UTC)).get_next(datetime)
    except (CroniterError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(f"Invalid cron schedule {schedule!r:.80}: {exc}") from None


def next_due(schedule: str, timezone: str | None, after: datetime) -> datetime:
    """The first time after `after` (exclusive) the schedule matches, in UTC."""
    local = after.astimezone(check_timezone(timezone))
    due: datetime = croniter(schedule, local).get_next(datetime)
    return due.astimezone(UTC)
