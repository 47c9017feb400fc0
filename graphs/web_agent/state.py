"""The web agent's state: JSON values only, so every step can be checkpointed and resumed.

Two histories are kept apart. The clarify/plan phase is a short exchange with the person
(`clarifications`, `plan_feedback`), read by Clarify and Planning. The execution phase's
tool calls and results live in `messages`, read by the Agent. The Agent gets what it needs from
the first phase in distilled form (task, answers, plan) instead of the dialogue, and the
planner never sees tool traffic. The browser session is not state (see `mcp_session.py`).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """`extracted_data` grows by merging: a later finding under the same name replaces it."""
    return {**(left or {}), **(right or {})}


class InputState(TypedDict, total=False):
    task: str
    """What to do in the browser. Chat clients may send `messages` instead; the last human
    message is then the task."""
    messages: Annotated[list[AnyMessage], add_messages]


class WebAgentState(InputState, total=False):
    clarifications: list[dict[str, str]]
    """Questions the agent asked and the person's answers, in order."""
    pending_question: str | None
    """A question Clarify has decided to ask; it is asked when Clarify runs next."""
    message_to_user: str
    """What Clarify wants to tell the person along with its question."""
    plan: list[str]
    plan_feedback: str | None
    """Why the person rejected the last plan; Planning writes the next one with it."""
    action_history: Annotated[list[dict[str, Any]], operator.add]
    """One record per executed tool call: page (URL it was taken on), tool, args, ok, result
    (short)."""
    finished: str | None
    """The Agent's `finish` call: what it says it achieved, or why it stopped."""
    last_error: str | None
    extracted_data: Annotated[dict[str, Any], merge_dicts]
    last_snapshot: str
    """The newest page snapshot only; older ones are not kept anywhere."""
    snapshot_url: str
    agent_steps: int
    """Agent decisions made in this execution (the step budget counts these)."""
    outcome: str
    """How the run ended: completed (the Agent called finish), out_of_steps, stopped (the model
    stopped calling tools), quit (the person quit at approval)."""
    final_answer: str | None
    workflow_summary: str
