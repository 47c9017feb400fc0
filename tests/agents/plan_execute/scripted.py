"""Helpers for driving the agent with a scripted fake model and watching what it does."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph.state import CompiledStateGraph


class LLMCalls(BaseCallbackHandler):
    """Records the messages of every chat-model call made during a run (nested ones too)."""

    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.prompts.append(list(messages[0]))

    def __len__(self) -> int:
        return len(self.prompts)


def scripted_model(*replies: str | dict[str, Any] | list[Any]) -> FakeMessagesListChatModel:
    """A fake model answering with `replies` in order; dicts and lists are sent as JSON text."""
    return FakeMessagesListChatModel(
        responses=[
            AIMessage(content=r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
            for r in replies
        ]
    )


REPLANNER_OPENING = "A step of the plan failed. You revise the plan."


class StuckReplanner(FakeMessagesListChatModel):
    """Scripted replies, except that every re-plan request gets `replan`: a small model that
    proposes the call it was just shown failing, however often it is asked."""

    replan: str

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if messages and messages[0].text.startswith(REPLANNER_OPENING):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(self.replan))])
        return super()._generate(messages, stop, run_manager, **kwargs)


def stuck_replanner(
    replan: list[Any], *replies: str | dict[str, Any] | list[Any]
) -> StuckReplanner:
    """`scripted_model(*replies)` for every call but the re-plans, which all get `replan`."""
    return StuckReplanner(
        responses=scripted_model(*replies).responses, replan=json.dumps(replan, ensure_ascii=False)
    )


def intent(kind: str, query: str, needs_tool: bool) -> dict[str, Any]:
    return {"intent": kind, "rewritten_query": query, "needs_tool": needs_tool}


@dataclass
class Turn:
    route: list[str]
    """Node names in the order they ran."""
    state: dict[str, Any]
    calls: LLMCalls


def run_turn(
    graph: CompiledStateGraph,
    graph_input: dict[str, Any],
    thread_id: str | None = None,
    context: dict[str, Any] | None = None,
) -> Turn:
    """One run on a thread of a graph compiled with a checkpointer (a new thread by default)."""
    calls = LLMCalls()
    config: dict[str, Any] = {
        "callbacks": [calls],
        "configurable": {"thread_id": thread_id or str(uuid.uuid4())},
    }
    route: list[str] = []
    for update in graph.stream(graph_input, config, context=context or {}, stream_mode="updates"):
        route.extend(update)
    return Turn(route=route, state=graph.get_state(config).values, calls=calls)
