"""Think and act in one call: a function of the current state whose arguments start with the
thought (and, on an item page, the match score), as LASER's function calls carry theirs.

Tool calls are forced (``tool_choice``): an embedded model decodes under a grammar built from
the state's schemas, so its action is always valid. A hosted model that answers in text instead
gets the mapping prompt, which turns its text into an action; anything that still does not
fit the schema is an invalid action. One call per step instead of a free-text thought and then
a call halved the model calls per episode (26.6 on the 1.5B model, issue 18).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from graphs.laser.prompts import ACT_TURN, MAPPING_PROMPT, describe_actions
from graphs.laser.tools import MATCH_SCORE, THOUGHT, Tool, check_call, tool_names

_KV = re.compile(r"(\w+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,\]]+)")


@dataclass
class Decision:
    thought: str
    name: str | None
    """The function chosen, or None when no valid action came out."""
    args: dict[str, Any] = field(default_factory=dict)
    mapped: bool = False
    """The action came from the mapping prompt rather than a tool call."""
    raw: str = ""
    """What the model answered when the action is invalid, for the record."""
    score: float | None = None
    """The match score the call gave the item on the page (item pages only)."""


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(
        b if isinstance(b, str) else str(b.get("text", "")) for b in content if b
    ).strip()


def act(model: BaseChatModel, system: str, user: str, thought: str, tools: list[Tool]) -> Decision:
    """One function call of ``tools``, forced when the model supports tool choice."""
    names = tool_names(tools)
    choice = names[0] if len(names) == 1 else "any"
    messages = [
        SystemMessage(system),
        HumanMessage(user),
        AIMessage(thought),
        HumanMessage(ACT_TURN),
    ]
    try:
        bound = model.bind_tools(tools, tool_choice=choice)
    except NotImplementedError:
        return map_text(model, thought, tools)
    reply = bound.invoke(messages)
    calls = getattr(reply, "tool_calls", None) or []
    if not calls:
        return map_text(model, thought or _text(reply), tools)
    call = calls[0]
    raw_args = dict(call.get("args") or {})
    args = check_call(tools, call["name"], raw_args)
    if args is None:
        return Decision(thought, None, raw=f"{call['name']}({raw_args})")
    return Decision(thought, call["name"], args, score=_score(raw_args.get(MATCH_SCORE)))


def decide(model: BaseChatModel, system: str, user: str, tools: list[Tool]) -> Decision:
    """One forced call of ``tools``: the action, its thought and (item pages) match score."""
    names = tool_names(tools)
    choice = names[0] if len(names) == 1 else "any"
    messages = [SystemMessage(system), HumanMessage(user)]
    try:
        bound = model.bind_tools(tools, tool_choice=choice)
    except NotImplementedError:
        return map_text(model, _text(model.invoke(messages)), tools)
    reply = bound.invoke(messages)
    calls = getattr(reply, "tool_calls", None) or []
    if not calls:
        return map_text(model, _text(reply), tools)
    call = calls[0]
    raw_args = dict(call.get("args") or {})
    thought = str(raw_args.get(THOUGHT) or "").strip()
    score = _score(raw_args.get(MATCH_SCORE))
    args = check_call(tools, call["name"], raw_args)
    if args is None:
        return Decision(thought, None, raw=f"{call['name']}({raw_args})", score=score)
    return Decision(thought, call["name"], args, score=score)


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return max(0.0, min(10.0, float(value)))
    except ValueError:
        return None


def map_text(model: BaseChatModel, thought: str, tools: list[Tool]) -> Decision:
    """The mapping prompt: the rationale, rewritten by the model as one allowed action."""
    prompt = MAPPING_PROMPT.format(actions=describe_actions(tools), thought=thought)
    reply = _text(model.invoke([HumanMessage(prompt)]))
    parsed = parse_action_text(reply, tools)
    if parsed is None:
        return Decision(thought, None, mapped=True, raw=reply)
    return Decision(thought, parsed[0], parsed[1], mapped=True)


def parse_action_text(text: str, tools: list[Tool]) -> tuple[str, dict[str, Any]] | None:
    """``name`` or ``name[arg=value, ...]`` in free text, checked against the tools."""
    found: tuple[int, str] | None = None
    for name in sorted(tool_names(tools), key=len, reverse=True):
        m = re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", text, re.IGNORECASE)
        if m and (found is None or m.start() < found[0]):
            found = (m.start(), name)
    if found is None:
        return None
    start, name = found
    tail = text[start + len(name) :]
    bracket = re.match(r"\s*[\[(]([^\])]*)[\])]", tail)
    inner = bracket.group(1) if bracket else ""
    args: dict[str, Any] = {k: v.strip().strip("\"'") for k, v in _KV.findall(inner)}
    tool = next(t for t in tools if t["function"]["name"] == name)
    props: dict[str, Any] = tool["function"]["parameters"].get("properties", {})
    for key, prop in props.items():
        if key in args:
            continue
        if prop.get("enum"):
            hit = next((v for v in prop["enum"] if str(v).lower() in text.lower()), None)
            if hit is not None:
                args[key] = hit
        elif key == "keywords" and inner and "=" not in inner:
            args[key] = inner.strip().strip("\"'")
    checked = check_call(tools, name, args)
    return None if checked is None else (name, checked)
