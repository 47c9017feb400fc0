"""Keeping an Agent prompt inside the model's context window.

The prompt is the system message (task, plan, extracted data, latest snapshot) plus the
execution history. When it would not fit, history goes first, oldest first, a tool call always
together with its result (an orphaned result confuses models and is rejected by some APIs);
if it still does not fit, the snapshot is cut from its end. Token counts are estimated from
characters (about 3.5 per token for English text and YAML snapshots, measured on Qwen2.5's
tokenizer in docs/agents/web_agent.md) unless the model can count them itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

CHARS_PER_TOKEN = 3.5
PER_MESSAGE_TOKENS = 6  # role markers of a chat template
TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def message_tokens(messages: Sequence[BaseMessage], count: TokenCounter = estimate_tokens) -> int:
    total = 0
    for message in messages:
        total += PER_MESSAGE_TOKENS + count(str(message.content))
        for call in getattr(message, "tool_calls", None) or []:
            total += count(f"{call['name']} {call['args']}")
    return total


def _groups(history: Sequence[BaseMessage]) -> list[list[BaseMessage]]:
    """History cut into units that are dropped together: an AI call and its tool results."""
    groups: list[list[BaseMessage]] = []
    for message in history:
        if isinstance(message, ToolMessage) and groups and _has_call(groups[-1]):
            groups[-1].append(message)
        else:
            groups.append([message])
    return groups


def _has_call(group: list[BaseMessage]) -> bool:
    return isinstance(group[0], AIMessage) and bool(group[0].tool_calls)


def fit_history(
    system_tokens: int,
    history: Sequence[BaseMessage],
    budget: int,
    count: TokenCounter = estimate_tokens,
) -> tuple[list[BaseMessage], int]:
    """The newest part of `history` that fits next to `system_tokens`, and how many messages
    were dropped. The last group is always kept: it is what the model is answering."""
    groups = _groups(history)
    kept: list[list[BaseMessage]] = []
    used = system_tokens
    for group in reversed(groups):
        cost = message_tokens(group, count)
        if kept and used + cost > budget:
            break
        kept.append(group)
        used += cost
    kept.reverse()
    messages = [m for group in kept for m in group]
    # A tool result must not lead: drop results whose call was dropped.
    while messages and isinstance(messages[0], ToolMessage):
        messages.pop(0)
    return messages, len(history) - len(messages)


def cut_text(text: str, max_tokens: int, count: TokenCounter = estimate_tokens) -> str:
    """`text` cut at a line boundary to about `max_tokens`, saying that it was cut."""
    if count(text) <= max_tokens:
        return text
    limit = max(0, int(max_tokens * CHARS_PER_TOKEN))
    head = text[:limit]
    if "\n" in head:
        head = head[: head.rfind("\n")]
    return f"{head}\n[... page cut to fit the model's context ...]"
