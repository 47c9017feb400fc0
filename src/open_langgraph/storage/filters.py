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
