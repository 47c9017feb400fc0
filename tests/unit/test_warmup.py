"""The first request after start-up costs what any later one does: the server resolves
FastAPI's lazily built routes while it starts (server/warmup.py), so a cold browser's first
paint of the web UI and a client's first call do not pay for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import fastapi.routing
import httpx
import pytest
from fastapi import APIRouter, FastAPI

from open_langgraph.config import load_config
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.server.app import ServerSettings, create_app
from open_langgraph.server.warmup import warm_up
from open_langgraph.store_embeddings import store_settings

GRAPH = """
from typing import TypedDict
from langgraph.graph import StateGraph

class State(TypedDict):
    n: int

graph = StateGraph(State).add_node("a", lambda s: {"n": s["n"] + 1}).set_entry_point("a").compile()
"""


@pytest.fixture
def route_builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths whose dependencies FastAPI resolves from here on."""
    built: list[str] = []
    original = fastapi.routing.get_dependant

    def counting(*args: object, **kwargs: object) -> object:
        built.append(str(kwargs.get("path")))
        return original(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "get_dependant", counting)
    yield built


def _app_with_an_included_router() -> FastAPI:
    router = APIRouter()

    @router.get("/items/{item_id}")
    async def item(item_id: int) -> dict[str, int]:
        return {"item_id": item_id}

    app = FastAPI()
    app.include_router(router)
    return app


async def _get(app: FastAPI, path: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        return await http.get(path)


async def test_without_the_warm_up_a_first_request_resolves_routes(route_builds: list[str]):
    # The control: what the server's warm-up exists to avoid happens on this FastAPI.
    app = _app_with_an_included_router()
    assert (await _get(app, "/items/3")).json() == {"item_id": 3}
    assert "/items/{item_id}" in route_builds


async def test_after_the_warm_up_a_first_request_resolves_nothing(route_builds: list[str]):
    app = _app_with_an_included_router()
    assert await warm_up(app.router.routes, serves_files=False) >= 1
    route_builds.clear()
    assert (await _get(app, "/items/3")).json() == {"item_id": 3}
    assert route_builds == []


async def test_the_server_starts_with_its_routes_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, route_builds: list[str]
):
    (tmp_path / "agent.py").write_text(GRAPH)
    config_file = tmp_path / "langgraph.json"
    config_file.write_text(json.dumps({"graphs": {"agent": "./agent.py:graph"}}))
    monkeypatch.chdir(tmp_path)
    config = load_config(config_file)
    store = store_settings(config.path, config.store, sqlite=True)
    settings = ServerSettings(config=config, db_path=tmp_path / "olg.db", store=store)
    app = create_app(settings, GraphRegistry(config))
    async with app.router.lifespan_context(app):
        route_builds.clear()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            assert (await http.get("/ok")).status_code == 200
            assert (await http.post("/assistants/search", json={})).status_code == 200
            assert (await http.get("/ui/")).status_code in (200, 404)
            assert (await http.get("/no/such/route")).status_code == 404
    assert route_builds == []
