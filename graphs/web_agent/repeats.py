"""What the web agent does not do twice: ask about what the task already says, or repeat an
action it already took in the same plan step.

The 1.5B model asked three clarifying questions about WebShop instructions that named the
product, its options and its price, and repeated identical browser actions until the step cap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from open_langgraph.models.tool_use import call_key

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "buy",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "get",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "should",
        "so",
        "that",
        "the",
        "this",
        "to",
        "want",
        "what",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
        "like",
        "prefer",
        "need",
        "any",
        "there",
        "much",
        "many",
    ]
)
#: A question is about the task's own words when this share of its content words is in the task.
ALREADY_GIVEN_SHARE = 0.5
#: Tools whose repetition within a step is normal (looking again, moving to the next step).
REPEATABLE = frozenset({"browser_snapshot", "think", "browser_navigate_back", "browser_wait_for"})


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def asks_something_new(
    question: str, task: str, clarifications: Sequence[Mapping[str, str]]
) -> bool:
    """Whether a clarifying question is worth asking: it is not empty, not asked before, and
    not mostly about words the task (or an earlier answer) already contains."""
    words = _content_words(question)
    if not words:
        return False
    if any(c.get("question", "").strip() == question.strip() for c in clarifications):
        return False
    known = _content_words(" ".join([task, *(c.get("answer", "") for c in clarifications)]))
    return len(words & known) / len(words) < ALREADY_GIVEN_SHARE


def repeated_action(
    history: Sequence[Mapping[str, Any]], step: int, tool: str, args: Mapping[str, Any]
) -> str | None:
    """The result of the same successful action (tool and arguments) in this plan step, if
    one was taken, else None."""
    if tool in REPEATABLE:
        return None
    wanted = call_key(tool, dict(args))
    for record in reversed(history):
        if record.get("step") != step:
            break
        if record.get("ok") and call_key(record["tool"], record.get("args") or {}) == wanted:
            return str(record.get("result") or "done")
    return None
