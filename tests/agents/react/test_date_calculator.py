"""The date calculator: weekdays of any date, dates moved by days to years, days between two
dates, in the words a small model writes; bad input refused with a way to write it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.react_agent import graph
from graphs.react_agent import tools as react_tools
from open_langgraph.tools import DateExpressionError, date_calculate

from .conftest import ModelScript, tool_call

TODAY = date(2026, 11, 26)  # a Thursday


@pytest.mark.parametrize(
    ("expression", "answer_starts"),
    [
        ("2000-01-01", "Saturday, 1 January 2000 (2000-01-01)"),
        ("What day of the week was 1 January 2000?", "Saturday, 1 January 2000"),
        ("weekday of July 4, 1976", "Sunday, 4 July 1976"),
        ("29 Feb 2024", "Thursday, 29 February 2024"),
        # What the embedded model wrote: the description's remark copied, a trailing "weekday".
        ("25 December 2030 (its weekday)", "Wednesday, 25 December 2030"),
        ("2030-12-25 day of the week", "Wednesday, 25 December 2030"),
        ("2030-12-25's weekday", "Wednesday, 25 December 2030"),
        ("march 3", "Tuesday, 3 March 2026"),  # the year left out is this year
        ("12/25/2026", "Friday, 25 December 2026"),
        ("today", "Thursday, 26 November 2026"),
        ("yesterday", "Wednesday, 25 November 2026"),
        ("today - 30 days", "Tuesday, 27 October 2026 (2026-10-27), 30 days before today"),
        ("30 days ago", "Tuesday, 27 October 2026"),
        ("in 2 weeks", "Thursday, 10 December 2026"),
        ("the date 100 days from today", "Saturday, 6 March 2027"),
        ("today - 25 years", "Monday, 26 November 2001"),
        ("today + a decade", "Wednesday, 26 November 2036"),
        ("3 months from now", "Friday, 26 February 2027"),
        (
            "45 days after 2026-03-01",
            "Wednesday, 15 April 2026 (2026-04-15), 45 days after 2026-03-01",
        ),
        ("6 weeks before 1 March 2026", "Sunday, 18 January 2026"),
        ("1 March 2026 + 6 weeks", "Sunday, 12 April 2026"),
        (
            "today + 1 year - 2 days",
            "Wednesday, 24 November 2027 (2027-11-24), today + 1 year - 2 days",
        ),
    ],
)
def test_a_date_and_its_weekday_come_first(expression: str, answer_starts: str) -> None:
    assert date_calculate(expression, today=TODAY).startswith(answer_starts)


@pytest.mark.parametrize(
    ("start", "months", "expected"),
    [
        (date(2024, 1, 31), 1, date(2024, 2, 29)),  # leap year: the month's last day
        (date(2025, 1, 31), 1, date(2025, 2, 28)),
        (date(2024, 2, 29), 12, date(2025, 2, 28)),
        (date(2026, 3, 31), -1, date(2026, 2, 28)),
        (date(2026, 12, 15), 1, date(2027, 1, 15)),
        (date(2026, 1, 15), -13, date(2024, 12, 15)),
    ],
)
def test_months_keep_the_day_or_take_the_months_last(
    start: date, months: int, expected: date
) -> None:
    sign = "+" if months > 0 else "-"
    answer = date_calculate(f"{start.isoformat()} {sign} {abs(months)} months", today=TODAY)
    assert f"({expected.isoformat()})" in answer.split(":")[0]


@pytest.mark.parametrize(
    "expression",
    [
        "days between 2026-03-01 and 2026-04-15",
        "from 1 March 2026 to 15 April 2026",
        "number of days between April 15, 2026 and March 1, 2026",  # either order
        "2026-04-15 - 2026-03-01",
    ],
)
def test_days_between_two_dates(expression: str) -> None:
    answer = date_calculate(expression, today=TODAY)
    assert answer.startswith("45 days (6 weeks and 3 days) from Sunday, 1 March 2026")
    assert "46 if both the first and the last day are counted" in answer


def test_days_until_and_since_count_from_today() -> None:
    assert date_calculate("days until 2026-12-25", today=TODAY).startswith("29 days")
    since = date_calculate("days since 2000-01-01", today=TODAY)
    assert since.startswith(f"{(TODAY - date(2000, 1, 1)).days:,} days")


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("", "write one date expression"),
        ("the weather", "no date in"),
        ("2026-02-30", "is not a date"),
        ("1/2/2026", "write it as YYYY-MM-DD"),
        ("today + 5 hours", "use the calculator"),
        ("today + 3 bananas", "cannot read"),
        ("9999-12-31 + 1 day", "outside the years 1 to 9999"),
        ("today + 99999999999999999999 days", "outside the years 1 to 9999"),
        ("0001-01-01 - 1 year", "outside the years 1 to 9999"),
        ("x" * 300, "longer than"),
        ("today + N days", "replace N and YYYY-MM-DD"),  # the description's template as is
        ("weekday of YYYY-MM-DD", "replace N and YYYY-MM-DD"),
    ],
)
def test_refuses_with_a_way_to_write_it(expression: str, reason: str) -> None:
    with pytest.raises(DateExpressionError, match=reason):
        date_calculate(expression, today=TODAY)


def test_a_moved_date_does_not_end_with_the_start_date() -> None:
    """The model answered with the last date the tool's answer named (today's)."""
    answer = date_calculate("today + 3 weeks", today=TODAY)
    assert answer == "Thursday, 17 December 2026 (2026-12-17), 21 days after today"
    assert "26 November" not in answer


def test_the_tool_uses_todays_date_and_answers_a_refusal_as_an_error() -> None:
    today = datetime.now(tz=UTC).date()
    back = today - timedelta(days=30)
    assert react_tools.date_calculator.invoke({"expression": "today - 30 days"}).startswith(
        f"{back.strftime('%A')}, {back.day} {back.strftime('%B')} {back.year}"
    )
    refused = react_tools.date_calculator.invoke({"expression": "the weather"})
    assert refused.startswith("date_calculator refused 'the weather': no date in")


async def test_the_agent_answers_from_the_date_calculator(script: ModelScript) -> None:
    """A scripted model's call reaches the tool through the graph and the result comes back to
    it as the tool's answer."""
    model = script(
        tool_call("date_calculator", "d1", expression="2000-01-01"),
        AIMessage("It was a Saturday."),
    )
    question = {"messages": [HumanMessage("What day of the week was 1 January 2000?")]}
    result = await graph.ainvoke(question)
    tool_message = result["messages"][2]
    assert isinstance(tool_message, ToolMessage)
    assert tool_message.content == "Saturday, 1 January 2000 (2000-01-01)"
    assert "date_calculator" in model.seen[0][0].content  # the prompt says what it does


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("days in 2024", "366 days in 2024 (a leap year)"),
        ("days in 1900", "365 days in 1900 (not a leap year)"),  # a century not divisible by 400
        ("days in 2000", "366 days in 2000 (a leap year)"),
        ("How many days are in February 2028?", "29 days in February 2028"),
        ("days in feb 2027", "28 days in February 2027"),
        ("How many days are there in a leap year?", "366 days in a leap year"),
        ("days in a common year", "365 days in a common year"),
    ],
)
def test_the_days_in_a_year_or_month(expression: str, answer: str) -> None:
    assert date_calculate(expression) == answer


def test_an_impossible_date_is_refused_with_its_months_length() -> None:
    with pytest.raises(DateExpressionError, match="February 2025 has 28 days"):
        date_calculate("days between 2024-02-29 and 2025-02-29")


def test_dates_named_in_a_question() -> None:
    from open_langgraph.tools.dates import dates_named_in

    assert dates_named_in("What day of the week was 1 January 2000?") == ["1 January 2000"]
    assert dates_named_in("From July 14, 1989 to 2000-01-01?") == ["July 14, 1989", "2000-01-01"]
    assert dates_named_in("What happens on 5 May?") == []  # no year: not a date to compute with
