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
        # The labelled series, looked up once per label values rather than per request
        # (`labels()` validates and locks each time). Bounded as the labels are.
        self._counted: dict[tuple[str, str, int], Any] = {}
        self._timed: dict[tuple[str, str], Any] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        def finished(status: int, seconds: float) -> None:
            route = route_of(scope)
            method = scope["method"]
            counted = self._counted.get((method, route, status))
            if counted is None:
                counted = metrics.HTTP_REQUESTS.labels(method, route, str(status))
                self._counted[(method, route, status)] = counted
            timed = self._timed.get((method, route))
            if timed is None:
                timed = self._timed[(method, route)] = metrics.HTTP_DURATION.labels(method, route)
            counted.inc()
            timed.observe(seconds)

        await run_measured(self.app, scope, receive, send, finished)
