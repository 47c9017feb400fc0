"""ASGI middleware: request bodies larger than `limits.max_body_bytes` get a 413.

The size is enforced while the body is read, so a chunked body without `Content-Length` (or
one that lies about it) is cut off at the limit instead of being buffered whole; a declared
`Content-Length` over the limit is refused before anything is read. The middleware also
makes the config's `limits` the ones request validators check against
(`services/request_limits.py`).
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from open_langgraph.config import LimitsConfig
from open_langgraph.server.responses import JSONResponse
from open_langgraph.services.request_limits import applied


class BodyTooLarge(HTTPException):
    """Raised from `receive` when the body passes the limit; FastAPI re-raises HTTP errors
    from reading the body, and the error handlers answer it as JSON."""

    def __init__(self, limit: int) -> None:
        # The unread rest of the body is dropped with the connection.
        super().__init__(
            413,
            f"request body is larger than {limit} bytes (limits.max_body_bytes)",
            headers={"Connection": "close"},
        )


class RequestLimitsMiddleware:
    def __init__(self, app: ASGIApp, limits: LimitsConfig) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.max_body_bytes
        with applied(self.limits):
            declared = _content_length(scope)
            if declared is not None and declared > limit:
                await _refuse(BodyTooLarge(limit), scope, receive, send)
                return
            received = 0
            started = False

            async def limited_receive() -> Message:
                nonlocal received
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > limit:
                        raise BodyTooLarge(limit)
                return message

            async def watched_send(message: Message) -> None:
                nonlocal started
                started = started or message["type"] == "http.response.start"
                await send(message)

            try:
                await self.app(scope, limited_receive, watched_send)
            except BodyTooLarge as exc:
                # Only when something other than FastAPI's body parsing read the body.
                if started:
                    raise
                await _refuse(exc, scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the HTTP server refuses a malformed one itself
    return None


async def _refuse(exc: BodyTooLarge, scope: Scope, receive: Receive, send: Send) -> None:
    response = JSONResponse(
        {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
    )
    await response(scope, receive, send)
