"""The ReAct loop: the model answers or asks for tools; tools run; the model sees their results.

START -> call_model -> (tool calls?) -> tools -> call_model ... -> END

The model's turn goes through `open_langgraph.models.tool_use.decide_turn`, which never runs
an identical call twice in one turn and never lets an answer tell the user to use a tool, then
`first_move`, which starts a question whose form names its tool with that tool (a question
about this project with a search of the docs, a named date's weekday with the date sums, a
conversion with the calculator); an answer to a project question that cannot be right (a
heading, a flag for a variable, a needless calculation) is asked again once (`answer_checks`),
and so is an answer that only repeats a failed tool (`failed_tools`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from graphs.react_agent.answer_checks import quoted_answer, review_note
from graphs.react_agent.context import Context
from graphs.react_agent.failed_tools import echoed_failure_note
from graphs.react_agent.first_moves import first_move
from graphs.react_agent.prompts import render_system_prompt
from graphs.react_agent.state import InputState, State
from graphs.react_agent.tools import TOOLS
from open_langgraph.models import load_chat_model
from open_langgraph.models.tool_use import (
    answer_unanswered_calls,
    answer_with_note,
    decide_turn,
    marked_if_cut,
)

OUT_OF_STEPS_ANSWER = (
    "Sorry, I could not find an answer to your question in the specified number of steps."
)

ModelNode = Callable[[State, Runtime[Context], RunnableConfig], Awaitable[dict[str, Any]]]


def out_of_steps(state: State, steps_per_tool_round: int) -> bool:
    """Whether a tool call now would hit the recursion limit before the model sees its result.

    A tool call needs `steps_per_tool_round` more steps (the tools, then the model again; the
    HITL agent adds a review step). `is_last_step` alone covers only a limit of matching parity:
    with the other parity the tools would still fit but the model's next turn would not.
    """
    return state["is_last_step"] or state["remaining_steps"] <= steps_per_tool_round


def make_call_model(tools: Sequence[BaseTool], *, steps_per_tool_round: int = 2) -> ModelNode:
    """The model node for an agent whose tool calls take `steps_per_tool_round` more steps."""

    async def call_model(
        state: State, runtime: Runtime[Context], config: RunnableConfig
    ) -> dict[str, Any]:
        settings = Context.resolve(runtime.context, config)
        model = load_chat_model(settings.model)
        system = SystemMessage(content=render_system_prompt(settings.system_prompt))
        messages = answer_unanswered_calls(state["messages"])
        prompt = [system, *messages]
        response = await decide_turn(model, prompt, tools, config)
        response = first_move(response, messages, [tool.name for tool in tools])
        note = review_note(response, messages) or echoed_failure_note(response, messages)
        if note is not None:
            again = await answer_with_note(model, tools, prompt, note, config)
            if again.text.strip():
                response = marked_if_cut(again)
            if review_note(response, messages) is not None:
                quoted = quoted_answer(messages)
                if quoted is not None:
                    response = AIMessage(content=quoted, id=response.id)
        if response.tool_calls and out_of_steps(state, steps_per_tool_round):
            return {"messages": [AIMessage(content=OUT_OF_STEPS_ANSWER, id=response.id)]}
        return {"messages": [response]}

    return call_model


def route_model_output(state: State) -> Literal["tools", "__end__"]:
    """To the tools when the model asked for any, else the run is done."""
    last = state["messages"][-1]
    if isinstance(last, AIMessage) and last.tool_calls:
        return "tools"
    return END


builder = StateGraph(State, input_schema=InputState, context_schema=Context)
builder.add_node("call_model", make_call_model(TOOLS))
builder.add_node("tools", ToolNode(TOOLS))
builder.add_edge(START, "call_model")
builder.add_conditional_edges("call_model", route_model_output, ["tools", END])
builder.add_edge("tools", "call_model")
graph = builder.compile(name="react_agent")
