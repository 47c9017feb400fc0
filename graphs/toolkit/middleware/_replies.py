"""What the middleware that make a model answer share: the reply a response carries, and the
`tool_choice` that asks a model for an answer."""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import ModelRequest, ModelResponse
from langchain_core.messages import AIMessage


def last_reply(response: ModelResponse[Any]) -> AIMessage | None:
    """The model's message in `response` (its last), or None."""
    reply = response.result[-1] if response.result else None
    return reply if isinstance(reply, AIMessage) else None


def answer_choice(request: ModelRequest[Any]) -> str:
    """The `tool_choice` that makes the model answer: an embedded model's own, which keeps the
    tools in its prompt, else "none"."""
    choice = getattr(type(request.model), "answer_choice", None)
    return choice if isinstance(choice, str) else "none"
