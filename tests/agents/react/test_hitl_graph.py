"""The HITL ReAct agent: every tool call pauses for approve, edit, reject or respond, in the
request format of LangChain's `HumanInTheLoopMiddleware`, and a review ended from outside
leaves the thread idle."""

from __future__ import annotations

import importlib
import uuid
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.constants import END
from langgraph.pregel import Pregel
from langgraph.types import Command

from graphs.react_agent.graph import OUT_OF_STEPS_ANSWER
from graphs.react_agent.tools import TOOLS
from open_langgraph.models.tool_use import NEVER_RAN

from .conftest import ModelScript, ScriptedChatModel, tool_call

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
    assert pending.value["review_configs"][0]["allowed_decisions"] == [
        "approve",
        "edit",
        "reject",
        "respond",
    ]
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


async def test_an_answer_repeating_a_rejection_stands(script: ModelScript, agent: Pregel):
    """A person's rejection is no failed tool: an answer telling what the person decided is
    not sent back to be answered from the model's knowledge (`failed_tools`)."""
    script(
        tool_call("calculator", "c1", expression="6 * 7"),
        AIMessage("A person rejected the call to calculator: No arithmetic today."),
    )
    config = thread()
    await agent.ainvoke({"messages": [HumanMessage("calculate 6 * 7")]}, config)
    reject = {"type": "reject", "message": "No arithmetic today."}
    done = await agent.ainvoke(Command(resume=reject), config)
    assert done["messages"][-1].content == (
        "A person rejected the call to calculator: No arithmetic today."
    )


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
        "A person rejected the call to `search`: No searching today.",
        "error",
        "s1",
    )
    assert rejection.additional_kwargs["lc_data"] == {"decision": "reject"}
    assert model.seen[1][-1].content == rejection.content
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
        pending.value["error"]
        == "decisions[0].type must be one of ['approve', 'edit', 'reject', 'respond'], got 'maybe'"
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


def two_calls() -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[
            ToolCall(name="calculator", args={"expression": "6 * 7"}, id="c1", type="tool_call"),
            ToolCall(name="get_current_time", args={}, id="t1", type="tool_call"),
        ],
    )


async def test_the_request_is_the_one_the_middleware_sends(
    script: ModelScript, agent: Pregel
) -> None:
    """Clients written for `HumanInTheLoopMiddleware` see the same request from this agent as
    from a `create_agent` graph gating the same tools: same descriptions, one review config per
    call, all four decisions."""
    script(two_calls())
    paused = await agent.ainvoke(QUESTION, thread())
    middleware_agent = create_agent(
        ScriptedChatModel(responses=[two_calls()], seen=[], bound_tools=[]),
        TOOLS,
        middleware=[HumanInTheLoopMiddleware({t.name: True for t in TOOLS})],
        checkpointer=InMemorySaver(),
    )
    expected = await middleware_agent.ainvoke(QUESTION, thread())
    assert paused["__interrupt__"][0].value == expected["__interrupt__"][0].value


async def test_a_response_answers_for_the_tool_which_never_runs(
    script: ModelScript, agent: Pregel
) -> None:
    model = script(two_calls(), AIMessage("42, and it is noon."))
    config = thread()
    await agent.ainvoke(QUESTION, config)
    decisions = [{"type": "respond", "message": "42"}, {"type": "respond", "message": "Noon."}]
    done = await agent.ainvoke(Command(resume={"decisions": decisions}), config)

    answers = [m for m in done["messages"] if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.content, m.status) for m in answers] == [
        ("c1", "42", "success"),
        ("t1", "Noon.", "success"),
    ]
    assert answers[0].additional_kwargs["lc_data"] == {"decision": "respond"}
    # The model read the person's answers as the tools' results; no tool ran.
    assert model.seen[1][-2:] == answers
    assert done["messages"][-1].content == "42, and it is noon."


async def test_each_call_gets_its_own_decision_in_order(script: ModelScript, agent: Pregel) -> None:
    script(two_calls(), AIMessage("done"))
    config = thread()
    paused = await agent.ainvoke(QUESTION, config)
    assert [a["name"] for a in paused["__interrupt__"][0].value["action_requests"]] == [
        "calculator",
        "get_current_time",
    ]
    decisions = [{"type": "approve"}, {"type": "reject"}]
    done = await agent.ainvoke(Command(resume={"decisions": decisions}), config)

    results = {m.tool_call_id: m for m in done["messages"] if isinstance(m, ToolMessage)}
    assert (results["c1"].content, results["c1"].status) == ("42", "success")
    assert results["t1"].status == "error"
    assert results["t1"].content.startswith("A person rejected the call to `get_current_time`;")


@pytest.mark.parametrize(
    "resume",
    [
        pytest.param({"type": "respond", "message": "2"}, id="a single decision object"),
        pytest.param([{"type": "respond", "message": "2"}], id="a bare list of decisions"),
        pytest.param(
            {"decisions": [{"type": "edit", "editedAction": {"args": {"expression": "1+1"}}}]},
            id="the JS client's editedAction",
        ),
    ],
)
async def test_earlier_answer_shapes_still_resume(
    script: ModelScript, agent: Pregel, resume: Any
) -> None:
    script(tool_call("calculator", "c1", expression="1 + 1"), AIMessage("2"))
    config = thread()
    await agent.ainvoke(QUESTION, config)
    done = await agent.ainvoke(Command(resume=resume), config)
    assert "__interrupt__" not in done
    assert done["messages"][2].content == "2"
    assert done["messages"][-1].content == "2"


async def test_an_answer_keyed_by_interrupt_id_resumes(script: ModelScript, agent: Pregel) -> None:
    script(tool_call("calculator", "c1", expression="1 + 1"), AIMessage("2"))
    config = thread()
    [pending] = (await agent.ainvoke(QUESTION, config))["__interrupt__"]
    done = await agent.ainvoke(Command(resume={pending.id: {"type": "approve"}}), config)
    assert done["messages"][2].content == "2"


async def test_a_response_needs_a_message(script: ModelScript, agent: Pregel) -> None:
    script(tool_call("calculator", "c1", expression="1 + 1"))
    config = thread()
    await agent.ainvoke(QUESTION, config)
    again = await agent.ainvoke(Command(resume={"type": "respond", "message": " "}), config)
    assert again["__interrupt__"][0].value["error"] == (
        "decisions[0] (respond) needs a non-empty message: the tool's answer"
    )


async def test_ending_the_review_leaves_the_thread_idle_and_the_next_turn_valid(
    script: ModelScript, agent: Pregel
) -> None:
    """agent-inbox's end of a review: `update_state(None, as_node="__end__")`. The call never
    runs; the next question is answered, and the model is told the call never ran (a provider
    refuses a conversation with an unanswered call)."""
    model = script(tool_call("calculator", "c1", expression="1 + 1"), AIMessage("Hello."))
    config = thread()
    await agent.ainvoke(QUESTION, config)
    await agent.aupdate_state(config, None, as_node=END)
    state = await agent.aget_state(config)
    assert (state.next, state.interrupts) == ((), ())

    done = await agent.ainvoke({"messages": [HumanMessage("Hi again")]}, config)
    assert done["messages"][-1].content == "Hello."
    assert not any(isinstance(m, ToolMessage) for m in done["messages"])
    seen = model.seen[1]
    never_ran = seen[3]
    assert isinstance(never_ran, ToolMessage)
    assert (never_ran.tool_call_id, never_ran.content, never_ran.status) == (
        "c1",
        NEVER_RAN,
        "error",
    )
    assert [type(m).__name__ for m in seen[1:]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "HumanMessage",
    ]
