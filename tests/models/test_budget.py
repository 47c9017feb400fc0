"""Token budgets: bounded schemas get a budget no call can exceed; unbounded ones get none."""

from __future__ import annotations

import json

from open_langgraph.models.local.budget import call_token_budget, max_json_chars


def _longest_possible(schema: dict) -> int | None:
    return max_json_chars(schema, schema)


def test_bounded_object_budget_covers_the_longest_document() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"enum": ["B01", "B0000LONG"]},
            "q": {"type": "string", "maxLength": 3},
            "n": {"type": "integer"},
            "tags": {"type": "array", "items": {"enum": ["x", "yy"]}, "maxItems": 2},
        },
    }
    longest = {
        "id": "B0000LONG",
        "q": "\u0001\u0001\u0001",
        "n": -1234567890123456,
        "tags": ["yy", "yy"],
    }
    spelled = json.dumps(longest, separators=(", ", ": "))
    budget = _longest_possible(schema)
    assert budget is not None and budget >= len(spelled)


def test_unbounded_schemas_have_no_budget() -> None:
    assert _longest_possible({"type": "string"}) is None
    assert _longest_possible({"type": "array", "items": {"type": "integer"}}) is None
    assert _longest_possible({"type": "object"}) is None


def test_tool_without_arguments_is_bounded() -> None:
    tool = {"name": "next_page", "parameters": {"type": "object", "properties": {}}}
    budget = call_token_budget([tool])
    assert budget is not None
    assert budget >= len('{"name": "next_page", "arguments": {}}')


def test_budget_is_the_largest_tool_and_none_if_any_is_unbounded() -> None:
    small = {"name": "a", "parameters": {"type": "object", "properties": {"x": {"enum": [1]}}}}
    free = {"name": "b", "parameters": {"type": "object", "properties": {"s": {"type": "string"}}}}
    assert call_token_budget([small]) is not None
    assert call_token_budget([small, free]) is None
