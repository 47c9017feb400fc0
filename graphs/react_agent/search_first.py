"""A question about this project is answered from its docs, never from the model's memory.

On the tuning questions of issue 33 the embedded model answered "which environment variable
names the model used when a graph names none?" without a call (a made-up `MODEL_NAME`) or with
a call to the clock; on the held-out set one docs question was lost to a clock call the same
way. A question that names the project or asks for one of its commands, variables, settings
or defaults therefore starts with a search on the person's own words when the model's first
move would be to answer, or to read the clock for a question that is not about time. Any
other first move (a search of its own, the calculator, the date sums) is the model's to make.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from open_langgraph.models.tool_use import called_a_tool, latest_question

SEARCH_TOOL = "search"
CLOCK_TOOL = "get_current_time"
CALCULATOR = "calculator"
DATE_TOOL = "date_calculator"
QUERY_LIMIT = 200
"""The search tool's `max_length` for a query."""

_PROJECT = re.compile(
    r"\b(?:open[ _-]?langgraph|olg|langgraph|environment\s+variables?|env\s+vars?|commands?|"
    r"cli|flags?|extras?|config(?:uration)?\s+(?:file|key)s?|settings?|endpoints?|routes?|"
    r"webshop|server|workers?|docs|documentation|packages?|install)\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b(?:time|today|tomorrow|yesterday|now|date|day|week|month|year|clock|hour|o'clock|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|zone)s?\b",
    re.IGNORECASE,
)


def is_project_question(question: str) -> bool:
    """Whether the question is about this project (its server, commands, settings, docs)."""
    return bool(_PROJECT.search(question))


def search_first(
    response: AIMessage, messages: Sequence[BaseMessage], tool_names: Sequence[str]
) -> AIMessage:
    """`response`, or a search on the question in its place (see the module's docstring)."""
    if SEARCH_TOOL not in tool_names or called_a_tool(messages):
        return response
    question = latest_question(messages).strip()
    if not question or not is_project_question(question):
        return response
    names = {call["name"] for call in response.tool_calls}
    reads_clock_only = names == {CLOCK_TOOL} and not _TIME.search(question)
    if names and not reads_clock_only:
        return response
    return forced_call(response, SEARCH_TOOL, {"query": question[:QUERY_LIMIT]})


def forced_call(response: AIMessage, name: str, args: dict[str, Any]) -> AIMessage:
    """One call to `name` in place of the model's `response` (its id kept)."""
    call = {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:24]}", "type": "tool_call"}
    return AIMessage(content="", tool_calls=[call], id=response.id)
