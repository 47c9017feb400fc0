"""The filters authorization handlers return: checked once, then applied by storage.

A filter restricts an action to the resources whose metadata match it
(`storage.filters.matches_auth_filter` defines matching): `{"owner": "a"}` and
`{"owner": {"$eq": "a"}}` mean metadata.owner == "a"; `{"tags": {"$contains": "x"}}` means
metadata.tags is a list holding "x" (or every element of a list value); several keys must all
match; `$or`/`$and` take lists of at least two filters, nested at most twice.
"""

from __future__ import annotations

from typing import Any

from open_langgraph.storage.base import AuthFilter
from open_langgraph.storage.filters import AUTH_OPERATORS

_MAX_NESTING = 2


class InvalidFilter(ValueError):
    """An authorization handler returned a filter this server cannot apply."""


def check_filter(value: Any, depth: int = 0) -> AuthFilter:
    """`value` if it is a filter storage can apply, else `InvalidFilter` (refusing what it
    does not understand rather than ignoring part of a restriction)."""
    if not isinstance(value, dict):
        raise InvalidFilter(f"a filter is a dict, got {type(value).__name__}")
    if depth > _MAX_NESTING:
        raise InvalidFilter(f"$or/$and may be nested at most {_MAX_NESTING} levels deep")
    for key, condition in value.items():
        if not isinstance(key, str):
            raise InvalidFilter(f"filter keys are strings, got {key!r}")
        if key in ("$or", "$and"):
            if not isinstance(condition, list) or len(condition) < 2:
                raise InvalidFilter(f"{key} takes a list of at least two filters")
            for group in condition:
                check_filter(group, depth + 1)
        elif key.startswith("$"):
            raise InvalidFilter(f"unknown filter operator {key!r}")
        elif (
            isinstance(condition, dict)
            and any(str(k).startswith("$") for k in condition)
            and (len(condition) != 1 or next(iter(condition)) not in AUTH_OPERATORS)
        ):
            raise InvalidFilter(
                f"{key}: a condition is one of {sorted(AUTH_OPERATORS)}, got {condition!r:.80}"
            )
    return value


def equality_parts(auth_filter: AuthFilter | None) -> dict[str, Any]:
    """The `key == value` conditions of a filter (top level only): what a new resource's
    metadata must hold to be inside it."""
    if not auth_filter:
        return {}
    parts: dict[str, Any] = {}
    for key, condition in auth_filter.items():
        if key.startswith("$"):
            continue
        if isinstance(condition, dict) and len(condition) == 1 and "$eq" in condition:
            parts[key] = condition["$eq"]
        elif not (isinstance(condition, dict) and "$contains" in condition):
            parts[key] = condition
    return parts


def stamped(metadata: dict[str, Any] | None, *filters: AuthFilter | None) -> dict[str, Any]:
    """`metadata` with the equality parts of `filters` written in, so a resource created or
    updated under a filter stays inside it (a user cannot hand a thread to someone else by
    writing another owner into its metadata)."""
    result = dict(metadata or {})
    for auth_filter in filters:
        result.update(equality_parts(auth_filter))
    return result
