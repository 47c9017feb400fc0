"""Bad input on every route answers a 4xx with a JSON `detail`, never a 500."""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.fixtures.server import ServerProcess, serving

pytestmark = pytest.mark.e2e

BAD_BODIES: list[bytes] = [
    b"",
    b"{not json",
    b"[]",
    b"null",
    b'"a string"',
    b'{"assistant_id": 5, "limit": "x", "metadata": [], "thread_id": {}}',
    b'{"limit": -1, "offset": -5, "sort_by": "; DROP TABLE threads", "status": "nope"}',
    b'{"assistant_id": "counter", "input": {"count": "not a number"}, "stream_mode": 7}',
    b'{"checkpoint": {"checkpoint_id": 3}, "values": [1, 2], "as_node": 1}',
]
PATH_VALUES = ["counter", str(uuid.uuid4()), "not-a-uuid", "%20", "0"]


def _routes(spec: dict) -> list[tuple[str, str]]:
    return [
        (method.upper(), path)
        for path, methods in spec["paths"].items()
        for method in methods
        if method in ("get", "post", "put", "patch", "delete")
    ]


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of its own: valid requests among the bad ones delete and cancel things."""
    with serving(tmp_path_factory.mktemp("olg-bad-input")) as process:
        yield process


def test_no_route_answers_500_to_bad_input(own_server: ServerProcess):
    with httpx.Client(base_url=own_server.url, timeout=30) as http:
        spec = http.get("/openapi.json").json()
        routes = _routes(spec)
        assert len(routes) > 30
        for (method, template), path_value in itertools.product(routes, PATH_VALUES):
            path = re.sub(r"\{[^}]+\}", path_value, template)
            bodies = BAD_BODIES if method in ("POST", "PUT", "PATCH") else [b""]
            for body in bodies:
                response = http.request(
                    method,
                    path,
                    content=body,
                    headers={"content-type": "application/json"},
                    params={"limit": "-3", "xray": "maybe", "wait": "perhaps"},
                )
                context = f"{method} {path} {body[:60]!r} -> {response.status_code}"
                assert response.status_code < 500, context + response.text[:300]
                if response.status_code >= 400:
                    assert isinstance(response.json().get("detail"), str), context
