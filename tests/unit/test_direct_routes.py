"""The server's own routing of directly callable routes (`server/direct_routes.py`) picks the
route FastAPI would pick for every method and path, and the answers are FastAPI's: the same
status and body with it as without it, errors included."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.routing import Match

from open_langgraph.config import load_config
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.server.app import ServerSettings, create_app
from open_langgraph.server.direct_routes import DirectRoutes
from open_langgraph.store_embeddings import store_settings
from tests.fixtures.one_graph_project import write_project
from tests.fixtures.route_paths import literal_segments, parameters, sample_paths

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def _app(tmp_path: Path, name: str, custom_app: FastAPI | None = None) -> FastAPI:
    """The server's app for a one-graph project (graph `agent`) in `tmp_path`."""
    config = load_config(write_project(tmp_path))
    settings = ServerSettings(
        config=config,
        db_path=tmp_path / f"{name}.db",
        store=store_settings(config.path, config.store, sqlite=True),
        custom_app=custom_app,
    )
    return create_app(settings, GraphRegistry(config))


def _direct_routes(app: FastAPI) -> DirectRoutes:
    stack = app.router.middleware_stack
    assert isinstance(stack, DirectRoutes)
    return stack


@pytest.fixture
async def apps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """Clients of two servers of the same config: with the direct routes, and with every
    request left to FastAPI's router."""
    monkeypatch.chdir(tmp_path)
    direct, plain = _app(tmp_path, "direct"), _app(tmp_path, "plain")
    plain.router.middleware_stack = _direct_routes(plain).app
    async with (
        direct.router.lifespan_context(direct),
        plain.router.lifespan_context(plain),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=direct), base_url="http://t") as a,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=plain), base_url="http://t") as b,
    ):
        yield a, b


def test_every_method_and_path_gets_the_route_fastapi_would_choose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = _app(tmp_path, "routes")
    table = _direct_routes(app)
    routes = [entry.route for entry in table._entries]
    literals = sorted(literal_segments([app.router]) | {"x", str(uuid.uuid4()), "a/b", ""})
    paths = {"/", "/nowhere", "/threads/", "/ok/", "/docs", "/openapi.json"}
    for route in routes:
        template = getattr(route, "path", "/")
        values = [*literals[:6], "x"] if parameters(template) > 1 else literals
        for path in sample_paths(template, values):
            paths |= {path, path + "/", path.rstrip("/")}
    checked = 0
    for path in sorted(paths):
        for method in METHODS:
            scope = {"type": "http", "method": method, "path": path, "root_path": ""}
            expected = next((r for r in routes if r.matches(scope)[0] == Match.FULL), None)
            entry = table.entry_for(method, path)
            assert (entry.route if entry else None) is expected, (method, path)
            checked += 1
    assert checked > 5_000


def test_the_runs_hot_routes_are_called_directly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    table = _direct_routes(_app(tmp_path, "hot"))
    thread = str(uuid.uuid4())
    for method, path in [
        ("POST", "/threads"),
        ("POST", f"/threads/{thread}/runs/wait"),
        ("POST", f"/threads/{thread}/runs/stream"),
        ("POST", "/runs/wait"),
        ("POST", "/assistants/search"),
        ("DELETE", f"/threads/{thread}"),
    ]:
        entry = table.entry_for(method, path)
        assert entry is not None and entry.direct is not None, (method, path)


def _comparable(response: httpx.Response) -> tuple[int, Any]:
    """Status and body, less what differs between two servers by design (ids, times)."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    if response.is_success and isinstance(body, dict):
        body = sorted(body)
    elif response.is_success and isinstance(body, list):
        body = len(body)
    return response.status_code, body


async def test_answers_are_fastapis(apps: tuple[httpx.AsyncClient, httpx.AsyncClient]) -> None:
    missing = str(uuid.uuid4())
    run = {"assistant_id": "agent", "input": {"x": 0}}
    requests: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/threads", {"json": {"metadata": {"a": 1}}}),
        ("POST", "/threads", {"content": b""}),
        ("POST", "/threads", {"content": b'{"metadata": {}}'}),  # no content type
        ("POST", "/threads", {"content": b"not json"}),
        ("POST", "/threads", {"json": {"metadata": "not a dict"}}),
        ("POST", "/threads", {"json": [1, 2]}),
        ("POST", "/threads/", {"json": {}}),
        ("PUT", "/threads", {"json": {}}),
        ("POST", "/threads/search", {"json": {"limit": 5}}),
        ("GET", f"/threads/{missing}", {}),
        ("GET", "/threads/not-a-uuid", {}),
        ("DELETE", f"/threads/{missing}", {}),
        ("POST", f"/threads/{missing}/runs/wait", {"json": run}),
        ("POST", "/threads/not-a-uuid/runs/wait", {"json": run}),
        ("POST", "/runs/wait", {"json": run}),
        ("POST", "/runs/wait", {"json": {"input": {}}}),
        ("POST", "/assistants/search", {"json": {"graph_id": "agent"}}),
        ("GET", "/openapi.json", {}),
        ("GET", "/no/such/route", {}),
    ]
    for method, path, kwargs in requests:
        direct, plain = [
            await client.request(method, path, follow_redirects=False, **kwargs) for client in apps
        ]
        assert _comparable(direct) == _comparable(plain), (method, path, kwargs)
    created = (await apps[0].post("/threads", json={})).json()["thread_id"]
    result = await apps[0].post(f"/threads/{created}/runs/wait", json=run)
    assert result.status_code == 200 and result.json() == {"x": 1}


async def test_a_custom_apps_route_still_shadows_the_apis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `http.app`'s routes come before the API's (but after `/ok`), as on the Platform.
    monkeypatch.chdir(tmp_path)
    custom = FastAPI()

    @custom.post("/threads")
    async def own_threads() -> dict[str, bool]:
        return {"custom": True}

    app = _app(tmp_path, "custom", custom_app=custom)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
    ):
        assert (await http.post("/threads", json={})).json() == {"custom": True}
        assert (await http.get("/ok")).json() == {"ok": True}
