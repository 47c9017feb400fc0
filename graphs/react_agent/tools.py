"""The ReAct agent's tools: small, typed, one job each. To add one, write it and list it in
`_tools()`.

The argument schemas carry the meaning: an embedded model decodes each call under its tool's
JSON schema (docs/models.md), so a bounded string (`max_length`) is never cut off mid-call and
an `int` is always a number. Failures raise `ToolException`: the model gets the reason as the
tool's answer (status "error") and can try again, instead of the run failing.
"""

from __future__ import annotations

from typing import Annotated

from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, ToolException, tool
from pydantic import Field

from graphs.react_agent.context import Context
from graphs.toolkit.calculator import CalculatorError, evaluate
from graphs.toolkit.clock import ClockError, moment_in
from graphs.toolkit.python_sandbox import python_tool_if_available
from graphs.toolkit.search import SearchError, interleaved, search, shown
from graphs.toolkit.turns import latest_question


@tool("search")
def search_tool(
    query: Annotated[str, Field(description="What to look for.", min_length=1, max_length=200)],
    runtime: ToolRuntime[Context],
) -> str:
    """Search Open LangGraph's documentation (or the web, when Tavily is configured): the best
    passages, each with its source (file#section) to cite."""
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
        return f"No results for {query!r}."
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
        raise ToolException(f"calculator refused {expression!r}: {exc}") from exc


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
    """The current weekday, date, time and time zone; with days_from_today, that day's weekday
    and date."""
    try:
        return moment_in(timezone, days_from_today)
    except ClockError as exc:
        raise ToolException(str(exc)) from exc


def _tools() -> list[BaseTool]:
    tools: list[BaseTool] = [search_tool, calculator, get_current_time]
    python = python_tool_if_available()  # None, with one warning, without Node.js
    if python is not None:
        tools.append(python)
    for each in tools:
        each.handle_tool_error = True
    return tools


TOOLS: list[BaseTool] = _tools()
