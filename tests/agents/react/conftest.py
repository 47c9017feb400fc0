"""A scripted chat model standing in for the LLM in graph tests of the ReAct agent family."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolCall
from langchain_core.outputs import ChatResult

# Each package exports its compiled `graph`, which hides the `graph` module of the same name.
MODEL_USERS = [
    importlib.import_module("graphs.react_agent.graph"),
    importlib.import_module("graphs.subgraph_agent.graph"),
]


class ScriptedChatModel(FakeMessagesListChatModel):
    """Replies with `responses` in order and records what each call was shown.

    `bind_tools` records the tools and returns the same model, as a tool-calling model would.
    Running out of replies fails the test instead of wrapping around.
    """

    seen: list[list[BaseMessage]] = []
    bound_tools: list[list[str]] = []

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        self.bound_tools.append([getattr(t, "name", str(t)) for t in tools])
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if len(self.seen) >= len(self.responses):
            raise AssertionError(f"model called {len(self.seen) + 1} times; script has fewer")
        self.seen.append(list(messages))
        self.i = len(self.seen) - 1
        return super()._generate(messages, stop, run_manager, **kwargs)


def tool_call(name: str, call_id: str, **args: Any) -> AIMessage:
    """A model reply asking for one tool call."""
    return AIMessage(
        content="", tool_calls=[ToolCall(name=name, args=args, id=call_id, type="tool_call")]
    )


class ModelScript:
    """Installs a `ScriptedChatModel` as the agents' model loader and records requested names."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.model: ScriptedChatModel | None = None
        self.requested: list[str | None] = []

    def __call__(self, *responses: BaseMessage) -> ScriptedChatModel:
        self.model = ScriptedChatModel(responses=list(responses), seen=[], bound_tools=[])

        def load(name: str | None = None, **_: Any) -> ScriptedChatModel:
            self.requested.append(name)
            assert self.model is not None
            return self.model

        for module in MODEL_USERS:
            self.monkeypatch.setattr(module, "load_chat_model", load)
        return self.model


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelScript]:
    """`script(reply, reply, ...)` makes the agents' model answer with those replies."""
    for name in ("MODEL", "SYSTEM_PROMPT", "MAX_SEARCH_RESULTS", "TAVILY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    yield ModelScript(monkeypatch)
