"""An answer that only names the section it came from is asked again, for the fact itself.

On the held-out everyday questions (issue 33, 2026-11-27) three of seven docs misses were
answers like "The store: Semantic search (source: docs/store.md#semantic-search)": the model
copied a search result's heading line, the passage holding the answer right below it. Such an
answer (its text, the source left out, is one of the headings the turn's searches showed) is
asked again once, told to give the name, number or command the question asks for, with that
section's text and the question quoted right before it answers: told only to answer again, the
model gave the same heading back (held-out run of 2026-11-27, 05:01 UTC).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from langchain_core.messages import AIMessage, BaseMessage

from graphs.react_agent.search_results import shown_results

ANSWER_THE_QUESTION = (
    "That names the section, not the answer. Answer the question itself with the exact name, "
    "number or command the passages give, then the source."
)
PASSAGE_LIMIT = 1500
"""Characters of the named section's passages quoted back to the model."""
_SOURCE = re.compile(r"\(?\bsource:\s*[^)\s]+\)?", re.IGNORECASE)


def _plain(text: str) -> str:
    words = re.findall(r"[a-z0-9_]+", text.lower())
    return " ".join(w for w in words if w not in {"the", "a", "an", "see", "in", "section"})


def _named(answer: AIMessage) -> str:
    """The answer as a heading would read, its source left out."""
    return _plain(_SOURCE.sub(" ", str(answer.content)))


def _shown_results(messages: Sequence[BaseMessage]) -> Iterator[tuple[set[str], str]]:
    """Each search result of the current turn: the ways its heading may be named (the whole
    path, each tail of it, each level), and its text."""
    for result in shown_results(messages):
        levels = result.title.split(": ")
        names = {_plain(": ".join(levels[i:])) for i in range(len(levels))}
        names |= {_plain(level) for level in levels}
        names.discard("")
        yield names, result.text


def shown_headings(messages: Sequence[BaseMessage]) -> set[str]:
    """Every heading (and each level of it) of the search results in the current turn."""
    return {name for names, _ in _shown_results(messages) for name in names}


def section_passages(answer: AIMessage, messages: Sequence[BaseMessage]) -> str:
    """The text the searches showed under the section `answer` names ("" if none)."""
    named = _named(answer)
    found = [text for names, text in _shown_results(messages) if named in names]
    return "\n\n".join(found)[:PASSAGE_LIMIT]


def ask_again_note(answer: AIMessage, messages: Sequence[BaseMessage], question: str) -> str:
    """The instruction for the second try: the section's own text, then the question, right
    before the model answers (the plain instruction alone got the same heading back)."""
    passages = section_passages(answer, messages)
    if not passages:
        return ANSWER_THE_QUESTION
    return f"{ANSWER_THE_QUESTION}\n\nThe section says:\n{passages}\n\nThe question: {question}"


def names_only_a_section(answer: AIMessage, messages: Sequence[BaseMessage]) -> bool:
    """Whether `answer` is nothing but a heading the turn's searches showed."""
    if answer.tool_calls or not isinstance(answer.content, str):
        return False
    text = _named(answer)
    return bool(text) and text in shown_headings(messages)
