"""The clock tools: today's moment, and the weekday of any date."""

from __future__ import annotations

from datetime import date

import pytest

from graphs.react_agent.tools import calendar_day, days_between_tool
from graphs.toolkit.clock import ClockError, days_between, describe_day


def test_the_weekday_of_a_date_past_or_future() -> None:
    today = date(2026, 12, 2)
    assert describe_day(1969, 7, 20, today=today) == "1969-07-20 was a Sunday."
    assert describe_day(2026, 12, 25, today=today) == "2026-12-25 is a Friday."
    assert describe_day(2026, 12, 2, today=today) == "2026-12-02 is a Wednesday."


@pytest.mark.parametrize(("year", "month", "day"), [(2025, 2, 29), (2026, 4, 31), (0, 1, 1)])
def test_a_date_that_does_not_exist_is_refused(year: int, month: int, day: int) -> None:
    with pytest.raises(ClockError, match="no such date"):
        describe_day(year, month, day)


def test_the_tool_types_its_arguments_and_reports_a_bad_date_to_the_model() -> None:
    schema = calendar_day.tool_call_schema.model_json_schema()
    assert schema["properties"]["month"]["maximum"] == 12
    assert schema["properties"]["year"]["type"] == "integer"
    assert (
        calendar_day.invoke({"year": 2024, "month": 2, "day": 29}) == "2024-02-29 was a Thursday."
    )
    refused = calendar_day.invoke({"year": 2023, "month": 2, "day": 29})
    assert "no such date 2023-02-29" in refused


def test_the_days_between_two_dates_in_either_order() -> None:
    spring = date(2025, 3, 1), date(2025, 6, 15)
    assert (
        days_between(*spring) == "From 2025-03-01 to 2025-06-15 is 106 days (15 weeks and 1 day)."
    )
    assert days_between(*reversed(spring)) == days_between(*spring)
    assert days_between(date(2024, 2, 28), date(2024, 3, 1)) == (
        "From 2024-02-28 to 2024-03-01 is 2 days."
    )


def test_a_date_not_written_as_iso_is_explained_to_the_model() -> None:
    told = days_between_tool.invoke({"start": "1 March 2025", "end": "2025-06-15"})
    assert told.startswith("invalid arguments: start:")
    assert days_between_tool.invoke({"start": "2000-01-01", "end": "2000-12-31"}).startswith(
        "From 2000-01-01 to 2000-12-31 is 365 days"
    )
