"""JSON encoding of graph values (LangChain messages, pydantic models, interrupts) for the API."""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import re
from base64 import b64encode
from collections import deque
from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from decimal import Decimal
from enum import Enum
from pathlib import PurePath
from typing import Any
from uuid import UUID

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


#: Encoded as their text, as langgraph-api does.
_AS_TEXT = (
    datetime,
    UUID,
    PurePath,
    ipaddress.IPv4Address,
    ipaddress.IPv6Address,
    ipaddress.IPv4Network,
    ipaddress.IPv6Network,
    ipaddress.IPv4Interface,
    ipaddress.IPv6Interface,
)


@functools.cache
def _send_class() -> type:
    """LangGraph's `Send`, imported on first use: this module is imported before a config
    error is reported, which must not wait for LangGraph's imports."""
    from langgraph.types import Send

    return Send


#: Shown to clients in place of the message of an exception not known to be safe to show.
MASKED_MESSAGE = "An internal error occurred"


@functools.cache
def _safe_exceptions() -> tuple[type[BaseException], ...]:
    """Exceptions whose message a client may read: Python's and LangGraph's own, HTTP errors
    raised for the client, and this server's (written for users). Any other library's
    message may carry what the client must not see (a URL with its key, a database's error
    text), so langgraph-api (0.16) shows only the class of those, and so do we; the server's
    log keeps the whole message."""
    from langgraph.errors import EmptyInputError, GraphBubbleUp, InvalidUpdateError, TaskNotFound
    from langgraph_sdk.auth.exceptions import HTTPException as AuthHTTPException
    from starlette.exceptions import HTTPException

    from open_langgraph.errors import OLGError
    from open_langgraph.models.errors import ModelError

    return (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        RuntimeError,
        RecursionError,
        TimeoutError,
        InvalidUpdateError,
        GraphBubbleUp,
        EmptyInputError,
        TaskNotFound,
        HTTPException,
        AuthHTTPException,
        OLGError,
        ModelError,
    )


def error_payload(exc: BaseException) -> dict[str, str]:
    """`{error, message}` as a run's error and an `error` event carry it, with the message of
    an exception not known to be safe replaced, as langgraph-api does."""
    safe = isinstance(exc, _safe_exceptions())
    return {"error": type(exc).__name__, "message": str(exc) if safe else MASKED_MESSAGE}


def _default(obj: Any) -> Any:
    """Turn what orjson cannot encode natively into plain data, never failing the response.

    The types langgraph-api's encoder knows are encoded as it does (a `Send` as `{node,
    args}`, an exception as `{error, message}`, bytes in base64, a Decimal as a number, a
    duration in seconds), so events and state read the same from either server."""
    if hasattr(obj, "model_dump") and callable(obj.model_dump) and not isinstance(obj, type):
        return obj.model_dump()
    if hasattr(obj, "to_json") and hasattr(obj, "lc_serializable"):
        return obj.to_json()
    if isinstance(obj, _send_class()):
        return {"node": obj.node, "args": obj.arg}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple) and hasattr(obj, "_asdict"):
        return obj._asdict()
    if isinstance(obj, BaseException):
        return error_payload(obj)
    if isinstance(obj, set | frozenset | deque):
        return list(obj)
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, bytes | bytearray):
        return b64encode(obj).decode()
    if isinstance(obj, _AS_TEXT):
        return str(obj)
    if isinstance(obj, Decimal):
        return int(obj) if obj.is_finite() and obj == obj.to_integral_value() else float(obj)
    if isinstance(obj, timedelta):
        return obj.total_seconds()
    if isinstance(obj, tzinfo):
        return obj.tzname(None)
    if isinstance(obj, re.Pattern):
        return obj.pattern
    if hasattr(obj, "__slots__") and not hasattr(obj, "__dict__"):
        return {k: getattr(obj, k) for k in obj.__slots__ if hasattr(obj, k)}
    if hasattr(obj, "__dict__"):
        return {k: v for k, v in vars(obj).items() if not k.startswith("_")}
    return repr(obj)


def dumps(value: Any) -> bytes:
    """Encode any graph value as JSON bytes."""
    return orjson.dumps(value, default=_default, option=_OPTIONS)


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


def to_jsonable(value: Any) -> Any:
    """Plain JSON data for `value`, for storing graph output next to its run."""
    return orjson.loads(dumps(value))


#: Integers SQLite stores (signed 64-bit); orjson refuses larger ones too.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: orjson refuses to encode deeper than 255 levels; stored records wrap a request's values in a
#: few levels of their own.
MAX_JSON_DEPTH = 200


def unstorable(value: Any) -> str | None:
    """Why a decoded JSON request value could not be stored and sent back, or None if it can.

    A request is refused up front for these instead of failing half-way through a write: an
    integer beyond 64 bits, a string with a lone UTF-16 surrogate (not encodable as UTF-8), or
    nesting deeper than `MAX_JSON_DEPTH`.
    """
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_JSON_DEPTH:
            return f"JSON is nested more than {MAX_JSON_DEPTH} levels deep"
        if isinstance(item, bool) or item is None or isinstance(item, float):
            continue
        if isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                return f"integer {str(item)[:30]} does not fit in 64 bits"
        elif isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return "a string holds a lone UTF-16 surrogate, which is not valid Unicode"
        elif isinstance(item, dict):
            pending.extend((key, depth + 1) for key in item)
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list | tuple):
            pending.extend((child, depth + 1) for child in item)
    return None


def parse_int64(text: str) -> int:
    """An integer in SQLite's range from text; ValueError otherwise."""
    number = int(text)
    if not INT64_MIN <= number <= INT64_MAX:
        raise ValueError(f"{text[:30]} does not fit in 64 bits")
    return number
