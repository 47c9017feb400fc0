"""A tool call identical to one already made this turn is not run again.

A small model that does not find what it wants in a tool's result tends to ask for the same
call again, and again: the 1.5B embedded model searched "LangGraph" twelve times in one turn,
until the step limit ended the run with no answer. Same tool, same arguments, same turn means
the same result, so such a reply is not acted on: calls that are new go ahead alone, and when
every call repeats one, the model is shown a note and asked for its answer instead (an
embedded model keeps its tools described while it answers, so its prompt cache holds).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage

from graphs.toolkit.middleware._replies import answer_choice, last_reply
from graphs.toolkit.turns import earlier_result

ANSWER_FROM_EARLIER_RESULT = (
    "You already called {name} with these arguments in this turn, and its result is above. "
    "Do not call it again: answer the question now from the results you have."
)


class RepeatedCallGuard(AgentMiddleware[Any, Any]):
    """Drops tool calls already made this turn; asks for the answer when nothing is left."""

    def _checked(
        self, request: ModelRequest[Any], response: ModelResponse[Any]
    ) -> tuple[ModelResponse[Any], ModelRequest[Any] | None]:
        """The response with repeated calls dropped, or the request that asks for an answer."""
        reply = last_reply(response)
        if reply is None or not reply.tool_calls:
            return response, None
        fresh = [c for c in reply.tool_calls if earlier_result(request.messages, c) is None]
        if len(fresh) == len(reply.tool_calls):
            return response, None
        if fresh:
            kept = reply.model_copy(update={"tool_calls": fresh, "tool_call_chunks": []})
            return ModelResponse(result=[*response.result[:-1], kept]), None
        note = ANSWER_FROM_EARLIER_RESULT.format(name=reply.tool_calls[0]["name"])
        again = request.override(
            messages=[*request.messages, HumanMessage(note)], tool_choice=answer_choice(request)
        )
        return response, again

    def _answered(self, request: ModelRequest[Any], response: ModelResponse[Any]) -> Any:
        """The answer asked for; without any text, what the repeated call found."""
        reply = last_reply(response)
        if reply is not None and reply.text.strip() and not reply.tool_calls:
            return response
        found = request.messages[-1].text if request.messages else ""
        return ModelResponse(result=[AIMessage(content=f"Here is what I found: {found}")])

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        response, again = self._checked(request, handler(request))
        if again is None:
            return response
        return self._answered(request, handler(again))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        response, again = self._checked(request, await handler(request))
        if again is None:
            return response
        return self._answered(request, await handler(again))
