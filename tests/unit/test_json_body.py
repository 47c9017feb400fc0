"""Bodies read by `JsonBodyRoute`, which hands FastAPI the body already read: the values
and the 422s a client gets are FastAPI's own."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

from open_langgraph.server.json_body import JsonBodyRoute


class Body(BaseModel):
    value: Any = None


def _client() -> TestClient:
    router = APIRouter(route_class=JsonBodyRoute)

    @router.post("/echo")
    async def echo(body: Body) -> dict[str, Any]:
        return {"value": body.value, "type": type(body.value).__name__}

    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


def test_a_plain_body_is_read_as_sent():
    answer = _client().post("/echo", content=b'{"value": {"a": [1, 2.5, "x", null]}}')
    assert answer.json() == {"value": {"a": [1, 2.5, "x", None]}, "type": "dict"}


def test_an_integer_past_64_bits_keeps_its_value():
    # Python's json reads it exactly (orjson would make it a float).
    answer = _client().post("/echo", content=b'{"value": 1180591620717411303424}')
    assert answer.status_code == 200, answer.text
    assert answer.json()["type"] == "int"
    assert answer.text.startswith('{"value":1180591620717411303424')


def test_broken_json_is_a_422_naming_the_position():
    answer = _client().post("/echo", content=b'{"value": ')
    assert answer.status_code == 422
    (error,) = answer.json()["detail"]
    assert error["type"] == "json_invalid"
    assert error["loc"] == ["body", 10]


def test_an_empty_body_reads_as_an_empty_object():
    answer = _client().post("/echo")
    assert answer.json() == {"value": None, "type": "NoneType"}
