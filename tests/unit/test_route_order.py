"""The API's routers that serve runs come first (`server/app.py: _routers`), ahead of routers
that used to precede them. That is only a speed-up if no request could be answered by a route
of another of those routers: checked here for every path their routes can match, with each
path parameter set to every literal segment any route has (and to an unseen value)."""

from __future__ import annotations

import itertools
import re

from fastapi import APIRouter

from open_langgraph.server.routes import assistants, meta, runs, threads

# The routers whose order `_routers` changed (any order among them must give the same answers).
REORDERED = {
    "runs": runs.router,
    "threads": threads.router,
    "meta": meta.router,
    "assistants": assistants.router,
}
_PARAM = re.compile(r"\{[^}]+\}")


def _literals() -> set[str]:
    return {
        segment
        for router in REORDERED.values()
        for route in router.routes
        for segment in getattr(route, "path", "").split("/")
        if segment and not _PARAM.fullmatch(segment)
    }


def _sample_paths(path: str, values: set[str]) -> list[str]:
    """`path` with its parameters set to each combination of `values`."""
    pieces = _PARAM.split(path)
    choices = sorted(values)
    return [
        "".join(p + v for p, v in zip(pieces, (*combo, ""), strict=True))
        for combo in itertools.product(choices, repeat=len(pieces) - 1)
    ]


def _matching(router: APIRouter, path: str) -> list[str]:
    return [route.path for route in router.routes if route.path_regex.match(path)]  # type: ignore[attr-defined]


def test_no_path_is_served_by_two_of_the_reordered_routers() -> None:
    values = _literals() | {"x"}
    clashes = []
    for (name, router), (other_name, other) in itertools.permutations(REORDERED.items(), 2):
        for route in router.routes:
            for path in _sample_paths(route.path, values):  # type: ignore[attr-defined]
                if found := _matching(other, path):
                    clashes.append((path, name, other_name, found))
    assert not clashes
