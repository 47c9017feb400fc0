"""`contains` must answer exactly what PostgreSQL's jsonb `@>` answers.

Every expected value in `CASES` was checked against PostgreSQL 15 with
`SELECT document::jsonb @> pattern::jsonb`, so the SQLite backend filters metadata and values
the way a Postgres-backed LangGraph server does.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from open_langgraph.storage.filters import contains, json_contains

# (document, pattern, document @> pattern)
CASES: list[tuple[Any, Any, bool]] = [
    # scalars: equal value and equal JSON type
    ("foo", "foo", True),
    ("foo", "bar", False),
    ("1", 1, False),
    (1, "1", False),
    (1, 1, True),
    (1, 1.0, True),
    (1.5, 1.5, True),
    (1, 2, False),
    (None, None, True),
    (None, False, False),
    (False, None, False),
    (0, None, False),
    ("", None, False),
    (True, True, True),
    (False, False, True),
    (True, False, False),
    # booleans are not numbers
    (True, 1, False),
    (1, True, False),
    (False, 0, False),
    (0, False, False),
    ({"a": 1}, {"a": True}, False),
    ({"a": True}, {"a": 1}, False),
    ({"a": 0}, {"a": False}, False),
    ([1, 0], [True], False),
    ([True], [1], False),
    # objects: every pattern key present with a contained value
    ({}, {}, True),
    ({"a": 1}, {}, True),
    ({}, {"a": 1}, False),
    ({"a": 1, "b": 2}, {"a": 1}, True),
    ({"a": 1}, {"a": 1, "b": 2}, False),
    ({"a": 1}, {"a": 2}, False),
    ({"a": 1}, {"b": 1}, False),
    ({"a": None}, {"a": None}, True),
    ({}, {"a": None}, False),
    ({"b": None}, {"a": None}, False),
    ({"a": 1}, {"a": None}, False),
    ({"a": None}, {"a": 1}, False),
    # nested objects match structure, not anywhere in the tree
    ({"a": {"b": 1, "c": 2}}, {"a": {"b": 1}}, True),
    ({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}, False),
    ({"a": {"b": {"c": [1, 2]}}}, {"a": {"b": {"c": [2]}}}, True),
    ({"a": {"b": 1}}, {"b": 1}, False),
    ({"a": {"b": 1}}, {"a": {}}, True),
    ({"a": 1}, {"a": {}}, False),
    ({"a": {}}, {"a": 1}, False),
    ({"a": []}, {"a": {}}, False),
    ({"a": {}}, {"a": []}, False),
    # arrays: each pattern element contained in some document element
    ([], [], True),
    ([1], [], True),
    ([], [1], False),
    ([1, 2, 3], [1, 3], True),
    ([1, 2, 3], [3, 1], True),
    ([1, 2, 3], [1, 4], False),
    ([1], [1, 1], True),
    ([1, 1], [1], True),
    (["a", "b"], ["a"], True),
    ([None], [None], True),
    ([1], [None], False),
    ({"tags": ["x", "y", "z"]}, {"tags": ["z", "x"]}, True),
    ({"tags": ["x", "y"]}, {"tags": ["w"]}, False),
    ({"tags": ["x"]}, {"tags": []}, True),
    # arrays of objects: object patterns match some element partially
    ([{"a": 1, "b": 2}, {"c": 3}], [{"a": 1}], True),
    ([{"a": 1, "b": 2}, {"c": 3}], [{"a": 1}, {"c": 3}], True),
    ([{"a": 1}, {"b": 2}], [{"a": 1, "b": 2}], False),
    ({"msgs": [{"role": "user", "content": "hi"}]}, {"msgs": [{"role": "user"}]}, True),
    ({"msgs": [{"role": "user", "content": "hi"}]}, {"msgs": [{"role": "ai"}]}, False),
    # nested arrays: structure must match, arrays are not flattened
    ([1, 2, [1, 3]], [1, 3], False),
    ([1, 2, [1, 3]], [[1, 3]], True),
    ([1, 2, [1, 3]], [[3]], True),
    ([[1, 2]], [1], False),
    ([1], [[1]], False),
    ([[]], [[]], True),
    ([], [[]], False),
    # a top-level array may contain a primitive (PostgreSQL's one exception) ...
    (["foo", "bar"], "foo", True),
    (["foo", "bar"], "baz", False),
    ([1, 2], 2, True),
    ([None], None, True),
    ([True], 1, False),
    ([["foo"]], "foo", False),
    ([], "foo", False),
    # ... but a primitive never contains an array, and the exception is not applied below
    # the top level
    ("foo", ["foo"], False),
    ({"a": ["x", "y"]}, {"a": "x"}, False),
    ({"a": "x"}, {"a": ["x"]}, False),
    ([["x", "y"]], ["x"], False),
    # containers never contain or equal other kinds of values
    ({"a": 1}, [], False),
    ([], {}, False),
    ({"a": 1}, "a", False),
    ([{"a": 1}], {"a": 1}, False),
    ("a", {}, False),
    (None, {}, False),
    (None, [], False),
    # strings compare exactly
    ("Foo", "foo", False),
    ("foo ", "foo", False),
    ({"name": "é"}, {"name": "é"}, True),
]


@pytest.mark.parametrize(
    ("document", "pattern", "expected"), CASES, ids=[f"{d!r}@>{p!r}" for d, p, _ in CASES]
)
def test_contains_matches_jsonb_containment(document: Any, pattern: Any, expected: bool) -> None:
    assert contains(document, pattern) is expected


@pytest.mark.parametrize(
    ("document", "pattern", "expected"), CASES, ids=[f"{d!r}@>{p!r}" for d, p, _ in CASES]
)
def test_json_contains_matches_contains_over_json_text(
    document: Any, pattern: Any, expected: bool
) -> None:
    assert json_contains(orjson.dumps(document), orjson.dumps(pattern)) is expected
    assert json_contains(orjson.dumps(document).decode(), orjson.dumps(pattern).decode()) is (
        expected
    )


def test_json_contains_null_column_contains_nothing() -> None:
    # A NULL metadata column never matches, not even the empty filter.
    assert json_contains(None, b"{}") is False
    assert json_contains(None, b"null") is False


def test_json_contains_json_null_document_is_a_value() -> None:
    assert json_contains(b"null", b"null") is True
    assert json_contains(b"null", b"{}") is False


def test_contains_does_not_modify_arguments() -> None:
    document = {"a": [1, {"b": 2}], "c": None}
    pattern = {"a": [{"b": 2}]}
    assert contains(document, pattern) is True
    assert document == {"a": [1, {"b": 2}], "c": None}
    assert pattern == {"a": [{"b": 2}]}
