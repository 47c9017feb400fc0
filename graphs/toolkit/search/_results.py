"""How search results are shown to a model: numbered, each with the source to cite.

[1] The store: Semantic search (source: docs/store.md#semantic-search)
<passage>
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class ShownResult:
    """One result as the model sees it."""

    title: str
    source: str
    text: str


def format_results(results: Iterable[ShownResult]) -> str:
    """The tool's answer: the results numbered from 1, in order."""
    return "\n\n".join(
        f"[{number}] {result.title} (source: {result.source})\n{result.text}"
        for number, result in enumerate(results, start=1)
    )
