"""The ReAct agent's state: the conversation, plus LangGraph's step budget.

`is_last_step` and `remaining_steps` are managed values: LangGraph computes them from the run's
`recursion_limit` at every step; they are never part of the input or stored in checkpoints.
"""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from langgraph.managed import IsLastStep, RemainingSteps
from typing_extensions import TypedDict


class InputState(TypedDict):
    """What a run takes: messages, merged into the thread's by id (`add_messages`)."""

    messages: Annotated[list[AnyMessage], add_messages]


class State(InputState):
    """`is_last_step` is True on the step the recursion limit allows last; `remaining_steps` says
    how many steps are left, which also catches a tool call one step earlier (see graph.py)."""

    is_last_step: IsLastStep
    remaining_steps: RemainingSteps
