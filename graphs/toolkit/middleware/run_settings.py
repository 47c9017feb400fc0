"""Each run's own chat model and system prompt, chosen when the model is called.

`create_agent` takes one model when the graph is built, but a served graph is built once and
then runs for many clients, each of which may name its model and prompt in the run's
`context` (or `configurable`). This middleware asks the agent's `choose` function for both at
every model call and hands the request on with them, so one compiled graph serves every
model; `ModelChosenPerRun` stands in for the model at build time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult

Choice = tuple[BaseChatModel, str]
"""The run's chat model and its system prompt."""


class RunSettings(AgentMiddleware[Any, Any]):
    """Calls the model the run's settings name, with the run's system prompt."""

    def __init__(self, choose: Callable[[ModelRequest[Any]], Choice]) -> None:
        super().__init__()
        self._choose = choose

    def _chosen(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        model, prompt = self._choose(request)
        return request.override(model=model, system_message=SystemMessage(prompt))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        return handler(self._chosen(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        return await handler(self._chosen(request))


class ModelChosenPerRun(BaseChatModel):
    """The build-time model of an agent whose `RunSettings` picks the real one per run.

    Building a real model at import would load a hosted client (and want its API key) or name
    an embedded model before any run said which it wants.
    """

    @property
    def _llm_type(self) -> str:
        return "chosen-per-run"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise RuntimeError("no model chosen: add RunSettings to the agent's middleware")
