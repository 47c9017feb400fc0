"""`langgraph_sdk.get_client()` with no URL, called inside the server: a graph, a custom route
or an auth handler talking to the server it runs in, as on LangGraph Platform.

The SDK connects such a client in-process through an ASGI transport: to `langgraph_api.server`'s
app when langgraph-api is installed, otherwise to no app yet, registering the transport for the
server to fill in (`configure_loopback_transports`, which langgraph-api calls once its app
exists). Without our app in it, every call failed inside httpx (`'NoneType' object is not
callable`) and a graph that delegates to another assistant (a supervisor, a cron graph reading
threads) could not run here.

So once the app exists, the transports registered so far (clients made while the graphs were
imported) get it, and the SDK's registry is replaced by one that gives it to each transport as
it is registered and keeps none (a graph making a client per run would otherwise grow it for
ever). The SDK is told to defer rather than import a `langgraph_api` installed beside us.

The requests are marked in their ASGI scope, which no client can set: as on the Platform, they
skip the `Host` guard and authentication, since the code sending them already runs inside the
server.
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
from typing import Any
from urllib.parse import quote

from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger(__name__)

#: The ASGI scope key marking a request sent in-process through the SDK's loopback.
LOOPBACK_SCOPE_KEY = "olg.loopback"
#: Makes `get_client()` register its transport for us instead of importing langgraph-api.
_DEFER_ENV = "__LANGGRAPH_DEFER_LOOPBACK_TRANSPORT"


def is_loopback(scope: Scope) -> bool:
    return bool(scope.get(LOOPBACK_SCOPE_KEY))


class _Marked:
    """The app as the loopback transports call it: each request marked as in-process."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app({**scope, LOOPBACK_SCOPE_KEY: True}, receive, send)


class _BindingRegistry(list):  # type: ignore[type-arg]
    """Stands in for the SDK's list of transports waiting for the server's app."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__()
        self._app = app

    def append(self, transport: Any) -> None:
        if getattr(transport, "app", None) is None:
            transport.app = self._app


def defer_sdk_loopback() -> None:
    """Before the graphs are imported: a client they make then waits for our app instead of
    importing a `langgraph_api` installed beside us."""
    os.environ[_DEFER_ENV] = "true"


def connect_sdk_loopback(app: ASGIApp) -> bool:
    """Serve `get_client()`'s in-process clients with `app`; False when this SDK has no
    loopback to connect (an older langgraph-sdk, or none installed)."""
    try:
        from langgraph_sdk._async import client as sdk_client
        from langgraph_sdk.client import configure_loopback_transports
    except ImportError:
        return False
    if not isinstance(getattr(sdk_client, "_registered_transports", None), list):
        logger.debug("langgraph_sdk has no loopback registry: get_client() needs a URL here")
        return False
    marked = _Marked(app)
    configure_loopback_transports(marked)
    sdk_client._registered_transports = _BindingRegistry(marked)
    defer_sdk_loopback()
    return True


# Queue mode: a graph executing in an `olg worker` has no app beside it. Its `get_client()`
# requests go to the API over HTTP instead, carrying a secret the API and its workers share;
# the API marks a request bearing it as in-process, so the worker's graphs are served as the
# API's own are.

#: The secret `olg serve --workers` makes for its workers (or the one set for standalone
#: `olg worker` processes and their `olg serve --api-only`).
LOOPBACK_TOKEN_ENV = "OLG_LOOPBACK_TOKEN"
#: Where `olg worker` sends its graphs' `get_client()` requests (`--api-url`).
API_URL_ENV = "OLG_API_URL"
_TOKEN_HEADER = b"x-olg-loopback-token"
_HOP_BY_HOP = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"upgrade"})


def loopback_token() -> str:
    """The shared secret, made (and passed on to child processes) when none is set."""
    token = os.environ.get(LOOPBACK_TOKEN_ENV)
    if not token:
        token = os.environ[LOOPBACK_TOKEN_ENV] = secrets.token_urlsafe(32)
    return token


class WorkerRequests:
    """Outermost on the API: a request bearing the workers' secret is marked in-process.

    The header is removed from every request, valid or not, so it never reaches a route, an
    auth handler or a run's captured headers."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and any(n == _TOKEN_HEADER for n, _ in scope["headers"]):
            given = [v for n, v in scope["headers"] if n == _TOKEN_HEADER]
            headers = [(n, v) for n, v in scope["headers"] if n != _TOKEN_HEADER]
            scope = {**scope, "headers": headers}
            if len(given) == 1 and hmac.compare_digest(given[0], self._token):
                scope[LOOPBACK_SCOPE_KEY] = True
        await self.app(scope, receive, send)


class ForwardedToApi:
    """What a worker's loopback transports call: each request sent on to the API over HTTP
    with the shared secret, and its answer streamed back as it comes (a `runs.stream`)."""

    def __init__(self, api_url: str, token: str | None) -> None:
        self._base = api_url.rstrip("/")
        self._token = token.encode() if token else None
        self._client: Any = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        import httpx

        if self._client is None:
            # No read timeout: a `runs.wait` lasts as long as the run; the SDK's own timeouts
            # do not reach an ASGI transport either.
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0))
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(n, v) for n, v in scope["headers"] if n not in (b"host", b"content-length")]
        if self._token is not None:
            headers.append((_TOKEN_HEADER, self._token))
        url = self._base + quote(scope["path"])
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        request = self._client.build_request(
            scope["method"], url, headers=headers, content=bytes(body)
        )
        # A connection refused is raised to the graph, as from a client given a URL.
        response = await self._client.send(request, stream=True)
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (n, v) for n, v in response.headers.raw if n.lower() not in _HOP_BY_HOP
                    ],
                }
            )
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()


async def no_api_known(scope: Scope, receive: Receive, send: Send) -> None:
    """A worker told no API address: the graph's call raises what to set, not httpx's
    `'NoneType' object is not callable`."""
    raise RuntimeError(
        "get_client() with no URL in an olg worker needs the API's address: start the "
        "workers with `olg serve --workers N`, or give `olg worker --api-url` "
        f"(${API_URL_ENV}) and the API's ${LOOPBACK_TOKEN_ENV}"
    )
