"""A parent graph that delegates research to the ReAct agent as a subgraph.

    START -> research (runs graphs.react_agent as a subgraph) -> write_answer -> END

The writer may reword the researcher's answer but never recompute it: a rewording that names a
number the researcher's answer and the question do not is dropped for the researcher's own
words (the 1.5B writer once turned a calculator's 397.8 into 409.8).

The subgraph is invoked inside the `research` node, so its steps stream under the namespace
`research:<task id>` when a client asks for `stream_subgraphs=True`, and its messages (tool
calls and results) stay in its own checkpoint namespace instead of the user's conversation.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from graphs.react_agent import graph as react_agent
from graphs.react_agent.prompts import render_system_prompt
from graphs.subgraph_agent.context import Context
from graphs.subgraph_agent.prompts import NOTES_HEADING
from graphs.subgraph_agent.state import InputState, State
from graphs.toolkit.turns import latest_question
from open_langgraph.models import load_chat_model

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers_in(text: str) -> set[str]:
    """The numbers `text` writes, thousands separators dropped: `1,234.5` is `1234.5`."""
    return {n.replace(",", "").lstrip("0") or "0" for n in _NUMBER.findall(text)}


def conversation(messages: list[AnyMessage]) -> list[AnyMessage]:
    """The user's questions and the final answers so far, without tool traffic."""
    return [
        m
        for m in messages
        if isinstance(m, HumanMessage) or (isinstance(m, AIMessage) and not m.tool_calls)
    ]


async def research(
    state: State, runtime: Runtime[Context], config: RunnableConfig
) -> dict[str, Any]:
    """Hand the latest question, with the conversation for context, to the research subgraph."""
    settings = Context.resolve(runtime.context, config)
    question = latest_question(state["messages"])
    if not question.strip():
        raise ValueError("the subgraph agent needs a user message to research")
    result = await react_agent.ainvoke(
        {"messages": conversation(state["messages"])},
        config,
        context=settings.for_research(),
    )
    findings = result["messages"][-1].text if result.get("messages") else ""
    return {"question": question, "findings": findings}


async def write_answer(
    state: State, runtime: Runtime[Context], config: RunnableConfig
) -> dict[str, Any]:
    """Answer the user from the conversation and the researcher's findings."""
    settings = Context.resolve(runtime.context, config)
    system = (
        f"{render_system_prompt(settings.system_prompt)}\n\n"
        f"{NOTES_HEADING}\n{state.get('findings') or '(none)'}"
    )
    findings = state.get("findings") or ""
    model = load_chat_model(settings.model)
    reply = await model.ainvoke(
        [SystemMessage(content=system), *conversation(state["messages"])], config
    )
    given = numbers_in(findings) | numbers_in(state.get("question") or "")
    if findings.strip() and (not reply.text.strip() or not numbers_in(reply.text) <= given):
        return {"messages": [AIMessage(content=findings, id=reply.id)]}
    return {"messages": [AIMessage(content=reply.content, id=reply.id)]}


builder = StateGraph(State, input_schema=InputState, context_schema=Context)
builder.add_node("research", research)
builder.add_node("write_answer", write_answer)
builder.add_edge(START, "research")
builder.add_edge("research", "write_answer")
builder.add_edge("write_answer", END)
graph = builder.compile(name="subgraph_agent")
