"""The ReAct agent's tools: small, typed, one job each. To add one, write it and list it in
`_tools()`.

The argument schemas carry the meaning: an embedded model decodes each call under its tool's
JSON schema (docs/models.md), so a bounded string (`max_length`) is never cut off mid-call and
an `int` is always a number. Failures raise `ToolException`: the model gets the reason as the
tool's answer (status "error") and can try again, instead of the run failing.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, ToolException, tool
from pydantic import Field

from graphs.react_agent.context import Context
from graphs.toolkit.calculator import CalculatorError, NotArithmetic, evaluate
from graphs.toolkit.clock import ClockError, days_between, describe_day, moment_in
from graphs.toolkit.live_data import no_live_source
from graphs.toolkit.python_sandbox import python_tool_if_available
from graphs.toolkit.search import (
    SearchError,
    interleaved,
    search,
    shown,
    web_search_configured,
)
from graphs.toolkit.turns import latest_question


@tool("search")
def search_tool(
    query: Annotated[str, Field(description="What to look for.", min_length=1, max_length=200)],
    runtime: ToolRuntime[Context],
) -> str:
    """Search Open LangGraph's documentation: its olg commands and options, environment
    variables, exit codes, settings, models and agents (or the web, when Tavily is
    configured). The best passages, each with its source (file#section) to cite."""
    limit = Context.resolve(runtime.context, runtime.config).max_search_results
    # The person's own words beside the model's query: a small model's query drops the words
    # that find the answer ("by default", "seconds"); on the docs tuning questions its queries
    # found the answer in the top 3 for 4 of 8, both rankings taken in turn for 8 of 8.
    question = latest_question(runtime.state.get("messages", []))
    queries = [query] if len(question) > 500 else [question, query]
    try:
        rankings = [search(q, max_results=limit) for q in dict.fromkeys(q for q in queries if q)]
    except SearchError as exc:
        raise ToolException(f"search failed: {exc}") from exc
    results = interleaved(rankings, limit)
    if not results:
        if web_search_configured():
            return f"No results for {query!r}."
        return (
            f"Nothing in the documentation matches {query!r}. It covers Open LangGraph only: "
            "answer other questions from what you know."
        )
    return shown(results, " ".join(queries))


@tool("calculator")
def calculator(
    expression: Annotated[
        str,
        Field(
            description="Arithmetic as typed into a pocket calculator: 25 * 4 + 17, "
            "15% of 80, 2^10, sqrt(2), (1,200 - 300) / 4; units convert after `in`: "
            "2.5 kg * 4 in g, 3 weeks in hours, 100 F in C.",
            min_length=1,
            max_length=200,
        ),
    ],
) -> str:
    """Compute arithmetic exactly, with units. Put the whole calculation in one expression."""
    try:
        return evaluate(expression)
    except CalculatorError as exc:
        # The model also sends it words and code: say which tool does that work.
        other_work = isinstance(exc, NotArithmetic) and python_tool_if_available()
        elsewhere = " For anything but arithmetic, use python." if other_work else ""
        raise ToolException(f"calculator refused {expression!r}: {exc}.{elsewhere}") from exc


@tool("get_current_time")
def get_current_time(
    timezone: Annotated[
        str | None,
        Field(description="IANA time zone such as Europe/Lisbon; UTC if omitted.", max_length=64),
    ] = None,
    days_from_today: Annotated[
        int, Field(description="Another day: 1 tomorrow, -1 yesterday, 10 ten days from now.")
    ] = 0,
) -> str:
    """The current weekday, date, time and time zone; with days_from_today, the weekday and
    date of a day counted from today. For any other date use calendar_day."""
    try:
        return moment_in(timezone, days_from_today)
    except ClockError as exc:
        raise ToolException(str(exc)) from exc


@tool("calendar_day")
def calendar_day(
    year: Annotated[int, Field(description="The year, e.g. 1969 or 2031.")],
    month: Annotated[int, Field(description="1 for January ... 12 for December.", ge=1, le=12)],
    day: Annotated[int, Field(description="Day of the month.", ge=1, le=31)],
) -> str:
    """The weekday of any date, past or future."""
    try:
        return describe_day(year, month, day)
    except ClockError as exc:
        raise ToolException(str(exc)) from exc


@tool("days_between")
def days_between_tool(
    start: Annotated[date, Field(description="The first date, as YYYY-MM-DD.")],
    end: Annotated[date, Field(description="The second date, as YYYY-MM-DD.")],
) -> str:
    """The number of days (and weeks) from one date to another."""
    return days_between(start, end)


@tool("live_data")
def live_data(
    what: Annotated[
        str,
        Field(description="What you would look up, e.g. the EUR to USD rate.", max_length=120),
    ],
) -> str:
    """Current prices, stock quotes, exchange rates, weather, traffic, news, scores and charts:
    anything that changes from day to day."""
    return no_live_source(what)


def _invalid_arguments(error: Exception) -> str:
    """A call whose arguments miss the schema (a date not written as YYYY-MM-DD) is shown to
    the model as the reason, like a tool failure, rather than failing the run."""
    errors = getattr(error, "errors", None)
    if callable(errors):
        reasons = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in errors()
        )
        return f"invalid arguments: {reasons}"
    return f"invalid arguments: {error}"


def _tools() -> list[BaseTool]:
    tools: list[BaseTool] = [
        search_tool,
        calculator,
        get_current_time,
        calendar_day,
        days_between_tool,
    ]
    if not web_search_configured():  # with Tavily, search reaches live pages itself
        tools.append(live_data)
    python = python_tool_if_available()  # None, with one warning, without Node.js
    if python is not None:
        tools.append(python)
    for each in tools:
        each.handle_tool_error = True
        each.handle_validation_error = _invalid_arguments
    return tools


TOOLS: list[BaseTool] = _tools()
