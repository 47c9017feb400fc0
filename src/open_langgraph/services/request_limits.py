"""The `limits` of the config file that request bodies are validated against.

Request bodies are static pydantic classes and FastAPI hands their validators no context, yet
the bounds (list lengths, batch size, `after_seconds`) come from the config file. The server
therefore puts its `LimitsConfig` in a context variable for each request
(`server/request_limits.py`), and the validators read it here. Outside a request (unit tests,
scripts) the defaults apply.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any, get_args, get_origin

from open_langgraph.config import LimitsConfig

_DEFAULTS = LimitsConfig()
_current: ContextVar[LimitsConfig | None] = ContextVar("olg_request_limits", default=None)


def current_limits() -> LimitsConfig:
    """The limits of the request being handled (the defaults outside one)."""
    return _current.get() or _DEFAULTS


@contextmanager
def applied(limits: LimitsConfig) -> Iterator[None]:
    """Validate what happens inside the block against `limits`."""
    token = _current.set(limits)
    try:
        yield
    finally:
        _current.reset(token)


def _holds_list(annotation: Any) -> bool:
    """Whether a field's type is, or may be, a list (`list[str] | None`, `str | list[str]`)."""
    if get_origin(annotation) is list:
        return True
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_holds_list(arg) for arg in get_args(annotation))
    return False


@cache
def list_fields(model: type[Any]) -> frozenset[str]:
    """Names of a body model's fields declared as lists; free-form fields (`input`,
    `values`, `config`) are not among them, since their size is the client's data, bounded
    only by the body size."""
    return frozenset(
        name for name, info in model.model_fields.items() if _holds_list(info.annotation)
    )


def check_list_lengths(model: type[Any], data: Any) -> None:
    """Refuse (ValueError, a 422) a list field of `data` longer than `max_list_items`."""
    if not isinstance(data, dict):
        return
    limit = current_limits().max_list_items
    for name in list_fields(model):
        value = data.get(name)
        if isinstance(value, list) and len(value) > limit:
            raise ValueError(f"{name} has {len(value)} items; at most {limit} are allowed")


def check_batch_size(runs: Any) -> Any:
    """Refuse a `/runs/batch` body with more runs than `max_batch_size`, before parsing them,
    or with none (the Platform's schema asks for at least one)."""
    if isinstance(runs, list) and not runs:
        raise ValueError("the batch is empty; give at least one run")
    limit = current_limits().max_batch_size
    if isinstance(runs, list) and len(runs) > limit:
        raise ValueError(f"the batch has {len(runs)} runs; at most {limit} are allowed")
    return runs


def check_after_seconds(seconds: float | None) -> float | None:
    """Refuse a start delay beyond `max_after_seconds`."""
    limit = current_limits().max_after_seconds
    if seconds is not None and seconds > limit:
        raise ValueError(f"after_seconds is {seconds:g}; at most {limit:g} is allowed")
    return seconds
