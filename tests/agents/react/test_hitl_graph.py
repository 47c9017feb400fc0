"""The HITL ReAct agent: every tool call pauses for approve, edit or reject."""

from __future__ import annotations

import importlib
import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import Pregel
from langgraph.types import Command

from graphs.react_agent.graph import OUT_OF_STEPS_ANSWER

from .conftest import ModelScript, tool_call

hitl = importlib.import_module("graphs.react_agent_hitl.graph")
QUESTION = {"messages": [HumanMessage("What's 25 * 4 + 17?")]}


@pytest.fixture
def agent() -> Pregel:
    """The served graph's builder, compiled with a checkpointer as the server does."""
    return hitl.builder.compile(checkpointer=InMemorySaver())


def thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": str(uuid.uuid4())}}


async def test_a_tool_call_waits_for_review_then_runs_when_approved(
    script: ModelScript, agent: Pregel
) -> None:
    model = script(tool_call("calculator", "c1", expression="25 * 4 + 17"), AIMessage("117"))
    config = thread()
    paused = await agent.ainvoke(QUESTION, config)

    [pending] = paused["__interrupt__"]
    assert pending.value["action_requests"][0]["name"] == "calculator"
    assert pending.value["action_requests"][0]["args"] == {"expression": "25 * 4 + 17"}
    assert pending.value["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]
    assert not any(isinstance(m, ToolMessage) for m in paused["messages"])
    assert len(model.seen) == 1
    assert (await agent.aget_state(config)).next == ("human_review",)

    done = await agent.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    tool_message = done["messages"][2]
    assert isinstance(tool_message, ToolMessage) and tool_message.content == "117"
    assert done["messages"][-1].content == "117"
    assert model.seen[1][-1].content == "117"


async def test_edited_arguments_are_what_runs_and_what_the_conversation_shows(
    script: ModelScript, agent: Pregel
) -> None:
    script(tool_call("calculator", "c1", expression="25 * 4"), AIMessage("117"))
    config = thread()
    await agent.ainvoke(QUESTION, config)
    edit = {
        "type": "edit",
        "edited_action": {"name": "calculator", "args": {"expression": "25*4+17"}},
    }
    done = await agent.ainvoke(Command(resume={"decisions": [edit]}), config)

    call_message, tool_message = done["messages"][1], done["messages"][2]
    assert call_message.tool_calls[0]["args"] == {"expression": "25*4+17"}
    assert call_message.tool_calls[0]["id"] == "c1"
    assert (tool_message.content, tool_message.tool_call_id) == ("117", "c1")
    assert len(done["messages"]) == 4


async def test_a_rejected_call_never_runs_and_the_model_reads_why(
    script: ModelScript, agent: Pregel
) -> None:
    model = script(
        tool_call("search", "s1", query="secret plans"),
        AIMessage("Understood, I will not search."),
    )
    config = thread()
    await agent.ainvoke(QUESTION, config)
    reject = {"type": "reject", "message": "No searching today."}
    done = await agent.ainvoke(Command(resume=reject), config)

    rejection = done["messages"][2]
    assert isinstance(rejection, ToolMessage)
    assert (rejection.content, rejection.status, rejection.tool_call_id) == (
        "No searching today.",
        "error",
        "s1",
    )
    assert model.seen[1][-1].content == "No searching today."
    assert done["messages"][-1].content == "Understood, I will not search."
    assert [type(m).__name__ for m in done["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]


async def test_a_malformed_answer_asks_again_with_the_reason(
    script: ModelScript, agent: Pregel
) -> None:
    script(tool_call("calculator", "c1", expression="1 + 1"), AIMessage("2"))
    config = thread()
    await agent.ainvoke(QUESTION, config)

    again = await agent.ainvoke(Command(resume={"decisions": [{"type": "maybe"}]}), config)
    [pending] = again["__interrupt__"]
    assert (
        "decisions[0].type must be one of ['approve', 'edit', 'reject']" in pending.value["error"]
    )
    bad_edit = {"type": "edit", "edited_action": {"name": "rm_rf", "args": {}}}
    again = await agent.ainvoke(Command(resume=bad_edit), config)
    assert "'rm_rf' is not one of" in again["__interrupt__"][0].value["error"]

    done = await agent.ainvoke(Command(resume={"type": "approve"}), config)
    assert done["messages"][2].content == "2"
    assert done["messages"][-1].content == "2"


async def test_out_of_steps_counts_the_review_step(script: ModelScript, agent: Pregel) -> None:
    # Limit 4: the first model call has 3 steps left, too few for review, tools and the model.
    script(tool_call("get_current_time", "t0"))
    done = await agent.ainvoke(QUESTION, {**thread(), "recursion_limit": 4})
    assert "__interrupt__" not in done
    assert done["messages"][-1].content == OUT_OF_STEPS_ANSWER
