"""An answer that only repeats a tool's failure, asked again once from the model's knowledge.

Asked for the chemical symbol of gold, the embedded model searched the project's documents,
found nothing and answered "No results for 'chemical symbol for gold'."; asked to sort five
numbers it called the calculator, which refused, and answered "The input is not an arithmetic
expression." Both are facts the model knows. When the turn's last tool failed (an error, or a
search with no results) and the answer is made of that failure's words, the model is asked
once more, without tools, to answer from what it knows. Questions about this project are left
alone: there the docs are the only source, and "no results" is the honest answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from graphs.react_agent.search_first import is_project_question
from open_langgraph.models.tool_use import latest_question

ANSWER_YOURSELF = (
    "The tool could not help with this ({failure}). Answer the question yourself, from what "
    "you know, briefly and plainly; do not mention tools or searches."
)
_ECHO_SHARE = 0.6
"""The share of the answer's words found in the failure above which the answer repeats it."""


_FILLER = frozenset({"the", "a", "an", "is", "are", "was", "of", "to", "in", "for", "it", "this"})


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _FILLER]


def failure_of(message: BaseMessage) -> str | None:
    """The failure a tool result reports (an error, or a search that found nothing), else
    None."""
    if not isinstance(message, ToolMessage) or not isinstance(message.content, str):
        return None
    if message.additional_kwargs.get("lc_source"):
        # Put there by the harness, not by a tool (a person's rejection of the call, in the
        # HITL agent): the answer should say what the person decided.
        return None
    text = message.content.strip()
    if message.status == "error" or text.startswith("No results for"):
        return text
    return None


def echoed_failure_note(response: AIMessage, messages: Sequence[BaseMessage]) -> str | None:
    """The instruction to answer again with, when `response` only repeats the failure of the
    tool that ran last; else None."""
    if response.tool_calls or not isinstance(response.content, str) or not messages:
        return None
    failure = failure_of(messages[-1])
    if failure is None or is_project_question(latest_question(messages)):
        return None
    answer = _words(response.content)
    if not answer:
        return None
    said = set(_words(failure))
    if sum(word in said for word in answer) / len(answer) < _ECHO_SHARE:
        return None
    return ANSWER_YOURSELF.format(failure=failure[:200])
