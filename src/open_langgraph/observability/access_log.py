"""One DEBUG line per HTTP request (`--log-level debug`), with the headers the config allows.

`GET /threads/1f0c... 200 3ms`, then, when `http.logging_headers` chooses some, the request's
headers of those names as a JSON object (in `--log-format json`, also as the line's `http`
field). Without `logging_headers` no header is logged, and credentials (`authorization`,
`cookie`, `x-api-key`) never are. Health checks and metric scrapes (`/ok`, `/metrics`) are not
logged. The query string is left out: it may carry values a client considers private.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from open_langgraph.header_patterns import HeaderPatterns
from open_langgraph.observability.exchange import run_measured
from open_langgraph.redact import redact_text

logger = logging.getLogger("open_langgraph.access")

NEVER_LOGGED = frozenset({"authorization", "cookie", "set-cookie", "x-api-key"})
_QUIET_PATHS = frozenset({"/ok", "/metrics"})


def logged_headers(patterns: HeaderPatterns | None, raw: Any) -> dict[str, str]:
    """The request headers `patterns` chooses, credentials left out."""
    if patterns is None:
        return {}
    chosen: dict[str, str] = {}
    for key, value in raw:
        name = key.decode("latin-1").lower()
        if name not in NEVER_LOGGED and patterns.chooses(name):
            # Masked like every log message: a chosen header may still carry a token.
            chosen[name] = redact_text(value.decode("latin-1"))
    return chosen


class AccessLog:
    """ASGI middleware logging each finished HTTP request; nothing when DEBUG is off."""

    def __init__(self, app: ASGIApp, headers: HeaderPatterns | None = None) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not logger.isEnabledFor(logging.DEBUG):
            await self.app(scope, receive, send)
            return
        root = scope.get("root_path", "")
        path: str = scope["path"]
        if path.removeprefix(root) in _QUIET_PATHS:
            await self.app(scope, receive, send)
            return

        def finished(status: int, seconds: float) -> None:
            millis = round(seconds * 1000)
            headers = logged_headers(self.headers, scope.get("headers", ()))
            line = f"{scope['method']} {path} {status} {millis}ms"
            if headers:
                line += " " + orjson.dumps(headers).decode()
            fields = {"method": scope["method"], "path": path, "status": status, "ms": millis}
            if headers:
                fields["headers"] = headers
            logger.debug(line, extra={"http": fields})

        await run_measured(self.app, scope, receive, send, finished)
