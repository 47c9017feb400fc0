"""Cron schedules: what is refused, and due times in a cron's timezone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from open_langgraph.errors import InvalidInput
from open_langgraph.services.cron_schedule import check_schedule, check_timezone, next_due
from open_langgraph.services.cron_scheduler import DEFAULT_POLL_SECONDS, poll_seconds_from_env


@pytest.mark.parametrize(
    "schedule",
    ["", "   ", "bad", "* * *", "61 * * * *", "* * 32 * *", "x" * 300, "* * * * * * * *"],
)
def test_bad_schedules_are_refused_with_a_reason(schedule: str):
    with pytest.raises(InvalidInput) as refused:
        check_schedule(schedule)
    assert refused.value.status_code == 422
    assert "schedule" in refused.value.detail


@pytest.mark.parametrize("name", ["Mars/Olympus", "../../etc/passwd", "", "UTC+5"])
def test_unknown_timezones_are_refused(name: str):
    with pytest.raises(InvalidInput):
        check_timezone(name)


def test_due_times_are_exclusive_and_in_utc():
    at = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    assert next_due("* * * * *", None, at) == datetime(2030, 1, 1, 12, 1, tzinfo=UTC)
    assert next_due("*/15 * * * *", "UTC", at) == datetime(2030, 1, 1, 12, 15, tzinfo=UTC)


def test_a_local_time_keeps_across_a_daylight_saving_change():
    # 09:00 in Paris is 08:00 UTC in winter (CET) and 07:00 UTC in summer (CEST); the change
    # is on 2030-03-31.
    before = next_due("0 9 * * *", "Europe/Paris", datetime(2030, 3, 30, 9, 0, tzinfo=UTC))
    after = next_due("0 9 * * *", "Europe/Paris", before)
    assert before == datetime(2030, 3, 31, 7, 0, tzinfo=UTC)
    assert after == datetime(2030, 4, 1, 7, 0, tzinfo=UTC)
    assert next_due("0 9 * * *", "Europe/Paris", datetime(2030, 1, 5, tzinfo=UTC)) == datetime(
        2030, 1, 5, 8, 0, tzinfo=UTC
    )


@pytest.mark.parametrize(
    ("raw", "seconds"), [(None, DEFAULT_POLL_SECONDS), ("", DEFAULT_POLL_SECONDS), ("0.5", 0.5)]
)
def test_the_poll_interval_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, raw: str | None, seconds: float
):
    if raw is None:
        monkeypatch.delenv("OLG_CRON_POLL_SECONDS", raising=False)
    else:
        monkeypatch.setenv("OLG_CRON_POLL_SECONDS", raw)
    assert poll_seconds_from_env() == seconds


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "nan", "inf", "3601"])
def test_a_bad_poll_interval_is_refused(monkeypatch: pytest.MonkeyPatch, raw: str):
    monkeypatch.setenv("OLG_CRON_POLL_SECONDS", raw)
    with pytest.raises(ValueError, match="OLG_CRON_POLL_SECONDS"):
        poll_seconds_from_env()
