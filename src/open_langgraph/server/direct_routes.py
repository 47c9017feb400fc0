"""Requests for the API's directly callable routes, routed by one regular expression.

FastAPI (0.165) routes a request through each included router in turn, recording and
restoring its place in the scope at every level, then wraps the chosen route in two exit
stacks and a second exception handler: about a third of the Python calls of a
`POST /threads`. `DirectRoutes` sits where FastAPI's router is called (inside its exception
and exit-stack middleware, so errors are handled as before) and picks the route itself: one
pattern joins every route's method and path in FastAPI's order, so the first alternative that
matches is the route FastAPI would choose. When that route's endpoint can be called directly
(`direct_call.py`) it is, with the scope FastAPI would give it (`route`, `endpoint`,
`path_params`). Anything else goes to FastAPI unchanged: another route, no match (404, 405,
a redirect to the slashed path), and a request the direct call declines (a body that is not
JSON or does not validate), whose body FastAPI reads again from a replay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from starlette._utils import get_route_path
from starlette.requests import Request
from starlette.routing import BaseRoute, Match, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from open_langgraph.server.direct_call import DirectCall

_NAMED_GROUP = re.compile(r"\(\?P<[^>]+>")
_ANY_METHOD = "[A-Z]+"


@dataclass(frozen=True, slots=True)
class _Entry:
    route: Any
    #: None: FastAPI serves this route's requests.
    direct: DirectCall | None


def _alternative(index: int, route: Any) -> str:
    """`route` as one alternative of the joined pattern, matched against "METHOD /path"; its
    only group is the outer one, named after its place in the table."""
    path = _NAMED_GROUP.sub("(?:", route.path_regex.pattern).removeprefix("^")
    methods = route.methods
    verbs = "|".join(sorted(re.escape(m) for m in methods)) if methods else _ANY_METHOD
    return f"(?P<r{index}>(?:{verbs}) {path})"


class DirectRoutes:
    """ASGI app in front of FastAPI's router for `routes`, listed in FastAPI's order from the
    first route of the app on: a route FastAPI would try earlier must be listed too (as any
    route without a direct call is), or a request of its could be taken by a later one."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute], router: Any) -> None:
        self.app = app
        self._router = router
        entries: list[_Entry] = []
        for route in routes:
            if isinstance(route, WebSocketRoute):
                continue  # never matches an HTTP request
            if getattr(route, "path_regex", None) is None:
                break  # a route matched otherwise (a host): what follows may be shadowed
            entries.append(_Entry(route, getattr(route, "direct_call", None)))
        self._entries = tuple(entries)
        joined = "|".join(_alternative(i, entry.route) for i, entry in enumerate(entries))
        self._pattern = re.compile(f"^(?:{joined})") if entries else None

    def entry_for(self, method: str, path: str) -> Any | None:
        """The route FastAPI would serve `method` `path` with, if it is one of the table's
        and matches fully (path and method); else None."""
        if self._pattern is None:
            return None
        found = self._pattern.match(f"{method} {path}")
        if found is None or found.lastgroup is None:
            return None
        return self._entries[int(found.lastgroup[1:])]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = get_route_path(scope)
        entry = self.entry_for(scope["method"], path)
        if entry is None or entry.direct is None:
            await self.app(scope, receive, send)
            return
        # The route's own match gives the scope FastAPI would: `path_params` converted,
        # `endpoint`, `route`.
        match, child_scope = entry.route.matches(scope)
        if match != Match.FULL:
            await self.app(scope, receive, send)
            return
        scope.update(child_scope)
        scope.setdefault("router", self._router)
        request = Request(scope, receive, send)
        response = await entry.direct(request)
        if response is None:
            if entry.direct.body_field is not None:
                receive = _replaying(await request.body(), receive)
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` that first hands over the body already read, then the connection's own."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
