"""The search tool's output: written here for the model, read back here by the answer checks.

The model sees each result as a numbered heading with its source, then the passage:

    [1] The store: Semantic search (source: docs/store.md#semantic-search)
    <passage>

The checks that look back at what the turn's searches showed (`section_answers`,
`answer_checks`) read that same text, so the format lives in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from langchain_core.messages import BaseMessage, ToolMessage

from graphs.react_agent.search_first import SEARCH_TOOL
from open_langgraph.models.tool_use import current_turn

_RESULT = re.compile(
    r"^\[\d+\] (?P<title>.+?) \(source: (?P<source>[^)\s]+)\)\n(?P<text>.*?)(?=\n\n\[\d+\] |\Z)",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class ShownResult:
    """One result as the model saw it."""

    title: str
    source: str
    text: str


def format_results(results: Iterable[ShownResult]) -> str:
    """The tool's answer: the results numbered from 1, in order."""
    return "\n\n".join(
        f"[{number}] {result.title} (source: {result.source})\n{result.text}"
        for number, result in enumerate(results, start=1)
    )


def shown_results(messages: Sequence[BaseMessage]) -> Iterator[ShownResult]:
    """Every result the current turn's searches showed, in order."""
    for message in current_turn(messages):
        if not (isinstance(message, ToolMessage) and message.name == SEARCH_TOOL):
            continue
        for match in _RESULT.finditer(str(message.content)):
            yield ShownResult(match["title"], match["source"], match["text"].strip())
