"""Metadata and values filters with PostgreSQL's `@>` containment meaning, for every backend."""

from __future__ import annotations

from typing import Any

import orjson


def contains(document: Any, pattern: Any) -> bool:
    """True when `pattern` is contained in `document` as jsonb `@>` defines it.

    Objects match when every key of the pattern is present with a contained value; arrays when
    every pattern element is contained in some document element; scalars when equal. As in
    PostgreSQL, a top-level array also contains a primitive equal to one of its elements.
    """
    if isinstance(document, list) and not isinstance(pattern, dict | list):
        return any(_contains(item, pattern) for item in document)
    return _contains(document, pattern)


def _contains(document: Any, pattern: Any) -> bool:
    if isinstance(pattern, dict):
        return isinstance(document, dict) and all(
            key in document and _contains(document[key], value) for key, value in pattern.items()
        )
    if isinstance(pattern, list):
        if not isinstance(document, list):
            return False
        return all(any(_contains(item, wanted) for item in document) for wanted in pattern)
    if isinstance(pattern, bool) or isinstance(document, bool):
        return type(pattern) is type(document) and pattern == document
    return document == pattern


def json_contains(document_json: str | bytes | None, pattern_json: str | bytes) -> bool:
    """SQL function form of `contains` over JSON text columns."""
    if document_json is None:
        return False
    return contains(orjson.loads(document_json), orjson.loads(pattern_json))


# -- authorization filters -------------------------------------------------------------------
# What an `@auth.on` handler returns to restrict a request to some resources: keys of the
# resource's metadata mapped to a value (equality), `{"$eq": value}` or `{"$contains": value}`
# (the metadata value is a list holding the value, or every element of a list value), with
# `$or`/`$and` lists of such filters. Unlike metadata search filters (containment), equality
# here is exact, as on LangGraph Platform: `{"owner": "a"}` does not match `{"owner": ["a"]}`.
AUTH_OPERATORS = frozenset({"$eq", "$contains"})


def _same(document: Any, value: Any) -> bool:
    """JSON equality: `true` is not `1`, as in PostgreSQL's jsonb."""
    if isinstance(document, bool) or isinstance(value, bool):
        return type(document) is type(value) and document == value
    if isinstance(document, dict) and isinstance(value, dict):
        return document.keys() == value.keys() and all(
            _same(document[k], value[k]) for k in document
        )
    if isinstance(document, list) and isinstance(value, list):
        return len(document) == len(value) and all(
            _same(a, b) for a, b in zip(document, value, strict=True)
        )
    return document == value


def _holds(document: Any, value: Any) -> bool:
    if not isinstance(document, list):
        return False
    wanted = value if isinstance(value, list) else [value]
    return all(any(_same(item, w) for item in document) for w in wanted)


def matches_auth_filter(metadata: Any, auth_filter: dict[str, Any]) -> bool:
    """Whether a resource whose metadata is `metadata` lies inside an authorization filter."""
    if not isinstance(metadata, dict):
        return False
    for key, condition in auth_filter.items():
        if key == "$or":
            if not any(matches_auth_filter(metadata, group) for group in condition):
                return False
        elif key == "$and":
            if not all(matches_auth_filter(metadata, group) for group in condition):
                return False
        elif (
            isinstance(condition, dict)
            and len(condition) == 1
            and next(iter(condition)) in AUTH_OPERATORS
        ):
            ((operator, value),) = condition.items()
            if key not in metadata:
                return False
            if operator == "$eq" and not _same(metadata[key], value):
                return False
            if operator == "$contains" and not _holds(metadata[key], value):
                return False
        elif key not in metadata or not _same(metadata[key], condition):
            return False
    return True


def json_matches_auth_filter(metadata_json: str | bytes | None, filter_json: str | bytes) -> bool:
    """SQL function form of `matches_auth_filter` over a JSON metadata column."""
    if metadata_json is None:
        return False
    return matches_auth_filter(orjson.loads(metadata_json), orjson.loads(filter_json))
