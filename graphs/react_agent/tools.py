"""The ReAct agent's tools. To add one, write a function here and append it to `TOOLS`.

Text arguments carry a `max_length`: embedded models decode tool calls under a grammar, and a
bounded string lets it size the call so it is never cut off (docs/models.md, "Budgets").
Failures are raised as `ToolException`, so the model gets the reason as the tool's answer
(status "error") instead of the run failing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from langchain_core.tools import BaseTool, ToolException, tool
from langgraph.prebuilt import ToolRuntime
from pydantic import Field

from graphs.react_agent.context import Context
from graphs.react_agent.search_results import ShownResult, format_results
from open_langgraph.envs.webshop.lucene import EnglishAnalyzer
from open_langgraph.models.tool_use import latest_question
from open_langgraph.tools import (
    CalculatorError,
    DateExpressionError,
    SearchError,
    calculate,
    date_calculate,
    search,
)
from open_langgraph.tools.calculator import format_result
from open_langgraph.tools.calculator_notes import calculator_notes
from open_langgraph.tools.letters import count_letters, reverse_letters
from open_langgraph.tools.passage_focus import focus_tables
from open_langgraph.tools.primes import read_primes
from open_langgraph.tools.search import interleaved, query_terms
from open_langgraph.tools.sequences import next_term
from open_langgraph.tools.sorting import sort_numbers
from open_langgraph.tools.temperature import convert_temperature


@tool("search")
def search_tool(
    query: Annotated[str, Field(description="What to look for.", min_length=1, max_length=200)],
    runtime: ToolRuntime[Context],
) -> str:
    """Search the knowledge base (or the web when configured): the best passages, each with
    its source (file#section) to cite."""
    settings = Context.resolve(runtime.context, runtime.config)
    limit = settings.max_search_results
    # The user's own words beside the model's query: a small model's query drops the words
    # that find the answer ("by default", "seconds"): on the tuning questions its queries
    # found the answer in the top 3 for 4 of 8, the questions for 8 of 8, both taken in turn
    # for 8 of 8 (docs/agents/react_agent.md).
    question = _searchable_question(runtime.state)
    try:
        rankings = [search(query, max_results=limit)]
        if question and question.strip().lower() != query.strip().lower():
            rankings.insert(0, search(question, max_results=limit))
    except SearchError as exc:
        raise ToolException(f"search failed: {exc}") from exc
    results = interleaved(rankings, limit)
    if not results:
        return f"No results for {query!r}."
    analyzer = _analyzer()
    terms = query_terms(f"{query} {question}" if question else query)
    shown = (
        ShownResult(
            result["title"], result["url"], focus_tables(result["content"], terms, analyzer)
        )
        for result in results
    )
    return format_results(shown)


def _searchable_question(state: object) -> str:
    """The person's latest question, to search for beside the model's query ("" without one,
    or beyond 500 characters: a long message is a document to work on, not a search)."""
    messages = state.get("messages", []) if isinstance(state, dict) else []
    text = latest_question(messages).strip()
    return text if len(text) <= 500 else ""


@cache
def _analyzer() -> EnglishAnalyzer:
    """The search's own stemming, so a table row matches the query as a passage does."""
    return EnglishAnalyzer()


@tool("calculator")
def calculator(
    expression: Annotated[
        str,
        Field(
            description="The arithmetic to compute, as you would type it into a pocket "
            "calculator, e.g. 25 * 4 + 17, 15% of 80, 20% off 150, 150 + 7%, sqrt(2), "
            "2^10, 3 squared, (1,200 - 300) / 4, 2.5 kg * 4 in g.",
            min_length=1,
            max_length=200,
        ),
    ],
    runtime: ToolRuntime[Context] = None,  # type: ignore[assignment]
) -> str:
    """Compute arithmetic exactly: + - * / ^, percentages (15% of 80, 20% off 150 is the
    price after the discount, the amount saved is 20% of 150; 150 + 7% adds 7% of 150), sqrt(),
    squared and cubed, and units: write each quantity with its unit as the question gives it
    (2.5 kg * 4 in g, 400 m / 80 s * 6 min, 3 weeks in hours) and it converts. Put the whole
    calculation in one expression and give its result as the answer."""
    try:
        read = (
            convert_temperature(expression)
            or sort_numbers(expression)
            or count_letters(expression)
            or reverse_letters(expression)
            or read_primes(expression)
            or next_term(expression)
        )
        if read is not None:
            return read
        value = calculate(expression)
    except (CalculatorError, ValueError) as exc:
        raise ToolException(f"calculator refused {expression!r}: {exc}") from exc
    question = _searchable_question(runtime.state) if runtime is not None else ""
    return format_result(value) + calculator_notes(expression, value, question)


@tool("get_current_time")
def get_current_time(
    timezone: Annotated[
        str | None,
        Field(description="IANA time zone such as Europe/Lisbon; UTC if omitted.", max_length=64),
    ] = None,
    days_from_today: Annotated[
        int,
        Field(
            description="For another day: 1 tomorrow, -1 yesterday, 10 ten days from now, "
            "-21 three weeks ago."
        ),
    ] = 0,
) -> str:
    """The current weekday, date, time and time zone; with days_from_today, that day's
    weekday and date."""
    try:
        zone = ZoneInfo(timezone) if timezone else UTC
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ToolException(f"unknown time zone {timezone!r}; use a name like Asia/Tokyo") from exc
    if abs(days_from_today) > 36600:  # a bound the call grammar cannot carry
        raise ToolException("days_from_today must be within a hundred years")
    now = datetime.now(tz=zone)
    answer = describe_moment(now, timezone or "UTC")
    if days_from_today:
        # The model repeated today's date for "in 10 days" (4 of 5 date misses): the tool
        # does the calendar arithmetic.
        day = (now + timedelta(days=days_from_today)).date()
        answer += f". {describe_offset(days_from_today)}: {day.strftime('%A')}, {day.isoformat()}"
    return answer


@tool("date_calculator")
def date_calculator(
    expression: Annotated[
        str,
        Field(
            description="One date sum, one of: today + N days, today - N weeks, today + N "
            "months, today - N years, YYYY-MM-DD + N days, weekday of YYYY-MM-DD, days "
            "between YYYY-MM-DD and YYYY-MM-DD, days in YYYY (N and the unit as the "
            "question says).",
            min_length=1,
            max_length=120,
        ),
    ],
) -> str:
    """Count with dates: the weekday of any date, the date some days, weeks, months or
    years before or after today or another date, and the days between two dates."""
    try:
        return date_calculate(expression)
    except DateExpressionError as exc:
        raise ToolException(f"date_calculator refused {expression!r}: {exc}") from exc


def describe_offset(days: int) -> str:
    names = {1: "Tomorrow", -1: "Yesterday"}
    if days in names:
        return names[days]
    return f"In {days} days" if days > 0 else f"{-days} days ago"


def describe_moment(moment: datetime, zone_name: str) -> str:
    """Spelled out, weekday first: a small model copies words from a tool's answer reliably,
    and could not derive "Thursday" from an ISO timestamp."""
    offset = moment.strftime("%z")
    return (
        f"{moment.strftime('%A')}, {moment.date().isoformat()}, "
        f"{moment.strftime('%H:%M:%S')} in {zone_name} (UTC{offset[:3]}:{offset[3:]})"
    )


for _tool in (search_tool, calculator, get_current_time, date_calculator):
    _tool.handle_tool_error = True

TOOLS: list[BaseTool] = [search_tool, calculator, get_current_time, date_calculator]
