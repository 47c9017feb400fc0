"""Endpoints called directly (`server/direct_call.py`) answer exactly as FastAPI would have:
same values passed, same 422s, and routes with anything else left to FastAPI."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.testclient import TestClient
from pydantic import BaseModel, Field

from open_langgraph.server import direct_call
from open_langgraph.server.direct_call import DirectCall
from open_langgraph.server.json_body import JsonBodyRoute
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.routes import assistants, runs, store, threads


class Item(BaseModel):
    name: str
    count: int = 1
    kind: Literal["a", "b"] = "a"
    tags: list[str] = Field(default_factory=list)
    extra: dict[str, Any] | None = None


async def _app_state(request: Request) -> str:
    return request.app.title


def _router() -> APIRouter:
    router = APIRouter(route_class=JsonBodyRoute)

    @router.post("/things/{thing_id}/items")
    async def add(
        thing_id: str, item: Item, title: Annotated[str, Depends(_app_state)]
    ) -> JSONResponse:
        return JSONResponse({"thing": thing_id, "item": item.model_dump(), "title": title})

    @router.post("/things/{thing_id}/queried")
    async def queried(thing_id: str, item: Item, page: Annotated[int, Query()] = 1) -> JSONResponse:
        return JSONResponse({"page": page})

    @router.post("/things/{thing_id}/raw")
    async def raw(thing_id: str, item: Item, request: Request) -> JSONResponse:
        return JSONResponse({"path": request.url.path})

    @router.get("/things/{thing_id}")
    async def get(thing_id: str, title: Annotated[str, Depends(_app_state)]) -> JSONResponse:
        return JSONResponse({"thing": thing_id, "title": title})

    @router.get("/things/{thing_id}/page")
    async def page(thing_id: str, page: int = 1) -> JSONResponse:
        return JSONResponse({"page": page})

    @router.post("/things/{thing_id}/plain")
    async def plain(thing_id: str, item: Item) -> dict[str, Any]:
        return {"thing": thing_id}

    return router


def _client() -> TestClient:
    app = FastAPI(title="probe")
    app.include_router(_router())
    return TestClient(app)


def _route(router: APIRouter, path: str, method: str = "POST") -> Any:
    """The route serving `method` at `path`."""
    return next(r for r in router.routes if r.path == path and method in r.methods)


def test_only_routes_of_path_body_and_request_dependencies_are_called_directly():
    router = _router()
    assert DirectCall.of(_route(router, "/things/{thing_id}/items")) is not None
    assert DirectCall.of(_route(router, "/things/{thing_id}", "GET")) is not None
    # A query parameter, the request itself, a return value FastAPI serialises: FastAPI's.
    for path in ("queried", "raw", "plain"):
        assert DirectCall.of(_route(router, f"/things/{{thing_id}}/{path}")) is None
    assert DirectCall.of(_route(router, "/things/{thing_id}/page", "GET")) is None


@pytest.mark.parametrize(
    "route",
    [
        (threads.router, "/threads"),
        (runs.router, "/threads/{thread_id}/runs"),
        (runs.router, "/threads/{thread_id}/runs/wait"),
        (runs.router, "/threads/{thread_id}/runs/stream"),
        (runs.router, "/runs/wait"),
        (runs.router, "/runs/stream"),
        (threads.router, "/threads/search"),
        (assistants.router, "/assistants/search"),
        (store.router, "/store/items/search"),
        (runs.router, "/threads/{thread_id}/runs/{run_id}/join", "GET"),
        (assistants.router, "/assistants/{assistant_id}", "GET"),
    ],
)
def test_the_api_hot_routes_are_called_directly(route: tuple[Any, ...]):
    assert DirectCall.of(_route(*route)) is not None


BODIES = [
    b'{"name": "x"}',
    b'{"name": "x", "count": "7", "kind": "b", "tags": ["t"], "extra": {"n": [1, {"d": true}]}}',
    b'{"name": "x", "unknown": 1}',
    b'{"count": 2}',  # name missing
    b'{"name": "x", "kind": "c"}',  # not a kind
    b'{"name": "x", "count": "many"}',
    b"null",
    b"[1, 2]",
    b'{"name": ',  # broken
    b"",  # read as {}
    b'{"name": "x", "count": 1.5}',  # not a whole number
]


@pytest.mark.parametrize("body", BODIES)
def test_a_direct_call_answers_as_fastapi_does(body: bytes, monkeypatch: pytest.MonkeyPatch):
    direct = _client().post("/things/t-1/items", content=body)
    monkeypatch.setattr(direct_call.DirectCall, "of", classmethod(lambda cls, route: None))
    by_fastapi = _client().post("/things/t-1/items", content=body)
    assert (direct.status_code, direct.json()) == (by_fastapi.status_code, by_fastapi.json())


def test_a_route_without_a_body_answers_as_fastapi_does(monkeypatch: pytest.MonkeyPatch):
    direct = _client().get("/things/t%20two?ignored=1")
    monkeypatch.setattr(direct_call.DirectCall, "of", classmethod(lambda cls, route: None))
    by_fastapi = _client().get("/things/t%20two?ignored=1")
    assert direct.status_code == by_fastapi.status_code == 200
    assert direct.json() == by_fastapi.json() == {"thing": "t two", "title": "probe"}
