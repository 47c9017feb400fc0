"""A router that turns a request away with one regular expression when none of its routes
could serve the path.

FastAPI (0.165) offers a request to each included router in turn, and a router tries its
routes one by one, each a Python call, a regular expression and scope bookkeeping: a
`POST /threads/{id}/runs/wait` was tried against the routes of every router ahead of the one
that serves it. An `IndexedRouter` keeps one pattern joining its routes' own path patterns,
so a router that serves none of a path costs one match in C (2.5 % of a run's instructions,
`benchmarks/server_instructions.sh`). A path the pattern accepts is matched route by route
as before, so methods, the partial matches behind a 405 and path parameters are FastAPI's.
"""

from __future__ import annotations

import re

from fastapi import APIRouter
from starlette._utils import get_route_path
from starlette.routing import Match
from starlette.types import Scope

_NAMED_GROUP = re.compile(r"\(\?P<[^>]+>")


def path_index(router: APIRouter) -> re.Pattern[str] | None:
    """One pattern matching exactly the paths some route of `router` matches; None when a
    route has no path pattern of its own (a host route, a nested router) or the router has
    frontend routes, whose matching is FastAPI's alone."""
    if getattr(router, "_low_priority_routes", None):
        return None
    patterns = [getattr(route, "path_regex", None) for route in router.routes]
    if not patterns or any(p is None for p in patterns):
        return None
    # Group names repeat across routes ("thread_id"): the joined pattern only says whether
    # any route matches, so its groups need no names.
    joined = "|".join(f"(?:{_NAMED_GROUP.sub('(?:', p.pattern)})" for p in patterns)  # type: ignore[union-attr]
    return re.compile(joined)


class IndexedRouter(APIRouter):
    """`APIRouter` whose `matches` first asks `path_index` (rebuilt when routes are added)."""

    _index_size = -1
    _index: re.Pattern[str] | None = None

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if len(self.routes) != self._index_size:
            self._index = path_index(self)
            self._index_size = len(self.routes)
        index = self._index
        if index is not None and not index.match(get_route_path(scope)):
            return Match.NONE, {}
        return super().matches(scope)
