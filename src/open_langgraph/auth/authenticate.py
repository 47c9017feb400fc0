"""Turning a request into a user with the `@auth.authenticate` handler.

The handler receives what it asks for by parameter name, as on LangGraph Platform:
`request`, `body` (bytes), `authorization` (the header, or None), `headers` (dict of bytes to
bytes, lower-case names), `path`, `method`, `query_params`, `path_params` and `scope`. What it
asks for is read from its signature once at start-up, and only that is built per request: the
body is read only by a handler that takes `body` or `request`, the route is matched only for
one that takes `path_params`.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langgraph_sdk import Auth
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.routing import Match
from starlette.types import Receive, Scope

from open_langgraph.auth.users import AuthUser, InvalidUser, normalize_user

logger = logging.getLogger(__name__)

PARAMETERS = frozenset(
    {
        "request",
        "body",
        "authorization",
        "headers",
        "path",
        "method",
        "query_params",
        "path_params",
        "scope",
    }
)


class AuthenticationFailed(Exception):
    """The request gets `status_code` and `{"detail": detail}` instead of an answer."""

    def __init__(
        self, status_code: int, detail: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail
        self.headers = dict(headers) if headers else None


def handler_parameters(fn: Callable[..., Any]) -> frozenset[str]:
    """The parameters the handler takes, refusing ones no request provides.

    Raises:
        ValueError: a parameter without a default that is not one of `PARAMETERS`.
    """
    params = inspect.signature(fn).parameters.values()
    unknown = [
        p.name
        for p in params
        if p.name not in PARAMETERS
        and p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if unknown:
        raise ValueError(
            f"the authenticate handler takes {unknown}, which no request provides; "
            f"it may take {sorted(PARAMETERS)}"
        )
    return frozenset(p.name for p in params if p.name in PARAMETERS)


def _path_params(scope: Scope) -> dict[str, Any]:
    app = scope.get("app")
    for route in getattr(getattr(app, "router", None), "routes", ()):
        match, child = route.matches(scope)
        if match == Match.FULL:
            return dict(child.get("path_params", {}))
    return {}


class Authenticator:
    """Calls the handler of one `Auth` object; `needs_body` tells the middleware to read the
    body first (and hand it on to the route)."""

    def __init__(self, auth: Auth) -> None:
        fn = auth._authenticate_handler
        if fn is None:
            raise ValueError("the Auth object has no @auth.authenticate handler")
        self._params = handler_parameters(fn)
        self.needs_body = bool(self._params & {"body", "request"})
        call: Callable[..., Awaitable[Any]]
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
        ):
            call = fn
        else:
            # A sync handler may block (a database, a key server): off the event loop.
            async def call(**kwargs: Any) -> Any:
                return await run_in_threadpool(fn, **kwargs)

        self._call = call

    def _arguments(self, scope: Scope, body: bytes | None, receive: Receive) -> dict[str, Any]:
        wanted = self._params
        args: dict[str, Any] = {}
        if "headers" in wanted or "authorization" in wanted:
            headers = dict(scope.get("headers", ()))
            if "headers" in wanted:
                args["headers"] = headers
            if "authorization" in wanted:
                value = headers.get(b"authorization")
                args["authorization"] = None if value is None else value.decode("latin-1")
        if "path" in wanted:
            args["path"] = scope["path"]
        if "method" in wanted:
            args["method"] = scope.get("method", "GET")
        if "query_params" in wanted:
            args["query_params"] = QueryParams(scope.get("query_string", b""))
        if "path_params" in wanted:
            args["path_params"] = _path_params(scope)
        if "body" in wanted:
            args["body"] = body or b""
        if "request" in wanted:
            args["request"] = Request(scope, receive)
        if "scope" in wanted:
            args["scope"] = scope
        return args

    async def authenticate(self, scope: Scope, body: bytes | None, receive: Receive) -> AuthUser:
        """The request's user.

        Raises:
            AuthenticationFailed: the handler refused the request (its
                `Auth.exceptions.HTTPException`, or 401 for any other exception), or returned
                something that is not a user (500: the handler is wrong, not the client).
        """
        try:
            result = await self._call(**self._arguments(scope, body, receive))
        except (Auth.exceptions.HTTPException, StarletteHTTPException) as exc:
            raise AuthenticationFailed(exc.status_code, str(exc.detail), exc.headers) from None
        except Exception as exc:
            logger.warning("authentication failed: %s: %s", type(exc).__name__, exc)
            raise AuthenticationFailed(401, "Unauthorized") from None
        if result is None:
            raise AuthenticationFailed(401, "Unauthorized")
        try:
            return normalize_user(result)
        except InvalidUser as exc:
            logger.error("the authenticate handler returned no valid user: %s", exc)
            raise AuthenticationFailed(
                500, f"the authenticate handler returned no valid user: {exc}"
            ) from None
