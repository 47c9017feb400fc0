"""State of the Plan-then-Execute agent: one turn's request, its plan and its audit trail.

Per-turn fields (`plan`, `past_steps`, `replan_count`, `error`, `result`...) are reset by the
Intent Classifier at the start of every turn, so a thread's second question never inherits the
first one's plan. `messages` is the only field that accumulates across turns.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

Intent = Literal["new_question", "follow_up", "clarification", "chitchat"]
StepStatus = Literal["ok", "error"]


class PlanStep(TypedDict):
    """One tool call of a plan; exactly one of `input` and `input_from` is set."""

    step_id: str
    tool: str
    input: NotRequired[str]
    input_from: NotRequired[str]
    """`step_N`: use that earlier step's output as this step's input."""


class StepRecord(TypedDict):
    """An executed step: the step with its resolved input, how it went, and what it returned."""

    step: PlanStep
    status: StepStatus
    output: str
    unreachable: NotRequired[bool]
    """Set (true) when the tool could not reach its service: it is not used again this turn."""


class InputState(TypedDict, total=False):
    """What a caller sends: `input` (a question) or a chat `messages` list, or both."""

    input: str
    messages: Annotated[list[AnyMessage], add_messages]


class State(TypedDict, total=False):
    input: str
    """The current turn's user message (taken from the last human message when not given)."""
    messages: Annotated[list[AnyMessage], add_messages]
    current_datetime: str
    """ISO 8601 time in Korea (Asia/Seoul), so "today" and "tomorrow" resolve the same way."""
    intent: Intent
    rewritten_query: str
    """The request made self-contained: constraints from earlier turns are written into it."""
    needs_tool: bool
    tool_manifest: str
    """The tools as the prompts describe them, one per line."""
    available_tools: list[str]
    plan: list[PlanStep]
    next_step: int
    """Index in `plan` of the step the Executor runs next."""
    past_steps: list[StepRecord]
    replan_count: int
    error: str | None
    result: str
