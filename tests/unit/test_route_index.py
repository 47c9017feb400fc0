"""Each API router's one-pattern index (`server/route_index.py`) accepts exactly the paths
one of its routes matches: a path it turns away is one no route of that router would serve,
so the answer to every request is FastAPI's own."""

from __future__ import annotations

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

from open_langgraph.server.route_index import IndexedRouter, path_index
from open_langgraph.server.routes import (
    a2a,
    assistants,
    crons,
    genui,
    mcp,
    meta,
    metrics,
    openai,
    runs,
    store,
    thread_protocol,
    threads,
    ui,
)
from tests.fixtures.route_paths import literal_segments, parameters, sample_paths

ROUTERS = {
    "health": meta.health,
    "meta": meta.router,
    "metrics": metrics.router,
    "runs": runs.router,
    "threads": threads.router,
    "assistants": assistants.router,
    "thread_protocol": thread_protocol.router,
    "store": store.router,
    "crons": crons.router,
    "mcp": mcp.router,
    "a2a": a2a.router,
    "genui": genui.router,
    "ui": ui.router,
    "openai": openai.router,
}


def _paths() -> set[str]:
    """Every route's path with its parameters set to literal segments of any route (and to
    values no route names), plus variants a client may send by mistake."""
    literals = sorted(literal_segments(ROUTERS.values()) | {"x", "1f0c-2a", "a/b", ""})
    paths: set[str] = {"/", "/nowhere", "/threads/", "/ok/", "/ui"}
    for router in ROUTERS.values():
        for route in router.routes:
            template = getattr(route, "path", "/")
            # Every literal for one parameter; a few for routes with more (kept small).
            values = [*literals[:6], "x"] if parameters(template) > 1 else literals
            for path in sample_paths(template, values):
                paths |= {path, path + "/", path + "/extra", path.rstrip("/")}
    return paths


@pytest.mark.parametrize("name", sorted(ROUTERS))
def test_index_accepts_exactly_the_paths_a_route_matches(name: str) -> None:
    router = ROUTERS[name]
    assert isinstance(router, IndexedRouter)
    index = path_index(router)
    assert index is not None, "every API router is indexed"
    wrong = [
        path
        for path in sorted(_paths())
        if bool(index.match(path)) != any(route.path_regex.match(path) for route in router.routes)  # type: ignore[attr-defined]
    ]
    assert not wrong


def test_routes_added_later_are_indexed_and_other_routers_still_answer() -> None:
    first, second = IndexedRouter(), IndexedRouter()

    @first.get("/items/{item_id}")
    def item(item_id: str) -> dict[str, str]:
        return {"item": item_id}

    @second.get("/other")
    def other() -> dict[str, str]:
        return {"other": "yes"}

    app = FastAPI()
    app.include_router(first)
    app.include_router(second)
    client = TestClient(app)
    assert client.get("/items/7").json() == {"item": "7"}
    assert client.get("/other").json() == {"other": "yes"}
    assert client.post("/items/7").status_code == 405  # a partial match still says so

    @first.get("/late")
    def late() -> dict[str, str]:
        return {"late": "yes"}

    app.include_router(first)
    assert client.get("/late").json() == {"late": "yes"}
    assert client.get("/missing").status_code == 404


def test_a_router_included_in_an_indexed_router_is_still_served() -> None:
    outer, inner = IndexedRouter(), APIRouter()

    @inner.get("/inner/{name}")
    def handler(name: str) -> dict[str, str]:
        return {"inner": name}

    outer.include_router(inner)
    app = FastAPI()
    app.include_router(outer)
    client = TestClient(app)
    assert client.get("/inner/a").json() == {"inner": "a"}
    assert client.get("/outer").status_code == 404
