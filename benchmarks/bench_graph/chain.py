"""A longer benchmark graph: ten nodes in a row that each add 1 (a run ends at count == 10).

Beside the two-node graph it separates what a run costs once (the request, the queue, the
run's end) from what each step costs (a checkpoint, its events): `queue_sizing.py` measures
both graphs and docs/deploy.md sizes agents by their number of steps.
"""

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

STEPS = 10


class State(TypedDict):
    count: int


def _step(state: State) -> State:
    return {"count": state["count"] + 1}


builder = StateGraph(State)
names = [f"step{i}" for i in range(1, STEPS + 1)]
for name in names:
    builder.add_node(name, _step)
for before, after in zip([START, *names], [*names, END], strict=True):
    builder.add_edge(before, after)
graph = builder.compile()
