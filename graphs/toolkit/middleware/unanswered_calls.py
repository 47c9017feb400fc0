"""Tool calls that never ran are answered, in the model's view, with the reason.

A run can stop between the model's tool call and the tool: a person ends a review, a client
cancels the run, a worker dies. The thread then holds a call with no result, and on the next
turn the model either waits for that result, repeats the call, or (OpenAI's API) the request
is refused outright ("tool_calls must be followed by tool messages"). The thread keeps what
really happened; only the request to the model gets an error result after each such call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, AnyMessage, ToolMessage

NEVER_RAN = (
    "This tool call never ran: the run stopped first (a person ended the review, or the run "
    "was cancelled). Do not assume it ran."
)


def answered(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """`messages` with a `NEVER_RAN` error result right after each tool call that has none."""
    results = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    shown: list[AnyMessage] = []
    for message in messages:
        shown.append(message)
        if isinstance(message, AIMessage):
            shown += [
                ToolMessage(NEVER_RAN, tool_call_id=c["id"], name=c["name"], status="error")
                for c in message.tool_calls
                if c["id"] and c["id"] not in results
            ]
    return shown


class UnansweredCalls(AgentMiddleware[Any, Any]):
    """Shows the model an error result for every earlier tool call that never ran."""

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        return handler(request.override(messages=answered(request.messages)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        return await handler(request.override(messages=answered(request.messages)))
