"""The two structured replies of the agent, their schemas, and fail-closed validation.

A reply that is not JSON, does not match its schema, names a tool outside the manifest, or feeds
a step from one that has not run raises `StructuredReplyError` with a sentence saying which rule
was broken. Nothing is repaired or guessed: the graph routes the error to the Error Handler.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from graphs.plan_execute.state import PlanStep

# Bounds keep a constrained small model from looping to a huge reply (every char can cost a token).
MAX_PLAN_STEPS = 4
MAX_QUERY_CHARS = 200
MAX_STEP_INPUT_CHARS = 160
STEP_ID = re.compile(r"step_[1-9][0-9]?")


class StructuredReplyError(ValueError):
    """A model reply that breaks its contract; the message says how, for the user to read."""


class IntentDecision(BaseModel):
    """How to handle the user's latest message."""

    model_config = ConfigDict(extra="forbid")

    intent: Literal["new_question", "follow_up", "clarification", "chitchat"]
    rewritten_query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    needs_tool: bool


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step_id: str
    tool: str
    input: str | None = Field(default=None, max_length=MAX_STEP_INPUT_CHARS)
    input_from: str | None = None

    @model_validator(mode="after")
    def _one_source_of_input(self) -> Step:
        if not STEP_ID.fullmatch(self.step_id):
            raise ValueError(f"step_id {self.step_id!r} is not of the form step_N")
        if (self.input is None) == (self.input_from is None):
            raise ValueError(f"{self.step_id} must have exactly one of 'input' and 'input_from'")
        return self

    def as_plan_step(self) -> PlanStep:
        step: PlanStep = {"step_id": self.step_id, "tool": self.tool}
        if self.input is not None:
            step["input"] = self.input
        if self.input_from is not None:
            step["input_from"] = self.input_from
        return step


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    steps: list[Step] = Field(min_length=1, max_length=MAX_PLAN_STEPS)


# -- schemas the model is asked to fill (bound as a forced tool when the model supports tools) --


def intent_wire_schema() -> dict[str, Any]:
    schema = IntentDecision.model_json_schema()
    schema["title"] = "classify_intent"
    schema["description"] = "Classify the user's latest message and make it self-contained."
    return schema


def plan_wire_schema(tools: Sequence[str]) -> dict[str, Any]:
    """A plan whose steps can only name `tools`: a grammar-constrained model cannot misspell one.

    Each step is one of two shapes (`input` or `input_from`), so a constrained model cannot emit
    both or neither.
    """
    base = {
        "step_id": {"type": "string", "maxLength": 8},
        "tool": {"enum": list(tools)},
    }
    with_input = {
        "type": "object",
        "properties": {**base, "input": {"type": "string", "maxLength": MAX_STEP_INPUT_CHARS}},
        "required": ["step_id", "tool", "input"],
        "additionalProperties": False,
    }
    with_input_from = {
        "type": "object",
        "properties": {**base, "input_from": {"type": "string", "maxLength": 8}},
        "required": ["step_id", "tool", "input_from"],
        "additionalProperties": False,
    }
    return {
        "title": "submit_plan",
        "description": "The tool steps that answer the request, in order.",
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {"anyOf": [with_input, with_input_from]},
                "minItems": 1,
                "maxItems": MAX_PLAN_STEPS,
            }
        },
        "required": ["steps"],
        "additionalProperties": False,
    }


# -- validation ---------------------------------------------------------------------------------


def decode_json(text: str, who: str) -> Any:
    """The JSON value in a text reply; a Markdown code fence around it is allowed, nothing else."""
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, flags=re.DOTALL)
    if fenced:
        body = fenced.group(1)
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        shown = text.strip()[:200] or "(empty reply)"
        problem = f"the {who} reply is not valid JSON ({exc.msg}): {shown}"
        raise StructuredReplyError(problem) from None


def _schema_error(who: str, exc: ValidationError) -> StructuredReplyError:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'reply'}: {err['msg']}" for err in exc.errors()
    )
    return StructuredReplyError(f"the {who} reply does not match its schema: {problems}")


def validate_intent(data: Any) -> IntentDecision:
    try:
        return IntentDecision.model_validate(data)
    except ValidationError as exc:
        raise _schema_error("intent classifier", exc) from None


def validate_plan(
    data: Any, available_tools: Sequence[str], done_steps: Iterable[str] = (), who: str = "planner"
) -> list[PlanStep]:
    """The plan as state stores it, if it keeps every rule.

    Args:
        data: a JSON array of steps, or `{"steps": [...]}` (the tool-call spelling).
        available_tools: the manifest's tool names; any other name is refused.
        done_steps: step ids that already ran successfully this turn (a re-plan may feed from
            them through `input_from`).
    """
    if isinstance(data, list):
        data = {"steps": data}
    try:
        plan = Plan.model_validate(data)
    except ValidationError as exc:
        raise _schema_error(who, exc) from None
    known = set(done_steps)
    seen: set[str] = set()
    for step in plan.steps:
        if step.tool not in available_tools:
            raise StructuredReplyError(
                f"the {who} chose the unknown tool {step.tool!r} in {step.step_id}; "
                f"available tools: {', '.join(available_tools)}"
            )
        if step.step_id in seen:
            raise StructuredReplyError(f"the {who} used the step id {step.step_id} twice")
        if step.input_from is not None and step.input_from not in seen | known:
            raise StructuredReplyError(
                f"{step.step_id} takes its input from {step.input_from!r}, "
                "which is not an earlier step"
            )
        seen.add(step.step_id)
    return [step.as_plan_step() for step in plan.steps]
