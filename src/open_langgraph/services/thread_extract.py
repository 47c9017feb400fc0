"""`extract` of a thread search: named values picked out of each thread by a path.

A path starts at `values`, `metadata`, `config` or `interrupts` and goes on by `.key` and
`[index]` steps (`values.messages[-1].content`), as in LangGraph Platform's search; a step
that does not exist yields null rather than an error, since threads differ in shape.
"""

from __future__ import annotations

import re
from typing import Any

from open_langgraph.errors import InvalidInput

ROOTS = ("values", "metadata", "config", "interrupts")
MAX_EXTRACTS = 10
_STEP = re.compile(r"\.([^.\[\]]+)|\[(-?\d+)\]")

Step = str | int


def parse_path(path: str) -> list[Step]:
    """The steps of `path`; InvalidInput naming what is wrong with it."""
    root = next((r for r in ROOTS if path == r or path.startswith((f"{r}.", f"{r}["))), None)
    if root is None:
        raise InvalidInput(f"extract path {path[:60]!r} must start with one of {list(ROOTS)}")
    steps: list[Step] = [root]
    position = len(root)
    while position < len(path):
        match = _STEP.match(path, position)
        if match is None:
            raise InvalidInput(
                f"extract path {path[:60]!r}: expected .key or [index] at {path[position:][:20]!r}"
            )
        key, index = match.groups()
        steps.append(key if key is not None else int(index))
        position = match.end()
    return steps


def parse_extract(extract: dict[str, str]) -> dict[str, list[Step]]:
    if len(extract) > MAX_EXTRACTS:
        raise InvalidInput(f"extract takes at most {MAX_EXTRACTS} paths")
    return {alias: parse_path(path) for alias, path in extract.items()}


def extracted(thread: dict[str, Any], paths: dict[str, list[Step]]) -> dict[str, Any]:
    return {alias: _follow(thread, steps) for alias, steps in paths.items()}


def _follow(value: Any, steps: list[Step]) -> Any:
    for step in steps:
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return None
            value = value[step]
        elif isinstance(value, dict):
            value = value.get(step)
        else:
            return None
    return value
