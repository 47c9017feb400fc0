"""The benchmark's graph: two nodes that each add 1, so a correct run always ends at count == 2.

It is deliberately trivial so that the benchmark measures the HTTP API, queueing and
persistence overhead of each server rather than the graph's own work.
"""

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    """The only state: a counter the two nodes increment."""

    count: int


def a(state: State) -> State:
    """First step: add 1."""
    return {"count": state["count"] + 1}


def b(state: State) -> State:
    """Second step: add 1, so the expected final value is the input plus 2."""
    return {"count": state["count"] + 1}


builder = StateGraph(State)
builder.add_node("a", a)
builder.add_node("b", b)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
builder.add_edge("b", END)
graph = builder.compile()
