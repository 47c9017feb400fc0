"""`http.mount_prefix`: the whole server under one path (`/api/threads`, `/api/docs`, ...).

As on LangGraph Platform, every route moves under the prefix, while `/ok` and `/metrics` also
stay at the root so health checks and scrapes need no change. The app underneath is unchanged:
a request under the prefix reaches it with the prefix in the ASGI `root_path` (as Starlette's
`Mount` does), so routing, `/docs` (which loads `<prefix>/openapi.json`), the OpenAPI
`servers` entry and `request.url_for` all account for it. Anything else is a JSON 404.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from open_langgraph.server.responses import JSONResponse

#: Paths served at the root as well as under the prefix.
ROOT_PATHS = frozenset({"/ok", "/metrics"})


class MountPrefix:
    """ASGI app serving `app` under `prefix` (no trailing slash)."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        root = scope.get("root_path", "")
        path: str = scope["path"]
        below = path[len(root) :] if root and path.startswith(root) else path
        if below == self.prefix or below.startswith(self.prefix + "/"):
            await self.app({**scope, "root_path": root + self.prefix}, receive, send)
        elif below in ROOT_PATHS:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            detail = f"Not Found: this server is served under {self.prefix}"
            await JSONResponse({"detail": detail}, status_code=404)(scope, receive, send)
        else:  # a WebSocket outside the prefix: refused at the handshake
            await send({"type": "websocket.close", "code": 4404, "reason": ""})
