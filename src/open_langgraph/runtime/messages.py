"""The `messages` stream mode: LLM tokens re-assembled into whole messages as they grow.

LangGraph streams `(message_or_chunk, metadata)` pairs. LangGraph Platform turns them into
three events, which chat UIs rely on: `messages/metadata` the first time a message id is seen,
then `messages/partial` with everything received so far for a streamed message, or
`messages/complete` for a message that arrived whole (a tool result, a non-streaming model).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.messages import (
    BaseMessage,
    BaseMessageChunk,
    convert_to_messages,
    message_chunk_to_message,
)


class MessageAssembler:
    """Accumulates the chunks of each message id seen during one run."""

    __slots__ = ("_messages",)

    def __init__(self) -> None:
        self._messages: dict[str | None, BaseMessage] = {}

    def feed(self, message: Any, metadata: dict[str, Any]) -> Iterator[tuple[str, Any]]:
        """The API events for one streamed pair, as `(event name, payload)`."""
        if isinstance(message, dict):
            message = convert_to_messages([message])[0]
        seen = self._messages.get(message.id)
        if seen is None:
            self._messages[message.id] = message
            yield "messages/metadata", {message.id: {"metadata": metadata}}
        elif isinstance(seen, BaseMessageChunk) and isinstance(message, BaseMessageChunk):
            self._messages[message.id] = seen + message
        else:
            self._messages[message.id] = message
        whole = message_chunk_to_message(self._messages[message.id])  # type: ignore[arg-type]
        name = "messages/partial" if isinstance(message, BaseMessageChunk) else "messages/complete"
        yield name, [whole]
