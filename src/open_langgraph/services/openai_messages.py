"""Translating between OpenAI's chat-completions JSON and LangChain messages.

The embedded `LocalChatModel` speaks LangChain messages; the `/v1` endpoint speaks OpenAI's
JSON. Requests become messages (a tool result gets its tool's name from the call it answers,
which OpenAI's `tool` messages leave out), and replies become `chat.completion` bodies and
`chat.completion.chunk` deltas spelled as OpenAI spells them, so the stock clients parse them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from open_langgraph.services.openai_models import OpenAIError
from open_langgraph.services.openai_types import Message


def _text(content: str | list[dict[str, Any]] | None) -> str:
    """The text of a message's content; image and audio parts are refused rather than
    silently dropped, since the embedded models would answer without having seen them."""
    if content is None or isinstance(content, str):
        return content or ""
    parts: list[str] = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            parts.append(str(part.get("text", "")))
        elif kind != "refusal":
            raise OpenAIError(
                400,
                f"content parts of type {kind!r} are not supported: the embedded models read text",
                param="messages",
            )
    return "".join(parts)


def to_langchain(messages: list[Message]) -> list[BaseMessage]:
    """The conversation as LangChain messages.

    Raises:
        OpenAIError: 400 for a tool call whose `arguments` are not a JSON object.
    """
    out: list[BaseMessage] = []
    call_names: dict[str, str] = {}
    for index, message in enumerate(messages):
        text = _text(message.content)
        if message.role in ("system", "developer"):
            out.append(SystemMessage(content=text))
        elif message.role == "user":
            out.append(HumanMessage(content=text))
        elif message.role == "assistant":
            calls = []
            for call in message.tool_calls or []:
                try:
                    args = json.loads(call.function.arguments or "{}")
                except json.JSONDecodeError:
                    args = None
                if not isinstance(args, dict):
                    raise OpenAIError(
                        400,
                        f"messages[{index}].tool_calls: arguments of {call.id!r} are not a "
                        "JSON object",
                        param="messages",
                    )
                call_names[call.id] = call.function.name
                calls.append({"name": call.function.name, "args": args, "id": call.id})
            out.append(AIMessage(content=text, tool_calls=calls))
        else:  # "tool", or the legacy "function" role
            call_id = message.tool_call_id or ""
            name = message.name or call_names.get(call_id) or "tool"
            out.append(ToolMessage(content=text, tool_call_id=call_id, name=name))
    return out


def usage(message: AIMessage) -> dict[str, Any]:
    """OpenAI's `usage`; `cached_tokens` is the prompt prefix llama.cpp re-used."""
    meta: Mapping[str, Any] = message.usage_metadata or {}
    prompt = int(meta.get("input_tokens") or 0)
    completion = int(meta.get("output_tokens") or 0)
    cached = int((meta.get("input_token_details") or {}).get("cache_read") or 0)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def _tool_calls(message: AIMessage) -> list[dict[str, Any]]:
    return [
        {
            "id": call["id"],
            "type": "function",
            "function": {
                "name": call["name"],
                "arguments": json.dumps(call["args"], ensure_ascii=False),
            },
        }
        for call in message.tool_calls
    ]


def finish_reason(message: AIMessage) -> str:
    """`tool_calls` for a call, else llama.cpp's own (`stop` or `length`)."""
    if message.tool_calls or getattr(message, "tool_call_chunks", None):
        return "tool_calls"
    reason = str(message.response_metadata.get("finish_reason") or "stop")
    return reason if reason in ("stop", "length") else "stop"


def completion_body(
    message: AIMessage, *, completion_id: str, created: int, model: str
) -> dict[str, Any]:
    """A whole `chat.completion` object for a non-streamed reply."""
    calls = _tool_calls(message)
    reply: dict[str, Any] = {
        "role": "assistant",
        "content": None if calls else message.text,
        "refusal": None,
    }
    if calls:
        reply["tool_calls"] = calls
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": reply,
                "logprobs": None,
                "finish_reason": finish_reason(message),
            }
        ],
        "usage": usage(message),
    }


def chunk_delta(chunk: AIMessageChunk) -> dict[str, Any] | None:
    """The `delta` of a streamed piece, or None when it carries nothing to send."""
    delta: dict[str, Any] = {}
    if chunk.text:
        delta["content"] = chunk.text
    calls = [
        {
            "index": i,
            "id": part.get("id"),
            "type": "function",
            "function": {"name": part.get("name"), "arguments": part.get("args") or ""},
        }
        for i, part in enumerate(chunk.tool_call_chunks)
    ]
    if calls:
        delta["tool_calls"] = calls
    return delta or None
