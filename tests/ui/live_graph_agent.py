"""`live_graph`: a small graph for the page's live graph view, whose run a test can hold inside
a node for as long as it needs to look at the page.

    START -> plan -> hold -> review -> summarize (a subgraph: draft -> polish) -> END

`hold` waits while the file named by "hold until PATH" (the last human message) does not
exist, so the run stays inside it until the test creates the file (at most `HOLD_LIMIT`
seconds, so a test that fails never leaves a run behind for good). `review` asks a question
with `interrupt()`: the run stops in it until the page answers; the answer "again" goes back
to `plan` (a conditional edge), anything else on to `summarize`, whose two nodes are drawn in a
box of their own when the page expands subgraphs.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

#: The longest a run waits in `hold` for its file.
HOLD_LIMIT = 120.0
HOLD_PREFIX = "hold until "
QUESTION = "Go on with the summary?"


def _last_human_text(state: MessagesState) -> str:
    humans = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    return humans[-1].text if humans else ""


def plan(state: MessagesState) -> dict:
    return {"messages": [AIMessage("Planned.")]}


async def hold(state: MessagesState) -> dict:
    text = _last_human_text(state)
    if text.startswith(HOLD_PREFIX):
        release = Path(text.removeprefix(HOLD_PREFIX).strip())
        deadline = time.monotonic() + HOLD_LIMIT
        while not release.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    return {"messages": [AIMessage("Held, then released.")]}


def review(state: MessagesState) -> dict:
    answer = interrupt({"question": QUESTION})
    return {"messages": [AIMessage(f"You answered: {answer}")]}


def after_review(state: MessagesState) -> Literal["plan", "summarize"]:
    last = state["messages"][-1]
    return "plan" if last.text == "You answered: again" else "summarize"


def draft(state: MessagesState) -> dict:
    return {}


def polish(state: MessagesState) -> dict:
    return {"messages": [AIMessage("Summary: done.")]}


summarize = (
    StateGraph(MessagesState)
    .add_node(draft)
    .add_node(polish)
    .add_edge(START, "draft")
    .add_edge("draft", "polish")
    .add_edge("polish", END)
    .compile()
)

graph = (
    StateGraph(MessagesState)
    .add_node(plan)
    .add_node(hold)
    .add_node(review)
    .add_node("summarize", summarize)
    .add_edge(START, "plan")
    .add_edge("plan", "hold")
    .add_edge("hold", "review")
    .add_conditional_edges("review", after_review, ["plan", "summarize"])
    .add_edge("summarize", END)
    .compile(name="live_graph")
)
