"""State of the subgraph agent: the conversation, the question handed over, and the findings."""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class InputState(TypedDict):
    """What a run takes: messages, merged into the thread's by id (`add_messages`)."""

    messages: Annotated[list[AnyMessage], add_messages]


class State(InputState, total=False):
    """`question` is what the research subgraph was asked; `findings` is its final reply."""

    question: str
    findings: str
