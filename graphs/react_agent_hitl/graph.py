"""The ReAct agent with a review step before every tool call.

    START -> call_model -> (tool calls?) -> human_review -> tools -> call_model ... -> END
                                                        \\-> call_model (all rejected)

Approved and edited calls go to the tools node through `Send`, one per call, so rejected calls
and calls a person answered (`respond`) never run. The model's message is rewritten with the
edited arguments (same id, so `add_messages` replaces it): the conversation shows the calls that
actually ran. A review ended from outside (`update_state(None, as_node="__end__")`, or a run
whose command is `goto: "__end__"`) leaves the thread idle with the calls unanswered; the next
model turn is told they never ran (`make_call_model`).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, Send, interrupt

from graphs.react_agent.context import Context
from graphs.react_agent.graph import make_call_model, route_model_output
from graphs.react_agent.state import InputState, State
from graphs.react_agent.tools import TOOLS
from graphs.react_agent_hitl.review import ReviewError, parse_decisions, review_request

TOOL_NAMES = {t.name for t in TOOLS}


def human_review(state: State) -> Command[Any]:
    """Pause for a person's decisions on the last message's tool calls, then act on them."""
    message = state["messages"][-1]
    assert isinstance(message, AIMessage) and message.tool_calls
    calls = message.tool_calls
    error: str | None = None
    while True:
        # Each call to interrupt() in a node has its own resume slot, so a rejected answer
        # is kept and the next interrupt() asks again.
        answer = interrupt(review_request(calls, error))
        try:
            decisions = parse_decisions(answer, calls, TOOL_NAMES)
            break
        except ReviewError as exc:
            error = str(exc)

    to_run = [d.call for d in decisions if d.call is not None]
    answers = [d.answer for d in decisions if d.answer is not None]
    reviewed = message.model_copy(
        update={"tool_calls": [d.call or call for d, call in zip(decisions, calls, strict=True)]}
    )
    update = {"messages": [reviewed, *answers]}
    if not to_run:
        return Command(goto="call_model", update=update)
    sends = [
        Send("tools", {"__type": "tool_call_with_context", "tool_call": call, "state": state})
        for call in to_run
    ]
    return Command(goto=sends, update=update)


def route_to_review(state: State) -> str:
    """Tool calls go to a person first; a plain answer ends the run."""
    return "human_review" if route_model_output(state) == "tools" else END


builder = StateGraph(State, input_schema=InputState, context_schema=Context)
# A tool round is three steps here: review, tools, and the model again.
builder.add_node("call_model", make_call_model(TOOLS, steps_per_tool_round=3))
builder.add_node("human_review", human_review, destinations=("tools", "call_model"))
builder.add_node("tools", ToolNode(TOOLS))
builder.add_edge(START, "call_model")
builder.add_conditional_edges("call_model", route_to_review, ["human_review", END])
builder.add_edge("tools", "call_model")
graph = builder.compile(name="react_agent_hitl")
