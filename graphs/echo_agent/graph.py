"""The echo agent: replies to the last human message with its text."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph

from graphs.echo_agent.state import State


def reply(state: State) -> dict[str, list[AIMessage]]:
    last_human = next((m for m in reversed(state["messages"]) if isinstance(m, HumanMessage)), None)
    text = last_human.text if last_human is not None else ""
    return {"messages": [AIMessage(content=f"You said: {text}")]}


builder = StateGraph(State)
builder.add_node("reply", reply)
builder.add_edge(START, "reply")
builder.add_edge("reply", END)
graph = builder.compile(name="echo_agent")
