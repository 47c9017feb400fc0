"""HTTP request metrics: one counter increment and one histogram observation per request."""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from open_langgraph.observability import metrics
from open_langgraph.observability.exchange import run_measured

_UNMATCHED = "<unmatched>"


def route_of(scope: Scope) -> str:
    """The path template the request matched (`/threads/{thread_id}`), never the raw path:
    raw paths carry ids, and a label per id would grow without bound."""
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else _UNMATCHED


class RequestMetrics:
    """ASGI middleware, outermost, so refusals by the other middlewares are counted too.
    A streamed response is timed to its end."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        def finished(status: int, seconds: float) -> None:
            route = route_of(scope)
            method = scope["method"]
            metrics.HTTP_REQUESTS.labels(method, route, str(status)).inc()
            metrics.HTTP_DURATION.labels(method, route).observe(seconds)

        await run_measured(self.app, scope, receive, send, finished)
