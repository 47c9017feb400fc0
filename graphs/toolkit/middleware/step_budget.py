"""The model answers while the run still has room for an answer.

LangGraph ends a run that reaches its `recursion_limit` with `GraphRecursionError`: a model
that keeps calling tools (a small one does, when no result satisfies it) leaves the person
with a failed run and no answer. Each tool round costs `steps_per_round` steps (the tools, the
model again, and any review node between), so when another round would not fit, or the turn
already had `max_tool_rounds`, the model is asked for its answer instead of another call.
The steps left are read as LangGraph computes its `remaining_steps`: the run's limit less the
current step (the model node of `create_agent` is not handed managed values).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage
from langgraph.config import get_config

from graphs.toolkit.middleware._replies import answer_choice, last_reply
from graphs.toolkit.turns import current_turn

OUT_OF_STEPS_ANSWER = (
    "Sorry, I could not find an answer to your question in the specified number of steps."
)


def remaining_steps() -> int | None:
    """Steps the run may still take after this one (None outside a graph run)."""
    try:
        config = get_config()
    except RuntimeError:
        return None
    step = (config.get("metadata") or {}).get("langgraph_step")
    limit = config.get("recursion_limit")
    return limit - step if isinstance(step, int) and isinstance(limit, int) else None


class StepBudget(AgentMiddleware[Any, Any]):
    """Asks for the answer when another tool round would not fit the run's step limit."""

    def __init__(self, *, max_tool_rounds: int = 4, steps_per_round: int = 2) -> None:
        super().__init__()
        self.max_tool_rounds = max_tool_rounds
        self.steps_per_round = steps_per_round

    def _out_of_rounds(self, request: ModelRequest[Any]) -> bool:
        remaining = remaining_steps()
        rounds = sum(
            1 for m in current_turn(request.messages) if isinstance(m, AIMessage) and m.tool_calls
        )
        short = remaining is not None and remaining <= self.steps_per_round
        return short or rounds >= self.max_tool_rounds

    @staticmethod
    def _answer_only(response: ModelResponse[Any]) -> ModelResponse[Any]:
        """A reply that still calls a tool (a model that ignores `tool_choice`) is replaced."""
        reply = last_reply(response)
        if reply is not None and not reply.tool_calls and reply.text.strip():
            return response
        return ModelResponse(result=[AIMessage(content=OUT_OF_STEPS_ANSWER)])

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        if not self._out_of_rounds(request):
            return handler(request)
        return self._answer_only(handler(request.override(tool_choice=answer_choice(request))))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        if not self._out_of_rounds(request):
            return await handler(request)
        answer = await handler(request.override(tool_choice=answer_choice(request)))
        return self._answer_only(answer)
