"""Request bodies read as JSON whatever their `Content-Type`, and an empty body read as `{}`.

langgraph-api reads every body as JSON, so clients written against it do not always say so:
`curl -d '{...}'` sends `application/x-www-form-urlencoded`, and examples post with no body at
all where every field is optional. FastAPI would refuse both with a 422 ("Input should be a
valid dictionary", "Field required"). Only our own API routers use this route class, so a
project's custom routes (`http.app`) keep the content types they expect.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import cached_property
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from open_langgraph.server.direct_call import DirectCall

_JSON = (b"content-type", b"application/json")


class JsonBodyRoute(APIRoute):
    """An `APIRoute` whose body, if it declares one, is parsed as JSON (`{}` when empty), and
    whose endpoint is called directly when FastAPI's machinery would add nothing
    (`direct_call.py`)."""

    @cached_property
    def direct_call(self) -> DirectCall | None:
        """How the endpoint is called without FastAPI's machinery; None: it cannot be."""
        return DirectCall.of(self)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        direct = self.direct_call
        if self.body_field is None:
            return handler if direct is None else _directly(direct, handler)

        async def handle_as_json(request: Request) -> Response:
            if direct is not None and (response := await direct(request)) is not None:
                return response
            body = await request.body() or b"{}"
            headers = [(k, v) for k, v in request.scope["headers"] if k != b"content-type"]
            parsed = Request({**request.scope, "headers": [*headers, _JSON]}, request.receive)
            # The body is handed over read (Starlette keeps it in `_body`), so the connection's
            # own `receive` is left for what comes after it (a disconnect). Parsing stays
            # FastAPI's `json.loads`: orjson would read an integer past 64 bits as a float.
            parsed._body = body
            return await handler(parsed)

        return handle_as_json


def _directly(
    direct: DirectCall, handler: Callable[[Request], Coroutine[Any, Any, Response]]
) -> Callable[[Request], Coroutine[Any, Any, Response]]:
    """The handler of a route without a body: called directly unless its path parameters
    do not validate (then FastAPI answers)."""

    async def handle(request: Request) -> Response:
        response = await direct(request)
        return response if response is not None else await handler(request)

    return handle
