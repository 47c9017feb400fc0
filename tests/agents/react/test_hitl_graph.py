"""The HITL ReAct agent: every tool call pauses for approve, edit, reject or respond, through
LangChain's `HumanInTheLoopMiddleware`, and a review ended from outside leaves the thread
ready for the next question."""

from __future__ import annotations

import importlib
import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import Pregel
from langgraph.types import Command

from graphs.toolkit.middleware.unanswered_calls import NEVER_RAN

from .conftest import ModelScript, tool_call

hitl = importlib.import_module("graphs.react_agent_hitl.graph")
QUESTION = {"messages": [HumanMessage("What's 25 * 4 + 17?")]}


@pytest.fixture
def agent() -> Pregel:
    """The served graph with a checkpointer, as the server gives it one."""
    return hitl.graph.copy(update={"checkpointer": InMemorySaver()})


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
    assert pending.value["review_configs"][0]["allowed_decisions"] == [
        "approve",
        "edit",
        "reject",
        "respond",
    ]
    assert not any(isinstance(m, ToolMessage) for m in paused["messages"])
    assert len(model.seen) == 1

    done = await agent.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    tool_message = done["messages"][2]
    assert isinstance(tool_message, ToolMessage) and tool_message.content == "117"
    assert done["messages"][-1].content == "117"
    assert model.seen[1][-1].content == "117"


async def test_edited_arguments_are_what_runs_and_the_model_is_told_so(
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

    # The middleware keeps the model's own call in the conversation and says in the result
    # which call ran instead, so the model does not issue its original call again.
    [result] = [m for m in done["messages"] if isinstance(m, ToolMessage)]
    assert result.tool_call_id == "c1"
    assert '{"expression": "25*4+17"}' in result.content
    assert result.content.endswith("\n117")
    assert done["messages"][-1].content == "117"


async def test_a_rejected_call_never_runs_and_the_model_reads_why(
    script: ModelScript, agent: Pregel, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []
    tools = importlib.import_module("graphs.react_agent.tools")
    monkeypatch.setattr(tools, "search", lambda query, max_results: ran.append(query) or [])
    model = script(
        tool_call("search", "s1", query="secret plans"),
        AIMessage("Understood, I will not search."),
    )
    config = thread()
    await agent.ainvoke(QUESTION, config)
    reject = {"type": "reject", "message": "No searching today."}
    done = await agent.ainvoke(Command(resume={"decisions": [reject]}), config)

    rejection = done["messages"][2]
    assert isinstance(rejection, ToolMessage)
    assert (rejection.status, rejection.tool_call_id) == ("error", "s1")
    assert "No searching today." in rejection.content
    assert ran == []
    assert model.seen[1][-1].content == rejection.content
    assert done["messages"][-1].content == "Understood, I will not search."


async def test_a_response_answers_for_the_tool_which_never_runs(
    script: ModelScript, agent: Pregel
) -> None:
    model = script(tool_call("calculator", "c1", expression="6 * 7"), AIMessage("It is 41."))
    config = thread()
    await agent.ainvoke(QUESTION, config)
    respond = {"type": "respond", "message": "41, trust me."}
    done = await agent.ainvoke(Command(resume={"decisions": [respond]}), config)

    answer = done["messages"][2]
    assert isinstance(answer, ToolMessage)
    assert (answer.content, answer.status) == ("41, trust me.", "success")
    assert model.seen[1][-1].content == "41, trust me."


async def test_each_call_gets_its_own_decision_in_order(script: ModelScript, agent: Pregel) -> None:
    both = AIMessage(
        "",
        tool_calls=[
            ToolCall(name="calculator", args={"expression": "1 + 1"}, id="a", type="tool_call"),
            ToolCall(name="calculator", args={"expression": "2 + 2"}, id="b", type="tool_call"),
        ],
    )
    script(both, AIMessage("2, and the second was rejected."))
    config = thread()
    paused = await agent.ainvoke(QUESTION, config)
    assert [r["args"] for r in paused["__interrupt__"][0].value["action_requests"]] == [
        {"expression": "1 + 1"},
        {"expression": "2 + 2"},
    ]
    decisions = [{"type": "approve"}, {"type": "reject", "message": "Only one."}]
    done = await agent.ainvoke(Command(resume={"decisions": decisions}), config)

    results = {m.tool_call_id: m for m in done["messages"] if isinstance(m, ToolMessage)}
    assert (results["a"].content, results["a"].status) == ("2", "success")
    assert results["b"].status == "error" and "Only one." in results["b"].content


async def test_ending_the_review_leaves_the_thread_ready_for_the_next_question(
    script: ModelScript, agent: Pregel
) -> None:
    model = script(tool_call("calculator", "c1", expression="6 * 7"), AIMessage("Hello again."))
    config = thread()
    await agent.ainvoke(QUESTION, config)
    await agent.aupdate_state(config, None, as_node="__end__")
    assert (await agent.aget_state(config)).next == ()

    done = await agent.ainvoke({"messages": [HumanMessage("Never mind. Hi!")]}, config)
    assert done["messages"][-1].content == "Hello again."
    shown = model.seen[1]
    never = [m for m in shown if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.content) for m in never] == [("c1", NEVER_RAN)]
