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

import logging
import os
from typing import Any

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
    os.environ[_DEFER_ENV] = "true"
    return True
