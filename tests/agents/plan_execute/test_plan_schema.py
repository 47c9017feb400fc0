"""Decoding and validating the two structured replies, and their schemas' fit for grammars."""

from __future__ import annotations

import pytest

from graphs.plan_execute.plan_schema import (
    StructuredReplyError,
    decode_json,
    intent_wire_schema,
    plan_wire_schema,
    validate_plan,
)
from open_langgraph.models.local import LocalChatModel

TOOLS = ["web_search", "summarize"]


def test_a_plan_may_come_as_an_array_or_as_the_tool_call_object() -> None:
    steps = [
        {"step_id": "step_1", "tool": "web_search", "input": "Seoul"},
        {"step_id": "step_2", "tool": "summarize", "input_from": "step_1"},
    ]
    assert validate_plan(steps, TOOLS) == steps
    assert validate_plan({"steps": steps}, TOOLS) == steps


def test_a_revised_plan_may_feed_from_a_step_that_already_succeeded() -> None:
    steps = [{"step_id": "step_3", "tool": "summarize", "input_from": "step_1"}]
    assert validate_plan(steps, TOOLS, done_steps=["step_1"]) == steps


@pytest.mark.parametrize(
    ("step", "problem"),
    [
        ({"step_id": "first", "tool": "web_search", "input": "x"}, "'first' is not of the form"),
        ({"step_id": "step_1", "tool": "web_search", "input": "x" * 161}, "at most 160"),
        ({"step_id": "step_1", "tool": "web_search", "input": "x", "why": "y"}, "Extra inputs"),
        ({"step_id": "step_1", "tool": "web_search", "input": 3}, "valid string"),
    ],
)
def test_schema_violations_are_named(step: dict, problem: str) -> None:
    with pytest.raises(StructuredReplyError, match="does not match its schema") as error:
        validate_plan([step], TOOLS)
    assert problem in str(error.value)


def test_at_most_four_steps() -> None:
    steps = [{"step_id": f"step_{n}", "tool": "web_search", "input": "x"} for n in range(1, 6)]
    with pytest.raises(StructuredReplyError, match="at most 4 items"):
        validate_plan(steps, TOOLS)


def test_json_in_a_code_fence_is_accepted_but_prose_around_it_is_not() -> None:
    assert decode_json('```json\n[{"a": 1}]\n```', "planner") == [{"a": 1}]
    with pytest.raises(StructuredReplyError, match="the planner reply is not valid JSON"):
        decode_json('Here is the plan: [{"a": 1}]', "planner")
    with pytest.raises(StructuredReplyError, match=r"\(empty reply\)"):
        decode_json("  ", "planner")


def test_both_schemas_compile_to_grammars_for_embedded_models() -> None:
    """Binding builds the GBNF grammar (no model is loaded); an unsupported keyword would raise."""
    model = LocalChatModel(model_name="smollm2-135m")
    model.with_structured_output(intent_wire_schema(), include_raw=True)
    model.with_structured_output(plan_wire_schema(TOOLS), include_raw=True)
    # A re-plan after a tool became unreachable may offer a single tool.
    model.with_structured_output(plan_wire_schema(["web_search"]), include_raw=True)
