"""`http.app`: the user's Starlette or FastAPI app, served together with the API.

As on LangGraph Platform:

- Its routes are tried before the API's, so they may add to or replace API routes; only
  `/ok`, `/metrics`, `/docs`, `/openapi.json` (and FastAPI's `/redoc`) stay ours
  (`add_routes`). Its FastAPI routes appear in `/openapi.json`.
- Its middleware runs on every request: with `http.middleware_order: "middleware_first"`
  (the default) before authentication, CORS and body limits (only the `Host`/`Origin` guard
  comes first); with `"auth_first"` after authentication, next to the route.
- Its routes are not authenticated unless `http.enable_custom_route_auth` is true; then they
  go through the config's `auth` like the API's, and `request.user` is the user.
- Its lifespan (or startup/shutdown handlers) runs inside the server's: after storage and
  services are up, before requests are served; its shutdown before the server's. A state
  dict it yields reaches `request.state`, and it shares `app.state` with the server's app.
- Its exception handlers serve its own exception classes; the server's answer the classes it
  handles itself, so API errors keep one shape.

A path that does not import, or an object that is not a Starlette app, stops start-up with a
`ConfigError` naming `http.app` (exit code 2).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Match, Router
from starlette.types import Scope

from open_langgraph.config import AppConfig, ConfigError, split_target
from open_langgraph.importing import import_attribute

KEY = "http.app"

_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")


def load_custom_app(config: AppConfig) -> Starlette | None:
    """The app `http.app` names, or None without one.

    Raises:
        ConfigError: the path does not import, or names something that is not a Starlette
            (or FastAPI) app.
    """
    target = config.http.app
    if target is None:
        return None
    location, attribute = split_target(config.path, KEY, target)
    if location.endswith(_JS_SUFFIXES):
        raise ConfigError(
            config.path, KEY, f"{target!r} is JavaScript; only Python (Starlette) apps are served"
        )
    app = import_attribute(config.path, KEY, location, attribute, "olg_custom_app")
    if not isinstance(app, Starlette):
        raise ConfigError(
            config.path,
            KEY,
            f"{target!r} is a {type(app).__name__}, not a Starlette or FastAPI app "
            "(`app = FastAPI()` or `app = Starlette(routes=[...])`)",
        )
    return app


class CustomRoutes:
    """Tells whether a request goes to one of the custom app's routes, by the same matching
    the router will do: the first full match, else the first partial one (a 405)."""

    def __init__(self, router: Router, routes: list[BaseRoute]) -> None:
        self._router = router
        self._ids = {id(route) for route in routes}

    def serves(self, scope: Scope) -> bool:
        partial: BaseRoute | None = None
        for route in self._router.routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return id(route) in self._ids
            if match is Match.PARTIAL and partial is None:
                partial = route
        return partial is not None and id(partial) in self._ids


def add_routes(app: FastAPI, custom: Starlette) -> CustomRoutes:
    """Append the custom app's routes to `app`'s: the caller adds the routes they may not
    shadow before, the API's others after."""
    theirs = list(custom.router.routes)
    app.router.routes.extend(theirs)
    return CustomRoutes(app.router, theirs)


def add_custom_middleware(app: FastAPI, custom: Starlette) -> None:
    """Add the custom app's middleware at this point of `app`'s stack (what is added later
    runs first), in the custom app's own order."""
    for middleware in reversed(custom.user_middleware):
        cls, args, kwargs = middleware
        app.add_middleware(cls, *args, **kwargs)


def add_custom_exception_handlers(app: FastAPI, custom: Starlette) -> None:
    """The custom app's handlers for the exception classes `app` does not handle."""
    for exception, handler in custom.exception_handlers.items():
        app.exception_handlers.setdefault(exception, handler)


@contextlib.asynccontextmanager
async def custom_lifespan(custom: Starlette | None) -> AsyncIterator[Mapping[str, Any] | None]:
    """The custom app's lifespan (its startup and shutdown handlers included), yielding the
    state it yields; nothing without a custom app."""
    if custom is None:
        yield None
        return
    async with custom.router.lifespan_context(custom) as state:
        yield state
