"""ASGI middleware giving each request the encryption context its data is written with.

The context is what the `X-Encryption-Context` header carries (base64 of a JSON object; a
malformed one is a 422), or what the config's `@encryption.context` handler derives from it
and the authenticated user, as on LangGraph Platform. It sits inside the authentication
middleware, so the handler sees the user; a handler that fails is logged and the header's
context is used, as the Platform does. Only added when `encryption.path` is configured.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph_sdk import Encryption
from langgraph_sdk.encryption.types import EncryptionContext
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from open_langgraph.encryption.context import HEADER, parse_header, using_context
from open_langgraph.server.responses import JSONResponse

logger = logging.getLogger(__name__)


class EncryptionContextMiddleware:
    def __init__(self, app: ASGIApp, encryption: Encryption) -> None:
        self.app = app
        self.handler = encryption._context_handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = Headers(scope=scope).get(HEADER)
        try:
            context = parse_header(raw) if raw else {}
        except ValueError as exc:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 4422, "reason": str(exc)})
                return
            await JSONResponse({"detail": str(exc)}, status_code=422)(scope, receive, send)
            return
        context = await self._derived(scope, context)
        with using_context(context):
            await self.app(scope, receive, send)

    async def _derived(self, scope: Scope, context: dict[str, Any]) -> dict[str, Any]:
        user = scope.get("user")
        if self.handler is None or user is None:
            return context
        try:
            derived = await self.handler(user, EncryptionContext(None, context, None))
        except Exception:
            logger.exception("the @encryption.context handler failed; using the header's")
            return context
        if not isinstance(derived, dict):
            logger.error(
                "the @encryption.context handler returned a %s, not a dict; using the header's",
                type(derived).__name__,
            )
            return context
        return derived
