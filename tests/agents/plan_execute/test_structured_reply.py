"""The tool-calling path of `ask_for_json`, as hosted and embedded models take it."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, HumanMessage

from graphs.plan_execute.plan_schema import StructuredReplyError, plan_wire_schema
from graphs.plan_execute.structured_reply import ask_for_json, supports_tool_calling


class ToolCallingFake(FakeMessagesListChatModel):
    """A scripted model that accepts bound tools, as every tool-calling chat model does."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
        return self


STEPS = [{"step_id": "step_1", "tool": "web_search", "input": "Seoul"}]


def test_the_schema_is_filled_through_a_forced_tool_call() -> None:
    call = {"name": "submit_plan", "args": {"steps": STEPS}, "id": "call_1"}
    model = ToolCallingFake(responses=[AIMessage(content="", tool_calls=[call])])

    assert supports_tool_calling(model)
    value = ask_for_json(model, [HumanMessage("plan")], plan_wire_schema(["web_search"]), "planner")
    assert value == {"steps": STEPS}


def test_a_reply_without_the_tool_call_is_refused() -> None:
    model = ToolCallingFake(responses=[AIMessage(content="I would search for Seoul.")])

    with pytest.raises(StructuredReplyError) as error:
        ask_for_json(model, [HumanMessage("plan")], plan_wire_schema(["web_search"]), "planner")
    assert str(error.value) == (
        "the planner reply is not valid JSON for its schema: I would search for Seoul."
    )


def test_models_without_tool_calling_are_asked_for_text() -> None:
    assert not supports_tool_calling(FakeMessagesListChatModel(responses=[]))
