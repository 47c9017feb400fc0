"""Request bodies of `/store`, with the Platform's field names, defaults and bounds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from open_langgraph.serde import INT64_MAX
from open_langgraph.services.run_request import Body

#: A label list as long as any sane hierarchy; bounds the work one request can ask for.
MAX_LABELS = 100


class StorePut(Body):
    namespace: list[str] = Field(max_length=MAX_LABELS)
    key: str
    value: dict[str, Any]
    index: Literal[False] | list[str] | None = None
    ttl: float | None = None


class StoreDelete(Body):
    namespace: list[str] = Field(default_factory=list, max_length=MAX_LABELS)
    key: str


class StoreSearch(Body):
    namespace_prefix: list[str] | None = Field(None, max_length=MAX_LABELS)
    filter: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=INT64_MAX)
    query: str | None = None
    refresh_ttl: bool | None = None


class StoreListNamespaces(Body):
    prefix: list[str] | None = Field(None, max_length=MAX_LABELS)
    suffix: list[str] | None = Field(None, max_length=MAX_LABELS)
    max_depth: int | None = Field(None, ge=1, le=MAX_LABELS)
    limit: int = Field(100, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=INT64_MAX)
