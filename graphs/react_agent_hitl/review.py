"""A person's review of the tool calls the model asked for, through LangGraph's `interrupt()`.

The run pauses with the request LangChain v1's `HumanInTheLoopMiddleware` sends in its default
`batched` mode, so clients written for that middleware (Agent Chat UI, our web UI, `olg run`)
show it and answer it unchanged:

    {"action_requests": [{"name": "calculator", "args": {...},
                          "description": "Tool execution requires approval\\n\\nTool: ..."}],
     "review_configs": [{"action_name": "calculator",
                         "allowed_decisions": ["approve", "edit", "reject", "respond"]}]}

and resumes with one decision per tool call, in order:

    Command(resume={"decisions": [
        {"type": "approve"},
        {"type": "edit", "edited_action": {"name": "calculator", "args": {...}}},
        {"type": "reject", "message": "Use the search tool instead."},
        {"type": "respond", "message": "It is 42."},
    ]})

`respond` answers for the tool: the model gets the person's text as the tool's (successful)
result and the tool never runs. Older answers still work: a single decision object when there
is one call, a bare list of decisions, and `editedAction` (the JS client's spelling). An answer
that does not fit pauses the run again, with `error` in the request saying what was wrong
(the middleware would fail the run instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware.human_in_the_loop import DecisionType, HITLRequest
from langchain_core.messages import ToolCall, ToolMessage, add_notification_metadata

DECISION_TYPES: tuple[DecisionType, ...] = ("approve", "edit", "reject", "respond")
#: `HumanInTheLoopMiddleware`'s default `description_prefix`, so descriptions read the same.
DESCRIPTION_PREFIX = "Tool execution requires approval"
#: Marks the tool messages a decision wrote, as the middleware marks its own
#: (`additional_kwargs["lc_source"]`); chat model integrations do not send it to the model.
DECISION_SOURCE = "hitl_interrupt_decision"


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one tool call: run `call` (as approved or edited), or answer it with
    `answer` instead of running it (a rejection or a person's response)."""

    call: ToolCall | None
    answer: ToolMessage | None = None


class ReviewError(ValueError):
    """The resume value is not a valid set of decisions for the pending tool calls."""


def describe_call(call: ToolCall) -> str:
    """The reviewer's description of a call, worded as the middleware words it by default."""
    return f"{DESCRIPTION_PREFIX}\n\nTool: {call['name']}\nArgs: {call['args']}"


def review_request(calls: Sequence[ToolCall], error: str | None = None) -> dict[str, Any]:
    """The interrupt payload asking a person to review `calls`: one action request and one
    review config per call, in the calls' order, as the middleware sends them."""
    request: HITLRequest = {
        "action_requests": [
            {"name": call["name"], "args": call["args"], "description": describe_call(call)}
            for call in calls
        ],
        "review_configs": [
            {"action_name": call["name"], "allowed_decisions": list(DECISION_TYPES)}
            for call in calls
        ],
    }
    payload: dict[str, Any] = dict(request)
    if error:
        payload["error"] = error
    return payload


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
        _decision(item, call, tool_names, f"decisions[{i}]")
        for i, (item, call) in enumerate(zip(raw, calls, strict=True))
    ]


def _decision(item: Any, call: ToolCall, tool_names: set[str], where: str) -> Decision:
    kind = item.get("type") if isinstance(item, dict) else None
    if kind not in DECISION_TYPES:
        raise ReviewError(f"{where}.type must be one of {list(DECISION_TYPES)}, got {kind!r}")
    if kind == "approve":
        return Decision(call=call)
    if kind == "edit":
        return Decision(call=_edited_call(item, call, tool_names, where))
    message = item.get("message")
    if message is not None and not isinstance(message, str):
        raise ReviewError(f"{where}.message must be a string")
    if kind == "respond":
        if not message or not message.strip():
            raise ReviewError(f"{where} (respond) needs a non-empty message: the tool's answer")
        return Decision(call=None, answer=_answer(call, message, "respond"))
    return Decision(call=None, answer=_answer(call, rejection_text(call, message), "reject"))


def _edited_call(
    item: dict[str, Any], call: ToolCall, tool_names: set[str], where: str
) -> ToolCall:
    edited = item.get("edited_action", item.get("editedAction"))
    if not isinstance(edited, dict) or not isinstance(edited.get("args"), dict):
        raise ReviewError(f'{where} needs "edited_action": {{"name": ..., "args": {{...}}}}')
    name = edited.get("name") or call["name"]
    if name not in tool_names:
        raise ReviewError(f"{where}.edited_action.name {name!r} is not one of {sorted(tool_names)}")
    return ToolCall(name=name, args=edited["args"], id=call["id"], type="tool_call")


def rejection_text(call: ToolCall, reason: str | None) -> str:
    """What the model reads for a rejected call: who rejected it, and why when a reason was
    given, so that it neither mistakes the rejection for a broken tool nor retries blindly."""
    if reason and reason.strip():
        return f"A person rejected the call to `{call['name']}`: {reason.strip()}"
    return (
        f"A person rejected the call to `{call['name']}`; it was not run. Do not call it again "
        "as it was unless the user asks for it."
    )


def _answer(call: ToolCall, content: str, decision: DecisionType) -> ToolMessage:
    """The tool message standing in for a call that did not run: an error for a rejection, a
    success for a person's response."""
    message = ToolMessage(
        content=content,
        tool_call_id=call["id"],
        name=call["name"],
        status="success" if decision == "respond" else "error",
    )
    return add_notification_metadata(message, source=DECISION_SOURCE, data={"decision": decision})
