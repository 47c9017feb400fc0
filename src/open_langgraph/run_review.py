"""`olg run`'s tool review in plain words, for LangChain v1's `HumanInTheLoopMiddleware` format.

A person types `approve`, `edit`, `reject` or `respond` for each tool call (only the decisions
that call allows), and the answers become what the interrupt expects:

- `batched` (one interrupt per model turn, also react_agent_hitl's): the value's
  `action_requests` and `review_configs`; one `{"decisions": [...]}` for the interrupt.
- `per_call` (one `tool_approval` interrupt per call): one decision per interrupt, keyed by its
  id; the allowed decisions are the `type`s its `response_schema` accepts.

What follows the word is its detail (`reject not today`, `respond 42`,
`edit {"expression": "6*8"}`), else it is asked for. `end` at any call stops the review without
running any of them (the run's command becomes `goto: "__end__"`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

DECISIONS = ("approve", "edit", "reject", "respond")
#: Words a person may type for a decision besides its name and the start of its name.
SYNONYMS = {"yes": "approve", "y": "approve", "ok": "approve", "no": "reject", "n": "reject"}
END = "end"
MEANINGS: Mapping[str, str] = MappingProxyType(
    {
        "approve": "run it as it is",
        "edit": "run it with other arguments",
        "reject": "do not run it; the agent is told (give a reason after the word if you like)",
        "respond": "do not run it; your answer is the tool's result",
    }
)

#: One line typed by the person; "" when their input has ended.
ReadLine = Callable[[], Awaitable[str]]


class Prompter(Protocol):
    """Where the questions go: whole lines, and a prompt the answer is typed after."""

    def say(self, text: str = "") -> None: ...

    def ask(self, text: str) -> None: ...


class InputEnded(Exception):
    """The person's input ended before the review was answered."""


class ReviewEnded(Exception):
    """The person chose to end the review without answering it."""


@dataclass(frozen=True, slots=True)
class Action:
    """One tool call to review and the decisions its reviewer may make."""

    name: str
    args: dict[str, Any]
    description: str
    allowed: tuple[str, ...]
    meanings: Mapping[str, str] = field(default_factory=lambda: MEANINGS)
    """What each decision does, in the words of the interrupt's format."""
    asks_reason: bool = True
    """Whether a rejection carries a reason (the format has a place for one)."""


def review_actions(interrupt: dict[str, Any]) -> list[Action] | None:
    """The tool calls an interrupt asks a person to review, or None when it is no review."""
    value = interrupt.get("value")
    if not isinstance(value, dict):
        return None
    if value.get("type") == "tool_approval" and isinstance(value.get("name"), str):
        allowed = allowed_by(interrupt.get("response_schema"))
        return [_action(value, allowed)]
    requests = value.get("action_requests")
    if not isinstance(requests, list) or not all(isinstance(r, dict) for r in requests):
        return None
    configs = [c for c in value.get("review_configs") or [] if isinstance(c, dict)]
    actions = []
    for i, request in enumerate(requests):
        # One config per request, in order, as the middleware sends them; else by tool name.
        config = configs[i] if len(configs) == len(requests) else None
        config = config or next(
            (c for c in configs if c.get("action_name") == request.get("name")), {}
        )
        actions.append(_action(request, _known(config.get("allowed_decisions"))))
    return actions


def _action(request: dict[str, Any], allowed: tuple[str, ...]) -> Action:
    args = request.get("args")
    return Action(
        name=str(request.get("name")),
        args=args if isinstance(args, dict) else {},
        description=str(request.get("description") or ""),
        allowed=allowed,
    )


def _known(decisions: Any) -> tuple[str, ...]:
    listed = tuple(d for d in DECISIONS if isinstance(decisions, list) and d in decisions)
    return listed or DECISIONS


def allowed_by(schema: Any) -> tuple[str, ...]:
    """The decision types a per-call `response_schema` accepts: the `type` constant of each
    branch of its union, or of the one decision it is. Without a schema, all four."""
    if not isinstance(schema, dict):
        return DECISIONS
    defs = schema.get("$defs") or schema.get("definitions") or {}
    branches = schema.get("oneOf") or schema.get("anyOf") or [schema]
    types = []
    for branch in branches:
        if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            branch = defs.get(branch["$ref"].rsplit("/", 1)[-1], {})
        kind = (branch.get("properties") or {}).get("type", {}) if isinstance(branch, dict) else {}
        types.append(kind.get("const", (kind.get("enum") or [None])[0]))
    return _known(types)


async def ask_decisions(
    actions: list[Action], prompter: Prompter, read_line: ReadLine, error: str | None = None
) -> list[dict[str, Any]]:
    """One decision per action, asked in turn.

    Raises:
        InputEnded: the input ended before every action had a decision.
        ReviewEnded: the person typed `end`.
    """
    prompter.say()
    calls = "a tool call" if len(actions) == 1 else f"{len(actions)} tool calls"
    prompter.say(f"The agent wants to run {calls} and waits for your review.")
    if error:
        prompter.say(f"Your last answer could not be used: {error}")
    decisions = []
    for i, action in enumerate(actions, 1):
        prompter.say()
        prompter.say(f"Tool call {i} of {len(actions)}: {action.name}")
        for line in action.description.splitlines():
            prompter.say(f"  {line}" if line else "")
        prompter.say(f"  arguments: {json.dumps(action.args, ensure_ascii=False)}")
        for decision in action.allowed:
            prompter.say(f"  {decision}: {action.meanings[decision]}")
        decisions.append(await _decide(action, prompter, read_line))
    return decisions


async def _decide(action: Action, prompter: Prompter, read_line: ReadLine) -> dict[str, Any]:
    choices = ", ".join(action.allowed[:-1]) + f" or {action.allowed[-1]}"
    if len(action.allowed) == 1:
        choices = action.allowed[0]
    while True:
        prompter.ask(f"Your decision ({choices}; or end to stop the review)? ")
        word, _, detail = (await _line(read_line)).strip().partition(" ")
        if word.lower() == END:
            raise ReviewEnded
        decision = _decision_named(word, action.allowed)
        if decision is None:
            prompter.say(f"Please type {choices} (or end).")
            continue
        answer = await _detail(decision, detail.strip(), action, prompter, read_line)
        if answer is not None:
            return answer


def _decision_named(word: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed decision `word` names: its name, a synonym, or a start only it has."""
    word = word.lower()
    word = SYNONYMS.get(word, word)
    matches = [d for d in allowed if d.startswith(word)] if word else []
    return matches[0] if len(matches) == 1 else None


async def _detail(
    decision: str, detail: str, action: Action, prompter: Prompter, read_line: ReadLine
) -> dict[str, Any] | None:
    """The decision with what it needs; None when that was wrong and the decision is asked
    again."""
    if decision == "approve":
        return {"type": "approve"}
    if decision == "reject":
        if not action.asks_reason:
            return {"type": "reject"}
        if not detail:
            prompter.ask("Why (the agent reads it; Enter for no reason)? ")
            detail = (await _line(read_line)).strip()
        return {"type": "reject", "message": detail} if detail else {"type": "reject"}
    if decision == "respond":
        if not detail:
            prompter.ask("Your answer, which the agent gets as the tool's result? ")
            detail = (await _line(read_line)).strip()
        if not detail:
            prompter.say("An empty answer cannot stand for the tool's result.")
            return None
        return {"type": "respond", "message": detail}
    if not detail:
        prompter.ask("The new arguments, as a JSON object? ")
        detail = (await _line(read_line)).strip()
    try:
        args = json.loads(detail)
    except json.JSONDecodeError as exc:
        prompter.say(f"Those arguments are not JSON ({exc.msg}); nothing was sent.")
        return None
    if not isinstance(args, dict):
        prompter.say('The arguments must be a JSON object, like {"name": "value"}.')
        return None
    return {"type": "edit", "edited_action": {"name": action.name, "args": args}}


async def _line(read_line: ReadLine) -> str:
    line = await read_line()
    if not line:
        raise InputEnded
    return line
