"""Keeping an Agent prompt inside the model's context window.

The prompt is the system message (rules, task, plan) and one message with the actions so far,
the extracted data and the latest snapshot. When it would not fit, older findings and older
actions are left out first; if it still does not fit, the snapshot is cut from its end. Token
counts are estimated from characters (about 3.5 per token for English text and YAML snapshots,
measured on Qwen2.5's tokenizer in docs/agents/web_agent.md) unless the model can count them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

CHARS_PER_TOKEN = 3.5
TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def cut_text(text: str, max_tokens: int, count: TokenCounter = estimate_tokens) -> str:
    """`text` cut at a line boundary to about `max_tokens`, saying that it was cut."""
    if count(text) <= max_tokens:
        return text
    limit = max(0, int(max_tokens * CHARS_PER_TOKEN))
    head = text[:limit]
    if "\n" in head:
        head = head[: head.rfind("\n")]
    return f"{head}\n[... page cut to fit the model's context ...]"
