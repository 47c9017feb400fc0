"""Turning LangChain messages into a chat-template request and a reply back into an AIMessage.

Tools are described in the system prompt in one model-neutral format rather than through each
template's native tool syntax: the grammar fixes the reply format anyway, and a single format
works for every GGUF template (SmolLM2's has no tool support at all). Tool results go back as
user turns for the same reason.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)

from open_langgraph.models.errors import ModelError
from open_langgraph.models.local.grammar import ToolChoiceMode


class TruncatedOutputError(ModelError):
    """A constrained reply hit `max_tokens` before its JSON was complete."""


def text_of(content: str | list[Any]) -> str:
    """The text parts of a message's content (images and other blocks are not supported)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def format_call(name: str, arguments: Mapping[str, Any]) -> str:
    """A tool call as the grammar spells it, used when replaying earlier calls to the model."""
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def tools_prompt(tools: Sequence[Mapping[str, Any]], mode: ToolChoiceMode) -> str:
    """System-prompt text describing the tools, in the Hermes layout Qwen2.5 was trained on."""
    specs = "\n".join(
        json.dumps({"type": "function", "function": dict(tool)}, ensure_ascii=False)
        for tool in tools
    )
    lines = [
        "# Tools",
        "",
        "You may call one of the following functions.",
        "",
        "You are provided with function signatures within <tools></tools> XML tags:",
        f"<tools>\n{specs}\n</tools>",
        "",
        "For a function call, return only a json object with function name and arguments:",
        '{"name": <function-name>, "arguments": <args-json-object>}',
    ]
    if mode == "auto":
        lines.append("If no function is needed, answer in plain text instead.")
    else:
        lines.append("Reply with exactly one function call now.")
    return "\n".join(lines)


def to_chat_messages(
    messages: Sequence[BaseMessage], system_extra: str | None = None
) -> list[dict[str, str]]:
    """OpenAI-style `{role, content}` dicts for the GGUF chat template.

    Args:
        messages: the conversation.
        system_extra: text appended to the first system message (one is added if none).
    """
    out: list[dict[str, str]] = []
    for message in messages:
        content = text_of(message.content)
        if isinstance(message, SystemMessage):
            out.append({"role": "system", "content": content})
        elif isinstance(message, HumanMessage):
            out.append({"role": "user", "content": content})
        elif isinstance(message, AIMessage):
            calls = [format_call(c["name"], c["args"]) for c in message.tool_calls]
            out.append({"role": "assistant", "content": "\n".join([content, *calls]).strip()})
        elif isinstance(message, ToolMessage):
            name = message.name or "tool"
            out.append({"role": "user", "content": f"Result of {name}: {content}"})
        elif isinstance(message, ChatMessage):
            out.append({"role": message.role, "content": content})
        else:
            raise TypeError(f"unsupported message type {type(message).__name__}")
    if system_extra:
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": f"{out[0]['content']}\n\n{system_extra}"}
        else:
            out.insert(0, {"role": "system", "content": system_extra})
    return out


def is_call_start(text: str) -> bool:
    """Whether a reply is a tool call; under the grammar a text answer never starts with `{`."""
    return text.startswith("{")


def parse_call(text: str, finish_reason: str, max_tokens: int) -> ToolCall:
    """The tool call spelled by a constrained reply.

    Raises:
        TruncatedOutputError: the reply stopped at `max_tokens` before the JSON was complete.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        if finish_reason == "length":
            raise TruncatedOutputError(
                f"the tool call was cut off at max_tokens={max_tokens}; raise max_tokens or "
                "bound string lengths (maxLength) in the tool schema"
            ) from None
        raise
    return ToolCall(name=data["name"], args=data["arguments"], id=f"call_{uuid.uuid4().hex[:24]}")
