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
from open_langgraph.models.local.grammar import ANSWER_PREFIX, FINAL_ANSWER, ToolChoiceMode


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


ANSWER_SPEC: dict[str, Any] = {
    "name": FINAL_ANSWER,
    "description": "Give the user your answer: from the results above, or from your own "
    "knowledge for general questions, explanations, and text or code the user asks you to "
    "write. To compute something exactly or look something up, call the function that does it "
    "first. Never tell the user to use a function.",
    "parameters": {
        "type": "object",
        "properties": {"answer": {"type": "string", "description": "the answer, in plain text"}},
        "required": ["answer"],
    },
}
"""How the "auto" grammar's answer is described to the model: as one more function."""


def tools_prompt(tools: Sequence[Mapping[str, Any]], mode: ToolChoiceMode) -> str:
    """System-prompt text describing the tools, in the Hermes layout Qwen2.5 was trained on.

    With `mode="auto"` the answer is offered as the function `final_answer` (see
    `grammar.tool_call_grammar`), so every reply is one function call.
    """
    listed = [*tools, ANSWER_SPEC] if mode == "auto" else list(tools)
    specs = "\n".join(
        json.dumps({"type": "function", "function": dict(tool)}, ensure_ascii=False)
        for tool in listed
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
        lines.append(f"Reply with exactly one function call; to answer, call {FINAL_ANSWER}.")
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
    """Whether a reply is a tool call (or, under the "auto" grammar, an answer spelled as one)."""
    return text.startswith("{")


def answer_text(text: str) -> str | None:
    """The answer of an "auto" reply that called `final_answer`, else None (a tool call).

    A reply cut off by `max_tokens` keeps the text written so far.
    """
    if not text.startswith(ANSWER_PREFIX):
        return None
    return AnswerStream().feed(text)


class AnswerStream:
    """Turns the pieces of an "auto" reply into answer text as it is decoded.

    Pieces are buffered until the reply either starts with `ANSWER_PREFIX` (from then on each
    piece yields the answer text it completes, JSON escapes decoded) or cannot (a tool call:
    `is_answer` becomes False and the caller keeps buffering the call).
    """

    def __init__(self) -> None:
        self._raw = ""
        self._sent = 0
        self.is_answer: bool | None = None

    def feed(self, piece: str) -> str:
        """Add a piece; returns the answer text it completes ("" while undecided or a call)."""
        self._raw += piece
        if self.is_answer is None:
            if self._raw.startswith(ANSWER_PREFIX):
                self.is_answer = True
            elif not ANSWER_PREFIX.startswith(self._raw):
                self.is_answer = False
        if not self.is_answer:
            return ""
        body = self._raw[len(ANSWER_PREFIX) :]
        if body.endswith('"}}'):
            body = body[:-3]
        text = _decode_prefix(body)
        new, self._sent = text[self._sent :], max(self._sent, len(text))
        return new


def _decode_prefix(body: str) -> str:
    """The JSON string body decoded as far as it is complete: an escape whose tail has not
    arrived yet (a trailing backslash, a short `\\u12`) waits for the next piece."""
    while True:
        try:
            return str(json.loads(f'"{body}"'))
        except json.JSONDecodeError:
            cut = body.rfind("\\")
            if cut == -1:
                return ""
            body = body[:cut]


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
