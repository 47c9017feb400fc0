"""Model calls as JSON: the messages a model was given and what it answered, in the one shape
the evaluation recorder and the run trace both store."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """A message as JSON: its type, text and tool calls (ids left out: they are random)."""
    data: dict[str, Any] = {"type": message.type, "content": message.content}
    calls = getattr(message, "tool_calls", None)
    if calls:
        data["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in calls]
    return data


def message_from_dict(data: dict[str, Any]) -> AIMessage:
    calls = [
        {"name": c["name"], "args": c["args"], "id": f"replay_{i}", "type": "tool_call"}
        for i, c in enumerate(data.get("tool_calls") or [])
    ]
    return AIMessage(content=data.get("content") or "", tool_calls=calls)


def call_request(messages: list[BaseMessage], params: dict[str, Any]) -> dict[str, Any]:
    """A model call's input as recorded: the messages plus the bound tools and choice."""
    tools = params.get("tools") or []
    names = []
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        names.append(fn.get("name", str(tool)))
    return {
        "messages": [message_to_dict(m) for m in messages],
        "tools": names,
        "tool_choice": params.get("tool_choice"),
    }


def token_usage(message: Any) -> dict[str, int]:
    """A reply's tokens: `input`, `output`, and `cached` (prompt tokens the model re-used
    instead of reading them again; 0 for models that do not say)."""
    usage = getattr(message, "usage_metadata", None) or {}
    details = usage.get("input_token_details") or {}
    return {
        "input": int(usage.get("input_tokens") or 0),
        "output": int(usage.get("output_tokens") or 0),
        "cached": int(details.get("cache_read") or 0),
    }
