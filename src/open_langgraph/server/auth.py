"""ASGI middleware authenticating every request with the config's `@auth.authenticate`.

It sits inside the request guard, CORS and body-limit middlewares (so a refusal still gets CORS
headers a browser can read, and a body read for the handler is still size-bounded) and
outside the routes. `/ok`, `/docs`, `/openapi.json` and the files read under `/ui/...` (the web
UI's page, which holds no data and asks for a token when the API answers 401, and generative UI
bundles) stay open, and so do the routes of a custom `http.app` unless
`http.enable_custom_route_auth`; `POST /ui/{assistant_id}` is API and is not. The user is kept
for the request (`auth.context`) where the services find it when they authorize an action. A pure
ASGI middleware costs one handler call per request: nothing is imported, read or parsed
that the handler does not ask for.
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph_sdk import Auth
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from open_langgraph.auth.authenticate import AuthenticationFailed, Authenticator
from open_langgraph.auth.context import acting_as, serving_in_process
from open_langgraph.server.loopback import is_loopback
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.routes.ui import is_ui_path

#: Paths answered without a user: the health check and the API's documentation.
OPEN_PATHS = frozenset({"/ok", "/info", "/docs", "/docs/oauth2-redirect", "/openapi.json"})


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives `body` once, then the connection's own messages
    (`http.disconnect`)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def route_path(scope: Scope) -> str:
    """The path the routes see: under `http.mount_prefix` (the ASGI `root_path`), without it."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


class AuthMiddleware:
    """`unauthenticated` says which other requests pass without a user: those of an
    `http.app`'s routes unless `http.enable_custom_route_auth` (server/custom_app.py)."""

    def __init__(
        self,
        app: ASGIApp,
        auth: Auth,
        unauthenticated: Callable[[Scope], bool] | None = None,
    ) -> None:
        self.app = app
        self.authenticator = Authenticator(auth)
        self.unauthenticated = unauthenticated

    def _open(self, scope: Scope) -> bool:
        path = route_path(scope)
        if scope["type"] == "http" and (
            path in OPEN_PATHS
            # The pages and files under /ui; `POST /ui/{assistant_id}` (generative UI) is API.
            or (is_ui_path(path) and scope["method"] in ("GET", "HEAD"))
        ):
            return True
        return self.unauthenticated is not None and self.unauthenticated(scope)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._open(scope):
            await self.app(scope, receive, send)
            return
        if is_loopback(scope):
            with serving_in_process():
                await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        body: bytes | None = None
        handler_receive = receive
        if self.authenticator.needs_body:
            body = await _read_body(receive)
            handler_receive = _replaying(body, receive)
            receive = _replaying(body, receive)
        try:
            user = await self.authenticator.authenticate(scope, body, handler_receive)
        except AuthenticationFailed as exc:
            response = JSONResponse(
                {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
            )
            await response(scope, receive, send)
            return
        scope["user"] = user
        scope["auth"] = AuthCredentials(user.permissions)
        with acting_as(user):
            await self.app(scope, receive, send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A WebSocket (the thread protocol's) is authenticated by its handshake, which has
        no body; a refusal closes it with 4000 + the HTTP status, as the SDK expects."""
        try:
            user = await self.authenticator.authenticate(scope, b"", receive)
        except AuthenticationFailed as exc:
            await send({"type": "websocket.close", "code": 4000 + exc.status_code, "reason": ""})
            return
        scope["user"] = user
        with acting_as(user):
            await self.app(scope, receive, send)
