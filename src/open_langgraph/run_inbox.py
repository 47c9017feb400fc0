"""`olg run`'s review of Agent Inbox interrupts, in the words of its tool review.

LangGraph's earlier human-in-the-loop format (`HumanInterrupt`, now in
`langchain.agents.interrupt`), which Agent Inbox shows, asks with a list of requests (or one):

    {"action_request": {"action": "send_email", "args": {...}},
     "config": {"allow_accept": true, "allow_edit": true, "allow_respond": true,
                "allow_ignore": true},
     "description": "..."}

and resumes with one `HumanResponse` per request, in a list when it asked with a list:
`{"type": "accept" | "edit" | "response" | "ignore", "args": ...}`. Its four responses are asked
as `approve`, `edit`, `respond` and `reject` (`run_review.py`), only those the config allows, so
a person answers every review the same way; without this a graph using it showed raw JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from open_langgraph.run_review import DECISIONS, Action

#: The config flag allowing each decision.
ALLOWED_BY = {
    "approve": "allow_accept",
    "edit": "allow_edit",
    "respond": "allow_respond",
    "reject": "allow_ignore",
}
MEANINGS: Mapping[str, str] = MappingProxyType(
    {
        "approve": "accept it as it is",
        "edit": "accept it with other arguments",
        "respond": "do not accept it; your answer goes back to the agent",
        "reject": "ignore it: skip this step",
    }
)


def inbox_actions(value: Any) -> list[Action] | None:
    """The actions an Agent Inbox interrupt asks about, or None when it is not one."""
    requests = value if isinstance(value, list) else [value]
    if not requests or not all(_is_request(r) for r in requests):
        return None
    return [_action(request) for request in requests]


def _is_request(request: Any) -> bool:
    return (
        isinstance(request, dict)
        and isinstance(request.get("action_request"), dict)
        and isinstance(request["action_request"].get("action"), str)
        and isinstance(request.get("config", {}), dict)
    )


def _action(request: dict[str, Any]) -> Action:
    config = request.get("config") or {}
    allowed = tuple(d for d in DECISIONS if config.get(ALLOWED_BY[d]))
    args = request["action_request"].get("args")
    return Action(
        name=request["action_request"]["action"],
        args=args if isinstance(args, dict) else {},
        description=str(request.get("description") or ""),
        allowed=allowed or ("respond",),
        meanings=MEANINGS,
        asks_reason=False,
    )


def inbox_answer(value: Any, actions: Sequence[Action], decisions: Sequence[dict[str, Any]]) -> Any:
    """The resume value: one `HumanResponse` per request, a list when the value was one."""
    responses = [_response(a, d) for a, d in zip(actions, decisions, strict=True)]
    return responses if isinstance(value, list) else responses[0]


def _response(action: Action, decision: dict[str, Any]) -> dict[str, Any]:
    kind = decision["type"]
    if kind == "approve":
        return {"type": "accept", "args": None}
    if kind == "edit":
        args = decision["edited_action"]["args"]
        return {"type": "edit", "args": {"action": action.name, "args": args}}
    if kind == "respond":
        return {"type": "response", "args": decision["message"]}
    return {"type": "ignore", "args": None}
