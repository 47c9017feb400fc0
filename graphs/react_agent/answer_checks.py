"""Answers to a question about this project that cannot be right, asked again once.

After its search, the embedded model sometimes answers what the passages do not say:

- **The wrong kind of thing**: asked for an environment variable it gave the flag one cell
  before it (`--log-level`), asked for a port or a default it gave a sentence with no number;
  asked for a variable or a package, it made one up. A question that asks for an environment
  variable, a package, a command or a number gets an answer that names one (a variable or
  package the passages show); otherwise the model is asked again with the passages' lines that
  hold one.
- **A calculation nobody asked for**: asked how many seconds a lease lasts, it multiplied the
  passage's number by 3600; asked for an environment variable, it multiplied 10 by itself
  until its call was full (held-out and tuning questions of issue 33). A question with no
  number in it, about this project, after a search, needs no calculator: instead of the call,
  the model is asked for its answer from the passages.
- **A section's heading for the fact** (`section_answers`).

Each is one more answer without tools, so a turn can never loop on them. When that second
answer cannot be right either, the answer is the passages' best lines, quoted with their
sources (`quoted_answer`): the fact in the docs' words rather than a second miss.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from graphs.react_agent.search_first import CALCULATOR, SEARCH_TOOL, is_project_question
from graphs.react_agent.search_results import shown_results
from graphs.react_agent.section_answers import ask_again_note, names_only_a_section
from open_langgraph.models.tool_use import current_turn, latest_question

CANDIDATE_LINES = 5
"""Lines of the passages quoted back when an answer lacks what the question asks for."""
QUOTED_LINES = 2
"""Lines quoted as the answer when the second answer cannot be right either."""
NO_CALCULATION = (
    "The question has no numbers to compute with: answer it from the passages above, with "
    "the exact name, number or command they give, then the source."
)


@dataclass(frozen=True)
class Wanted:
    """A kind of thing a question asks for, and how it looks when an answer names one."""

    kind: str
    asked: re.Pattern[str]
    looks: re.Pattern[str]
    shown: bool = False
    """Whether the one named must be one the passages show: a variable's name is exact, and
    the model made one up (`MODEL_NAME`) beside passages that gave `OLG_MODEL`."""


WANTED = (
    Wanted(
        "an environment variable (a name in capitals with underscores)",
        re.compile(r"\b(?:environment|env)\s+var(?:iable)?s?\b", re.IGNORECASE),
        re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b"),
        shown=True,
    ),
    Wanted(
        "a package name",
        re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:pypi|pip|python|npm)\s+package\b", re.I),
        re.compile(r"\b[a-z0-9]+(?:[-_.][a-z0-9]+)+\b"),
        shown=True,
    ),
    Wanted(
        "a command",
        re.compile(r"\b(?:which|what)\s+(?:\w+\s+){0,2}commands?\b", re.IGNORECASE),
        re.compile(r"`[^`\n]{2,}`|\b(?:olg|pip|uv|docker|npm|npx|python|kubectl|curl)\s+\S"),
    ),
    Wanted(
        "a number",
        re.compile(
            r"\bhow\s+(?:many|much|long|often)\b|\bwhat\s+(?:\w+\s+)?(?:port|number|timeout)\b"
            r"|\bdefault\s+value\b|\bon\s+which\s+port\b",
            re.IGNORECASE,
        ),
        re.compile(r"\d"),
    ),
)


def review_note(response: AIMessage, messages: Sequence[BaseMessage]) -> str | None:
    """The instruction to answer again with, when `response` cannot be the answer; else None."""
    if names_only_a_section(response, messages):
        return ask_again_note(response, messages, latest_question(messages))
    question = latest_question(messages)
    if not _searched(messages) or not is_project_question(question):
        return None
    if needless_calculation(response, question):
        return NO_CALCULATION
    if response.tool_calls or not isinstance(response.content, str):
        return None
    lines = _passage_lines(messages)
    wanted = missing(question, response.content, "\n".join(line.text for line in lines))
    if wanted is None:
        return None
    return _missing_note(wanted, question, lines)


def needless_calculation(response: AIMessage, question: str) -> bool:
    """Whether `response` calls the calculator for a question with no number in it."""
    calls = {call["name"] for call in response.tool_calls}
    return CALCULATOR in calls and not re.search(r"\d", question)


def missing(question: str, answer: str, passages: str) -> Wanted | None:
    """What the question asks for that `answer` does not name (the first such), else None."""
    for wanted in WANTED:
        if not wanted.asked.search(question):
            continue
        named = wanted.looks.findall(answer)
        if wanted.shown:
            named = [name for name in named if name in passages]
        if not named:
            return wanted
    return None


def _missing_note(wanted: Wanted, question: str, lines: list[Line]) -> str:
    head = f"The question asks for {wanted.kind}; your answer names none the passages give."
    holding = best_lines(question, lines, wanted)
    if not holding:
        return f"{head} Answer with the exact one the passages give, then the source."
    quoted = "\n".join(line.text for line in holding)
    return (
        f"{head} These lines of the passages have one:\n{quoted}\n\nThe question: {question}\n"
        "Answer with the one that answers the question, then the source."
    )


def quoted_answer(messages: Sequence[BaseMessage]) -> str | None:
    """The passages' lines that best answer the question, quoted with their sources: the
    answer when the model, asked again, still gave a heading or the wrong kind of thing. A
    quoted line holds the fact; a second wrong sentence would not."""
    question = latest_question(messages)
    lines = _passage_lines(messages)
    wanted = next((w for w in WANTED if w.asked.search(question)), None)
    best = best_lines(question, lines, wanted, limit=QUOTED_LINES)
    if not best:
        return None
    quoted = "\n".join(f"> {line.text} (source: {line.source})" for line in best)
    return f"The docs say:\n{quoted}"


@dataclass(frozen=True)
class Line:
    """One line a search showed, and the source of its passage."""

    text: str
    source: str


def best_lines(
    question: str, lines: Sequence[Line], wanted: Wanted | None, limit: int = CANDIDATE_LINES
) -> list[Line]:
    """The lines sharing the most words with the question (holding what it asks for, when it
    asks for a kind of thing), best first; none that shares no word."""
    terms = _words(question)
    scored = [
        (len(terms & _words(line.text)), index, line)
        for index, line in enumerate(lines)
        if wanted is None or wanted.looks.search(line.text)
    ]
    scored = [item for item in scored if item[0] > 0]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [line for _, _, line in scored[:limit]]


def _searched(messages: Sequence[BaseMessage]) -> bool:
    return any(isinstance(m, ToolMessage) and m.name == SEARCH_TOOL for m in current_turn(messages))


def _passage_lines(messages: Sequence[BaseMessage]) -> list[Line]:
    """The non-empty lines the turn's searches showed, in order, without repeats."""
    seen: dict[str, Line] = {}
    for result in shown_results(messages):
        for raw in result.text.splitlines():
            line = raw.strip()[:400]
            if line:
                seen.setdefault(line, Line(line, result.source))
    return list(seen.values())


_STOP = {"the", "a", "an", "of", "is", "which", "what", "how", "does", "do", "by", "to", "in"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP and len(w) > 2}
