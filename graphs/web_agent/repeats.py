"""What the web agent does not do twice: ask about what the task already says, or repeat an
action it already took on the same page.

The 1.5B model asked three clarifying questions about WebShop instructions that named the
product, its options and its price, and repeated identical browser actions until the step cap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from graphs.toolkit.turns import call_key

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
#: Tools whose repetition on a page is normal (waiting, going back, stopping).
REPEATABLE = frozenset({"browser_snapshot", "browser_navigate_back", "browser_wait_for", "finish"})


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


def action_key(tool: str, args: Mapping[str, Any], label: str | None) -> str:
    """What makes two actions the same: the tool, and its arguments with the element named by
    what it is (`link "Buy Now"`) when known rather than by its ref, which changes with every
    reload of a page (`f4e13`, `f5e13`, ...); the free `element` description is left out."""
    same = {k: v for k, v in args.items() if k != "element"}
    if label and "target" in same:
        same["target"] = label
    return call_key(tool, same)


def repeated_action(
    history: Sequence[Mapping[str, Any]],
    page: str,
    tool: str,
    args: Mapping[str, Any],
    label: str | None = None,
) -> Mapping[str, Any] | None:
    """The record of the same action taken earlier on the same page (URL), whether it worked
    or failed, else None.

    Keyed by page rather than by time: going back to a page to do the same thing again is the
    loop to stop. A failed action is not retried as it was either: the 1.5B model clicked a ref
    of an earlier page three times running, each time told the ref was not on the page."""
    if tool in REPEATABLE:
        return None
    wanted = action_key(tool, args, label)
    for record in reversed(history):
        # Opening an address opened before is a repeat from any page: after buying, the 1.5B
        # model reopened the shop's start page (which starts a WebShop session afresh).
        anywhere = tool == "browser_navigate" and record.get("ok")
        if (anywhere or record.get("page", "") == page) and wanted == action_key(
            record["tool"], record.get("args") or {}, record.get("label")
        ):
            return record
    return None
