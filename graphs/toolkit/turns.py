"""Reading a conversation by turns: what the person asked last, and what the agent did since.

A turn starts at a person's message; the agent's tool calls and results after it belong to
that turn. Middleware and tools that must not repeat work, or that search with the person's
own words, read the conversation through these.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage


def current_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages after the last human message: what the agent did for this question."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return list(messages[index + 1 :])
    return list(messages)


def latest_question(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message: what the person asks now ("" without one)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text
    return ""


def call_key(name: str, args: Any) -> str:
    """Identity of a tool call: its name plus its arguments, key order ignored."""
    return f"{name}:{json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)}"


def earlier_result(messages: Sequence[BaseMessage], call: ToolCall) -> ToolMessage | None:
    """The result of an identical call made earlier in the current turn, if there was one."""
    turn = current_turn(messages)
    wanted = call_key(call["name"], call["args"])
    ids = {
        c["id"]
        for m in turn
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if call_key(c["name"], c["args"]) == wanted
    }
    for message in turn:
        if isinstance(message, ToolMessage) and message.tool_call_id in ids:
            return message
    return None
