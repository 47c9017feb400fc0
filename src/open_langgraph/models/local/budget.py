"""Token budgets that let a constrained tool call always finish.

A grammar guarantees validity only if decoding is not cut off: a call stopped at `max_tokens`
is half a JSON object. Every token is at least one character, so when a schema bounds the
length of its JSON (all strings have `maxLength`, arrays `maxItems`, no free-form values) the
longest call in characters is also a safe token budget. Generation still ends as soon as the
grammar completes, so a generous budget costs nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

# The longest spellings the grammar allows (see grammar._PRIMITIVES).
_INTEGER_CHARS = 17
_NUMBER_CHARS = 38
_ESCAPED_CHAR = 6  # a JSON character may be written as \uXXXX


def max_json_chars(schema: Mapping[str, Any] | bool, root: Mapping[str, Any]) -> int | None:
    """Longest compact JSON the grammar can produce for `schema`, or None when unbounded."""
    return _visit(schema, root, frozenset())


def _visit(
    schema: Mapping[str, Any] | bool, root: Mapping[str, Any], seen: frozenset[str]
) -> int | None:
    if not isinstance(schema, Mapping) or not schema:
        return None
    if "$ref" in schema:
        ref = schema["$ref"]
        if ref in seen or not ref.startswith("#/"):
            return None  # recursive models have no bound
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        return _visit(target, root, seen | {ref})
    if "const" in schema:
        return len(json.dumps(schema["const"], ensure_ascii=False, separators=(", ", ": ")))
    if "enum" in schema:
        return max(
            len(json.dumps(v, ensure_ascii=False, separators=(", ", ": "))) for v in schema["enum"]
        )
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return _largest([_visit(s, root, seen) for s in schema[key]])
    kind = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kind, list):
        return _largest([_visit({**schema, "type": t}, root, seen) for t in kind])
    if kind == "string":
        limit = schema.get("maxLength")
        return None if limit is None else 2 + _ESCAPED_CHAR * int(limit)
    if kind == "integer":
        return _INTEGER_CHARS
    if kind == "number":
        return _NUMBER_CHARS
    if kind == "boolean":
        return 5
    if kind == "null":
        return 4
    if kind == "array":
        limit = schema.get("maxItems")
        item = _visit(schema.get("items", True), root, seen)
        if limit is None or item is None:
            return None
        return 2 + int(limit) * (item + 2)
    if kind == "object":
        properties: Mapping[str, Any] = schema.get("properties", {})
        if not properties:
            extra = schema.get("additionalProperties", "properties" not in schema)
            return 2 if extra is False else None
        total = 2
        for key, sub in properties.items():
            size = _visit(sub, root, seen)
            if size is None:
                return None
            total += len(json.dumps(key, ensure_ascii=False)) + 2 + size + 2
        return total
    return None


def _largest(sizes: Sequence[int | None]) -> int | None:
    return None if not sizes or any(s is None for s in sizes) else max(s for s in sizes if s)


def call_token_budget(tools: Sequence[Mapping[str, Any]]) -> int | None:
    """Tokens that always suffice for one call to any of `tools`, or None if unbounded."""
    sizes = []
    for tool in tools:
        params = tool.get("parameters") or {"type": "object", "properties": {}}
        args = max_json_chars(params, params)
        if args is None:
            return None
        frame = len('{"name": , "arguments": }')
        sizes.append(len(json.dumps(tool["name"])) + frame + args)
    return max(sizes) if sizes else None
