"""A person's review of the tool calls the model asked for, through LangGraph's `interrupt()`.

The run pauses with a request in the shape of LangChain's human-in-the-loop middleware, so
clients that understand it (Agent Chat UI) can render it:

    {"action_requests": [{"name": "calculator", "args": {...}, "description": "..."}],
     "review_configs": [{"action_name": "calculator",
                         "allowed_decisions": ["approve", "edit", "reject"]}]}

and resumes with one decision per tool call, in order:

    Command(resume={"decisions": [
        {"type": "approve"},
        {"type": "edit", "edited_action": {"name": "calculator", "args": {...}}},
        {"type": "reject", "message": "Use the search tool instead."},
    ]})

A single decision object is accepted when there is one tool call. An answer that does not fit
pauses the run again, with `error` in the request saying what was wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolCall

DECISION_TYPES = ("approve", "edit", "reject")
DEFAULT_REJECTION = "A person rejected this tool call; do not call it again as it was."


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one tool call: run `call` (as approved or edited), or answer `message`."""

    call: ToolCall | None
    message: str | None = None


class ReviewError(ValueError):
    """The resume value is not a valid set of decisions for the pending tool calls."""


def review_request(calls: Sequence[ToolCall], error: str | None = None) -> dict[str, Any]:
    """The interrupt payload asking a person to review `calls`."""
    request: dict[str, Any] = {
        "action_requests": [
            {
                "name": call["name"],
                "args": call["args"],
                "description": f"The agent wants to call {call['name']}; approve, edit or reject.",
            }
            for call in calls
        ],
        "review_configs": [
            {"action_name": name, "allowed_decisions": list(DECISION_TYPES)}
            for name in dict.fromkeys(call["name"] for call in calls)
        ],
    }
    if error:
        request["error"] = error
    return request


def parse_decisions(answer: Any, calls: Sequence[ToolCall], tool_names: set[str]) -> list[Decision]:
    """One `Decision` per call from a resume value.

    Raises:
        ReviewError: saying which part of the answer is wrong.
    """
    if isinstance(answer, dict) and "decisions" in answer:
        raw = answer["decisions"]
    elif isinstance(answer, dict) and len(calls) == 1:
        raw = [answer]
    else:
        raw = answer
    if not isinstance(raw, list):
        raise ReviewError('expected {"decisions": [...]} with one decision per tool call')
    if len(raw) != len(calls):
        raise ReviewError(f"expected {len(calls)} decision(s), one per tool call, got {len(raw)}")
    return [
        _decision(item, call, tool_names, i)
        for i, (item, call) in enumerate(zip(raw, calls, strict=True))
    ]


def _decision(item: Any, call: ToolCall, tool_names: set[str], index: int) -> Decision:
    where = f"decisions[{index}]"
    kind = item.get("type") if isinstance(item, dict) else None
    if kind not in DECISION_TYPES:
        raise ReviewError(f"{where}.type must be one of {list(DECISION_TYPES)}, got {kind!r}")
    if kind == "approve":
        return Decision(call=call)
    if kind == "reject":
        message = item.get("message")
        if message is not None and not isinstance(message, str):
            raise ReviewError(f"{where}.message must be a string")
        return Decision(call=None, message=message or DEFAULT_REJECTION)
    edited = item.get("edited_action")
    if not isinstance(edited, dict) or not isinstance(edited.get("args"), dict):
        raise ReviewError(f'{where} needs "edited_action": {{"name": ..., "args": {{...}}}}')
    name = edited.get("name") or call["name"]
    if name not in tool_names:
        raise ReviewError(f"{where}.edited_action.name {name!r} is not one of {sorted(tool_names)}")
    return Decision(call=ToolCall(name=name, args=edited["args"], id=call["id"], type="tool_call"))
