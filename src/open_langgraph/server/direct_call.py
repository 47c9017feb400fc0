"""Calling a JSON-body endpoint without FastAPI's per-request machinery, when that changes
nothing a client can see.

FastAPI handles each request generically: it parses the content type, solves the dependency
tree, validates every kind of parameter and builds error lists, about 0.4 M instructions per
request before the endpoint runs. Most of the API's routes need none of it: they take path
parameters, at most one JSON body model and the services (`deps.py`), and return a `Response`
themselves. For those, `DirectCall` validates the path parameters and the body with FastAPI's
own fields (`ModelField.validate`, so the values are the ones FastAPI would pass) and awaits
the endpoint. Anything else goes FastAPI's way: a route with any other kind of parameter is
never called directly, and a request whose body is not JSON or does not validate returns
None, so FastAPI handles it again and answers with its own 422.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi.dependencies.utils import get_typed_return_annotation
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

#: Dependencies called directly: async functions of the request alone, with nothing below.
RequestDependency = Callable[[Request], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class DirectCall:
    endpoint: Callable[..., Awaitable[Response]]
    path_fields: tuple[Any, ...]
    #: None for a route without a body (its request's body is never read).
    body_field: Any | None
    dependencies: tuple[tuple[str, RequestDependency], ...]

    @classmethod
    def of(cls, route: APIRoute) -> DirectCall | None:
        """The direct call for `route`, or None when FastAPI must handle its requests."""
        try:
            return cls._of(route)
        except (AttributeError, TypeError, ValueError):  # another FastAPI's internals
            return None

    @classmethod
    def _of(cls, route: APIRoute) -> DirectCall | None:
        dependant = route.dependant
        if (
            not inspect.iscoroutinefunction(route.endpoint)
            or route.response_model is not None
            or not _returns_response(route)
            or getattr(route, "_embed_body_fields", True)
            or len(dependant.body_params) > 1
            or dependant.query_params
            or dependant.header_params
            or dependant.cookie_params
            or _takes_connection(dependant)
        ):
            return None
        dependencies: list[tuple[str, RequestDependency]] = []
        for sub in dependant.dependencies:
            if (
                sub.name is None
                or sub.request_param_name is None
                or not inspect.iscoroutinefunction(sub.call)
                or sub.dependencies
                or sub.path_params
                or sub.query_params
                or sub.header_params
                or sub.cookie_params
                or sub.body_params
                or getattr(sub, "own_oauth_scopes", None)
                or len(inspect.signature(sub.call).parameters) != 1
            ):
                return None
            dependencies.append((sub.name, sub.call))
        body = dependant.body_params[0] if dependant.body_params else None
        return cls(
            endpoint=route.endpoint,
            path_fields=tuple(dependant.path_params),
            body_field=body,
            dependencies=tuple(dependencies),
        )

    async def __call__(self, request: Request) -> Response | None:
        """The endpoint's response, or None (nothing called) when FastAPI must answer.

        The body, if the route has one, is read as `JsonBodyRoute` reads it: JSON whatever
        the content type, `{}` when empty. Starlette keeps it read, for FastAPI's turn."""
        kwargs: dict[str, Any] = {}
        path_params = request.path_params
        for field in self.path_fields:
            raw = path_params.get(field.alias)
            if raw is None:
                return None
            kwargs[field.name], errors = field.validate(raw, loc=("path", field.alias))
            if errors:
                return None
        if self.body_field is not None:
            try:
                value = json.loads(await request.body() or b"{}")
            except ValueError:
                return None
            kwargs[self.body_field.name], errors = self.body_field.validate(value, loc=("body",))
            if errors:
                return None
        for name, dependency in self.dependencies:
            kwargs[name] = await dependency(request)
        return await self.endpoint(**kwargs)


def _returns_response(route: APIRoute) -> bool:
    returned = get_typed_return_annotation(route.endpoint)
    return inspect.isclass(returned) and issubclass(returned, Response)


def _takes_connection(dependant: Any) -> bool:
    return any(
        getattr(dependant, name, None) is not None
        for name in (
            "request_param_name",
            "websocket_param_name",
            "http_connection_param_name",
            "response_param_name",
            "background_tasks_param_name",
            "security_scopes_param_name",
        )
    )
