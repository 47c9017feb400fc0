"""The API's routers that serve runs come first (`server/app.py: _routers`), ahead of routers
that used to precede them. That is only a speed-up if no request could be answered by a route
of another of those routers: checked here for every path their routes can match, with each
path parameter set to every literal segment any route has (and to an unseen value)."""

from __future__ import annotations

import itertools

from fastapi import APIRouter

from open_langgraph.server.routes import assistants, meta, runs, threads
from tests.fixtures.route_paths import literal_segments, sample_paths

# The routers whose order `_routers` changed (any order among them must give the same answers).
REORDERED = {
    "runs": runs.router,
    "threads": threads.router,
    "meta": meta.router,
    "assistants": assistants.router,
}


def _matching(router: APIRouter, path: str) -> list[str]:
    return [route.path for route in router.routes if route.path_regex.match(path)]  # type: ignore[attr-defined]


def test_no_path_is_served_by_two_of_the_reordered_routers() -> None:
    values = sorted(literal_segments(REORDERED.values()) | {"x"})
    clashes = []
    for (name, router), (other_name, other) in itertools.permutations(REORDERED.items(), 2):
        for route in router.routes:
            for path in sample_paths(route.path, values):  # type: ignore[attr-defined]
                if found := _matching(other, path):
                    clashes.append((path, name, other_name, found))
    assert not clashes
