"""JSON encoding of graph values (LangChain messages, pydantic models, interrupts) for the API."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any
from uuid import UUID

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def _default(obj: Any) -> Any:
    """Turn what orjson cannot encode natively into plain data, never failing the response."""
    if hasattr(obj, "model_dump") and callable(obj.model_dump):
        return obj.model_dump()
    if hasattr(obj, "to_json") and hasattr(obj, "lc_serializable"):
        return obj.to_json()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple) and hasattr(obj, "_asdict"):
        return obj._asdict()
    if isinstance(obj, set | frozenset):
        return list(obj)
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, bytes | bytearray):
        return obj.decode("utf-8", "replace")
    if isinstance(obj, datetime | UUID):
        return str(obj)
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
