"""Request values that could not be stored are refused up front, with a reason."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from open_langgraph.serde import MAX_JSON_DEPTH, dumps, parse_int64, unstorable
from open_langgraph.services.run_request import RunCreate


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"a": 2**63}, "does not fit in 64 bits"),
        ([-(2**63) - 1], "does not fit in 64 bits"),
        ({"k": "\ud800"}, "lone UTF-16 surrogate"),
        ({"\udfff": 1}, "lone UTF-16 surrogate"),
        ({"deep": _nested(MAX_JSON_DEPTH + 5)}, "nested more than"),
    ],
)
def test_unstorable_values_are_named(value, problem):
    assert problem in (unstorable(value) or "")


def test_everything_storable_passes_and_really_encodes():
    value = {
        "ints": [2**63 - 1, -(2**63)],
        "text": "héllo 😀 \u0000",
        "deep": _nested(MAX_JSON_DEPTH - 5),
        "x": [1.5e308, None, True],
    }
    assert unstorable(value) is None
    # Wrapped as a stored record wraps it, orjson still encodes it.
    assert dumps({"run": {"kwargs": {"input": value}}})


def test_run_bodies_refuse_unstorable_input_with_a_validation_error():
    with pytest.raises(ValidationError, match="64 bits"):
        RunCreate.model_validate({"assistant_id": "a", "input": {"n": 10**30}})


def test_run_bodies_ignore_fields_they_do_not_know():
    run = RunCreate.model_validate({"assistant_id": "a", "from_a_newer_sdk": 1})
    assert run.assistant_id == "a" and not hasattr(run, "from_a_newer_sdk")


def test_parse_int64():
    assert parse_int64("-1") == -1
    for bad in ("9" * 30, "x", ""):
        with pytest.raises(ValueError):
            parse_int64(bad)
