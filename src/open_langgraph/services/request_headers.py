"""Request headers a run's `config["configurable"]` gets, as LangGraph Platform copies them.

A graph can read who or what called it from its config (`config["configurable"]["x-user-id"]`)
when `http.configurable_headers` chooses those headers (header_patterns.py). Without it no
header is copied, except LangSmith's distributed-tracing ones, which always are: the
`langsmith-trace` header, and from `baggage` the `langsmith-metadata` (a JSON object),
`langsmith-tags` and `langsmith-project` entries. Credentials are never copied, whatever the
patterns say: `authorization`, `x-api-key`, `x-service-key`, `x-tenant-id`.

The server's middleware keeps the request's headers for the request (a context variable, as
`auth/context.py` keeps its user), so every service that creates runs for it (runs, crons,
the thread protocol, MCP, A2A) finds them without a parameter on each call.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import Any
from urllib.parse import unquote

import orjson

from open_langgraph.header_patterns import HeaderPatterns

logger = logging.getLogger(__name__)

RawHeaders = Sequence[tuple[bytes, bytes]]

NEVER_COPIED = frozenset({"authorization", "x-api-key", "x-service-key", "x-tenant-id"})
_TRACE = "langsmith-trace"

_headers: ContextVar[RawHeaders] = ContextVar("olg_request_headers", default=())


@contextlib.contextmanager
def serving_headers(headers: RawHeaders) -> Iterator[None]:
    """Serve the code inside the block for a request with these (ASGI, raw) headers."""
    token = _headers.set(headers)
    try:
        yield
    finally:
        _headers.reset(token)


def _baggage(value: str) -> dict[str, Any]:
    """LangSmith's entries of a W3C `baggage` header."""
    found: dict[str, Any] = {}
    for item in value.split(","):
        key, sep, raw = item.strip().partition("=")
        if not sep:
            continue
        text = unquote(raw)
        if key == "langsmith-metadata" and key not in found:
            try:
                metadata = orjson.loads(text)
            except orjson.JSONDecodeError:
                metadata = None
            if isinstance(metadata, dict):
                found[key] = metadata
            else:
                logger.warning("ignoring a langsmith-metadata baggage entry that is not an object")
        elif key == "langsmith-tags":
            found[key] = text.split(",")
        elif key == "langsmith-project":
            found[key] = text
    return found


def configurable_headers(patterns: HeaderPatterns | None) -> dict[str, Any]:
    """What the current request's headers add to a run's `configurable`."""
    raw = _headers.get()
    if not raw:
        return {}
    headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in raw]
    chosen: dict[str, Any] = {}
    for name, value in headers:
        if name == _TRACE:
            chosen[name] = value
            baggage = next((v for n, v in headers if n == "baggage"), None)
            if baggage:
                chosen.update(_baggage(baggage))
        elif name not in NEVER_COPIED and patterns is not None and patterns.chooses(name):
            chosen[name] = value
    return chosen
